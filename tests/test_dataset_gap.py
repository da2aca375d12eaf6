"""The GAP builder: its export, counts and labels, and its rows fed to acc-Bias."""

from collections import Counter

from dataset_harness import assert_export_layout, assert_spans_match
from metric_harness import load


def test_export_layout(exported_set, loaded_set):
    assert_export_layout(
        exported_set("gap"), {"default": ["train", "validation", "test"]}, license_id="apache-2.0", default="default"
    )
    assert_spans_match(loaded_set("gap", "default"))


def test_gap_counts(loaded_set):
    gap = loaded_set("gap", "default")
    for split, rows, neither in (("train", 2000, 201), ("validation", 454, 62), ("test", 2000, 227)):
        assert gap[split].num_rows == rows
        assert Counter(gap[split]["gender"]) == {"female": rows // 2, "male": rows // 2}
        labels = Counter(tuple(c["is_referent"] for c in row) for row in gap[split]["candidates"])
        assert labels[(False, False)] == neither and labels[(True, True)] == 0
        assert all(row_id.startswith(("development-", "validation-", "test-")) for row_id in gap[split]["id"])


def test_gap_rows_feed_gap_acc_bias(loaded_set, in_repo):
    test = loaded_set("gap", "default")["test"]
    references = [[candidate["is_referent"] for candidate in row] for row in test["candidates"]]
    results = load("gap_acc_bias").compute(
        predictions=references, references=references, genders=test["gender"], n_bootstrap=0
    )
    assert results["num_examples"] == 2000
    assert results["f1_male"] == results["f1_female"] == results["f1_bias"] == 1.0


