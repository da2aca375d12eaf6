"""CoNLL F1: the mean of MUC, B³ and CEAFφ4 (entity) F1, as the official CoNLL-2012 scorer (v8.01,
Pradhan et al., 2014) computes it; its pro − anti difference as WinoBias (Zhao et al., 2018) reports it is
``pro_anti_conll_f1``, and its split by mention type ``conll_f1_by_mention_type``.

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
from .resampling import safe_div
from .result import MeasureResult, measure_result

METRICS = ("muc", "bcubed", "ceafe")
# Per metric: recall numerator, recall denominator, precision numerator, precision denominator.
_COUNTS = ("recall_num", "recall_den", "precision_num", "precision_den")
COLUMNS = tuple(f"{metric}/{count}" for metric in METRICS for count in _COUNTS)


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
