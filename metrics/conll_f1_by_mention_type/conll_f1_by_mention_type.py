"""pip install corefbias
evaluate.load("corefbias/conll_f1_by_mention_type")

GICoref's score: CoNLL F1 (MUC, B³, CEAFφ4) of whole documents with its bootstrap interval, and B³ by mention type
(neopronouns, they, he/she, ...) with each type's gap to a reference type."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.conll_f1_by_mention_type as measure

_CITATION = citations.cite("cao-daume-iii-2020-toward")

_DESCRIPTION = """\
GICoref (Cao & Daumé, 2020) scores coreference on whole documents by and about trans and non-binary people with
the CoNLL-2012 reference scorer's metrics: MUC, B³ and CEAFφ4, each a ratio of counts summed over the documents, and
CoNLL F1 their mean (from scorch, checked against scorer.pl v8.01). Its question is which mentions a system gets
wrong: B³, an average over mentions, splits exactly by the type of the mention (a neopronoun, they, he/she, a name),
its types' numerators adding up to B³'s own; MUC and CEAFφ4 do not split. Each example is one document: its
predicted and gold clusters, and the type of every mention of both. The bootstrap resamples documents (or the units
given), and whole blocks of them when block_ids are given: the documents annotating one text, which a system
answers alike.
"""

# The measure's parameter names → this module's.
_RENAMED = {
    "keys": "references",
    "responses": "predictions",
    "key_types": "reference_types",
    "response_types": "prediction_types",
}

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.conll_f1_by_mention_type,
    renamed=_RENAMED,
    returns="""
    conll_f1 (with conll_f1_ci_low, conll_f1_ci_high: a bootstrap interval over the units), muc_, bcubed_ and
    ceafe_ recall, precision and f1; per mention type bcubed_recall/<type>, bcubed_precision/<type>,
    bcubed_f1/<type>, mentions/<type> (gold mentions); for each compared type bcubed_f1_diff/<type> (B³ F1 of the
    type − of the reference type) with _p_value (two-sided bootstrap, Holm-adjusted), _ci_low, _ci_high;
    num_documents, num_units; reference_type, diff_unadjusted_p_value. Fractions; `undefined` maps any score the
    data leave undefined (None) to the reason.
""",
    examples="""
    One document: Ana and "ze" are one person, Bo and "he" another; the system puts "ze" with Bo:

    >>> import evaluate
    >>> conll_f1_by_mention_type = evaluate.load("metrics/conll_f1_by_mention_type")
    >>> results = conll_f1_by_mention_type.compute(
    ...     predictions=[[[[0, 3]], [[20, 22], [10, 12], [30, 32]]]],
    ...     references=[[[[0, 3], [10, 12]], [[20, 22], [30, 32]]]],
    ...     prediction_types=[[["name"], ["name", "neopronoun", "binary_pronoun"]]],
    ...     reference_types=[[["name", "neopronoun"], ["name", "binary_pronoun"]]],
    ...     reference_type="binary_pronoun",
    ...     n_bootstrap=0,
    ... )
    >>> results["bcubed_recall/neopronoun"], round(results["bcubed_f1/neopronoun"], 4)
    (0.5, 0.4)
    >>> round(results["bcubed_f1_diff/neopronoun"], 4), round(results["conll_f1"], 4)
    (-0.4, 0.6464)

    The two annotations of one text are not independent: a system resolves them alike. Eight texts, each annotated
    twice; the system puts "ze" with Bo in three of them. With block_ids the bootstrap draws whole texts, and the
    intervals rest on 8 of them, not on 16 documents: they are wider, and the gap's p-value larger:

    >>> key = [[[0, 3], [10, 12]], [[20, 22], [30, 32]]]
    >>> key_types = [["name", "neopronoun"], ["name", "binary_pronoun"]]
    >>> wrong = [[[0, 3]], [[20, 22], [10, 12], [30, 32]]]
    >>> wrong_types = [["name"], ["name", "neopronoun", "binary_pronoun"]]
    >>> right = [True, False, True, True, False, True, False, True]  # per text
    >>> inputs = dict(
    ...     predictions=[key if ok else wrong for ok in right for _ in range(2)],
    ...     references=[key] * 16,
    ...     prediction_types=[key_types if ok else wrong_types for ok in right for _ in range(2)],
    ...     reference_types=[key_types] * 16,
    ...     reference_type="binary_pronoun",
    ...     compared_types=["neopronoun"],
    ... )
    >>> texts = [f"text {text}" for text in range(8) for _ in range(2)]
    >>> by_document = conll_f1_by_mention_type.compute(**inputs)
    >>> by_text = conll_f1_by_mention_type.compute(**inputs, block_ids=texts)
    >>> shown = ("conll_f1_ci_low", "conll_f1_ci_high", "bcubed_f1_diff/neopronoun_p_value")
    >>> [round(by_document[name], 3) for name in shown], [round(by_text[name], 3) for name in shown]
    ([0.779, 0.956, 0.018], [0.735, 1.0, 0.099])
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": support.CLUSTERS,
        "references": support.CLUSTERS,
        "prediction_types": support.CLUSTER_LABELS,
        "reference_types": support.CLUSTER_LABELS,
        "units": datasets.Value("string"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ConllF1ByMentionType(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    OPTIONAL_INPUTS = ("units", "block_ids")
    ID_INPUTS = ("units", "block_ids")
    HOMEPAGE = "https://github.com/TristaCao/into_inclusivecoref"
    REFERENCE_URLS = [
        "https://aclanthology.org/2020.acl-main.418",
        "https://github.com/conll/reference-coreference-scorers",
        "https://github.com/LoicGrobol/scorch",
    ]
    RENAMED = _RENAMED
    WIDGET_EXAMPLE = [
        [
            "[[[0, 3]], [[20, 22], [10, 12], [30, 32]]]",
            "[[[0, 3], [10, 12]], [[20, 22], [30, 32]]]",
            '[["name"], ["name", "neopronoun", "binary_pronoun"]]',
            '[["name", "neopronoun"], ["name", "binary_pronoun"]]',
            "wiki_ana",
            "wiki_ana",
        ],
        [
            "[[[0, 3]], [[20, 22], [10, 12], [30, 32]]]",
            "[[[0, 3], [10, 12]], [[20, 22], [30, 32]]]",
            '[["name"], ["name", "neopronoun", "binary_pronoun"]]',
            '[["name", "neopronoun"], ["name", "binary_pronoun"]]',
            "wiki_ana_v2",
            "wiki_ana",
        ],
        [
            "[[[0, 3], [8, 10]]]",
            "[[[0, 3], [8, 10]]]",
            '[["name", "binary_pronoun"]]',
            '[["name", "binary_pronoun"]]',
            "fic_bo",
            "fic_bo",
        ],
        [
            "[[[0, 3], [8, 10]], [[14, 16]]]",
            "[[[0, 3], [8, 10], [14, 16]]]",
            '[["name", "binary_pronoun"], ["neopronoun"]]',
            '[["name", "binary_pronoun", "neopronoun"]]',
            "fic_bo_v2",
            "fic_bo",
        ],
    ]

    def _score(
        self,
        predictions,
        references,
        prediction_types,
        reference_types,
        units=None,
        block_ids=None,
        reference_type="binary_pronoun",
        compared_types=None,
        n_bootstrap=1000,
        seed=0,
    ):
        units = None if units is None or all(unit in (None, support.OMITTED) for unit in units) else units
        return measure.conll_f1_by_mention_type(
            references,
            predictions,
            reference_types,
            prediction_types,
            units,
            block_ids=block_ids,
            reference_type=reference_type,
            compared_types=compared_types,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
