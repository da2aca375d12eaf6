"""pip install corefbias
evaluate.load("corefbias/ruff_accuracy")

RUFF (Gautam et al., 2024): does a model keep to a person's pronoun when distractor sentences intervene?"""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.ruff_accuracy as measure

_CITATION = citations.cite("gautam-etal-2024-robust")

_DESCRIPTION = """\
RUFF (Gautam et al., TACL 2024) introduces an occupation with a pronoun (he, she, they or xe), adds 0 to 5
distractor sentences about a participant introduced with another pronoun, and leaves a blank for the occupation's
pronoun in a task sentence. A model chooses among the four pronouns in the blank's case; upstream's
score_models.py writes the chosen one (verbalized_token) beside the declared one, and the paper reports the share
that match per declared pronoun and per number of distractors. Returned: accuracy overall, per declared pronoun,
per number of distractors, per pronoun × distractors, per kind of set (binary, gender-neutral, neo-pronoun) and
per case, with 95% bootstrap intervals over contexts (a task sentence after one context, with every declared and
confusing pronoun), and binary − gender-neutral, binary − neo-pronoun and no distractors − five with two-sided
bootstrap p-values against 0. With block_ids (the occupation, whose task sentences a model answers alike
whatever the context) the bootstrap draws whole occupations, its intervals and p-values expanded for how few they
are.
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.ruff_accuracy,
    returns="""
    accuracy; accuracy/pronoun_set/<set>, accuracy/distractors/<n>, accuracy/pronoun_set/<set>/distractors/<n>;
    with the optional inputs accuracy/pronoun_group/<group>, accuracy/case/<case> and the contrasts
    binary_minus_gender_neutral, binary_minus_neo_pronoun; always no_distractors_minus_five; num_instances,
    num_units. accuracy and each set's and each number of distractors' accuracy carry `<name>_ci_low`,
    `<name>_ci_high` (95% percentile interval; their `_p_value` is None: an accuracy has no null), each contrast
    also `<name>_p_value` (two-sided bootstrap against 0). Fractions, not percentages. `undefined` maps any score
    the data leave undefined (None) to the reason.
""",
    examples="""
    One context without distractors and one with five, each with he and xe declared; the model keeps to the
    pronoun only without distractors:

    >>> import evaluate
    >>> ruff_accuracy = evaluate.load("metrics/ruff_accuracy")
    >>> results = ruff_accuracy.compute(
    ...     predictions=["he", "xe", "he", "he"],
    ...     references=["he", "xe", "he", "xe"],
    ...     pronoun_sets=["he", "xe", "he", "xe"],
    ...     distractors=[0, 0, 5, 5],
    ...     context_ids=["c1", "c1", "c2", "c2"],
    ...     n_bootstrap=0,
    ... )
    >>> results["accuracy/distractors/0"], results["accuracy/distractors/5"], results["no_distractors_minus_five"]
    (1.0, 0.5, 0.5)
    >>> results["accuracy/pronoun_set/xe"]
    0.5
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("string"),
        "references": datasets.Value("string"),
        "pronoun_sets": datasets.Value("string"),
        "distractors": datasets.Value("int64"),
        "context_ids": datasets.Value("string"),
        "pronoun_groups": datasets.Value("string"),
        "cases": datasets.Value("string"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RuffAccuracy(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    HOMEPAGE = "https://github.com/uds-lsv/robust-pronoun-fidelity"
    REFERENCE_URLS = ["https://github.com/uds-lsv/robust-pronoun-fidelity"]
    OPTIONAL_INPUTS = ("pronoun_groups", "cases", "block_ids")
    ID_INPUTS = ("context_ids", "block_ids")
    NULLABLE_INPUTS = ("predictions",)
    LABELS = {"pronoun_groups": measure.grouped_accuracy.PRONOUN_GROUPS, "cases": measure.CASES}
    WIDGET_EXAMPLE = [
        ["he", "he", "he", "0", "c1", "binary", "nom", "technician"],
        ["xe", "xe", "xe", "0", "c1", "neo-pronoun", "nom", "technician"],
        ["they", "they", "they", "0", "c1", "gender-neutral", "nom", "technician"],
        ["him", "him", "he", "5", "c2", "binary", "acc", "technician"],
        ["them", "xem", "xe", "5", "c2", "neo-pronoun", "acc", "technician"],
        ["him", "them", "they", "5", "c2", "gender-neutral", "acc", "technician"],
        ["she", "she", "she", "0", "c3", "binary", "nom", "nurse"],
        ["xe", "xe", "xe", "0", "c3", "neo-pronoun", "nom", "nurse"],
        ["her", "xyr", "xe", "5", "c4", "neo-pronoun", "poss", "nurse"],
        ["her", "her", "she", "5", "c4", "binary", "poss", "nurse"],
    ]

    def _score(
        self,
        predictions,
        references,
        pronoun_sets,
        distractors,
        context_ids,
        pronoun_groups=None,
        cases=None,
        block_ids=None,
        n_bootstrap=1000,
        seed=0,
    ):
        return measure.ruff_accuracy(
            predictions,
            references,
            pronoun_sets,
            distractors,
            context_ids,
            pronoun_groups,
            cases,
            block_ids=block_ids,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
