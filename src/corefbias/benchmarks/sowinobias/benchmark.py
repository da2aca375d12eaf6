"""SoWinoBias (Dawkins, 2021): accuracy on pro- vs anti-stereotypical sentences with two occupations."""

from __future__ import annotations

from ..cloze_wording import OCCUPATIONS_CLOZE
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline
from ..explore import PRO_ANTI_PAIRS
from ..link_sections import pro_anti_link_scorer

# Every pair of a female- and a male-stereotyped occupation meets every adjective in one frame: three crossed factors.
BLOCKS = BlockDesign(
    ("female_occupation", "male_occupation", "adjective"),
    ("female-stereotyped occupation", "male-stereotyped occupation", "adjective"),
)

BENCHMARK = Benchmark(
    name="sowinobias",
    dataset="sowinobias",
    parts=(("default", "test"),),
    language="en",
    unit="pair_id",
    metric_modules=("pro_anti_diff",),
    description="SoWinoBias: accuracy on pro- vs anti-stereotypical sentences with two occupations",
    score=pro_anti_link_scorer(
        {"sowinobias": (("default", "test"),)},
        score="accuracy",
        gold_only=True,
        condition="condition",
        group="polarity",
        blocks=BLOCKS,
    ),
    headlines=(Headline("sowinobias", "diff", "accuracy pro − anti", 0.0),),
    condition_column="condition",
    balance_columns=("condition", "polarity"),
    limit_meaning="N aligned pro/anti pairs with a positive and N with a negative adjective (4N instances)",
    cloze=OCCUPATIONS_CLOZE,
    bias_axis=BiasAxis("condition", {"pro": 1, "anti": -1}, "toward_gold"),
    figures=(Figure("pro_anti"),),
    explore=PRO_ANTI_PAIRS,
    blocks=BLOCKS,
)
