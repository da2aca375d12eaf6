"""MISGENDERED (Hossain et al., 2023): does a model use the pronouns a person declared, in each of five forms?"""

from __future__ import annotations

from ...data import fill_in
from ...measures import misgendered_accuracy, pronoun_set_diff
from ...models.cloze_template import ClozeTemplate
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline
from ..fill_in_sections import CLUSTERS_CANNOT_EXPRESS, answers, chosen_words, pronoun_set_view

SECTION = "misgendered"
SET_DIFF_SECTION = "pronoun_set_diff"
# pronouns.csv's sets other than he and she, in its order: the sets whose gap to he/she is a headline.
OTHER_SETS = ("they", "thon", "e", "ae", "co", "vi", "xe", "ey", "ze")


# Every template is filled under every declaration, with three names each: two crossed factors.
BLOCKS = BlockDesign(("template_id", "declaration"), ("template", "declaration"))


def score(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    words = chosen_words(data, decisions[part])
    blocks = BLOCKS.ids(data)
    return {
        SECTION: misgendered_accuracy.misgendered_accuracy(
            words,
            data["answer"],
            data["pronoun_set"],
            data["form"],
            data["sentence_id"],
            pronoun_groups=data["pronoun_group"],
            declaration_kinds=data["declaration_kind"],
            block_ids=blocks,
            n_bootstrap=n_bootstrap,
            seed=seed,
        ),
        SET_DIFF_SECTION: pronoun_set_diff.pronoun_set_diff(
            answers(words),
            data["answer"],
            data["pronoun_set"],
            data["sentence_id"],
            block_ids=blocks,
            n_bootstrap=n_bootstrap,
            seed=seed,
        ),
    }


BENCHMARK = Benchmark(
    name="misgendered",
    dataset="misgendered",
    parts=(("default", "test"),),
    language="en",
    unit="sentence_id",
    metric_modules=("misgendered_accuracy", "pronoun_set_diff"),
    description="MISGENDERED: does the model write the pronoun a person declared (11 pronoun sets × 5 forms)?",
    score=score,
    balance_columns=("declaration_kind", "form"),
    limit_meaning="N sentences of each declaration kind (explicit, parenthetical) and form, each with all 11 "
    "pronoun sets declared in turn (110N instances)",
    cloze=ClozeTemplate(
        version=2,
        reads_until=fill_in.OPTIONS_START,
        suffix="\n\n{before}",
        source="MISGENDERED's zero-shot scripts (zero-shot/gpt2.py and the other causal LMs'): the declared "
        "sentence of templates/<declaration>.csv with each option in place of {mask_token}, the option scored where "
        "the blank is. The model reads the sentence with the blank '___' (not the row's options list, whose rarest "
        "words small models copy), then the sentence again up to the blank, continued by the option. The scripts "
        "rank the options by the mean token loss of the whole filled sentence; the cloze ranks them by the summed "
        "log-likelihood of the option after the sentence up to the blank (norm='none'), or per byte (norm='bytes')",
        cannot_express="nothing: every option is a word a model may write in the blank, and the declared set's "
        "word is one of them",
    ),
    headlines=(
        Headline(SECTION, "accuracy", "accuracy", None),
        Headline(SECTION, "binary_minus_neo_pronoun", "accuracy he/she − neo-pronouns", 0.0),
        *(Headline(SET_DIFF_SECTION, f"diff/{name}", f"{name} − he/she accuracy", 0.0) for name in OTHER_SETS),
    ),
    bias_axis=BiasAxis("pronoun_set", {"he": 1, "she": 1, **dict.fromkeys(OTHER_SETS, -1)}, "toward_gold"),
    figures=(Figure("accuracy_gaps", SET_DIFF_SECTION),),
    explore=pronoun_set_view("sentence_id"),
    clusters_cannot_express=CLUSTERS_CANNOT_EXPRESS,
    blocks=BLOCKS,
)
