"""WinoNB (Baumler & Rudinger, NAACL 2022): does a system read *they* as singular when it refers to one person?

Each sentence holds a singular entity ("someone"), a plural one ("the technicians") and a *they* pronoun; its label,
as WinoNB's README defines it, is the entity the pronoun refers to: *singular* or *plural*. A system's reading is
the entity it resolved the pronoun to: ``singular``, ``plural`` or ``neither`` (no link, or both). The scores:

  * accuracy, overall and per label: ``accuracy_singular`` is how often singular *they* is read as singular,
    ``accuracy_plural`` how often plural *they* is read as plural;
  * ``accuracy_singular_minus_plural``: below 0 the system understands plural *they* better than singular *they*,
    tested against 0;
  * the errors by kind: singular *they* read as plural, plural *they* read as singular, no reading at all;
  * the same per source (Winogender, WinoBias, WSC, DPR), given the sources.

The sentences have no template structure the data make explicit (a sentid names a plural noun, not a template), so
the bootstrap resamples sentences; with ``block_ids`` it draws whole blocks of them (the sentences made from one
plural noun, which a system answers alike: ``corefbias.measures.blocks``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import structured_inputs, validation
from .blocks import unit_blocks
from .resampling import UnitRows, bootstrap_test, no_null_reason, safe_div
from .result import Cell, MeasureResult, measure_result

PREDICTIONS = ("singular", "plural", "neither")
NUMBERS = ("singular", "plural")
DIFFERENCE = "accuracy_singular_minus_plural"
SIGNIFICANCE_NULLS = {
    DIFFERENCE: 0.0,
    "accuracy": None,
    "accuracy_singular": None,
    "accuracy_plural": None,
}


def _columns(groups: Sequence[str]) -> dict[tuple, int]:
    """(group or None, gold number, what was read) → column: counts per reading of each gold number."""
    cells = [(group, gold, read) for group in (None, *groups) for gold in NUMBERS for read in PREDICTIONS]
    return {cell: index for index, cell in enumerate(cells)}


def _winonb_statistic(groups: Sequence[str]):
    """The statistic over the sentence rows of :func:`_sentence_rows`: every score, overall and per group.

    Examples
    --------
    >>> statistic = _winonb_statistic(())
    >>> # 4 singular sentences: 1 read singular, 3 plural; 2 plural sentences read plural.
    >>> scores = statistic(np.array([1.0, 3.0, 0.0, 0.0, 2.0, 0.0]))
    >>> float(scores["accuracy_singular"]), float(scores["accuracy_plural"]), float(scores[DIFFERENCE])
    (0.25, 1.0, -0.75)
    """
    column = _columns(groups)

    def statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
        scores = {}
        for group in (None, *groups):
            suffix = "" if group is None else f"/{group}"
            count = {cell[1:]: sums[..., index] for cell, index in column.items() if cell[0] == group}
            total = {gold: sum(count[gold, read] for read in PREDICTIONS) for gold in NUMBERS}
            right = {gold: count[gold, gold] for gold in NUMBERS}
            scores[f"accuracy{suffix}"] = safe_div(sum(right.values()), sum(total.values()))
            for gold in NUMBERS:
                scores[f"accuracy_{gold}{suffix}"] = safe_div(right[gold], total[gold])
            scores[f"{DIFFERENCE}{suffix}"] = scores[f"accuracy_singular{suffix}"] - scores[f"accuracy_plural{suffix}"]
            scores[f"singular_read_as_plural{suffix}"] = safe_div(count["singular", "plural"], total["singular"])
            scores[f"plural_read_as_singular{suffix}"] = safe_div(count["plural", "singular"], total["plural"])
            scores[f"no_reading{suffix}"] = safe_div(
                sum(count[gold, "neither"] for gold in NUMBERS), sum(total.values())
            )
        return scores

    return statistic


def _sentence_rows(predictions: np.ndarray, references: np.ndarray, groups: np.ndarray | None, names) -> np.ndarray:
    """One row per sentence: a 1 in the columns of its (gold, reading), overall and in its group's."""
    column = _columns(names)
    rows = np.zeros((len(predictions), len(column)))
    for index, (gold, read) in enumerate(zip(references, predictions)):
        rows[index, column[None, gold, read]] = 1.0
        if groups is not None:
            rows[index, column[groups[index], gold, read]] = 1.0
    return rows


