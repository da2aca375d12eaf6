"""The difference of each pronoun set to he/she, paired over templates, with significance: a measure no paper reports.

The sets since 2020 fill one template with several pronoun sets: WinoPron (Gautam et al., 2024) with he, she,
they and xe, MISGENDERED (Hossain et al., 2023) and RUFF (Gautam et al., 2024) with neopronouns too. Their papers
report accuracy per pronoun set side by side; none says whether a set's deficit is more than noise. Here each
non-reference set ``S`` is compared with the binary sets (he and she by default) *on the same templates*:

  * ``accuracy/<S>`` is the share of ``S``'s instances answered correctly (prediction equal to reference);
  * ``accuracy/reference`` is the mean of the reference sets' accuracies (he and she weigh equally);
  * ``diff/<S>`` = ``accuracy/<S>`` − ``accuracy/reference``: below 0 the model resolves ``S`` worse than he/she.

A *template* is one sentence filled with every pronoun set (or a group of such sentences, e.g. WinoPron's two templates
of one occupation, participant and case), and is the resampling unit: a bootstrap replicate draws templates with every
pronoun set's instances in them, so template difficulty cancels out of the difference (the comparison is paired); given
``block_ids`` (WinoPron's and RUFF's occupation, MISGENDERED's template and declaration), it draws whole blocks of
templates, which a model answers alike. Each difference gets a two-sided bootstrap p-value against 0 and a 95%
percentile interval; the p-values of one call's differences are then Holm-adjusted as one family (``comparison.holm``):
``diff/<S>_p_value`` is the adjusted one, ``diff/<S>_unadjusted_p_value`` the raw bootstrap p-value. Given occupations,
each difference is also reported per occupation, and correlated over occupations with the occupation's percent female
(Winogender's U.S. Bureau of Labor Statistics figures, as ``winogender_bias.pearson_correlation`` does for Winogender's
preference).

The accuracies, differences and their Holm-adjusted bootstrap are ``condition_accuracy_diff``'s, with the pronoun
sets as conditions and the templates as units; this module adds what is particular to pronoun sets: every template
must hold every set, the per-occupation view, and the key names its metric reports.

:func:`compare_pronoun_set_diffs` is the compare form: two models' differences on the same templates, their difference
with a paired bootstrap interval and p-value (``comparison.paired_difference``), Holm-adjusted
over the pronoun sets.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import comparison, structured_inputs, validation
from .blocks import unit_blocks
from .condition_accuracy_diff import REFERENCE_ACCURACY, condition_diffs, count_rows, diff_statistic, ordered_conditions
from .resampling import Inference, no_null_reason
from .result import Cell, MeasureResult, measure_result
from .winogender_bias import pearson_correlation

REFERENCE_SETS = ("he", "she")
# Every template holds every set, so a difference is defined on every resample: its p-value is missing only when
# significance is off.
_NOT_COMPUTED = "significance was not computed (n_bootstrap=0)"


def _check_reference_sets(reference_sets, present: Sequence[str]) -> tuple[str, ...]:
    if not validation.is_column(reference_sets) or not reference_sets:
        raise ValueError(
            f"reference_sets must be a non-empty list of pronoun set names such as ['he', 'she'], got "
            f"{reference_sets!r}"
        )
    validation.check_ids("reference_sets", reference_sets, integers=False)
    chosen = tuple(str(name) for name in reference_sets)
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"reference_sets names a pronoun set twice: {list(chosen)}; name each once")
    missing = [name for name in chosen if name not in present]
    if missing:
        raise ValueError(
            f"the reference pronoun set(s) {missing} have no instances; pronoun_sets holds {sorted(present)}. Pass "
            f"reference_sets naming the sets to compare against"
        )
    if len(present) == len(chosen):
        raise ValueError(
            f"every pronoun set given ({sorted(present)}) is a reference set, so there is no difference to "
            f"measure; give instances of another pronoun set (e.g. 'they', 'xe') filled into the same templates"
        )
    return chosen


def _check_paired(template_ids: Sequence, pronoun_sets: Sequence[str], sets: Sequence[str]) -> None:
    """Every template holds every pronoun set, else the difference would not be paired."""
    held: dict = {}
    for template, name in zip(template_ids, pronoun_sets):
        held.setdefault(template, set()).add(name)
    for template, found in held.items():
        missing = [name for name in sets if name not in found]
        if missing:
            raise ValueError(
                f"template {template!r} has no instance with the pronoun set(s) {missing}; the difference is "
                f"paired over templates, so every template needs every pronoun set ({list(sets)}). Leave out templates "
                f"that lack one, or give template_ids that group the variants of one sentence"
            )


def _one_per_template(name: str, values: list, template_ids: list, templates: list) -> list:
    found: dict = {}
    for value, template in zip(values, template_ids):
        known = found.setdefault(template, value)
        if known != value:
            raise ValueError(
                f"template {template!r} has the {name} {known!r} and {value!r}; the variants of one template differ "
                f"only in the pronoun, so a template has one {name}"
            )
    return [found[template] for template in templates]


def _inputs(predictions, references, pronoun_sets, template_ids, reference_sets):
    """The checked inputs: whether each prediction is correct, the pronoun sets, the template ids, the reference
    sets and all sets in the unit rows' column order."""
    predictions = validation.check_ids("predictions", predictions, integers=False)
    references = validation.check_ids("references", references, integers=False)
    pronoun_sets = validation.check_ids("pronoun_sets", pronoun_sets, integers=False)
    template_ids = validation.check_ids(
        "template_ids", template_ids, missing="is None; give every instance the id of its template"
    )
    chosen = _check_reference_sets(reference_sets, sorted(set(pronoun_sets)))
    sets = ordered_conditions(pronoun_sets, chosen)
    _check_paired(template_ids, pronoun_sets, sets)
    correct = [prediction == reference for prediction, reference in zip(predictions, references)]
    return correct, pronoun_sets, template_ids, chosen, sets


