"""GAP test: feminine vs masculine accuracy (acc-Bias) and the LP-weighted W-Bias of Kocijan et al. (2021)."""

from __future__ import annotations

from ...measures import gap_acc_bias, gap_w_bias
from ...measures.weighting import InfeasibleBalanceError
from ..cloze_wording import NAMES_CLOZE, someone_else_wording
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline
from ..link_sections import gold_links

# Several examples come from one Wikipedia page: its people, names and prose.
BLOCKS = BlockDesign(("url",), ("Wikipedia page",))


def score(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    gold = gold_links(data)
    pages = BLOCKS.ids(data)
    sections = {
        "gap": gap_acc_bias.gap_acc_bias(
            decisions[part], gold, data["gender"], block_ids=pages, n_bootstrap=n_bootstrap, seed=seed
        )
    }
    # The weights balance examples with a referent; a small --limit subset may hold none of one gender.
    referred = {gender for gender, labels in zip(data["gender"], gold) if any(labels)}
    for variant in ("w", "wt"):
        if referred != {"female", "male"}:
            missing = ", ".join(sorted({"female", "male"} - referred))
            sections[f"gap/{variant}"] = gap_w_bias.undefined_w_bias(
                f"no balancing weights: no {missing} example has a referent among its candidates"
            )
            continue
        try:
            sections[f"gap/{variant}"] = gap_w_bias.gap_w_bias(
                decisions[part],
                gold,
                data["gender"],
                num_names=data["num_names"],
                correct_ranks=data["correct_rank"],
                variant=variant,
                return_weights=variant == "w",
                block_ids=pages,
                n_bootstrap=n_bootstrap,
                seed=seed,
            )
        except InfeasibleBalanceError as error:
            sections[f"gap/{variant}"] = gap_w_bias.undefined_w_bias(f"no balancing weights: {error}")
    return sections


BENCHMARK = Benchmark(
    name="gap",
    dataset="gap",
    parts=(("default", "test"),),
    language="en",
    unit="id",
    metric_modules=("gap_acc_bias", "gap_w_bias"),
    description="GAP test: feminine vs masculine accuracy (acc-Bias) and the LP-weighted W-Bias",
    score=score,
    balance_columns=("gender",),
    limit_meaning="N examples of each pronoun gender (2N instances)",
    cloze=NAMES_CLOZE,
    prompts=(someone_else_wording(NAMES_CLOZE, "GAP test examples (227 of 2000)"),),
    headlines=(
        Headline("gap", "acc_bias", "acc-Bias (F/M)", 1.0),
        Headline("gap", "f1_bias", "F1-Bias (F/M)", 1.0),
        Headline("gap/w", "w_bias", "W-Bias", 1.0),
        Headline("gap/wt", "w_bias", "Wt-Bias", 1.0),
    ),
    bias_axis=BiasAxis("gender", {"male": 1, "female": -1}, "toward_gold"),
    figures=(Figure("weights", "gap/w"),),
    blocks=BLOCKS,
)
