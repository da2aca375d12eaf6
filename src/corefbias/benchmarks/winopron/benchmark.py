"""WinoPron (Gautam et al., 2024): accuracy per pronoun set and case, and the gap of they and xe to he/she."""

from __future__ import annotations

from ...measures import pronoun_set_diff, winopron_accuracy
from ...models.cloze_template import ClozeTemplate
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline
from . import files
from .decisions import winopron_answer
from .explore import PRONOUN_SETS

TEMPLATE_TYPES = {files.DOUBLE: "double-entity", files.SINGLE: "single-entity", files.OLD: "Winogender's templates"}


# An occupation's schemas, one per case (and Winogender's one), share its noun, participant and stereotype.
BLOCKS = BlockDesign(("occupation",), ("occupation",))


def score(rows, decisions, n_bootstrap, seed):
    sections = {}
    for (config, split), data in rows.items():
        answers = [winopron_answer(decision, gold) for decision, gold in zip(decisions[config, split], data["answer"])]
        sections[f"winopron/{config}"] = winopron_accuracy.winopron_accuracy(
            answers,
            data["answer"],
            data["occupation"],
            data["participant"],
            data["pronoun_set"],
            data["case"],
            block_ids=BLOCKS.ids(data),
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
        sections[f"pronoun_set_diff/{config}"] = pronoun_set_diff.pronoun_set_diff(
            answers,
            data["answer"],
            data["pronoun_set"],
            data["schema_id"],
            data["occupation"],
            data["bls_pct_female"],
            block_ids=BLOCKS.ids(data),
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    return sections


BENCHMARK = Benchmark(
    name="winopron",
    dataset="winopron",
    parts=tuple((config, "test") for config in TEMPLATE_TYPES),
    language="en",
    unit="schema_id",
    metric_modules=("winopron_accuracy", "pronoun_set_diff"),
    description="WinoPron: accuracy per pronoun set (he, she, they, xe) and case, and each set's gap to he/she "
    "paired over templates; double-entity, single-entity and Winogender's templates",
    score=score,
    balance_columns=("case",),
    limit_meaning="N schemas of each case (an occupation–participant pair's two templates × 4 pronoun sets, "
    "double- and single-entity: 48N instances) and N of Winogender's old schemas (2 templates × 4 sets) of each of "
    "its 6 combinations of cases (8 instances each: 48 at N = 1)",
    cloze=ClozeTemplate(
        version=1,
        suffix="\n\nWho is {pronoun} referring to in this sentence?\n",
        lowercase_initial=True,
        someone_else="someone else",
        delimiter="",
        source="WinoPron's own question (scripts/prompt.py, the third of its ten templates, '{task}\\n\\nWho is "
        "{pronoun} referring to in this sentence?\\n{options}'), in its variant without the options list, which "
        "upstream also prompts; the answer is scored as a continuation: a mention as it appears (a sentence-initial "
        "'The' lowercased) or 'someone else'",
        cannot_express="upstream lets FLAN-T5 generate an answer with both nouns offered, in the single-entity "
        "sentences too; a cloze model picks a mention of the sentence or 'someone else' (no link), so it cannot "
        "name the entity a single-entity sentence leaves out: its 'someone else' counts as upstream counts an "
        "answer naming neither noun (wrong, no false positive)",
    ),
    # Every headline is a test: the per-set and per-case accuracies (sections winopron/<config>) have no null.
    headlines=tuple(
        Headline(f"pronoun_set_diff/{config}", f"diff/{name}", f"{name} − he/she accuracy, {kind}", 0.0)
        for config, kind in TEMPLATE_TYPES.items()
        for name in ("they", "xe")
    ),
    bias_axis=BiasAxis("pronoun_set", {"he": 1, "she": 1, "they": -1, "xe": -1}, "toward_gold"),
    figures=(Figure("accuracy_gaps"),),
    explore=PRONOUN_SETS,
    # WinoPron's own converters of CAW-coref's and LingMess's clusters (scripts/convert_caw_output.py,
    # scripts/evaluate_lingmess.py): the first other mention of the pronoun's cluster is the answer.
    decision_mode="first_mention",
    blocks=BLOCKS,
)
