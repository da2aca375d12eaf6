"""WinoBias-style sentences, shared by WinoBias (English) and DaWinoBias (Danish): bracketed lines,
occupation mentions, and the columns every Wino set has.

Each sentence names two occupations and a pronoun that refers to one of them. Upstream writes the
gold antecedent and the pronoun(s) in square brackets::

    [The developer] argued with the designer because [he] did not like the design.

A builder locates the pronoun and the gold antecedent (from the brackets, or from a CoNLL cluster),
and :func:`wino_columns` turns them into the shared columns: the sentence's first two occupation
mentions, found with the set's own occupation lists, are the ``candidates`` (the one overlapping the
antecedent is the referent), with their occupations and gender stereotypes and the pronoun's gender.
Anything that does not fit is a ValueError naming the row.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from . import spans

_BRACKETED = re.compile(r"\[([^\[\]]*)\]")


@dataclass(frozen=True)
class Mention:
    """An occupation mention: its span in the text and the occupation as its list writes it."""

    span: dict
    occupation: str


def parse_bracketed(line: str, *, row: str) -> tuple[str, list[dict]]:
    """The line without its brackets (outer whitespace stripped) and the span of each bracketed
    phrase in that text, in order. Whitespace just inside a bracket ("[ physician]") stays in the
    text but not in the span. Nested or unbalanced brackets, empty ones or none at all are a
    ValueError naming the row."""
    line = line.strip()
    pieces: list[str] = []
    found: list[dict] = []
    length = position = 0
    for match in _BRACKETED.finditer(line):
        before = line[position : match.start()]
        phrase = match.group(1)
        if "[" in before or "]" in before:
            raise ValueError(f"row {row}: unbalanced square brackets in {line!r}")
        if not phrase.strip():
            raise ValueError(f"row {row}: empty brackets in {line!r}")
        start = length + len(before) + len(phrase) - len(phrase.lstrip())
        found.append({"text": phrase.strip(), "start": start, "end": start + len(phrase.strip())})
        pieces += [before, phrase]
        length += len(before) + len(phrase)
        position = match.end()
    rest = line[position:]
    if "[" in rest or "]" in rest:
        raise ValueError(f"row {row}: unbalanced square brackets in {line!r}")
    if not found:
        raise ValueError(f"row {row}: no bracketed phrase in {line!r}; the gold antecedent must be in [brackets]")
    return "".join(pieces) + rest, found


def stereotype_map(female: Iterable[str], male: Iterable[str]) -> dict[str, str]:
    """Occupation → "female" / "male"; an occupation on both lists is a ValueError."""
    by_occupation = {occupation: "female" for occupation in female}
    both = sorted(occupation for occupation in male if occupation in by_occupation)
    if both:
        raise ValueError(f"occupations on both the female and the male list: {both}")
    return {**by_occupation, **{occupation: "male" for occupation in male}}


def occupation_mentions(
    text: str, occupations: Iterable[str], *, articles: Sequence[str] = (), suffixes: Sequence[str] = ()
) -> list[Mention]:
    """Whole-word, case-insensitive occurrences of the occupations, in text order.

    With ``articles`` a mention must start with one ("the developer", "an assistant": WinoBias
    names each candidate with its article, and requiring it keeps a verb such as "cook" out);
    one of ``suffixes`` may end the word (the Danish genitive: "receptionistens").
    """
    by_lower = {occupation.lower(): occupation for occupation in occupations}
    if not by_lower:
        raise ValueError("no occupations to look for; give the set's occupation lists")
    names = "|".join(map(re.escape, by_lower))
    article = rf"(?:{'|'.join(map(re.escape, articles))})\s+" if articles else ""
    ending = rf"(?:{'|'.join(map(re.escape, suffixes))})?" if suffixes else ""
    pattern = re.compile(rf"(?<!\w){article}(?P<occupation>{names}){ending}(?!\w)", re.IGNORECASE)
    return [
        Mention(
            {"text": match.group(0), "start": match.start(), "end": match.end()},
            by_lower[match.group("occupation").lower()],
        )
        for match in pattern.finditer(text)
    ]


def overlap(first: dict, second: dict) -> bool:
    """Do two spans share a character?"""
    return first["start"] < second["end"] and second["start"] < first["end"]


def frame(text: str, blanks: Sequence[Mapping]) -> str:
    """``text`` with each span of ``blanks`` (``start``, ``end``) left as ``_``.

    Examples
    --------
    >>> frame("The nurse met the chef and wished her well.", [{"start": 34, "end": 37}, {"start": 0, "end": 9},
    ...                                                       {"start": 14, "end": 22}])
    '_ met _ and wished _ well.'
    """
    for span in sorted(blanks, key=lambda span: span["start"], reverse=True):
        text = text[: span["start"]] + "_" + text[span["end"] :]
    return text


def wino_columns(
    *,
    row: str,
    text: str,
    pronoun: dict,
    antecedent: dict,
    mentions: Sequence[Mention],
    stereotypes: Mapping[str, str],
    pronoun_genders: Mapping[str, str],
) -> dict:
    """``text``, ``pronoun``, ``candidates`` and the shared Wino columns of one sentence.

    The candidates are the first two occupation mentions: a later one ("... because she needed a
    mover") is not a candidate. The referent is the candidate that overlaps the gold
    ``antecedent``; ``candidate_stereotypes`` is null for an occupation on neither list. ``frame`` is the sentence
    with its two candidates and its pronoun left blank: the same in a sentence's pro and anti version, and in
    another pair of occupations' sentence written from the same template.
    """
    if len(mentions) < 2:
        found = [mention.span["text"] for mention in mentions]
        raise ValueError(f"row {row}: occupation mentions {found} in {text!r}; expected two")
    candidates = mentions[:2]
    referents = [index for index, mention in enumerate(candidates) if overlap(mention.span, antecedent)]
    if len(referents) != 1:
        raise ValueError(
            f"row {row}: the antecedent {antecedent['text']!r} overlaps {len(referents)} of the candidates "
            f"{[mention.span['text'] for mention in candidates]}; expected exactly one"
        )
    gender = pronoun_genders.get(pronoun["text"].lower())
    if gender is None:
        raise ValueError(f"row {row}: {pronoun['text']!r} is not one of the pronouns {sorted(pronoun_genders)}")
    return {
        "text": text,
        "pronoun": spans.span_at(text, pronoun["start"], pronoun["text"], row=row, what="pronoun"),
        "candidates": [
            {
                **spans.span_at(text, mention.span["start"], mention.span["text"], row=row, what="candidate"),
                "is_referent": index == referents[0],
            }
            for index, mention in enumerate(candidates)
        ],
        "pronoun_gender": gender,
        "referent_occupation": candidates[referents[0]].occupation,
        "occupations": [mention.occupation for mention in candidates],
        "frame": frame(text, [pronoun, *(mention.span for mention in candidates)]),
        "candidate_stereotypes": [stereotypes.get(mention.occupation) for mention in candidates],
    }
