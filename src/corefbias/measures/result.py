"""One result object for every measure: :class:`MeasureResult`, holding each of its scores as an :class:`Estimate`.

An :class:`Estimate` is one score: its value, its confidence interval and p-value where the measure tests it, why
the data leave any of them undefined, the blocks its bootstrap rests on, and, for a benchmark's headline, what a
model without the bias scores. Every measure builds each score with :func:`estimate_of` and its result with
:func:`measure_result`; the run, ``results.json``, ``summary.csv``, the report, the Space and ``compare`` hand the
same objects on (``corefbias.measures.stored_results`` reads them back from a file).

A :class:`MeasureResult` keys each estimate by where it was measured, a :class:`Cell` (the whole data, a group, a
condition, or a group within a condition), and by the score's name; it keeps the unit rows its significance
resampled (``unit_rows``, which a paired comparison of two models resamples again) and what else the measure hands
back (``extras``: GAP W-Bias's ``variant`` and ``weights``).

It is also a read-only mapping whose items are the flat dictionary the ``evaluate`` modules return: each score under
its key (``diff``, ``diff/female``, ``pro/muc_recall``), the significance of a tested one under ``<key>_p_value``,
``<key>_ci_low`` and ``<key>_ci_high``, ``undefined`` mapping every ``None`` among them to its reason, then the
extras. Group labels are the caller's text, so two of them can ask for one flat key (a group named
``female_p_value`` and the p-value of group ``female``); the structure keeps both, and the flat view refuses with a
``ValueError`` naming the labels rather than let one value overwrite the other.

A score the data leave undefined is ``None`` with its reason, never NaN, 0 or an infinity.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from .resampling import SIGNIFICANCE_LEVEL, Inference, UnitRows

__all__ = [
    "SIGNIFICANCE_SUFFIXES",
    "Cell",
    "Correlation",
    "Estimate",
    "MeasureResult",
    "STRUCTURE_KEY",
    "estimate_of",
    "measure_result",
]

SIGNIFICANCE_SUFFIXES = ("p_value", "ci_low", "ci_high")
"""The significance fields of a tested score, in the order the flat view lists them as ``<key>_<field>``."""


class Cell(NamedTuple):
    """Where a score was measured: the whole data (both ``None``), a group, a condition, or a group within a
    condition.

    Examples
    --------
    >>> Cell(), Cell(group="female"), Cell(condition="anti", group="male")
    (Cell(condition=None, group=None), Cell(condition=None, group='female'), Cell(condition='anti', group='male'))
    """

    condition: Hashable | None = None
    group: Hashable | None = None

    def describe(self) -> str:
        """The cell in words, for messages.

        Returns
        -------
        str

        Examples
        --------
        >>> Cell().describe(), Cell(group="female").describe(), Cell("pro", 3).describe()
        ('overall', "in group 'female'", "in condition 'pro', group 3")
        """
        if self.condition is None and self.group is None:
            return "overall"
        parts = [f"condition {self.condition!r}"] if self.condition is not None else []
        parts += [f"group {self.group!r}"] if self.group is not None else []
        return "in " + ", ".join(parts)


class Correlation(NamedTuple):
    """A correlation coefficient with its own test: two-sided p-value and 95% interval (NaN where undefined).

    Examples
    --------
    >>> Correlation(0.5, 0.01, 0.2, 0.7).p_value
    0.01
    """

    r: float
    p_value: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class Estimate:
    """One score: its value, its interval and p-value where tested, and why any of them is undefined.

    Parameters
    ----------
    key : str
        The score's key in the flat result (``diff/female``); its significance keys are ``<key>_<field>``.
    value : float, int or None
        The score (an ``int`` for a count); None where the data leave it undefined.
    ci_low, ci_high : float or None, default None
        The ends of its 95% percentile bootstrap interval.
    p_value : float or None, default None
        Its two-sided p-value (a bootstrap against the measure's null, or the test a measure names, e.g. Pearson's).
    undefined : str or None, default None
        Why ``value`` is None.
    reported : tuple of str, default ()
        The significance fields the result reports for it (``SIGNIFICANCE_SUFFIXES`` for a score the bootstrap
        tests, ``("p_value",)`` for a correlation); the others are neither computed nor listed.
    significance_undefined : mapping of str to str, default {}
        Each reported field left None → why.
    n_blocks : int or None, default None
        How many blocks (templates, occupations, documents: ``corefbias.measures.blocks``) its bootstrap interval
        and p-value rest on; None where no bootstrap tested it.
    unbiased : float or None, default None
        What a model without the bias scores, where the score is a bias score its benchmark headlines (0 for a
        difference, 1 for a ratio: ``Headline.unbiased``); None otherwise.

    Examples
    --------
    >>> estimate = Estimate("diff", 0.25, ci_low=0.1, ci_high=0.4, p_value=0.01, reported=SIGNIFICANCE_SUFFIXES)
    >>> estimate
    Estimate('diff', 0.25, ci=(0.1, 0.4), p_value=0.01)
    >>> estimate.ci, estimate.flat()
    ((0.1, 0.4), {'diff': 0.25, 'diff_p_value': 0.01, 'diff_ci_low': 0.1, 'diff_ci_high': 0.4})
    """

    key: str
    value: float | int | None
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    undefined: str | None = None
    reported: tuple[str, ...] = ()
    significance_undefined: Mapping[str, str] = field(default_factory=dict)
    n_blocks: int | None = None
    unbiased: float | None = None

    @property
    def ci(self) -> tuple[float | None, float | None]:
        """``(ci_low, ci_high)``."""
        return self.ci_low, self.ci_high

    @property
    def significant(self) -> bool | None:
        """Whether its p-value is below ``SIGNIFICANCE_LEVEL`` (None: no p-value)."""
        return None if self.p_value is None else self.p_value < SIGNIFICANCE_LEVEL

    def __repr__(self) -> str:
        parts = [repr(self.key), repr(self.value)]
        if "ci_low" in self.reported:
            parts.append(f"ci={self.ci!r}")
        if "p_value" in self.reported:
            parts.append(f"p_value={self.p_value!r}")
        if self.undefined is not None:
            parts.append(f"undefined={self.undefined!r}")
        return f"Estimate({', '.join(parts)})"

    def flat(self) -> dict[str, float | int | None]:
        """The score and its reported significance under their flat keys.

        Returns
        -------
        dict
            ``{key: value, "<key>_p_value": ..., ...}`` for the reported fields.
        """
        return {self.key: self.value, **{f"{self.key}_{name}": getattr(self, name) for name in self.reported}}

    def reasons(self) -> dict[str, str]:
        """Flat key → why it is None, for the score and each reported significance field left None.

        Returns
        -------
        dict of str to str
        """
        found = {} if self.value is not None or self.undefined is None else {self.key: self.undefined}
        for name in self.reported:
            if getattr(self, name) is None and name in self.significance_undefined:
                found[f"{self.key}_{name}"] = self.significance_undefined[name]
        return found

    def to_json(self) -> dict:
        """The estimate as ``results.json`` holds it (``corefbias.harness.result_schema.EstimateScores``).

        Returns
        -------
        dict
            ``key``, ``value``, ``undefined``, the reported significance fields with their reasons, ``n_blocks``
            where a bootstrap tested it, and ``unbiased_value`` where it is a bias score.
        """
        data: dict[str, Any] = {"key": self.key, "value": self.value, "undefined": self.undefined}
        if self.reported:
            data.update({name: getattr(self, name) for name in self.reported})
            data["significance_undefined"] = dict(self.significance_undefined)
        if self.n_blocks is not None:
            data["n_blocks"] = self.n_blocks
        if self.unbiased is not None:
            data["unbiased_value"] = self.unbiased
        return data

    @classmethod
    def from_json(cls, data: Mapping) -> Estimate:
        """The estimate :meth:`to_json` wrote.

        Parameters
        ----------
        data : mapping
            What :meth:`to_json` returned (or ``results.json`` holds: also a headline, whose significance fields
            files before schema version 6 held whether or not the score reported them).

        Returns
        -------
        Estimate

        Examples
        --------
        >>> estimate = Estimate("diff", 0.25, p_value=0.01, reported=("p_value",), unbiased=0.0)
        >>> Estimate.from_json(estimate.to_json()) == estimate, estimate.significant
        (True, True)
        """
        reported = tuple(name for name in SIGNIFICANCE_SUFFIXES if name in data)
        return cls(
            data["key"],
            data["value"],
            **{name: data[name] for name in reported},
            undefined=data.get("undefined"),
            reported=reported,
            significance_undefined=dict(data.get("significance_undefined") or {}),
            n_blocks=data.get("n_blocks"),
            unbiased=data.get("unbiased_value"),
        )


def _number(value) -> float | int | None:
    """A score as results hold it: an ``int`` for a count, a finite ``float``, or None (not finite, or None)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return int(value)
    number = None if value is None else float(value)
    return number if number is not None and math.isfinite(number) else None


