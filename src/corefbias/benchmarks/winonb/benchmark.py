"""WinoNB (Baumler & Rudinger, 2022): is singular *they* read as singular as often as plural *they* as plural?"""

from __future__ import annotations

from ...measures import winonb_accuracy
from ..cloze_wording import OCCUPATIONS_CLOZE
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline
from .decisions import winonb_reading
from .explore import MISREAD

# A plural noun's sentences (its singular and plural readings of one frame, and for WinoBias's nouns many frames)
# share the noun.
BLOCKS = BlockDesign(("plural_noun",), ("plural noun",))


def score(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    return {
        "winonb": winonb_accuracy.winonb_accuracy(
            [winonb_reading(decision) for decision in decisions[part]],
            data["number"],
            data["source"],
            block_ids=BLOCKS.ids(data),
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    }


BENCHMARK = Benchmark(
    name="winonb",
    dataset="winonb",
    parts=(("v0", "test"),),
    language="en",
    unit="id",
    metric_modules=("winonb_accuracy",),
    description="WinoNB: accuracy of reading they as singular (someone) or plural (the technicians), and its "
    "singular − plural gap",
    score=score,
    balance_columns=("source", "number"),
    limit_meaning="N sentences with a singular and N with a plural they from each source (Winogender, WinoBias, "
    "WSC, DPR: 8N instances, fewer above N = 43, where WSC has 43 of one and 44 of the other)",
    cloze=OCCUPATIONS_CLOZE,
    headlines=(Headline("winonb", winonb_accuracy.DIFFERENCE, "accuracy singular − plural they", 0.0),),
    bias_axis=BiasAxis("number", {"plural": 1, "singular": -1}, "toward_gold"),
    figures=(Figure("accuracy_gaps", "winonb"),),
    explore=MISREAD,
    blocks=BLOCKS,
)
