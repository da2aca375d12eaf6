"""Are our p-values p-values? Simulated runs on each benchmark's real design.

A simulated model links the pronoun to each candidate with a probability drawn per *unit*
(quadruple, pair, triplet, example; one probability for gold candidates and one for the others, so
units differ in difficulty) and nudged by ``bias`` along the benchmark's bias axis:

  * ``toward_gold`` axes (Counter-GAP and GAP by the names' gender, the pro/anti sets by condition):
    the favoured side links its gold candidate ``bias`` more often and the others ``bias`` less often;
  * ``toward_first`` axes (Winogender by pronoun gender: the occupation; ABC by pronoun gender: the
    subject): the favoured side links the first candidate ``bias`` more often (and the second less).

With ``bias = 0`` the model is unbiased by construction: every instance of a unit is drawn from the
same distribution whatever its gender or condition. Its decisions are scored by the benchmark's own
scoring (so with the real units, groups and pairing), and each headline's significance test is run
as a run would run it. Over many simulated runs the share of p-values below α is the test's
false-positive rate (``bias = 0``) or its power (``bias > 0``). The paired comparison is checked the
same way on two models drawn independently with the same per-unit probabilities and the same bias.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..benchmarks import BENCHMARKS, Benchmark
from ..measures import comparison, resampling

# α: the level a run and a comparison call a p-value significant at, which the rates are counted against.
from ..measures.resampling import SIGNIFICANCE_LEVEL
from . import comparison as run_comparison
from .benchmark_data import default_data_dir, load_part


def calibrated() -> list[str]:
    """The benchmarks whose declaration gives a bias axis, so a biased model can be simulated on them."""
    return [name for name, benchmark in BENCHMARKS.items() if benchmark.bias_axis is not None]


@dataclass
class Design:
    """A benchmark's instances as arrays: their unit, gold links, and signed push per candidate."""

    benchmark: Benchmark
    parts: dict
    unit: np.ndarray  # (instances,) unit index
    gold: np.ndarray  # (instances, candidates) bool
    push: np.ndarray  # (instances, candidates) in {−1, 0, 1}: where ``bias`` moves the link probability
    sizes: list[int]  # instances per part, in part order

    @property
    def num_units(self) -> int:
        return int(self.unit.max()) + 1


def load_design(name: str, data_dir, mirror=None) -> Design:

    benchmark = BENCHMARKS[name]
    axis = benchmark.bias_axis
    if axis is None:
        raise ValueError(f"{name} declares no bias axis, so calibration cannot simulate a biased model on it")
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    parts = {part: load_part(benchmark, *part, data_dir, mirror).to_dict() for part in benchmark.parts}
    units: dict = {}
    unit, gold, push, sizes = [], [], [], []
    for columns in parts.values():
        sizes.append(len(columns["id"]))
        for unit_id, candidates, side in zip(columns[benchmark.unit], columns["candidates"], columns[axis.column]):
            unit.append(units.setdefault(unit_id, len(units)))
            links = [candidate["is_referent"] for candidate in candidates] + [False] * (2 - len(candidates))
            gold.append(links[:2])
            sign = axis.sides.get(side, 0)
            if axis.direction == "toward_gold":
                push.append([sign if link else -sign for link in links[:2]])
            else:
                push.append([sign, -sign])
    return Design(benchmark, parts, np.asarray(unit), np.asarray(gold, dtype=bool), np.asarray(push), sizes)


def unit_probabilities(design: Design, rng: np.random.Generator) -> np.ndarray:
    """Per unit, the link probability of a gold candidate and of another one (units × 2)."""
    return np.column_stack([rng.beta(4.0, 1.5, design.num_units), rng.beta(1.0, 4.0, design.num_units)])


