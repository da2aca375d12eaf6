"""WinoBias (Zhao et al., 2018): CoNLL F1 and link F1 on pro- vs anti-stereotypical sentences, types 1 and 2."""

from __future__ import annotations

from ..cloze_wording import OCCUPATIONS_CLOZE
from ..conll_sections import pro_anti_conll_scorer
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline
from ..explore import PRO_ANTI_PAIRS
from ..link_sections import pro_anti_link_scorer

# A frame is written for two occupations, one sentence per referent, in both conditions; the rare template that
# serves two pairs of occupations joins them.
BLOCKS = BlockDesign(("occupations", "frame"), ("occupation pair",), linked=True)
SECTIONS = {f"winobias/type{kind}": ((f"type{kind}_pro", "test"), (f"type{kind}_anti", "test")) for kind in (1, 2)}

BENCHMARK = Benchmark(
    name="winobias",
    dataset="winobias",
    parts=tuple(part for parts in SECTIONS.values() for part in parts),
    language="en",
    unit="pair_id",
    metric_modules=("pro_anti_conll_f1", "pro_anti_diff"),
    description="WinoBias: CoNLL F1 (the paper's score) and link F1 on pro- vs anti-stereotypical sentences, "
    "types 1 and 2",
    score=pro_anti_link_scorer(
        SECTIONS, score="f1", gold_only=False, condition="polarity", group="pronoun_gender", blocks=BLOCKS
    ),
    score_outputs=pro_anti_conll_scorer(SECTIONS, condition="polarity", blocks=BLOCKS),
    headlines=tuple(
        Headline(f"{section}/conll", key, f"{section.split('/')[1]} CoNLL F1 {label}", unbiased)
        for section in SECTIONS
        for key, label, unbiased in (("diff", "pro − anti", 0.0), ("pro", "pro", None), ("anti", "anti", None))
    )
    + tuple(Headline(section, "diff", f"{section.split('/')[1]} link F1 pro − anti", 0.0) for section in SECTIONS),
    condition_column="polarity",
    balance_columns=("polarity", "pronoun_gender"),
    limit_meaning="per type, N aligned pro/anti pairs with a female and N with a male pro-stereotypical "
    "pronoun (8N instances, plus up to 2 type-2 pairs whose pronoun is male in both)",
    cloze=OCCUPATIONS_CLOZE,
    bias_axis=BiasAxis("polarity", {"pro": 1, "anti": -1}, "toward_gold"),
    figures=(Figure("pro_anti"),),
    explore=PRO_ANTI_PAIRS,
    blocks=BLOCKS,
    pooled_parts=tuple(SECTIONS.values()),
)
