"""How far a score moves when the prompt is reworded: its value per prompt, their spread, and an interval that
resamples the prompts as well as the instances.

A bias score measured with one wording says how the model reacts to that wording. Run with several wordings of
the same question (a benchmark's prompt set), the score has one value per prompt; :func:`prompt_spread` reports

* each prompt's value, their ``min``, ``max`` and ``range`` (max − min);
* their ``mean`` (the score of a prompt drawn at random from the set, on these instances), with a 95% percentile
  interval and a two-sided p-value against the unbiased value from a **two-level bootstrap**
  (:func:`two_level_replicates`): each replicate draws the prompts with replacement *and* the blocks of resampling
  units with replacement (``corefbias.measures.blocks``: the templates or documents inside which instances are not
  independent), the same blocks for every drawn prompt (the prompts reword the same instances), scores every drawn
  prompt on the drawn units and averages. Its interval thus covers the sampling of instances and the choice of
  wording, where a single prompt's interval covers the first only; it is expanded for the number of blocks as a
  single prompt's is (``resampling.infer``), not for the few prompts, which are the wordings the set holds;
* ``sign_flip``: whether the prompts disagree on the direction of the bias, some above the unbiased value and some
  below it.

The units are the measure's own (``UnitRows``): the rows its bootstrap resampled, one per pair, quadruple or
instance. Where a measure leaves out units by the model's answers (``unit_positions``), a unit one prompt left out
is a row of zeros for it, which adds nothing to its sums, so that every prompt is resampled over the same units.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from . import structured_inputs
from .blocks import Blocks
from .resampling import (
    Inference,
    _replicate_chunks,
    aligned_unit_rows,
    blocks_behind,
    bootstrap_counts,
    design,
    draw_weights,
    infer,
)
from .result import SIGNIFICANCE_SUFFIXES, Cell, MeasureResult, measure_result


def two_level_replicates(
    rows_per_prompt: Sequence[np.ndarray],
    statistic,
    key: str,
    n_replicates: int,
    seed: int,
    blocks: Blocks | None = None,
) -> np.ndarray:
    """Bootstrap replicates of a score's mean over prompts, resampling the prompts and the blocks of units.

    Each replicate draws as many prompts as there are, with replacement, and the units' blocks as a single prompt's
    bootstrap draws them (``resampling.draw_weights``), the same for every prompt; it scores each drawn prompt on
    the drawn units (``statistic`` of the drawn units' summed rows) and averages over the drawn prompts, a prompt
    drawn twice counting twice. A replicate in which a drawn prompt's score is undefined is NaN.

    Parameters
    ----------
    rows_per_prompt : sequence of numpy.ndarray
        Per prompt, one row of counts per unit, the same units in the same order (``resampling.aligned_unit_rows``).
    statistic : callable
        Column sums of shape ``(..., k)`` → named scores of shape ``(...)`` (``resampling.Statistic``).
    key : str
        The score.
    n_replicates : int
        The replicates.
    seed : int
        Seeds numpy's generator.
    blocks : Blocks or None, default None
        The units' blocks; None: each unit one.

    Returns
    -------
    numpy.ndarray
        ``n_replicates`` values.

    Examples
    --------
    One prompt right on both of two units, another right on one: unit draws give the second prompt 1, ½ or 0
    (¼, ½, ¼), prompt draws weigh the two prompts 2:0, 1:1 or 0:2 (¼, ½, ¼); the replicates' mean is 0.75:

    >>> accuracy = lambda sums: {"accuracy": sums[..., 0] / sums[..., 1]}
    >>> rows = [np.array([[1.0, 1.0], [1.0, 1.0]]), np.array([[1.0, 1.0], [0.0, 1.0]])]
    >>> replicates = two_level_replicates(rows, accuracy, "accuracy", 4000, seed=0)
    >>> round(float(replicates.mean()), 2), sorted(set(replicates.tolist()))
    (0.75, [0.0, 0.5, 0.75, 1.0])
    """
    drawn = [design(np.asarray(prompt, dtype=float), blocks) for prompt in rows_per_prompt]
    rows = np.stack([cells.rows for cells in drawn])  # (prompts, cells, k)
    prompts = len(drawn)
    rng = np.random.default_rng(seed)
    pieces = []
    for chunk in _replicate_chunks(drawn[0].draws_per_replicate * prompts, n_replicates):
        weights = draw_weights(drawn[0], chunk, rng)
        prompt_counts = bootstrap_counts(prompts, chunk, rng)
        sums = np.einsum("bc,pck->bpk", weights, rows)
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = np.asarray(statistic(sums)[key], dtype=float)  # (chunk, prompts)
        chosen = prompt_counts > 0
        undefined = np.any(chosen & ~np.isfinite(scores), axis=1)
        mean = np.where(chosen, np.where(np.isfinite(scores), scores, 0.0), 0.0) * prompt_counts
        replicate = mean.sum(axis=1) / prompts
        replicate[undefined] = np.nan
        pieces.append(replicate)
    return np.concatenate(pieces) if pieces else np.empty(0)


def prompt_spread(
    values: Mapping[str, float | None],
    *,
    unbiased: float | None,
    rows_by_prompt: Mapping | None = None,
    key: str | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    no_rows_reason: str | None = None,
) -> MeasureResult:
    """One score across the prompts of a prompt set: per prompt, spread, mean with its two-level interval, sign flip.

    Parameters
    ----------
    values : mapping of str to float or None
        Prompt name → the score with that prompt (None: undefined there); at least one prompt.
    unbiased : float or None
        The value of a model without the bias (0 for a difference, 1 for a ratio); None: not a bias score, so no
        p-value and no sign flip.
    rows_by_prompt : mapping of str to UnitRows, optional
        Prompt name → the unit rows the score's measure resampled with that prompt, for the two-level bootstrap;
        None: no interval (``no_rows_reason`` says why).
    key : str, optional
        The score's key in the measure's statistic (required with ``rows_by_prompt``).
    n_bootstrap : int, default 1000
        Two-level bootstrap replicates (0: no interval or p-value).
    seed : int, default 0
        Seeds the resampling.
    no_rows_reason : str, optional
        Why there are no unit rows, for the interval's ``undefined``.

    Returns
    -------
    MeasureResult
        Overall ``mean`` (primary; its ``ci_low``, ``ci_high`` and ``p_value`` from the two-level bootstrap), ``min``,
        ``max``, ``range``, ``num_prompts``; per prompt (as a group) its ``value``; extras ``sign_flip`` (True, False,
        or None where there is no unbiased value or fewer than two defined values) and ``prompts`` (the names, in
        order).

    Raises
    ------
    ValueError
        For no prompts, a bad ``n_bootstrap`` or ``seed``, or ``rows_by_prompt`` for other prompts than ``values`` or
        without ``key``.

    Examples
    --------
    Two wordings on opposite sides of 0, a third on it: the sign flips.

    >>> spread = prompt_spread({"main": 0.125, "the-word": -0.0625, "here-means": 0.0}, unbiased=0.0, n_bootstrap=0)
    >>> spread.value, spread["min"], spread["max"], spread["range"], spread.extras["sign_flip"]
    (0.020833333333333332, -0.0625, 0.125, 0.1875, True)
    >>> spread.by_group["the-word"]["value"].value
    -0.0625
    """
    structured_inputs.check_significance(n_bootstrap, seed)
    names = list(values)
    if not names:
        raise ValueError("prompt_spread needs the score of at least one prompt; got none")
    if rows_by_prompt is not None:
        if list(rows_by_prompt) != names:
            raise ValueError(
                f"prompt_spread: rows_by_prompt must name the prompts of values in their order ({names}), got "
                f"{list(rows_by_prompt)}"
            )
        if key is None:
            raise ValueError("prompt_spread: give the score's key in the statistic with rows_by_prompt")
    defined = [value for value in values.values() if value is not None and np.isfinite(value)]
    undefined_prompts = [name for name, value in values.items() if value is None or not np.isfinite(value)]
    reason = f"the score is undefined with the prompt(s) {', '.join(undefined_prompts)}"
    mean = float(np.mean(defined)) if not undefined_prompts else float("nan")
    scores: dict = {
        "mean": mean,
        "min": min(defined) if defined else float("nan"),
        "max": max(defined) if defined else float("nan"),
        "range": max(defined) - min(defined) if defined else float("nan"),
        "num_prompts": len(names),
        **{f"value/{name}": value if value is not None else float("nan") for name, value in values.items()},
    }
    reasons = {
        "mean": reason,
        **dict.fromkeys(("min", "max", "range"), "the score is undefined with every prompt"),
        **{f"value/{name}": "the score is undefined with this prompt" for name in names},
    }
    inference, why = _mean_inference(mean, rows_by_prompt, key, unbiased, n_bootstrap, seed, no_rows_reason)
    flip = None
    if unbiased is not None and len(defined) >= 2:
        flip = any(value > unbiased for value in defined) and any(value < unbiased for value in defined)
    result = measure_result(
        "prompt_spread",
        scores,
        reasons,
        cells={f"value/{name}": (Cell(group=name), "value") for name in names},
        extras={"sign_flip": flip, "prompts": names},
    )
    entries = []
    for cell, score, estimate in result.estimates():
        if cell == Cell() and score == "mean":
            fields = {"p_value": inference.p_value, "ci_low": inference.ci_low, "ci_high": inference.ci_high}
            missing = {name: why.get(name) or why["all"] for name, value in fields.items() if value is None}
            estimate = replace(
                estimate,
                **fields,
                reported=SIGNIFICANCE_SUFFIXES,
                significance_undefined=missing,
                n_blocks=inference.n_blocks,
            )
        entries.append((cell, score, estimate))
    return MeasureResult("prompt_spread", entries, primary="mean", extras=result.extras)


def _mean_inference(mean, rows_by_prompt, key, unbiased, n_bootstrap, seed, no_rows_reason) -> tuple[Inference, dict]:
    """The two-level bootstrap's inference of the mean, and why each of its fields is None where it is."""
    none = Inference(None, None, None, 0)
    why: dict[str, str] = {}
    if unbiased is None:
        why["p_value"] = "not a bias score: no unbiased value to test against"
    if n_bootstrap == 0:
        return none, {**why, "all": "significance was not computed (n_bootstrap=0)"}
    if not np.isfinite(mean):
        return none, {"all": "the mean itself is undefined"}
    if rows_by_prompt is None:
        return none, {**why, "all": no_rows_reason or "the score resamples no units, so no two-level interval"}
    aligned = aligned_unit_rows(list(rows_by_prompt.values()))
    if aligned is None:
        return none, {**why, "all": "the prompts' scores resample different units, so no two-level interval"}
    rows, blocks = aligned
    statistic = next(iter(rows_by_prompt.values())).statistic
    replicates = two_level_replicates(rows, statistic, key, n_bootstrap, seed, blocks)
    behind = min(blocks_behind(prompt, statistic, [key], blocks)[key] for prompt in rows)
    inference = infer(mean, replicates, unbiased, n_blocks=behind)
    return inference, {**why, "all": inference.reason or "the mean is undefined on every two-level resample"}
