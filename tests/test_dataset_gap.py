"""The GAP builder: its export, counts and labels, the test split's names, ranks and W-Bias weights
(Kocijan et al., 2021, Sec. 2-3.5), and its rows fed to acc-Bias and W-Bias."""

import json
import sys
from collections import Counter

import numpy as np
import pytest
from dataset_harness import assert_export_layout, assert_spans_match, builder_module
from metric_harness import load

from corefbias.data import hub_export, spans, upstream
from corefbias.measures import gap_properties

TEST_ONLY_COLUMNS = ["names", "num_names", "candidate_ranks", "correct_rank", "w", "wnum", "wdist", "wt"]
# Sec. 3.4: the sets each weighting balances between the genders (N_k: num_names, D_k: correct_rank).
BALANCED_PROPERTIES = {
    "w": ("num_names", "correct_rank"),
    "wnum": ("num_names",),
    "wdist": ("correct_rank",),
    "wt": ("num_names", "correct_rank"),
}
BALANCE_TOLERANCE = 1e-9


def gold(rows):
    return [[candidate["is_referent"] for candidate in candidates] for candidates in rows["candidates"]]


def test_export_layout(exported_set, loaded_set):
    assert_export_layout(
        exported_set("gap"), {"default": ["train", "validation", "test"]}, license_id="apache-2.0", default="default"
    )
    assert_spans_match(loaded_set("gap", "default"))
    card = (exported_set("gap") / "README.md").read_text(encoding="utf-8")
    for section in ("## Use with the `gap_acc_bias` metric", "## Use with the `gap_w_bias` metric", 'weights=ds["w"]'):
        assert section in card, section
    assert all(f"| `{column}` |" in card for column in TEST_ONLY_COLUMNS)


