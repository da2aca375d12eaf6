"""WinoBias as its paper scores it: CoNLL F1 of each config's sentences, each sentence a document.

The key of a sentence is every gold cluster of its CoNLL file (the exported rows' ``clusters``), the
response every cluster the model predicted (a cluster model's cached output), mentions compared as
character spans. Choice models (LLMs, baselines) predict no clusters, so for them the score is
undefined with that reason; their link scores remain.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..measures import pro_anti_conll_f1
from ..measures.result import MeasureResult
from .declaration import BlockDesign

Part = tuple[str, str]  # (config, split)

NO_CLUSTERS = (
    "the model chooses among candidates and predicts no clusters, and CoNLL F1 scores clusters; "
    "see the link scores instead"
)
LINKS_ONLY = "the predictions hold per-candidate links, not clusters, and CoNLL F1 scores clusters"


def _spans(clusters) -> list[list[tuple[int, int]]]:
    return [
        [(int(m["start"]), int(m["end"])) if isinstance(m, dict) else (int(m[0]), int(m[1])) for m in cluster]
        for cluster in clusters
    ]


def pro_anti_sections(
    rows: dict,
    outputs: dict,
    parts_by_section: dict[str, Sequence[Part]],
    *,
    condition: str,
    blocks: BlockDesign | None = None,
    n_bootstrap: int,
    seed: int,
) -> dict[str, MeasureResult]:
    """``<section>/conll``: ``pro_anti_conll_f1`` over the sentences of each section's parts (with its unit rows
    where it is defined), for the sections whose parts are all in ``rows`` (``Benchmark.pooled_parts``).

    Parameters
    ----------
    rows : dict
        Each part's rows as columns, with ``clusters`` (gold), ``pair_id`` and the ``condition`` column.
    outputs : dict
        Each part's model outputs in row order: a cluster model's clusters (else the score is undefined).
    parts_by_section : dict of str to sequence of (config, split)
        Section name → the parts it pools.
    condition : str
        The column holding ``pro`` or ``anti``.
    blocks : BlockDesign, optional
        The benchmark's blocks, whose ids go to the measure.
    n_bootstrap, seed : int
        The bootstrap's resamples and seed.

    Returns
    -------
    dict of str to MeasureResult
        ``<section>/conll`` → its result; undefined with the reason for outputs that are no clusters.

    Examples
    --------
    A choice model's outputs hold no clusters:

    >>> rows = {("p", "test"): {"clusters": [[]], "pair_id": ["s1"], "condition": ["pro"]}}
    >>> sections = pro_anti_sections(rows, {("p", "test"): [{"choice": 0}]}, {"toy": [("p", "test")]},
    ...                              condition="condition", n_bootstrap=0, seed=0)
    >>> sections["toy/conll"]["diff"], sections["toy/conll"].undefined["diff"] == NO_CLUSTERS
    (None, True)
    """
    sections = {}
    for section, parts in parts_by_section.items():
        if not all(part in rows for part in parts):
            continue
        keys, responses, conditions, pair_ids, block_ids = [], [], [], [], []
        block_ids_of = None if blocks is None else blocks.ids_by_part(rows, parts)
        for part in parts:
            columns = rows[part]
            keys += [_spans(clusters) for clusters in columns["clusters"]]
            responses += outputs[part]
            conditions += columns[condition]
            pair_ids += columns["pair_id"]
            block_ids += [] if block_ids_of is None else block_ids_of[part]
        name = f"{section}/conll"
        if any(isinstance(output, dict) and "decision" in output for output in responses):
            sections[name] = pro_anti_conll_f1.undefined_pro_anti(LINKS_ONLY)
            continue
        if any(not isinstance(output, list) for output in responses):
            sections[name] = pro_anti_conll_f1.undefined_pro_anti(NO_CLUSTERS)
            continue
        try:
            sections[name] = pro_anti_conll_f1.pro_anti_conll_f1(
                keys,
                [_spans(output) for output in responses],
                conditions,
                pair_ids,
                block_ids=block_ids if blocks is not None else None,
                n_bootstrap=n_bootstrap,
                seed=seed,
            )
        except ModuleNotFoundError as missing:
            sections[name] = pro_anti_conll_f1.undefined_pro_anti(str(missing))
    return sections


def pro_anti_conll_scorer(
    parts_by_section: dict[str, Sequence[Part]], *, condition: str, blocks: BlockDesign | None = None
):
    """A ``Benchmark.score_outputs`` for pro/anti sets whose rows carry gold ``clusters``.

    Parameters
    ----------
    parts_by_section : dict of str to sequence of (config, split)
        Section name → the parts it pools.
    condition : str
        The column holding ``pro`` or ``anti``.
    blocks : BlockDesign, optional
        The benchmark's blocks, whose ids go to the measure.

    Returns
    -------
    Scorer
        ``scorer(rows, outputs, n_bootstrap, seed)`` → :func:`pro_anti_sections`.

    Examples
    --------
    >>> scorer = pro_anti_conll_scorer({"toy": [("p", "test")]}, condition="condition")
    >>> rows = {("p", "test"): {"clusters": [[]], "pair_id": ["s1"], "condition": ["pro"]}}
    >>> list(scorer(rows, {("p", "test"): [{"choice": 0}]}, 0, 0))
    ['toy/conll']
    """

    def scorer(rows, outputs, n_bootstrap, seed):
        return pro_anti_sections(
            rows, outputs, parts_by_section, condition=condition, blocks=blocks, n_bootstrap=n_bootstrap, seed=seed
        )

    return scorer
