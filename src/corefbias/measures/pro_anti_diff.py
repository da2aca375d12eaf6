"""Pro- vs anti-stereotypical performance gap: WinoBias (Zhao et al., 2018), SoWinoBias (Dawkins,
2021) and DaWinoBias as scored by GenDa Lens.

Each example is one pronoun–candidate decision: ``predictions[i]`` says whether the model links the
pronoun to the candidate (puts them in one cluster), ``references[i]`` whether the candidate is the
pronoun's gold antecedent. A *positive* is a link, so per condition (pro / anti)

    accuracy = (TP + TN) / examples              (SoWinoBias; GenDa Lens's DaWinoBias main effect)
    f1       = 2 TP / (2 TP + FP + FN)           (pronoun–candidate links)

Giving only the gold antecedent per sentence (all references True) makes accuracy the share of
pronouns linked to their antecedent (F1 is then 2R / (1 + R), there being no false positives to
see); giving the other occupation too (reference False) lets linking the wrong one count as a false
positive. (WinoBias itself reports no link F1: its README sends users to e2e-coref's evaluation, the
mean of MUC, B³ and CEAFφ4 F1 from the CoNLL-2012 scorer v8.01, computed on whole documents; that is
``pro_anti_conll_f1.pro_anti_conll_f1``.)

A prediction of ``None`` marks a pronoun the model links to no candidate (*unlinked*). ``unlinked``
says what it counts as: ``"wrong"`` (default) scores it as no link (WinoBias, SoWinoBias: a missed
antecedent), ``"drop"`` leaves the example out, as GenDa Lens's DaWinoBias scorer leaves out a
sentence whose model links the pronoun to no occupation.

    diff = pro − anti,  average = (pro + anti) / 2   (Dawkins, Table 1)
    log2_ratio = log2(pro / anti)                    (GenDa Lens's Gender Effect Size, unrounded)

With ``pair_ids`` the bootstrap resamples aligned pro/anti pairs (a paired test); otherwise examples. With
``block_ids`` it draws whole blocks of them (the pairs sharing a sentence frame or occupations:
``corefbias.measures.blocks``).

``referent_class_f1`` is GenDa Lens's detailed DaWinoBias output: per condition, the F1 of each class
of the referent's stereotype.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from . import structured_inputs, validation
from .blocks import unit_blocks
from .resampling import UnitRows, bootstrap_test, safe_div, safe_log2
from .result import Cell, MeasureResult, measure_result

CONDITIONS = ("pro", "anti")
SCORES = ("accuracy", "f1")
# What pro_anti_diff measures overall and in each group.
_GROUP_SCORES = ("pro", "anti", "average", "diff", "log2_ratio")
UNLINKED = ("wrong", "drop")
_OUTCOMES = ("tp", "fp", "fn", "tn")
_PER_BUCKET = len(CONDITIONS) * len(_OUTCOMES)


def _suffix(group: str | None) -> str:
    return "" if group is None else f"/{group}"


def _score(counts: dict[str, np.ndarray], score: str) -> np.ndarray:
    if score == "accuracy":
        return safe_div(counts["tp"] + counts["tn"], counts["tp"] + counts["fp"] + counts["fn"] + counts["tn"])
    return safe_div(2 * counts["tp"], 2 * counts["tp"] + counts["fp"] + counts["fn"])


def statistic(sums: np.ndarray, *, groups: Sequence[str], score: str) -> dict[str, np.ndarray]:
    """Pro/anti scores overall and per group; columns are (bucket, condition, outcome) counts with
    bucket 0 = all examples and bucket 1 + k = ``groups[k]``.

    Parameters
    ----------
    sums : numpy.ndarray
        Summed example rows (:func:`example_rows`), shape ``(..., (1 + len(groups)) * 8)``.
    groups : sequence of str
        The group names, in the buckets' order.
    score : str
        ``accuracy`` or ``f1``.

    Returns
    -------
    dict of str to numpy.ndarray
        ``pro``, ``anti``, ``average``, ``diff``, ``log2_ratio``, and each again as ``<score>/<group>`` (NaN where
        undefined).

    Examples
    --------
    >>> rows = example_rows(np.array([True, False]), np.array([True, True]), ["pro", "anti"], None, [])
    >>> {name: float(value) for name, value in statistic(rows.sum(axis=0), groups=[], score="accuracy").items()}
    {'pro': 1.0, 'anti': 0.0, 'average': 0.5, 'diff': 1.0, 'log2_ratio': nan}
    """
    cells = sums.reshape(sums.shape[:-1] + (1 + len(groups), len(CONDITIONS), len(_OUTCOMES)))
    scores = {}
    for bucket, group in enumerate([None, *groups]):
        suffix = _suffix(group)
        by_condition = {
            condition: _score({outcome: cells[..., bucket, c, o] for o, outcome in enumerate(_OUTCOMES)}, score)
            for c, condition in enumerate(CONDITIONS)
        }
        pro, anti = by_condition["pro"], by_condition["anti"]
        values = (pro, anti, (pro + anti) / 2, pro - anti, safe_log2(safe_div(pro, anti)))
        scores.update({name + suffix: value for name, value in zip(_GROUP_SCORES, values)})
    return scores


def _reasons(groups: Sequence[str], score: str, unlinked: str) -> dict[str, str]:
    no_examples = "there are no examples" + (" left after dropping the unlinked ones" if unlinked == "drop" else "")
    undefined_score = "no link was predicted and none is gold, so F1 is 0/0" if score == "f1" else no_examples
    reasons = {}
    for group in [None, *groups]:
        suffix = _suffix(group)
        where = "" if group is None else f" in group {group!r}"
        for condition in CONDITIONS:
            reasons[condition + suffix] = f"{condition}{where}: {undefined_score}"
        for name in ("average", "diff"):
            reasons[name + suffix] = f"the pro or anti {score}{where} is undefined"
        reasons["log2_ratio" + suffix] = (
            f"the pro or anti {score}{where} is 0 or undefined, so log2(pro / anti) is undefined"
        )
    return reasons


def _optional_labels(name: str, values: Sequence | None, what: str) -> list | None:
    """An optional column of ids (pair ids, group names): left out (None), or one id for every example."""
    if values is None:
        return None
    return validation.check_ids(name, values, missing=f"is empty; give every example {what} or leave {name} out")


def check_predictions(predictions: Sequence) -> tuple[np.ndarray, np.ndarray]:
    """Link flags (``None`` read as no link) and the mask of unlinked examples (``None``).

    Parameters
    ----------
    predictions : sequence of bool or None
        Per example, is the pronoun linked to the candidate (None: to no candidate)?

    Returns
    -------
    tuple of numpy.ndarray
        The links, and where the pronoun is unlinked.

    Raises
    ------
    ValueError
        Naming the first entry that is neither a boolean nor None.

    Examples
    --------
    >>> linked, unlinked = check_predictions([True, None, False])
    >>> linked.tolist(), unlinked.tolist()
    ([True, False, False], [False, True, False])
    """
    linked = validation.check_booleans(
        "predictions", predictions, allow_none=True, none_means="where the model links the pronoun to no candidate"
    )
    unlinked = np.fromiter((value is None for value in predictions), dtype=bool, count=len(predictions))
    return linked, unlinked


def check_unlinked(unlinked: str) -> None:
    """``unlinked`` is ``"wrong"`` or ``"drop"``, what an unlinked pronoun counts as.

    Parameters
    ----------
    unlinked : str
        The option as given.

    Raises
    ------
    ValueError
        Naming both choices and what each means.

    Examples
    --------
    >>> check_unlinked("drop")
    >>> check_unlinked("skip")
    Traceback (most recent call last):
    ...
    ValueError: unknown unlinked='skip'; choose 'wrong' (an unlinked pronoun counts as no link) or 'drop' (its
    examples are left out, as GenDa Lens scores DaWinoBias)
    """
    if not isinstance(unlinked, str) or unlinked not in UNLINKED:
        raise ValueError(
            f"unknown unlinked={unlinked!r}; choose 'wrong' (an unlinked pronoun counts as no link) or 'drop' "
            f"(its examples are left out, as GenDa Lens scores DaWinoBias)"
        )


def _check_groups(groups: list, conditions: list) -> list[str]:
    """Group names in first-seen order; each must have pro and anti examples."""
    names = list(dict.fromkeys(groups))
    for name in names:
        present = {condition for group, condition in zip(groups, conditions) if group == name}
        structured_inputs.check_nonempty(
            {f"{condition} in group {name!r}": int(condition in present) for condition in CONDITIONS},
            "the pro/anti comparison of each group",
        )
    return names


def _pair_index(pair_ids: list, conditions: list) -> np.ndarray:
    """Unit index per example; every pair holds as many pro as anti examples (at least one)."""
    order = {pair: index for index, pair in enumerate(dict.fromkeys(pair_ids))}
    pro = np.zeros(len(order), dtype=int)
    anti = np.zeros(len(order), dtype=int)
    units = np.fromiter((order[pair] for pair in pair_ids), dtype=int, count=len(pair_ids))
    is_pro = np.asarray([condition == "pro" for condition in conditions])
    np.add.at(pro, units[is_pro], 1)
    np.add.at(anti, units[~is_pro], 1)
    broken = np.flatnonzero((pro != anti) | (pro == 0))
    if broken.size:
        pair = list(order)[int(broken[0])]
        raise ValueError(
            f"pair {pair!r} has {pro[broken[0]]} pro and {anti[broken[0]]} anti examples; each pair_id must join "
            f"aligned pro and anti versions (as many of each, at least one)"
        )
    return units


def example_rows(
    predicted: np.ndarray, gold: np.ndarray, conditions: list, groups: list | None, group_names: list
) -> np.ndarray:
    """Per-example one-hot (bucket, condition, outcome) counts.

    Parameters
    ----------
    predicted : numpy.ndarray
        Per example, whether the pronoun is linked to the candidate.
    gold : numpy.ndarray
        Per example, whether the candidate is the antecedent.
    conditions : list of str
        ``pro`` or ``anti`` per example.
    groups : list of str or None
        Each example's group (None: no breakdown).
    group_names : list of str
        The groups, in the buckets' order.

    Returns
    -------
    numpy.ndarray
        Shape ``(examples, (1 + len(group_names)) * 8)``: per bucket, condition and outcome (TP, FP, FN, TN), 1 or 0.

    Examples
    --------
    A pro example linked to its antecedent (a true positive) in group ``a``:

    >>> example_rows(np.array([True]), np.array([True]), ["pro"], ["a"], ["a"]).tolist()
    [[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]
    """
    outcome = np.where(predicted, np.where(gold, 0, 1), np.where(gold, 2, 3))
    # dtype=int: with every example dropped (unlinked="drop") the list is empty, and an empty float array cannot index
    condition = np.asarray([CONDITIONS.index(value) for value in conditions], dtype=int)
    rows = np.zeros((len(predicted), (1 + len(group_names)) * _PER_BUCKET))
    examples = np.arange(len(predicted))
    within = condition * len(_OUTCOMES) + outcome
    rows[examples, within] = 1
    if groups is not None:
        position = {name: 1 + index for index, name in enumerate(group_names)}
        bucket = np.asarray([position[group] for group in groups], dtype=int)
        rows[examples, bucket * _PER_BUCKET + within] = 1
    return rows


def pro_anti_diff(
    predictions: Sequence,
    references: Sequence,
    conditions: Sequence[str],
    pair_ids: Sequence | None = None,
    groups: Sequence[str] | None = None,
    *,
    block_ids: Sequence | None = None,
    score: str = "accuracy",
    unlinked: str = "wrong",
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """Pro, anti, their average, difference and log2 ratio, overall and per group, with bootstrap
    p-values and confidence intervals for the difference and the log ratio.

    A prediction of ``None`` is an unlinked pronoun: ``unlinked="wrong"`` scores it as no link,
    ``unlinked="drop"`` leaves the example out (pairs and groups are checked on all examples first).

    Parameters
    ----------
    predictions : list of bool or None
        does the model link the pronoun to the candidate (one
        cluster)? `None`: the model links the pronoun to no candidate at all (unlinked).
    references : list of bool
        is the candidate the pronoun's gold antecedent? Give the gold
        antecedent only (all True) for accuracy = share of pronouns resolved to it; add the other
        candidate (False) so that linking it counts as a false positive.
    conditions : list of str
        `pro` or `anti`.
    pair_ids : list of str or int, optional
        joins the aligned pro and anti versions of a
        sentence (as many pro as anti examples per pair); the bootstrap then resamples pairs. Ids are
        compared as text (`str(id)`).
    groups : list of str, optional
        a group per example (occupation gender, adjective
        polarity, WinoBias type, ...); each group needs pro and anti examples.
    block_ids : list of str or int, or list of tuple, optional
        the block of each example: the sentence frame, occupations or template inside which a model's answers
        are not independent (both versions of a pair share it); the bootstrap draws whole blocks, its interval and
        p-value expanded for how few they are. A tuple per example gives one id per crossed factor (SoWinoBias's
        two occupations and adjective), each drawn apart. Left out: every pair (or example) is a block of its own.
    score : str, default "accuracy"
        `accuracy` = (TP + TN) / examples, or `f1` = 2TP / (2TP + FP + FN)
        with a positive = a predicted pronoun–candidate link.
    unlinked : str, default "wrong"
        what a `None` prediction counts as: `wrong` = no link (a missed
        antecedent, as WinoBias and SoWinoBias count it), `drop` = the example is left out, as GenDa
        Lens leaves out a DaWinoBias sentence whose pronoun the model links to no occupation. Pairs
        and groups are checked on all examples, before dropping.
    n_bootstrap : int, default 1000
        bootstrap resamples (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        The five scores and the counts overall and the five scores of each group in ``by_group[<group>]``
        (``corefbias.measures.result``; primary: ``diff``), with the example or pair rows its bootstrap
        resampled (``unit_rows``; with ``unlinked="drop"``, their ``unit_positions`` among all examples or
        pairs). As a mapping, its flat keys (scores are fractions, not percentages):

        * ``pro``, ``anti`` (the chosen score per condition), ``average`` ((pro + anti) / 2),
          ``diff`` (pro − anti), ``log2_ratio`` (log2(pro / anti));
        * ``num_pro``, ``num_anti`` (examples scored), ``num_unlinked_pro``, ``num_unlinked_anti``
          (`None` predictions, dropped or counted as no link), ``num_pairs`` (pairs scored, with
          ``pair_ids``);
        * with ``groups``, the five scores again as ``<score>/<group>``;
        * for ``diff`` and ``log2_ratio`` (overall and per group): ``<score>_p_value`` (two-sided
          bootstrap against 0), ``<score>_ci_low`` and ``<score>_ci_high`` (95% percentile
          interval), None with ``n_bootstrap=0``;
        * ``undefined``: every key whose value is None, mapped to the reason.

    Raises
    ------
    ValueError
        If the inputs differ in length; a prediction is not a bool or None, or a reference not a
        bool; a condition is not `pro` or `anti`; ``score`` or ``unlinked`` is not one of its
        choices; a pair does not hold as many pro as anti examples; a group lacks pro or anti
        examples; a block id is no id, or a pair's examples lie in two blocks; or ``n_bootstrap`` or
        ``seed`` is not a non-negative integer (or ``n_bootstrap`` exceeds 10,000,000).

    Notes
    -----
    Each example is one pronoun–candidate decision, a positive being a predicted link. Per
    condition, accuracy = (TP + TN) / examples (SoWinoBias; GenDa Lens's DaWinoBias main effect) or
    F1 = 2 TP / (2 TP + FP + FN). Then diff = pro − anti and average = (pro + anti) / 2 (Dawkins,
    Table 1), and log2_ratio = log2(pro / anti) (GenDa Lens's Gender Effect Size, unrounded). A
    positive diff means the model does better on pro-stereotypical sentences.

    Undefined cases (None, with the reason under ``undefined``): ``pro`` / ``anti`` (overall or
    in a group) when that condition has no examples (left after dropping the unlinked ones), or,
    with ``score="f1"``, when no link was predicted and none is gold (0/0); ``average`` and
    ``diff`` when pro or anti is undefined; ``log2_ratio`` when pro or anti is 0 or undefined; the
    significance keys with ``n_bootstrap=0``.

    References
    ----------
    Zhao, J., Wang, T., Yatskar, M., Ordonez, V. and Chang, K.-W. (2018). Gender Bias in Coreference
    Resolution: Evaluation and Debiasing Methods. NAACL-HLT 2018 (WinoBias).

    Dawkins, H. (2021). Second Order WinoBias (SoWinoBias) Test Set for Latent Gender Bias Detection
    in Coreference Resolution. 3rd Workshop on Gender Bias in NLP. https://aclanthology.org/2021.gebnlp-1.12

    Sloth, T. R. and Rybner, A. S. (2023). GenDa Lens: Quantifying Gender Bias in Danish Language
    Models (DaWinoBias). https://github.com/DaDebias/genda-lens

    Examples
    --------
    Four aligned pro/anti pairs, two with female and two with male antecedents: pro = 3/4,
    anti = 2/4, diff = 0.25, log2(0.75 / 0.5) = 0.585; the female pairs differ by 1 − 1/2:

    >>> from corefbias import pro_anti_diff
    >>> result = pro_anti_diff(
    ...     [True, True, True, False, True, False, False, True],
    ...     [True] * 8,
    ...     ["pro"] * 4 + ["anti"] * 4,
    ...     pair_ids=["p1", "p2", "p3", "p4"] * 2,
    ...     groups=["female", "female", "male", "male"] * 2,
    ...     n_bootstrap=0,
    ... )
    >>> round(result["pro"], 3), round(result["anti"], 3), round(result["average"], 3), round(result["diff"], 3)
    (0.75, 0.5, 0.625, 0.25)
    >>> round(result["log2_ratio"], 3)
    0.585
    >>> round(result["diff/female"], 3), round(result["diff/male"], 3)
    (0.5, 0.0)
    """
    validation.check_lengths(
        predictions=predictions,
        references=references,
        conditions=conditions,
        optional={"pair_ids": pair_ids, "groups": groups, "block_ids": block_ids},
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    structured_inputs.check_choice("score", score, SCORES)
    check_unlinked(unlinked)
    predicted, is_unlinked = check_predictions(predictions)
    gold = validation.check_booleans("references", references)
    conditions = structured_inputs.check_labels("conditions", conditions, CONDITIONS)
    structured_inputs.check_nonempty(
        {condition: conditions.count(condition) for condition in CONDITIONS}, "pro_anti_diff"
    )
    groups = _optional_labels("groups", groups, "a group")
    pair_ids = _optional_labels("pair_ids", pair_ids, "a pair id")
    group_names = [] if groups is None else _check_groups(groups, conditions)
    units = None if pair_ids is None else _pair_index(pair_ids, conditions)
    unit_names = list(range(len(conditions))) if units is None else list(dict.fromkeys(pair_ids))
    blocks = unit_blocks(
        block_ids,
        np.arange(len(conditions)) if units is None else units,
        unit_names,
        unit="example" if units is None else "pair",
    )

    kept = ~is_unlinked if unlinked == "drop" else np.ones(len(conditions), dtype=bool)
    kept_conditions = [condition for condition, keep in zip(conditions, kept) if keep]
    kept_groups = None if groups is None else [group for group, keep in zip(groups, kept) if keep]
    rows = example_rows(predicted[kept], gold[kept], kept_conditions, kept_groups, group_names)
    positions = np.flatnonzero(kept)
    if units is None and blocks is not None:
        blocks = blocks.kept(positions)
    if units is not None:
        paired = np.zeros((units.max() + 1, rows.shape[1]))
        np.add.at(paired, units[kept], rows)
        positions = np.flatnonzero(paired.any(axis=1))  # a pair whose every example was dropped is no unit
        rows = paired[positions]
        blocks = None if blocks is None else blocks.kept(positions)

    measure = partial(statistic, groups=group_names, score=score)
    scores = dict(measure(rows.sum(axis=0)))
    scores.update(num_pro=kept_conditions.count("pro"), num_anti=kept_conditions.count("anti"))
    for condition in CONDITIONS:
        scores[f"num_unlinked_{condition}"] = sum(
            missing for missing, value in zip(is_unlinked, conditions) if value == condition
        )
    if units is not None:
        scores["num_pairs"] = len(rows)
    nulls = {f"{name}{_suffix(group)}": 0.0 for group in [None, *group_names] for name in ("diff", "log2_ratio")}
    resamples = n_bootstrap if len(rows) else 0
    inferences = bootstrap_test(
        rows,
        measure,
        nulls,
        n_bootstrap=resamples,
        seed=seed,
        unit="example" if units is None else "pair",
        blocks=blocks,
    )
    cells = {f"{name}{_suffix(group)}": (Cell(group=group), name) for group in group_names for name in _GROUP_SCORES}
    unit_positions = positions if unlinked == "drop" else None
    return measure_result(
        "pro_anti_diff",
        scores,
        _reasons(group_names, score, unlinked),
        inferences,
        n_bootstrap=n_bootstrap,
        cells=cells,
        primary="diff",
        unit_rows=UnitRows(np.asarray(rows, dtype=float), measure, tuple(nulls), unit_positions, blocks),
    )


def referent_class_f1(
    predicted_classes: Sequence, referent_classes: Sequence[str], conditions: Sequence[str]
) -> MeasureResult:
    """GenDa Lens's detailed DaWinoBias output: per condition and class, the F1 of the class.

    Per sentence, ``referent_classes[i]`` is the class of the gold antecedent (its occupation's
    stereotype, "female"/"male") and ``predicted_classes[i]`` the class of the candidate the model links
    the pronoun to, or ``None`` where it links none: those sentences are left out, as GenDa Lens does.

    Parameters
    ----------
    predicted_classes : list of str or None
        The class of the candidate the model links the pronoun to; None where it links none.
    referent_classes : list of str
        The class of the gold antecedent.
    conditions : list of str
        ``pro`` or ``anti``.

    Returns
    -------
    MeasureResult
        Per condition and class (``by_condition_and_group[<condition>][<class>]``): ``f1`` = 2 TP / (2 TP + FP + FN)
        with that class as the positive one (scikit-learn's per-class F1, which GenDa Lens reports rounded to two
        decimals; here unrounded, and None where 0/0, where scikit-learn says 0), flat key ``<condition>/<class>``, and
        ``support`` (counted sentences whose referent has the class), flat key ``support_<condition>/<class>``;
        overall ``num_<condition>`` (counted sentences) and ``num_unlinked_<condition>`` (left out). No primary score.

    Raises
    ------
    ValueError
        If the inputs differ in length, a condition is not ``pro`` or ``anti``, or a class is not a non-empty string.

    Examples
    --------
    Two pro sentences, one resolved to a female referent and one to the wrong (female) candidate of a male referent;
    an anti sentence left out because its pronoun is linked to no candidate:

    >>> result = referent_class_f1(["female", "female", None], ["female", "male", "female"], ["pro", "pro", "anti"])
    >>> round(result["pro/female"], 4), result["pro/male"], result["support_pro/male"], result["num_unlinked_anti"]
    (0.6667, 0.0, 1, 1)
    >>> result.by_condition_and_group["pro"]["female"]["f1"].value == result["pro/female"]
    True
    """
    validation.check_lengths(
        predicted_classes=predicted_classes, referent_classes=referent_classes, conditions=conditions
    )
    conditions = structured_inputs.check_labels("conditions", conditions, CONDITIONS)
    referents = validation.check_ids("referent_classes", referent_classes, integers=False)
    # None: the pronoun is linked to no candidate, and the sentence is left out.
    validation.check_ids("predicted_classes", predicted_classes, integers=False, allow_none=True)
    classes = sorted(set(referents) | {value for value in predicted_classes if value is not None})
    scores: dict = {}
    reasons: dict[str, str] = {}
    cells: dict = {}
    for condition in CONDITIONS:
        counted = [
            (predicted, referent)
            for predicted, referent, value in zip(predicted_classes, referents, conditions)
            if value == condition and predicted is not None
        ]
        for name in classes:
            true_positives = sum(predicted == name and referent == name for predicted, referent in counted)
            false_positives = sum(predicted == name and referent != name for predicted, referent in counted)
            false_negatives = sum(predicted != name and referent == name for predicted, referent in counted)
            key = f"{condition}/{name}"
            scores[key] = safe_div(2 * true_positives, 2 * true_positives + false_positives + false_negatives)
            scores[f"support_{key}"] = sum(referent == name for _, referent in counted)
            cells[key], cells[f"support_{key}"] = (Cell(condition, name), "f1"), (Cell(condition, name), "support")
            reasons[key] = f"no counted {condition} sentence has a {name!r} referent or prediction, so its F1 is 0/0"
        scores[f"num_{condition}"] = len(counted)
        scores[f"num_unlinked_{condition}"] = sum(
            predicted is None and value == condition for predicted, value in zip(predicted_classes, conditions)
        )
    return measure_result("referent_class_f1", scores, reasons, cells=cells)
