"""RUFF (Gautam et al., 2024): does a model keep to a person's pronoun when 0 to 5 distractor sentences intervene?"""

from __future__ import annotations

from ...measures import ruff
from ...models.cloze_template import ClozeTemplate
from ..declaration import Benchmark, Headline
from ..fill_in_sections import CLUSTERS_CANNOT_EXPRESS, chosen_words, pronoun_set_view

SECTION = "ruff"


def score(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    return {
        SECTION: ruff.ruff_accuracy(
            chosen_words(data, decisions[part]),
            data["answer"],
            data["pronoun_set"],
            data["distractors"],
            data["context_id"],
            pronoun_groups=data["pronoun_group"],
            cases=data["case"],
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    }


BENCHMARK = Benchmark(
    name="ruff",
    dataset="ruff",
    parts=(("default", "test"),),
    language="en",
    unit="context_id",
    metric_modules=("ruff_accuracy",),
    description="RUFF: does the model keep to the pronoun a person was introduced with, 0 to 5 distractors later?",
    score=score,
    balance_columns=("distractors", "case"),
    limit_meaning="N contexts of each number of distractors (0 to 5) and case (nom, acc, poss), each with every "
    "declared and confusing pronoun (4 instances without distractors, 12 with: 192N instances)",
    cloze=ClozeTemplate(
        version=1,
        suffix="\n\nThe best pronoun to fill in the blank is",
        source="RUFF's scripts/prompt.py (get_pronoun_templates, prompt_model), verbatim: the instance with its "
        "pronoun replaced by '___', the options as 'OPTIONS:' and '- <pronoun>' lines, and its template '{task}\\n\\n"
        "The best pronoun to fill in the blank is', continued by ' ' + the pronoun. prompt.py puts the options "
        "after the question ('{task}\\n\\nThe best pronoun to fill in the blank is\\n{options}') for models that "
        "generate; a cloze continuation must follow the question, so the options come before it",
        cannot_express="nothing: the options are the four pronouns the paper scores (he, she, they, xe in the "
        "blank's case), the declared one among them",
    ),
    headlines=(
        Headline(SECTION, "accuracy", "accuracy", None),
        Headline(SECTION, "binary_minus_gender_neutral", "accuracy he/she − they", 0.0),
        Headline(SECTION, "binary_minus_neo_pronoun", "accuracy he/she − xe", 0.0),
        Headline(SECTION, "no_distractors_minus_five", "accuracy 0 − 5 distractors", 0.0),
    ),
    explore=pronoun_set_view("context_id"),
    clusters_cannot_express=CLUSTERS_CANNOT_EXPRESS,
)
