"""pip install corefbias
evaluate.load("corefbias/winopron_accuracy")

WinoPron accuracy: precision, recall, F1 and accuracy per pronoun set (he, she, they, xe) and grammatical case, as
WinoPron's own scoring script computes them (Gautam et al., 2024)."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.winopron_accuracy as measure

_CITATION = citations.cite("gautam-etal-2024-revisiting")

_DESCRIPTION = """\
WinoPron (Gautam et al., 2024) fills 360 repaired Winogender templates with he, she, they and xe in the
nominative, accusative and possessive case; the pronoun refers to an OCCUPATION ("the technician") or a
PARTICIPANT ("the customer"). Per instance, what the system resolved the pronoun to is a true positive when it is
the answer and a false positive when it is the other entity (the distractor). Returned, exactly as upstream's
scripts/compute_performance.py computes them, for every instance and for each case and pronoun set: precision
(1.0 when nothing was named), recall (equal to accuracy: TP + FN is every instance), F1 and accuracy; the same with
upstream's pairings, where an instance counts only if the four pronoun sets of its template (`paired_template/`) or
the two answers of its pronoun (`paired_coref_dir/`) are all right; and 95% bootstrap intervals of the accuracies,
drawing whole occupations (block_ids) where given: an occupation's schemas, one per case, are answered alike.
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.winopron_accuracy,
    returns="""
    precision, recall, f1, accuracy over every instance, and `<score>/<filter>` for the filters nom, acc, poss, he,
    she, they and xe (e.g. `accuracy/xe`); the same with the prefixes `paired_template/` and `paired_coref_dir/`;
    num_instances; for accuracy and each `accuracy/<filter>`: `_ci_low`, `_ci_high` (95% percentile interval,
    resampling occupation–participant–case groups) and `_p_value` (None: an accuracy has no null). All fractions,
    not percentages. `undefined` maps any score the data leave undefined (returned as None) to the reason.
""",
    examples="""
    One template in four pronoun sets; the system names the distractor for "xe":

    >>> import evaluate
    >>> winopron_accuracy = evaluate.load("metrics/winopron_accuracy")
    >>> results = winopron_accuracy.compute(
    ...     predictions=["participant", "participant", "participant", "occupation"],
    ...     references=["participant"] * 4,
    ...     occupations=["technician"] * 4,
    ...     participants=["customer"] * 4,
    ...     pronoun_sets=["he", "she", "they", "xe"],
    ...     cases=["nom"] * 4,
    ...     n_bootstrap=0,
    ... )
    >>> results["accuracy"], results["precision"], results["accuracy/xe"], results["accuracy/he"]
    (0.75, 0.75, 0.0, 1.0)

    Paired by template, no instance counts, since xe's sentence of the template is wrong:

    >>> results["paired_template/accuracy"], results["paired_coref_dir/accuracy/he"]
    (0.0, 1.0)
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("string"),
        "references": datasets.Value("string"),
        "occupations": datasets.Value("string"),
        "participants": datasets.Value("string"),
        "pronoun_sets": datasets.Value("string"),
        "cases": datasets.Value("string"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class WinopronAccuracy(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    HOMEPAGE = "https://github.com/uds-lsv/winopron"
    REFERENCE_URLS = ["https://github.com/uds-lsv/winopron"]
    OPTIONAL_INPUTS = ("block_ids",)
    ID_INPUTS = ("block_ids",)
    LABELS = {
        "predictions": measure.PREDICTIONS,
        "references": measure.ANSWERS,
        "pronoun_sets": measure.PRONOUN_SETS,
        "cases": measure.CASES,
    }
    WIDGET_EXAMPLE = [
        ["participant", "participant", "technician", "customer", "he", "nom", "technician"],
        ["participant", "participant", "technician", "customer", "she", "nom", "technician"],
        ["neither", "participant", "technician", "customer", "they", "nom", "technician"],
        ["occupation", "participant", "technician", "customer", "xe", "nom", "technician"],
        ["occupation", "occupation", "technician", "customer", "he", "nom", "technician"],
        ["participant", "occupation", "technician", "customer", "she", "nom", "technician"],
        ["occupation", "occupation", "technician", "customer", "they", "nom", "technician"],
        ["occupation", "occupation", "technician", "customer", "xe", "nom", "technician"],
        ["participant", "participant", "technician", "customer", "he", "acc", "technician"],
        ["participant", "participant", "technician", "customer", "xe", "acc", "technician"],
        ["occupation", "occupation", "nurse", "patient", "he", "nom", "nurse"],
        ["occupation", "occupation", "nurse", "patient", "xe", "nom", "nurse"],
    ]

    def _score(
        self,
        predictions,
        references,
        occupations,
        participants,
        pronoun_sets,
        cases,
        block_ids=None,
        n_bootstrap=1000,
        seed=0,
    ):
        return measure.winopron_accuracy(
            predictions,
            references,
            occupations,
            participants,
            pronoun_sets,
            cases,
            block_ids=block_ids,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
