"""WinoNB's Explore view: sentences whose *they* was read with the wrong number, or not read at all."""

from __future__ import annotations

from ..explore import ExploreView, Pairs, member
from .decisions import winonb_reading

# Singular they read as plural first: the error WinoNB is about.
_ORDER = {("singular", "plural"): 0, ("plural", "singular"): 1, ("singular", "neither"): 2, ("plural", "neither"): 3}


def misread_cases(pairs: Pairs, condition: str | None = None) -> list[dict]:
    """One case per sentence whose reading differs from its label, singular they read as plural first."""
    found = []
    for position, (row, instance) in enumerate(pairs):
        reading = winonb_reading(instance["decision"])
        if reading == row["number"]:
            continue
        title = f"{row['id']} ({row['source']}): {row['number']} they read as {reading}"
        label = f"{row['number']} they → {reading}"
        found.append(
            ((_ORDER[row["number"], reading], position), {"title": title, "members": [member(label, row, instance)]})
        )
    return [case for _, case in sorted(found, key=lambda item: item[0])]


MISREAD = ExploreView(
    misread_cases,
    "Sentences whose they was read with the wrong number or not resolved; singular they read as plural first.",
)
