"""MISGENDERED (Hossain, Dev and Singh, ACL 2023): does a model use the pronouns a person declared?

Each instance declares a person's pronouns and leaves a blank for one of them in one of five forms; the model
chooses a word for it among every pronoun set's word for that form. Upstream's scripts (``zero-shot/*.py``,
``few-shot/*.py``) mark an instance correct when the chosen word is the label, ``top_1 == label``, and write one
file per declared pronoun set: a set's accuracy is the share of its instances marked correct, a form's the share
of its instances. This measure computes those accuracies (``corefbias.measures.grouped_accuracy``), per set × form
too, and per declaration kind (explicit or parenthetical) and per kind of pronoun set (binary, gender-neutral,
neo-pronoun) where given, with bootstrap intervals over sentences (a sentence: one name in one template under one
declaration, with every pronoun set), or over blocks of them (``block_ids``: the templates and declarations, which a
model answers alike whatever the name), and tests binary − gender-neutral, binary − neo-pronoun and explicit −
parenthetical accuracy against 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import grouped_accuracy, structured_inputs, validation
from .result import MeasureResult

FORMS = (
    "nom",
    "acc",
    "pos_dep",
    "pos_ind",
    "ref",
)  # nominative, accusative, possessive dependent/independent, reflexive
DECLARATION_KINDS = ("explicit", "parenthetical")
# The bias score: binary − neo-pronoun accuracy where the kinds of set are given; without them, none.
PRIMARY_WITHOUT_GROUPS = None
DECLARATION_CONTRAST = grouped_accuracy.Contrast(
    "explicit_minus_parenthetical", "declaration_kind", "explicit", "parenthetical"
)


def misgendered_accuracy(
    predictions: Sequence,
    references: Sequence[str],
    pronoun_sets: Sequence[str],
    forms: Sequence[str],
    sentence_ids: Sequence,
    pronoun_groups: Sequence[str] | None = None,
    declaration_kinds: Sequence[str] | None = None,
    *,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """MISGENDERED's accuracies as its scripts compute them, per pronoun set, form, declaration and kind of set.

    Parameters
    ----------
    predictions : list of str or None
        The word the model chose for each blank; None where it chose none (or its answer could not be read),
        which counts as wrong.
    references : list of str
        The declared set's word for the blank (upstream's label, capitalized where the blank opens a sentence).
    pronoun_sets : list of str
        The declared pronoun set (``he``, ``she``, ``they``, ``xe``, ...).
    forms : list of str
        The blank's form: ``nom``, ``acc``, ``pos_dep``, ``pos_ind`` or ``ref``.
    sentence_ids : list of str or int
        The sentence of each instance (one name in one template under one declaration, with every pronoun set
        declared in turn): the bootstrap resamples sentences.
    pronoun_groups : list of str, optional
        ``binary``, ``gender-neutral`` or ``neo-pronoun`` per instance: adds their accuracies and the contrasts.
    declaration_kinds : list of str, optional
        ``explicit`` or ``parenthetical`` per instance: adds their accuracies and explicit − parenthetical.
    block_ids : list of str or int, or list of tuple, optional
        The block of each instance: the template, or a tuple of the template and the declaration (crossed: every
        template is filled under every declaration), inside which a model's answers are not independent; every
        instance of a sentence shares it. The bootstrap draws whole blocks, its intervals and p-values expanded for
        how few they are. Left out: every sentence is a block of its own.
    n_bootstrap : int, default 1000
        Bootstrap resamples (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        Non-negative seed of the resampling.

    Returns
    -------
    MeasureResult
        ``accuracy``; ``accuracy/pronoun_set/<set>``, ``accuracy/form/<form>``,
        ``accuracy/pronoun_set/<set>/form/<form>``; with the optional columns ``accuracy/pronoun_group/<group>``,
        ``accuracy/declaration_kind/<kind>`` and the contrasts ``binary_minus_gender_neutral``,
        ``binary_minus_neo_pronoun``, ``explicit_minus_parenthetical``; ``num_instances``, ``num_units``
        (sentences). ``accuracy`` and each set's accuracy carry a 95% percentile CI (``_ci_low``, ``_ci_high``;
        no p-value: an accuracy has no null), each contrast a CI and a two-sided p-value against 0.
        ``undefined`` maps a score the data leave undefined (None) to the reason.

    Raises
    ------
    ValueError
        If the columns differ in length; a prediction is not a string or None; a reference, set or sentence id is
        missing; a form, kind of set or declaration kind is not one of its values; a block id is no id, or a
        sentence's instances lie in two blocks; or the significance settings are invalid.

    Examples
    --------
    Two sentences, each with he and xe declared; the model writes "he" every time:

    >>> result = misgendered_accuracy(
    ...     ["he", "he", "him", "him"], ["he", "xe", "him", "xem"], ["he", "xe", "he", "xe"],
    ...     ["nom", "nom", "acc", "acc"], ["s1", "s1", "s2", "s2"],
    ...     pronoun_groups=["binary", "neo-pronoun"] * 2, n_bootstrap=0,
    ... )
    >>> result["accuracy"], result["accuracy/pronoun_set/xe"], result["binary_minus_neo_pronoun"]
    (0.5, 0.0, 1.0)
    >>> result["binary_minus_gender_neutral"], result["undefined"]["binary_minus_gender_neutral"]
    (None, "no instance has pronoun_group 'binary', or none has 'gender-neutral'")
    """
    validation.check_lengths(
        predictions=predictions,
        references=references,
        pronoun_sets=pronoun_sets,
        forms=forms,
        sentence_ids=sentence_ids,
        optional={"pronoun_groups": pronoun_groups, "declaration_kinds": declaration_kinds, "block_ids": block_ids},
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    correct = grouped_accuracy.check_words(predictions, references)
    groupings = {
        "pronoun_set": validation.check_ids("pronoun_sets", pronoun_sets, integers=False),
        "form": structured_inputs.check_labels("forms", forms, FORMS),
    }
    contrasts = []
    if pronoun_groups is not None:
        groupings["pronoun_group"] = structured_inputs.check_labels(
            "pronoun_groups", pronoun_groups, grouped_accuracy.PRONOUN_GROUPS
        )
        contrasts += grouped_accuracy.GROUP_CONTRASTS
    if declaration_kinds is not None:
        groupings["declaration_kind"] = structured_inputs.check_labels(
            "declaration_kinds", declaration_kinds, DECLARATION_KINDS
        )
        contrasts.append(DECLARATION_CONTRAST)
    return grouped_accuracy.grouped_accuracy(
        "misgendered_accuracy",
        correct,
        validation.check_ids("sentence_ids", sentence_ids, missing="is empty; give every instance its sentence"),
        groupings,
        crossed=(("pronoun_set", "form"),),
        contrasts=contrasts,
        with_interval=("pronoun_set",),
        primary="binary_minus_neo_pronoun" if pronoun_groups is not None else PRIMARY_WITHOUT_GROUPS,
        block_ids=block_ids,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