class SectionRowsModel:
    """The unit rows of every section as a function of the decisions, fast where it is exactly linear.

    The rows of most benchmarks are sums over a unit's instances of terms linear in each decision
    (a link is a TP or an FP, an item is linked or not). Where that holds, probing the scoring with
    one decision switched on per unit slot and candidate gives every coefficient, and simulated
    rows cost one product instead of a scoring pass; the linear model is kept only if it reproduces
    the scoring exactly on random decisions. Elsewhere (Counter-GAP's |o − c|, Winogender's answer
    from two links) each simulated run goes through the scoring.
    """

    def __init__(self, design: Design, rng: np.random.Generator):
        self.design = design
        slot = np.zeros(len(design.unit), dtype=int)
        seen = np.zeros(design.num_units, dtype=int)
        for instance, unit in enumerate(design.unit):
            slot[instance], seen[unit] = seen[unit], seen[unit] + 1
        self.slot = slot
        shape = design.gold.shape
        self.constant = self._score(np.zeros(shape, dtype=bool))
        self.effects: dict[tuple[int, int], dict[str, np.ndarray]] = {}
        # The probes below place a unit's coefficients by its index, so every section must span all
        # units in order (not so for WinoBias, whose two sections split the pairs by type).
        self.linear = all(len(rows) == design.num_units for rows in self.constant.values())
        if not self.linear:
            return
        for which in np.ndindex(int(slot.max()) + 1, shape[1]):
            linked = np.zeros(shape, dtype=bool)
            linked[slot == which[0], which[1]] = True
            self.effects[which] = {
                section: rows - self.constant[section] for section, rows in self._score(linked).items()
            }
        self.linear = all(self._check(rng.random(shape) < 0.5) for _ in range(2))

    def _score(self, linked: np.ndarray) -> dict[str, np.ndarray]:
        return {name: unit.rows for name, unit in self.recorded(_split(self.design, linked)).items()}

    def recorded(self, decisions: dict) -> dict[str, resampling.UnitRows]:
        return run_comparison.section_rows(self.design.benchmark, self.design.parts, decisions)

    def _linear_rows(self, linked: np.ndarray) -> dict[str, np.ndarray]:
        rows = {section: constant.copy() for section, constant in self.constant.items()}
        for (slot, candidate), effects in self.effects.items():
            in_slot = self.slot == slot
            on = np.zeros(self.design.num_units)
            on[self.design.unit[in_slot]] = linked[in_slot, candidate]
            for section, effect in effects.items():
                rows[section] += on[:, None] * effect
        return rows

    def _check(self, linked: np.ndarray) -> bool:
        exact, linear = self._score(linked), self._linear_rows(linked)
        return all(np.allclose(exact[section], linear[section], atol=1e-9) for section in exact)

    def rows(self, linked: np.ndarray) -> dict[str, np.ndarray]:
        return self._linear_rows(linked) if self.linear else self._score(linked)

    def paired_rows(self, linked_a: np.ndarray, linked_b: np.ndarray) -> dict[str, tuple | None]:
        """Per section, two runs' rows lined up unit for unit as ``corefbias compare`` lines them up."""
        if self.linear:
            rows_a, rows_b = self._linear_rows(linked_a), self._linear_rows(linked_b)
            return {section: (rows_a[section], rows_b[section]) for section in rows_a}
        units_a = self.recorded(_split(self.design, linked_a))
        units_b = self.recorded(_split(self.design, linked_b))
        return {section: run_comparison.aligned_rows(units_a[section], units_b[section]) for section in units_a}


def _split(design: Design, linked: np.ndarray) -> dict:
    decisions, start = {}, 0
    for part, size in zip(design.parts, design.sizes):
        decisions[part] = linked[start : start + size].tolist()
        start += size
    return decisions


def simulate_links(design: Design, probabilities: np.ndarray, bias: float, rng: np.random.Generator) -> np.ndarray:
    """One simulated run's links (instances × 2)."""
    per_unit = probabilities[design.unit]
    base = np.where(design.gold, per_unit[:, :1], per_unit[:, 1:])
    return rng.random(base.shape) < np.clip(base + bias * design.push, 0.0, 1.0)