def winonb_accuracy(
    predictions: Sequence[str],
    references: Sequence[str],
    sources: Sequence[str] | None = None,
    *,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """WinoNB's accuracy of reading *they* as singular or plural, overall, per label and per source.

    The bootstrap resamples sentences, or with ``block_ids`` whole blocks of them.

    Parameters
    ----------
    predictions : list of str
        the entity the system resolved the pronoun to: `singular`, `plural`
        or `neither` (no link, or both).
    references : list of str
        the entity the pronoun refers to (WinoNB's label: 1 `singular`, 0 `plural`).
    sources : list of str, optional
        the sentence's source (`winogender`, `winobias`, `wsc`, `dpr`); gives every score per source.
    block_ids : list of str or int, or list of tuple, optional
        the block of each sentence: the plural noun or template it was made from, inside which a system's answers
        are not independent; the bootstrap draws whole blocks, its interval and p-value expanded for how few they
        are. A tuple per sentence gives one id per crossed factor, each drawn apart. Left out: every sentence is a
        block of its own.
    n_bootstrap : int, default 1000
        bootstrap resamples of sentences (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        The scores (a source is a score's group), with the unit rows its significance resampled; its primary
        score is ``accuracy_singular_minus_plural``. Its flat keys (fractions, not percentages):

        * ``accuracy``, ``accuracy_singular``, ``accuracy_plural``, ``accuracy_singular_minus_plural``;
        * ``singular_read_as_plural``, ``plural_read_as_singular``, ``no_reading`` (the errors by kind);
        * with sources, every score again as ``<score>/<source>``;
        * ``num_singular``, ``num_plural``;
        * ``accuracy_singular_minus_plural_p_value`` (two-sided bootstrap against 0), and ``_ci_low`` and
          ``_ci_high`` (95% percentile interval) for it and the three accuracies;
        * ``undefined``: every key whose value is None, mapped to the reason.

    Raises
    ------
    ValueError
        If the inputs differ in length or are empty; a prediction or reference is not one of the
        labels above; a source is not a non-empty string; a block id is no id; or ``n_bootstrap`` or ``seed`` is
        invalid.

    Notes
    -----
    accuracy_N = sentences labelled N read as N / sentences labelled N, for N singular and
    plural; the difference is singular minus plural. A sentence read as neither counts as wrong
    for its label.

    Undefined cases (None, with the reason under ``undefined``): the scores of a label (or of a
    source's label) without sentences, and the difference then; the accuracies' ``_p_value``
    always (no null value); the significance keys with ``n_bootstrap=0``.

    References
    ----------
    Baumler, C. and Rudinger, R. (2022). Recognition of They/Them as Singular Personal Pronouns in
    Coreference Resolution. NAACL 2022.

    Examples
    --------
    Two singular and two plural sentences; the system reads every *they* as plural:

    >>> from corefbias.measures.winonb_accuracy import winonb_accuracy
    >>> result = winonb_accuracy(["plural"] * 4, ["singular", "singular", "plural", "plural"], n_bootstrap=0)
    >>> result["accuracy_singular"], result["accuracy_plural"], result["accuracy_singular_minus_plural"]
    (0.0, 1.0, -1.0)
    >>> result["singular_read_as_plural"], result["accuracy"]
    (1.0, 0.5)
    """
    validation.check_lengths(
        predictions=predictions, references=references, optional={"sources": sources, "block_ids": block_ids}
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    predictions = structured_inputs.check_labels("predictions", predictions, PREDICTIONS)
    references = structured_inputs.check_labels("references", references, NUMBERS)
    names: tuple[str, ...] = ()
    if sources is not None:
        sources = validation.check_ids("sources", sources, integers=False)
        names = tuple(sorted(set(sources)))
    rows = _sentence_rows(predictions, references, sources, names)
    blocks = unit_blocks(block_ids, np.arange(len(rows)), list(range(len(rows))), unit="sentence")
    statistic = _winonb_statistic(names)
    scores = statistic(rows.sum(axis=0))
    scores["num_singular"] = references.count("singular")
    scores["num_plural"] = references.count("plural")
    reasons = {}
    for group in ("", *(f"/{name}" for name in names)):
        where = f" of source {group[1:]}" if group else ""
        for gold in NUMBERS:
            reasons[f"accuracy_{gold}{group}"] = f"no sentence{where} has a {gold} they"
        reasons[f"{DIFFERENCE}{group}"] = f"no sentence{where} has a singular they, or none a plural one"
        reasons[f"singular_read_as_plural{group}"] = f"no sentence{where} has a singular they"
        reasons[f"plural_read_as_singular{group}"] = f"no sentence{where} has a plural they"
    inferences = bootstrap_test(
        rows, statistic, SIGNIFICANCE_NULLS, n_bootstrap=n_bootstrap, seed=seed, unit="sentence", blocks=blocks
    )
    cells = {key: (Cell(group=key.split("/", 1)[1]), key.split("/", 1)[0]) for key in scores if "/" in key}
    return measure_result(
        "winonb_accuracy",
        scores,
        reasons,
        inferences,
        n_bootstrap=n_bootstrap,
        cells=cells,
        primary=DIFFERENCE,
        significance_reasons={name: no_null_reason(name) for name, null in SIGNIFICANCE_NULLS.items() if null is None},
        unit_rows=UnitRows(np.asarray(rows, dtype=float), statistic, (DIFFERENCE,), blocks=blocks),
    )
