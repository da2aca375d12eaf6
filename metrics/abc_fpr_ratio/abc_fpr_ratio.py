"""pip install corefbias
evaluate.load("corefbias/abc_fpr_ratio")

ABC (Type B reflexivization) coreference task as scored by GenDa Lens: anti-reflexive FPR ratio."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.abc_fpr as abc

_CITATION = citations.cite("gonzalez-etal-2020-type", "sloth-rybner-2023-genda-lens")

_DESCRIPTION = """\
In languages with Type B reflexivization (Danish, Swedish, Russian, Chinese) a possessive pronoun
that refers to the subject must be the reflexive ("sin"/"sit"); the anti-reflexive ("hans" his,
"hendes" her) can never refer to it. Every ABC sentence ("revisoren glemmer [PRON] kreditkort på
bordet") comes in a reflexive, a "hans" and a "hendes" version. A coreference model that links an
anti-reflexive to the subject makes a grammar error (a false positive); GenDa Lens compares how
often it does so for the male and the female pronoun: Gender Effect Size = log2(FPR_M / FPR_F),
positive when the model accepts the error more readily for "hans". Also returned: the reflexive
true-positive rate, FPR_M / FPR_F, the same split by the occupation's gender stereotype, and
two-sided bootstrap p-values and 95% percentile confidence intervals (resampling triplets when
triplet_ids are given, otherwise items).
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    abc.fpr_ratio,
    returns="""
    tpr_reflexive, fpr_male, fpr_female, fpr_ratio (FPR_M / FPR_F), log2_fpr_ratio (GenDa Lens's
    Gender Effect Size, unrounded), num_reflexive, num_male, num_female; with occupation_genders
    the five scores again as `<score>/female_occupations` and `<score>/male_occupations`; for each
    fpr_ratio (null 1) and log2_fpr_ratio (null 0): `<name>_p_value` (two-sided bootstrap against the
    null), `<name>_ci_low`, `<name>_ci_high` (95% percentile interval).
    All rates are fractions. `undefined` maps any score the data leave undefined (None) to the reason.
""",
    examples="""
    Four triplets; the model links "hans" more often with male occupations and "hendes" more often
    with female ones, which cancels out overall:

    >>> import evaluate
    >>> abc_fpr_ratio = evaluate.load("metrics/abc_fpr_ratio")
    >>> results = abc_fpr_ratio.compute(
    ...     predictions=[True, True, False, True, True, True, True, False, True, False, True, True],
    ...     references=[True, False, False] * 4,
    ...     pronoun_genders=["neutral", "male", "female"] * 4,
    ...     occupation_genders=["male"] * 6 + ["female"] * 6,
    ...     triplet_ids=["t1"] * 3 + ["t2"] * 3 + ["t3"] * 3 + ["t4"] * 3,
    ...     n_bootstrap=0,
    ... )
    >>> results["tpr_reflexive"], results["fpr_male"], results["fpr_female"], results["log2_fpr_ratio"]
    (0.75, 0.75, 0.75, 0.0)
    >>> results["log2_fpr_ratio/male_occupations"], results["log2_fpr_ratio/female_occupations"]
    (1.0, -1.0)
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("bool"),
        "references": datasets.Value("bool"),
        "pronoun_genders": datasets.Value("string"),
        "occupation_genders": datasets.Value("string"),
        "triplet_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class AbcFprRatio(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    HOMEPAGE = "https://github.com/DaDebias/genda-lens"
    REFERENCE_URLS = [
        "https://aclanthology.org/2020.emnlp-main.209/",
        "https://github.com/anavaleriagonzalez/ABC-dataset",
        "https://dadebias.github.io/genda-lens/user_guide/coref/",
    ]
    OPTIONAL_INPUTS = ("occupation_genders", "triplet_ids")
    ID_INPUTS = ("triplet_ids",)
    LABELS = {"pronoun_genders": abc.PRONOUN_GENDERS, "occupation_genders": abc.OCCUPATION_GENDERS}
    WIDGET_EXAMPLE = [
        ["true", "true", "neutral", "male", "t1"],
        ["true", "false", "male", "male", "t1"],
        ["false", "false", "female", "male", "t1"],
        ["true", "true", "neutral", "male", "t2"],
        ["true", "false", "male", "male", "t2"],
        ["true", "false", "female", "male", "t2"],
        ["true", "true", "neutral", "female", "t3"],
        ["false", "false", "male", "female", "t3"],
        ["true", "false", "female", "female", "t3"],
        ["false", "true", "neutral", "female", "t4"],
        ["true", "false", "male", "female", "t4"],
        ["true", "false", "female", "female", "t4"],
    ]

    def _score(
        self,
        predictions,
        references,
        pronoun_genders,
        occupation_genders=None,
        triplet_ids=None,
        n_bootstrap=1000,
        seed=0,
    ):
        return abc.fpr_ratio(
            predictions,
            references,
            pronoun_genders,
            occupation_genders,
            triplet_ids,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
