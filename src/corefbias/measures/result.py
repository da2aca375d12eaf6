"""One result object for every measure: :class:`MeasureResult`, built by :func:`measure_result` from the scores a
measure computed, by :func:`from_flat` from a flat result (an ``evaluate`` module's output), and by :func:`from_json`
from a ``results.json`` section (only where a file is read: a run hands its objects on).

Every measure function returns one. It holds each score as an :class:`Estimate` (its value, its confidence
interval and p-value where the measure tests it, and why the data leave any of them undefined), keyed by where it
was measured, a :class:`Cell` (the whole data, a group, a condition, or a group within a condition), and by the
score's name; the unit rows its significance resampled (``unit_rows``, which a paired comparison of two models
resamples again); and what else the measure hands back (``extras``: GAP W-Bias's ``variant`` and ``weights``).

It is also a read-only mapping whose items are the flat dictionary the ``evaluate`` modules return: each score under
its key (``diff``, ``diff/female``, ``pro/muc_recall``), the significance of a tested one under ``<key>_p_value``,
``<key>_ci_low`` and ``<key>_ci_high``, ``undefined`` mapping every ``None`` among them to its reason, then the
extras. Group labels are the caller's text, so two of them can ask for one flat key (a group named
``female_p_value`` and the p-value of group ``female``); the structure keeps both, and the flat view refuses with a
``ValueError`` naming the labels rather than let one value overwrite the other.

A score the data leave undefined is ``None`` with its reason, never NaN, 0 or an infinity.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Mapping
from typing import Any

from .estimate import SIGNIFICANCE_SUFFIXES, Cell, Correlation, Estimate, estimate_of
from .resampling import Inference, UnitRows

__all__ = [
    "SIGNIFICANCE_SUFFIXES",
    "Cell",
    "Estimate",
    "MeasureResult",
    "STRUCTURE_KEY",
    "from_flat",
    "from_json",
    "measure_result",
]

# The key of a results.json section under which its structure lies; no score or extra may take it.
STRUCTURE_KEY = "measure_result"

_SIGNIFICANCE_WORDS = {"p_value": "p-value", "ci_low": "lower CI end", "ci_high": "upper CI end"}

DIFFERENCE_METHODS = ("between_groups", "to_overall")

Entry = tuple[Cell, str, Estimate]


class MeasureResult(Mapping):
    """A measure's scores, structured by where they were measured, and readable as its flat result.

    Measure functions build it with :func:`measure_result`; ``results.json`` stores it with :meth:`to_json`.

    Parameters
    ----------
    measure : str or None
        The measure's name (``pro_anti_diff``); None for a section read from an older ``results.json``.
    estimates : iterable of (Cell, str, Estimate)
        Every score: where it was measured, its name there, and its estimate, in the order the flat view lists them.
    primary : str or None, default None
        The overall score that is the measure's bias score (``diff``), read by :attr:`value`, :attr:`ci`,
        :attr:`p_value` and :meth:`difference`; None for a measure without one.
    extras : mapping, default {}
        What the measure hands back besides scores (``variant``, ``weights``), listed last in the flat view.
    unit_rows : UnitRows or None, default None
        The rows, statistic and tested score keys its bootstrap resampled, so that
        ``unit_rows.statistic(unit_rows.rows.sum(axis=0))[key]`` is the observed score of every tested ``key``.

    Raises
    ------
    ValueError
        If one cell holds a score twice, or ``primary`` is no overall score.

    Examples
    --------
    >>> from corefbias import pro_anti_diff
    >>> result = pro_anti_diff(
    ...     [True, True, True, False, True, False, False, True], [True] * 8, ["pro"] * 4 + ["anti"] * 4,
    ...     groups=["female", "female", "male", "male"] * 2, n_bootstrap=0,
    ... )
    >>> result
    <MeasureResult pro_anti_diff: diff = 0.25, 2 groups>
    >>> result.by_group["female"]["diff"].value, result["diff/female"]
    (0.5, 0.5)
    >>> result.value, result.ci, result.undefined["diff_p_value"]
    (0.25, (None, None), 'significance was not computed (n_bootstrap=0)')
    >>> result.difference().value  # diff/female − diff/male
    0.5
    """

    def __init__(
        self,
        measure: str | None,
        estimates: Iterable[Entry],
        *,
        primary: str | None = None,
        extras: Mapping[str, Any] | None = None,
        unit_rows: UnitRows | None = None,
    ):
        self._measure = measure
        self._entries: tuple[Entry, ...] = tuple(estimates)
        seen: set = set()
        for cell, score, _ in self._entries:
            if (cell, score) in seen:
                raise ValueError(f"{self._name()}: the score {score!r} is given twice {cell.describe()}")
            seen.add((cell, score))
        if primary is not None and (Cell(), primary) not in seen:
            raise ValueError(f"{self._name()}: the primary score {primary!r} is not one of its overall scores")
        self._primary = primary
        self._extras = dict(extras or {})
        self._unit_rows = unit_rows
        self._flat: dict | None = None

    def _name(self) -> str:
        return self._measure or "this result"

    # ----- the structure -----------------------------------------------------------------------------------------

    @property
    def measure(self) -> str | None:
        """The measure's name (None for a section read from a ``results.json`` older than schema version 3)."""
        return self._measure

    @property
    def primary(self) -> str | None:
        """The overall score that is the measure's bias score, or None."""
        return self._primary

    @property
    def extras(self) -> dict[str, Any]:
        """What the measure hands back besides scores (a copy)."""
        return dict(self._extras)

    @property
    def unit_rows(self) -> UnitRows | None:
        """The unit rows its significance resampled (None where it resamples none)."""
        return self._unit_rows

    def estimates(self) -> tuple[Entry, ...]:
        """Every ``(cell, score, estimate)``, in the order the flat view lists them.

        Returns
        -------
        tuple of (Cell, str, Estimate)
        """
        return self._entries

    def estimate(self, score: str, *, group: Hashable | None = None, condition: Hashable | None = None) -> Estimate:
        """The estimate of ``score`` in the given group and condition (both None: overall).

        Parameters
        ----------
        score : str
            The score's name in its cell (``diff``, not ``diff/female``).
        group, condition : label, optional
            Where it was measured.

        Returns
        -------
        Estimate

        Raises
        ------
        KeyError
            If the result holds no such score there; the message lists the scores it holds there.
        """
        cell = Cell(condition, group)
        for where, name, estimate in self._entries:
            if where == cell and name == score:
                return estimate
        held = sorted(name for where, name, _ in self._entries if where == cell)
        raise KeyError(f"{self._name()} has no score {score!r} {cell.describe()}; it has {held or 'none there'}")

    @property
    def overall(self) -> dict[str, Estimate]:
        """Score → estimate, measured on the whole data."""
        return {score: estimate for cell, score, estimate in self._entries if cell == Cell()}

    def _by(self, condition: bool, group: bool) -> dict:
        """The scores of the cells that name a condition (or not) and a group (or not), nested by their labels."""
        found: dict = {}
        for cell, score, estimate in self._entries:
            if (cell.condition is not None, cell.group is not None) == (condition, group):
                labels = [label for label, named in ((cell.condition, condition), (cell.group, group)) if named]
                level = found
                for label in labels[:-1]:
                    level = level.setdefault(label, {})
                level.setdefault(labels[-1], {})[score] = estimate
        return found

    @property
    def by_group(self) -> dict[Hashable, dict[str, Estimate]]:
        """Group → score → estimate, for the scores measured per group (``diff/female``: ``by_group["female"]``)."""
        return self._by(condition=False, group=True)

    @property
    def by_condition(self) -> dict[Hashable, dict[str, Estimate]]:
        """Condition → score → estimate (``pro/muc_recall``: ``by_condition["pro"]["muc_recall"]``)."""
        return self._by(condition=True, group=False)

    @property
    def by_condition_and_group(self) -> dict[Hashable, dict[Hashable, dict[str, Estimate]]]:
        """Condition → group → score → estimate (``anti/female``: ``by_condition_and_group["anti"]["female"]``)."""
        return self._by(condition=True, group=True)

    def _primary_estimate(self) -> Estimate:
        if self._primary is None:
            raise ValueError(
                f"{self._name()} has no single bias score; read its scores with overall, by_group, by_condition or "
                f"estimate(...)"
            )
        return self.overall[self._primary]

    @property
    def value(self) -> float | int | None:
        """The primary score's value."""
        return self._primary_estimate().value

    @property
    def ci(self) -> tuple[float | None, float | None]:
        """The primary score's 95% percentile interval ``(low, high)``."""
        return self._primary_estimate().ci

    @property
    def p_value(self) -> float | None:
        """The primary score's two-sided p-value."""
        return self._primary_estimate().p_value

    @property
    def undefined(self) -> dict[str, str]:
        """Flat key → why it is None, for every score and significance field the data leave undefined."""
        return dict(self._flat_view()["undefined"])

    def difference(self, score: str | None = None, *, method: str = "between_groups") -> Estimate:
        """How much ``score`` (default: the primary score) differs across the groups, as fairlearn's
        ``MetricFrame.difference``: the largest minus the smallest group value (``between_groups``), or the largest
        distance of a group's value from the overall value (``to_overall``).

        Parameters
        ----------
        score : str, optional
            A score measured per group (default: the primary score).
        method : str, default "between_groups"
            ``between_groups`` or ``to_overall``.

        Returns
        -------
        Estimate
            Its value, or None with the reason where a group's value is undefined or there is one group only.

        Raises
        ------
        ValueError
            If ``method`` is unknown or the result holds ``score`` for no group (or, for ``to_overall``, not overall).
        """
        if method not in DIFFERENCE_METHODS:
            raise ValueError(f"unknown method {method!r}; choose one of {list(DIFFERENCE_METHODS)}")
        if score is None:
            score = self._primary_estimate().key
        per_group = {group: scores[score] for group, scores in self.by_group.items() if score in scores}
        if not per_group:
            grouped = sorted({name for scores in self.by_group.values() for name in scores})
            raise ValueError(
                f"{self._name()} measures {score!r} in no group; "
                + (f"it measures {grouped} per group" if grouped else "it measures nothing per group")
            )
        key = f"{score} difference {method.replace('_', ' ')}"
        for estimate in per_group.values():
            if estimate.value is None:
                return Estimate(key, None, undefined=f"{estimate.key} is undefined: {estimate.undefined}")
        values = [estimate.value for estimate in per_group.values()]
        if method == "to_overall":
            if score not in self.overall:
                raise ValueError(f"{self._name()} has no overall {score!r} to measure the groups against")
            overall = self.overall[score]
            if overall.value is None:
                return Estimate(key, None, undefined=f"{overall.key} is undefined: {overall.undefined}")
            return Estimate(key, max(abs(value - overall.value) for value in values))
        if len(values) < 2:
            return Estimate(key, None, undefined=f"{score} is measured in one group only ({next(iter(per_group))!r})")
        return Estimate(key, max(values) - min(values))

    def blanked(self, reason: str) -> MeasureResult:
        """This result with every score that is not a count, and its significance, undefined for ``reason``.

        Counts (integers) describe the data, not the model, and stay; so do the extras.

        Parameters
        ----------
        reason : str
            Why every score is undefined.

        Returns
        -------
        MeasureResult

        Examples
        --------
        >>> result = measure_result("toy", {"accuracy": 0.5, "num_examples": 4})
        >>> dict(result.blanked("no readable answer"))
        {'accuracy': None, 'num_examples': 4, 'undefined': {'accuracy': 'no readable answer'}}
        """
        entries = []
        for cell, score, estimate in self._entries:
            if isinstance(estimate.value, int):
                entries.append((cell, score, estimate))
                continue
            blank = Estimate(
                estimate.key,
                None,
                undefined=reason,
                reported=estimate.reported,
                significance_undefined=dict.fromkeys(estimate.reported, reason),
            )
            entries.append((cell, score, blank))
        return MeasureResult(
            self._measure, entries, primary=self._primary, extras=self._extras, unit_rows=self._unit_rows
        )

    # ----- the flat view ---------------------------------------------------------------------------------------

    def _owner(self, cell: Cell, score: str, significance: str | None) -> str:
        what = score if significance is None else f"the {significance} of {score}"
        return f"{what} {cell.describe()}"

    def _collision(self, key: str, first: tuple, second: tuple) -> str:
        labels = [(cell, score) for cell, score, significance in (first, second) if significance is None]
        renamed = [
            f"{'group' if cell.group is not None else 'condition'} "
            f"{cell.group if cell.group is not None else cell.condition!r}"
            for cell, _ in labels
            if cell != Cell()
        ]
        rename = f"rename {' or '.join(renamed)}" if renamed else "rename one of them"
        return (
            f"{self._name()}: {self._owner(*first)} and {self._owner(*second)} would both have the key {key!r} of the "
            f"flat result (the evaluate module's output), and one would overwrite the other; {rename} so that no label "
            f"ends like another's key (_p_value, _ci_low, _ci_high), or read the structured result (by_group, "
            f"estimate(...)), which keeps both"
        )

    def _flat_view(self) -> dict:
        if self._flat is not None:
            return self._flat
        flat: dict = {}
        owners: dict[str, tuple] = {STRUCTURE_KEY: (Cell(), f"the {STRUCTURE_KEY} of results.json", None)}

        def put(key: str, value, owner: tuple) -> None:
            if key in owners:
                raise ValueError(self._collision(key, owners[key], owner))
            owners[key] = owner
            flat[key] = value

        for cell, score, estimate in self._entries:
            put(estimate.key, estimate.value, (cell, score, None))
        for cell, score, estimate in self._entries:
            for name in estimate.reported:
                put(f"{estimate.key}_{name}", getattr(estimate, name), (cell, score, _SIGNIFICANCE_WORDS[name]))
        # The scores' reasons first, then their significance's, as the flat result always listed them.
        undefined = {}
        for _, _, estimate in self._entries:
            undefined.update({key: reason for key, reason in estimate.reasons().items() if key == estimate.key})
        for _, _, estimate in self._entries:
            undefined.update({key: reason for key, reason in estimate.reasons().items() if key != estimate.key})
        put("undefined", undefined, (Cell(), "undefined", None))
        for name, value in self._extras.items():
            put(name, value, (Cell(), name, None))
        self._flat = flat
        return flat

    def __getitem__(self, key: str):
        return self._flat_view()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._flat_view())

    def __len__(self) -> int:
        return len(self._flat_view())

    def __repr__(self) -> str:
        parts = []
        if self._primary is not None:
            parts.append(f"{self._primary} = {self.overall[self._primary].value!r}")
        else:
            parts.append(f"{len(self.overall)} overall scores")
        for name, count in (
            ("groups", len(self.by_group)),
            ("conditions", len(self.by_condition) or len(self.by_condition_and_group)),
        ):
            if count:
                parts.append(f"{count} {name}")
        return f"<MeasureResult {self._name()}: {', '.join(parts)}>"

    # ----- results.json ----------------------------------------------------------------------------------------

    def structure(self) -> dict:
        """The result's scores keyed by cell and name, each with its flat key, as JSON (``results.json``'s
        ``measure_result``: ``corefbias.harness.result_schema.MeasureResultScores``); labels kept as given, in lists
        rather than as object keys.

        Returns
        -------
        dict
            ``measure``, ``primary``, ``overall``, ``by_group``, ``by_condition``, ``by_condition_and_group``,
            ``extras``.

        Examples
        --------
        >>> result = measure_result("toy", {"diff": 0.5, "diff/a": 1.0}, cells={"diff/a": (Cell(group="a"), "diff")})
        >>> structure = result.structure()
        >>> structure["overall"]
        {'diff': {'key': 'diff', 'value': 0.5, 'undefined': None}}
        >>> structure["by_group"]
        [{'group': 'a', 'scores': {'diff': {'key': 'diff/a', 'value': 1.0, 'undefined': None}}}]
        """
        by_cell: dict[Cell, dict] = {}
        for cell, score, estimate in self._entries:
            by_cell.setdefault(cell, {})[score] = estimate.to_json()
        return {
            "measure": self._measure,
            "primary": self._primary,
            "overall": by_cell.get(Cell(), {}),
            "by_group": [
                {"group": cell.group, "scores": scores}
                for cell, scores in by_cell.items()
                if cell.condition is None and cell.group is not None
            ],
            "by_condition": [
                {"condition": cell.condition, "scores": scores}
                for cell, scores in by_cell.items()
                if cell.condition is not None and cell.group is None
            ],
            "by_condition_and_group": [
                {"condition": cell.condition, "group": cell.group, "scores": scores}
                for cell, scores in by_cell.items()
                if cell.condition is not None and cell.group is not None
            ],
            "extras": dict(self._extras),
        }

    def to_json(self) -> dict:
        """The result as a ``results.json`` section (schema version 3, ``corefbias.harness.result_schema.Section``):
        its flat items, as the ``evaluate`` module returns them, and under ``measure_result`` its
        :meth:`structure`, which :meth:`from_json` reads. Where two labels would collide in the flat view, the
        section holds the structure alone.

        Returns
        -------
        dict

        Examples
        --------
        >>> result = measure_result("toy", {"diff": 0.5, "diff/a": 1.0}, cells={"diff/a": (Cell(group="a"), "diff")})
        >>> section = result.to_json()
        >>> section["diff/a"], section["measure_result"]["by_group"][0]["scores"]["diff"]["value"]
        (1.0, 1.0)
        >>> from_json(section).by_group["a"]["diff"].key, section == result
        ('diff/a', True)
        """
        try:
            flat = dict(self._flat_view())
        except ValueError:  # labels that collide: the structure keeps every score
            flat = {}
        return {**flat, STRUCTURE_KEY: self.structure()}

    def __eq__(self, other) -> bool:
        """Equal to a result with the same structure and extras, to its ``results.json`` section, and to its flat
        dict."""
        if isinstance(other, MeasureResult):
            return self.structure() == other.structure()
        if isinstance(other, Mapping):
            if STRUCTURE_KEY in other:
                return self.to_json() == dict(other)
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None


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
