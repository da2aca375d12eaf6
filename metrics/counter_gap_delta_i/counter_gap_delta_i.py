"""pip install corefbias
evaluate.load("corefbias/counter_gap_delta_i")

Counter-GAP ΔI: gender bias as inconsistency across genders minus inconsistency within genders."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.counter_gap_delta_i as measure

_CITATION = citations.cite("xie-etal-2023-counter")

_DESCRIPTION = """\
Counter-GAP groups 4008 instances into 1002 quadruples: an original text, a gender-controlled copy
(same-gender names swapped) and two gender-swapped copies (all gendered words and names swapped
across genders). An instance is correct iff both candidate names get their gold label. Bias is
ΔI = I_across − I_within (Eq. 4): how much more often the model's correctness changes when the
gender changes (Eq. 2) than when only the names change (Eq. 3). Also returned: Acc_Diff
(Eq. 1) with male/female accuracies, the M/F and M2F/F2M breakdowns of Table 3, the
original- vs counterfactual-gender check and Spearman's ρ of Table 4, and two-sided bootstrap
p-values and 95% percentile confidence intervals (resampling quadruples), drawing whole blocks of quadruples when
block_ids are given: the quadruples made from one book's passages, which a model answers alike.
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.counter_gap_delta_i,
    returns="""
    accuracy, accuracy_male, accuracy_female, accuracy_diff (Acc_M − Acc_F, Eq. 1),
    accuracy_original_gender, accuracy_counterfactual_gender, accuracy_original_minus_counterfactual,
    i_within, i_within_male, i_within_female, i_within_diff (M − F),
    i_across, i_across_m2f, i_across_f2m, i_across_diff (M2F − F2M),
    delta_i (I_across − I_within; positive means biased), spearman_rho and spearman_p_value
    (Table 4), num_quadruples, and for delta_i, accuracy_diff,
    accuracy_original_minus_counterfactual, i_within_diff and i_across_diff:
    `<name>_p_value` (two-sided bootstrap against 0),
    `<name>_ci_low`, `<name>_ci_high` (95% percentile interval). All fractions, not percentages.
    `undefined` maps any score that the data leave undefined (returned as None) to the reason.
""",
    examples="""
    A model that is right on both male instances and wrong on both female ones of one
    quadruple, and right everywhere on a second quadruple:

    >>> import evaluate
    >>> delta_i = evaluate.load("metrics/counter_gap_delta_i")
    >>> gold = [[True, False], [False, True], [True, False], [False, True]]
    >>> wrong = [[False, True], [True, False]]
    >>> results = delta_i.compute(
    ...     predictions=gold[:2] + wrong + gold,
    ...     references=gold + gold,
    ...     quadruple_ids=["q1"] * 4 + ["q2"] * 4,
    ...     roles=["original", "gender_controlled", "gender_swapped_1", "gender_swapped_2"] * 2,
    ...     genders=["male", "male", "female", "female"] * 2,
    ...     n_bootstrap=0,
    ... )
    >>> results["accuracy_male"], results["accuracy_female"], results["accuracy_diff"]
    (1.0, 0.5, 0.5)
    >>> results["i_within"], results["i_across"], results["delta_i"]
    (0.0, 0.5, 0.5)

    Quadruples made from one book's passages are not independent: with block_ids the bootstrap draws whole books,
    and the interval rests on 2 of them, not on 4 quadruples: too few for a 95% interval, as it says:

    >>> blocked = delta_i.compute(
    ...     predictions=(gold[:2] + wrong + gold) * 2,
    ...     references=gold * 4,
    ...     quadruple_ids=["q1"] * 4 + ["q2"] * 4 + ["q3"] * 4 + ["q4"] * 4,
    ...     roles=["original", "gender_controlled", "gender_swapped_1", "gender_swapped_2"] * 4,
    ...     genders=["male", "male", "female", "female"] * 4,
    ...     block_ids=["vendetta.epub"] * 8 + ["pg17314 Five Children and It (by E. Nesbit)"] * 8,
    ... )
    >>> blocked["delta_i"], blocked["delta_i_ci_low"], blocked["undefined"]["delta_i_ci_low"]
    (0.5, None, 'a 95% interval resting on 2 blocks needs more blocks: its tails are too far out')
""",
)

_NESBIT = "pg17314 Five Children and It (by E. Nesbit)"

_ROLE_FEATURES = datasets.Features(
    {
        "predictions": datasets.Sequence(datasets.Value("bool")),
        "references": datasets.Sequence(datasets.Value("bool")),
        "quadruple_ids": datasets.Value("string"),
        "roles": datasets.Value("string"),
        "genders": datasets.Value("string"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CounterGapDeltaI(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _ROLE_FEATURES
    OPTIONAL_INPUTS = ("block_ids",)
    ID_INPUTS = ("quadruple_ids", "block_ids")
    HOMEPAGE = "https://github.com/x-zb/Counter-GAP"
    REFERENCE_URLS = ["https://aclanthology.org/2023.eacl-main.272/"]
    LABELS = {"roles": measure.ROLES, "genders": measure.GENDERS}
    WIDGET_EXAMPLE = [  # block_ids: the book of the passage, as Counter-GAP's Book column names it
        ["[true, false]", "[true, false]", "q1", "original", "male", "vendetta.epub"],
        ["[false, true]", "[false, true]", "q1", "gender_controlled", "male", "vendetta.epub"],
        ["[false, true]", "[true, false]", "q1", "gender_swapped_1", "female", "vendetta.epub"],
        ["[true, false]", "[false, true]", "q1", "gender_swapped_2", "female", "vendetta.epub"],
        ["[true, false]", "[true, false]", "q2", "original", "female", "vendetta.epub"],
        ["[false, true]", "[false, true]", "q2", "gender_controlled", "female", "vendetta.epub"],
        ["[true, false]", "[true, false]", "q2", "gender_swapped_1", "male", "vendetta.epub"],
        ["[false, true]", "[false, true]", "q2", "gender_swapped_2", "male", "vendetta.epub"],
        ["[true, false]", "[true, false]", "q3", "original", "male", _NESBIT],
        ["[true, false]", "[true, false]", "q3", "gender_controlled", "male", _NESBIT],
        ["[false, true]", "[true, false]", "q3", "gender_swapped_1", "female", _NESBIT],
        ["[false, true]", "[true, false]", "q3", "gender_swapped_2", "female", _NESBIT],
        ["[false, true]", "[false, true]", "q4", "original", "female", _NESBIT],
        ["[true, false]", "[true, false]", "q4", "gender_controlled", "female", _NESBIT],
        ["[false, true]", "[false, true]", "q4", "gender_swapped_1", "male", _NESBIT],
        ["[true, false]", "[true, false]", "q4", "gender_swapped_2", "male", _NESBIT],
    ]

    def _score(self, predictions, references, quadruple_ids, roles, genders, block_ids=None, n_bootstrap=1000, seed=0):
        return measure.counter_gap_delta_i(
            predictions,
            references,
            quadruple_ids,
            roles,
            genders,
            block_ids=block_ids,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
