"""CoNLL F1: the mean of MUC, B³ and CEAFφ4 (entity) F1, as the official CoNLL-2012 scorer (v8.01,
Pradhan et al., 2014) computes it, and its pro − anti gap as WinoBias (Zhao et al., 2018) reports it.

Each document's key (gold) and response (predicted) clusters are sets of mentions (any hashable:
character spans here). Per document, ``scorch`` (a reimplementation of the reference scorer's
definitions) gives each metric's recall and precision; their denominators are plain cardinalities

    MUC  recall / precision  ÷ Σ(|k| − 1) / Σ(|r| − 1)      (links)
    B³                       ÷ Σ|k|       / Σ|r|            (mentions)
    CEAFφ4                   ÷ |K|        / |R|             (entities)

so recall × denominator recovers each document's numerator. The corpus score is, as the reference
scorer's, the ratio of the summed numerators to the summed denominators (micro average over
documents), and F1 = 2RP / (R + P); CoNLL F1 = (MUC F1 + B³ F1 + CEAFφ4 F1) / 3. Because every score
is a ratio of column sums, documents (or aligned pro/anti pairs of documents) are resampled with the
count-matrix bootstrap of ``resampling``; with ``block_ids``, whole blocks of pairs (the pairs sharing a sentence
frame or occupations: ``corefbias.measures.blocks``).

Repeated mentions are removed (the first occurrence is kept), as the reference scorer does (its
test cases A-7 and A-8). A response with no links or mentions has precision 0/0 but recall 0 — the
reference scorer prints F1 = 0, and so do we; a key with none leaves recall, and the F1, undefined.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import numpy as np

from . import structured_inputs, validation
from .blocks import unit_blocks
from .resampling import UnitRows, bootstrap_test, safe_div
from .result import Cell, MeasureResult, measure_result

METRICS = ("muc", "bcubed", "ceafe")
CONDITIONS = ("pro", "anti")
# Per metric: recall numerator, recall denominator, precision numerator, precision denominator.
_COUNTS = ("recall_num", "recall_den", "precision_num", "precision_den")
COLUMNS = tuple(f"{metric}/{count}" for metric in METRICS for count in _COUNTS)
# What pro_anti_conll_f1 reports per condition besides its CoNLL F1.
_METRIC_SCORES = tuple(f"{metric}_{score}" for metric in METRICS for score in ("recall", "precision", "f1"))


def _scorch_scores():
    # Imported when first scored: scorch pulls in docopt and tqdm, which no other measure needs.
    from scorch import scores

    return scores


def deduplicated(clusters: Iterable[Iterable[Hashable]]) -> list[set]:
    """Clusters as sets, each mention kept only where it first occurs; clusters left empty are dropped.

    Parameters
    ----------
    clusters : iterable of iterable
        One document's clusters.

    Returns
    -------
    list of set

    Examples
    --------
    The reference scorer's test cases A-7 and A-8 repeat a mention; it counts once:

    >>> [sorted(cluster) for cluster in deduplicated([["a", "b", "a"], ["b"], ["c"]])]
    [['a', 'b'], ['c']]
    """
    seen: set = set()
    result = []
    for cluster in clusters:
        kept = set()
        for mention in cluster:
            if mention not in seen:
                seen.add(mention)
                kept.add(mention)
        if kept:
            result.append(kept)
    return result


def document_counts(key: Iterable[Iterable[Hashable]], response: Iterable[Iterable[Hashable]]) -> np.ndarray:
    """One document's counts, in the order of ``COLUMNS``.

    Parameters
    ----------
    key : iterable of iterable
        The gold clusters.
    response : iterable of iterable
        The predicted clusters.

    Returns
    -------
    numpy.ndarray
        Per metric (MUC, B³, CEAFφ4): the recall numerator and denominator, the precision numerator and denominator.

    Examples
    --------
    A cluster of three split in two: MUC finds 1 of 2 gold links and predicts 1 right link:

    >>> document_counts([["a", "b", "c"]], [["a", "b"], ["c"]])[:4].tolist()
    [1.0, 2.0, 1.0, 1.0]
    """
    scores = _scorch_scores()
    key, response = deduplicated(key), deduplicated(response)
    denominators = {
        "muc": (sum(len(k) - 1 for k in key), sum(len(r) - 1 for r in response)),
        "bcubed": (sum(len(k) for k in key), sum(len(r) for r in response)),
        "ceafe": (len(key), len(response)),
    }
    functions = {"muc": scores.muc, "bcubed": scores.b_cubed, "ceafe": scores.ceaf_e}
    row = []
    for metric in METRICS:
        recall_den, precision_den = denominators[metric]
        if metric == "ceafe" and not any(k & r for k in key for r in response):
            # No shared mention: nothing aligns (recall = precision = 0), and scorch's harmonic mean of its
            # NumPy zeros would raise instead of giving F = 0.
            recall, precision = 0.0, 0.0
        else:
            recall, precision, _ = functions[metric](key, response)
        recall_num, precision_num = recall * recall_den, precision * precision_den
        if metric == "muc":  # MUC counts links: whole numbers, whatever the float round trip did
            recall_num, precision_num = round(recall_num), round(precision_num)
        row += [recall_num, recall_den, precision_num, precision_den]
    return np.asarray(row, dtype=float)


def statistic_of(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Recall, precision and F1 of each metric, and ``conll_f1``, from summed ``COLUMNS`` (shape ``(..., 12)``).

    Parameters
    ----------
    sums : numpy.ndarray
        Summed document counts (:func:`document_counts`).

    Returns
    -------
    dict of str to numpy.ndarray
        ``<metric>_recall``, ``<metric>_precision``, ``<metric>_f1`` for ``muc``, ``bcubed``, ``ceafe``, and
        ``conll_f1``; F1 0 where the response has nothing, NaN where the key has nothing.

    Examples
    --------
    >>> scores = statistic_of(document_counts([["a", "b"]], [["a", "b"]]))
    >>> float(scores["muc_f1"]), float(scores["conll_f1"])
    (1.0, 1.0)
    """
    cells = sums.reshape(sums.shape[:-1] + (len(METRICS), len(_COUNTS)))
    scores: dict[str, np.ndarray] = {}
    f1s = []
    for index, metric in enumerate(METRICS):
        recall_num, recall_den, precision_num, precision_den = (cells[..., index, c] for c in range(len(_COUNTS)))
        recall = safe_div(recall_num, recall_den)
        precision = safe_div(precision_num, precision_den)
        # No response links/mentions: the recall numerator is 0 too, and F1 is 0 (the reference scorer's value).
        as_counted = np.where(precision_den > 0, precision, 0.0)
        f1 = np.where(recall_den > 0, safe_div(2 * recall * as_counted, recall + as_counted), np.nan)
        f1 = np.where((recall_den > 0) & (recall + as_counted == 0), 0.0, f1)
        scores.update({f"{metric}_recall": recall, f"{metric}_precision": precision, f"{metric}_f1": f1})
        f1s.append(f1)
    scores["conll_f1"] = sum(f1s) / len(f1s)
    return scores


