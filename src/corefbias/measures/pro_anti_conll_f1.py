"""WinoBias's CoNLL F1 bias (Zhao et al., 2018): the CoNLL F1 (``conll_f1``) of the pro-stereotypical and of the
anti-stereotypical documents, their average and their difference pro − anti.

Each aligned pair of a pro and an anti document contributes one row of per-metric counts per condition
(``conll_f1.document_counts``); every score is a ratio of column sums, so pairs are resampled with the count-matrix
bootstrap of ``resampling``; with ``block_ids``, whole blocks of pairs (the pairs sharing a sentence frame or
occupations: ``corefbias.measures.blocks``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import structured_inputs, validation
from .blocks import unit_blocks
from .conll_f1 import COLUMNS, METRICS, _reasons, document_counts, statistic_of
from .resampling import UnitRows, bootstrap_test
from .result import Cell, MeasureResult, measure_result

CONDITIONS = ("pro", "anti")
# What pro_anti_conll_f1 reports per condition besides its CoNLL F1.
_METRIC_SCORES = tuple(f"{metric}_{score}" for metric in METRICS for score in ("recall", "precision", "f1"))


def _pro_anti_statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
    width = len(COLUMNS)
    by_condition = {
        condition: statistic_of(sums[..., index * width : (index + 1) * width])
        for index, condition in enumerate(CONDITIONS)
    }
    scores = {}
    for condition, values in by_condition.items():
        scores[condition] = values["conll_f1"]
        scores.update({f"{condition}/{name}": value for name, value in values.items() if name != "conll_f1"})
    scores["average"] = (scores["pro"] + scores["anti"]) / 2
    scores["diff"] = scores["pro"] - scores["anti"]
    return scores


def pro_anti_conll_f1(
    keys: Sequence,
    responses: Sequence,
    conditions: Sequence[str],
    pair_ids: Sequence,
    *,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """CoNLL F1 of the pro and of the anti documents, their average and difference, with a bootstrap over aligned
    pairs, and each metric's recall, precision and F1 per condition: WinoBias's score (Zhao et al., 2018).

    Parameters
    ----------
    keys : list of clusters
        per document, every gold cluster, each a list of mentions given as [start, end] spans (characters or
        tokens, the same units as the predicted clusters).
    responses : list of clusters
        per document, the predicted clusters, each a list of mentions given as [start, end] spans (characters
        or tokens, as long as the gold clusters use the same).
    conditions : list of str
        `pro` or `anti`.
    pair_ids : list of str
        joins each pro document with its aligned anti document (one each).
    block_ids : list of str or int, or list of tuple, optional
        the block of each document: the sentence frame or occupations inside which a model's answers are not
        independent (the pro and anti documents of a pair share it); the bootstrap draws whole blocks, its interval
        and p-value expanded for how few they are. A tuple per document gives one id per crossed factor, each drawn
        apart. Left out: every pair is a block of its own.
    n_bootstrap : int, default 1000
        bootstrap resamples of the pairs (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        ``pro``, ``anti``, ``average``, ``diff`` and the counts overall (primary: ``diff``), each metric's scores
        per condition in ``by_condition`` (flat key ``<condition>/<score>``), and the pair rows its bootstrap
        resampled (``unit_rows``). As a mapping, its flat keys:

        * ``pro``, ``anti`` (CoNLL F1 of the pro and of the anti documents), ``average``, ``diff`` (pro − anti);
        * ``<condition>/<metric>_recall``, ``_precision`` and ``_f1`` for ``muc``, ``bcubed`` and ``ceafe``;
        * ``num_pro``, ``num_anti``, ``num_pairs``;
        * ``diff_p_value`` (two-sided bootstrap against 0), ``diff_ci_low``, ``diff_ci_high`` (95% percentile
          interval), None with ``n_bootstrap=0``;
        * ``undefined``: every key whose value is None, mapped to the reason.

    Raises
    ------
    ValueError
        If the inputs differ in length; a document is not a list of clusters of ``[start, end]`` spans; a
        condition is not `pro` or `anti`, or either has no document; a pair id is missing or a pair does not hold
        exactly one pro and one anti document; a block id is no id, or a pair's documents lie in two blocks; or
        ``n_bootstrap`` or ``seed`` is not a non-negative integer (or ``n_bootstrap`` exceeds 10,000,000).

    Notes
    -----
    Per document, the official CoNLL-2012 scorer's (v8.01) definitions give each metric's recall and precision
    numerators and denominators (``document_counts``); each condition's score is the ratio of the summed
    numerators to the summed denominators, F1 = 2RP / (R + P), and CoNLL F1 = (MUC F1 + B³ F1 + CEAFφ4 F1) / 3.
    Repeated mentions count once. A response without links or mentions scores F1 = 0, as the reference scorer
    prints; a key without any leaves recall, and the F1, undefined (None, with the reason under ``undefined``).

    References
    ----------
    Zhao, J., Wang, T., Yatskar, M., Ordonez, V. and Chang, K.-W. (2018). Gender Bias in Coreference Resolution:
    Evaluation and Debiasing Methods. NAACL-HLT 2018.

    Pradhan, S., Luo, X., Recasens, M., Hovy, E., Ng, V. and Strube, M. (2014). Scoring Coreference Partitions of
    Predicted Mentions: A Reference Implementation. ACL 2014.

    Examples
    --------
    One pair: the pro document resolved as gold, the anti one with its pronoun linked to the other mention: MUC 0,
    B³ and CEAFφ4 2/3 on the anti side, so its CoNLL F1 is (0 + 2/3 + 2/3) / 3 = 4/9:

    >>> gold = [[[0, 3], [10, 12]], [[5, 8]]]
    >>> result = pro_anti_conll_f1(
    ...     [gold, gold], [gold, [[[0, 3]], [[5, 8], [10, 12]]]], ["pro", "anti"], ["s1", "s1"], n_bootstrap=0
    ... )
    >>> result["pro"], round(result["anti"], 4), round(result.value, 4)
    (1.0, 0.4444, 0.5556)
    >>> result.by_condition["anti"]["muc_f1"].value, round(result["anti/bcubed_f1"], 4)
    (0.0, 0.6667)
    """
    validation.check_lengths(
        keys=keys, responses=responses, conditions=conditions, pair_ids=pair_ids, optional={"block_ids": block_ids}
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    keys = structured_inputs.check_clusters("keys", keys)
    responses = structured_inputs.check_clusters("responses", responses)
    pair_ids = validation.check_ids("pair_ids", pair_ids)
    conditions = structured_inputs.check_labels("conditions", conditions, CONDITIONS)
    structured_inputs.check_nonempty(
        {condition: conditions.count(condition) for condition in CONDITIONS}, "pro_anti_conll_f1"
    )
    order = {pair: index for index, pair in enumerate(dict.fromkeys(pair_ids))}
    rows = np.zeros((len(order), len(CONDITIONS) * len(COLUMNS)))
    seen: dict[tuple, int] = {}
    for key, response, condition, pair in zip(keys, responses, conditions, pair_ids):
        seen[pair, condition] = seen.get((pair, condition), 0) + 1
        offset = CONDITIONS.index(condition) * len(COLUMNS)
        rows[order[pair], offset : offset + len(COLUMNS)] += document_counts(key, response)
    for pair in order:
        counts = (seen.get((pair, "pro"), 0), seen.get((pair, "anti"), 0))
        if counts != (1, 1):
            raise ValueError(
                f"pair {pair!r} has {counts[0]} pro and {counts[1]} anti documents; each pair_id must join one "
                "pro document and its aligned anti document"
            )
    blocks = unit_blocks(block_ids, [order[pair] for pair in pair_ids], list(order), unit="pair")
    scores = dict(_pro_anti_statistic(rows.sum(axis=0)))
    scores.update(num_pro=conditions.count("pro"), num_anti=conditions.count("anti"), num_pairs=len(order))
    reasons = {**_reasons("pro/", " of the pro documents"), **_reasons("anti/", " of the anti documents")}
    reasons.update(
        pro="the pro documents' CoNLL F1 is undefined (no gold links or mentions)",
        anti="the anti documents' CoNLL F1 is undefined (no gold links or mentions)",
        average="the pro or anti CoNLL F1 is undefined",
        diff="the pro or anti CoNLL F1 is undefined",
    )
    nulls = {"diff": 0.0}
    inferences = bootstrap_test(
        rows, _pro_anti_statistic, nulls, n_bootstrap=n_bootstrap, seed=seed, unit="pair", blocks=blocks
    )
    cells = {
        f"{condition}/{name}": (Cell(condition=condition), name) for condition in CONDITIONS for name in _METRIC_SCORES
    }
    return measure_result(
        "pro_anti_conll_f1",
        scores,
        reasons,
        inferences,
        n_bootstrap=n_bootstrap,
        cells=cells,
        primary="diff",
        unit_rows=UnitRows(np.asarray(rows, dtype=float), _pro_anti_statistic, tuple(nulls), blocks=blocks),
    )


def undefined_pro_anti(reason: str) -> MeasureResult:
    """The result of ``pro_anti_conll_f1`` when the predictions hold no clusters to score.

    Parameters
    ----------
    reason : str
        Why every score is undefined.

    Returns
    -------
    MeasureResult
        Every score ``None`` for ``reason``.

    Examples
    --------
    >>> result = undefined_pro_anti("the model predicts no clusters")
    >>> result["diff"], result.undefined["pro"]
    (None, 'the model predicts no clusters')
    """
    names = ("pro", "anti", "average", "diff")
    return measure_result("pro_anti_conll_f1", dict.fromkeys(names), dict.fromkeys(names, reason), primary="diff")
