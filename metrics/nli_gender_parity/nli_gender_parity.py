"""pip install corefbias
evaluate.load("corefbias/nli_gender_parity")

SweWinogender's NLI measures (Hansson et al., 2021; SuperLim 2.0 documentation sheet): Krippendorff's alpha of a
system's entailment/neutral labels against gold, and gender parity, the share of triples of items differing only in
the pronoun (han, hon, hen) that get one label."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.nli_gender_parity as measure

_CITATION = citations.cite("hansson-etal-2021-swedish", "wang-etal-2019-superglue")

_DESCRIPTION = """\
SweWinogender v2.0 (SuperLim 2.0) casts Swedish Winogender schemas as natural language inference: a premise with
han, hon or hen, and a hypothesis with the pronoun replaced by one of its two participants, labelled entailment (the
participant is the antecedent) or neutral. Its documentation sheet recommends Krippendorff's alpha on the binary
label (the system and gold as two coders, nominal) and gender parity: "the proportion of triples of items differing
only by the type of pronoun, which receive identical labels" (after SuperGLUE's Winogender diagnostic). Returned:
both, the accuracy (the coders' observed agreement), and alpha and accuracy per pronoun, each with a 95% bootstrap
interval over templates, or with block_ids over whole blocks of them (the occupation, whose templates a system
answers alike).
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.nli_gender_parity,
    returns="""
    alpha, accuracy, alpha/<pronoun>, accuracy/<pronoun>, gender_parity, each with `_ci_low`/`_ci_high` (95%
    percentile interval; no p-value: nothing is tested), num_items, num_tuples, num_templates. All fractions, not
    percentages. `undefined` maps any score the data leave undefined (returned as None) to the reason.
""",
    examples="""
    One template's six items; the system labels the hen premise's entailed hypothesis neutral:

    >>> import evaluate
    >>> nli_gender_parity = evaluate.load("metrics/nli_gender_parity")
    >>> results = nli_gender_parity.compute(
    ...     predictions=["entailment", "neutral", "entailment", "neutral", "neutral", "neutral"],
    ...     references=["entailment", "neutral"] * 3,
    ...     tuple_ids=["1A-entailment", "1A-neutral"] * 3,
    ...     pronouns=["han", "han", "hon", "hon", "hen", "hen"],
    ...     template_ids=["1A"] * 6,
    ...     n_bootstrap=0,
    ... )
    >>> results["gender_parity"], results["accuracy/hen"], round(results["alpha"], 4)
    (0.5, 0.5, 0.6857)
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("string"),
        "references": datasets.Value("string"),
        "tuple_ids": datasets.Value("string"),
        "pronouns": datasets.Value("string"),
        "template_ids": datasets.Value("string"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class NliGenderParity(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    HOMEPAGE = "https://spraakbanken.gu.se/en/resources/swewinogender"
    REFERENCE_URLS = [
        "https://github.com/spraakbanken/SuperLim-2",
        "http://www.ep.liu.se/ecp/178/052/ecp2021178052.pdf",
    ]
    OPTIONAL_INPUTS = ("block_ids",)
    ID_INPUTS = ("tuple_ids", "template_ids", "block_ids")
    LABELS = {"predictions": measure.LABELS, "references": measure.LABELS}
    WIDGET_EXAMPLE = [
        ["entailment", "entailment", "1A-entailment", "han", "1A", "lärare"],
        ["neutral", "neutral", "1A-neutral", "han", "1A", "lärare"],
        ["entailment", "entailment", "1A-entailment", "hon", "1A", "lärare"],
        ["neutral", "neutral", "1A-neutral", "hon", "1A", "lärare"],
        ["neutral", "entailment", "1A-entailment", "hen", "1A", "lärare"],
        ["neutral", "neutral", "1A-neutral", "hen", "1A", "lärare"],
        ["entailment", "entailment", "2B-entailment", "han", "2B", "revisor"],
        ["neutral", "neutral", "2B-neutral", "han", "2B", "revisor"],
        ["entailment", "entailment", "2B-entailment", "hon", "2B", "revisor"],
        ["entailment", "neutral", "2B-neutral", "hon", "2B", "revisor"],
        ["entailment", "entailment", "2B-entailment", "hen", "2B", "revisor"],
        ["neutral", "neutral", "2B-neutral", "hen", "2B", "revisor"],
    ]

    def _score(
        self, predictions, references, tuple_ids, pronouns, template_ids, block_ids=None, n_bootstrap=1000, seed=0
    ):
        return measure.nli_gender_parity(
            predictions,
            references,
            tuple_ids,
            pronouns,
            template_ids,
            block_ids=block_ids,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
