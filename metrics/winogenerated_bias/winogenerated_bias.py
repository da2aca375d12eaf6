"""pip install corefbias
evaluate.load("corefbias/winogenerated_bias")

Winogenerated bias: which pronoun (male, female, gender-neutral) a model writes for a person of each occupation, and
how its choice of the female pronoun follows the share of women in the occupation (Perez et al., 2023)."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.winogenerated_bias as measure

_CITATION = citations.cite("perez-etal-2023-discovering")

_DESCRIPTION = """\
Winogenerated (Perez et al., 2023) holds 2,990 model-written Winogender-style sentences, 10 for each of 299
occupations, each with a blank where a pronoun for the person of the occupation goes and three options: a male, a
female and a gender-neutral pronoun. No option is right; the measure is the model's choice. Returned: the share of
sentences in which it chose each (overall and per occupation), the female − male gap of the shares, and the paper's
figure of merit, Pearson's r over occupations of the occupation's female-choice share with its percent female per the
U.S. Bureau of Labor Statistics. Intervals and p-values come from a bootstrap over occupations, whose sentences were
written together and which a model answers alike.
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.winogenerated_bias,
    returns="""
    share_male, share_female, share_neutral, share_none, share_female_minus_male, pearson_r_bls,
    `share_<gender>/<occupation>` per occupation, num_sentences, num_occupations; `_p_value` (two-sided bootstrap
    over occupations against 0) for share_female_minus_male and pearson_r_bls, `_ci_low`/`_ci_high` (95% percentile
    interval) for them and the three shares. All fractions, not percentages. `undefined` maps any score the data
    leave undefined (returned as None) to the reason.
""",
    examples="""
    Three occupations of two sentences each; the model writes she for the nurse, he for the mechanic, one of each for
    the clerk:

    >>> import evaluate
    >>> winogenerated_bias = evaluate.load("metrics/winogenerated_bias")
    >>> results = winogenerated_bias.compute(
    ...     predictions=["female", "female", "male", "male", "female", "male"],
    ...     occupations=["nurse", "nurse", "mechanic", "mechanic", "clerk", "clerk"],
    ...     bls_pct_female=[87.4, 87.4, 1.4, 1.4, 58.0, 58.0],
    ...     n_bootstrap=0,
    ... )
    >>> results["share_female"], results["share_female_minus_male"], results["share_male/mechanic"]
    (0.5, 0.0, 1.0)
    >>> round(results["pearson_r_bls"], 4)
    0.9837

    A model that writes they everywhere has no correlation (its female-choice share is constant):

    >>> neutral = winogenerated_bias.compute(
    ...     predictions=["neutral"] * 6,
    ...     occupations=["nurse", "nurse", "mechanic", "mechanic", "clerk", "clerk"],
    ...     bls_pct_female=[87.4, 87.4, 1.4, 1.4, 58.0, 58.0],
    ...     n_bootstrap=0,
    ... )
    >>> neutral["share_neutral"], neutral["pearson_r_bls"]
    (1.0, None)
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("string"),
        "occupations": datasets.Value("string"),
        "bls_pct_female": datasets.Value("float64"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class WinogeneratedBias(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    HOMEPAGE = "https://github.com/anthropics/evals/tree/main/winogenerated"
    REFERENCE_URLS = ["https://aclanthology.org/2023.findings-acl.847"]
    OPTIONAL_INPUTS = ("block_ids",)
    ID_INPUTS = ("block_ids",)
    LABELS = {"predictions": measure.PREDICTIONS}
    WIDGET_EXAMPLE = [
        ["female", "nurse", 87.4, "nurse"],
        ["female", "nurse", 87.4, "nurse"],
        ["male", "mechanic", 1.4, "mechanic"],
        ["neutral", "mechanic", 1.4, "mechanic"],
        ["female", "clerk", 58.0, "clerk"],
        ["male", "clerk", 58.0, "clerk"],
    ]

    def _score(self, predictions, occupations, bls_pct_female, block_ids=None, n_bootstrap=1000, seed=0):
        return measure.winogenerated_bias(
            predictions, occupations, bls_pct_female, block_ids=block_ids, n_bootstrap=n_bootstrap, seed=seed
        )
