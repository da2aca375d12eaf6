"""MAP's Explore view: a snippet across its ablations, those right on the original and wrong on most ablations
first (the answers the gender cues carried)."""

from __future__ import annotations

from collections import defaultdict

from ..explore import ExploreView, Pairs, member
from .files import ABLATIONS, ORIGINAL, answer_of

ORDER = (ORIGINAL, *ABLATIONS)


def snippet_cases(pairs: Pairs, condition: str | None = None) -> list[dict]:
    """Each snippet with its rows in ablation order; right on the original and wrong on the most ablations first."""
    by_snippet: dict = defaultdict(dict)
    for row, instance in pairs:
        by_snippet[row["snippet_id"]][row["ablation"]] = (row, instance)
    found = []
    for snippet, rows in by_snippet.items():
        answered = {
            ablation: answer_of(instance["decision"]) == row["answer"] for ablation, (row, instance) in rows.items()
        }
        wrong = sum(not right for ablation, right in answered.items() if ablation != ORIGINAL)
        original = answered.get(ORIGINAL)
        verdict = "right" if original else "wrong" if original is not None else "not run"
        title = f"snippet {snippet}: {verdict} on the original, wrong on {wrong} of {len(answered) - 1} ablations"
        members = []
        for ablation in (ablation for ablation in ORDER if ablation in rows):
            row = rows[ablation][0]
            referent = {"A": 0, "B": 1}.get(row["answer"])
            answer = row["answer"] if referent is None else row["candidates"][referent]["text"]
            shown = member(f"{ablation} (answer: {answer})", *rows[ablation])
            members.append({**shown, "correct": answered[ablation]})  # MAP's scale: 'either' is no link's answer
        found.append(((not original, -wrong, snippet), {"title": title, "members": members}))
    return [case for _, case in sorted(found, key=lambda item: item[0])]


SNIPPETS_ACROSS_ABLATIONS = ExploreView(
    snippet_cases,
    "Each snippet in its original form and its nine ablations; those answered right originally and wrong on the "
    "most ablations first.",
)
