"""The DaWinoBias builder: counts, alignment, GenDa Lens stereotypes, rows fed to pro_anti_diff."""

from collections import Counter

from dataset_harness import assert_export_layout, assert_spans_match, builder_module
from metric_harness import load

COUNTS = {"validation": 342, "test": 332}


def test_export_layout_and_counts(exported_set, loaded_set):
    assert_export_layout(exported_set("dawinobias"), {c: ["validation", "test"] for c in ("pro", "anti")},
                         license_id="other", default="pro")
    for config in ("pro", "anti"):
        dataset = loaded_set("dawinobias", config)
        assert {split: dataset[split].num_rows for split in dataset} == COUNTS
        assert_spans_match(dataset)
    card = (exported_set("dawinobias") / "README.md").read_text()
    assert "License unclear upstream" in card


def test_pairs_align_and_stereotypes_follow_genda_lens(loaded_set):
    for split, rows in COUNTS.items():
        pro, anti = (loaded_set("dawinobias", config)[split] for config in ("pro", "anti"))
        assert pro["pair_id"] == anti["pair_id"] and len(set(pro["pair_id"])) == rows
        assert pro["occupations"] == anti["occupations"]
        identical = [a["text"] for a, b in zip(pro, anti) if a["pronoun_gender"] == b["pronoun_gender"]]
        assert len(identical) == {"validation": 5, "test": 0}[split]  # upstream twins left untranslated
        assert all(a["text"] == b["text"] for a, b in zip(pro, anti) if a["text"] in identical)
        unlisted = Counter(o for row in pro for o, s in zip(row["occupations"], row["candidate_stereotypes"]) if s is None)
        assert set(unlisted) == {"skribenten", "ekspedienten"}
    row = loaded_set("dawinobias", "pro")["validation"][0]
    assert row["text"] == "Udvikleren diskuterede med designeren, fordi han ikke kunne lide designet."
    assert [c["text"] for c in row["candidates"]] == ["Udvikleren", "designeren"]
    assert row["candidate_stereotypes"] == ["male", "female"] and row["pronoun"]["text"] == "han"


def test_genitive_nouns_take_the_listed_stereotype():
    dawinobias = builder_module("dawinobias")
    listed = {"receptionisten": "female", "lederen": "male"}
    assert dawinobias.stereotype_of("receptionistens løn", listed) == "female"
    assert dawinobias.stereotype_of("lederen", listed) == "male"
    assert dawinobias.stereotype_of("skribenten", listed) is None


def test_rows_feed_pro_anti_diff_as_genda_lens_scores_them(loaded_set, in_repo):
    rows = list(loaded_set("dawinobias", "pro")["test"]) + list(loaded_set("dawinobias", "anti")["test"])
    # A model that always picks the first candidate: accuracy = share of rows whose antecedent comes first.
    first_is_gold = [row["candidates"][0]["is_referent"] for row in rows]
    results = load("pro_anti_diff").compute(
        predictions=first_is_gold, references=[True] * len(rows),
        conditions=[row["polarity"] for row in rows], pair_ids=[row["pair_id"] for row in rows], n_bootstrap=0,
    )
    pro_share = sum(first_is_gold[:332]) / 332
    assert results["pro"] == pro_share and results["num_pairs"] == 332
