"""Significance for every metric, by one vectorized resampling routine.

A metric is written once as a function of *column sums*: each resampling unit (an instance, a
pair, a quadruple, a triplet) contributes a row of counts (e.g. ``[correct_male, n_male, ...]``)
and every score is a ratio or difference of sums of those columns. The observed score is the
statistic of the column totals; a bootstrap replicate is the statistic of ``counts @ rows``,
where ``counts`` says how often each unit was drawn. Thousands of replicates therefore cost a
few matrix products, with no Python loop over units.

Units are drawn by their *blocks* (``corefbias.measures.blocks``): the template, task sentence, occupation or
document inside which a real model answers alike. Each block is drawn whole (the units' rows summed per block first),
or, for crossed factors, each factor's levels are drawn and a unit weighs the product of its levels' draws; without
blocks every unit is one. Where blocks are few, the percentile bootstrap is too narrow (it estimates the variance
with divisor ``G``, and reads normal quantiles where a t with ``G − 1`` degrees of freedom belongs): intervals and
p-values are therefore *expanded* (Hesterberg 2015, "What Teachers Should Know About the Bootstrap", The American
Statistician 69(4), Sec. 3.6): the interval's tails are taken at ``Φ(√(G / (G − 1)) · t_{G−1}(α/2))`` instead of
``α/2``, and the p-value is the level at which the expanded interval would just reach the null
(:func:`expanded_tail`, :func:`expanded_p_value`). With many blocks both are the plain percentile ones.

Every metric function's result (``corefbias.measures.result.MeasureResult``) carries the :class:`UnitRows` it
resampled, which paired comparisons of two models resample again.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from .blocks import Blocks, sum_by
from .validation import MAX_BOOTSTRAP

Statistic = Callable[[np.ndarray], Mapping[str, np.ndarray]]
"""Maps column sums of shape ``(..., k)`` to named scores of shape ``(...)``."""

# A p-value below it marks a score significant (``*``): a run's headline scores, a comparison of two runs
# (after Holm's adjustment), and the false-positive rate calibration checks.
SIGNIFICANCE_LEVEL = 0.05

_MAX_DRAWS_PER_CHUNK = 20_000_000


@dataclass(frozen=True)
class UnitRows:
    """The unit rows a metric's significance resampled, its statistic and the scores it tested.

    A paired comparison of two models must resample exactly the units, counts and formula their scores came from; every
    measure's result hands these over (``MeasureResult.unit_rows``), so there is one definition of them.

    Attributes
    ----------
    rows : numpy.ndarray
        One row of counts per resampling unit, shape ``(units, columns)``.
    statistic : Statistic
        Column sums → named scores; ``statistic(rows.sum(axis=0))[key]`` is the observed score of each tested ``key``.
    tested : tuple of str
        The flat keys of the scores the bootstrap tested.
    unit_positions : numpy.ndarray or None, default None
        Where a metric leaves out units that depend on the model's answers (a pronoun linked to no candidate), each
        row's position among all the data's units; two models' rows line up by it.
    blocks : Blocks or None, default None
        The block of each row (``corefbias.measures.blocks``), which the bootstrap draws whole; None: each row is one.

    Examples
    --------
    Two units, each counting (correct, total):

    >>> rows = np.array([[1.0, 2.0], [0.0, 2.0]])
    >>> unit_rows = UnitRows(rows, lambda sums: {"accuracy": sums[..., 0] / sums[..., 1]}, ("accuracy",))
    >>> float(unit_rows.statistic(unit_rows.rows.sum(axis=0))["accuracy"])
    0.25
    """

    rows: np.ndarray
    statistic: Statistic
    tested: tuple[str, ...]
    unit_positions: np.ndarray | None = None
    blocks: Blocks | None = None


def aligned_unit_rows(units: Sequence) -> tuple[list[np.ndarray], Blocks | None] | None:
    """The unit rows of several scorings of the same data (``UnitRows``), over the same units, row for row, and the
    units' blocks.

    Where the measure leaves out units by the answers (``unit_positions``), the rows cover every unit any scoring
    kept, and a unit one left out is a row of zeros for it (it adds nothing to its sums, so its score is unchanged).

    Parameters
    ----------
    units : sequence of UnitRows
        The scorings' unit rows.

    Returns
    -------
    tuple of (list of numpy.ndarray, Blocks or None), or None
        The rows of each, lined up, and their blocks (None: each unit one); None where they cannot be lined up
        (different shapes, or positions for some only).

    Examples
    --------
    >>> kept_both = UnitRows(np.array([[1.0], [2.0]]), None, (), np.array([0, 1]))
    >>> kept_second = UnitRows(np.array([[5.0]]), None, (), np.array([1]))
    >>> rows, blocks = aligned_unit_rows([kept_both, kept_second])
    >>> [prompt.tolist() for prompt in rows], blocks
    ([[[1.0], [2.0]], [[0.0], [5.0]]], None)
    """
    positions = [unit.unit_positions for unit in units]
    if all(position is None for position in positions):
        shapes = {np.asarray(unit.rows).shape for unit in units}
        if len(shapes) != 1:
            return None
        return [np.asarray(unit.rows, dtype=float) for unit in units], units[0].blocks
    if any(position is None for position in positions):
        return None
    union = np.unique(np.concatenate(positions))
    aligned = []
    for unit in units:
        rows = np.zeros((len(union), np.asarray(unit.rows).shape[1]))
        rows[np.searchsorted(union, unit.unit_positions)] = unit.rows
        aligned.append(rows)
    return aligned, Blocks.joined([unit.blocks for unit in units], positions)


def safe_div(numerator, denominator):
    """Elementwise ratio that is NaN (never a warning) where the denominator is zero.

    Parameters
    ----------
    numerator : array_like
        The dividends.
    denominator : array_like
        The divisors, broadcast against ``numerator``.

    Returns
    -------
    numpy.ndarray
        ``numerator / denominator`` as floats, NaN where ``denominator`` is 0.

    Examples
    --------
    >>> safe_div([1, 3], [2, 0])
    array([0.5, nan])
    """
    numerator = np.asarray(numerator, dtype=float)
    denominator = np.asarray(denominator, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator != 0, numerator / np.where(denominator != 0, denominator, 1.0), np.nan)


def safe_log2(value):
    """log2 that is NaN (never -inf or a warning) where the value is not positive.

    Parameters
    ----------
    value : array_like
        The numbers.

    Returns
    -------
    numpy.ndarray
        ``log2(value)``, NaN where ``value <= 0``.

    Examples
    --------
    >>> safe_log2([4, 0, -1])
    array([ 2., nan, nan])
    """
    value = np.asarray(value, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(value > 0, np.log2(np.where(value > 0, value, 1.0)), np.nan)


@dataclass(frozen=True)
class Inference:
    """Bootstrap p-value and percentile confidence interval of one score.

    ``p_value`` is two-sided: twice the share of replicates at or beyond the null on the side away
    from the observed value (for an observed value above the null, the replicates at or below it),
    with the usual +1 correction so it is never exactly zero, capped at 1, and expanded for the number of blocks
    (:func:`expanded_p_value`). Doubling matters: the one-sided share in the observed direction called about 10% of
    unbiased simulated models significant at 0.05 (``perf/calibration.py``). ``None`` fields mean the data leave them
    undefined, or (``p_value`` alone) that the score has no null to test against; ``reason`` says why the interval
    is undefined where the resamples were too few to give one (``min_resamples``) or the score rests on one block.

    Attributes
    ----------
    p_value : float or None
        The two-sided p-value against the score's null.
    ci_low, ci_high : float or None
        The percentile interval's ends.
    n_valid : int
        The replicates in which the score is defined.
    reason : str or None
        Why the interval is undefined, where too few replicates define the score.
    n_blocks : int or None
        The blocks the interval rests on (those holding a count the score is computed from); None where unknown.

    Examples
    --------
    >>> Inference(0.01, 0.1, 0.4, 1000).p_value < SIGNIFICANCE_LEVEL
    True
    """

    p_value: float | None
    ci_low: float | None
    ci_high: float | None
    n_valid: int
    reason: str | None = None
    n_blocks: int | None = None


def expanded_tail(n_blocks: int | None, confidence: float = 0.95) -> float:
    """The share of resamples left out on each side of an interval resting on ``n_blocks`` blocks: Hesterberg's
    expanded percentile interval, ``Φ(√(G / (G − 1)) · t_{G−1}((1 − confidence) / 2))``, which reads a t with
    ``G − 1`` degrees of freedom and undoes the bootstrap's variance divisor ``G``; 0 for a single block.

    Parameters
    ----------
    n_blocks : int or None
        The blocks ``G``; None: as many as make the correction vanish (the plain percentile interval).
    confidence : float, default 0.95
        The interval's coverage.

    Returns
    -------
    float

    Examples
    --------
    >>> round(expanded_tail(None), 4), round(expanded_tail(60), 4), round(expanded_tail(10), 4), expanded_tail(1)
    (0.025, 0.0218, 0.0086, 0.0)
    """
    alpha = (1.0 - confidence) / 2.0
    if n_blocks is None:
        return alpha
    if n_blocks < 2:
        return 0.0
    # scipy.special's ufuncs are what scipy.stats's norm and t call, without its per-call overhead (a millisecond).
    return float(special.ndtr(math.sqrt(n_blocks / (n_blocks - 1)) * special.stdtrit(n_blocks - 1, alpha)))


def expanded_p_value(tail_share: float, n_blocks: int | None) -> float:
    """The two-sided p-value of a bootstrap whose resamples lie beyond the null with share ``tail_share``: the level
    at which the interval :func:`expanded_tail` expands would just reach the null, ``2 · T_{G−1}(Φ⁻¹(share) ·
    √((G − 1) / G))``, capped at 1; with no correction (``n_blocks=None``) twice the share.

    Parameters
    ----------
    tail_share : float
        The (+1-corrected) share of resamples on the far side of the null.
    n_blocks : int or None
        The blocks ``G`` (at least 2), or None.

    Returns
    -------
    float

    Examples
    --------
    >>> expanded_p_value(0.02, None), round(expanded_p_value(0.02, 10_000), 4), round(expanded_p_value(0.02, 10), 4)
    (0.04, 0.04, 0.0832)
    >>> expanded_p_value(0.6, 10)
    1.0
    """
    if n_blocks is None:
        return float(min(1.0, 2.0 * tail_share))
    if tail_share >= 0.5:
        return 1.0
    quantile = special.ndtri(tail_share) * math.sqrt((n_blocks - 1) / n_blocks)
    return min(1.0, float(2.0 * special.stdtr(n_blocks - 1, quantile)))


def min_resamples(confidence: float = 0.95, n_blocks: int | None = None) -> float:
    """The fewest resamples with a defined score that give a percentile interval at ``confidence`` on ``n_blocks``
    blocks: enough that each tail outside the interval (:func:`expanded_tail`) holds at least one of them (40 at 95%
    with many blocks). With fewer, the bounds would be the extreme resamples themselves, or a single resample as
    both (``n_bootstrap=1``).

    Parameters
    ----------
    confidence : float, default 0.95
        The interval's coverage.
    n_blocks : int or None, default None
        The blocks the interval rests on (None: many).

    Returns
    -------
    int or float
        ``math.inf`` for a single block, which no number of resamples makes an interval of.

    Examples
    --------
    >>> min_resamples(), min_resamples(0.9), min_resamples(n_blocks=10), min_resamples(n_blocks=5)
    (40, 20, 117, 1049)
    """
    tail = expanded_tail(n_blocks, confidence)
    return math.ceil(round(1.0 / tail, 9)) if tail > 0 else math.inf


def bootstrap_counts(n_units: int, n_replicates: int, rng: np.random.Generator) -> np.ndarray:
    """How often each unit is drawn in each replicate, shape ``(n_replicates, n_units)``.

    Parameters
    ----------
    n_units : int
        The units to draw from (with replacement), as many per replicate.
    n_replicates : int
        The replicates.
    rng : numpy.random.Generator
        The draws' generator.

    Returns
    -------
    numpy.ndarray
        Integer counts; each row sums to ``n_units``.

    Examples
    --------
    >>> counts = bootstrap_counts(3, 2, np.random.default_rng(0))
    >>> counts.shape, counts.sum(axis=1).tolist()
    ((2, 3), [3, 3])
    """
    draws = rng.integers(0, n_units, size=(n_replicates, n_units))
    offsets = (np.arange(n_replicates) * n_units)[:, None]
    return np.bincount((draws + offsets).ravel(), minlength=n_replicates * n_units).reshape(n_replicates, n_units)


def _replicate_chunks(n_units: int, n_replicates: int) -> list[int]:
    size = max(1, min(n_replicates, _MAX_DRAWS_PER_CHUNK // max(n_units, 1)))
    return [min(size, n_replicates - start) for start in range(0, n_replicates, size)]


@dataclass(frozen=True)
class Design:
    """What one bootstrap draw weighs: the units' rows summed per cell of their blocks, and each cell's level of
    each factor. Built once per set of rows (:func:`design`), drawn by :func:`draw_weights`.

    Attributes
    ----------
    rows : numpy.ndarray
        Per cell, its units' rows summed.
    levels : tuple of numpy.ndarray
        Per factor, each cell's level.
    sizes : tuple of int
        Per factor, its levels.

    Examples
    --------
    Three units in two blocks of one factor: two cells, each the sum of its units' rows.

    >>> from corefbias.measures.blocks import Blocks
    >>> drawn = design(np.array([[1.0], [2.0], [4.0]]), Blocks(np.array([[0], [0], [1]])))
    >>> drawn.rows.tolist(), drawn.sizes, drawn.draws_per_replicate
    ([[3.0], [4.0]], (2,), 2)
    """

    rows: np.ndarray
    levels: tuple[np.ndarray, ...]
    sizes: tuple[int, ...]

    @property
    def draws_per_replicate(self) -> int:
        """What one replicate draws: at least as many numbers as cells (for the chunks' memory bound)."""
        return max(len(self.rows), sum(self.sizes))


def design(rows: np.ndarray | Design, blocks: Blocks | None) -> Design:
    """The cells a bootstrap of ``rows`` by ``blocks`` draws (without blocks: every unit a cell and a block).

    Parameters
    ----------
    rows : numpy.ndarray or Design
        One row of counts per unit, or the Design already built of them and their blocks.
    blocks : Blocks or None
        The units' blocks.

    Returns
    -------
    Design

    Examples
    --------
    >>> from corefbias.measures.blocks import Blocks
    >>> drawn = design(np.array([[1.0], [2.0], [4.0]]), Blocks(np.array([[0], [0], [1]])))
    >>> drawn.rows.tolist(), drawn.sizes
    ([[3.0], [4.0]], (2,))
    """
    if isinstance(rows, Design):  # built once by the caller for its several uses
        return rows
    rows = np.asarray(rows, dtype=float)
    if blocks is None:
        return Design(rows, (np.arange(len(rows)),), (len(rows),))
    levels, summed = blocks.cells(rows)
    return Design(summed, tuple(levels[:, factor] for factor in range(levels.shape[1])), blocks.sizes)


def draw_weights(drawn: Design, n_replicates: int, rng: np.random.Generator) -> np.ndarray:
    """How much each cell weighs in each replicate, shape ``(n_replicates, cells)``: per factor, its levels drawn
    with replacement, a cell weighing the product of its levels' draws (one factor: how often its block was drawn).

    Parameters
    ----------
    drawn : Design
        The cells.
    n_replicates : int
        The replicates.
    rng : numpy.random.Generator
        The draws' generator.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> weights = draw_weights(design(np.ones((4, 1)), None), 2, np.random.default_rng(0))
    >>> weights.shape, weights.sum(axis=1).tolist()
    ((2, 4), [4, 4])
    """
    weights = None
    for level, size in zip(drawn.levels, drawn.sizes):
        counts = bootstrap_counts(size, n_replicates, rng)
        if len(level) != size or (level != np.arange(size)).any():  # cells are not the levels themselves
            counts = counts[:, level]
        weights = counts if weights is None else weights * counts
    return weights


def bootstrap_replicates(
    rows: np.ndarray | Design, statistic: Statistic, n_replicates: int, seed: int, blocks: Blocks | None = None
) -> dict[str, np.ndarray]:
    """Scores of ``n_replicates`` bootstrap resamples of the unit rows (shape ``(n_units, k)``), drawn by blocks.

    Each replicate is the statistic of ``weights @ rows``, ``weights`` saying how often each unit (or block of units)
    was drawn; the draws are made in chunks of at most about 20 million, so memory stays bounded. Without blocks the
    draws are those of every earlier version (units drawn one by one).

    Parameters
    ----------
    rows : numpy.ndarray or Design
        One row of counts per unit, or the Design already built of them and their blocks.
    statistic : Statistic
        Column sums → named scores.
    n_replicates : int
        The resamples.
    seed : int
        Seeds numpy's generator.
    blocks : Blocks or None, default None
        The units' blocks (``corefbias.measures.blocks``); None: each unit one.

    Returns
    -------
    dict of str to numpy.ndarray
        Score name → its ``n_replicates`` resampled values (NaN where a resample leaves it undefined).

    Examples
    --------
    >>> rows = np.array([[1.0, 1.0]] * 9 + [[0.0, 1.0]])  # per unit: correct, total
    >>> replicates = bootstrap_replicates(rows, lambda sums: {"accuracy": sums[..., 0] / sums[..., 1]}, 500, seed=0)
    >>> replicates["accuracy"].shape, bool(0.6 < replicates["accuracy"].mean() < 1.0)
    ((500,), True)
    """
    drawn = design(rows, blocks)
    rng = np.random.default_rng(seed)
    pieces: dict[str, list[np.ndarray]] = {}
    for chunk in _replicate_chunks(drawn.draws_per_replicate, n_replicates):
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = statistic(draw_weights(drawn, chunk, rng) @ drawn.rows)
        for name, values in scores.items():
            pieces.setdefault(name, []).append(np.asarray(values, dtype=float))
    return {name: np.concatenate(parts) for name, parts in pieces.items()}


def percentile_interval(
    values: np.ndarray, confidence: float = 0.95, n_blocks: int | None = None
) -> tuple[float | None, float | None, str | None]:
    """The percentile interval of resampled scores (finite ones), expanded for ``n_blocks`` blocks
    (:func:`expanded_tail`), or ``(None, None, reason)`` where they are fewer than ``min_resamples``.

    Parameters
    ----------
    values : numpy.ndarray
        The finite resampled scores.
    confidence : float, default 0.95
        The interval's coverage.
    n_blocks : int or None, default None
        The blocks the resamples drew (None: many).

    Returns
    -------
    tuple of (float or None, float or None, str or None)
        The interval's ends, and why they are None.

    Examples
    --------
    >>> low, high, reason = percentile_interval(np.arange(401.0))
    >>> round(low, 9), round(high, 9), reason
    (10.0, 390.0, None)
    >>> percentile_interval(np.array([-1.0]))
    (None, None, 'a 95% interval needs at least 40 resamples with a defined score; 1 had one')
    >>> percentile_interval(np.arange(401.0), n_blocks=5)[2]
    'a 95% interval resting on 5 blocks needs at least 1049 resamples with a defined score; 401 had one'
    >>> percentile_interval(np.arange(401.0), n_blocks=3)[2]
    'a 95% interval resting on 3 blocks needs more blocks: its tails are too far out'
    """
    if n_blocks is not None and n_blocks < 2:
        return None, None, f"an interval needs resamples of at least two blocks; the score rests on {n_blocks}"
    needed = min_resamples(confidence, n_blocks)
    if values.size < needed:
        resting = "" if n_blocks is None else f" resting on {n_blocks} blocks"
        if needed > MAX_BOOTSTRAP:  # more resamples than any call may ask for
            return None, None, f"a {confidence:.0%} interval{resting} needs more blocks: its tails are too far out"
        return (
            None,
            None,
            f"a {confidence:.0%} interval{resting} needs at least {needed} resamples with a defined score; "
            f"{values.size} had one",
        )
    tail = expanded_tail(n_blocks, confidence)
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return float(low), float(high), None


def infer(
    observed: float, replicates: np.ndarray, null: float | None, confidence: float = 0.95, n_blocks: int | None = None
) -> Inference:
    """Two-sided p-value (``None`` for ``null=None``) and percentile CI from replicate scores, both expanded for the
    blocks drawn.

    Parameters
    ----------
    observed : float
        The score on the data.
    replicates : numpy.ndarray
        Its resampled values (non-finite ones are left out).
    null : float or None
        The value of a model without the bias (0 for a difference, 1 for a ratio); None for a CI without a p-value.
    confidence : float, default 0.95
        The interval's coverage.
    n_blocks : int or None, default None
        The blocks the replicates drew (:func:`expanded_tail`); None: the plain percentile interval and p-value.

    Returns
    -------
    Inference
        All None where ``observed`` is undefined or no replicate is defined.

    Examples
    --------
    An observed 0.3 whose 41 replicates (0.10, 0.11, ..., 0.50) all lie above the null 0: p = 2 (0 + 1) / (41 + 1):

    >>> inference = infer(0.3, np.linspace(0.1, 0.5, 41), null=0.0)
    >>> round(inference.p_value, 4), round(inference.ci_low, 2), round(inference.ci_high, 2), inference.n_valid
    (0.0476, 0.11, 0.49, 41)
    """
    valid = replicates[np.isfinite(replicates)]
    if not np.isfinite(observed) or valid.size == 0:
        return Inference(None, None, None, int(valid.size), n_blocks=n_blocks)
    if n_blocks is not None and n_blocks < 2:
        reason = f"the score rests on {n_blocks} block(s); a bootstrap needs at least two behind it"
        return Inference(None, None, None, int(valid.size), reason, n_blocks)
    low, high, reason = percentile_interval(valid, confidence, n_blocks)
    if null is None:
        return Inference(None, low, high, int(valid.size), reason, n_blocks)
    if observed > null:
        extreme = np.count_nonzero(valid <= null)
    elif observed < null:
        extreme = np.count_nonzero(valid >= null)
    else:
        extreme = valid.size
    p_value = expanded_p_value((extreme + 1.0) / (valid.size + 1.0), n_blocks)
    return Inference(p_value, low, high, int(valid.size), reason, n_blocks)


def bootstrap_test(
    rows: np.ndarray,
    statistic: Statistic,
    nulls: Mapping[str, float | None],
    *,
    n_bootstrap: int,
    seed: int,
    confidence: float = 0.95,
    unit: str = "unit",
    blocks: Blocks | None = None,
) -> dict[str, Inference]:
    """Bootstrap over blocks of units: inference for each score named in ``nulls`` (name → null value, or
    ``None`` for a CI without a p-value).

    ``n_bootstrap=0`` switches significance off: every field comes back ``None``. So do the fields of a score that
    rests on a single block (:func:`single_block_reasons`), with the reason: resamples that leave such a block out
    leave the score undefined and are dropped, so every defined resample repeats that block's contribution, and a
    p-value would call one block "significant" (one male and one female GAP example gave p = 0.004). Each score's
    interval and p-value are expanded for the blocks that hold its counts (:func:`blocks_behind`). A metric function
    hands the same ``rows``, ``statistic``, tested names and blocks to paired comparisons as a :class:`UnitRows`
    (its result's ``unit_rows``).

    Parameters
    ----------
    rows : numpy.ndarray
        One row of counts per unit.
    statistic : Statistic
        Column sums → named scores.
    nulls : mapping of str to float or None
        The tested scores and their null values.
    n_bootstrap : int
        The resamples (0: significance off).
    seed : int
        Seeds numpy's generator.
    confidence : float, default 0.95
        The intervals' coverage.
    unit : str, default "unit"
        What one row is (a pair, a quadruple), for the reasons.
    blocks : Blocks or None, default None
        The units' blocks; None: each unit one.

    Returns
    -------
    dict of str to Inference
        Per tested score, its p-value and interval.

    Examples
    --------
    18 of 20 units right is far from a coin's 0.5: no resample reaches it, so p ≈ 2 / 1001 = 0.002, expanded for
    the 20 blocks (each unit one) to 0.007:

    >>> rows = np.array([[1.0, 1.0]] * 18 + [[0.0, 1.0]] * 2)
    >>> accuracy = lambda sums: {"accuracy": sums[..., 0] / sums[..., 1]}
    >>> tested = bootstrap_test(rows, accuracy, {"accuracy": 0.5}, n_bootstrap=1000, seed=0)
    >>> round(tested["accuracy"].p_value, 4), tested["accuracy"].n_blocks
    (0.0072, 20)
    >>> bootstrap_test(rows, accuracy, {"accuracy": 0.5}, n_bootstrap=0, seed=0)["accuracy"].p_value is None
    True

    One pair is no sample to resample:

    >>> bootstrap_test(rows[:1], accuracy, {"accuracy": 0.5}, n_bootstrap=1000, seed=0, unit="pair")["accuracy"].reason
    'the bootstrap resamples pairs and needs at least two; 1 was given'
    """
    if n_bootstrap == 0:
        return {name: Inference(None, None, None, 0) for name in nulls}
    drawn = design(rows, blocks)
    single = single_block_reasons(drawn, statistic, list(nulls), unit, blocks)
    behind = blocks_behind(drawn, statistic, list(nulls))
    observed = statistic(drawn.rows.sum(axis=0))
    replicates = bootstrap_replicates(drawn, statistic, n_bootstrap, seed)
    return {
        name: Inference(None, None, None, 0, single[name], behind[name])
        if name in single
        else infer(float(observed[name]), replicates[name], null, confidence, behind[name])
        for name, null in nulls.items()
    }


def blocks_behind(
    rows: np.ndarray | Design, statistic: Statistic, names, blocks: Blocks | None = None
) -> dict[str, int]:
    """How many blocks each named score rests on: per factor, the levels holding a nonzero count in a column the
    score is computed from, the fewest over the factors (a score of every column: all blocks).

    A column counts for a score where moving it moves the score, probed from a generic point (the totals with every
    column raised by a random amount), where no column's effect can cancel by coincidence (an accuracy of exactly 1,
    whose numerator is also part of its denominator).

    Parameters
    ----------
    rows : numpy.ndarray or Design
        One row of counts per unit, or the Design already built of them and their blocks.
    statistic : Statistic
        Column sums → named scores.
    names : sequence of str
        The scores.
    blocks : Blocks or None, default None
        The units' blocks; None: each unit one.

    Returns
    -------
    dict of str to int

    Examples
    --------
    A score of the female columns, held by two of three units:

    >>> rows = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0]])
    >>> shares = lambda sums: {"male": sums[..., 0] / sums[..., 1], "female": sums[..., 2] / sums[..., 3]}
    >>> blocks_behind(rows, shares, ["male", "female"])
    {'male': 2, 'female': 2}
    """
    drawn = design(rows, blocks)
    totals = drawn.rows.sum(axis=0)
    scale = np.maximum(np.abs(totals), 1.0)
    generic = totals + scale * np.random.default_rng(0).uniform(0.5, 1.5, size=totals.shape)
    moved = generic + np.diag(scale * 0.6180339887)
    with np.errstate(divide="ignore", invalid="ignore"):
        base, probed = statistic(generic), statistic(moved)
    nonzero = drawn.rows != 0
    found = {}
    for name in names:
        before = np.asarray(base[name], dtype=float)
        after = np.asarray(probed[name], dtype=float)
        uses = ~np.isclose(after, before, rtol=1e-12, atol=1e-15, equal_nan=True)
        held = nonzero[:, uses].any(axis=1) if uses.any() else np.ones(len(drawn.rows), dtype=bool)
        found[name] = min(int(np.unique(level[held]).size) for level in drawn.levels)
    return found


def single_block_reasons(
    rows: np.ndarray | Design, statistic: Statistic, names, unit: str = "unit", blocks: Blocks | None = None
) -> dict[str, str]:
    """Why the bootstrap can say nothing about each named score that rests on a single block: the rows hold fewer
    than two blocks, or leaving one block out leaves the (defined) score undefined.

    Parameters
    ----------
    rows : numpy.ndarray or Design
        One row of counts per unit, or the Design already built of them and their blocks.
    statistic : Statistic
        Column sums → named scores.
    names : sequence of str
        The tested scores.
    unit : str, default "unit"
        What a row is, for the reasons (the blocks are called so where there are none but the units).
    blocks : Blocks or None, default None
        The units' blocks; None: each unit one.

    Returns
    -------
    dict of str to str
        Score name → the reason, for the scores resting on one block only.

    Examples
    --------
    One male and one female example (per row: male correct, male total, female correct, female total):

    >>> rows = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    >>> diff = lambda sums: {"diff": sums[..., 0] / sums[..., 1] - sums[..., 2] / sums[..., 3]}
    >>> print(single_block_reasons(rows, diff, ["diff"], "example")["diff"])
    diff rests on a single example (without example 0 it is undefined); the bootstrap needs at least two behind each
    part of it
    """
    drawn = design(rows, blocks)
    what = unit if blocks is None else "block"
    if min(drawn.sizes) < 2:
        few = min(drawn.sizes)
        return dict.fromkeys(names, f"the bootstrap resamples {what}s and needs at least two; {few} was given")
    observed = statistic(drawn.rows.sum(axis=0))
    reasons = {}
    for level, size in zip(drawn.levels, drawn.sizes):
        per_level = sum_by(level, drawn.rows, size)
        with np.errstate(divide="ignore", invalid="ignore"):
            left_out = statistic(drawn.rows.sum(axis=0) - per_level)
        for name in names:
            undefined = ~np.isfinite(np.asarray(left_out[name], dtype=float))
            if name not in reasons and np.isfinite(observed[name]) and undefined.any():
                reasons[name] = (
                    f"{name} rests on a single {what} (without {what} {int(np.argmax(undefined))} it is undefined); "
                    f"the bootstrap needs at least two behind each part of it"
                )
    return reasons


def no_null_reason(key: str) -> str:
    """Why a score that is no bias score (an accuracy, a rate) has an interval but no p-value.

    Parameters
    ----------
    key : str
        The score's flat key.

    Returns
    -------
    str

    Examples
    --------
    >>> no_null_reason("accuracy")
    'accuracy is not a bias score: it has no null value to test, and is reported with its CI only'
    """
    return f"{key} is not a bias score: it has no null value to test, and is reported with its CI only"


def swap_masks(n_units: int, n_permutations: int, rng: np.random.Generator) -> np.ndarray:
    """Which units each random permutation swaps between two systems: 0/1 floats, shape ``(n_permutations, n_units)``.

    Parameters
    ----------
    n_units : int
        The units.
    n_permutations : int
        The permutations.
    rng : numpy.random.Generator
        The draws' generator.

    Returns
    -------
    numpy.ndarray
        1.0 where the permutation swaps the unit.

    Examples
    --------
    >>> masks = swap_masks(4, 2, np.random.default_rng(0))
    >>> masks.shape, set(masks.ravel().tolist()) <= {0.0, 1.0}
    ((2, 4), True)
    """
    return rng.integers(0, 2, size=(n_permutations, n_units)).astype(float)


def randomization_differences(
    rows_a: np.ndarray, rows_b: np.ndarray, statistic: Statistic, names, n_permutations: int, rng: np.random.Generator
) -> Iterator[dict[str, np.ndarray]]:
    """``score(A) − score(B)`` under the null that the systems are exchangeable on every unit, in chunks.

    Each permutation swaps the two systems' rows on a random subset of units: the totals become
    ``total_a + masks @ (rows_b − rows_a)`` and ``total_b − masks @ (rows_b − rows_a)``.

    Parameters
    ----------
    rows_a, rows_b : numpy.ndarray
        The two systems' unit rows, the same units in the same order.
    statistic : Statistic
        Column sums → named scores.
    names : sequence of str
        The scores to difference.
    n_permutations : int
        The permutations, over all chunks.
    rng : numpy.random.Generator
        The swaps' generator.

    Yields
    ------
    dict of str to numpy.ndarray
        Per chunk, each score's permuted differences.

    Examples
    --------
    >>> a, b = np.array([[1.0, 1.0]] * 4), np.array([[0.0, 1.0]] * 4)
    >>> accuracy = lambda sums: {"accuracy": sums[..., 0] / sums[..., 1]}
    >>> chunks = list(randomization_differences(a, b, accuracy, ["accuracy"], 100, np.random.default_rng(0)))
    >>> sum(len(chunk["accuracy"]) for chunk in chunks), float(max(abs(chunk["accuracy"]).max() for chunk in chunks))
    (100, 1.0)
    """
    delta = rows_b - rows_a
    total_a, total_b = rows_a.sum(0), rows_b.sum(0)
    for chunk in _replicate_chunks(len(rows_a), n_permutations):
        moved = swap_masks(len(rows_a), chunk, rng) @ delta
        swapped_a, swapped_b = statistic(total_a + moved), statistic(total_b - moved)
        yield {name: np.asarray(swapped_a[name] - swapped_b[name], dtype=float) for name in names}


def paired_randomization_test(
    rows_a: np.ndarray,
    rows_b: np.ndarray,
    statistic: Statistic,
    name: str,
    *,
    n_permutations: int = 10_000,
    seed: int = 0,
) -> dict[str, float | None]:
    """Approximate randomization test (Yeh 2000) of ``score(A) - score(B)`` on the same units.

    Under the null both systems are exchangeable on every unit (:func:`randomization_differences`).
    Two-sided p-value with +1 correction. ``corefbias.measures.comparison.paired_difference`` adds
    a paired bootstrap CI and several scores at once.

    Parameters
    ----------
    rows_a, rows_b : numpy.ndarray
        The two systems' unit rows, the same units in the same order.
    statistic : Statistic
        Column sums → named scores.
    name : str
        The score to compare.
    n_permutations : int, default 10000
        The permutations.
    seed : int, default 0
        Seeds the swaps.

    Returns
    -------
    dict
        ``difference`` (A − B) and ``p_value``; both None where either score is undefined.

    Raises
    ------
    ValueError
        If the two row arrays differ in shape.

    Examples
    --------
    A right on 9 of 10 units, B on the tenth. Each unit adds ±0.1 to the difference, so a random swap reaches
    |0.8| in 22 of the 2^10 patterns: p ≈ 0.021 (here from 10,000 random swaps):

    >>> a = np.array([[1.0, 1.0]] * 9 + [[0.0, 1.0]])
    >>> b = np.array([[0.0, 1.0]] * 9 + [[1.0, 1.0]])
    >>> result = paired_randomization_test(a, b, lambda sums: {"accuracy": sums[..., 0] / sums[..., 1]}, "accuracy")
    >>> round(result["difference"], 3), round(result["p_value"], 3)
    (0.8, 0.023)
    """
    rows_a = np.asarray(rows_a, dtype=float)
    rows_b = np.asarray(rows_b, dtype=float)
    if rows_a.shape != rows_b.shape:
        raise ValueError(
            f"the two systems must be scored on the same units: got row arrays of shapes {rows_a.shape} and "
            f"{rows_b.shape}"
        )
    observed = float(statistic(rows_a.sum(0))[name] - statistic(rows_b.sum(0))[name])
    if not np.isfinite(observed):
        return {"difference": None, "p_value": None}
    at_least_as_extreme = 0
    valid = 0
    for differences in randomization_differences(
        rows_a, rows_b, statistic, [name], n_permutations, np.random.default_rng(seed)
    ):
        finite = differences[name][np.isfinite(differences[name])]
        valid += finite.size
        at_least_as_extreme += np.count_nonzero(np.abs(finite) >= abs(observed) - 1e-12)
    p_value = (at_least_as_extreme + 1.0) / (valid + 1.0)
    return {"difference": observed, "p_value": float(min(1.0, p_value))}
