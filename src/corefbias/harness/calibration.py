"""Are our p-values p-values when a model's behaviour varies by template? Simulated runs on each benchmark's real
design, its blocks included.

A simulated model answers every instance with a probability built, on the logit scale, of

* the **unit's difficulty**: one draw per unit (a pair, a template with its pronoun sets, a triplet) for its gold
  candidates and one for the others, shared by every instance of the unit;
* the **blocks' effects**: per level of every blocking factor the benchmark declares (``Benchmark.blocks``: the
  occupation, the template and the declaration, the book), one draw shared by all its instances, and one per level and
  *side* (each value of the bias axis's column: he, she, they, xe; pro, anti; male, female), so that within a block one
  side can do better and in another block worse, as a real model treats the nurse's templates alike and the nurse's
  xe templates alike (not where the axis says a difference between sides is itself the bias: ``BiasAxis.sides_vary``,
  Counter-GAP's inconsistency across gender swaps). Their variance ``σ² = ICC / (1 − ICC) · π² / 3``, split evenly
  over the draws, makes ``ICC`` the latent intra-block correlation (:data:`ICC_LEVELS`); it moves a gold candidate's
  link up and the others' down (``toward_gold`` axes) or the first candidate's up and the second's down
  (``toward_first``);
* the **bias**: ``bias`` added to the link probability of the favoured side along the bias axis and subtracted on the
  other (0: the null; the block effects are then equal in distribution on every side, so no side is better in the
  population of blocks).

A set whose instances offer more than two candidates (the fill-in sets' words, GICoref's people) is answered by one
*choice*: the gold candidate with its probability, else one of the others at random (with no gold candidate, none
with that probability). Its decisions are scored by the benchmark's own scoring (its real units, blocks, groups and
pairing), and each headline's test is run two ways: as a run now runs it (``blocks``: the blocks drawn whole,
intervals and p-values expanded for how few they are) and as every run did before blocks (``units``: the units
drawn one by one, the plain percentile p-value). Over many runs the share of p-values below α is the test's
false-positive rate (``bias = 0``) or its power. The paired comparison is checked the same way on two models
sharing their units' difficulty but drawing their block effects apart (two models treat templates differently):
``blocks`` is ``corefbias compare``'s paired bootstrap by blocks, ``units`` the approximate randomization test over
units it ran before.
"""

from __future__ import annotations

import itertools
import math
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

# Latent intra-block correlations of the simulated models: none, moderate and strong.
ICC_LEVELS = {"none": 0.0, "moderate": 0.1, "strong": 0.3}
# How a test is run: as a run runs it now (whole blocks, expanded) and as it was run before blocks (units, plain).
METHODS = ("units", "blocks")


def calibrated() -> list[str]:
    """The benchmarks whose declaration gives a bias axis, so a biased model can be simulated on them."""
    return [name for name, benchmark in BENCHMARKS.items() if benchmark.bias_axis is not None]


def block_sigma(icc: float) -> float:
    """The standard deviation, on the logit scale, of the block effects that make the latent intra-block
    correlation ``icc`` (a logistic model's residual variance is π² / 3).

    Examples
    --------
    >>> block_sigma(0.0), round(block_sigma(0.3), 3)
    (0.0, 1.187)
    """
    return math.sqrt(icc / (1.0 - icc) * math.pi**2 / 3.0)


@dataclass
class Design:
    """A benchmark's instances as arrays: their unit, blocks, side, gold links, and how the bias and the block
    effects move each candidate."""

    benchmark: Benchmark
    parts: dict
    unit: np.ndarray  # (instances,) unit index
    levels: np.ndarray  # (instances, factors) level of each blocking factor (the unit itself without blocks)
    side: np.ndarray  # (instances,) index of the bias axis column's value
    gold: np.ndarray  # (instances, candidates) bool
    present: np.ndarray  # (instances, candidates) bool: the instance has that candidate
    push: np.ndarray  # (instances, candidates) in {−1, 0, 1}: where ``bias`` moves the link probability
    direction: np.ndarray  # (instances, candidates) ±1: where the block effects move each candidate's link
    choice: bool  # answered by one choice among the candidates (more than two offered)
    sizes: list[int]  # instances per part, in part order

    @property
    def num_units(self) -> int:
        return int(self.unit.max()) + 1


