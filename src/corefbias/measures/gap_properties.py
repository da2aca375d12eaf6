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

from . import structured_inputs, validation, weighting

TRIM_MAX_NAMES = 15
TRIM_FIRST_DROPPED_RANK = 5


@dataclass(frozen=True)
class Variant:
    """A weighting variant of Kocijan et al. (Sec. 3.4–3.5): the properties it balances, and whether it trims first.

    Attributes
    ----------
    properties : tuple of str
        ``num_names`` and/or ``correct_rank``.
    trimmed : bool
        Whether examples with more than ``TRIM_MAX_NAMES`` names or a referent ranked ``TRIM_FIRST_DROPPED_RANK`` or
        further weigh 0 first.
    description : str
        The variant in words.

    Examples
    --------
    >>> VARIANTS["wt"].properties, VARIANTS["wt"].trimmed
    (('num_names', 'correct_rank'), True)
    """

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

    Parameters
    ----------
    split_hyphen_after_digit : bool, default False
        True keeps the current spaCy rule ("1-year" → "1", "-", "year").

    Returns
    -------
    spacy.tokenizer.Tokenizer
        Cached: one per rule.

    Raises
    ------
    ImportError
        Without spaCy (``pip install 'corefbias[gap]'``).

    Examples
    --------
    >>> [token.text for token in english_tokenizer()("a 1-year-old")]
    ['a', '1-year', '-', 'old']
    >>> [token.text for token in english_tokenizer(split_hyphen_after_digit=True)("a 1-year-old")]
    ['a', '1', '-', 'year', '-', 'old']
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
    """Tokens strictly between a name and the pronoun (0 when they touch or overlap).

    Parameters
    ----------
    text : str
        The example's text.
    name : tuple of int
        The name's ``(start, end)`` characters.
    pronoun : tuple of int
        The pronoun's ``(start, end)`` characters.
    tokenizer : callable
        Text → tokens (:func:`english_tokenizer`).

    Returns
    -------
    int

    Examples
    --------
    >>> token_distance("Ann met Bob and she left.", (0, 3), (16, 19), str.split)
    3
    """
    if name[1] <= pronoun[0]:
        between = text[name[1] : pronoun[0]]
    elif name[0] >= pronoun[1]:
        between = text[pronoun[1] : name[0]]
    else:
        return 0
    between = between.strip()
    return len(tokenizer(between)) if between else 0


def names_by_distance(example, names: Sequence[tuple[int, int]], tokenizer) -> list[tuple[int, int]]:
    """The example's name spans, closest to the pronoun first; ties in text order.

    Parameters
    ----------
    example : object
        With ``text`` and ``pronoun`` (``(start, end)``).
    names : sequence of tuple of int
        Its name spans.
    tokenizer : callable
        Text → tokens.

    Returns
    -------
    list of tuple of int

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> example = SimpleNamespace(text="Ann met Bob and she left.", pronoun=(16, 19))
    >>> names_by_distance(example, [(0, 3), (8, 11)], str.split)
    [(8, 11), (0, 3)]
    """
    return sorted(names, key=lambda name: (token_distance(example.text, name, example.pronoun, tokenizer), name))


def candidate_rank(candidate: tuple[int, int], ordered_names: Sequence[tuple[int, int]]) -> int | None:
    """1-based position of the closest name sharing a character with the candidate; None if none does.

    Parameters
    ----------
    candidate : tuple of int
        The candidate's ``(start, end)``.
    ordered_names : sequence of tuple of int
        The names, closest to the pronoun first.

    Returns
    -------
    int or None

    Examples
    --------
    >>> names = [(8, 11), (0, 3)]  # closest to the pronoun first
    >>> candidate_rank((8, 11), names), candidate_rank((0, 7), names), candidate_rank((4, 7), [(0, 3)])
    (1, 2, None)
    """
    for position, (start, end) in enumerate(ordered_names, start=1):
        if start < candidate[1] and candidate[0] < end:
            return position
    return None


