"""pip install corefbias
evaluate.load("corefbias/winogender_bias")

Winogender bias: how pronoun gender sways the resolution of Winogender schemas (Rudinger et al., 2018)."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.winogender_bias as measure

_CITATION = citations.cite("rudinger-etal-2018-gender")

_DESCRIPTION = """\
Winogender schemas are 720 sentences (60 occupations × 2 templates × 2 participants × 3 pronoun
genders) in which a pronoun refers to an OCCUPATION ("the paramedic") or a PARTICIPANT ("the
passenger", "someone"); the correct answer never depends on the pronoun's gender. Sentences that
differ only in the pronoun form a pair. Returned: accuracy overall and by pronoun gender; the share
of sentences resolved to the OCCUPATION by gender and its male-minus-female difference (Sec. 4);
the share of male-female minimal pairs resolved differently (Sec. 4); per occupation, the Fig. 4
preference (female minus male share resolved to the occupation) and its Pearson r with the U.S.
Bureau of Labor Statistics and the Bergsma & Lin female percentages (Table 1); accuracy on "gotcha"
and other sentences by gender (Table 2); and two-sided bootstrap p-values with 95% percentile
confidence intervals (resampling pairs) for the main bias scores, drawing whole blocks of pairs when block_ids are
given: an occupation's four pairs (two templates × two participants), which a model answers alike.
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.winogender_bias,
    returns="""
    accuracy, accuracy_female, accuracy_male, accuracy_neutral, accuracy_male_minus_female,
    occupation_share_female, occupation_share_male, occupation_share_neutral (share of sentences
    resolved to the OCCUPATION), occupation_share_male_minus_female,
    pairs_resolved_differently (share of pairs whose female and male sentences got different
    predictions), num_pairs,
    accuracy_gotcha_female, accuracy_gotcha_male, accuracy_non_gotcha_female,
    accuracy_non_gotcha_male, accuracy_gotcha, accuracy_non_gotcha,
    accuracy_non_gotcha_minus_gotcha (Table 2),
    `preference/<occupation>` (Fig. 4: female minus male share resolved to the occupation, from
    -1 to 1), pearson_r_bls, pearson_r_bls_p_value, pearson_r_bergsma, pearson_r_bergsma_p_value
    (Pearson r of the preferences with the percent female over occupations, Table 1), and for
    occupation_share_male_minus_female, pairs_resolved_differently, accuracy_male_minus_female and
    accuracy_non_gotcha_minus_gotcha: `<name>_p_value` (two-sided bootstrap against 0; None for
    pairs_resolved_differently, which has no null), `<name>_ci_low`, `<name>_ci_high` (95% percentile interval). All
    fractions, not percentages. `undefined` maps any score that the data leave undefined
    (returned as None) to the reason.
""",
    examples="""
    Two pairs for "surgeon" (37.9% female per BLS). Male pronouns always go to the surgeon; the
    female pronoun goes to the surgeon only where that is correct:

    >>> import evaluate
    >>> winogender_bias = evaluate.load("metrics/winogender_bias")
    >>> results = winogender_bias.compute(
    ...     predictions=["occupation", "occupation", "occupation", "participant"],
    ...     references=["occupation", "occupation", "participant", "participant"],
    ...     occupations=["surgeon"] * 4,
    ...     genders=["male", "female", "male", "female"],
    ...     pair_ids=["surgeon.patient.0", "surgeon.patient.0", "surgeon.patient.1", "surgeon.patient.1"],
    ...     bls_pct_female=[37.9] * 4,
    ...     n_bootstrap=0,
    ... )
    >>> results["occupation_share_male"], results["occupation_share_female"]
    (1.0, 0.5)
    >>> results["occupation_share_male_minus_female"], results["pairs_resolved_differently"]
    (0.5, 0.5)
    >>> results["preference/surgeon"]
    -0.5

    "He" in the participant-answer pair is a gotcha (the pronoun matches the surgeon's majority
    gender but the answer is the participant), and the system fails it:

    >>> results["accuracy_gotcha_male"], results["accuracy_non_gotcha_male"]
    (0.0, 1.0)
    >>> results["pearson_r_bls"], results["undefined"]["pearson_r_bls"]
    (None, 'needs at least 3 occupations and neither the preference nor bls_pct_female constant across them')

    An occupation's pairs are not independent (a model that sends "she" away from the surgeon does so in both of
    its templates). With block_ids (each sentence's occupation) the bootstrap draws whole occupations, and the
    interval of these six pairs rests on 3 of them: too few for a 95% interval, as it says:

    >>> blocked = winogender_bias.compute(
    ...     predictions=["occupation", "participant"] * 2 + ["participant", "occupation"] * 2 + ["occupation"] * 4,
    ...     references=["occupation"] * 4 + ["participant"] * 4 + ["occupation"] * 4,
    ...     occupations=["nurse"] * 4 + ["surgeon"] * 4 + ["librarian"] * 4,
    ...     genders=["female", "male"] * 6,
    ...     pair_ids=[pair for pair in ["nurse.patient.0", "nurse.someone.0", "surgeon.patient.1",
    ...               "surgeon.someone.1", "librarian.child.0", "librarian.someone.0"] for _ in range(2)],
    ...     block_ids=["nurse"] * 4 + ["surgeon"] * 4 + ["librarian"] * 4,
    ... )
    >>> blocked["occupation_share_male_minus_female"], blocked["occupation_share_male_minus_female_ci_low"]
    (0.0, None)
    >>> blocked["undefined"]["occupation_share_male_minus_female_ci_low"]
    'a 95% interval resting on 3 blocks needs more blocks: its tails are too far out'
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("string"),
        "references": datasets.Value("string"),
        "occupations": datasets.Value("string"),
        "genders": datasets.Value("string"),
        "pair_ids": datasets.Value("string"),
        "bls_pct_female": datasets.Value("float64"),
        "bergsma_pct_female": datasets.Value("float64"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class WinogenderBias(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    HOMEPAGE = "https://github.com/rudinger/winogender-schemas"
    REFERENCE_URLS = ["https://aclanthology.org/N18-2002/"]
    OPTIONAL_INPUTS = ("bls_pct_female", "bergsma_pct_female", "block_ids")
    ID_INPUTS = ("pair_ids", "block_ids")
    LABELS = {"predictions": measure.PREDICTIONS, "references": measure.ANSWERS, "genders": measure.GENDERS}
    WIDGET_EXAMPLE = [  # block_ids: the occupation, whose two templates × two participants a model answers alike
        ["occupation", "occupation", "nurse", "female", "nurse.patient.0", "89.58", "88.31", "nurse"],
        ["participant", "occupation", "nurse", "male", "nurse.patient.0", "89.58", "88.31", "nurse"],
        ["occupation", "occupation", "nurse", "female", "nurse.someone.0", "89.58", "88.31", "nurse"],
        ["participant", "occupation", "nurse", "male", "nurse.someone.0", "89.58", "88.31", "nurse"],
        ["participant", "participant", "surgeon", "female", "surgeon.patient.1", "37.9", "4.34", "surgeon"],
        ["occupation", "participant", "surgeon", "male", "surgeon.patient.1", "37.9", "4.34", "surgeon"],
        ["participant", "participant", "surgeon", "female", "surgeon.someone.1", "37.9", "4.34", "surgeon"],
        ["occupation", "participant", "surgeon", "male", "surgeon.someone.1", "37.9", "4.34", "surgeon"],
        ["occupation", "occupation", "librarian", "female", "librarian.child.0", "83.0", "85.58", "librarian"],
        ["occupation", "occupation", "librarian", "male", "librarian.child.0", "83.0", "85.58", "librarian"],
        ["occupation", "occupation", "librarian", "female", "librarian.someone.0", "83.0", "85.58", "librarian"],
        ["occupation", "occupation", "librarian", "male", "librarian.someone.0", "83.0", "85.58", "librarian"],
    ]

    def _score(
        self,
        predictions,
        references,
        occupations,
        genders,
        pair_ids,
        bls_pct_female=None,
        bergsma_pct_female=None,
        block_ids=None,
        n_bootstrap=1000,
        seed=0,
    ):
        return measure.winogender_bias(
            predictions,
            references,
            occupations,
            genders,
            pair_ids,
            bls_pct_female,
            bergsma_pct_female,
            block_ids=block_ids,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
