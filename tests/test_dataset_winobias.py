"""The WinoBias builder: counts, pro/anti alignment, stereotypes, every gold cluster, rows fed to pro_anti_diff."""

from collections import Counter

import pytest

from corefbias import spans, wino_format
from dataset_harness import assert_export_layout, assert_spans_match, builder_module
from metric_harness import load

CONFIGS = [f"type{kind}_{polarity}" for kind in (1, 2) for polarity in ("pro", "anti")]


def test_export_layout_and_counts(exported_set, loaded_set):
    assert_export_layout(exported_set("winobias"), {c: ["validation", "test"] for c in CONFIGS}, license_id="mit",
                         default="type1_pro")
    for config in CONFIGS:
        dataset = loaded_set("winobias", config)
        assert {split: dataset[split].num_rows for split in dataset} == {"validation": 396, "test": 396}
        assert_spans_match(dataset)
        for row in dataset["test"]:
            assert sum(c["is_referent"] for c in row["candidates"]) == 1
            for cluster in row["clusters"]:
                assert all(row["text"][s["start"]:s["end"]] == s["text"] for s in cluster)


def test_pro_and_anti_twins_differ_in_the_pronoun_only(loaded_set):
    for kind in (1, 2):
        pro, anti = (loaded_set("winobias", f"type{kind}_{p}")["test"] for p in ("pro", "anti"))
        assert pro["pair_id"] == anti["pair_id"]
        same_frame = [a["occupations"] == b["occupations"] for a, b in zip(pro, anti)]
        assert same_frame.count(False) == (2 if kind == 2 else 0)  # test type 2, line 382 (see the card)
        for a, b, same in zip(pro, anti, same_frame):
            if same:
                assert a["pronoun_gender"] != b["pronoun_gender"]
                assert a["candidates"] == b["candidates"] or a["text"] != b["text"]


def test_stereotypes_agree_with_upstream_occupation_lists(loaded_set, mirror):
    root = mirror / "winobias" / "WinoBias" / "wino" / "data"
    listed = {line.strip().lower(): gender for gender in ("male", "female")
              for line in (root / f"{gender}_occupations.txt").read_text().splitlines() if line.strip()}
    for config in CONFIGS:
        for split in ("validation", "test"):
            for row in loaded_set("winobias", config)[split]:
                assert [listed[o] for o in row["occupations"]] == row["candidate_stereotypes"]
                referent = [c["is_referent"] for c in row["candidates"]].index(True)
                fits = row["candidate_stereotypes"][referent] == row["pronoun_gender"]
                assert fits == (row["polarity"] == "pro")


def test_the_gold_cluster_holds_pronoun_and_antecedent(loaded_set):
    row = loaded_set("winobias", "type1_anti")["validation"][26]  # line 27: "[she] needed to cut [her] hair"
    assert row["text"] == "The developer visited the hairdresser because she needed to cut her hair."
    assert [[s["text"] for s in cluster] for cluster in row["clusters"]] == [["The developer", "she", "her"]]
    assert row["pronoun"] == {"text": "she", "start": 46, "end": 49}


def test_rows_feed_pro_anti_diff(loaded_set, in_repo):
    rows = [row for config in ("type1_pro", "type1_anti") for row in loaded_set("winobias", config)["test"]]
    decisions = [c["is_referent"] for row in rows for c in row["candidates"]]
    results = load("pro_anti_diff").compute(
        predictions=decisions, references=decisions,
        conditions=[row["polarity"] for row in rows for _ in row["candidates"]],
        pair_ids=[row["pair_id"] for row in rows for _ in row["candidates"]],
        groups=[row["pronoun_gender"] for row in rows for _ in row["candidates"]],
        score="f1", n_bootstrap=0,
    )
    assert (results["pro"], results["anti"], results["diff"], results["num_pairs"]) == (1.0, 1.0, 0.0, 396)


def test_bracket_parsing_and_its_errors():
    vocabulary = {"developer", "designer"}
    first, second = wino_format.parse_pair(
        "1 [The developer] argued with the designer because [he] did not like the design.",
        "2 The developer argued with [the designer] because [her] idea cannot be implemented.",
        "en", vocabulary, rows=("f:1", "f:2"),
    )
    assert first.candidates == [
        {"text": "The developer", "start": 0, "end": 13, "is_referent": True},
        {"text": "the designer", "start": 26, "end": 38, "is_referent": False},
    ]
    assert (first.pronoun, first.pronoun_gender) == ({"text": "he", "start": 47, "end": 49}, "male")
    assert [c["is_referent"] for c in second.candidates] == [False, True] and second.pronoun_gender == "female"
    with pytest.raises(spans.SpanError, match=r"row f:3: expected one bracketed antecedent"):
        wino_format.parse_pair("3 The developer argued with the designer because [he] left.", "4 [The developer] met [him].",
                               "en", vocabulary, rows=("f:3", "f:4"))
    with pytest.raises(spans.SpanError, match=r"row f:5: no second occupation besides 'The developer'"):
        wino_format.parse_pair("5 [The developer] argued because [he] left.", "6 [The developer] met [him].",
                               "en", vocabulary, rows=("f:5", "f:6"))


def test_conll_reader_keeps_every_cluster():
    winobias = builder_module("winobias")
    lines = [
        "#begin document (nw/dev_type1/stereotype//0); part 000",
        *[f"d\t0\t{i}\t{token}\t-\t-\t-\t-\t-\tS\t*\t{mark}" for i, (token, mark) in enumerate(
            [("Ann", "(1)"), ("met", "-"), ("Bob", "(2)"), ("and", "-"), ("he", "(2)|(3"), ("smiled", "3)"), (".", "-")])],
        "#end document",
    ]
    (tokens, clusters), = winobias.read_conll(lines, source="x").values()
    assert clusters == [[(0, 0)], [(2, 2), (4, 4)], [(4, 5)]]
    assert winobias.char_clusters("Ann met Bob and he smiled.", tokens, clusters, row="r")[1] == [
        {"text": "Bob", "start": 8, "end": 11}, {"text": "he", "start": 16, "end": 18}]
    assert Counter(len(c) for c in clusters) == {1: 2, 2: 1}
