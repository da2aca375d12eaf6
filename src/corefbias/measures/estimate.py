"""One score of a measure: :class:`Estimate` (its value, interval, p-value and the reasons any is undefined), where
it was measured (:class:`Cell`), and :func:`estimate_of`, which every measure's result builds each score with
(``corefbias.measures.result``)."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from .resampling import SIGNIFICANCE_LEVEL, Inference

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
