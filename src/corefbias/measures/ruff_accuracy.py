"""RUFF (Gautam et al., TACL 2024): robust pronoun fidelity — does a model keep to the pronoun a person was
introduced with, when 0 to 5 sentences about someone else (introduced with another pronoun) intervene?

Upstream's ``scripts/score_models.py`` writes, per instance, the pronoun the model prefers (``verbalized_token``:
the highest-scoring of he, she, they and xe in the blank's case, ties to the first) beside the declared one
(``pronoun``); an instance is right when they are the same word, and the paper reports the share of right
instances per declared pronoun and per number of distractor sentences (one upstream file each). This measure
computes those accuracies (``corefbias.measures.grouped_accuracy``), per pronoun × distractors too and per case
where given, with bootstrap intervals over contexts (a task sentence after one context, with every declared and
confusing pronoun) or blocks of them (``block_ids``: the occupation, whose task sentences a model answers alike
whatever the context), and tests against 0 binary − gender-neutral and binary − neo-pronoun accuracy and the
accuracy without distractors minus that with five.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import grouped_accuracy, structured_inputs, validation
from .result import MeasureResult

MAX_DISTRACTORS = 5
DISTRACTOR_CONTRAST = grouped_accuracy.Contrast("no_distractors_minus_five", "distractors", 0, MAX_DISTRACTORS)
CASES = ("nom", "acc", "poss")
# The bias score: binary − neo-pronoun accuracy where the kinds of set are given; without them, the distractors' drop.
PRIMARY_WITHOUT_GROUPS = DISTRACTOR_CONTRAST.name


def ruff_accuracy(
    predictions: Sequence,
    references: Sequence[str],
    pronoun_sets: Sequence[str],
    distractors: Sequence[int],
    context_ids: Sequence,
    pronoun_groups: Sequence[str] | None = None,
    cases: Sequence[str] | None = None,
    *,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """RUFF's accuracies as ``score_models.py``'s outputs give them, per declared pronoun and number of distractors.

    Parameters
    ----------
    predictions : list of str or None
        The pronoun the model chose for each blank; None where it chose none (or its answer could not be read),
        which counts as wrong.
    references : list of str
        The pronoun the person was introduced with, in the blank's case (upstream's ``pronoun``).
    pronoun_sets : list of str
        The declared pronoun set, named by its nominative (``he``, ``she``, ``they``, ``xe``).
    distractors : list of int
        The number of distractor sentences, 0 to 5 (upstream's six files).
    context_ids : list of str or int
        The context of each instance (a task sentence after one context, with every declared and confusing
        pronoun): the bootstrap resamples contexts.
    pronoun_groups : list of str, optional
        ``binary``, ``gender-neutral`` or ``neo-pronoun`` per instance: adds their accuracies and the contrasts.
    cases : list of str, optional
        The blank's case, ``nom``, ``acc`` or ``poss``: adds the accuracy per case.
    block_ids : list of str or int, or list of tuple, optional
        The block of each instance: the occupation whose task sentences (one per case) every context continues,
        inside which a model's answers are not independent; every instance of a context shares it. The bootstrap
        draws whole blocks, its intervals and p-values expanded for how few they are. Left out: every context is a
        block of its own.
    n_bootstrap : int, default 1000
        Bootstrap resamples (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        Non-negative seed of the resampling.

    Returns
    -------
    MeasureResult
        ``accuracy``; ``accuracy/pronoun_set/<set>``, ``accuracy/distractors/<n>``,
        ``accuracy/pronoun_set/<set>/distractors/<n>``; with the optional columns ``accuracy/pronoun_group/<group>``,
        ``accuracy/case/<case>`` and the contrasts ``binary_minus_gender_neutral``, ``binary_minus_neo_pronoun``;
        always ``no_distractors_minus_five``; ``num_instances``, ``num_units`` (contexts). ``accuracy`` and each
        set's and each number of distractors' accuracy carry a 95% percentile CI (no p-value: an accuracy has no
        null), each contrast a CI and a two-sided p-value against 0. ``undefined`` maps a score the data leave
        undefined (None) to the reason.

    Raises
    ------
    ValueError
        If the columns differ in length; a prediction is not a string or None; a reference, set or context id is
        missing; a number of distractors is not a whole number from 0 to 5; a kind of set or a case is not one of
        its values; a block id is no id, or a context's instances lie in two blocks; or the significance settings
        are invalid.

    Examples
    --------
    One context without distractors and one with five, each with he and xe declared; the model keeps to the
    pronoun only without distractors:

    >>> result = ruff_accuracy(
    ...     ["he", "xe", "he", "he"], ["he", "xe", "he", "xe"], ["he", "xe", "he", "xe"], [0, 0, 5, 5],
    ...     ["c1", "c1", "c2", "c2"], n_bootstrap=0,
    ... )
    >>> result["accuracy/distractors/0"], result["accuracy/distractors/5"], result["no_distractors_minus_five"]
    (1.0, 0.5, 0.5)
    """
    validation.check_lengths(
        predictions=predictions,
        references=references,
        pronoun_sets=pronoun_sets,
        distractors=distractors,
        context_ids=context_ids,
        optional={"pronoun_groups": pronoun_groups, "cases": cases, "block_ids": block_ids},
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    correct = grouped_accuracy.check_words(predictions, references)
    groupings = {
        "pronoun_set": validation.check_ids("pronoun_sets", pronoun_sets, integers=False),
        "distractors": structured_inputs.check_labels(
            "distractors",
            validation.check_integers("distractors", distractors, meaning="distractor sentences"),
            range(MAX_DISTRACTORS + 1),
        ),
    }
    contrasts = [DISTRACTOR_CONTRAST]
    if pronoun_groups is not None:
        groupings["pronoun_group"] = structured_inputs.check_labels(
            "pronoun_groups", pronoun_groups, grouped_accuracy.PRONOUN_GROUPS
        )
        contrasts += grouped_accuracy.GROUP_CONTRASTS
    if cases is not None:
        groupings["case"] = structured_inputs.check_labels("cases", cases, CASES)
    return grouped_accuracy.grouped_accuracy(
        "ruff_accuracy",
        correct,
        validation.check_ids("context_ids", context_ids, missing="is empty; give every instance its context"),
        groupings,
        crossed=(("pronoun_set", "distractors"),),
        contrasts=contrasts,
        with_interval=("pronoun_set", "distractors"),
        primary="binary_minus_neo_pronoun" if pronoun_groups is not None else PRIMARY_WITHOUT_GROUPS,
        block_ids=block_ids,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
