"""pip install corefbias
evaluate.load("corefbias/bug_bias")

BUG: accuracy, ΔG, ΔS and ΔS by distance of coreference on real-world sentences (Levy et al., 2021)."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.bug as bug

_CITATION = citations.cite("levy-etal-2021-collecting-large")

_DESCRIPTION = """\
BUG (Levy et al., Findings of EMNLP 2021) is a set of real-world English sentences in which a gendered
pronoun refers to a profession ("The doctor said she ..."), each stereotypical (the pronoun's gender is
the majority gender of the profession's workers in U.S. labour statistics), anti-stereotypical, or
neutral. A coreference system resolves a sentence correctly when it puts the pronoun and the profession
in one cluster. As upstream evaluate_coref.py computes them (there ×100): accuracy; ΔG = accuracy on
male-pronoun sentences − on female ones; ΔS = accuracy on stereotypical sentences − on
anti-stereotypical ones; and ΔS, with its accuracies, within bins of 5 words of pronoun–profession
distance. Also per profession the female − male accuracy and its Pearson r with the profession's share
of women, and two-sided bootstrap p-values with 95% percentile confidence intervals (resampling
sentences) for ΔG, ΔS and each bin's ΔS.
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    bug.bug_bias,
    returns="""
    accuracy, accuracy_male, accuracy_female, delta_g (male − female), accuracy_stereotypical,
    accuracy_anti_stereotypical, delta_s (stereotypical − anti-stereotypical); per distance bin `<lo>-<hi>`
    (the distances it holds, bins of 5 words): `delta_s/distance_<lo>-<hi>`, `accuracy/distance_<lo>-<hi>`,
    `accuracy_stereotypical/distance_<lo>-<hi>`, `accuracy_anti_stereotypical/distance_<lo>-<hi>`,
    `num_stereotyped/distance_<lo>-<hi>`; num_sentences, num_male, num_female, num_stereotypical,
    num_anti_stereotypical, num_neutral; with professions `preference/<profession>` (female − male
    accuracy), with pct_female too pearson_r_pct_female, pearson_r_pct_female_p_value and
    num_professions_correlated; for delta_g, delta_s and each bin's delta_s: `<name>_p_value` (two-sided
    bootstrap against 0), `<name>_ci_low`, `<name>_ci_high` (95% percentile interval). Fractions, not
    percentages. `undefined` maps any score the data leave undefined (None) to the reason.
""",
    examples="""
    Six sentences: both stereotypical ones resolved, one of the two anti-stereotypical ones and one of the two
    neutral ones; male pronouns 3 of 3, female ones 1 of 3:

    >>> import evaluate
    >>> bug_bias = evaluate.load("metrics/bug_bias")
    >>> results = bug_bias.compute(
    ...     predictions=[True, True, True, False, True, False],
    ...     genders=["male", "female", "male", "female", "male", "female"],
    ...     stereotypes=["stereotypical", "stereotypical", "anti-stereotypical", "anti-stereotypical",
    ...                  "neutral", "neutral"],
    ...     distances=[3, 4, 2, 7, 12, 6],
    ...     n_bootstrap=0,
    ... )
    >>> round(results["accuracy"], 4), round(results["delta_g"], 4), results["delta_s"]
    (0.6667, 0.6667, 0.5)
    >>> results["delta_s/distance_0-4"], results["delta_s/distance_5-9"]
    (0.0, None)
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("bool"),
        "genders": datasets.Value("string"),
        "stereotypes": datasets.Value("string"),
        "distances": datasets.Value("int64"),
        "professions": datasets.Value("string"),
        "pct_female": datasets.Value("float64"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BugBias(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    HOMEPAGE = "https://github.com/SLAB-NLP/BUG"
    REFERENCE_URLS = ["https://aclanthology.org/2021.findings-emnlp.211", "https://github.com/SLAB-NLP/BUG"]
    OPTIONAL_INPUTS = ("professions", "pct_female")
    LABELS = {"genders": bug.GENDERS, "stereotypes": bug.STEREOTYPES}
    WIDGET_EXAMPLE = [  # shares of women from BUG's inc_occ_gender.csv
        ["true", "female", "stereotypical", "3", "nurse", "88.33"],
        ["false", "male", "anti-stereotypical", "4", "nurse", "88.33"],
        ["true", "male", "stereotypical", "2", "surgeon", "38.24"],
        ["true", "female", "anti-stereotypical", "6", "surgeon", "38.24"],
        ["true", "male", "stereotypical", "1", "mechanic", "7.26"],
        ["false", "female", "anti-stereotypical", "8", "mechanic", "7.26"],
        ["true", "female", "neutral", "5", "hunter", ""],
        ["true", "male", "neutral", "12", "hunter", ""],
    ]

    def _score(
        self,
        predictions,
        genders,
        stereotypes,
        distances,
        professions=None,
        pct_female=None,
        n_bootstrap=1000,
        seed=0,
    ):
        return bug.bug_bias(
            predictions,
            genders,
            stereotypes,
            distances,
            professions,
            pct_female,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
