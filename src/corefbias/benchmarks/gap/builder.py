"""GAP (Webster et al., TACL 2018): gender-balanced ambiguous pronouns from Wikipedia.

The test split also carries Kocijan et al.'s (AAAI 2021) hand-annotated personal names, the two
properties derived from them (number of names; rank of the correct name by distance to the pronoun)
and the W-Bias weights that balance those properties between the genders. Properties and weights
come from ``corefbias.measures.gap_properties`` (spaCy tokenizer, exact LP of ``corefbias.measures.weighting``), so the
exported weights are the ones the ``gap_w_bias`` metric computes.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). Upstream files are
read through ``corefbias.data.upstream.fetch`` from the mirror given as ``data_dir`` (else
``$COREFBIAS_MIRROR``, else the checksummed download cache).
"""

from __future__ import annotations

import json

import datasets

from corefbias.benchmarks.gap import files as gap_files
from corefbias.data import builder_base, citations, features, spans, upstream
from corefbias.measures import gap_properties

UPSTREAM_DATASET = "gap"
# Upstream "development" (4,000 pairs, "may be used for model development") is the train split.
SPLITS = {
    datasets.Split.TRAIN: "gap-development.tsv",
    datasets.Split.VALIDATION: "gap-validation.tsv",
    datasets.Split.TEST: "gap-test.tsv",
}
# Only GAP test has name annotations (gap_on_gap's gap-test-name-spans.json).
ANNOTATED_SPLIT = datasets.Split.TEST

_CITATION = citations.cite("webster-etal-2018-mind", "kocijan21aaai")

_DESCRIPTION = """\
GAP is a gender-balanced corpus of 4,454 Wikipedia snippets (8,908 pronoun-name pairs), each with an
ambiguous pronoun and two candidate names A and B labelled as coreferent with the pronoun or not.
Systems are scored by F1 on feminine and masculine examples and the bias factor F/M. The test split
adds the personal-name annotations of "The Gap on Gap" (Kocijan et al., 2021) and the W-Bias weights
that balance the number of names and the position of the referent between the genders.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    gender=datasets.Value("string"),
    url=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
    names=datasets.List(dict(features.SPAN)),
    num_names=datasets.Value("int32"),
    candidate_ranks=datasets.List(datasets.Value("int32")),
    correct_rank=datasets.Value("int32"),
    **{variant: datasets.Value("float64") for variant in gap_properties.VARIANTS},
)
NAME_COLUMNS = ("names", "num_names", "candidate_ranks", "correct_rank", *gap_properties.VARIANTS)


def example(row: dict) -> dict:
    gender = gap_files.PRONOUN_GENDERS.get(row["Pronoun"].lower())
    if gender is None:
        raise ValueError(f"row {row['ID']}: pronoun {row['Pronoun']!r} is neither feminine nor masculine")
    columns = spans.gap_columns(row)
    return {
        **columns,
        "id": row["ID"],
        "gender": gender,
        "url": row["URL"],
        "pronoun_gender": gender,
        # The candidates are personal names: GAP assigns them no occupation stereotype.
        "candidate_stereotypes": [None] * len(columns["candidates"]),
    }


def annotated_names(annotation, text: str, *, row: str) -> list[dict]:
    """The name spans of one example, ``[[start, end, name], ...]`` upstream, each checked against ``text``."""
    names = []
    for entry in annotation:
        if not (isinstance(entry, list) and len(entry) == 3):
            raise ValueError(f"row {row}: name annotation {entry!r} is not [start, end, name]")
        start, end, name = entry
        span = spans.span_at(text, start, name, row=row, what="name")
        if span["end"] != end:
            raise spans.SpanError(
                f"row {row}: name {name!r} at offset {start} ends at {span['end']}, not at the annotated {end}"
            )
        names.append(span)
    return names


def load_annotations(mirror) -> dict:
    """The raw name-span file, names' text included (``gap_files.load_name_spans`` keeps offsets only)."""
    path = upstream.fetch(gap_files.NAMES_DATASET, gap_files.NAME_SPANS_FILE, mirror)
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def name_columns(rows: list[dict], annotations: dict) -> list[dict]:
    """Per GAP-test row: its annotated names, their number, the candidates' and the correct candidate's
    rank among them, and the weight of every variant.

    Needs spaCy (``pip install 'corefbias[gap]'``) for the token distances behind ``correct_rank``.
    """
    names = []
    for row in rows:
        if row["ID"] not in annotations:
            raise ValueError(f"row {row['ID']}: {gap_files.NAME_SPANS_FILE} has no names for it")
        names.append(annotated_names(annotations[row["ID"]], row["Text"], row=row["ID"]))
    examples = [gap_files.gap_example(row) for row in rows]
    name_spans = {
        example.id: [(name["start"], name["end"]) for name in found] for example, found in zip(examples, names)
    }
    properties = gap_properties.name_properties(examples, name_spans)
    references = [example.references for example in examples]
    correct_ranks = properties.correct_ranks(references)
    genders = [example.gender for example in examples]
    has_positive = [any(labels) for labels in references]
    weights = {
        variant: gap_properties.variant_weights(genders, has_positive, properties.num_names, correct_ranks, variant)
        for variant in gap_properties.VARIANTS
    }
    return [
        {
            "names": names[index],
            "num_names": int(properties.num_names[index]),
            # The core marks a candidate that overlaps no annotated name with rank 0.
            "candidate_ranks": [int(rank) or None for rank in properties.candidate_ranks[index]],
            "correct_rank": correct_ranks[index],
            **{variant: float(values[index]) for variant, values in weights.items()},
        }
        for index in range(len(rows))
    ]


class Gap(builder_base.UpstreamBuilder):
    """GAP: train (upstream development), validation and test (with names, properties and weights)."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = _CITATION
    VERSION = datasets.Version("1.1.0")
    CONFIG_DESCRIPTIONS = {
        "default": "gap-development.tsv (train), gap-validation.tsv (validation), gap-test.tsv (test); "
        "test names from weightingGAP's gap-test-name-spans.json.",
    }

    def _split_generators(self, dl_manager):
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"path": path, "annotated": split == ANNOTATED_SPLIT})
            for split, path in SPLITS.items()
        ]

    def _generate_examples(self, path, annotated):
        rows = upstream.read_tsv(UPSTREAM_DATASET, path, self.mirror)
        examples = [example(row) for row in rows]
        extra = (
            name_columns(rows, load_annotations(self.mirror))
            if annotated
            else [dict.fromkeys(NAME_COLUMNS)] * len(rows)
        )
        yield from builder_base.enumerate_unique(({**base, **columns} for base, columns in zip(examples, extra)), path)