_UNITS = {"muc": "links (a cluster of n mentions has n − 1)", "bcubed": "mentions", "ceafe": "entities"}


def _reasons(prefix: str = "", where: str = "") -> dict[str, str]:
    reasons = {}
    for metric in METRICS:
        missing_key = f"the key{where} has no {_UNITS[metric]}, so {metric} recall is 0/0"
        reasons[f"{prefix}{metric}_recall"] = reasons[f"{prefix}{metric}_f1"] = missing_key
        reasons[f"{prefix}{metric}_precision"] = (
            f"the response{where} has no {_UNITS[metric]}, so {metric} precision is 0/0"
        )
    reasons[f"{prefix}conll_f1"] = f"the key{where} has no gold links or mentions, so a metric's F1 is undefined"
    return reasons


def conll_f1(keys: Sequence, responses: Sequence) -> MeasureResult:
    """MUC, B³ and CEAFφ4 recall, precision and F1, and CoNLL F1, over documents, as the CoNLL-2012 scorer (v8.01)
    computes them.

    Parameters
    ----------
    keys : list of clusters
        per document, every gold cluster, each a list of mentions (any hashable value other than None: a span, a
        name).
    responses : list of clusters
        per document, the predicted clusters, with mentions of the same kind.

    Returns
    -------
    MeasureResult
        Overall (primary: ``conll_f1``): ``<metric>_recall``, ``<metric>_precision`` and ``<metric>_f1`` for
        ``muc``, ``bcubed`` and ``ceafe``, ``conll_f1`` (their F1s' mean) and ``num_documents``; a score the key
        leaves undefined (no gold links or mentions) is None with its reason.

    Raises
    ------
    ValueError
        If the inputs differ in length or are empty, or a document is not a list of clusters of mentions.

    Examples
    --------
    A gold cluster of three split in two: MUC finds 1 of 2 links (R = 1/2, P = 1, F1 = 2/3); B³ recall is
    (2/3 + 2/3 + 1/3) / 3 = 5/9 with precision 1 (F1 = 5/7); CEAFφ4 aligns the key with {a, b}, φ4 = 4/5, so
    R = 4/5, P = 2/5 (F1 = 8/15); CoNLL F1 = (2/3 + 5/7 + 8/15) / 3:

    >>> result = conll_f1([[["a", "b", "c"]]], [[["a", "b"], ["c"]]])
    >>> result["muc_recall"], result["muc_precision"], round(result["bcubed_recall"], 4)
    (0.5, 1.0, 0.5556)
    >>> round(result["ceafe_f1"], 4), round(result.value, 4)
    (0.5333, 0.6381)
    """
    validation.check_lengths(keys=keys, responses=responses)
    keys = structured_inputs.check_clusters("keys", keys, spans=False)
    responses = structured_inputs.check_clusters("responses", responses, spans=False)
    sums = np.sum([document_counts(key, response) for key, response in zip(keys, responses)], axis=0)
    scores = {name: float(value) for name, value in statistic_of(sums).items()}
    scores["num_documents"] = len(keys)
    return measure_result("conll_f1", scores, _reasons(), primary="conll_f1")


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
