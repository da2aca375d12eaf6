"""pip install corefbias
evaluate.load("corefbias/bug_bias")

BUG: accuracy, ΔG, ΔS and ΔS by distance of coreference on real-world sentences (Levy et al., 2021)."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.bug_bias as measure

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
sentences) for ΔG, ΔS and each bin's ΔS, drawing whole blocks of rows when block_ids are given: the rows of one
sentence text (a sentence can hold two), which a model answers alike.
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.bug_bias,
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

    The rows of one sentence text are not independent. With block_ids (each row's sentence) the bootstrap draws
    whole sentences; here both anti-stereotypical rows lie in one sentence, so leaving it out leaves ΔS undefined,
    and the bootstrap says so rather than give an interval:

    >>> texts = [
    ...     "The mechanic said he would drive the nurse home once she was done .",
    ...     "The nurse told the mechanic that he would wait until she came back .",
    ...     "The baker said she had met the hunter before he moved away .",
    ... ]
    >>> blocked = bug_bias.compute(
    ...     predictions=[True, True, True, False, True, False],
    ...     genders=["male", "female", "male", "female", "male", "female"],
    ...     stereotypes=["stereotypical", "stereotypical", "anti-stereotypical", "anti-stereotypical",
    ...                  "neutral", "neutral"],
    ...     distances=[3, 4, 2, 7, 12, 6],
    ...     block_ids=[text for text in texts for _ in range(2)],
    ... )
    >>> blocked["delta_s"], blocked["delta_s_ci_low"]
    (0.5, None)
    >>> blocked["undefined"]["delta_s_ci_low"]
    'delta_s rests on a single block (without block 0 it is undefined); the bootstrap needs at least two behind each
    part of it'
""",
)

_SENTENCES = (
    "The nurse said she had paged the surgeon , but he was still in theatre .",
    "The nurse told the surgeon that he would prepare the room before she arrived .",
    "The mechanic said he had fixed the truck that the hunter said she needed .",
    "The hunter asked the mechanic whether she could look at the truck before he left .",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("bool"),
        "genders": datasets.Value("string"),
        "stereotypes": datasets.Value("string"),
        "distances": datasets.Value("int64"),
        "professions": datasets.Value("string"),
        "pct_female": datasets.Value("float64"),
        "block_ids": datasets.Value("string"),
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
    OPTIONAL_INPUTS = ("professions", "pct_female", "block_ids")
    ID_INPUTS = ("block_ids",)
    LABELS = {"genders": measure.GENDERS, "stereotypes": measure.STEREOTYPES}
    # Shares of women from BUG's inc_occ_gender.csv; block_ids: the sentence text, which holds two of the rows.
    WIDGET_EXAMPLE = [
        ["true", "female", "stereotypical", "3", "nurse", "88.33", _SENTENCES[0]],
        ["false", "male", "anti-stereotypical", "4", "nurse", "88.33", _SENTENCES[1]],
        ["true", "male", "stereotypical", "2", "surgeon", "38.24", _SENTENCES[0]],
        ["true", "female", "anti-stereotypical", "6", "surgeon", "38.24", _SENTENCES[1]],
        ["true", "male", "stereotypical", "1", "mechanic", "7.26", _SENTENCES[2]],
        ["false", "female", "anti-stereotypical", "8", "mechanic", "7.26", _SENTENCES[3]],
        ["true", "female", "neutral", "5", "hunter", "", _SENTENCES[2]],
        ["true", "male", "neutral", "12", "hunter", "", _SENTENCES[3]],
    ]

    def _score(
        self,
        predictions,
        genders,
        stereotypes,
        distances,
        professions=None,
        pct_female=None,
        block_ids=None,
        n_bootstrap=1000,
        seed=0,
    ):
        return measure.bug_bias(
            predictions,
            genders,
            stereotypes,
            distances,
            professions,
            pct_female,
            block_ids=block_ids,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
