"""GAP test properties that differ between the genders (Kocijan et al., 2021, Sec. 3.3–3.5), and the
weights that balance them.

From the hand-annotated spans of every personal name in GAP test (``gap-test-name-spans.json``):

  * ``N_k``: the examples with exactly ``k`` name spans (every mention counts, so a name mentioned
    twice counts twice, as in the paper's 5.55 / 6.30 names per masculine / feminine example);
  * ``D_k``: the examples whose correct candidate is the ``k``-th closest name to the pronoun.

Distance is the number of spaCy tokens between a name and the pronoun: the text strictly between
them, stripped of surrounding whitespace, run through spaCy's English tokenizer. Names are ordered
by distance, ties by position in the text (earlier first). The paper used spaCy 2, whose tokenizer
kept a hyphen after a digit inside the token ("1-year", "200-meter"); later releases split it
(explosion/spaCy#5770, mid-2020). That changes the order of two masculine GAP-test examples (test-158,
test-1299), so :func:`english_tokenizer` restores the spaCy 2 rule by default: with it our ``D_k`` are
the sets the published weights balance, and the Dist-k counts are the paper's.

Matching a candidate to a name: a candidate (GAP's A or B span) is matched to the *closest* name
span that shares at least one character with it (its rank is that name's 1-based position in the
distance order). A candidate that overlaps no annotated name (9 positive candidates in GAP test,
where the annotators did not mark GAP's span as a name, e.g. "Manager of the Year") has no rank: its
example stays in the ``N_k`` sets but joins no ``D_k`` set, and a baseline that picks a name can
never pick it. The same single match is used by the baselines (``corefbias.measures.gap_baselines``), so that
a Dist-k baseline is right exactly on ``D_k``.

Weighting variants (Sec. 3.4–3.5), each solved by ``corefbias.measures.weighting.balance_weights`` over the
examples with a positive candidate (the others weigh 0): ``w`` balances ``N_k`` and ``D_k``; ``wnum``
only ``N_k``; ``wdist`` only ``D_k``; ``wt`` first drops (weight 0) the examples with more than 15
names or a correct candidate at rank 5 or further, then balances ``N_k`` and ``D_k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import validation, weighting

TRIM_MAX_NAMES = 15
TRIM_FIRST_DROPPED_RANK = 5


@dataclass(frozen=True)
class Variant:
    properties: tuple[str, ...]
    trimmed: bool
    description: str


VARIANTS = {
    "w": Variant(
        ("num_names", "correct_rank"), False, "balances the number of names and the rank of the correct candidate"
    ),
    "wnum": Variant(("num_names",), False, "balances the number of names only"),
    "wdist": Variant(("correct_rank",), False, "balances the rank of the correct candidate only"),
    "wt": Variant(
        ("num_names", "correct_rank"),
        True,
        f"drops examples with more than {TRIM_MAX_NAMES} names or rank ≥ {TRIM_FIRST_DROPPED_RANK}, then balances both",
    ),
}


@lru_cache(maxsize=2)
def english_tokenizer(split_hyphen_after_digit: bool = False):
    """spaCy's English tokenizer (``spacy.blank("en")``), by default with the paper's spaCy 2 hyphen rule.

    ``split_hyphen_after_digit=True`` keeps the current spaCy rule ("1-year" → "1", "-", "year").
    """
    try:
        import spacy
        from spacy.lang.char_classes import ALPHA, HYPHENS
        from spacy.util import compile_infix_regex
    except ImportError:
        raise ImportError("GAP name distances need spaCy: pip install 'corefbias[gap]'") from None
    nlp = spacy.blank("en")
    if not split_hyphen_after_digit:
        current = rf"(?<=[{ALPHA}0-9])(?:{HYPHENS})(?=[{ALPHA}])"
        spacy2 = rf"(?<=[{ALPHA}])(?:{HYPHENS})(?=[{ALPHA}])"
        infixes = [spacy2 if pattern == current else pattern for pattern in nlp.Defaults.infixes]
        nlp.tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
    return nlp.tokenizer


def token_distance(text: str, name: tuple[int, int], pronoun: tuple[int, int], tokenizer) -> int:
    """Tokens strictly between a name and the pronoun (0 when they touch or overlap)."""
    if name[1] <= pronoun[0]:
        between = text[name[1] : pronoun[0]]
    elif name[0] >= pronoun[1]:
        between = text[pronoun[1] : name[0]]
    else:
        return 0
    between = between.strip()
    return len(tokenizer(between)) if between else 0


def names_by_distance(example, names: Sequence[tuple[int, int]], tokenizer) -> list[tuple[int, int]]:
    """The example's name spans, closest to the pronoun first; ties in text order."""
    return sorted(names, key=lambda name: (token_distance(example.text, name, example.pronoun, tokenizer), name))


def candidate_rank(candidate: tuple[int, int], ordered_names: Sequence[tuple[int, int]]) -> int | None:
    """1-based position of the closest name sharing a character with the candidate; None if none does."""
    for position, (start, end) in enumerate(ordered_names, start=1):
        if start < candidate[1] and candidate[0] < end:
            return position
    return None