def load_design(name: str, data_dir, mirror=None) -> Design:
    """The design of benchmark ``name`` from its exported set.

    Raises
    ------
    ValueError
        If the benchmark declares no bias axis.
    """
    benchmark = BENCHMARKS[name]
    axis = benchmark.bias_axis
    if axis is None:
        raise ValueError(f"{name} declares no bias axis, so calibration cannot simulate a biased model on it")
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    parts = {part: load_part(benchmark, *part, data_dir, mirror).to_dict() for part in benchmark.parts}
    units: dict = {}
    sides: dict = {}
    unit, blocks, side, candidates, sizes = [], [], [], [], []
    blocks_of = None if benchmark.blocks is None else benchmark.blocks.ids_by_part(parts, list(parts))
    for part, columns in parts.items():
        sizes.append(len(columns["id"]))
        block_ids = columns[benchmark.unit] if blocks_of is None else blocks_of[part]
        for unit_id, block, listed, value in zip(
            columns[benchmark.unit], block_ids, columns["candidates"], columns[axis.column]
        ):
            unit.append(units.setdefault(unit_id, len(units)))
            blocks.append(block if isinstance(block, tuple) else (block,))
            side.append(sides.setdefault(value, len(sides)))
            candidates.append([candidate["is_referent"] for candidate in listed])
    width = max(2, max(map(len, candidates)))
    present = np.array([[index < len(links) for index in range(width)] for links in candidates])
    gold = np.array([links + [False] * (width - len(links)) for links in candidates])
    levels = np.column_stack(
        [np.unique(np.asarray(column, dtype=str), return_inverse=True)[1].ravel() for column in zip(*blocks)]
    )
    sign = np.array([axis.sides.get(value, 0) for value in sides])[np.asarray(side)]
    if axis.direction == "toward_gold":
        direction = np.where(gold, 1, -1)
        push = sign[:, None] * direction
    else:
        direction = np.tile(np.where(np.arange(width) == 0, 1, -1), (len(gold), 1))
        push = sign[:, None] * np.where(np.arange(width) == 0, 1, np.where(np.arange(width) == 1, -1, 0))
    return Design(
        benchmark,
        parts,
        np.asarray(unit),
        levels,
        np.asarray(side),
        gold,
        present,
        push * present,
        direction * present,
        width > 2,
        sizes,
    )


@dataclass(frozen=True)
class Behaviour:
    """One simulated model's tendencies: per unit the logits of linking a gold and another candidate, per instance
    the effect of its blocks."""

    base: np.ndarray  # (units, 2)
    effect: np.ndarray  # (instances,)


def unit_difficulty(design: Design, rng: np.random.Generator) -> np.ndarray:
    """Per unit, the logit of linking a gold candidate and another one (units × 2), as the earlier calibration drew
    them: Beta(4, 1.5) and Beta(1, 4) probabilities."""
    probabilities = np.column_stack([rng.beta(4.0, 1.5, design.num_units), rng.beta(1.0, 4.0, design.num_units)])
    probabilities = np.clip(probabilities, 1e-6, 1 - 1e-6)
    return np.log(probabilities / (1.0 - probabilities))


def draw_behaviour(design: Design, icc: float, rng: np.random.Generator, base: np.ndarray | None = None) -> Behaviour:
    """A simulated model: its units' difficulty (``base``, drawn where not given) and its block effects at the
    latent intra-block correlation ``icc``."""
    base = unit_difficulty(design, rng) if base is None else base
    effect = np.zeros(len(design.unit))
    sigma = block_sigma(icc)
    if sigma > 0:
        factors = design.levels.shape[1]
        sides = int(design.side.max()) + 1
        by_sides = design.benchmark.bias_axis.sides_vary
        for factor in range(factors):
            level = design.levels[:, factor]
            main = rng.normal(size=int(level.max()) + 1)
            by_side = rng.normal(size=(int(level.max()) + 1, sides))
            effect += main[level] + (by_side[level, design.side] if by_sides else 0.0)
        effect *= sigma / math.sqrt((2 if by_sides else 1) * factors)
    return Behaviour(base, effect)


def link_probabilities(design: Design, behaviour: Behaviour, bias: float) -> np.ndarray:
    """Per instance and candidate, the probability of linking it (instances × candidates)."""
    per_unit = behaviour.base[design.unit]
    logits = np.where(design.gold, per_unit[:, :1], per_unit[:, 1:]) + behaviour.effect[:, None] * design.direction
    return np.clip(1.0 / (1.0 + np.exp(-logits)) + bias * design.push, 0.0, 1.0) * design.present


