"""pip install corefbias
evaluate.load("corefbias/gap_w_bias")

GAP W-Bias (Kocijan et al., 2021): acc-Bias on a test set weighted to balance the number of names and
the position of the referent between feminine and masculine examples."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.gap_rows as gap_rows
import corefbias.measures.gap_w_bias as measure

_CITATION = citations.cite("kocijan21aaai")

_DESCRIPTION = """\
In GAP test, feminine examples contain more personal names (6.30 vs 5.55) and their referent stands
further from the pronoun (2nd–3rd vs 1st–2nd closest name), so even gender-blind baselines score
acc-Bias well below 1. W-Bias weights the examples so that, for every number of names k (N_k) and
every position k of the referent among the names ordered by distance to the pronoun (D_k), both
genders carry the same total weight, with the weights as even as possible (Theorem 2.1); then
W-Bias = weighted Acc_F / weighted Acc_M, each the weight of the positive candidates the system marks
coreferent over the weight of all positive candidates of that gender. Pass the weights (e.g. the
published ones) or the properties with a variant: `w` (both properties), `wnum` (names only),
`wdist` (position only) or `wt` (the paper's recommendation: drop examples with more than 15 names or
the referent 5th or further, then balance both). Significance as for acc-Bias, weights held fixed, drawing whole
blocks of examples when block_ids are given (the examples taken from one Wikipedia page, which a model answers alike).
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.gap_w_bias,
    returns="""
    w_bias (weighted Acc_F / weighted Acc_M), weighted_accuracy_male, weighted_accuracy_female,
    weighted_accuracy, max_weight, num_zero_weights (examples with a positive candidate but weight 0),
    num_weighted_examples (weight > 0), variant (`given` when weights were passed), w_bias_p_value
    (two-sided bootstrap against 1), w_bias_ci_low, w_bias_ci_high (95% percentile interval), and
    `weights` if asked for. `undefined` maps any score left undefined (returned as None) to the reason.
""",
    examples="""
    A system that always links the closest name. Its masculine referents are closer (ranks 1, 1, 2)
    than its feminine ones (1, 2, 2, 2), so it looks biased (acc-Bias = (1/4) / (2/3) = 0.375); the
    weights balance rank 1 and rank 2 between the genders, and W-Bias shows it is not:

    >>> import evaluate
    >>> w_bias = evaluate.load("metrics/gap_w_bias")
    >>> closest_is_right = [[True, False], [True, False], [False, False], [True, False]] + [[False, False]] * 3
    >>> results = w_bias.compute(
    ...     predictions=closest_is_right,
    ...     references=[[True, False]] * 7,
    ...     genders=["male"] * 3 + ["female"] * 4,
    ...     num_names=[3] * 7,
    ...     correct_ranks=[1, 1, 2, 1, 2, 2, 2],
    ...     variant="w",
    ...     return_weights=True,
    ...     n_bootstrap=0,
    ... )
    >>> round(results["w_bias"], 6), round(results["weighted_accuracy_male"], 6)
    (1.0, 0.25)
    >>> [round(weight, 4) for weight in results["weights"]]
    [0.4375, 0.4375, 2.625, 0.875, 0.875, 0.875, 0.875]

    Resampled example by example, W-Bias has an interval; but examples taken from one Wikipedia page are not
    independent. With block_ids (each example's page) the bootstrap draws whole pages, and as all the masculine
    examples come from one page, it has nothing to draw them from, as it says:

    >>> by_example = w_bias.compute(
    ...     predictions=closest_is_right,
    ...     references=[[True, False]] * 7,
    ...     genders=["male"] * 3 + ["female"] * 4,
    ...     num_names=[3] * 7,
    ...     correct_ranks=[1, 1, 2, 1, 2, 2, 2],
    ...     variant="w",
    ... )
    >>> by_example["w_bias_ci_low"], by_example["w_bias_ci_high"] > 1
    (0.0, True)
    >>> by_page = w_bias.compute(
    ...     predictions=closest_is_right,
    ...     references=[[True, False]] * 7,
    ...     genders=["male"] * 3 + ["female"] * 4,
    ...     num_names=[3] * 7,
    ...     correct_ranks=[1, 1, 2, 1, 2, 2, 2],
    ...     block_ids=["http://en.wikipedia.org/wiki/Alan_Turing"] * 3
    ...     + ["http://en.wikipedia.org/wiki/Ada_Lovelace"] * 2
    ...     + ["http://en.wikipedia.org/wiki/Grace_Hopper"] * 2,
    ...     variant="w",
    ... )
    >>> by_page["w_bias"], by_page["w_bias_ci_low"]
    (1.0, None)
    >>> by_page["undefined"]["w_bias_ci_low"]
    'w_bias rests on a single block (without block 0 it is undefined); the bootstrap needs at least two behind each
    part of it'
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Sequence(datasets.Value("bool")),
        "references": datasets.Sequence(datasets.Value("bool")),
        "genders": datasets.Value("string"),
        "weights": datasets.Value("float64"),
        "num_names": datasets.Value("int64"),
        "correct_ranks": datasets.Value("int64"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GapWBias(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    HOMEPAGE = "https://github.com/vid-koci/weightingGAP"
    REFERENCE_URLS = ["https://arxiv.org/abs/2011.01837"]
    OPTIONAL_INPUTS = ("weights", "num_names", "correct_ranks", "block_ids")
    ID_INPUTS = ("block_ids",)
    LABELS = {"genders": gap_rows.GENDERS}
    WIDGET_EXAMPLE = [  # block_ids: the Wikipedia page of the example, as GAP's URL column gives it
        ["[true, false]", "[true, false]", "male", "", "3", "1", "http://en.wikipedia.org/wiki/Alan_Turing"],
        ["[true, false]", "[true, false]", "male", "", "3", "1", "http://en.wikipedia.org/wiki/Alan_Turing"],
        ["[false, false]", "[true, false]", "male", "", "3", "2", "http://en.wikipedia.org/wiki/Alan_Turing"],
        ["[true, false]", "[true, false]", "female", "", "3", "1", "http://en.wikipedia.org/wiki/Ada_Lovelace"],
        ["[false, false]", "[true, false]", "female", "", "3", "2", "http://en.wikipedia.org/wiki/Ada_Lovelace"],
        ["[false, false]", "[true, false]", "female", "", "3", "2", "http://en.wikipedia.org/wiki/Grace_Hopper"],
        ["[false, false]", "[true, false]", "female", "", "3", "2", "http://en.wikipedia.org/wiki/Grace_Hopper"],
    ]

    def _score(
        self,
        predictions,
        references,
        genders,
        weights=None,
        num_names=None,
        correct_ranks=None,
        block_ids=None,
        variant="wt",
        return_weights=False,
        n_bootstrap=1000,
        seed=0,
    ):
        return measure.gap_w_bias(
            predictions,
            references,
            genders,
            weights=weights,
            num_names=num_names,
            correct_ranks=correct_ranks,
            block_ids=block_ids,
            variant=variant,
            return_weights=return_weights,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
