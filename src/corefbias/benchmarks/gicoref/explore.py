"""GICoref's Explore view: a pronoun question shown in its passage, neopronouns first, the wrong answers first."""

from __future__ import annotations

from ..explore import ExploreView, Pairs, member
from .mentions import PRONOUN_TYPES

# Neopronouns first: the pronouns GICoref was collected for.
_SHOWN_FIRST = ("neopronoun", "they", "binary_pronoun")


def in_passage(row: dict) -> dict:
    """The row with its passage (``excerpt``) as the text and its spans moved into it, so a page shows the
    pronoun's sentences and not the whole document.

    Examples
    --------
    >>> row = {"text": "A b. Ze met Bo.", "excerpt": "Ze met Bo.", "excerpt_start": 5,
    ...        "pronoun": {"start": 5, "end": 7}, "candidates": [{"start": 12, "end": 14}]}
    >>> moved = in_passage(row)
    >>> moved["text"][moved["pronoun"]["start"] : moved["pronoun"]["end"]], moved["candidates"][0]["start"]
    ('Ze', 7)
    """
    shift = row["excerpt_start"]
    return {
        **row,
        "text": row["excerpt"],
        "pronoun": {**row["pronoun"], "start": row["pronoun"]["start"] - shift, "end": row["pronoun"]["end"] - shift},
        "candidates": [
            {**candidate, "start": candidate["start"] - shift, "end": candidate["end"] - shift}
            for candidate in row["candidates"]
        ],
    }


def pronoun_cases(pairs: Pairs, condition: str | None = None) -> list[dict]:
    """Every question, neopronouns first, then *they*, then *he*/*she*; within each, wrong answers first."""
    found = []
    for row, instance in pairs:
        correct = instance["decision"] == instance["gold"]
        kind = row["pronoun_type"]
        title = (
            f"{row['document']}: {row['pronoun']['text']!r} ({kind.replace('_', ' ')}), "
            f"{'resolved' if correct else 'missed'}, {len(row['candidates'])} people named nearby"
        )
        rank = (_SHOWN_FIRST.index(kind) if kind in PRONOUN_TYPES else len(_SHOWN_FIRST), correct)
        found.append((rank, {"title": title, "members": [member(f"{kind} ({row['id']})", in_passage(row), instance)]}))
    return [case for _, case in sorted(found, key=lambda item: item[0])]


PRONOUNS_IN_PASSAGES = ExploreView(
    pronoun_cases,
    "Each pronoun in its sentence and the three before, neopronouns first, then they, then he/she; missed ones "
    "first within each.",
)
