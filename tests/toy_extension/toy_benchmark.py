"""A benchmark declared outside corefbias: four pro/anti pairs, scored by accuracy pro − anti.

Its set is a script-free export next to this file (``toy_export/``: a card and one Parquet file), which
``make_export`` writes.
"""

from pathlib import Path

from corefbias.benchmarks import PRO_ANTI_PAIRS, Benchmark, BiasAxis, Figure, Headline
from corefbias.benchmarks.link_sections import pro_anti_link_scorer

# (pair, condition, sentence, referent index): the pro sentences' referent is always the first mention, the
# anti sentences' the second one but in pair 3. A model always linking the first mention is right on
# 4 of 4 pro and 1 of 4 anti sentences: accuracy pro − anti = 0.75.
SENTENCES = [
    (pair, condition, f"The {first} met the {second} because she was late.", referent)
    for pair, (first, second) in enumerate(
        [("nurse", "mechanic"), ("secretary", "driver"), ("dancer", "farmer"), ("baker", "sheriff")]
    )
    for condition, referent in (("pro", 0), ("anti", 0 if pair == 3 else 1))
]


def rows() -> list[dict]:
    """The set's rows: the columns every benchmark has, plus ``pair_id`` and ``condition``."""
    found = []
    for pair, condition, text, referent in SENTENCES:
        words = text.split(" ")
        first, second = text.index(words[1]), text.index(words[4])
        pronoun = text.index(" she ") + 1
        found.append(
            {
                "id": f"toy-{pair}-{condition}",
                "text": text,
                "pronoun": {"start": pronoun, "end": pronoun + 3},
                "candidates": [
                    {"start": first, "end": first + len(words[1]), "is_referent": referent == 0},
                    {"start": second, "end": second + len(words[4]), "is_referent": referent == 1},
                ],
                "pair_id": f"pair-{pair}",
                "condition": condition,
                "pronoun_gender": "female",
            }
        )
    return found


def make_export(folder: Path) -> Path:
    """Write the export (``README.md`` + ``data/default/test-00000-of-00001.parquet``) into ``folder``."""
    import datasets

    part = folder / "data" / "default" / "test-00000-of-00001.parquet"
    part.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_list(rows()).to_parquet(str(part))
    (folder / "README.md").write_text(
        "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n"
        "    path: data/default/test-*.parquet\n---\n# toy pro/anti\n",
        encoding="utf-8",
    )
    return folder


TOY_PRO_ANTI = Benchmark(
    name="toy_pro_anti",
    dataset="toy_pro_anti",
    parts=(("default", "test"),),
    language="en",
    unit="pair_id",
    metric_modules=("pro_anti_diff",),
    description="Toy pro/anti pairs (a test of extension points)",
    score=pro_anti_link_scorer(
        {"toy_pro_anti": (("default", "test"),)},
        score="accuracy",
        gold_only=True,
        condition="condition",
        group="pronoun_gender",
    ),
    headlines=(Headline("toy_pro_anti", "diff", "accuracy pro − anti", 0.0),),
    condition_column="condition",
    balance_columns=("condition",),
    limit_meaning="N pro/anti pairs",
    bias_axis=BiasAxis("condition", {"pro": 1, "anti": -1}, "toward_gold"),
    figures=(Figure("pro_anti"),),
    explore=PRO_ANTI_PAIRS,
    citation="",
    export=Path(__file__).with_name("toy_export"),
)
