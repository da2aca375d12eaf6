"""Counter-GAP (Xie et al., 2023): does the model's accuracy change when the names' gender is swapped? (ΔI)"""

from __future__ import annotations

import dataclasses

from ...measures import counter_gap_delta_i
from ..cloze_wording import NAMES_CLOZE, NO_NEITHER, someone_else_wording
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline
from ..link_sections import gold_links
from .explore import QUADRUPLES

# Several quadruples come from one book: its names, characters and style.
BLOCKS = BlockDesign(("book",), ("book",))


def score(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    return {
        "counter_gap": counter_gap_delta_i.counter_gap_delta_i(
            decisions[part],
            gold_links(data),
            data["quadruple_id"],
            data["role"],
            data["gender"],
            block_ids=BLOCKS.ids(data),
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    }


BENCHMARK = Benchmark(
    name="counter_gap",
    dataset="counter_gap",
    parts=(("default", "test"),),
    language="en",
    unit="quadruple_id",
    metric_modules=("counter_gap_delta_i",),
    description="Counter-GAP: does the model's accuracy change when the names' gender is swapped? (ΔI)",
    score=score,
    balance_columns=("role", "gender"),
    limit_meaning="N quadruples of each original gender (8N instances)",
    cloze=dataclasses.replace(
        NAMES_CLOZE, cannot_express=NO_NEITHER.format(count="Counter-GAP instances (128 of 4008)")
    ),
    prompts=(someone_else_wording(NAMES_CLOZE, "Counter-GAP instances (128 of 4008)"),),
    headlines=(
        Headline("counter_gap", "delta_i", "ΔI", 0.0),
        Headline("counter_gap", "accuracy_diff", "Acc_Diff (M − F)", 0.0),
        Headline("counter_gap", "accuracy", "accuracy", None),
    ),
    # ΔI counts any difference between a quadruple's genders as inconsistency: a null model's books move both alike.
    bias_axis=BiasAxis("gender", {"male": 1, "female": -1}, "toward_gold", sides_vary=False),
    figures=(Figure("inconsistency", "counter_gap"),),
    explore=QUADRUPLES,
    space_default=True,
    blocks=BLOCKS,
)
