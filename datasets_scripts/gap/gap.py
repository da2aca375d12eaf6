"""GAP (Webster et al., TACL 2018): gender-balanced ambiguous pronouns from Wikipedia.

Run by ``corefbias.datasets_export`` (``datasets`` 5 runs no loading scripts). Upstream files are
read through ``corefbias.upstream.fetch`` from the mirror given as ``data_dir`` (else
``$COREFBIAS_MIRROR``, else the checksummed download cache).
"""

from __future__ import annotations

from collections import Counter

import datasets

from corefbias import spans, upstream

UPSTREAM_DATASET = "gap"
# Upstream "development" (4,000 pairs, "may be used for model development") is the train split.
SPLITS = {
    datasets.Split.TRAIN: "gap-development.tsv",
    datasets.Split.VALIDATION: "gap-validation.tsv",
    datasets.Split.TEST: "gap-test.tsv",
}
FEMALE_PRONOUNS = {"she", "her", "hers"}
MALE_PRONOUNS = {"he", "his", "him"}

_CITATION = """\
@article{webster-etal-2018-mind,
    title = "Mind the {GAP}: A Balanced Corpus of Gendered Ambiguous Pronouns",
    author = "Webster, Kellie and Recasens, Marta and Axelrod, Vera and Baldridge, Jason",
    journal = "Transactions of the Association for Computational Linguistics",
    volume = "6",
    year = "2018",
    pages = "605--617",
}
"""

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


class Gap(datasets.GeneratorBasedBuilder):
    """GAP: train (upstream development), validation and test."""

    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name="default",
            version=VERSION,
            description="gap-development.tsv (train), gap-validation.tsv (validation), gap-test.tsv (test).",
        )
    ]
    DEFAULT_CONFIG_NAME = "default"

    def _info(self):
        source = upstream.dataset_source(UPSTREAM_DATASET)
        return datasets.DatasetInfo(
            description=_DESCRIPTION,
            features=FEATURES,
            homepage=f"https://github.com/{source['repository']}",
            license=source["license"],
            citation=_CITATION,
        )

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=split, gen_kwargs={"path": path}) for split, path in SPLITS.items()]

    def _generate_examples(self, path):
        examples = [example(row) for row in upstream.read_tsv(UPSTREAM_DATASET, path, self.config.data_dir or None)]
        duplicates = [key for key, count in Counter(ex["id"] for ex in examples).items() if count > 1]
        if duplicates:
            raise ValueError(f"{path}: duplicate IDs {duplicates[:5]}")
        for index, ex in enumerate(examples):
            yield index, ex
