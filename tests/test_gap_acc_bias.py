import numpy as np
import pytest
from metric_harness import assert_add_batch_equivalent, assert_num_process_equivalent, load

from corefbias.measures import gap_acc_bias, gap_rows, gap_w_bias

A, B, NONE = [True, False], [False, True], [False, False]


def mixed_inputs():
    return {
        "predictions": [A, [True, True], B, B, A, NONE, A, B, NONE, A],
        "references": [A, B, A, B, NONE, A, A, B, B, NONE],
        "genders": ["male", "male", "female", "female", "female", "male", "female", "male", "female", "male"],
    }


def test_add_batch_and_num_process_equal_single_call(in_repo):
    inputs = mixed_inputs()
    assert_add_batch_equivalent("gap_acc_bias", inputs, [3, 4, 3], n_bootstrap=200, seed=1)
    assert_num_process_equivalent("gap_acc_bias", inputs, 6, n_bootstrap=200, seed=1)


def test_hand_computed_scores():
    results = gap_acc_bias.gap_acc_bias(**mixed_inputs(), n_bootstrap=0)
    # Male examples with a referent: 0 (A right), 1 (B right), 5 (A missed), 7 (B right) → 3/4.
    # Female: 2 (A missed), 3 (B right), 6 (A right), 8 (B missed) → 2/4; 4 has no referent.
    assert (results["accuracy_male"], results["accuracy_female"]) == (0.75, 0.5)
    assert results["acc_bias"] == pytest.approx(2 / 3)
    assert results["accuracy"] == pytest.approx(5 / 8)
    # Per candidate, male: TP 3 (0A, 1B, 7B), FP 2 (1A, 9A), FN 1 (5A) → F1 = 6 / 9.
    # Female: TP 2 (3B, 6A), FP 2 (2B, 4A), FN 2 (2A, 8B) → F1 = 4 / 8.
    assert results["f1_male"] == pytest.approx(6 / 9)
    assert results["f1_female"] == pytest.approx(0.5)
    assert results["f1_bias"] == pytest.approx(0.75)
    assert results["f1"] == pytest.approx(10 / 17)
    assert (results["num_examples"], results["num_scored_for_accuracy"]) == (10, 8)


def test_examples_without_referent_only_affect_f1():
    inputs = mixed_inputs()
    base = gap_acc_bias.gap_acc_bias(**inputs, n_bootstrap=0)
    spurious = {key: values + [value] for (key, values), value in zip(inputs.items(), ([True, True], NONE, "female"))}
    more = gap_acc_bias.gap_acc_bias(**spurious, n_bootstrap=0)
    assert more["acc_bias"] == base["acc_bias"]
    assert more["f1_female"] < base["f1_female"]


def test_unit_weights_make_w_bias_equal_acc_bias():
    inputs = mixed_inputs()
    plain = gap_acc_bias.gap_acc_bias(**inputs, n_bootstrap=0)
    ones = [1.0 if any(reference) else 0.0 for reference in inputs["references"]]
    weighted = gap_w_bias.gap_w_bias(**inputs, weights=ones, n_bootstrap=0)
    assert weighted["w_bias"] == plain["acc_bias"]
    assert weighted["weighted_accuracy_male"] == plain["accuracy_male"]


def test_bootstrap_interval_brackets_a_clearly_biased_model():
    rng = np.random.default_rng(0)
    genders = ["female", "male"] * 300
    references = [A if rng.random() < 0.5 else B for _ in genders]
    # Right on 90% of male and 60% of female examples.
    predictions = [
        ref if rng.random() < (0.6 if gender == "female" else 0.9) else [not ref[0], not ref[1]]
        for ref, gender in zip(references, genders)
    ]
    results = gap_acc_bias.gap_acc_bias(predictions, references, genders, n_bootstrap=500, seed=0)
    assert results["acc_bias_ci_low"] < results["acc_bias"] < results["acc_bias_ci_high"] < 1
    assert results["acc_bias_p_value"] < 0.01


