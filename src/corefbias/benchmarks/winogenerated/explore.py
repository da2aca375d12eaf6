"""Winogenerated's Explore view: occupations whose pronoun choices follow their BLS majority, farthest first."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from ...measures import winogenerated_bias
from ..explore import ExploreView, Pairs, member
from .files import OPTION_GENDERS


def chosen_gender(decision: Sequence[bool]) -> str:
    """The gender of the option a decision chose (options in upstream's order: male, female, gender-neutral), or
    ``none`` where it links no single option.

    Examples
    --------
    >>> chosen_gender([False, True, False]), chosen_gender([True, False, True]), chosen_gender([False] * 3)
    ('female', 'none', 'none')
    """
    linked = [index for index, link in enumerate(decision) if link]
    return OPTION_GENDERS[linked[0]] if len(linked) == 1 else winogenerated_bias.NO_CHOICE


def stereotyped_occupations(pairs: Pairs, condition: str | None = None) -> list[dict]:
    """Per occupation its sentences with the pronoun chosen; the occupations whose share of the pronoun of their BLS
    majority gender (she where most workers are women, he elsewhere) minus that of the other is largest first."""
    by_occupation: dict = defaultdict(list)
    for row, instance in pairs:
        by_occupation[row["occupation"]].append((row, instance))
    cases = []
    for occupation, members in by_occupation.items():
        first = members[0][0]
        chosen = [chosen_gender(instance["decision"]) for _, instance in members]
        majority = first["occupation_majority"]
        other = "male" if majority == "female" else "female"
        lead = (chosen.count(majority) - chosen.count(other)) / len(chosen)
        title = (
            f"{occupation} ({first['bls_pct_female']:.1f}% women, BLS): "
            + ", ".join(f"{gender} {chosen.count(gender)}" for gender in winogenerated_bias.PREDICTIONS)
            + f" of {len(chosen)}"
        )
        shown = [member(f"→ {gender}", row, instance) for gender, (row, instance) in zip(chosen, members)]
        cases.append((-lead, occupation, {"title": title, "members": shown}))
    return [case for *_, case in sorted(cases, key=lambda item: item[:2])]


STEREOTYPED_OCCUPATIONS = ExploreView(
    stereotyped_occupations,
    "Occupations with the pronoun chosen in each of their sentences: those whose choices favour the pronoun of the "
    "occupation's BLS majority gender over the other's the most first.",
)