def test_gap_counts(loaded_set):
    gap = loaded_set("gap", "default")
    for split, rows, neither in (("train", 2000, 201), ("validation", 454, 62), ("test", 2000, 227)):
        assert gap[split].num_rows == rows
        assert Counter(gap[split]["gender"]) == {"female": rows // 2, "male": rows // 2}
        assert gap[split]["pronoun_gender"] == gap[split]["gender"]
        labels = Counter(tuple(c["is_referent"] for c in row) for row in gap[split]["candidates"])
        assert labels[(False, False)] == neither and labels[(True, True)] == 0
        assert all(row_id.startswith(("development-", "validation-", "test-")) for row_id in gap[split]["id"])


def test_test_only_columns_are_null_elsewhere_and_filled_on_test(loaded_set):
    gap = loaded_set("gap", "default")
    for split in ("train", "validation"):
        assert all(value is None for column in TEST_ONLY_COLUMNS for value in gap[split][column])
    test = gap["test"]
    assert all(
        value is not None
        for column in ["names", "num_names", "candidate_ranks", "w", "wnum", "wdist", "wt"]
        for value in test[column]
    )
    assert sum(test["num_names"]) == 11854
    for text, names, num_names in zip(test["text"], test["names"], test["num_names"]):
        assert num_names == len(names) >= 1
        assert all(text[name["start"] : name["end"]] == name["text"] for name in names)
        assert [name["start"] for name in names] == sorted(name["start"] for name in names)


def test_correct_rank_is_the_positive_candidates_rank(loaded_set):
    test = loaded_set("gap", "default")["test"]
    unranked_positives = 0
    for labels, ranks, correct, num_names in zip(
        gold(test), test["candidate_ranks"], test["correct_rank"], test["num_names"]
    ):
        assert all(rank is None or 1 <= rank <= num_names for rank in ranks)
        if True in labels:
            assert correct == ranks[labels.index(True)]
            unranked_positives += correct is None
        else:
            assert correct is None
    assert unranked_positives == 9
    assert test["correct_rank"].count(None) == 227 + 9


def test_name_statistics_of_section_3_3(loaded_set):
    """Names per example and the correct candidate's rank, mean (population std), by gender, as printed."""
    test = loaded_set("gap", "default")["test"]
    genders = np.array(test["gender"])
    num_names = np.array(test["num_names"])
    ranks = np.array([np.nan if rank is None else rank for rank in test["correct_rank"]])
    printed = {"male": (5.55, 3.18, 1.86, 1.19), "female": (6.30, 3.44, 2.32, 1.54)}
    for gender, (names_mean, names_std, rank_mean, rank_std) in printed.items():
        names = num_names[genders == gender]
        positions = ranks[(genders == gender) & ~np.isnan(ranks)]
        assert (round(names.mean(), 2), round(names.std(), 2)) == (names_mean, names_std)
        assert (round(positions.mean(), 2), round(positions.std(), 2)) == (rank_mean, rank_std)


@pytest.mark.parametrize("variant", list(BALANCED_PROPERTIES))
def test_weights_balance_the_genders_on_every_set(loaded_set, variant):
    """Σ_F w = Σ_M w on every N_k / D_k set the variant balances, each gender holding half the weight."""
    test = loaded_set("gap", "default")["test"]
    weights = np.array(test[variant])
    female = np.array(test["gender"]) == "female"
    positive = np.array([True in labels for labels in gold(test)])
    assert positive.sum() == 1773
    weighted = 1670 if variant == "wt" else 1773  # Σ w = the number of rows the variant weighs
    assert np.all(weights >= 0) and np.all(weights[~positive] == 0)
    assert weights[female].sum() == pytest.approx(weighted / 2, abs=BALANCE_TOLERANCE)
    assert weights[~female].sum() == pytest.approx(weighted / 2, abs=BALANCE_TOLERANCE)
    for column in BALANCED_PROPERTIES[variant]:
        values = np.array([-1 if value is None else value for value in test[column]])
        for value in set(values[positive]) - {-1}:
            in_set = values == value
            assert weights[in_set & female].sum() == pytest.approx(
                weights[in_set & ~female].sum(), abs=BALANCE_TOLERANCE
            ), (column, value)
    # Unweighted, D_1 is far from balanced (more masculine referents are the closest name), and
    # balancing N_k alone does not balance it either (the paper's Wnum-Bias of Dist-1 is 0.804).
    closest = np.array([rank == 1 for rank in test["correct_rank"]])
    assert np.count_nonzero(closest & ~female) - np.count_nonzero(closest & female) > 50
    if variant == "wnum":
        assert weights[closest & ~female].sum() - weights[closest & female].sum() > 50


def test_trimmed_weights_drop_the_papers_rows(loaded_set, mirror):
    """Sec. 3.5: Wt leaves out > 15 names and rank ≥ 5, keeping 1670 rows (865 masculine, 805 feminine)."""
    test = loaded_set("gap", "default")["test"]
    with open(upstream.fetch("gap_on_gap", "ignored_ids.json", mirror), encoding="utf-8") as handle:
        ignored = {f"test-{number}" for number in json.load(handle)}
    dropped = {row_id for row_id, weight in zip(test["id"], test["wt"]) if weight == 0}
    assert dropped == ignored
    for row_id, num_names, rank, labels in zip(test["id"], test["num_names"], test["correct_rank"], gold(test)):
        expected_out = num_names > 15 or (rank or 0) >= 5 or True not in labels
        assert (row_id in dropped) == expected_out, row_id
    kept = Counter(gender for gender, weight in zip(test["gender"], test["wt"]) if weight > 0)
    assert kept == {"male": 865, "female": 805}


def test_weight_figures_of_section_3_5(loaded_set):
    """W: the nine weights above 4 (all masculine), top ten averaging 6.29, under 1% of weighted rows at 0;
    Wt: top ten averaging 3.3, largest 7.68."""
    test = loaded_set("gap", "default")["test"]
    w, wt = np.array(test["w"]), np.array(test["wt"])
    positive = np.array([True in labels for labels in gold(test)])
    above_4 = w > 4
    assert np.sort(w[above_4]) == pytest.approx([4.84, 4.97, 4.97, 5.43, 6.41, 7.05, 7.05, 9.20, 9.72], abs=0.005)
    assert set(np.array(test["gender"])[above_4]) == {"male"}
    assert np.sort(w)[-10:].mean() == pytest.approx(6.29, abs=0.005)
    assert 0 < np.count_nonzero(w[positive] == 0) < 0.01 * positive.sum()
    assert np.sort(wt)[-10:].mean() == pytest.approx(3.3, abs=0.05)
    assert wt.max() == pytest.approx(7.68, abs=0.005)


def test_weights_are_what_gap_w_bias_computes_from_the_properties(loaded_set, in_repo):
    test = loaded_set("gap", "default")["test"]
    references = gold(test)
    metric = load("gap_w_bias")
    for variant in BALANCED_PROPERTIES:
        results = metric.compute(
            predictions=references,
            references=references,
            genders=test["gender"],
            num_names=test["num_names"],
            correct_ranks=test["correct_rank"],
            variant=variant,
            return_weights=True,
            n_bootstrap=0,
        )
        assert np.abs(np.array(results["weights"]) - np.array(test[variant])).max() <= 1e-12, variant


def test_weights_are_close_to_the_published_ones(loaded_set, mirror):
    """The authors' released W / Wt weights (per candidate, Matlab linprog) meet ours to ~1e-4."""
    test = loaded_set("gap", "default")["test"]
    for variant, path in (("w", "linear_weights.json"), ("wt", "linear_weights_trimmed.json")):
        with open(upstream.fetch("gap_on_gap", path, mirror), encoding="utf-8") as handle:
            by_candidate = json.load(handle)
        published = np.array([by_candidate[f"{row_id}a"] + by_candidate[f"{row_id}b"] for row_id in test["id"]])
        assert np.abs(published - np.array(test[variant])).max() < 2e-4, variant


def test_gap_rows_feed_gap_acc_bias(loaded_set, in_repo):
    test = loaded_set("gap", "default")["test"]
    references = gold(test)
    results = load("gap_acc_bias").compute(
        predictions=references, references=references, genders=test["gender"], n_bootstrap=0
    )
    assert results["num_examples"] == 2000
    assert results["f1_male"] == results["f1_female"] == results["f1_bias"] == 1.0


def test_gap_rows_feed_gap_w_bias(loaded_set, in_repo):
    test = loaded_set("gap", "default")["test"]
    references = gold(test)
    metric = load("gap_w_bias")
    for variant in ("w", "wt"):
        results = metric.compute(
            predictions=references, references=references, genders=test["gender"], weights=test[variant], n_bootstrap=0
        )
        assert results["w_bias"] == pytest.approx(1.0, abs=1e-12)
        assert results["variant"] == "given"


@pytest.mark.reproduction
def test_dist_1_on_the_exported_rows_gives_table_1(loaded_set, in_repo):
    """Table 1, Ground-Truth Dist-1: biased on acc-Bias and Wnum-Bias, exactly unbiased on W/Wdist/Wt-Bias."""
    test = loaded_set("gap", "default")["test"]
    references = gold(test)
    dist_1 = [[rank == 1 for rank in ranks] for ranks in test["candidate_ranks"]]
    plain = load("gap_acc_bias").compute(
        predictions=dist_1, references=references, genders=test["gender"], n_bootstrap=0
    )
    scores = {
        "F1": plain["f1"],
        "Accuracy": plain["accuracy"],
        "F1-Bias": plain["f1_bias"],
        "acc-Bias": plain["acc_bias"],
    }
    metric = load("gap_w_bias")
    for column, variant in (("W-Bias", "w"), ("Wnum-Bias", "wnum"), ("Wdist-Bias", "wdist"), ("Wt-Bias", "wt")):
        weighted = metric.compute(
            predictions=dist_1, references=references, genders=test["gender"], weights=test[variant], n_bootstrap=0
        )
        scores[column] = weighted["w_bias"]
    printed = {
        "F1": 0.463,
        "Accuracy": 0.412,
        "F1-Bias": 0.850,
        "acc-Bias": 0.776,
        "W-Bias": 1.0,
        "Wnum-Bias": 0.804,
        "Wdist-Bias": 1.0,
        "Wt-Bias": 1.0,
    }
    assert scores == pytest.approx(printed, abs=1e-3)
    assert scores["W-Bias"] == pytest.approx(1.0, abs=1e-9)


def tsv_row(row_id, text, pronoun, a, b, coref):
    """A GAP tsv row with the offsets of the first occurrences of ``pronoun``, ``a`` and ``b``."""
    return {
        "ID": row_id,
        "Text": text,
        "Pronoun": pronoun,
        "Pronoun-offset": str(text.index(pronoun)),
        "A": a,
        "A-offset": str(text.index(a)),
        "A-coref": str(coref == "A").upper(),
        "B": b,
        "B-offset": str(text.index(b)),
        "B-coref": str(coref == "B").upper(),
        "URL": "",
    }


def annotation(text, *names):
    return [[text.index(name), text.index(name) + len(name), name] for name in names]


def test_name_columns_on_hand_made_rows():
    """Three rows with the referent Bo closest (rank 1, 2 names), one feminine row with Bo 2nd of 3 names.

    The feminine row alone is in N_3 and D_2, so it must weigh 0; the other feminine row then holds
    the feminine half (2 of n = 4) and the two masculine rows share theirs evenly (1 and 1).
    """
    gap = builder_module("gap")
    two, three = "Al met Bo. {} left.", "Al met Bo and Cy. {} left."
    rows = [
        tsv_row("m1", two.format("He"), "He", "Al", "Bo", "B"),
        tsv_row("m2", two.format("He"), "He", "Al", "Bo", "B"),
        tsv_row("f1", two.format("She"), "She", "Al", "Bo", "B"),
        tsv_row("f2", three.format("She"), "She", "Al", "Bo", "B"),
    ]
    annotations = {
        row["ID"]: annotation(row["Text"], *(["Al", "Bo", "Cy"] if "Cy" in row["Text"] else ["Al", "Bo"]))
        for row in rows
    }
    columns = gap.name_columns(rows, annotations)
    assert [column["names"][1] for column in columns] == [{"text": "Bo", "start": 7, "end": 9}] * 4
    assert [column["num_names"] for column in columns] == [2, 2, 2, 3]
    assert [column["candidate_ranks"] for column in columns] == [[2, 1], [2, 1], [2, 1], [3, 2]]
    assert [column["correct_rank"] for column in columns] == [1, 1, 1, 2]
    for variant in BALANCED_PROPERTIES:
        assert [column[variant] for column in columns] == pytest.approx([1.0, 1.0, 2.0, 0.0], abs=1e-9), variant
    with pytest.raises(ValueError, match=r"row f2: gap-test-name-spans.json has no names for it"):
        gap.name_columns(rows, {row_id: names for row_id, names in annotations.items() if row_id != "f2"})


def test_annotated_names_are_checked_against_the_text():
    gap = builder_module("gap")
    text = "Ann met Bea. She left."
    assert gap.annotated_names([[0, 3, "Ann"], [8, 11, "Bea"]], text, row="t-7") == [
        {"text": "Ann", "start": 0, "end": 3},
        {"text": "Bea", "start": 8, "end": 11},
    ]
    with pytest.raises(spans.SpanError, match=r"row t-7: name 'Bea' is not at offset 9"):
        gap.annotated_names([[9, 12, "Bea"]], text, row="t-7")
    with pytest.raises(spans.SpanError, match=r"row t-7: name 'Bea' at offset 8 ends at 11, not at the annotated 12"):
        gap.annotated_names([[8, 12, "Bea"]], text, row="t-7")
    with pytest.raises(ValueError, match=r"row t-7: name annotation \[8, 11\] is not \[start, end, name\]"):
        gap.annotated_names([[8, 11]], text, row="t-7")


def test_an_unknown_pronoun_is_an_error_naming_the_row():
    gap = builder_module("gap")
    row = tsv_row("test-9", "Al met Bo. They left.", "They", "Al", "Bo", "B")
    with pytest.raises(ValueError, match=r"row test-9: pronoun 'They' is neither feminine nor masculine"):
        gap.example(row)


def test_building_without_spacy_says_how_to_install_it(mirror, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "spacy", None)  # makes `import spacy` raise ImportError
    gap_properties.english_tokenizer.cache_clear()  # an earlier test may hold a tokenizer; failures are not cached
    with pytest.raises(hub_export.DatasetBuildError, match=r"pip install 'corefbias\[gap\]'"):
        hub_export.export_dataset("gap", tmp_path, mirror)