def _occupation_view(diffs, occupations, bls_pct_female, template_ids, reasons, cells, correlations) -> dict:
    """Per occupation, each set's difference (``occupation_diff/<set>`` in the occupation's group); and its Pearson r
    over occupations with the percent female (BLS), whose tests go to ``correlations``."""
    occupations = validation.check_ids("occupations", occupations, integers=False)
    per_template = _one_per_template("occupation", occupations, template_ids, diffs.units)
    names = sorted(set(per_template))
    template_occupation = np.searchsorted(names, per_template)
    by_occupation = np.zeros((len(names), diffs.rows.shape[1]))
    np.add.at(by_occupation, template_occupation, diffs.rows)
    per_occupation = diffs.statistic(by_occupation)
    scores: dict = {}
    for name in diffs.compared:
        for job, value in zip(names, per_occupation[f"diff/{name}"]):
            scores[f"occupation_diff/{name}/{job}"] = value
            cells[f"occupation_diff/{name}/{job}"] = (Cell(group=job), f"occupation_diff/{name}")
    if bls_pct_female is None or all(value is None for value in bls_pct_female):
        return scores
    percents = validation.check_numbers(
        "bls_pct_female",
        bls_pct_female,
        low=0.0,
        high=100.0,
        meaning="the occupation's percent female, 0–100, not a fraction",
        missing="is missing but other rows give bls_pct_female; give it for every row or for none",
    )
    by_job: dict = {}
    for job, value in zip(occupations, percents):
        known = by_job.setdefault(job, value)
        if known != value:
            raise ValueError(f"occupation {job!r} has bls_pct_female {known} and {value}; an occupation has one value")
    female = [by_job[job] for job in names]
    for name in diffs.compared:
        key = f"pearson_r_bls/{name}"
        correlations[key] = pearson_correlation(per_occupation[f"diff/{name}"], female)
        scores[key] = correlations[key].r
        reasons[key] = (
            f"needs at least 3 occupations and neither the {name} difference nor bls_pct_female constant across them"
        )
    return scores