def simulate_links(design: Design, behaviour: Behaviour, bias: float, rng: np.random.Generator) -> np.ndarray:
    """One simulated run's links (instances × candidates): independent links, or one choice where more than two
    candidates are offered."""
    probabilities = link_probabilities(design, behaviour, bias)
    if not design.choice:
        return rng.random(probabilities.shape) < probabilities
    has_gold = design.gold.any(axis=1)
    right = np.where(has_gold, (probabilities * design.gold).sum(axis=1), 1.0 / (1.0 + np.exp(-behaviour.effect)))
    chosen_right = rng.random(len(right)) < right
    others = design.present & ~design.gold
    # One of the other candidates at random: the largest of uniform keys over them.
    keys = np.where(others, rng.random(others.shape), -1.0)
    other = np.argmax(keys, axis=1)
    links = np.zeros(design.gold.shape, dtype=bool)
    rows = np.arange(len(right))
    links[rows[chosen_right & has_gold], np.argmax(design.gold, axis=1)[chosen_right & has_gold]] = True
    wrong = ~chosen_right & others.any(axis=1)
    links[rows[wrong], other[wrong]] = True
    return links


class SectionRowsModel:
    """The unit rows of every section as a function of the decisions, fast where it is exactly linear.

    The rows of most benchmarks are sums over a unit's instances of terms linear in each decision
    (a link is a TP or an FP, an item is linked or not, a word chosen is right or not). Where that holds, probing the
    scoring with one decision switched on per unit slot and candidate gives every coefficient, and simulated
    rows cost one product instead of a scoring pass; the linear model is kept only if it reproduces
    the scoring exactly on random decisions of the kind the simulation makes. Elsewhere (Counter-GAP's |o − c|,
    Winogender's answer from two links, a pair left out by its answers) each simulated run goes through the scoring.
    """

    def __init__(self, design: Design, rng: np.random.Generator):
        self.design = design
        slot = np.zeros(len(design.unit), dtype=int)
        seen = np.zeros(design.num_units, dtype=int)
        for instance, unit in enumerate(design.unit):
            slot[instance], seen[unit] = seen[unit], seen[unit] + 1
        self.slot = slot
        shape = design.gold.shape
        self.gold_rows = self.recorded(_split(design, design.gold))
        self.constant = self._score(np.zeros(shape, dtype=bool))
        self.effects: dict[tuple[int, int], dict[str, np.ndarray]] = {}
        self.row_units = self._row_units()
        self.linear = self.row_units is not None
        if not self.linear:
            return
        for which in np.ndindex(int(slot.max()) + 1, shape[1]):
            linked = np.zeros(shape, dtype=bool)
            linked[(slot == which[0]) & design.present[:, which[1]], which[1]] = True
            if not linked.any():
                continue
            scored = self._score(linked)
            if any(rows.shape != self.constant[section].shape for section, rows in scored.items()):
                self.linear = False  # which units a section keeps depends on the answers
                return
            self.effects[which] = {section: rows - self.constant[section] for section, rows in scored.items()}
        probe = draw_behaviour(design, 0.0, rng)
        self.linear = all(self._check(simulate_links(design, probe, 0.0, rng)) for _ in range(2))

    def _row_units(self) -> dict[str, np.ndarray] | None:
        """Per section, the unit of each of its rows: the units of the parts whose decisions move it, in the order
        they first come (BUG's sections are its parts; WinoBias's split the pairs by type), or None where a
        section's rows are not so placed and the probes could not be read."""
        design, row_units = self.design, {}
        part_of = np.repeat(np.arange(len(design.sizes)), design.sizes)
        moved_by: dict[str, set[int]] = {section: set() for section in self.constant}
        # A part moves a section if its gold links, or all its links (a choice among several counts neither as
        # an answer), change the section's rows.
        for part, probe in itertools.product(range(len(design.sizes)), (design.gold, design.present)):
            linked = np.zeros(design.gold.shape, dtype=bool)
            linked[part_of == part] = probe[part_of == part]
            for section, rows in self._score(linked).items():
                if rows.shape != self.constant[section].shape or not np.array_equal(rows, self.constant[section]):
                    moved_by[section].add(part)
        for section, rows in self.constant.items():
            units = design.unit[np.isin(part_of, sorted(moved_by[section]))]
            ordered = units[np.sort(np.unique(units, return_index=True)[1])]
            if len(ordered) != len(rows):
                return None
            row_units[section] = ordered
        return row_units

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
                rows[section] += on[self.row_units[section], None] * effect
        return rows

    def _check(self, linked: np.ndarray) -> bool:
        exact, linear = self._score(linked), self._linear_rows(linked)
        return all(
            exact[section].shape == linear[section].shape and np.allclose(exact[section], linear[section], atol=1e-9)
            for section in exact
        )

    def rows(self, linked: np.ndarray) -> dict[str, np.ndarray]:
        return self._linear_rows(linked) if self.linear else self._score(linked)

    def rows_by_section(self, linked: np.ndarray) -> dict[str, resampling.UnitRows]:
        """Per section, the unit rows a run of these links hands its significance (its blocks included)."""
        if not self.linear:
            return self.recorded(_split(self.design, linked))
        rows = self._linear_rows(linked)
        return {section: _with_rows(self.gold_rows[section], rows[section]) for section in rows}

    def paired_rows(self, linked_a: np.ndarray, linked_b: np.ndarray) -> dict[str, tuple | None]:
        """Per section, two runs' rows lined up unit for unit, with their blocks, as ``corefbias compare`` lines them
        up (None where they cannot be)."""
        units_a, units_b = self.rows_by_section(linked_a), self.rows_by_section(linked_b)
        return {section: run_comparison.aligned_rows(units_a[section], units_b[section]) for section in units_a}


