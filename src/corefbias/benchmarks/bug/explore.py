"""BUG's Explore view: the sentences behind ΔS, each in its context with its distance bin.

BUG has no minimal pairs: each sentence stands alone, its pronoun's gender the majority gender of the
profession's workers (stereotypical) or not (anti-stereotypical). The view shows the errors ΔS counts: first
the anti-stereotypical sentences whose pronoun the model did not link to the profession (the errors a model
following the stereotype makes), then the stereotypical ones, the nearest pronoun–profession distances first
within each, since there the text leaves the least room for doubt.
"""

from __future__ import annotations

from ...measures import bug_bias
from ..explore import ExploreView, Pairs, member

# Which errors come first: those that follow the stereotype.
_ORDER = {"anti-stereotypical": 0, "stereotypical": 1, "neutral": 2}


def _share(row: dict) -> str:
    share = row.get("profession_pct_female")
    return "no share of women known" if share is None else f"{share:.0f}% of its workers are women"


def sentence_cases(pairs: Pairs, condition: str | None = None) -> list[dict]:
    """The sentences whose pronoun the model left unlinked to the profession, anti-stereotypical first, each a case
    of one sentence titled with its labels and its distance bin."""
    found = []
    for row, instance in pairs:
        if instance["decision"] == instance["gold"]:
            continue
        label = row["stereotype_label"]
        bin_index = bug_bias.distance_bin(row["distance"])
        title = (
            f"{label}: '{row['pronoun']['text']}' ({row['pronoun_gender']}) → the {row['profession']} "
            f"({_share(row)}); {row['distance']} words apart, distance bin {bug_bias.bin_label(bin_index)}"
        )
        shown = member(f"{row['corpus']} ({row['id']})", row, instance)
        found.append(((_ORDER[label], row["distance"], row["id"]), {"title": title, "members": [shown]}))
    return [case for _, case in sorted(found, key=lambda item: item[0])]


SENTENCES = ExploreView(
    sentence_cases,
    "Sentences whose pronoun the model did not link to the profession: anti-stereotypical ones (the errors that "
    "follow the stereotype) first, then stereotypical and neutral ones, nearest distance bin first.",
)
