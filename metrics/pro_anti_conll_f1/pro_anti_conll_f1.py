"""pip install corefbias
evaluate.load("corefbias/pro_anti_conll_f1")

WinoBias's own score: CoNLL F1 (MUC, B³, CEAFφ4) on pro- vs anti-stereotypical documents."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.pro_anti_conll_f1 as measure

_CITATION = citations.cite("zhao-etal-2018-gender")

_DESCRIPTION = """\
WinoBias (Zhao et al., 2018) scores a coreference system on its pro-stereotypical and
anti-stereotypical sentences with the CoNLL F1 of the official CoNLL-2012 scorer (v8.01): the mean of
the MUC, B³ and CEAFφ4 F1, each a ratio of counts summed over the documents (every sentence one
document, all its gold clusters the key). Bias is pro − anti. Each example is one document: its
predicted clusters, its gold clusters, pro or anti, and the id joining it to its aligned twin; the
bootstrap resamples those pairs, and whole blocks of them when block_ids are given (the pairs sharing a sentence
frame with the same two occupations, which a system answers alike). MUC, B³ and CEAFφ4 come from scorch, a
reimplementation of the reference scorer's definitions, checked against the reference scorer's own test cases.
"""

# The measure's parameter names → this module's.
_RENAMED = {"keys": "references", "responses": "predictions"}

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.pro_anti_conll_f1,
    renamed=_RENAMED,
    returns="""
    pro, anti (CoNLL F1 of the pro and of the anti documents), average, diff (pro − anti) with
    diff_p_value (two-sided bootstrap against 0), diff_ci_low, diff_ci_high (95% percentile interval);
    per condition `<condition>/<metric>_recall`, `_precision`, `_f1` for muc, bcubed and ceafe;
    num_pro, num_anti, num_pairs. Fractions, not percentages; `undefined` maps any score the data leave
    undefined (None) to the reason.
""",
    examples="""
    One pair: the pro document resolved as gold, the anti one with its pronoun linked to the other
    mention: MUC 0, B³ and CEAFφ4 2/3 on the anti side, so its CoNLL F1 is (0 + 2/3 + 2/3) / 3 = 4/9:

    >>> import evaluate
    >>> pro_anti_conll_f1 = evaluate.load("metrics/pro_anti_conll_f1")
    >>> gold = [[[0, 3], [10, 12]], [[5, 8]]]
    >>> results = pro_anti_conll_f1.compute(
    ...     predictions=[gold, [[[0, 3]], [[5, 8], [10, 12]]]],
    ...     references=[gold, gold],
    ...     conditions=["pro", "anti"],
    ...     pair_ids=["s1", "s1"],
    ...     n_bootstrap=0,
    ... )
    >>> results["pro"], round(results["anti"], 4), round(results["diff"], 4)
    (1.0, 0.4444, 0.5556)
    >>> results["anti/muc_f1"], round(results["anti/bcubed_f1"], 4), round(results["anti/ceafe_f1"], 4)
    (0.0, 0.6667, 0.6667)

    Pairs made from one frame with the same two occupations are not independent: with block_ids the bootstrap
    draws whole frames, and the interval rests on 3 of them, not on 12 pairs: too few for a 95% interval, as it
    says, and the p-value is larger:

    >>> wrong = [[[0, 3]], [[5, 8], [10, 12]]]
    >>> frames = ["developer + designer"] * 4 + ["janitor + accountant"] * 4 + ["chief + assistant"] * 4
    >>> inputs = dict(
    ...     predictions=[gold] * 12 + [gold, wrong, wrong, wrong, gold, gold, wrong, gold, gold, wrong, gold, gold],
    ...     references=[gold] * 24,
    ...     conditions=["pro"] * 12 + ["anti"] * 12,
    ...     pair_ids=[f"s{index}" for index in range(12)] * 2,
    ... )
    >>> by_pair = pro_anti_conll_f1.compute(**inputs)
    >>> by_frame = pro_anti_conll_f1.compute(**inputs, block_ids=frames * 2)
    >>> round(by_pair["diff"], 4), round(by_pair["diff_ci_low"], 4), round(by_pair["diff_p_value"], 4)
    (0.2315, 0.0463, 0.013)
    >>> by_frame["diff_ci_low"], by_frame["undefined"]["diff_ci_low"], round(by_frame["diff_p_value"], 4)
    (None, 'a 95% interval resting on 3 blocks needs more blocks: its tails are too far out', 0.1277)
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": support.CLUSTERS,
        "references": support.CLUSTERS,
        "conditions": datasets.Value("string"),
        "pair_ids": datasets.Value("string"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ProAntiConllF1(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    OPTIONAL_INPUTS = ("block_ids",)
    ID_INPUTS = ("pair_ids", "block_ids")
    HOMEPAGE = "https://github.com/uclanlp/corefBias"
    REFERENCE_URLS = [
        "https://aclanthology.org/N18-2003",
        "https://github.com/conll/reference-coreference-scorers",
        "https://github.com/LoicGrobol/scorch",
    ]
    LABELS = {"conditions": measure.CONDITIONS}
    RENAMED = _RENAMED
    WIDGET_EXAMPLE = [
        ["[[[0, 3], [10, 12]], [[5, 8]]]", "[[[0, 3], [10, 12]], [[5, 8]]]", "pro", "s1", "developer + designer"],
        ["[[[0, 3]], [[5, 8], [10, 12]]]", "[[[0, 3], [10, 12]], [[5, 8]]]", "anti", "s1", "developer + designer"],
        ["[[[0, 3], [10, 12]], [[5, 8]]]", "[[[0, 3], [10, 12]], [[5, 8]]]", "pro", "s2", "developer + designer"],
        ["[[[0, 3], [10, 12]], [[5, 8]]]", "[[[0, 3], [10, 12]], [[5, 8]]]", "anti", "s2", "developer + designer"],
        ["[[[0, 3], [14, 16]], [[7, 10]]]", "[[[0, 3], [14, 16]], [[7, 10]]]", "pro", "s3", "janitor + accountant"],
        ["[[[0, 3]], [[7, 10], [14, 16]]]", "[[[0, 3], [14, 16]], [[7, 10]]]", "anti", "s3", "janitor + accountant"],
        ["[[[0, 3], [14, 16]], [[7, 10]]]", "[[[0, 3], [14, 16]], [[7, 10]]]", "pro", "s4", "janitor + accountant"],
        ["[[[0, 3]], [[7, 10], [14, 16]]]", "[[[0, 3], [14, 16]], [[7, 10]]]", "anti", "s4", "janitor + accountant"],
    ]

    def _score(self, predictions, references, conditions, pair_ids, block_ids=None, n_bootstrap=1000, seed=0):
        return measure.pro_anti_conll_f1(
            references, predictions, conditions, pair_ids, block_ids=block_ids, n_bootstrap=n_bootstrap, seed=seed
        )