def _with_rows(recorded: resampling.UnitRows, rows: np.ndarray) -> resampling.UnitRows:
    return resampling.UnitRows(rows, recorded.statistic, recorded.tested, recorded.unit_positions, recorded.blocks)


def _split(design: Design, linked: np.ndarray) -> dict:
    decisions, start = {}, 0
    width = design.present.sum(axis=1)
    for part, size in zip(design.parts, design.sizes):
        decisions[part] = [
            row[:count].tolist() for row, count in zip(linked[start : start + size], width[start : start + size])
        ]
        start += size
    return decisions


def tested_headlines(benchmark: Benchmark, rows: dict[str, resampling.UnitRows]) -> list[tuple[str, str, str, float]]:
    """(section, key, label, null) of each headline that a run reports with a p-value."""
    return [
        (headline.section, headline.key, headline.label, headline.unbiased)
        for headline in benchmark.headlines
        if headline.unbiased is not None and headline.section in rows and headline.key in rows[headline.section].tested
    ]


@dataclass(frozen=True)
class Rate:
    """How often p < α over the simulated runs whose p-value was defined.

    Examples
    --------
    >>> rate = Rate(25, 400, 0)
    >>> rate.rate, round(rate.half_width, 4)
    (0.0625, 0.0237)
    """

    rejections: int
    runs: int
    undefined: int

    @property
    def rate(self) -> float | None:
        return self.rejections / self.runs if self.runs else None

    @property
    def half_width(self) -> float | None:
        """The half-width of the rate's 95% Monte-Carlo (binomial, normal) interval."""
        return None if not self.runs else 1.96 * math.sqrt(self.rate * (1 - self.rate) / self.runs)


def _count(p_values: list[float | None]) -> Rate:
    defined = [p for p in p_values if p is not None]
    return Rate(sum(p < SIGNIFICANCE_LEVEL for p in defined), len(defined), len(p_values) - len(defined))


def _checked_methods(methods: tuple[str, ...]) -> tuple[str, ...]:
    if not methods or not set(methods) <= set(METHODS):
        raise ValueError(f"methods must be some of {METHODS}, got {methods!r}")
    return methods


def _section_p_values(
    unit: resampling.UnitRows, keys: dict[str, float], n_bootstrap: int, seed: int, methods: tuple[str, ...]
) -> dict:
    """A section's tested keys' p-values by each of ``methods``: ``units``, units drawn one by one with the plain
    percentile test (before blocks); ``blocks``, the blocks drawn whole, expanded (a run's test now). Each method
    seeds its own draws, so leaving one out changes nothing of the other's."""
    found: dict[str, dict] = {key: {} for key in keys}
    if "units" in methods:
        observed = unit.statistic(unit.rows.sum(axis=0))
        plain = resampling.bootstrap_replicates(unit.rows, unit.statistic, n_bootstrap, seed)
        for key, null in keys.items():
            found[key]["units"] = resampling.infer(float(observed[key]), plain[key], null).p_value
    if "blocks" in methods:
        by_blocks = resampling.bootstrap_test(
            unit.rows, unit.statistic, keys, n_bootstrap=n_bootstrap, seed=seed, blocks=unit.blocks
        )
        for key in keys:
            found[key]["blocks"] = by_blocks[key].p_value
    return found


