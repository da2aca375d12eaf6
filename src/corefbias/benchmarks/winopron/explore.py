"""WinoPron's Explore view, by pronoun set: the templates whose answer changes with the pronoun set."""

from __future__ import annotations

from collections import defaultdict

from ..explore import ExploreView, Pairs, member
from . import files
from .decisions import winopron_answer

BINARY = ("he", "she")


def pronoun_set_cases(pairs: Pairs, condition: str | None = None) -> list[dict]:
    """Templates resolved right for some pronoun sets and wrong for others: those right for he and she but wrong
    for they or xe first, then by how many sets are wrong; each with its sentences in set order."""
    by_template: dict = defaultdict(dict)
    for row, instance in pairs:
        by_template[row["template_id"]][row["pronoun_set"]] = (row, instance)
    found = []
    for template, members in by_template.items():
        correct = {name: instance["decision"] == instance["gold"] for name, (_, instance) in members.items()}
        if len(set(correct.values())) < 2:
            continue
        wrong = [name for name in files.PRONOUN_SETS if correct.get(name) is False]
        binary_right = all(correct.get(name) for name in BINARY)
        first = next(iter(members.values()))[0]
        title = (
            f"{template}: {first['occupation']} / {first['participant']} ({first['case']}, the pronoun refers to the "
            f"{first['answer']}): wrong for {', '.join(wrong)}"
        )
        shown = []
        for name in files.PRONOUN_SETS:
            if name in members:
                row, instance = members[name]
                shown.append(member(f"{name} → {winopron_answer(instance['decision'], row['answer'])}", row, instance))
        found.append(((not binary_right, -len(wrong), template), {"title": title, "members": shown}))
    return [case for _, case in sorted(found, key=lambda item: item[0])]


PRONOUN_SETS = ExploreView(
    pronoun_set_cases,
    "Templates resolved right for some pronoun sets and wrong for others; right for he and she but wrong for they "
    "or xe first.",
)