@dataclass(frozen=True)
class NameProperties:
    """Per example: the number of annotated names and each candidate's rank (0: matches no name)."""

    num_names: np.ndarray  # (n,) int
    candidate_ranks: np.ndarray  # (n, 2) int

    def correct_ranks(self, references) -> list[int | None]:
        """The rank of the positive candidate; None without a positive candidate or a matching name."""
        gold = np.asarray(references, dtype=bool)
        ranks = np.where(gold[:, 0], self.candidate_ranks[:, 0], np.where(gold[:, 1], self.candidate_ranks[:, 1], 0))
        return [int(rank) if rank > 0 else None for rank in ranks]


def name_properties(examples: Sequence, name_spans: dict[str, list[tuple[int, int]]], tokenizer=None) -> NameProperties:
    """``N_k`` and the candidates' ranks (``D_k`` for the positive one) of every example."""
    if tokenizer is None:
        tokenizer = english_tokenizer()
    missing = [example.id for example in examples if example.id not in name_spans]
    if missing:
        raise ValueError(f"no name annotations for {len(missing)} example(s), e.g. {missing[:3]}")
    num_names, ranks = [], []
    for example in examples:
        ordered = names_by_distance(example, name_spans[example.id], tokenizer)
        num_names.append(len(ordered))
        ranks.append([candidate_rank(candidate, ordered) or 0 for candidate in example.candidates])
    return NameProperties(np.array(num_names, dtype=int), np.array(ranks, dtype=int).reshape(len(examples), 2))


def name_statistics(examples: Sequence, properties: NameProperties) -> dict[str, float]:
    """Sec. 3.3: names per example (all examples) and the correct candidate's rank (where defined), by gender.

    Means and population standard deviations, as the paper's 5.55 (3.18) / 6.30 (3.44) names and
    1.86 (1.19) / 2.32 (1.54) positions for masculine / feminine examples.
    """
    genders = np.array([example.gender for example in examples])
    ranks = properties.correct_ranks([example.references for example in examples])
    ranks = np.array([np.nan if rank is None else rank for rank in ranks], dtype=float)
    result = {}
    for gender in ("male", "female"):
        names = properties.num_names[genders == gender]
        positions = ranks[(genders == gender) & np.isfinite(ranks)]
        result.update(
            {
                f"names_mean_{gender}": float(names.mean()),
                f"names_std_{gender}": float(names.std()),
                f"correct_rank_mean_{gender}": float(positions.mean()),
                f"correct_rank_std_{gender}": float(positions.std()),
            }
        )
    return result


def _check_properties(
    num_names: Sequence, correct_ranks: Sequence, has_positive: np.ndarray
) -> tuple[np.ndarray, list]:
    names = np.asarray(validation.check_integers("num_names", num_names, meaning="the number of names"), dtype=int)
    # Every rank must be an integer or None; only those of examples with a positive candidate are used.
    given = validation.check_integers(
        "correct_ranks", correct_ranks, low=1, allow_none=True, meaning="the position of the correct candidate"
    )
    ranks: list[int | None] = []
    for index, (rank, positive) in enumerate(zip(given, has_positive)):
        if not positive or rank is None:
            ranks.append(None)
            continue
        if rank > names[index]:
            raise ValueError(
                f"correct_ranks[{index}] is {rank!r}; it must be the position (1 = closest) of the correct candidate "
                f"among the example's {names[index]} names, or None if it matches no name"
            )
        ranks.append(int(rank))
    return names, ranks


def variant_weights(
    genders: Sequence[str], has_positive, num_names: Sequence[int], correct_ranks: Sequence, variant: str
) -> np.ndarray:
    """Per-example weights of a variant (``w``, ``wnum``, ``wdist``, ``wt``); 0 without a positive candidate.

    ``correct_ranks`` holds the position of the correct candidate (1 = closest name), None where it
    matches no annotated name; ranks of examples without a positive candidate are not used (but must still be
    ranks or None).
    """
    validation.check_choice("variant", variant, VARIANTS)
    validation.check_lengths(
        genders=genders, has_positive=has_positive, num_names=num_names, correct_ranks=correct_ranks
    )
    has_positive = np.asarray(has_positive, dtype=bool)
    names, ranks = _check_properties(num_names, correct_ranks, has_positive)
    spec = VARIANTS[variant]
    kept = has_positive.copy()
    if spec.trimmed:
        rank_array = np.array([0 if rank is None else rank for rank in ranks])
        kept &= (names <= TRIM_MAX_NAMES) & (rank_array < TRIM_FIRST_DROPPED_RANK)
    index = np.flatnonzero(kept)
    genders = np.asarray(genders)
    validation.check_nonempty(
        {gender: int(np.count_nonzero(genders[index] == gender)) for gender in ("female", "male")},
        f"weighting ({variant}, examples with a positive candidate{' after trimming' if spec.trimmed else ''})",
    )
    columns = {"num_names": names.tolist(), "correct_rank": ranks}
    properties = {name: [columns[name][i] for i in index] for name in spec.properties}
    solved = weighting.balance_weights(genders[index].tolist(), properties)
    weights = np.zeros(len(genders))
    weights[index] = solved.weights
    return weights