def headline_p_values(
    model: SectionRowsModel,
    *,
    icc: float,
    bias: float,
    runs: int,
    n_bootstrap: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
    methods: tuple[str, ...] = METHODS,
) -> dict[str, dict[str, list[float | None]]]:
    """Per headline (``"<section> <key>"``) and method (of ``methods``, default :data:`METHODS`), the p-value of
    every simulated run."""
    methods = _checked_methods(methods)
    design = model.design
    rng = np.random.default_rng(seed)
    tested = tested_headlines(design.benchmark, model.gold_rows)
    by_section: dict[str, dict[str, float]] = {}
    for section, key, _, null in tested:
        by_section.setdefault(section, {})[key] = null
    found: dict[str, dict[str, list]] = {f"{s} {k}": {method: [] for method in methods} for s, k, _, _ in tested}
    for run in range(runs):
        rows = model.rows_by_section(simulate_links(design, draw_behaviour(design, icc, rng), bias, rng))
        for section, keys in by_section.items():
            for key, p_values in _section_p_values(rows[section], keys, n_bootstrap, seed + run, methods).items():
                for method, p_value in p_values.items():
                    found[f"{section} {key}"][method].append(p_value)
        if progress is not None:
            progress(run + 1)
    return found


def headline_rates(
    model: SectionRowsModel,
    *,
    bias: float,
    runs: int,
    n_bootstrap: int,
    seed: int,
    icc: float = 0.0,
    method: str = "blocks",
    progress: Callable[[int], None] | None = None,
) -> dict[str, Rate]:
    """Per headline (``"<section> <key>"``): the share of simulated runs its test calls significant.

    Parameters
    ----------
    model : SectionRowsModel
        The benchmark's rows as a function of the decisions.
    bias : float
        The simulated bias (0: the null).
    runs : int
        Simulated runs.
    n_bootstrap : int
        Resamples per test.
    seed : int
        Seeds the simulation and the tests.
    icc : float, default 0.0
        The simulated models' latent intra-block correlation.
    method : str, default "blocks"
        ``blocks`` (the test a run makes) or ``units`` (the test before blocks); only this one is computed.
    progress : callable, optional
        Called with the number of runs done.

    Returns
    -------
    dict of str to Rate
    """
    found = headline_p_values(
        model, icc=icc, bias=bias, runs=runs, n_bootstrap=n_bootstrap, seed=seed, progress=progress, methods=(method,)
    )
    return {name: _count(p_values[method]) for name, p_values in found.items()}


def comparison_p_values(
    model: SectionRowsModel,
    *,
    icc: float,
    bias: float,
    bias_b: float | None = None,
    runs: int,
    n_resamples: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
    methods: tuple[str, ...] = METHODS,
) -> dict[str, dict[str, list[float | None]]]:
    """Per headline and method (of ``methods``), the p-value of the paired comparison of two simulated models that
    share their units' difficulty and draw their block effects apart; model A has ``bias``, model B ``bias_b``
    (default: the same, so the null holds)."""
    methods = _checked_methods(methods)
    design = model.design
    rng = np.random.default_rng(seed)
    tested = tested_headlines(design.benchmark, model.gold_rows)
    found: dict[str, dict[str, list]] = {f"{s} {k}": {method: [] for method in methods} for s, k, _, _ in tested}
    for run in range(runs):
        base = unit_difficulty(design, rng)
        links = [
            simulate_links(design, draw_behaviour(design, icc, rng, base), side_bias, rng)
            for side_bias in (bias, bias if bias_b is None else bias_b)
        ]
        paired = model.paired_rows(*links)
        for section, key, _, _ in tested:
            name = f"{section} {key}"
            if paired[section] is None:
                for method in methods:
                    found[name][method].append(None)
                continue
            rows_a, rows_b, blocks = paired[section]
            statistic = model.gold_rows[section].statistic
            if "units" in methods:
                before = resampling.paired_randomization_test(
                    rows_a, rows_b, statistic, key, n_permutations=n_resamples, seed=seed + run
                )
                found[name]["units"].append(before["p_value"])
            if "blocks" in methods:
                now = comparison.paired_difference(
                    rows_a, rows_b, statistic, [key], n_resamples=n_resamples, seed=seed + run, blocks=blocks
                )[key]
                found[name]["blocks"].append(now.p_value)
        if progress is not None:
            progress(run + 1)
    return found


def comparison_rates(
    model: SectionRowsModel,
    *,
    bias: float,
    bias_b: float | None = None,
    runs: int,
    n_resamples: int,
    seed: int,
    icc: float = 0.0,
    method: str = "blocks",
    progress: Callable[[int], None] | None = None,
) -> dict[str, Rate]:
    """Per headline: the share of simulated pairs of models whose paired comparison is significant (see
    :func:`comparison_p_values`; ``method`` as for :func:`headline_rates`)."""
    settings = {"icc": icc, "bias": bias, "bias_b": bias_b, "runs": runs, "n_resamples": n_resamples, "seed": seed}
    found = comparison_p_values(model, progress=progress, methods=(method,), **settings)
    return {name: _count(p_values[method]) for name, p_values in found.items()}
