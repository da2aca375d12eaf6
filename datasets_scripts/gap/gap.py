"""GAP (Webster et al., TACL 2018): gender-balanced ambiguous pronouns from Wikipedia.

Run by ``corefbias.datasets_export`` (``datasets`` 5 runs no loading scripts). Upstream files are
read through ``corefbias.upstream.fetch`` from the mirror given as ``data_dir`` (else
``$COREFBIAS_MIRROR``, else the checksummed download cache).
"""

from __future__ import annotations

import datasets

from corefbias import builders, citations, spans, upstream

UPSTREAM_DATASET = "gap"
# Upstream "development" (4,000 pairs, "may be used for model development") is the train split.
SPLITS = {
    datasets.Split.TRAIN: "gap-development.tsv",
    datasets.Split.VALIDATION: "gap-validation.tsv",
    datasets.Split.TEST: "gap-test.tsv",
}
FEMALE_PRONOUNS = {"she", "her", "hers"}
MALE_PRONOUNS = {"he", "his", "him"}

_CITATION = citations.GAP

_DESCRIPTION = """\
GAP is a gender-balanced corpus of 4,454 Wikipedia snippets (8,908 pronoun-name pairs), each with an
ambiguous pronoun and two candidate names A and B labelled as coreferent with the pronoun or not.
Systems are scored by F1 on feminine and masculine examples and the bias factor F/M.
"""

FEATURES = spans.common_features(
    id=datasets.Value("string"),
    gender=datasets.Value("string"),
    url=datasets.Value("string"),
)


def example(row: dict) -> dict:
    pronoun = row["Pronoun"].lower()
    if pronoun not in FEMALE_PRONOUNS | MALE_PRONOUNS:
        raise ValueError(f"row {row['ID']}: pronoun {row['Pronoun']!r} is neither feminine nor masculine")
    return {
        **spans.gap_columns(row),
        "id": row["ID"],
        "gender": "female" if pronoun in FEMALE_PRONOUNS else "male",
        "url": row["URL"],
    }


class Gap(builders.UpstreamBuilder):
    """GAP: train (upstream development), validation and test."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = _CITATION
    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name="default",
            version=VERSION,
            description="gap-development.tsv (train), gap-validation.tsv (validation), gap-test.tsv (test).",
        )
    ]
    DEFAULT_CONFIG_NAME = "default"

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=split, gen_kwargs={"path": path}) for split, path in SPLITS.items()]

    def _generate_examples(self, path):
        rows = upstream.read_tsv(UPSTREAM_DATASET, path, self.mirror)
        yield from builders.enumerate_unique((example(row) for row in rows), path)