def tested_headlines(benchmark: Benchmark, rows: dict[str, resampling.UnitRows]) -> list[tuple[str, str, str, float]]:
    """(section, key, label, null) of each headline that a run reports with a p-value."""
    return [
        (headline.section, headline.key, headline.label, headline.unbiased)
        for headline in benchmark.headlines
        if headline.unbiased is not None and headline.section in rows and headline.key in rows[headline.section].tested
    ]


@dataclass(frozen=True)
class Rate:
    """How often p < α over the simulated runs whose p-value was defined."""

    rejections: int
    runs: int
    undefined: int

    @property
    def rate(self) -> float | None:
        return self.rejections / self.runs if self.runs else None


def _count(p_values: list[float | None]) -> Rate:
    defined = [p for p in p_values if p is not None]
    return Rate(sum(p < SIGNIFICANCE_LEVEL for p in defined), len(defined), len(p_values) - len(defined))


def headline_rates(
    model: SectionRowsModel,
    *,
    bias: float,
    runs: int,
    n_bootstrap: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Rate]:
    """Per headline (``"<section> <key>"``): the share of simulated runs its bootstrap test calls significant.

    Each run's p-value is ``resampling.infer`` on its own bootstrap replicates; the runs share one
    draw of the resampled units (independent of the data, so each p-value is still a bootstrap
    p-value) to keep thousands of runs cheap.
    """
    design = model.design
    rng = np.random.default_rng(seed)
    counts: dict[int, np.ndarray] = {}  # per number of units (WinoBias's two sections each hold half the pairs)
    tested = tested_headlines(design.benchmark, model.recorded(_split(design, design.gold)))
    statistics = {section: unit.statistic for section, unit in model.recorded(_split(design, design.gold)).items()}
    p_values: dict[str, list] = {f"{section} {key}": [] for section, key, _, _ in tested}
    for run in range(runs):
        rows = model.rows(simulate_links(design, unit_probabilities(design, rng), bias, rng))
        for section, key, _, null in tested:
            observed = statistics[section](rows[section].sum(axis=0))[key]
            units = len(rows[section])
            if units not in counts:
                counts[units] = resampling.bootstrap_counts(units, n_bootstrap, rng)
            replicates = statistics[section](counts[units] @ rows[section])[key]
            p_values[f"{section} {key}"].append(resampling.infer(float(observed), replicates, null).p_value)
        if progress is not None:
            progress(run + 1)
    return {name: _count(values) for name, values in p_values.items()}


def comparison_rates(
    model: SectionRowsModel,
    *,
    bias: float,
    bias_b: float | None = None,
    runs: int,
    n_resamples: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Rate]:
    """Per headline: the share of simulated pairs of models whose paired comparison is significant.

    Both models share the per-unit probabilities (item difficulty) and are drawn independently;
    model A has ``bias``, model B ``bias_b`` (default: the same, so the null holds).
    """
    design = model.design
    rng = np.random.default_rng(seed)
    recorded = model.recorded(_split(design, design.gold))
    tested = tested_headlines(design.benchmark, recorded)
    p_values: dict[str, list] = {f"{section} {key}": [] for section, key, _, _ in tested}
    for run in range(runs):
        probabilities = unit_probabilities(design, rng)
        paired = model.paired_rows(
            simulate_links(design, probabilities, bias, rng),
            simulate_links(design, probabilities, bias if bias_b is None else bias_b, rng),
        )
        for section, key, _, _ in tested:
            if paired[section] is None:
                p_values[f"{section} {key}"].append(None)
                continue
            result = comparison.paired_difference(
                *paired[section],
                recorded[section].statistic,
                [key],
                n_resamples=n_resamples,
                seed=seed + run,
            )[key]
            p_values[f"{section} {key}"].append(result.p_value)
        if progress is not None:
            progress(run + 1)
    return {name: _count(values) for name, values in p_values.items()}
