"""pip install corefbias
evaluate.load("corefbias/condition_accuracy_diff")

Accuracy under each condition (MAP's ablations of gender cues, GICoref's pronoun types) and its difference to a
reference condition, resampling units (snippets, documents), Holm-adjusted."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.condition_accuracy_diff as measure

_CITATION = citations.cite("cao-daume-iii-2020-toward")

_DESCRIPTION = """\
MAP (Cao & Daumé, 2020) removes the cues to people's gender from Wikipedia snippets one kind at a time (names,
pronouns, terms of address, gendered nouns) and asks how much accuracy each removal costs against the same snippets
unablated; GICoref (same paper) asks how much worse neopronouns and they are resolved than he and she in the same
documents. Both are this score: the accuracy of each condition, and each condition's difference to the reference
(accuracy(condition) − accuracy(reference), below 0 where the condition is harder), with a bootstrap over the units
(a snippet with all its versions, a document with all its pronouns: paired where every unit holds every condition)
and the differences' two-sided p-values Holm-adjusted as one family. With block_ids (the page or text several units come
from, which a system answers alike) the bootstrap draws whole blocks, its intervals and p-values expanded for how
few they are.
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.condition_accuracy_diff,
    returns="""
    accuracy/<condition> for every condition (with _ci_low, _ci_high), diff/<condition> for every other condition
    than the reference (accuracy(condition) − accuracy(reference)) with diff/<condition>_p_value (two-sided
    bootstrap against 0, Holm-adjusted across the differences), _ci_low, _ci_high (95% percentile interval);
    count/<condition>, num_instances, num_units; reference, and diff_unadjusted_p_value (condition → the bootstrap
    p-value before Holm's adjustment). Fractions, not percentages; `undefined` maps any score the data leave
    undefined (None) to the reason.
""",
    examples="""
    Two snippets, each in its original form and with names removed: both originals right, one ablated one:

    >>> import evaluate
    >>> condition_accuracy_diff = evaluate.load("metrics/condition_accuracy_diff")
    >>> results = condition_accuracy_diff.compute(
    ...     predictions=["A", "B", "A", "A"],
    ...     references=["A", "B", "A", "B"],
    ...     conditions=["original", "original", "ent", "ent"],
    ...     units=["s1", "s2", "s1", "s2"],
    ...     reference="original",
    ...     n_bootstrap=0,
    ... )
    >>> results["accuracy/original"], results["accuracy/ent"], results["diff/ent"], results["num_units"]
    (1.0, 0.5, -0.5, 2)
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("string"),
        "references": datasets.Value("string"),
        "conditions": datasets.Value("string"),
        "units": datasets.Value("string"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ConditionAccuracyDiff(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    OPTIONAL_INPUTS = ("block_ids",)
    ID_INPUTS = ("units", "block_ids")
    HOMEPAGE = "https://github.com/TristaCao/into_inclusivecoref"
    REFERENCE_URLS = ["https://aclanthology.org/2020.acl-main.418"]
    WIDGET_EXAMPLE = [
        ["A", "A", "original", "s1", "wikipedia/Ada_Lovelace"],
        ["B", "B", "original", "s2", "wikipedia/Ada_Lovelace"],
        ["A", "B", "original", "s3", "wikipedia/Alan_Turing"],
        ["A", "A", "ent", "s1", "wikipedia/Ada_Lovelace"],
        ["A", "B", "ent", "s2", "wikipedia/Ada_Lovelace"],
        ["A", "B", "ent", "s3", "wikipedia/Alan_Turing"],
    ]

    def _score(
        self, predictions, references, conditions, units, block_ids=None, reference="original", n_bootstrap=1000, seed=0
    ):
        return measure.condition_accuracy_diff(
            predictions,
            references,
            conditions,
            units,
            reference=reference,
            block_ids=block_ids,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