def pronoun_set_diff(
    predictions: Sequence[str],
    references: Sequence[str],
    pronoun_sets: Sequence[str],
    template_ids: Sequence,
    occupations: Sequence[str] | None = None,
    bls_pct_female: Sequence[float | None] | None = None,
    *,
    reference_sets: Sequence[str] = REFERENCE_SETS,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """The accuracy difference of each pronoun set to the reference sets (he/she), paired over templates.

    The bootstrap resamples templates; the differences' p-values are Holm-adjusted across the pronoun sets.

    Parameters
    ----------
    predictions : list of str
        the system's answer per instance (e.g. `occupation`, `participant`, `neither`, or a
        pronoun form); an instance is correct when its prediction equals its reference.
    references : list of str
        the correct answer per instance.
    pronoun_sets : list of str
        the pronoun set the instance is filled with, e.g. `he`, `she`, `they`, `xe` (named by
        its nominative form, whatever the case in the sentence).
    template_ids : list of str
        the template each instance fills: the same sentence with another pronoun shares its id;
        every template needs every pronoun set.
    occupations : list of str, optional
        the template's occupation; gives the per-occupation differences.
    bls_pct_female : list of float, optional
        the occupation's percent female per the U.S. Bureau of Labor Statistics (0-100, as in
        Winogender's occupations-stats.tsv); gives each difference's Pearson r with it over occupations.
        Needs occupations.
    reference_sets : list of str, default ["he", "she"]
        the pronoun sets the others are compared with; their accuracies are averaged.
    block_ids : list of str or int, or list of tuple, optional
        the block of each instance: what several templates share and a model answers alike (WinoPron's and
        RUFF's occupation, whose templates differ in case and distractors; a tuple of MISGENDERED's template and
        declaration, two crossed factors); every instance of a template shares it. The bootstrap draws whole
        blocks, its intervals and p-values expanded for how few they are. Left out: every template is a block of
        its own.
    n_bootstrap : int, default 1000
        bootstrap resamples of templates (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        The scores, with the unit rows its significance resampled (a paired comparison of two models resamples
        them again). Its flat keys (all scores are fractions, not percentages):

        * ``accuracy/<set>`` for every pronoun set, ``accuracy/reference`` (mean of the reference
          sets' accuracies), each with ``_ci_low`` and ``_ci_high`` (95% percentile interval);
        * ``diff/<set>`` for every other set: its accuracy minus ``accuracy/reference``, with
          ``diff/<set>_p_value`` (two-sided bootstrap against 0, Holm-adjusted across the sets),
          ``diff/<set>_unadjusted_p_value`` (before the adjustment), ``diff/<set>_ci_low`` and
          ``diff/<set>_ci_high``;
        * ``num_templates``;
        * with occupations: ``occupation_diff/<set>/<occupation>`` (the score ``occupation_diff/<set>`` in the
          occupation's group); with bls_pct_female too:
          ``pearson_r_bls/<set>`` and ``pearson_r_bls/<set>_p_value``;
        * ``undefined``: every key whose value is None, mapped to the reason.

    Raises
    ------
    ValueError
        If the inputs differ in length or are empty; a prediction, reference, pronoun set or
        occupation is not a non-empty string, or a template id not a string or an integer; a
        reference set has no instances, or no other set is given; a template lacks a pronoun set
        or has two occupations; ``bls_pct_female`` is given for some rows only, outside 0-100, has
        two values for one occupation, or is given without occupations; a block id is no id, or a
        template's instances lie in two blocks; or ``n_bootstrap`` or ``seed`` is invalid.

    Notes
    -----
    With ``c_S`` and ``n_S`` the correct and all instances of set S over the templates and R the
    reference sets: acc_S = c_S / n_S, acc_R = mean of acc_r over r in R, diff_S = acc_S − acc_R.
    Every template holds every set, so a resample of templates keeps the comparison paired. The
    Holm adjustment (step-down, family-wise error) treats one call's differences as one family.

    Undefined cases (None, with the reason under ``undefined``): the p-values and intervals with
    ``n_bootstrap=0``; ``pearson_r_bls/<set>`` and its p-value with fewer than 3 occupations or a
    difference or percent female constant across them.

    Examples
    --------
    Two templates, each filled with he, she and they; the model misses "they" in one of them:

    >>> from corefbias.measures.pronoun_set_diff import pronoun_set_diff
    >>> result = pronoun_set_diff(
    ...     predictions=["occupation", "occupation", "participant", "participant", "participant", "participant"],
    ...     references=["occupation"] * 3 + ["participant"] * 3,
    ...     pronoun_sets=["he", "she", "they"] * 2,
    ...     template_ids=["t1"] * 3 + ["t2"] * 3,
    ...     n_bootstrap=0,
    ... )
    >>> result["accuracy/they"], result["accuracy/reference"], result["diff/they"]
    (0.5, 1.0, -0.5)
    >>> result["diff/they_p_value"] is None, result["undefined"]["diff/they_p_value"]
    (True, 'significance was not computed (n_bootstrap=0)')
    """
    validation.check_lengths(
        predictions=predictions,
        references=references,
        pronoun_sets=pronoun_sets,
        template_ids=template_ids,
        optional={"occupations": occupations, "bls_pct_female": bls_pct_female, "block_ids": block_ids},
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    if bls_pct_female is not None and occupations is None:
        raise ValueError("bls_pct_female is per occupation: give occupations with it, or leave it out")
    correct, pronoun_sets, template_ids, chosen, sets = _inputs(
        predictions, references, pronoun_sets, template_ids, reference_sets
    )
    diffs = condition_diffs(
        correct,
        pronoun_sets,
        template_ids,
        chosen,
        block_ids=block_ids,
        unit="template",
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
    scores: dict = dict(diffs.scores)
    scores.update({f"diff/{name}_unadjusted_p_value": diffs.unadjusted[name] for name in diffs.compared})
    scores["num_templates"] = len(diffs.units)
    reasons = {f"diff/{name}_unadjusted_p_value": _NOT_COMPUTED for name in diffs.compared}
    cells: dict = {}
    correlations: dict = {}
    if occupations is not None:
        scores.update(_occupation_view(diffs, occupations, bls_pct_female, template_ids, reasons, cells, correlations))
    return measure_result(
        "pronoun_set_diff",
        scores,
        reasons,
        diffs.inferences,
        n_bootstrap=n_bootstrap,
        cells=cells,
        correlations=correlations,
        significance_reasons={
            **{f"accuracy/{name}": no_null_reason(f"accuracy/{name}") for name in sets},
            REFERENCE_ACCURACY: no_null_reason(REFERENCE_ACCURACY),
            **{key: reasons[key] for key in correlations},
        },
        unit_rows=diffs.unit_rows(),
    )


def compare_pronoun_set_diffs(
    predictions_a: Sequence[str],
    predictions_b: Sequence[str],
    references: Sequence[str],
    pronoun_sets: Sequence[str],
    template_ids: Sequence,
    *,
    reference_sets: Sequence[str] = REFERENCE_SETS,
    block_ids: Sequence | None = None,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> MeasureResult:
    """Does model A's difference of each pronoun set differ from model B's, on the same templates?

    Each set's ``diff/<set>`` of A minus that of B (``comparison.paired_difference``: a paired bootstrap of
    templates, or of blocks of them, for the interval and the p-value), the p-values Holm-adjusted across the
    pronoun sets.

    Parameters
    ----------
    predictions_a, predictions_b : list of str
        The two models' answers to the same instances.
    references, pronoun_sets, template_ids
        As for :func:`pronoun_set_diff`.
    reference_sets : list of str, default ("he", "she")
        The sets the others are compared with.
    block_ids : list, optional
        As for :func:`pronoun_set_diff`.
    n_resamples : int, default 10000
        Bootstrap replicates for the interval and the p-value.
    seed : int, default 0
        Seed of both.

    Returns
    -------
    MeasureResult
        Per other set: ``diff/<set>`` (A − B), ``diff/<set>_a`` and ``diff/<set>_b`` (each model's difference, the score
        ``diff/<set>`` in the condition ``a`` or ``b``),
        ``diff/<set>_ci_low``/``_ci_high`` (95%), ``diff/<set>_p_value`` (Holm-adjusted) and
        ``diff/<set>_unadjusted_p_value``; ``num_templates``; ``undefined``.

    Raises
    ------
    ValueError
        For the inputs :func:`pronoun_set_diff` refuses, ``predictions_b`` of another length, or
        ``n_resamples``/``seed`` that are not a positive / non-negative integer.

    Examples
    --------
    A model that misses "they" in one template of two, against one that never misses:

    >>> from corefbias.measures.pronoun_set_diff import compare_pronoun_set_diffs
    >>> result = compare_pronoun_set_diffs(
    ...     ["occupation", "occupation", "participant"] * 2,
    ...     ["occupation", "occupation", "occupation"] * 2,
    ...     ["occupation"] * 6,
    ...     ["he", "she", "they"] * 2,
    ...     ["t1"] * 3 + ["t2"] * 3,
    ...     n_resamples=200,
    ... )
    >>> result["diff/they_a"], result["diff/they_b"], result["diff/they"]
    (-1.0, 0.0, -1.0)
    """
    validation.check_lengths(
        predictions_a=predictions_a,
        predictions_b=predictions_b,
        references=references,
        pronoun_sets=pronoun_sets,
        template_ids=template_ids,
        optional={"block_ids": block_ids},
    )
    if not validation.is_integer(n_resamples, low=1, high=validation.MAX_BOOTSTRAP):
        raise ValueError(f"n_resamples must be an integer from 1 to {validation.MAX_BOOTSTRAP:,}, got {n_resamples!r}")
    structured_inputs.check_significance(0, seed)
    correct_a, pronoun_sets, template_ids, chosen, sets = _inputs(
        predictions_a, references, pronoun_sets, template_ids, reference_sets
    )
    predictions_b = validation.check_ids("predictions_b", predictions_b, integers=False)
    correct_b = [prediction == reference for prediction, reference in zip(predictions_b, references)]
    templates, rows_a = count_rows(correct_a, pronoun_sets, template_ids, sets)
    _, rows_b = count_rows(correct_b, pronoun_sets, template_ids, sets)
    position = {template: index for index, template in enumerate(templates)}
    blocks = unit_blocks(block_ids, [position[template] for template in template_ids], templates, unit="template")
    names = [f"diff/{name}" for name in sets[len(chosen) :]]
    differences = comparison.paired_difference(
        rows_a, rows_b, diff_statistic(sets, chosen), names, n_resamples=n_resamples, seed=seed, blocks=blocks
    )
    adjusted = comparison.holm([differences[name].p_value for name in names])
    scores: dict = {"num_templates": len(templates)}
    inferences = {}
    reasons = {}
    for name, p_holm in zip(names, adjusted):
        difference = differences[name]
        scores[name] = difference.difference
        scores[f"{name}_a"], scores[f"{name}_b"] = difference.value_a, difference.value_b
        scores[f"{name}_unadjusted_p_value"] = difference.p_value
        inferences[name] = Inference(
            p_holm, difference.ci_low, difference.ci_high, difference.n_valid, n_blocks=difference.n_blocks
        )
        if difference.undefined:
            reasons.update({key: difference.undefined for key in (name, f"{name}_unadjusted_p_value")})
    return measure_result(
        "compare_pronoun_set_diffs",
        scores,
        reasons,
        inferences,
        n_bootstrap=n_resamples,
        cells={f"{name}_{model}": (Cell(condition=model), name) for name in names for model in ("a", "b")},
    )
