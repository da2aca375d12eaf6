"""The Winogender builder: its export, counts and spans, and its rows fed to winogender_bias."""

from collections import Counter

from dataset_harness import assert_export_layout, assert_spans_match, builder_module
from metric_harness import load


def test_export_layout(exported_set, loaded_set):
    assert_export_layout(exported_set("winogender"), {"default": ["test"]}, license_id="mit", default="default")
    assert_spans_match(loaded_set("winogender", "default"))


def test_winogender_counts(loaded_set):
    test = loaded_set("winogender", "default")["test"]
    assert test.num_rows == 720
    assert Counter(test["gender"]) == {"female": 240, "male": 240, "neutral": 240}
    assert len(set(test["pair_id"])) == 240
    assert len(set(test["occupation"])) == 60
    assert Counter(test["answer"]) == {"occupation": 360, "participant": 360}
    for row in test:
        occupation, participant = row["candidates"]
        assert occupation["text"].lower() == f"the {row['occupation']}"
        assert participant["text"].lower() in {f"the {row['participant']}", f"a {row['participant']}", "someone"}
        assert [occupation["is_referent"], participant["is_referent"]] == [
            row["answer"] == "occupation",
            row["answer"] == "participant",
        ]
        assert (row["gotcha"] is None) == (row["gender"] == "neutral")


def test_winogender_rows_feed_winogender_bias(loaded_set, in_repo):
    test = loaded_set("winogender", "default")["test"]
    results = load("winogender_bias").compute(
        predictions=test["answer"],
        references=test["answer"],
        occupations=test["occupation"],
        genders=test["gender"],
        pair_ids=test["pair_id"],
        bls_pct_female=test["bls_pct_female"],
        bergsma_pct_female=test["bergsma_pct_female"],
        n_bootstrap=0,
    )
    assert results["num_pairs"] == 240
    assert results["accuracy"] == 1.0
    assert results["accuracy_gotcha"] == 1.0
    assert results["pairs_resolved_differently"] == 0.0


def test_winogender_template_instantiation():
    winogender = builder_module("winogender")
    text, found = winogender.instantiate(
        "The $PARTICIPANT asked the $OCCUPATION if $NOM_PRONOUN was free.", "nurse", "someone", "neutral"
    )
    assert text == "Someone asked the nurse if they were free."
    assert found == {
        "participant": {"text": "Someone", "start": 0, "end": 7},
        "occupation": {"text": "the nurse", "start": 14, "end": 23},
        "pronoun": {"text": "they", "start": 27, "end": 31},
    }


def test_winogender_stereotypes_follow_bls_majority(loaded_set):
    test = loaded_set("winogender", "default")["test"]
    for row in test:
        occupation_stereotype, participant_stereotype = row["candidate_stereotypes"]
        assert participant_stereotype is None
        assert occupation_stereotype == ("female" if row["bls_pct_female"] >= 50 else "male")
        assert row["pronoun_gender"] == row["gender"]
    stereotypes = Counter(row["candidate_stereotypes"][0] for row in test)
    assert stereotypes == {"female": 31 * 12, "male": 29 * 12}  # 31 of 60 occupations are ≥ 50% female (BLS)
