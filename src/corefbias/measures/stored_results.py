"""A measure's result read back: :func:`from_flat` of a flat result (an ``evaluate`` module's output, or a
``results.json`` section of schema version 1 or 2) and :func:`from_json` of a ``results.json`` section. A run hands
its result objects on (``corefbias.measures.result``); only a reader of a file rebuilds them here.
"""

from __future__ import annotations

from collections.abc import Mapping

from .result import SIGNIFICANCE_SUFFIXES, STRUCTURE_KEY, Cell, Estimate, MeasureResult


def _is_score_value(value) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


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
    """The result of a ``results.json`` section: the structure :meth:`MeasureResult.to_json` wrote under
    ``measure_result``, or, for a flat section (schema versions 1 and 2), :func:`from_flat` of it.

    Parameters
    ----------
    section : mapping
        A ``results.json`` section, or a flat dict of scores.

    Returns
    -------
    MeasureResult
        Without unit rows, which results.json does not keep; its flat view is the section's flat keys as the file
        holds them (where it holds them), so that a reader can check them against the structure.

    Raises
    ------
    ValueError
        If the section's ``measure_result`` is not the structure ``MeasureResult.structure`` writes.

    Examples
    --------
    >>> from corefbias.measures.result import measure_result
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
        result = MeasureResult(structure["measure"], entries, primary=structure["primary"], extras=structure["extras"])
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(
            f"the section's {STRUCTURE_KEY} is not a measure's result (scores by cell): {type(error).__name__} {error}"
        ) from None
    result._flat = {key: value for key, value in section.items() if key != STRUCTURE_KEY} or None
    return result
