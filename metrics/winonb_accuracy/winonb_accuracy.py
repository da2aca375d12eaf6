"""pip install corefbias
evaluate.load("corefbias/winonb_accuracy")

WinoNB accuracy: how often a coreference system reads they as singular when it refers to one person ("someone") and
as plural when it refers to a group (Baumler & Rudinger, 2022), and the gap between the two."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.winonb_accuracy as measure

_CITATION = citations.cite("baumler-rudinger-2022-recognition")

_DESCRIPTION = """\
WinoNB (Baumler & Rudinger, 2022) adapts Winogender, WinoBias, the Winograd Schema Challenge and DPR sentences so
that each has a singular entity ("someone"), a plural one ("the technicians") and a they/them pronoun referring to
one of them; the label, as its README defines it, is the entity referred to (1 singular, 0 plural). Returned:
accuracy overall and per label, the singular − plural accuracy gap (two-sided bootstrap p-value against 0, resampling
sentences), the errors by kind (singular they read as plural, plural they read as singular, no reading), and all of
them per source when the sources are given. With block_ids the bootstrap draws whole blocks of sentences: those made
from one plural noun, which a system answers alike.
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.winonb_accuracy,
    returns="""
    accuracy, accuracy_singular, accuracy_plural, accuracy_singular_minus_plural, singular_read_as_plural,
    plural_read_as_singular, no_reading, with sources every one again as `<score>/<source>`, num_singular,
    num_plural; `accuracy_singular_minus_plural_p_value` (two-sided bootstrap against 0) and `_ci_low`/`_ci_high`
    (95% percentile interval) for it and the three accuracies. All fractions, not percentages. `undefined` maps any
    score the data leave undefined (returned as None) to the reason.
""",
    examples="""
    Two singular and two plural sentences; the system reads every they as plural:

    >>> import evaluate
    >>> winonb_accuracy = evaluate.load("metrics/winonb_accuracy")
    >>> results = winonb_accuracy.compute(
    ...     predictions=["plural"] * 4,
    ...     references=["singular", "singular", "plural", "plural"],
    ...     sources=["winogender", "winobias", "winogender", "winobias"],
    ...     n_bootstrap=0,
    ... )
    >>> results["accuracy_singular"], results["accuracy_plural"], results["accuracy_singular_minus_plural"]
    (0.0, 1.0, -1.0)
    >>> results["singular_read_as_plural/winobias"], results["no_reading"]
    (1.0, 0.0)

    The sentences made from one plural noun are not independent: a system that reads "someone ... they" as plural
    beside "the technicians" does so in every sentence of that noun. With block_ids the bootstrap draws whole nouns,
    and the interval rests on 8 of them, not on 32 sentences: it is wider, and the gap's p-value larger:

    >>> nouns = ["technicians", "fans", "officers", "students", "patients", "guests", "visitors", "workers"]
    >>> readings = [  # per noun: how its singular and its plural sentences are read
    ...     ("plural", "plural"), ("singular", "plural"), ("plural", "plural"), ("plural", "plural"),
    ...     ("singular", "singular"), ("plural", "plural"), ("singular", "plural"), ("plural", "neither"),
    ... ]
    >>> inputs = dict(
    ...     predictions=[read for pair in readings for read in pair * 2], references=["singular", "plural"] * 16
    ... )
    >>> by_sentence = winonb_accuracy.compute(**inputs)
    >>> by_noun = winonb_accuracy.compute(**inputs, block_ids=[noun for noun in nouns for _ in range(4)])
    >>> diff = "accuracy_singular_minus_plural"
    >>> [round(by_sentence[diff + end], 3) for end in ("", "_ci_low", "_ci_high", "_p_value")]
    [-0.375, -0.682, -0.005, 0.052]
    >>> [round(by_noun[diff + end], 3) for end in ("", "_ci_low", "_ci_high", "_p_value")]
    [-0.375, -0.875, 0.25, 0.262]
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("string"),
        "references": datasets.Value("string"),
        "sources": datasets.Value("string"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class WinonbAccuracy(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    HOMEPAGE = "https://github.com/ctbaumler/winonb"
    REFERENCE_URLS = ["https://aclanthology.org/2022.naacl-main.250"]
    OPTIONAL_INPUTS = ("sources", "block_ids")
    ID_INPUTS = ("block_ids",)
    LABELS = {"predictions": measure.PREDICTIONS, "references": measure.NUMBERS}
    WIDGET_EXAMPLE = [
        ["plural", "singular", "winogender", "technicians"],
        ["plural", "plural", "winogender", "technicians"],
        ["singular", "singular", "winogender", "technicians"],
        ["plural", "plural", "winogender", "technicians"],
        ["singular", "singular", "winobias", "developers"],
        ["plural", "plural", "winobias", "developers"],
        ["neither", "singular", "winobias", "developers"],
        ["plural", "plural", "winobias", "developers"],
    ]

    def _score(self, predictions, references, sources=None, block_ids=None, n_bootstrap=1000, seed=0):
        return measure.winonb_accuracy(
            predictions, references, sources, block_ids=block_ids, n_bootstrap=n_bootstrap, seed=seed
        )
