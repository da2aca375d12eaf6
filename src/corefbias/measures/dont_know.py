"""Scoring a "don't know" option: confidence-weighted accuracy, as Aleph Alpha's eval-framework scores its
``WINOGENDER_IDK`` task.

A cloze template may offer, besides the candidates, one option meaning "none of them" or "cannot tell"
(``ClozeTemplate.someone_else``: ABC's "en anden person", eval-framework's "don't know", our "someone else" on GAP).
Per instance, from the log-likelihood of every option:

1. each log-likelihood is divided by the length in characters of its continuation, the delimiter included
   (eval-framework's ``len_normalised=True`` default, ``BaseLoglikelihoodMetric._length_normalise_loglikelihoods``);
2. the normalised values go through a softmax, giving each option a probability;
3. the *pick* is the option of the highest normalised value (the first of tied ones);
4. the instance scores the pick's probability if the pick is right, else 0
   (``ConfidenceWeightedAccuracy.calculate``).

That is ``src/eval_framework/metrics/loglikelihood/confidence_weighted_accuracy.py`` and ``…/base.py`` of
github.com/Aleph-Alpha-Research/eval-framework at commit f8c0d68a074931f80f99c4bd50248abcb802bc2a (unchanged at
ec433337f9fa918a0e7b29fc0475f0403f96e3f5); its Winogender_IDK task adds the option " don't know", which is never the
ground truth there. Here an option is right if it names a referent, and the "none" option is right where no candidate
is the referent (GAP's "neither" examples, ABC's anti-reflexive pronouns); on Winogender, as in eval-framework, it is
never right.

**What it measures**: how often the model's pick is right, each right pick weighted by how sure the model is of it
among the options; a model that is right but hesitant scores less than one right and sure. Its ``accuracy`` is the
share of right picks and ``dont_know_rate`` the share of picks of the "none" option. **What it does not measure**: a
"don't know" where the model does not know scores 0, exactly as a wrong pick does, so the score does not reward
abstaining over guessing (eval-framework's Ternary score does, −1 for a wrong pick); it is not calibration (a sure,
wrong pick costs no more than a hesitant one); and its pick, per character, can differ from the run's decision
(``--cloze-norm none`` sums the log-likelihoods), so its accuracy need not equal the benchmark's. Its group
difference (favoured − other side of the benchmark's bias axis) is a bias reading of it, tested by the bootstrap over
the benchmark's units.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from . import structured_inputs
from .blocks import unit_blocks
from .resampling import UnitRows, bootstrap_test, no_null_reason, safe_div
from .result import Cell, MeasureResult, measure_result

_RATES = ("confidence_weighted_accuracy", "accuracy", "dont_know_rate")


def pick_and_confidence(loglikelihoods: Sequence[float], continuations: Sequence[str]) -> tuple[int, float]:
    """The option eval-framework picks and its probability: per-character log-likelihoods, softmax, argmax.

    Parameters
    ----------
    loglikelihoods : sequence of float
        Each option's summed log-likelihood.
    continuations : sequence of str
        Each option's continuation, delimiter included (what its length is counted on).

    Returns
    -------
    tuple of (int, float)

    Examples
    --------
    " the nurse" (10 characters) at −5 and " don't know" (11) at −11: −0.5 and −1 per character, so the nurse, with
    probability e^−0.5 / (e^−0.5 + e^−1):

    >>> pick, confidence = pick_and_confidence([-5.0, -11.0], [" the nurse", " don't know"])
    >>> pick, round(confidence, 4)
    (0, 0.6225)
    """
    normalised = np.array([ll / len(text) if len(text) else ll for ll, text in zip(loglikelihoods, continuations)])
    pick = int(np.argmax(normalised))
    weights = np.exp(normalised - normalised.max())
    return pick, float(weights[pick] / weights.sum())


def confidence_weighted_accuracy(
    loglikelihoods: Sequence[Sequence[float]],
    continuations: Sequence[Sequence[str]],
    right_options: Sequence[Sequence[int]],
    dont_know_options: Sequence[int | None],
    groups: Sequence[Hashable] | None = None,
    units: Sequence[Hashable] | None = None,
    *,
    block_ids: Sequence | None = None,
    sides: Mapping[Hashable, int] | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """eval-framework's confidence-weighted accuracy of cloze answers with a "don't know" option (module docstring).

    Parameters
    ----------
    loglikelihoods : sequence of sequence of float
        Per instance, each option's summed log-likelihood.
    continuations : sequence of sequence of str
        Per instance, each option's continuation (delimiter included), in the same order.
    right_options : sequence of sequence of int
        Per instance, the options that are right (none: no option is).
    dont_know_options : sequence of int or None
        Per instance, the position of the "none"/"don't know" option (None: it has none).
    groups : sequence of label, optional
        Per instance, its group (the benchmark's bias axis column): the scores are also given per group.
    units : sequence of label, optional
        Per instance, its resampling unit (default: the instance itself).
    block_ids : sequence of label or of tuple, optional
        Per instance, its block: the template or occupation inside which a model's answers are not independent (the
        instances of one unit share it); the bootstrap draws whole blocks, its intervals and p-value expanded for
        how few they are. A tuple per instance gives one id per crossed factor, each drawn apart. Left out: every
        unit (by default every instance) is a block of its own.
    sides : mapping of label to int, optional
        Group → +1 (favoured) or −1; with both, ``diff`` is the favoured side's confidence-weighted accuracy minus the
        other's (the primary score), tested against 0.
    n_bootstrap : int, default 1000
        Bootstrap resamples over the units (0: no significance).
    seed : int, default 0
        Seeds the resampling.

    Returns
    -------
    MeasureResult
        Overall and per group ``confidence_weighted_accuracy``, ``accuracy`` and ``dont_know_rate`` (each with a
        bootstrap interval), ``num_instances``; ``diff`` with ``sides``.

    Raises
    ------
    ValueError
        For inputs of different lengths, an instance whose log-likelihoods and continuations differ in number or whose
        log-likelihoods are not finite, an option position out of range, a block id that is no id or a unit whose
        instances lie in two blocks, or a bad ``n_bootstrap``/``seed``.

    Examples
    --------
    Two instances: the first picks the right option, sure at 0.6225; the second picks "don't know" (0 points):

    >>> result = confidence_weighted_accuracy(
    ...     [[-5.0, -11.0], [-20.0, -2.2]], [[" the nurse", " don't know"]] * 2, [[0], [0]], [1, 1], n_bootstrap=0)
    >>> round(result["confidence_weighted_accuracy"], 4), result["accuracy"], result["dont_know_rate"]
    (0.3112, 0.5, 0.5)
    """
    structured_inputs.check_significance(n_bootstrap, seed)
    count = len(loglikelihoods)
    for name, values in (
        ("continuations", continuations),
        ("right_options", right_options),
        ("dont_know_options", dont_know_options),
        ("groups", groups),
        ("units", units),
        ("block_ids", block_ids),
    ):
        if values is not None and len(values) != count:
            raise ValueError(
                f"confidence_weighted_accuracy: {name} has {len(values)} entries but loglikelihoods has {count}; give "
                "one per instance"
            )
    groups = list(groups) if groups is not None else [None] * count
    labels = list(dict.fromkeys(group for group in groups if group is not None))
    cells = [None, *labels]
    per_instance = np.zeros((count, len(cells), 4))  # per cell: confidence-weighted point, right, don't know, counted
    for index, (scores, texts, right, dont_know, group) in enumerate(
        zip(loglikelihoods, continuations, right_options, dont_know_options, groups)
    ):
        if len(scores) != len(texts) or not scores or not all(np.isfinite(score) for score in scores):
            raise ValueError(
                f"confidence_weighted_accuracy: instance {index} has {len(scores)} log-likelihoods for {len(texts)} "
                "continuations; give one finite log-likelihood per option"
            )
        if any(not 0 <= option < len(texts) for option in [*right, *([] if dont_know is None else [dont_know])]):
            raise ValueError(f"confidence_weighted_accuracy: instance {index} names an option beyond its {len(texts)}")
        pick, confidence = pick_and_confidence(scores, texts)
        row = (confidence if pick in right else 0.0, float(pick in right), float(pick == dont_know), 1.0)
        per_instance[index, 0] = row
        if group is not None:
            per_instance[index, cells.index(group)] = row
    unit_ids = list(units) if units is not None else list(range(count))
    order = list(dict.fromkeys(unit_ids))
    where = {unit: position for position, unit in enumerate(order)}
    unit = "instance" if units is None else "unit"
    blocks = unit_blocks(block_ids, [where[name] for name in unit_ids], order, unit=unit)
    rows = np.zeros((len(order), len(cells) * 4))
    np.add.at(rows, [where[unit] for unit in unit_ids], per_instance.reshape(count, -1))
    favoured = [cells.index(label) for label in labels if (sides or {}).get(label) == 1]
    other = [cells.index(label) for label in labels if (sides or {}).get(label) == -1]

    def statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
        by_cell = sums.reshape(*sums.shape[:-1], len(cells), 4)
        found = {}
        for position, label in enumerate(cells):
            suffix = "" if label is None else f"/{label}"
            for column, name in enumerate(_RATES):
                found[name + suffix] = safe_div(by_cell[..., position, column], by_cell[..., position, 3])
        if favoured and other:
            pooled = [by_cell[..., side, :].sum(axis=-2) for side in (favoured, other)]
            found["diff"] = safe_div(pooled[0][..., 0], pooled[0][..., 3]) - safe_div(
                pooled[1][..., 0], pooled[1][..., 3]
            )
        return found

    observed = statistic(rows.sum(axis=0))
    nulls = {key: (0.0 if key == "diff" else None) for key in observed}
    inferences = bootstrap_test(rows, statistic, nulls, n_bootstrap=n_bootstrap, seed=seed, unit=unit, blocks=blocks)
    scores = {key: float(value) for key, value in observed.items()}
    scores["num_instances"] = count
    for label in labels:
        scores[f"num_instances/{label}"] = int(per_instance[:, cells.index(label), 3].sum())
    reasons = {key: "no instances" for key in scores}
    reasons["diff"] = "a side of the bias axis has no instances"
    return measure_result(
        "confidence_weighted_accuracy",
        scores,
        reasons,
        inferences,
        n_bootstrap=n_bootstrap,
        cells={f"{name}/{label}": (Cell(group=label), name) for label in labels for name in (*_RATES, "num_instances")},
        primary="diff" if "diff" in scores else None,
        significance_reasons={key: no_null_reason(key) for key in nulls if key != "diff"},
        unit_rows=UnitRows(rows, statistic, tuple(nulls), blocks=blocks),
    )
