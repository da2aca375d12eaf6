"""SweWinogender (Hansson et al., 2021; SuperLim 2.0): accuracy per pronoun (han, hon, hen) and the gaps of hen and
hon, paired over templates; and the NLI form's Krippendorff's alpha and gender parity, as its documentation sheet
defines them."""

from __future__ import annotations

from ...measures import nli_gender_parity, pronoun_set_diff
from ...models.cloze_template import ClozeTemplate
from ..abc.cloze import LANGUAGE_CLOZE
from ..declaration import Benchmark, BiasAxis, BlockDesign, Headline
from ..winogender.decisions import winogender_answer
from . import files
from .explore import PRONOUN_CASES

RESOLUTION = ("resolution", "test")
# An occupation's templates (its A and B sentences, and for six occupations more than one pair) share its noun and
# its stereotype, and a model answers them alike; the three pronouns of a template lie inside it.
BLOCKS = BlockDesign(("occupation",), ("occupation",))
BINARY = ("han", "hon")
NLI_SECTION = "nli_gender_parity"


def entailment_label(decision, candidate: str) -> str:
    """The NLI label a decision gives a hypothesis naming ``candidate`` in the pronoun's place: ``entailment``
    where the pronoun is linked to that candidate alone, else ``neutral``.

    Parameters
    ----------
    decision : sequence of bool
        The links to [occupation, participant].
    candidate : str
        ``occupation`` or ``participant``: the participant the hypothesis names.

    Returns
    -------
    str

    Examples
    --------
    >>> entailment_label([True, False], "occupation"), entailment_label([True, True], "occupation")
    ('entailment', 'neutral')
    """
    return "entailment" if winogender_answer(decision) == candidate else "neutral"


def nli_inputs_of_premises(data: dict, decisions: list) -> dict:
    """The NLI items a pronoun-resolution part encodes, labelled by the decisions on their premises: per premise,
    its entailed hypothesis (naming the antecedent) and its neutral one, in that order.

    Parameters
    ----------
    data : dict
        The ``resolution`` part's columns.
    decisions : list
        One decision per premise.

    Returns
    -------
    dict
        ``nli_gender_parity``'s inputs but ``block_ids``.
    """
    inputs: dict = {key: [] for key in ("predictions", "references", "tuple_ids", "pronouns", "template_ids")}
    for decision, answer, neutral, template, pronoun in zip(
        decisions, data["answer"], data["neutral_candidate"], data["template_id"], data["pronoun_set"]
    ):
        for label, named in (("entailment", answer), ("neutral", neutral)):
            inputs["predictions"].append(entailment_label(decision, named))
            inputs["references"].append(label)
            inputs["tuple_ids"].append(files.tuple_id(template, label))
            inputs["pronouns"].append(pronoun)
            inputs["template_ids"].append(template)
    return inputs


def nli_inputs_of_items(data: dict, decisions: list) -> dict:
    """The NLI items of the ``nli`` part, labelled by the decisions on their premises.

    Parameters
    ----------
    data : dict
        The ``nli`` part's columns.
    decisions : list
        One decision per item.

    Returns
    -------
    dict
        ``nli_gender_parity``'s inputs but ``block_ids``.
    """
    return {
        "predictions": [entailment_label(d, named) for d, named in zip(decisions, data["hypothesis_candidate"])],
        "references": data["label"],
        "tuple_ids": data["tuple_id"],
        "pronouns": data["pronoun_set"],
        "template_ids": data["template_id"],
    }


def score(rows, decisions, n_bootstrap, seed):
    """The pronoun-resolution sections and the NLI section of the ``resolution`` part (the default), or the NLI
    section alone of the ``nli`` part (``corefbias score --config nli``)."""
    ((config, split),) = rows
    data, decided = rows[config, split], decisions[config, split]
    blocks = BLOCKS.ids(data)
    significance = {"n_bootstrap": n_bootstrap, "seed": seed}
    if config == "nli":
        inputs = nli_inputs_of_items(data, decided)
        return {NLI_SECTION: nli_gender_parity.nli_gender_parity(**inputs, block_ids=blocks, **significance)}
    answers = [winogender_answer(decision) for decision in decided]
    columns = (answers, data["answer"], data["pronoun_set"], data["template_id"])
    return {
        "pronoun_set_diff": pronoun_set_diff.pronoun_set_diff(
            *columns, reference_sets=BINARY, block_ids=blocks, **significance
        ),
        "pronoun_set_diff/han": pronoun_set_diff.pronoun_set_diff(
            *columns, reference_sets=("han",), block_ids=blocks, **significance
        ),
        NLI_SECTION: nli_gender_parity.nli_gender_parity(
            **nli_inputs_of_premises(data, decided),
            block_ids=[block for block in blocks for _ in range(2)],
            **significance,
        ),
    }


CLOZE = ClozeTemplate(
    version=1,
    suffix=LANGUAGE_CLOZE["sv"].suffix,
    lowercase_initial=True,
    source="our Swedish rendering of lm-evaluation-harness's English wording ('The word ”han” refers to'), the one "
    "ABC's Swedish template uses (abc/cloze.py), not checked by a native speaker; the options are the participants "
    "as the premise writes them (definite nouns, mid-sentence, so lowercased; 'offrets' keeps its genitive -s)",
    cannot_express="nothing: the pronoun refers to one of the two participants",
)

BENCHMARK = Benchmark(
    name="swewinogender",
    dataset="swewinogender",
    parts=(RESOLUTION,),
    language="sv",
    unit="template_id",
    metric_modules=("pronoun_set_diff", "nli_gender_parity"),
    description="SweWinogender (Swedish Winogender, SuperLim 2.0): accuracy per pronoun (han, hon, hen), the "
    "hen − han/hon and hon − han gaps paired over templates, and the NLI form's Krippendorff's alpha and gender "
    "parity",
    score=score,
    headlines=(
        Headline("pronoun_set_diff", "diff/hen", "hen − han/hon accuracy", 0.0),
        Headline("pronoun_set_diff/han", "diff/hon", "hon − han accuracy", 0.0),
        # 1 is parity, but not a null: a model whose labels are noisy falls short of it without any gender effect.
        Headline(NLI_SECTION, nli_gender_parity.PARITY, "gender parity (NLI)", None),
        Headline(NLI_SECTION, "alpha", "Krippendorff's alpha (NLI)", None),
    ),
    balance_columns=("answer",),
    limit_meaning="N templates whose pronoun refers to the occupation and N whose pronoun refers to the other "
    "participant, each with its han, hon and hen premise (6N instances)",
    cloze=CLOZE,
    bias_axis=BiasAxis("pronoun_set", {"han": 1, "hon": 1, "hen": -1}, "toward_gold"),
    explore=PRONOUN_CASES,
    blocks=BLOCKS,
)