@dataclass(frozen=True)
class NameProperties:
    """Per example: the number of annotated names and each candidate's rank (0: matches no name).

    Attributes
    ----------
    num_names : numpy.ndarray
        ``(n,)`` int.
    candidate_ranks : numpy.ndarray
        ``(n, 2)`` int: candidate A's and B's rank by distance to the pronoun (1: closest), 0 where it matches no name.

    Examples
    --------
    >>> properties = NameProperties(np.array([3, 2]), np.array([[1, 2], [0, 1]]))
    >>> properties.correct_ranks([[False, True], [True, False]])
    [2, None]
    """

    num_names: np.ndarray  # (n,) int
    candidate_ranks: np.ndarray  # (n, 2) int

    def correct_ranks(self, references) -> list[int | None]:
        """The rank of the positive candidate; None without a positive candidate or a matching name.

        Parameters
        ----------
        references : array_like
            ``(n, 2)`` gold labels.

        Returns
        -------
        list of int or None
        """
        gold = np.asarray(references, dtype=bool)
        ranks = np.where(gold[:, 0], self.candidate_ranks[:, 0], np.where(gold[:, 1], self.candidate_ranks[:, 1], 0))
        return [int(rank) if rank > 0 else None for rank in ranks]


def name_properties(examples: Sequence, name_spans: dict[str, list[tuple[int, int]]], tokenizer=None) -> NameProperties:
    """``N_k`` and the candidates' ranks (``D_k`` for the positive one) of every example.

    Parameters
    ----------
    examples : sequence
        GAP examples, each with ``id``, ``text``, ``pronoun`` and ``candidates`` (``(start, end)`` each).
    name_spans : dict of str to list of tuple of int
        Example id → its annotated name spans (``gap-test-name-spans.json``).
    tokenizer : callable, optional
        Text → tokens; default :func:`english_tokenizer` (spaCy 2's hyphen rule).

    Returns
    -------
    NameProperties

    Raises
    ------
    ValueError
        If an example has no name annotations.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> example = SimpleNamespace(id="t1", text="Ann met Bob and she left.", pronoun=(16, 19),
    ...                           candidates=((0, 3), (8, 11)))
    >>> properties = name_properties([example], {"t1": [(0, 3), (8, 11)]}, tokenizer=str.split)
    >>> properties.num_names.tolist(), properties.candidate_ranks.tolist()
    ([2], [[2, 1]])
    """
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

    Parameters
    ----------
    examples : sequence
        GAP examples, each with ``gender`` and ``references``.
    properties : NameProperties
        Their names and ranks.

    Returns
    -------
    dict of str to float
        ``names_mean_<gender>``, ``names_std_<gender>``, ``correct_rank_mean_<gender>``, ``correct_rank_std_<gender>``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> examples = [SimpleNamespace(gender=gender, references=[True, False]) for gender in ("male", "female", "female")]
    >>> properties = NameProperties(np.array([2, 3, 5]), np.array([[1, 2], [2, 1], [2, 1]]))
    >>> statistics = name_statistics(examples, properties)
    >>> statistics["names_mean_female"], statistics["correct_rank_mean_male"]
    (4.0, 1.0)
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

    Parameters
    ----------
    genders : sequence of str
        ``female`` or ``male`` per example.
    has_positive : sequence of bool
        Whether the example's referent is A or B.
    num_names : sequence of int
        Its number of names.
    correct_ranks : sequence of int or None
        Its positive candidate's rank.
    variant : str
        ``w``, ``wnum``, ``wdist`` or ``wt``.

    Returns
    -------
    numpy.ndarray
        One weight per example; the examples with a positive candidate (and kept by ``wt``'s trim) sum to their count.

    Raises
    ------
    ValueError
        For an unknown variant, bad counts or ranks, or a gender left with no weighted example.

    Examples
    --------
    Masculine referents at ranks 1, 1, 2 and feminine ones at 1, 2, 2, 2; ``wdist`` balances the ranks:

    >>> weights = variant_weights(["male"] * 3 + ["female"] * 4, [True] * 7, [3] * 7, [1, 1, 2, 1, 2, 2, 2], "wdist")
    >>> [round(weight, 4) for weight in weights.tolist()]
    [0.4375, 0.4375, 2.625, 0.875, 0.875, 0.875, 0.875]
    """
    structured_inputs.check_choice("variant", variant, VARIANTS)
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
    structured_inputs.check_nonempty(
        {gender: int(np.count_nonzero(genders[index] == gender)) for gender in ("female", "male")},
        f"weighting ({variant}, examples with a positive candidate{' after trimming' if spec.trimmed else ''})",
    )
    columns = {"num_names": names.tolist(), "correct_rank": ranks}
    properties = {name: [columns[name][i] for i in index] for name in spec.properties}
    solved = weighting.balance_weights(genders[index].tolist(), properties)
    weights = np.zeros(len(genders))
    weights[index] = solved.weights
    return weights
