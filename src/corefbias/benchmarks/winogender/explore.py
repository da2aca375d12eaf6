"""Winogender's Explore view: minimal pairs whose female and male sentences are resolved differently."""

from __future__ import annotations

from collections import defaultdict

from ...measures import winogender_bias
from ..explore import ExploreView, Pairs, member
from .decisions import winogender_answer


def minimal_pair_cases(pairs: Pairs, condition: str | None = None) -> list[dict]:
    """The minimal pairs whose female and male answers differ, each with its sentences in gender order."""
    by_pair: dict = defaultdict(dict)
    for row, instance in pairs:
        by_pair[row["pair_id"]][row["gender"]] = (row, instance)
    cases = []
    for pair_id, members in by_pair.items():
        answers = {gender: winogender_answer(instance["decision"]) for gender, (_, instance) in members.items()}
        if not winogender_bias.resolved_differently(answers.get("female"), answers.get("male")):
            continue
        first = next(iter(members.values()))[0]
        title = (
            f"{first['occupation']} / {first['participant']} ({pair_id}; {first['bls_pct_female']:.0f}% of "
            f"{first['occupation']}s are women, BLS): female → {answers['female']}, male → {answers['male']}"
        )
        shown = [
            member(f"{gender} pronoun → {answers[gender]}", *members[gender])
            for gender in winogender_bias.GENDERS
            if gender in members
        ]
        cases.append({"title": title, "members": shown})
    return cases


MINIMAL_PAIRS = ExploreView(
    minimal_pair_cases, "Minimal pairs whose female and male sentences are resolved differently."
)
