"""Building a :class:`~corefbias.measures.result.MeasureResult`: from the scores a measure computed
(:func:`measure_result`, as every measure function does), and from a flat result (:func:`from_flat`: an ``evaluate``
module's output, or a section of a ``results.json`` of schema version 1 or 2), and from a ``results.json``
section (:func:`from_json`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .estimate import SIGNIFICANCE_SUFFIXES, Cell, Correlation, Estimate, estimate_of
from .resampling import Inference, UnitRows
from .result import STRUCTURE_KEY, MeasureResult


def _is_score_value(value) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def measure_result(
    measure: str,
    scores: Mapping[str, Any],
    reasons: Mapping[str, str] | None = None,
    inferences: Mapping[str, Inference] | None = None,
    *,
    n_bootstrap: int = 0,
    cells: Mapping[str, tuple[Cell, str]] | None = None,
    primary: str | None = None,
    correlations: Mapping[str, Correlation] | None = None,
    significance_reasons: Mapping[str, str] | None = None,
    extras: Mapping[str, Any] | None = None,
    unit_rows: UnitRows | None = None,
) -> MeasureResult:
    """A measure's :class:`MeasureResult` from its computed scores, as every measure function builds it.

    Parameters
    ----------
    measure : str
        The measure's name, for messages and ``results.json``.
    scores : mapping of str to number or None
        Flat key → score (a count as an ``int``); a non-finite or None score is undefined.
    reasons : mapping of str to str, optional
        Flat key → why that score can be undefined, consulted where it is; the default reason names a zero
        denominator.
    inferences : mapping of str to Inference, optional
        Flat key → the bootstrap's p-value and interval of a tested score (``resampling.bootstrap_test``).
    n_bootstrap : int, default 0
        The resamples the inferences came from (0: significance off, which the reasons say).
    cells : mapping of str to (Cell, str), optional
        Flat key → where the score was measured and its name there, for the scores not measured overall (a key not
        named here is an overall score of that name).
    primary : str, optional
        The overall score that is the measure's bias score.
    correlations : mapping of str to Correlation, optional
        Flat key → a correlation's own test (Pearson's r): its p-value and interval are reported as the key's.
    significance_reasons : mapping of str to str, optional
        Flat key → why that score's p-value can be undefined (a score with no null to test; a correlation).
    extras : mapping, optional
        What the measure hands back besides scores.
    unit_rows : UnitRows, optional
        The unit rows its bootstrap resampled.

    Returns
    -------
    MeasureResult

    Examples
    --------
    A score per group and a count; the bootstrap was off:

    >>> from corefbias.measures.resampling import Inference
    >>> result = measure_result(
    ...     "toy",
    ...     {"diff": 0.25, "diff/a": float("nan"), "num_pairs": 4},
    ...     {"diff/a": "group 'a' has no anti examples"},
    ...     {"diff": Inference(None, None, None, 0)},
    ...     cells={"diff/a": (Cell(group="a"), "diff")},
    ...     primary="diff",
    ... )
    >>> result.by_group["a"]["diff"].undefined
    "group 'a' has no anti examples"
    >>> dict(result)  # doctest: +NORMALIZE_WHITESPACE
    {'diff': 0.25, 'diff/a': None, 'num_pairs': 4, 'diff_p_value': None, 'diff_ci_low': None, 'diff_ci_high': None,
     'undefined': {'diff/a': "group 'a' has no anti examples",
                   'diff_p_value': 'significance was not computed (n_bootstrap=0)',
                   'diff_ci_low': 'significance was not computed (n_bootstrap=0)',
                   'diff_ci_high': 'significance was not computed (n_bootstrap=0)'}}
    """
    reasons = reasons or {}
    inferences = inferences or {}
    correlations = correlations or {}
    significance_reasons = significance_reasons or {}
    cells = cells or {}
    entries = []
    for key, raw in scores.items():
        estimate = estimate_of(
            key,
            raw,
            reason=reasons.get(key),
            inference=inferences.get(key),
            n_bootstrap=n_bootstrap,
            correlation=correlations.get(key),
            p_value_reason=significance_reasons.get(key),
        )
        cell, score = cells.get(key, (Cell(), key))
        entries.append((cell, score, estimate))
    return MeasureResult(measure, entries, primary=primary, extras=extras, unit_rows=unit_rows)


def from_flat(section: Mapping, *, measure: str | None = None) -> MeasureResult:
    """A flat result (an ``evaluate`` module's output, or a ``results.json`` section of schema version 1 or 2)
    as a result object.

    A flat result does not say which of its keys name groups, so every score is read as an overall score
    under its flat key; ``<key>_p_value``, ``<key>_ci_low`` and ``<key>_ci_high`` become the significance of
    ``<key>`` where it is there, and keys that hold no number (lists, names) the extras. Its flat view is the
    section itself.

    Parameters
    ----------
    section : mapping
        The flat dict.
    measure : str, optional
        The measure's name, where known.

    Returns
    -------
    MeasureResult

    Raises
    ------
    ValueError
        If ``undefined`` names a key the section does not hold.

    Examples
    --------
    >>> section = {"diff": 0.25, "diff_p_value": 0.01, "spearman_p_value": None, "variant": "w",
    ...            "undefined": {"spearman_p_value": "ρ is undefined"}}
    >>> result = from_flat(section)
    >>> result.overall["diff"].p_value, result.overall["spearman_p_value"].undefined, result.extras
    (0.01, 'ρ is undefined', {'variant': 'w'})
    >>> dict(result) == section
    True
    """
    reasons = dict(section.get("undefined") or {})
    numbers = [key for key, value in section.items() if key != "undefined" and _is_score_value(value)]
    significance: dict[str, dict[str, str]] = {}
    for key in numbers:
        for name in SIGNIFICANCE_SUFFIXES:
            base = key.removesuffix(f"_{name}")
            if base != key and base in numbers:
                significance.setdefault(base, {})[name] = key
    tested = {key for names in significance.values() for key in names.values()}
    entries = []
    used = set()
    for key in numbers:
        if key in tested:
            continue
        keys = significance.get(key, {})
        reported = tuple(name for name in SIGNIFICANCE_SUFFIXES if name in keys)
        estimate = Estimate(
            key,
            section[key],
            **{name: section[keys[name]] for name in reported},
            undefined=reasons.get(key),
            reported=reported,
            significance_undefined={name: reasons[keys[name]] for name in reported if keys[name] in reasons},
        )
        used.update([key, *keys.values()])
        entries.append((Cell(), key, estimate))
    stray = [key for key in reasons if key not in used]
    if stray:
        raise ValueError(f"the result's undefined names {stray[0]!r}, which it holds no number for")
    extras = {key: value for key, value in section.items() if key != "undefined" and key not in numbers}
    return MeasureResult(measure, entries, extras=extras)


def from_json(section: Mapping) -> MeasureResult:
    """The result of a ``results.json`` section: the structure ``MeasureResult.to_json`` wrote under ``measure_result``,
    or, for a flat section (schema versions 1 and 2; a flat dict of scores), :func:`from_flat` of it.

    Parameters
    ----------
    section : mapping
        A ``results.json`` section, or a flat dict of scores.

    Returns
    -------
    MeasureResult
        Without unit rows, which results.json does not keep.

    Raises
    ------
    ValueError
        If the section's ``measure_result`` is not the structure ``MeasureResult.structure`` writes.

    Examples
    --------
    >>> stored = measure_result("m", {"acc": 0.5}, primary="acc").to_json()
    >>> from_json(stored).value, from_json({"acc": 0.5}).overall["acc"].value
    (0.5, 0.5)
    """
    if STRUCTURE_KEY not in section:
        return from_flat(section)
    structure = section[STRUCTURE_KEY]
    try:
        cells = [(Cell(), structure["overall"])]
        cells += [(Cell(group=item["group"]), item["scores"]) for item in structure["by_group"]]
        cells += [(Cell(condition=item["condition"]), item["scores"]) for item in structure["by_condition"]]
        cells += [
            (Cell(item["condition"], item["group"]), item["scores"]) for item in structure["by_condition_and_group"]
        ]
        entries = [(cell, score, Estimate.from_json(data)) for cell, scores in cells for score, data in scores.items()]
        return MeasureResult(structure["measure"], entries, primary=structure["primary"], extras=structure["extras"])
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(
            f"the section's {STRUCTURE_KEY} is not a measure's result (scores by cell): {type(error).__name__} {error}"
        ) from None
