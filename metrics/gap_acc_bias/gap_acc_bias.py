"""pip install corefbias
evaluate.load("corefbias/gap_acc_bias")

GAP acc-Bias (Kocijan et al., 2021) and F1-Bias (Webster et al., 2018): feminine over masculine performance."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.gap_acc_bias as measure
import corefbias.measures.gap_rows as gap_rows

_CITATION = citations.cite("kocijan21aaai", "webster-etal-2018-mind")

_DESCRIPTION = """\
GAP examples have a pronoun and two candidate names A and B, at most one of them the referent.
acc-Bias = Acc_F / Acc_M (Kocijan et al., 2021, Sec. 3.1), where the accuracy is taken on the positive
candidate only: the share of examples with a referent among A and B whose referent the system marks as
coreferent (examples without a positive candidate are left out). F1-Bias = F1_F / F1_M is GAP's own
bias score (Webster et al., 2018), with TP/FP/FN counted over both candidates as GAP's scorer does.
1 means no measured bias; below 1, the system does worse on feminine examples. Both come with a
two-sided bootstrap p-value against 1 and a 95% percentile interval (resampling examples), drawing whole blocks of
examples when block_ids are given: the examples taken from one Wikipedia page, which a model answers alike.
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.gap_acc_bias,
    returns="""
    accuracy_male, accuracy_female, accuracy (on the positive candidate), acc_bias (Acc_F / Acc_M),
    f1_male, f1_female, f1 (GAP's per-candidate F1), f1_bias (F1_F / F1_M), num_examples,
    num_scored_for_accuracy (examples with a positive candidate), and for acc_bias and f1_bias:
    `<name>_p_value` (two-sided bootstrap against 1),
    `<name>_ci_low`, `<name>_ci_high` (95% percentile interval). All fractions, not percentages.
    `undefined` maps any score that the data leave undefined (returned as None) to the reason.
""",
    examples="""
    Two masculine examples solved, one of them with a spurious link to the negative candidate; of
    two feminine examples with a referent one is missed, and a fifth (feminine, no referent) gets a
    spurious link:

    >>> import evaluate
    >>> acc_bias = evaluate.load("metrics/gap_acc_bias")
    >>> results = acc_bias.compute(
    ...     predictions=[[True, False], [True, True], [False, True], [False, True], [True, False]],
    ...     references=[[True, False], [False, True], [True, False], [False, True], [False, False]],
    ...     genders=["male", "male", "female", "female", "female"],
    ...     n_bootstrap=0,
    ... )
    >>> results["accuracy_male"], results["accuracy_female"], results["acc_bias"]
    (1.0, 0.5, 0.5)
    >>> results["f1_male"], results["f1_female"], results["f1_bias"]
    (0.8, 0.4, 0.5)

    Examples taken from one Wikipedia page are not independent, and a page's examples mostly share its subject's
    gender. With block_ids (the page of each example) the bootstrap draws whole pages; here every masculine
    example comes from one page, so leaving it out leaves acc-Bias undefined, and the bootstrap says so rather than
    give an interval:

    >>> blocked = acc_bias.compute(
    ...     predictions=[[True, False], [True, True], [False, True], [False, True], [True, False]],
    ...     references=[[True, False], [False, True], [True, False], [False, True], [False, False]],
    ...     genders=["male", "male", "female", "female", "female"],
    ...     block_ids=["http://en.wikipedia.org/wiki/Alan_Turing"] * 2
    ...     + ["http://en.wikipedia.org/wiki/Ada_Lovelace"] * 3,
    ... )
    >>> blocked["acc_bias"], blocked["acc_bias_ci_low"]
    (0.5, None)
    >>> blocked["undefined"]["acc_bias_ci_low"]
    'acc_bias rests on a single block (without block 0 it is undefined); the bootstrap needs at least two behind each
    part of it'
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Sequence(datasets.Value("bool")),
        "references": datasets.Sequence(datasets.Value("bool")),
        "genders": datasets.Value("string"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class GapAccBias(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    HOMEPAGE = "https://github.com/vid-koci/weightingGAP"
    REFERENCE_URLS = ["https://arxiv.org/abs/2011.01837", "https://github.com/google-research-datasets/gap-coreference"]
    OPTIONAL_INPUTS = ("block_ids",)
    ID_INPUTS = ("block_ids",)
    LABELS = {"genders": gap_rows.GENDERS}
    WIDGET_EXAMPLE = [  # block_ids: the Wikipedia page of the example, as GAP's URL column gives it
        ["[true, false]", "[true, false]", "male", "http://en.wikipedia.org/wiki/Alan_Turing"],
        ["[true, true]", "[false, true]", "male", "http://en.wikipedia.org/wiki/Alan_Turing"],
        ["[false, true]", "[true, false]", "female", "http://en.wikipedia.org/wiki/Ada_Lovelace"],
        ["[false, true]", "[false, true]", "female", "http://en.wikipedia.org/wiki/Ada_Lovelace"],
        ["[true, false]", "[false, false]", "female", "http://en.wikipedia.org/wiki/Ada_Lovelace"],
    ]

    def _score(self, predictions, references, genders, block_ids=None, n_bootstrap=1000, seed=0):
        return measure.gap_acc_bias(
            predictions, references, genders, block_ids=block_ids, n_bootstrap=n_bootstrap, seed=seed
        )
