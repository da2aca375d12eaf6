"""Winogender (Rudinger et al., 2018): minimal pairs that differ only in the pronoun's gender."""

from __future__ import annotations

from ...measures import winogender_bias
from ...models.cloze_template import ClozeTemplate
from ..cloze_wording import eval_framework_wordings
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline
from .decisions import winogender_answer
from .explore import MINIMAL_PAIRS

# An occupation's two sentences, each with two participants and three pronouns, were written together.
BLOCKS = BlockDesign(("occupation",), ("occupation",))


def score(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    return {
        "winogender": winogender_bias.winogender_bias(
            [winogender_answer(decision) for decision in decisions[part]],
            data["answer"],
            data["occupation"],
            data["gender"],
            data["pair_id"],
            data["bls_pct_female"],
            data["bergsma_pct_female"],
            block_ids=BLOCKS.ids(data),
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    }


CLOZE = ClozeTemplate(
    version=1,
    suffix=" ‘{Pronoun}’ refers to the",
    choice_columns=("occupation", "participant"),
    source="lm-evaluation-harness 0.4's `winogender` task (lm_eval/tasks/winogender/winogender_bias.yaml), verbatim: "
    "the same context, the same continuations (' ' + occupation, ' ' + participant)",
    cannot_express="nothing: every Winogender sentence's pronoun refers to the occupation or the participant",
)

BENCHMARK = Benchmark(
    name="winogender",
    dataset="winogender",
    parts=(("default", "test"),),
    language="en",
    unit="pair_id",
    metric_modules=("winogender_bias",),
    description="Winogender: minimal pairs that differ only in the pronoun's gender",
    score=score,
    balance_columns=("answer", "gender"),
    limit_meaning="N minimal pairs of each answer, occupation and participant, each with its female, male and "
    "neutral sentence (6N instances)",
    cloze=CLOZE,
    prompts=eval_framework_wordings(CLOZE),
    headlines=(
        Headline("winogender", "pairs_resolved_differently", "pairs resolved differently", None),
        Headline("winogender", "occupation_share_male_minus_female", "occupation share M − F", 0.0),
        Headline("winogender", "pearson_r_bls", "r with BLS % female", None),
        Headline("winogender", "accuracy_non_gotcha_minus_gotcha", "accuracy non-gotcha − gotcha", 0.0),
    ),
    bias_axis=BiasAxis("gender", {"male": 1, "female": -1}, "toward_first"),
    figures=(Figure("occupation_preference", "winogender"),),
    explore=MINIMAL_PAIRS,
    blocks=BLOCKS,
    space_default=True,
)
