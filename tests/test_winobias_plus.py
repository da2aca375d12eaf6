"""WinoBias+: its lines labelled by WinoBias (exact counts of the lines matched, ambiguous and unmatched), the pronoun
moved onto the rewrite, the export, and the scores computed by hand and for the stereotype baseline."""

import json

import pytest
from dataset_harness import assert_export_layout, assert_spans_match, builder_module

from corefbias.benchmarks import BENCHMARKS
from corefbias.benchmarks.winobias_plus import lines
from corefbias.harness.prediction_files import scoring
from corefbias.models.baselines import StereotypeBaseline

VERSIONS = ("gendered", "neutral")
COUNTS = {"validation": 1509, "test": 1555}
# The ambiguous lines (1-based): WinoBias repeats the last sentence or two of each dev file as the first of test.
AMBIGUOUS_LINES = [396, 397, 1186, 1187, 1188, 1189, 1979, 1980, 2770, 2771, 2772, 2773]


@pytest.fixture(scope="module")
def matched(mirror):
    return builder_module("winobias_plus").matched_lines(str(mirror))


def test_each_gendered_line_is_one_winobias_sentence_several_or_none(matched):
    found, sentences, texts, _ = matched
    assert len(texts["gendered"]) == len(texts["neutral"]) == 3167
    assert (len(found.matched), len(found.ambiguous), len(found.unmatched)) == (3064, 12, 91)
    assert [index + 1 for index in found.ambiguous] == AMBIGUOUS_LINES
    assert found.ambiguous[395] == ("dev-type1-anti-396", "test-type1-anti-1")
    assert len(set(found.matched.values())) == 3064  # no WinoBias sentence is claimed by two lines
    assert found.matched[0] == "dev-type1-anti-1"
    # Reworded by WinoBias+ ("stressed" for "stressful"): no match, though the sentence is WinoBias's line 79.
    assert 78 in found.unmatched
    assert texts["gendered"][78].endswith("because she was stressed .")
    assert sentences["dev-type1-anti-79"]["text"].endswith("because she was stressful.")


def test_a_line_and_its_rewrite_carry_the_winobias_label_and_the_rewritten_pronoun(mirror):
    rows = builder_module("winobias_plus").line_rows(1117, "dev-type2-anti-327", str(mirror))
    gendered, neutral = rows["gendered"], rows["neutral"]
    assert gendered["text"] == "The designer contacted the sheriff and then explained her the situation ."
    assert gendered["pronoun"] == {"text": "her", "start": 54, "end": 57}
    assert neutral["text"] == "The designer contacted the sheriff and then explained to them the situation ."
    assert neutral["pronoun"] == {"text": "them", "start": 57, "end": 61}
    for row in (gendered, neutral):
        assert [c["is_referent"] for c in row["candidates"]] == [False, True]
        assert (row["pair_id"], row["polarity"], row["type"], row["line"]) == ("dev-type2-327", "anti", 2, 1118)
        assert row["source_pronoun_gender"] == "female"
    assert (gendered["pronoun_gender"], neutral["pronoun_gender"]) == ("female", "neutral")


def test_the_pronoun_is_rewritten_by_order_and_only_as_a_they_form():
    gendered = "The nurse met the chef because she saw her ."
    assert lines.rewritten_pronoun(
        gendered, {"start": 31, "end": 34}, "The nurse met the chef because they saw them .", row="r"
    ) == {"text": "they", "start": 31, "end": 35}
    with pytest.raises(ValueError, match="2 pronouns .* but 1 they-forms"):
        lines.rewritten_pronoun(
            gendered, {"start": 31, "end": 34}, "The nurse met the chef because they left .", row="r"
        )
    with pytest.raises(ValueError, match="'she' is rewritten as 'them'"):
        lines.rewritten_pronoun(
            gendered, {"start": 31, "end": 34}, "The nurse met the chef because them saw them .", row="r"
        )
    with pytest.raises(ValueError, match="'saw' is no gendered pronoun"):
        lines.rewritten_pronoun(
            gendered, {"start": 35, "end": 38}, "The nurse met the chef because they saw them .", row="r"
        )
    with pytest.raises(ValueError, match="differ in more than whitespace"):
        lines.moved_span({"start": 0, "end": 3}, "The nurse left.", "A nurse left .")