def test_compare_models():
    rng = np.random.default_rng(1)
    genders = ["female", "male"] * 200
    references = [A if rng.random() < 0.5 else B for _ in genders]
    fair = [ref if rng.random() < 0.8 else NONE for ref in references]
    biased = [
        ref if rng.random() < (0.5 if gender == "female" else 0.9) else NONE for ref, gender in zip(references, genders)
    ]
    same = gap_rows.compare_models(fair, fair, references, genders, n_permutations=200)
    assert same == {"difference": 0.0, "p_value": 1.0}
    different = gap_rows.compare_models(fair, biased, references, genders, n_permutations=2000, seed=0)
    expected = (
        gap_acc_bias.gap_acc_bias(fair, references, genders, n_bootstrap=0)["acc_bias"]
        - gap_acc_bias.gap_acc_bias(biased, references, genders, n_bootstrap=0)["acc_bias"]
    )
    assert different["difference"] == pytest.approx(expected)
    assert different["p_value"] < 0.01
    weights = [2.0 if gender == "female" else 1.0 for gender in genders]
    weighted = gap_rows.compare_models(fair, biased, references, genders, weights=weights, n_permutations=200)
    w_difference = (
        gap_w_bias.gap_w_bias(fair, references, genders, weights=weights, n_bootstrap=0)["w_bias"]
        - gap_w_bias.gap_w_bias(biased, references, genders, weights=weights, n_bootstrap=0)["w_bias"]
    )
    assert weighted["difference"] == pytest.approx(w_difference)
    with pytest.raises(ValueError, match="unknown score 'bias'"):
        gap_rows.compare_models(fair, biased, references, genders, score="bias")
    with pytest.raises(ValueError, match="predictions_b has 399"):
        gap_rows.compare_models(fair, biased[:-1], references, genders)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"genders": ["male"] * 3}, "one entry per instance"),
        ({"genders": ["male", "female", "x", "male"]}, "unknown genders: 'x' at index 2"),
        ({"genders": ["male"] * 4}, r"no instances in group\(s\) female"),
        ({"predictions": [A, A, [True], A]}, r"predictions\[2\] is \[True\]"),
        ({"references": [A, [True, True], A, B]}, r"references\[1\] marks both candidates"),
        ({"references": [A, B, "yes", A]}, r"references\[2\] is 'yes'"),
        ({"block_ids": ["page a"] * 3}, "one entry per instance"),
        ({"block_ids": ["page a", None, "page b", "page b"]}, r"block_ids\[1\] is None; give every instance its block"),
        ({"block_ids": ["page a", 2.5, "page b", "page b"]}, r"block_ids\[1\] is 2.5 \(float\); each entry must be a"),
        ({"block_ids": ["page a", ("page a", "x"), "page b", "page b"]}, "gives 1 id.* for some instances and 2 for"),
    ],
)
def test_malformed_inputs(change, message):
    inputs = {"predictions": [A, B, A, B], "references": [A, B, B, A], "genders": ["male", "female", "male", "female"]}
    with pytest.raises(ValueError, match=message):
        gap_acc_bias.gap_acc_bias(**{**inputs, **change}, n_bootstrap=0)


def test_malformed_inputs_through_the_module(in_repo):
    with pytest.raises(ValueError, match="unknown genders"):
        load("gap_acc_bias").compute(predictions=[A], references=[A], genders=["other"], n_bootstrap=0)


def test_undefined_scores_are_none_with_reasons():
    results = gap_acc_bias.gap_acc_bias([A, NONE], [NONE, NONE], ["male", "female"], n_bootstrap=10)
    assert results["accuracy_male"] is None and results["acc_bias"] is None
    assert "no male example has a positive candidate" in results["undefined"]["accuracy_male"]
    assert results["f1_male"] == 0.0 and results["f1_female"] is None


def paged_inputs():
    """Twelve Wikipedia pages of five examples, each page about one person (one gender) and answered alike: the
    system gets a page all right or all wrong (3 of 6 feminine pages, 4 of 6 masculine ones)."""
    right = {"female": [True, False] * 3, "male": [True, True, False] * 2}
    inputs = {"predictions": [], "references": [], "genders": [], "block_ids": []}
    for page in range(12):
        gender = "female" if page % 2 else "male"
        for example in range(5):
            reference = A if example % 2 else B
            inputs["references"].append(reference)
            inputs["predictions"].append(reference if right[gender][page // 2] else NONE)
            inputs["genders"].append(gender)
            inputs["block_ids"].append(f"http://en.wikipedia.org/wiki/Person_{page:02d}")
    return inputs


def test_blocks_draw_the_examples_of_a_page_together():
    # Drawn example by example, the 60 examples look like a tight interval; drawn by page, it rests on 12 blocks and
    # is wider, as the pages' spread says it must be.
    inputs = paged_inputs()
    pages = inputs.pop("block_ids")
    by_example = gap_acc_bias.gap_acc_bias(**inputs, seed=1)
    by_page = gap_acc_bias.gap_acc_bias(**inputs, block_ids=pages, seed=1)
    assert by_example["acc_bias"] == by_page["acc_bias"] == pytest.approx(0.75)
    assert by_example.overall["acc_bias"].n_blocks == 60 and by_page.overall["acc_bias"].n_blocks == 12
    example_width = by_example["acc_bias_ci_high"] - by_example["acc_bias_ci_low"]
    page_width = by_page["acc_bias_ci_high"] - by_page["acc_bias_ci_low"]
    assert page_width > 2 * example_width
    assert by_page["acc_bias_p_value"] > by_example["acc_bias_p_value"]
    assert by_page.unit_rows.blocks.sizes == (12,)
    # A page of its own per example is no block at all: the same draws as without block_ids (whatever order its ids
    # sort in).
    alone = gap_acc_bias.gap_acc_bias(**inputs, block_ids=[f"page {index}" for index in range(60)], seed=1)
    for key in ("acc_bias", "f1_bias"):
        assert (alone[f"{key}_ci_low"], alone[f"{key}_ci_high"], alone[f"{key}_p_value"]) == (
            by_example[f"{key}_ci_low"],
            by_example[f"{key}_ci_high"],
            by_example[f"{key}_p_value"],
        )


def test_the_module_takes_block_ids(in_repo):
    inputs = paged_inputs()
    expected = dict(gap_acc_bias.gap_acc_bias(**inputs, n_bootstrap=200, seed=2))
    assert load("gap_acc_bias").compute(**inputs, n_bootstrap=200, seed=2) == expected
    assert expected != dict(gap_acc_bias.gap_acc_bias(**{**inputs, "block_ids": None}, n_bootstrap=200, seed=2))
    assert_add_batch_equivalent("gap_acc_bias", inputs, [25, 35], n_bootstrap=200, seed=2)
