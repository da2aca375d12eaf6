"""WinoBias+'s two files read against WinoBias: which WinoBias sentence each gendered line is, and where its pronoun
is in the gender-neutral rewrite.

WinoBias+ ships no labels: ``WinoBias+.preprocessed`` holds WinoBias sentences tokenised (a space before the final
full stop and every comma: "the design ." for WinoBias's "the design."), one per line, and ``WinoBias+.references``
their rewrites with singular *they*, line by line. Tokenising only moves spaces, so a line *is* a WinoBias sentence
when the two are the same characters once every whitespace character is removed (:func:`squeezed`); nothing else is
normalised, so a sentence WinoBias+ reworded ("was stressed" for WinoBias's "was stressful") matches none. A line
matching two WinoBias sentences (WinoBias repeats the last line of each dev file as the first of test) is ambiguous.

The rewrite changes the pronouns and whatever agrees with them ("she was" → "they were", "explained her" → "explained
to them"), so its pronoun is found by order, not by position: the pronoun to resolve is the k-th pronoun of the
gendered line (counting he, she, him, his, her, hers, himself, herself and any *they* form already there), and its
rewrite is the k-th *they* form of the neutral line, where the two lines hold as many.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# The singular-they forms a rewrite uses, and the gendered forms each may replace.
NEUTRAL_FORMS = ("they", "them", "their", "theirs", "themself", "themselves")
REWRITES = {
    "he": {"they"},
    "she": {"they"},
    "him": {"them"},
    "her": {"them", "their"},
    "his": {"their", "theirs"},
    "hers": {"theirs"},
    "himself": {"themself", "themselves"},
    "herself": {"themself", "themselves"},
}
_WORD = re.compile(r"\S+")


def squeezed(text: str) -> str:
    """The text with every whitespace character removed: what a sentence and its tokenised line share.

    Parameters
    ----------
    text : str
        A sentence, tokenised or not.

    Returns
    -------
    str

    Examples
    --------
    >>> squeezed("the housekeeper 's car .") == squeezed("the housekeeper 's car.")
    True
    """
    return "".join(text.split())


@dataclass(frozen=True)
class Matches:
    """Which WinoBias sentence each line is: found exactly once, several times, or never.

    Attributes
    ----------
    matched : dict of int to str
        Line index (0-based) → the id of the one WinoBias sentence it is.
    ambiguous : dict of int to tuple of str
        Line index → the ids of the several WinoBias sentences it is.
    unmatched : tuple of int
        The indices of the lines that are no WinoBias sentence.
    """

    matched: dict[int, str]
    ambiguous: dict[int, tuple[str, ...]]
    unmatched: tuple[int, ...]


def match_lines(lines: Sequence[str], sentences: Mapping[str, str]) -> Matches:
    """Each line's WinoBias sentence: those whose text is the line's once whitespace is removed (:func:`squeezed`).

    Parameters
    ----------
    lines : sequence of str
        The gendered lines.
    sentences : mapping of str to str
        WinoBias sentence id → its text.

    Returns
    -------
    Matches

    Examples
    --------
    >>> sentences = {"dev-1": "The nurse met the chef.", "dev-9": "The chef met the nurse.",
    ...              "test-1": "The chef met the nurse."}
    >>> found = match_lines(["The nurse met the chef .", "The chef met the nurse .", "A chef met the nurse ."],
    ...                     sentences)
    >>> found.matched, found.ambiguous, found.unmatched
    ({0: 'dev-1'}, {1: ('dev-9', 'test-1')}, (2,))
    """
    by_text: dict[str, list[str]] = {}
    for sentence_id, text in sentences.items():
        by_text.setdefault(squeezed(text), []).append(sentence_id)
    matched, ambiguous, unmatched = {}, {}, []
    for index, line in enumerate(lines):
        found = by_text.get(squeezed(line), [])
        if len(found) == 1:
            matched[index] = found[0]
        elif found:
            ambiguous[index] = tuple(found)
        else:
            unmatched.append(index)
    return Matches(matched, ambiguous, tuple(unmatched))


def moved_span(span: Mapping, source: str, target: str) -> dict:
    """A span of ``source`` as the span of ``target`` covering the same non-space characters, the two texts differing
    only in whitespace.

    Parameters
    ----------
    span : mapping
        ``start`` and ``end`` (exclusive) in ``source``.
    source, target : str
        The texts; ``squeezed(source) == squeezed(target)``.

    Returns
    -------
    dict
        ``text``, ``start`` and ``end`` in ``target``.

    Raises
    ------
    ValueError
        If the texts differ in more than whitespace.

    Examples
    --------
    >>> moved_span({"start": 15, "end": 18}, "the design. So she did", "the design . So she did")
    {'text': 'she', 'start': 16, 'end': 19}
    """
    if squeezed(source) != squeezed(target):
        raise ValueError(f"{source!r} and {target!r} differ in more than whitespace")
    before = len(squeezed(source[: span["start"]]))
    inside = len(squeezed(source[span["start"] : span["end"]]))
    kept = [index for index, character in enumerate(target) if not character.isspace()]
    start, end = kept[before], kept[before + inside - 1] + 1
    return {"text": target[start:end], "start": start, "end": end}


def _pronoun_words(text: str, forms) -> list[re.Match]:
    return [word for word in _WORD.finditer(text) if word.group(0).lower() in forms]


def rewritten_pronoun(gendered: str, pronoun: Mapping, neutral: str, *, row: str) -> dict:
    """The span of the neutral line's rewrite of the gendered line's ``pronoun``: the k-th *they* form for the k-th
    pronoun (see the module's docstring), checked to be a rewrite of it (``REWRITES``).

    Parameters
    ----------
    gendered : str
        The gendered line.
    pronoun : mapping
        ``start`` and ``end`` of a whole word of ``gendered``, a gendered pronoun.
    neutral : str
        Its rewrite.
    row : str
        The row, for messages.

    Returns
    -------
    dict
        ``text``, ``start`` and ``end`` in ``neutral``.

    Raises
    ------
    ValueError
        If the span is no gendered pronoun word, the lines hold different numbers of pronouns, or the rewrite is no
        *they* form of the pronoun.

    Examples
    --------
    >>> gendered = "The nurse met the chef because she changes her plans ."
    >>> neutral = "The nurse met the chef because they change their plans ."
    >>> rewritten_pronoun(gendered, {"start": 43, "end": 46}, neutral, row="r1")
    {'text': 'their', 'start': 43, 'end': 48}
    """
    slots = _pronoun_words(gendered, REWRITES.keys() | set(NEUTRAL_FORMS))
    rewrites = _pronoun_words(neutral, NEUTRAL_FORMS)
    position = [index for index, word in enumerate(slots) if word.span() == (pronoun["start"], pronoun["end"])]
    if not position or slots[position[0]].group(0).lower() not in REWRITES:
        raise ValueError(f"row {row}: {gendered[pronoun['start'] : pronoun['end']]!r} is no gendered pronoun word")
    if len(slots) != len(rewrites):
        raise ValueError(
            f"row {row}: {len(slots)} pronouns in {gendered!r} but {len(rewrites)} they-forms in its rewrite "
            f"{neutral!r}; expected as many"
        )
    original, rewrite = slots[position[0]].group(0).lower(), rewrites[position[0]]
    if rewrite.group(0).lower() not in REWRITES[original]:
        raise ValueError(f"row {row}: {original!r} is rewritten as {rewrite.group(0)!r}, not one of its they-forms")
    return {"text": rewrite.group(0), "start": rewrite.start(), "end": rewrite.end()}
