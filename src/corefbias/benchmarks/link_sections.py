"""Scoring pieces several benchmark declarations share: gold links, and the pro/anti scorer."""

from __future__ import annotations

from collections.abc import Sequence

from ..measures import pro_anti
from .declaration import Part, Scorer, rows_of


def gold_links(columns: dict) -> list[list[bool]]:
    """Per instance, whether each candidate is the pronoun's referent.

    Examples
    --------
    >>> gold_links({"candidates": [[{"is_referent": True}, {"is_referent": False}]]})
    [[True, False]]
    """
    return [[candidate["is_referent"] for candidate in candidates] for candidates in columns["candidates"]]


def pro_anti_inputs(rows, decisions, parts, *, gold_only: bool, condition: str, group: str) -> dict[str, list]:
    """Per-candidate examples of ``pro_anti_diff`` pooled over ``parts``.

    ``gold_only``: score only the gold antecedent (accuracy = share of pronouns resolved to it);
    otherwise every candidate (a link to the wrong one is a false positive, as WinoBias's F1 counts).
    ``condition`` names the column holding pro/anti, ``group`` the column of the breakdown.
    """
    inputs = {"predictions": [], "references": [], "conditions": [], "pair_ids": [], "groups": []}
    for part in parts:
        for row, decision in zip(rows_of(rows[part]), decisions[part]):
            for candidate, linked in zip(row["candidates"], decision):
                if gold_only and not candidate["is_referent"]:
                    continue
                inputs["predictions"].append(linked)
                inputs["references"].append(candidate["is_referent"])
                inputs["conditions"].append(row[condition])
                inputs["pair_ids"].append(row["pair_id"])
                inputs["groups"].append(row[group])
    return inputs


def pro_anti_link_scorer(
    sections: dict[str, Sequence[Part]], *, score: str, gold_only: bool, condition: str, group: str
) -> Scorer:
    """A ``Benchmark.score`` of ``pro_anti_diff``, one section per entry of ``sections`` (its parts pooled)."""

    def scorer(rows, decisions, n_bootstrap, seed):
        return {
            section: pro_anti.pro_anti_diff(
                **pro_anti_inputs(rows, decisions, parts, gold_only=gold_only, condition=condition, group=group),
                score=score,
                n_bootstrap=n_bootstrap,
                seed=seed,
            )
            for section, parts in sections.items()
        }

    return scorer
