"""MAP (Cao & Daumé, 2020): accuracy on each ablation of the snippets' gender cues, and its drop against the
original snippets, paired over snippets; the crowd annotators' accuracy and agreement on the same rows."""

from __future__ import annotations

import dataclasses

from ...measures import agreement, condition_accuracy_diff
from ..cloze_wording import NAMES_CLOZE
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline
from .explore import SNIPPETS_ACROSS_ABLATIONS
from .files import ABLATIONS, ORIGINAL, answer_of

# What each ablation removed, for the headlines.
REMOVED = {"pro": "pronouns", "ent": "names", "addr": "terms of address", "lex": "gendered nouns"}


def _label(ablation: str) -> str:
    if ablation == "ent+addr+lex+pro":
        return "every cue"
    return " + ".join(REMOVED[part] for part in ablation.split("+"))


# The snippets are independent of each other (the unit already: a snippet with all its ablations).
BLOCKS = BlockDesign(("snippet_id",), ("snippet",))


def score(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    annotated = [
        (answer, truth, ablation, snippet)
        for answers, truth, ablation, snippet in zip(
            data["human_answers"], data["answer"], data["ablation"], data["snippet_id"]
        )
        for answer in answers
    ]
    return {
        "map": condition_accuracy_diff.condition_accuracy_diff(
            [answer_of(decision) for decision in decisions[part]],
            data["answer"],
            data["ablation"],
            data["snippet_id"],
            reference=ORIGINAL,
            block_ids=BLOCKS.ids(data),
            n_bootstrap=n_bootstrap,
            seed=seed,
        ),
        "map/human": condition_accuracy_diff.condition_accuracy_diff(
            *(list(column) for column in zip(*annotated)), reference=ORIGINAL, n_bootstrap=n_bootstrap, seed=seed
        ),
        "map/human_agreement": agreement.annotator_agreement(
            data["human_answers"], data["ablation"], data["snippet_id"], n_bootstrap=n_bootstrap, seed=seed
        ),
    }


HEADLINE_ABLATIONS = ("pro", "ent", "addr", "lex", "ent+addr+lex+pro")

BENCHMARK = Benchmark(
    name="map",
    dataset="map",
    parts=(("default", "test"),),
    language="en",
    unit="snippet_id",
    metric_modules=("condition_accuracy_diff",),
    description="MAP: accuracy with each kind of gender cue removed (names, pronouns, terms of address, gendered "
    "nouns) against the original snippets, paired over snippets; the annotators' accuracy and agreement beside it",
    score=score,
    headlines=(
        Headline("map", f"accuracy/{ORIGINAL}", "accuracy on the original snippets", None),
        *(
            Headline("map", f"diff/{ablation}", f"accuracy {_label(ablation)} removed − original", 0.0)
            for ablation in HEADLINE_ABLATIONS
        ),
    ),
    balance_columns=("original_pronoun_gender",),
    limit_meaning="N snippets whose original pronoun is feminine and N masculine, each with its nine ablations "
    "(20N instances)",
    cloze=dataclasses.replace(
        NAMES_CLOZE,
        source=NAMES_CLOZE.source + "; GAP's wording, as MAP's snippets are GAP's kind",
        cannot_express="a cloze model always picks one of the two names: it cannot answer 'neither' (12 of the 172 "
        "snippets) or 'either' (2), so those rows count as wrong in every version, the original included, and "
        "leave the drops unchanged",
    ),
    bias_axis=BiasAxis("ablation", {ORIGINAL: 1, **dict.fromkeys(ABLATIONS, -1)}, "toward_gold"),
    figures=(Figure("accuracy_gaps"),),
    explore=SNIPPETS_ACROSS_ABLATIONS,
    blocks=BLOCKS,
)