def test_export_layout_counts_and_spans(exported_set, loaded_set):
    assert_export_layout(
        exported_set("winobias_plus"),
        {v: ["validation", "test"] for v in VERSIONS},
        license_id="cc-by-sa-4.0",
        default="gendered",
    )
    by_version = {}
    for version in VERSIONS:
        dataset = loaded_set("winobias_plus", version)
        assert {split: dataset[split].num_rows for split in dataset} == COUNTS
        assert_spans_match(dataset)
        by_version[version] = {row["winobias_id"]: row for split in dataset.values() for row in split.to_list()}
    assert by_version["gendered"].keys() == by_version["neutral"].keys()
    assert {row["pronoun"]["text"].lower() for row in by_version["neutral"].values()} == {"they", "them", "their"}
    for winobias_id, gendered in by_version["gendered"].items():
        neutral = by_version["neutral"][winobias_id]
        assert [c["is_referent"] for c in gendered["candidates"]] == [c["is_referent"] for c in neutral["candidates"]]
        assert (gendered["pair_id"], gendered["occupations"]) == (neutral["pair_id"], neutral["occupations"])


def _rows(specs):
    """Rows as columns of the four parts from (part, pair, polarity, version, occupations); the referent first."""
    rows = {
        part: {name: [] for name in ("candidates", "version", "polarity", "pair_id", "type", "occupations", "frame")}
        for part in BENCHMARKS["winobias_plus"].parts
    }
    for part, pair, polarity, version, occupations in specs:
        for name, value in (
            ("candidates", [{"is_referent": True}, {"is_referent": False}]),
            ("version", version),
            ("polarity", polarity),
            ("pair_id", pair),
            ("type", 1),
            ("occupations", occupations),
            ("frame", f"frame of {pair}"),
        ):
            rows[part][name].append(value)
    return rows


def test_the_gaps_and_the_pro_anti_differences_by_hand():
    right, wrong, both = [True, False], [False, True], [True, True]
    specs = [  # pair p1 complete; p2 has its pro sentence only; p3 (validation) complete
        (("gendered", "test"), "p1", "pro", "gendered", ["a", "b"], right),
        (("gendered", "test"), "p1", "anti", "gendered", ["a", "b"], wrong),
        (("neutral", "test"), "p1", "pro", "neutral", ["a", "b"], right),
        (("neutral", "test"), "p1", "anti", "neutral", ["a", "b"], right),
        (("gendered", "test"), "p2", "pro", "gendered", ["c", "d"], right),
        (("neutral", "test"), "p2", "pro", "neutral", ["c", "d"], wrong),
        (("gendered", "validation"), "p3", "pro", "gendered", ["e", "f"], right),
        (("gendered", "validation"), "p3", "anti", "gendered", ["e", "f"], right),
        (("neutral", "validation"), "p3", "pro", "neutral", ["e", "f"], wrong),
        (("neutral", "validation"), "p3", "anti", "neutral", ["e", "f"], both),  # linked to both: wrong
    ]
    rows = _rows([spec[:5] for spec in specs])
    decisions = {part: [] for part in rows}
    for spec in specs:
        decisions[spec[0]].append(spec[5])
    sections = BENCHMARKS["winobias_plus"].score(rows, decisions, 0, 0)
    # Gendered right on 4 of 5 lines, neutral on 2 of 5; pro lines 3/3 against 1/3, anti lines 1/2 against 1/2.
    assert sections["winobias_plus"]["accuracy/gendered"] == pytest.approx(4 / 5)
    assert sections["winobias_plus"]["diff/gendered"] == pytest.approx(4 / 5 - 2 / 5)
    assert sections["winobias_plus/pro"]["diff/gendered"] == pytest.approx(1 - 1 / 3)
    assert sections["winobias_plus/anti"]["diff/gendered"] == 0.0
    assert sections["winobias_plus"]["num_units"] == 3
    # Pro − anti on the complete pairs p1 and p3 only: gendered pro 2/2, anti 1/2; neutral 1/2 and 1/2.
    assert (sections["winobias_plus/gendered"]["pro"], sections["winobias_plus/gendered"]["anti"]) == (1.0, 0.5)
    assert sections["winobias_plus/neutral"]["diff"] == 0.0
    assert sections["winobias_plus/gendered"]["num_pairs"] == 2


