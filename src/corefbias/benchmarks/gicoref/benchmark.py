"""GICoref (Cao & Daumé, 2020): CoNLL F1 of whole documents with B³ by mention type, and pronoun questions.

A *cluster model* (NeuralCoref, a served model, a predictions file) reads each document whole; its clusters are
scored with CoNLL F1 (MUC, B³, CEAFφ4, the reference scorer's definitions) over the documents, and B³ is broken down
by mention type (neopronoun, *they*, *he*/*she*, other pronouns, names and nominals, misgendering words), the one
breakdown the annotation supports (``conll_f1_by_mention_type``). A *choice model* (an LLM, a baseline) predicts no
clusters and has no CoNLL F1; what it can do is answer the questions the gold clusters give: which of the people
named in a pronoun's sentence and the three before does the pronoun refer to (``mentions.questions``)? Both kinds
answer those questions (a cluster model through its clusters), scored by accuracy per pronoun type and its gap to
*he*/*she*, resampling texts (``condition_accuracy_diff``).
"""

from __future__ import annotations

import dataclasses

from ...measures import condition_accuracy_diff, conll_f1_by_mention_type
from ..cloze_wording import ENGLISH_SOURCE, NAMES_CLOZE
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline
from .explore import PRONOUNS_IN_PASSAGES
from .mentions import type_of_span

REFERENCE_TYPE = "binary_pronoun"
COMPARED_TYPES = ("they", "neopronoun")
NO_CLUSTERS = (
    "the model chooses among candidates and predicts no clusters, and CoNLL F1 scores clusters; see the pronoun "
    "questions' accuracy instead"
)
LINKS_ONLY = "the predictions hold per-candidate links, not clusters, and CoNLL F1 scores clusters"
# The keys of the CoNLL section that a model without clusters leaves undefined.
CONLL_KEYS = ("conll_f1", *(f"bcubed_f1_diff/{name}" for name in COMPARED_TYPES))


def _answer(linked: list[bool]) -> str:
    """A question's answer as a label: the linked candidates' positions (``""`` for none)."""
    return ",".join(str(index) for index, is_linked in enumerate(linked) if is_linked)


# The texts are independent of each other (the unit already: every pronoun of a text resampled together).
BLOCKS = BlockDesign(("text_id",), ("text",))


def score(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    references = [_answer([c["is_referent"] for c in candidates]) for candidates in data["candidates"]]
    return {
        "gicoref": condition_accuracy_diff.condition_accuracy_diff(
            [_answer(decision) for decision in decisions[part]],
            references,
            data["pronoun_type"],
            data["text_id"],
            reference=REFERENCE_TYPE,
            block_ids=BLOCKS.ids(data),
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    }


def _spans(clusters) -> list[list[tuple[int, int]]]:
    return [
        [(int(m["start"]), int(m["end"])) if isinstance(m, dict) else (int(m[0]), int(m[1])) for m in cluster]
        for cluster in clusters
    ]


def score_outputs(rows, outputs, n_bootstrap, seed):
    """CoNLL F1 and B³ by mention type over the documents of the rows, each document's clusters read from its first
    row's output (every row of a document holds the same text, so a cluster model answers them alike)."""
    (part,) = rows
    data, answers = rows[part], outputs[part]
    if any(isinstance(output, dict) and "decision" in output for output in answers):
        return {"gicoref/conll": conll_f1_by_mention_type.undefined_by_mention_type(LINKS_ONLY, CONLL_KEYS)}
    if any(not isinstance(output, list) for output in answers):
        return {"gicoref/conll": conll_f1_by_mention_type.undefined_by_mention_type(NO_CLUSTERS, CONLL_KEYS)}
    first = {}
    for index, document in enumerate(data["document"]):
        first.setdefault(document, index)
    keys, key_types, responses, response_types, units = [], [], [], [], []
    for index in first.values():
        text, key = data["text"][index], _spans(data["clusters"][index])
        gold_types = {
            span: kind
            for cluster, kinds in zip(key, data["mention_types"][index])
            for span, kind in zip(cluster, kinds)
        }
        response = _spans(answers[index])
        keys.append(key)
        key_types.append(data["mention_types"][index])
        responses.append(response)
        response_types.append([[type_of_span(text, span, gold_types) for span in cluster] for cluster in response])
        units.append(data["text_id"][index])
    return {
        "gicoref/conll": conll_f1_by_mention_type.conll_f1_by_mention_type(
            keys,
            responses,
            key_types,
            response_types,
            units,
            reference_type=REFERENCE_TYPE,
            compared_types=COMPARED_TYPES,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    }


GICOREF_CLOZE = dataclasses.replace(
    NAMES_CLOZE,
    someone_else="someone else",
    context_column="excerpt",
    source=ENGLISH_SOURCE + "; the model reads the pronoun's sentence and the three before it (the `excerpt` "
    "column), not the whole document, so that the question follows the pronoun it asks about",
    cannot_express="nothing is lost: the referent is always among the candidates, and the option 'someone else' "
    "lets a model answer no where one person is named (683 of the 1,348 questions), as a cluster model can by "
    "linking the pronoun to nobody; choosing it counts as wrong",
)

BENCHMARK = Benchmark(
    name="gicoref",
    dataset="gicoref",
    parts=(("default", "test"),),
    language="en",
    unit="text_id",
    metric_modules=("condition_accuracy_diff", "conll_f1_by_mention_type"),
    description="GICoref: CoNLL F1 of whole documents by and about trans and non-binary people, B³ by mention type "
    "(neopronouns, they, he/she, ...), and pronoun questions' accuracy by pronoun type",
    score=score,
    score_outputs=score_outputs,
    headlines=(
        Headline("gicoref", "diff/neopronoun", "accuracy neopronoun − he/she", 0.0),
        Headline("gicoref", "diff/they", "accuracy they − he/she", 0.0),
        Headline("gicoref/conll", "conll_f1", "CoNLL F1", None),
        Headline("gicoref/conll", "bcubed_f1_diff/neopronoun", "B³ F1 neopronoun − he/she", 0.0),
    ),
    balance_columns=("source",),
    limit_meaning="N texts (documents, with a second annotation where it has one) from each source: Wikipedia, "
    "periodicals, fan fiction (3N texts)",
    cloze=GICOREF_CLOZE,
    bias_axis=BiasAxis("pronoun_type", {"binary_pronoun": 1, "neopronoun": -1}, "toward_gold"),
    figures=(Figure("accuracy_gaps", "gicoref"),),
    explore=PRONOUNS_IN_PASSAGES,
    document_column="document",
    blocks=BLOCKS,
)
