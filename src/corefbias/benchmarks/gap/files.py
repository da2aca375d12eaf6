"""GAP's upstream files: the test examples (``gap-test.tsv``), Kocijan et al.'s annotated name spans and
their published W-Bias weights."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...data import pronouns, upstream
from ...data.spans import Span

GAP_DATASET = "gap"
GAP_TEST_FILE = "gap-test.tsv"
NAMES_DATASET = "gap_on_gap"
NAME_SPANS_FILE = "gap-test-name-spans.json"
PUBLISHED_WEIGHT_FILES = {"w": "linear_weights.json", "wt": "linear_weights_trimmed.json"}
PRONOUN_GENDERS = pronouns.ENGLISH


@dataclass(frozen=True)
class GapExample:
    id: str
    text: str
    pronoun: Span
    candidates: tuple[Span, Span]
    references: tuple[bool, bool]
    gender: str


def gap_example(row: dict) -> GapExample:
    """One row of a GAP tsv (``ID, Text, Pronoun, Pronoun-offset, A, A-offset, A-coref, B, ...``)."""
    spans = []
    for field in ("Pronoun", "A", "B"):
        start = int(row[f"{field}-offset"])
        spans.append((start, start + len(row[field])))
    return GapExample(
        id=row["ID"],
        text=row["Text"],
        pronoun=spans[0],
        candidates=(spans[1], spans[2]),
        references=(row["A-coref"].upper() == "TRUE", row["B-coref"].upper() == "TRUE"),
        gender=PRONOUN_GENDERS[row["Pronoun"].lower()],
    )


def load_gap_test(mirror=None) -> list[GapExample]:
    return [gap_example(row) for row in upstream.read_tsv(GAP_DATASET, GAP_TEST_FILE, mirror)]


def load_name_spans(mirror=None) -> dict[str, list[Span]]:
    """The annotated personal-name spans of every GAP-test example, by example id."""
    with open(upstream.fetch(NAMES_DATASET, NAME_SPANS_FILE, mirror), encoding="utf-8") as handle:
        annotations = json.load(handle)
    return {
        example_id: [(int(start), int(end)) for start, end, _ in spans] for example_id, spans in annotations.items()
    }


def published_weights(examples: Sequence[GapExample], variant: str, mirror=None) -> np.ndarray:
    """The weights the authors released for ``variant`` (``w`` or ``wt``), one per example.

    The files give a weight per candidate (``test-1a``, ``test-1b``), non-zero only on the positive
    one; an example's weight is the sum of its two.
    """
    if variant not in PUBLISHED_WEIGHT_FILES:
        raise ValueError(f"weights were published for variants {sorted(PUBLISHED_WEIGHT_FILES)} only, not {variant!r}")
    with open(upstream.fetch(NAMES_DATASET, PUBLISHED_WEIGHT_FILES[variant], mirror), encoding="utf-8") as handle:
        by_candidate = json.load(handle)
    return np.array([by_candidate[f"{example.id}a"] + by_candidate[f"{example.id}b"] for example in examples])