def test_the_stereotype_baseline_is_right_on_every_pro_and_no_anti_gendered_line(loaded_set):
    benchmark = BENCHMARKS["winobias_plus"]
    rows, decisions = {}, {}
    for version, split in benchmark.parts:
        data = loaded_set("winobias_plus", version)[split]
        rows[version, split] = data.to_dict()
        picks = [StereotypeBaseline().pick(row) for row in data.to_list()]
        decisions[version, split] = [[index == pick for index in range(2)] for pick in picks]
    sections = benchmark.score(rows, decisions, 0, 0)
    assert sections["winobias_plus"]["accuracy/gendered"] == pytest.approx(
        1526 / 3064, rel=1e-9
    )  # the pro lines of 3,064
    assert sections["winobias_plus/pro"]["accuracy/gendered"] == 1.0
    assert sections["winobias_plus/anti"]["accuracy/gendered"] == 0.0
    assert sections["winobias_plus/gendered"]["diff"] == 1.0
    assert sections["winobias_plus/gendered"]["num_pairs"] == 1508
    # They: the nearest occupation, the same answer on the two rewrites of a pair wherever they are one sentence.
    assert sections["winobias_plus"]["accuracy/neutral"] == pytest.approx(2279 / 3064, rel=1e-9)
    assert sections["winobias_plus/neutral"]["diff"] == 0.0


def token_span(text: str, span: dict) -> list[int]:
    """The inclusive token span (tokens: ``text`` split at spaces) of a character span."""
    starts = [index for index in range(len(text)) if index == 0 or text[index - 1] == " "]
    return [
        max(i for i, start in enumerate(starts) if start <= span["start"]),
        max(i for i, start in enumerate(starts) if start < span["end"]),
    ]


def test_a_file_of_clusters_is_scored_by_the_links_it_makes(exported_set, loaded_set, tmp_path):
    """A system's clusters (jsonlines, as e2e-coref writes them): the pronoun with the referent in every gendered line
    and with the other occupation in every neutral one is right exactly on the gendered lines."""
    path = tmp_path / "clusters.jsonlines"
    with path.open("w", encoding="utf-8") as handle:
        for version, split in BENCHMARKS["winobias_plus"].parts:
            for row in loaded_set("winobias_plus", version)[split].to_list():
                linked = next(c for c in row["candidates"] if c["is_referent"] == (version == "gendered"))
                cluster = [token_span(row["text"], span) for span in (linked, row["pronoun"])]
                document = {"doc_key": row["id"], "sentences": [row["text"].split(" ")], "clusters": [cluster]}
                handle.write(json.dumps(document) + "\n")
    scored = scoring.score("winobias_plus", [path], data_dir=exported_set("winobias_plus").parent, n_bootstrap=0)
    sections = scored.runs["winobias_plus"].sections
    assert (sections["winobias_plus"]["accuracy/gendered"], sections["winobias_plus"]["accuracy/neutral"]) == (1, 0)
    assert sections["winobias_plus"]["diff/gendered"] == 1.0
    assert sections["winobias_plus/gendered"]["diff"] == sections["winobias_plus/neutral"]["diff"] == 0.0
