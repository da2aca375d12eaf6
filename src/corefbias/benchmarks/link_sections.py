"""Scoring pieces several benchmark declarations share: gold links, and the pro/anti scorer."""

from __future__ import annotations

from collections.abc import Sequence

from ..measures import pro_anti_diff
from .declaration import BlockDesign, Part, Scorer, rows_of


def gold_links(columns: dict) -> list[list[bool]]:
    """Per instance, whether each candidate is the pronoun's referent.

    Parameters
    ----------
    columns : dict
        A part's rows as columns, with ``candidates``.

    Returns
    -------
    list of list of bool

    Examples
    --------
    >>> gold_links({"candidates": [[{"is_referent": True}, {"is_referent": False}]]})
    [[True, False]]
    """
    return [[candidate["is_referent"] for candidate in candidates] for candidates in columns["candidates"]]


def pro_anti_inputs(
    rows, decisions, parts, *, gold_only: bool, condition: str, group: str, blocks: BlockDesign | None = None
) -> dict[str, list]:
    """Per-candidate examples of ``pro_anti_diff`` pooled over ``parts``.

    Parameters
    ----------
    rows : mapping of (config, split) to dict
        Each part's rows as columns, with ``candidates``, ``pair_id`` and the ``condition`` and ``group`` columns.
    decisions : mapping of (config, split) to list
        Per part and instance, one boolean per candidate: is the pronoun linked to it?
    parts : sequence of (config, split)
        The parts pooled.
    gold_only : bool
        Score only the gold antecedent (accuracy = share of pronouns resolved to it); otherwise every candidate (a
        link to the wrong one is a false positive, as WinoBias's F1 counts).
    condition : str
        The column holding ``pro`` or ``anti``.
    group : str
        The column of the breakdown.
    blocks : BlockDesign, optional
        The benchmark's blocks: adds ``block_ids``.

    Returns
    -------
    dict of str to list
        ``predictions``, ``references``, ``conditions``, ``pair_ids``, ``groups`` (and ``block_ids``): one entry per
        scored candidate.

    Examples
    --------
    >>> rows = {("default", "test"): {"candidates": [[{"is_referent": True}, {"is_referent": False}]],
    ...                               "condition": ["pro"], "pair_id": ["p1"], "polarity": ["+"]}}
    >>> inputs = pro_anti_inputs(rows, {("default", "test"): [[False, True]]}, [("default", "test")],
    ...                          gold_only=False, condition="condition", group="polarity")
    >>> inputs["predictions"], inputs["references"]
    ([False, True], [True, False])
    """
    inputs = {"predictions": [], "references": [], "conditions": [], "pair_ids": [], "groups": []}
    if blocks is not None:
        inputs["block_ids"] = []
    block_ids_of = None if blocks is None else blocks.ids_by_part(rows, parts)
    for part in parts:
        block_ids = None if block_ids_of is None else block_ids_of[part]
        for index, (row, decision) in enumerate(zip(rows_of(rows[part]), decisions[part])):
            for candidate, linked in zip(row["candidates"], decision):
                if gold_only and not candidate["is_referent"]:
                    continue
                inputs["predictions"].append(linked)
                inputs["references"].append(candidate["is_referent"])
                inputs["conditions"].append(row[condition])
                inputs["pair_ids"].append(row["pair_id"])
                inputs["groups"].append(row[group])
                if block_ids is not None:
                    inputs["block_ids"].append(block_ids[index])
    return inputs


def pro_anti_link_scorer(
    sections: dict[str, Sequence[Part]],
    *,
    score: str,
    gold_only: bool,
    condition: str,
    group: str,
    blocks: BlockDesign | None = None,
) -> Scorer:
    """A ``Benchmark.score`` of ``pro_anti_diff``, one section per entry of ``sections`` (its parts pooled) whose
    parts are all scored (``score --config`` may select some: ``Benchmark.pooled_parts``).

    Parameters
    ----------
    sections : dict of str to sequence of (config, split)
        Section name → the parts it pools.
    score : str
        ``accuracy`` or ``f1``.
    gold_only : bool
        Score only the gold antecedent (see :func:`pro_anti_inputs`).
    condition : str
        The column holding ``pro`` or ``anti``.
    group : str
        The column of the breakdown.
    blocks : BlockDesign, optional
        The benchmark's blocks, whose ids go to the measure.

    Returns
    -------
    Scorer
        ``scorer(rows, decisions, n_bootstrap, seed)`` → section name → ``pro_anti_diff``'s result.

    Examples
    --------
    >>> scorer = pro_anti_link_scorer({"toy": [("default", "test")]}, score="accuracy", gold_only=True,
    ...                               condition="condition", group="polarity")
    >>> rows = {("default", "test"): {"candidates": [[{"is_referent": True}, {"is_referent": False}]] * 2,
    ...                               "condition": ["pro", "anti"], "pair_id": ["p1", "p1"], "polarity": ["+", "+"]}}
    >>> scorer(rows, {("default", "test"): [[True, False], [False, True]]}, 0, 0)["toy"]["diff"]
    1.0
    """

    def scorer(rows, decisions, n_bootstrap, seed):
        return {
            section: pro_anti_diff.pro_anti_diff(
                **pro_anti_inputs(
                    rows, decisions, parts, gold_only=gold_only, condition=condition, group=group, blocks=blocks
                ),
                score=score,
                n_bootstrap=n_bootstrap,
                seed=seed,
            )
            for section, parts in sections.items()
            if all(part in rows for part in parts)
        }

    return scorer
