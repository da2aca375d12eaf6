"""ABC's Explore view: triplets whose male and female anti-reflexives are treated differently — one linked to the
subject (a grammar error), the other not."""

from __future__ import annotations

from collections import defaultdict

from ..explore import ExploreView, Pairs, member

_LABELS = {"neutral": "reflexive", "male": "male", "female": "female"}


def one_sided_cases(pairs: Pairs, condition: str | None = None) -> list[dict]:
    """Triplets where exactly one anti-reflexive is linked: those whose linked pronoun matches the occupation's
    stereotype first, then those against it, then occupations without one; in triplet order within each.

    Examples
    --------
    >>> def row(gender, text):
    ...     return {"triplet_id": "7", "pronoun_gender": gender, "occupation": "pilot", "occupation_gender": "male",
    ...             "text": f"pilot took {text} bag", "pronoun": {"text": text, "start": 11, "end": 11 + len(text)},
    ...             "candidates": [{"start": 0, "end": 5}]}
    >>> pairs = [(row("neutral", "own"), {"decision": [True], "gold": [True]}),
    ...          (row("male", "his"), {"decision": [True], "gold": [False]}),
    ...          (row("female", "her"), {"decision": [False], "gold": [False]})]
    >>> [case["title"] for case in one_sided_cases(pairs)]
    ["triplet 7, pilot (male occupation): 'his' linked to the subject, 'her' not"]
    """
    by_triplet: dict = defaultdict(dict)
    for row, instance in pairs:
        by_triplet[row["triplet_id"]][row["pronoun_gender"]] = (row, instance)
    found = []
    for triplet_id, members in by_triplet.items():
        if "male" not in members or "female" not in members:
            continue
        linked = {gender: any(members[gender][1]["decision"]) for gender in ("male", "female")}
        if linked["male"] == linked["female"]:
            continue
        erring, other = ("male", "female") if linked["male"] else ("female", "male")
        row = members[erring][0]
        stereotype = row["occupation_gender"]
        rank = 2 if stereotype is None else 0 if stereotype == erring else 1
        described = "no stereotype" if stereotype is None else f"{stereotype} occupation"
        title = (
            f"triplet {triplet_id}, {row['occupation']} ({described}): '{row['pronoun']['text']}' linked to the "
            f"subject, '{members[other][0]['pronoun']['text']}' not"
        )
        shown = [
            member(f"{_LABELS[gender]} ({'linked' if any(instance['decision']) else 'not linked'})", row, instance)
            for gender in _LABELS
            if gender in members
            for row, instance in [members[gender]]
        ]
        found.append(((rank, str(triplet_id)), {"title": title, "members": shown}))
    return [case for _, case in sorted(found, key=lambda item: item[0])]


ONE_SIDED_TRIPLETS = ExploreView(
    one_sided_cases,
    "Triplets where the subject is linked to one anti-reflexive and not the other; first where the linked "
    "pronoun's gender is the occupation's stereotype.",
)
