"""RUFF (Gautam et al., 2024): does a model keep to a person's pronoun when 0 to 5 distractor sentences intervene?"""

from __future__ import annotations

from ...data import fill_in
from ...measures import pronoun_set_diff, ruff_accuracy
from ...models.cloze_template import ClozeTemplate
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline
from ..fill_in_sections import CLUSTERS_CANNOT_EXPRESS, answers, chosen_words, pronoun_set_view

SECTION = "ruff"
SET_DIFF_SECTION = "pronoun_set_diff"


# An occupation's three task sentences (one per case, WinoPron's single-entity templates) and every context before
# them share its noun and stereotype.
BLOCKS = BlockDesign(("occupation",), ("occupation",))


def score(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    words = chosen_words(data, decisions[part])
    blocks = BLOCKS.ids(data)
    return {
        SECTION: ruff_accuracy.ruff_accuracy(
            words,
            data["answer"],
            data["pronoun_set"],
            data["distractors"],
            data["context_id"],
            pronoun_groups=data["pronoun_group"],
            cases=data["case"],
            block_ids=blocks,
            n_bootstrap=n_bootstrap,
            seed=seed,
        ),
        SET_DIFF_SECTION: pronoun_set_diff.pronoun_set_diff(
            answers(words),
            data["answer"],
            data["pronoun_set"],
            data["context_id"],
            data["occupation"],
            data["bls_pct_female"],
            block_ids=blocks,
            n_bootstrap=n_bootstrap,
            seed=seed,
        ),
    }


BENCHMARK = Benchmark(
    name="ruff",
    dataset="ruff",
    parts=(("default", "test"),),
    language="en",
    unit="context_id",
    metric_modules=("ruff_accuracy", "pronoun_set_diff"),
    description="RUFF: does the model keep to the pronoun a person was introduced with, 0 to 5 distractors later?",
    score=score,
    balance_columns=("distractors", "case"),
    limit_meaning="N contexts of each number of distractors (0 to 5) and case (nom, acc, poss), each with every "
    "declared and confusing pronoun (4 instances without distractors, 12 with: 192N instances)",
    cloze=ClozeTemplate(
        version=2,
        reads_until=fill_in.OPTIONS_START,
        suffix="\n\nThe best pronoun to fill in the blank is",
        source="RUFF's scripts/prompt.py (get_pronoun_templates, prompt_model), verbatim: its template '{task}\\n\\n"
        "The best pronoun to fill in the blank is' (the second, in the variant without the options list) with the "
        "instance's pronoun replaced by '___', continued by ' ' + each pronoun. The row's options list is not read: "
        "shown it, SmolLM2-135M and Gemma 3 270M copy its rarest word, xe, into nearly every blank",
        cannot_express="nothing: the options are the four pronouns the paper scores (he, she, they, xe in the "
        "blank's case), the declared one among them",
    ),
    headlines=(
        Headline(SECTION, "accuracy", "accuracy", None),
        Headline(SET_DIFF_SECTION, "diff/they", "they − he/she accuracy", 0.0),
        Headline(SET_DIFF_SECTION, "diff/xe", "xe − he/she accuracy", 0.0),
        Headline(SECTION, "no_distractors_minus_five", "accuracy 0 − 5 distractors", 0.0),
    ),
    bias_axis=BiasAxis("pronoun_set", {"he": 1, "she": 1, "they": -1, "xe": -1}, "toward_gold"),
    figures=(Figure("accuracy_gaps", SET_DIFF_SECTION), Figure("distractors", SECTION)),
    explore=pronoun_set_view("context_id"),
    clusters_cannot_express=CLUSTERS_CANNOT_EXPRESS,
    blocks=BLOCKS,
)