def _significance_reason(key: str, defined: bool, n_bootstrap: int, given: str | None) -> str:
    """Why a bootstrap p-value or interval end of the score with flat key ``key`` is None."""
    if n_bootstrap == 0:
        return "significance was not computed (n_bootstrap=0)"
    if given is not None:
        return given
    if not defined:
        return f"{key} itself is undefined"
    return f"{key} is undefined on every bootstrap resample"


def estimate_of(
    key: str,
    raw,
    *,
    reason: str | None = None,
    inference: Inference | None = None,
    n_bootstrap: int = 0,
    correlation: Correlation | None = None,
    p_value_reason: str | None = None,
) -> Estimate:
    """One score's estimate, as every measure builds it: its value, its bootstrap significance or, for a
    correlation, its own test's, and the reasons any of them is undefined.

    Parameters
    ----------
    key : str
        The score's flat key.
    raw : number or None
        The computed score; an integer stays a count, a non-finite value is undefined.
    reason : str, optional
        Why the score can be undefined (default: a zero denominator).
    inference : Inference, optional
        Its bootstrap p-value and interval: the estimate then reports all three (``SIGNIFICANCE_SUFFIXES``).
    n_bootstrap : int, default 0
        The resamples the inference came from (0: significance off).
    correlation : Correlation, optional
        The score is a correlation: its own test's p-value and interval are reported (Pearson's r).
    p_value_reason : str, optional
        Why the p-value can be undefined (a score with no null); for a correlation, why its test is.

    Returns
    -------
    Estimate

    Examples
    --------
    >>> estimate_of("diff", 0.25, inference=Inference(0.01, 0.1, 0.4, 1000), n_bootstrap=1000)
    Estimate('diff', 0.25, ci=(0.1, 0.4), p_value=0.01)
    >>> estimate_of("ratio", float("nan"), reason="the male accuracy is 0")
    Estimate('ratio', None, undefined='the male accuracy is 0')
    >>> nan = float("nan")
    >>> r = estimate_of("r", nan, correlation=Correlation(nan, nan, nan, nan), p_value_reason="fewer than 3 points")
    >>> r.significance_undefined["ci_low"]
    'fewer than 3 points'
    >>> estimate_of("r", 0.5, correlation=Correlation(0.5, 0.01, 0.2, 0.7))
    Estimate('r', 0.5, ci=(0.2, 0.7), p_value=0.01)
    """
    value = _number(raw)
    estimate = Estimate(
        key, value, undefined=None if value is not None else reason or f"{key} has a zero denominator for these inputs"
    )
    if inference is not None:
        fields = {name: getattr(inference, name) for name in SIGNIFICANCE_SUFFIXES}
        why = {
            name: _significance_reason(
                key,
                value is not None,
                n_bootstrap,
                p_value_reason if name == "p_value" and p_value_reason is not None else inference.reason,
            )
            for name, found in fields.items()
            if found is None
        }
        return replace(
            estimate,
            **fields,
            reported=SIGNIFICANCE_SUFFIXES,
            significance_undefined=why,
            n_blocks=inference.n_blocks if n_bootstrap else None,
        )
    if correlation is not None:
        fields = {name: _number(getattr(correlation, name)) for name in SIGNIFICANCE_SUFFIXES}
        why = {name: p_value_reason or f"{key} itself is undefined" for name, found in fields.items() if found is None}
        return replace(estimate, **fields, reported=SIGNIFICANCE_SUFFIXES, significance_undefined=why)
    return estimate


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
        its flat items, as the ``evaluate`` module returns them, and under ``measure_result`` its :meth:`structure`,
        which ``stored_results.from_json`` reads. Where two labels would collide in the flat view, the section holds
        the structure alone.

        Returns
        -------
        dict

        Examples
        --------
        >>> result = measure_result("toy", {"diff": 0.5, "diff/a": 1.0}, cells={"diff/a": (Cell(group="a"), "diff")})
        >>> section = result.to_json()
        >>> section["diff/a"], section["measure_result"]["by_group"][0]["scores"]["diff"]["value"]
        (1.0, 1.0)
        >>> from corefbias.measures.stored_results import from_json
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
