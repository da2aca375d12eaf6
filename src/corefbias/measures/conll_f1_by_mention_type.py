"""CoNLL F1 of whole documents with a bootstrap over documents, and B³ broken down by mention type.

GICoref (Cao & Daumé, 2020) is scored as coreference corpora are: per document, the key (gold) and response
(predicted) clusters; MUC, B³ and CEAFφ4 as the CoNLL-2012 reference scorer (v8.01) computes them, summed over
documents, and CoNLL F1 their mean (``conll_f1``, whose per-document counts this reuses). Its question is whether a
system resolves some mentions worse than others: neopronouns (*ze*, *hir*, *xe*, *ey*) against *he* and *she*,
singular or plural *they*, the deadnames and misgendering words the annotation marks.

Of the three metrics only B³ is an average over mentions, so only B³ splits exactly by mention type: with ``K(m)``
the key cluster and ``R(m)`` the response cluster of mention ``m`` (empty where ``m`` is not in it),

    B³ recall of type T    = Σ_{m in the key, of type T}      |K(m) ∩ R(m)| / |K(m)|  ÷  the number of such m
    B³ precision of type T = Σ_{m in the response, of type T} |K(m) ∩ R(m)| / |R(m)|  ÷  the number of such m

and F1 = 2RP / (R + P). The numerators of all types add up to B³'s own (the reference scorer's, a test checks), so
the breakdown is B³ itself, not a new score. MUC counts links and CEAFφ4 aligns entities: neither has a share per
mention, and neither is broken down. A mention's type is given with it, for the key and for the response; a span
that is in both must have one type (the caller derives types from the span, e.g. its words).

``bcubed_f1_diff/<T>`` = B³ F1 of type T − B³ F1 of the reference type: below 0 the system resolves T worse. The
bootstrap resamples units (documents, or groups of documents annotating one text), and with ``block_ids`` whole
blocks of them (``corefbias.measures.blocks``); the gaps of one call are Holm-adjusted as one family
(``comparison.holm``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import comparison, structured_inputs, validation
from .blocks import unit_blocks
from .conll_f1 import COLUMNS, _reasons, deduplicated, document_counts, statistic_of
from .resampling import UnitRows, bootstrap_test, safe_div
from .result import Cell, MeasureResult, measure_result

# Per mention type: B³ recall numerator, recall denominator (key mentions), precision numerator and denominator
# (response mentions).
_TYPE_COUNTS = ("recall_num", "recall_den", "precision_num", "precision_den")


def bcubed_by_type(key, response, key_types: dict, response_types: dict, types: Sequence[str]) -> np.ndarray:
    """One document's B³ counts per mention type, in the order of ``types`` × ``_TYPE_COUNTS``.

    Parameters
    ----------
    key : list of set
        The document's gold clusters, de-duplicated (``conll_f1.deduplicated``).
    response : list of set
        Its predicted clusters, de-duplicated.
    key_types : dict
        Each key mention → its type.
    response_types : dict
        Each response mention → its type.
    types : sequence of str
        The mention types, in the row's order.

    Returns
    -------
    numpy.ndarray
        Per type: B³ recall's numerator and denominator (the type's key mentions), precision's numerator and
        denominator (its response mentions).

    Examples
    --------
    The key {a b c}, the response {a b} {c}; a and c are pronouns, b a name:

    >>> key, response = [{"a", "b", "c"}], [{"a", "b"}, {"c"}]
    >>> types = {"a": "pronoun", "b": "name", "c": "pronoun"}
    >>> bcubed_by_type(key, response, types, types, ["pronoun", "name"]).tolist()  # 2/3 + 1/3 of 2; 1 + 1 of 2
    [1.0, 2.0, 2.0, 2.0, 0.6666666666666666, 1.0, 1.0, 1.0]
    """
    position = {name: index for index, name in enumerate(types)}
    row = np.zeros(len(types) * len(_TYPE_COUNTS))
    key_of = {mention: cluster for cluster in key for mention in cluster}
    response_of = {mention: cluster for cluster in response for mention in cluster}
    for mention, cluster in key_of.items():
        column = position[key_types[mention]] * len(_TYPE_COUNTS)
        row[column] += len(cluster & response_of.get(mention, set())) / len(cluster)
        row[column + 1] += 1
    for mention, cluster in response_of.items():
        column = position[response_types[mention]] * len(_TYPE_COUNTS)
        row[column + 2] += len(cluster & key_of.get(mention, set())) / len(cluster)
        row[column + 3] += 1
    return row


def type_statistic(types: Sequence[str], reference_type: str, compared: Sequence[str]):
    """The statistic of unit rows ``[COLUMNS..., per type _TYPE_COUNTS...]``: CoNLL scores, B³ per type, gaps.

    Parameters
    ----------
    types : sequence of str
        The mention types, in the rows' order.
    reference_type : str
        The type every compared type's B³ F1 is measured against.
    compared : sequence of str
        The types whose gap ``bcubed_f1_diff/<type>`` is reported.

    Returns
    -------
    Statistic
        Column sums → the CoNLL scores (``conll_f1.statistic_of``), ``bcubed_recall/<type>``,
        ``bcubed_precision/<type>``, ``bcubed_f1/<type>`` and the gaps.

    Examples
    --------
    One document whose CoNLL counts are all zero, and two types: pronouns with B³ recall 1/2 and precision 1,
    names with both 1; the pronouns' F1 is 2/3, a third below the names':

    >>> statistic = type_statistic(["pronoun", "name"], "name", ["pronoun"])
    >>> counts = np.concatenate([np.zeros(len(COLUMNS)), [1.0, 2.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0]])
    >>> scores = statistic(counts)
    >>> float(scores["bcubed_recall/pronoun"]), round(float(scores["bcubed_f1_diff/pronoun"]), 4)
    (0.5, -0.3333)
    """
    width = len(_TYPE_COUNTS)

    def statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
        scores = statistic_of(sums[..., : len(COLUMNS)])
        f1 = {}
        for index, name in enumerate(types):
            start = len(COLUMNS) + index * width
            recall_num, recall_den, precision_num, precision_den = (sums[..., start + c] for c in range(width))
            recall, precision = safe_div(recall_num, recall_den), safe_div(precision_num, precision_den)
            # As for the corpus scores (``conll_f1.statistic_of``): no response mention of the type, so none of the
            # key's was found either, and F1 is 0, not undefined.
            as_counted = np.where(precision_den > 0, precision, 0.0)
            f1[name] = np.where(recall_den > 0, safe_div(2 * recall * as_counted, recall + as_counted), np.nan)
            f1[name] = np.where((recall_den > 0) & (recall + as_counted == 0), 0.0, f1[name])
            scores.update(
                {f"bcubed_recall/{name}": recall, f"bcubed_precision/{name}": precision, f"bcubed_f1/{name}": f1[name]}
            )
        scores.update({f"bcubed_f1_diff/{name}": f1[name] - f1[reference_type] for name in compared})
        return scores

    return statistic


def _typed(name: str, documents: list, types: Sequence) -> list[dict]:
    """Per document, mention → type, from types given in the shape of the clusters."""
    mapped = []
    for index, (clusters, labels) in enumerate(zip(documents, types)):
        if not validation.is_column(labels) or len(labels) != len(clusters):
            raise ValueError(
                f"{name}[{index}] must hold one list of types per cluster ({len(clusters)} clusters), got "
                f"{labels!r:.80}"
            )
        found: dict = {}
        for position, (cluster, cluster_types) in enumerate(zip(clusters, labels)):
            if not validation.is_column(cluster_types) or len(cluster_types) != len(cluster):
                raise ValueError(
                    f"{name}[{index}][{position}] must hold one type per mention of its cluster ({len(cluster)}), "
                    f"got {cluster_types!r:.80}"
                )
            for mention, label in zip(cluster, cluster_types):
                if not validation.is_id(label, integers=False):
                    raise ValueError(
                        f"{name}[{index}][{position}] has the type {label!r}; a type is a non-empty string"
                    )
                found.setdefault(mention, label)
        mapped.append(found)
    return mapped


def conll_f1_by_mention_type(
    keys: Sequence,
    responses: Sequence,
    key_types: Sequence,
    response_types: Sequence,
    units: Sequence | None = None,
    *,
    block_ids: Sequence | None = None,
    reference_type: str,
    compared_types: Sequence[str] | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """CoNLL F1 over documents with its bootstrap interval, and B³ recall, precision and F1 per mention type.

    Parameters
    ----------
    keys : list of clusters
        per document, every gold cluster, each a list of mentions given as [start, end] spans.
    responses : list of clusters
        per document, the predicted clusters, each a list of [start, end] spans in the same units as the keys.
    key_types : list of lists of lists of str
        per document, per gold cluster, the type of each mention (e.g. `neopronoun`, `binary_pronoun`).
    response_types : list of lists of lists of str
        per document, per predicted cluster, the type of each mention; a span in both the key and the response
        has the same type in both.
    units : list of str, optional
        per document, the unit the bootstrap resamples (documents annotating the same text share one); default:
        every document its own.
    block_ids : list of str or int, or list of tuple, optional
        per document, its block: the text or source inside which a system's answers are not independent (the
        documents of one unit share it); the bootstrap draws whole blocks, its interval and p-values expanded for how
        few they are. A tuple per document gives one id per crossed factor, each drawn apart. Left out: every unit
        (by default every document) is a block of its own.
    reference_type : str
        the mention type every compared type's B³ F1 is measured against (e.g. `binary_pronoun`).
    compared_types : list of str, optional
        the types whose gap to the reference is reported and tested; default: every other type in the key.
    n_bootstrap : int, default 1000
        bootstrap resamples of the units (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        Overall (primary: ``conll_f1``, with its 95% interval): ``<metric>_recall``, ``_precision``, ``_f1`` for
        ``muc``, ``bcubed`` and ``ceafe``, ``conll_f1``, ``num_documents``, ``num_units``; per mention type
        (``by_group``) ``bcubed_recall``, ``bcubed_precision``, ``bcubed_f1``, ``mentions`` (key mentions of the
        type); overall, for each compared type, ``bcubed_f1_diff/<type>`` with a Holm-adjusted p-value and interval.
        Flat keys
        ``bcubed_f1/<type>``, ``bcubed_f1_diff/<type>``, ...; the extras ``reference_type`` and
        ``diff_unadjusted_p_value``.

    Raises
    ------
    ValueError
        If the inputs differ in length or are empty, a document is not a list of clusters of spans, the types do
        not have the clusters' shape, one span has two types, the reference type has no key mention, a block id is
        no id or a unit's documents lie in two blocks, or ``n_bootstrap`` or ``seed`` is not a non-negative integer.

    References
    ----------
    Cao, Y. T. and Daumé III, H. (2020). Toward Gender-Inclusive Coreference Resolution. ACL 2020.

    Pradhan, S. et al. (2014). Scoring Coreference Partitions of Predicted Mentions: A Reference Implementation.
    ACL 2014.

    Examples
    --------
    One document: *Ana* and *ze* (a neopronoun) are one person, *Bo* and *he* another; the system puts *ze* with
    *Bo*. B³ of the neopronoun: recall 1/2 (its key cluster {Ana, ze} shares only itself with its response cluster
    {Bo, ze, he}), precision 1/3, F1 0.4; of *he*: recall 1, precision 2/3, F1 0.8. CoNLL F1 is the mean of MUC 1/2,
    B³ 12/17 and CEAFφ4 11/15:

    >>> ana, ze, bo, he = (0, 3), (10, 12), (20, 22), (30, 32)
    >>> result = conll_f1_by_mention_type(
    ...     [[[ana, ze], [bo, he]]], [[[ana], [bo, ze, he]]],
    ...     [[["name", "neopronoun"], ["name", "binary_pronoun"]]],
    ...     [[["name"], ["name", "neopronoun", "binary_pronoun"]]],
    ...     reference_type="binary_pronoun", compared_types=["neopronoun"], n_bootstrap=0,
    ... )
    >>> result["bcubed_recall/neopronoun"], round(result["bcubed_precision/neopronoun"], 4)
    (0.5, 0.3333)
    >>> round(result["bcubed_f1_diff/neopronoun"], 4), round(result.value, 4)
    (-0.4, 0.6464)
    """
    validation.check_lengths(
        keys=keys,
        responses=responses,
        key_types=key_types,
        response_types=response_types,
        optional={"block_ids": block_ids},
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    keys = structured_inputs.check_clusters("keys", keys)
    responses = structured_inputs.check_clusters("responses", responses)
    typed_keys = _typed("key_types", keys, key_types)
    typed_responses = _typed("response_types", responses, response_types)
    for index, (in_key, in_response) in enumerate(zip(typed_keys, typed_responses)):
        clash = next((m for m in in_key if m in in_response and in_key[m] != in_response[m]), None)
        if clash is not None:
            raise ValueError(
                f"document {index}: the span {list(clash)} is of type {in_key[clash]!r} in the key and "
                f"{in_response[clash]!r} in the response; a span has one type"
            )
    unit_kind = "document" if units is None else "unit"
    units = list(range(len(keys))) if units is None else validation.check_ids("units", units, missing="is None")
    validation.check_lengths(keys=keys, units=units)
    types = sorted({label for found in typed_keys for label in found.values()})
    if reference_type not in types:
        raise ValueError(
            f"no key mention is of the reference type {reference_type!r}; the key's types are {types}. Pass "
            f"reference_type= naming one of them"
        )
    types += sorted({label for found in typed_responses for label in found.values()} - set(types))
    if isinstance(compared_types, str):
        raise ValueError(
            f"compared_types must be a list of mention types, got the string {compared_types!r}; pass "
            f"compared_types=[{compared_types!r}]"
        )
    compared = [t for t in types if t != reference_type] if compared_types is None else list(compared_types)
    unknown = sorted(set(compared) - set(types) | ({reference_type} & set(compared)))
    if unknown:
        raise ValueError(f"compared_types {unknown} are the reference type or no mention's type; the types are {types}")
    first_seen = {unit: index for index, unit in enumerate(dict.fromkeys(units))}
    blocks = unit_blocks(block_ids, [first_seen[name] for name in units], list(first_seen), unit=unit_kind)
    rows = np.zeros((len(first_seen), len(COLUMNS) + len(types) * len(_TYPE_COUNTS)))
    for key, response, key_map, response_map, unit in zip(keys, responses, typed_keys, typed_responses, units):
        row = first_seen[unit]
        rows[row, : len(COLUMNS)] += document_counts(key, response)
        rows[row, len(COLUMNS) :] += bcubed_by_type(
            deduplicated(key), deduplicated(response), key_map, response_map, types
        )
    statistic = type_statistic(types, reference_type, compared)
    scores = {name: float(value) for name, value in statistic(rows.sum(axis=0)).items()}
    mentions = rows.sum(axis=0)[len(COLUMNS) + 1 :: len(_TYPE_COUNTS)]
    scores.update({f"mentions/{name}": int(count) for name, count in zip(types, mentions)})
    scores.update(num_documents=len(keys), num_units=len(first_seen))
    nulls = {"conll_f1": None, **{f"bcubed_f1_diff/{name}": 0.0 for name in compared}}
    inferences = bootstrap_test(rows, statistic, nulls, n_bootstrap=n_bootstrap, seed=seed, unit="unit", blocks=blocks)
    inferences, unadjusted = comparison.holm_adjusted(inferences, [f"bcubed_f1_diff/{name}" for name in compared])
    reasons = _reasons()
    for name in types:
        reasons[f"bcubed_recall/{name}"] = f"the key has no {name} mention"
        reasons[f"bcubed_precision/{name}"] = f"the response has no {name} mention"
        reasons[f"bcubed_f1/{name}"] = f"B³ recall or precision of {name} mentions is undefined"
    for name in compared:
        reasons[f"bcubed_f1_diff/{name}"] = f"the B³ F1 of {name} or of {reference_type} mentions is undefined"
    scored = ("bcubed_recall", "bcubed_precision", "bcubed_f1", "mentions")
    cells = {f"{score}/{name}": (Cell(group=name), score) for name in types for score in scored}
    return measure_result(
        "conll_f1_by_mention_type",
        scores,
        reasons,
        inferences,
        n_bootstrap=n_bootstrap,
        cells=cells,
        primary="conll_f1",
        significance_reasons={"conll_f1": "CoNLL F1 is reported with its interval, not tested"},
        extras={
            "reference_type": reference_type,
            "diff_unadjusted_p_value": {name: unadjusted[f"bcubed_f1_diff/{name}"] for name in compared},
        },
        unit_rows=UnitRows(
            rows, statistic, ("conll_f1", *(f"bcubed_f1_diff/{name}" for name in compared)), blocks=blocks
        ),
    )


def undefined_by_mention_type(reason: str, keys: Sequence[str]) -> MeasureResult:
    """The result of :func:`conll_f1_by_mention_type` where the predictions hold no clusters to score.

    Parameters
    ----------
    reason : str
        Why every score is undefined.
    keys : list of str
        The flat keys to report as undefined (``conll_f1`` and the gaps a benchmark reads).

    Returns
    -------
    MeasureResult
        Every score of ``keys`` None for ``reason``.

    Examples
    --------
    >>> dict(undefined_by_mention_type("no clusters", ["conll_f1"]))
    {'conll_f1': None, 'undefined': {'conll_f1': 'no clusters'}}
    """
    return measure_result(
        "conll_f1_by_mention_type",
        dict.fromkeys(keys),
        dict.fromkeys(keys, reason),
        primary="conll_f1" if "conll_f1" in keys else None,
    )
