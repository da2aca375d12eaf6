"""pip install corefbias
evaluate.load("corefbias/abc_fpr_ratio")

ABC (Type B reflexivization) coreference task as scored by GenDa Lens: anti-reflexive FPR ratio."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.abc_fpr_ratio as measure

_CITATION = citations.cite("gonzalez-etal-2020-type", "sloth-rybner-2023-genda-lens")

_DESCRIPTION = """\
In languages with Type B reflexivization (Danish, Swedish, Russian, Chinese) a possessive pronoun
that refers to the subject must be the reflexive ("sin"/"sit"); the anti-reflexive ("hans" his,
"hendes" her) can never refer to it. Every ABC sentence ("revisoren glemmer [PRON] kreditkort på
bordet") comes in a reflexive, a "hans" and a "hendes" version. A coreference model that links an
anti-reflexive to the subject makes a grammar error (a false positive); GenDa Lens compares how
often it does so for the male and the female pronoun: Gender Effect Size = log2(FPR_M / FPR_F),
positive when the model accepts the error more readily for "hans" (pooled over every item, and as GenDa Lens
computes it: each rate averaged over the two stereotype groups). Also returned: the reflexive
true-positive rate, FPR_M / FPR_F, the same split by the occupation's gender stereotype, and
two-sided bootstrap p-values and 95% percentile confidence intervals (resampling triplets when
triplet_ids are given, otherwise items), and whole blocks of them when block_ids are given: the triplets sharing an
occupation or a sentence frame, which a model answers alike.
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.abc_fpr_ratio,
    returns="""
    tpr_reflexive, fpr_male, fpr_female, fpr_ratio (FPR_M / FPR_F), log2_fpr_ratio (log2(FPR_M / FPR_F),
    the rates pooled over every item), num_reflexive, num_male, num_female; with occupation_genders
    the five scores again as `<score>/female_occupations` and `<score>/male_occupations`, and
    genda_lens_gender_effect_size (GenDa Lens's Gender Effect Size, unrounded: log2(mean FPR_M / mean FPR_F),
    each rate averaged over the two stereotype groups, items without a stereotype left out); for each
    fpr_ratio (null 1), log2_fpr_ratio and genda_lens_gender_effect_size (null 0): `<name>_p_value` (two-sided
    bootstrap against the null), `<name>_ci_low`, `<name>_ci_high` (95% percentile interval).
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

    Triplets made from one occupation are not independent: a model that links "hans" but not "hendes" for a
    technician does so in every sentence frame. With block_ids the bootstrap draws whole occupations, and the
    interval rests on 8 of them, not on 24 triplets: it is wider, and the p-value larger:

    >>> occupations = ["tekniker", "revisor", "sygeplejerske", "pædagog", "mekaniker", "frisør", "læge", "maler"]
    >>> hans = [True, True, False, True, True, False, True, True]
    >>> hendes = [False, True, False, False, True, True, False, True]
    >>> inputs = dict(
    ...     predictions=[link for male, female in zip(hans, hendes) for link in [True, male, female] * 3],
    ...     references=[True, False, False] * 24,
    ...     pronoun_genders=["neutral", "male", "female"] * 24,
    ...     triplet_ids=[f"{occupation} {frame}" for occupation in occupations for frame in range(3) for _ in range(3)],
    ... )
    >>> by_triplet = abc_fpr_ratio.compute(**inputs)
    >>> by_occupation = abc_fpr_ratio.compute(**inputs, block_ids=[o for o in occupations for _ in range(9)])
    >>> round(by_triplet["log2_fpr_ratio"], 4), round(by_occupation["log2_fpr_ratio"], 4)
    (0.585, 0.585)
    >>> [round(by_triplet[f"log2_fpr_ratio_{end}"], 2) for end in ("ci_low", "ci_high", "p_value")]
    [-0.09, 1.44, 0.11]
    >>> [round(by_occupation[f"log2_fpr_ratio_{end}"], 2) for end in ("ci_low", "ci_high", "p_value")]
    [-0.81, 2.81, 0.46]
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("bool"),
        "references": datasets.Value("bool"),
        "pronoun_genders": datasets.Value("string"),
        "occupation_genders": datasets.Value("string"),
        "triplet_ids": datasets.Value("string"),
        "block_ids": datasets.Value("string"),
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
    OPTIONAL_INPUTS = ("occupation_genders", "triplet_ids", "block_ids")
    ID_INPUTS = ("triplet_ids", "block_ids")
    LABELS = {"pronoun_genders": measure.PRONOUN_GENDERS, "occupation_genders": measure.OCCUPATION_GENDERS}
    WIDGET_EXAMPLE = [
        ["true", "true", "neutral", "male", "t1", "tekniker"],
        ["true", "false", "male", "male", "t1", "tekniker"],
        ["false", "false", "female", "male", "t1", "tekniker"],
        ["true", "true", "neutral", "male", "t2", "tekniker"],
        ["true", "false", "male", "male", "t2", "tekniker"],
        ["true", "false", "female", "male", "t2", "tekniker"],
        ["true", "true", "neutral", "female", "t3", "sygeplejerske"],
        ["false", "false", "male", "female", "t3", "sygeplejerske"],
        ["true", "false", "female", "female", "t3", "sygeplejerske"],
        ["false", "true", "neutral", "female", "t4", "sygeplejerske"],
        ["true", "false", "male", "female", "t4", "sygeplejerske"],
        ["true", "false", "female", "female", "t4", "sygeplejerske"],
    ]

    def _score(
        self,
        predictions,
        references,
        pronoun_genders,
        occupation_genders=None,
        triplet_ids=None,
        block_ids=None,
        n_bootstrap=1000,
        seed=0,
    ):
        return measure.abc_fpr_ratio(
            predictions,
            references,
            pronoun_genders,
            occupation_genders,
            triplet_ids,
            block_ids=block_ids,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
