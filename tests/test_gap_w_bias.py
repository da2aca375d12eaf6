import numpy as np
import pytest
from metric_harness import assert_add_batch_equivalent, assert_num_process_equivalent, load

from corefbias.measures import gap_acc_bias, gap_w_bias, weighting

A, B, NONE = [True, False], [False, True], [False, False]


def closest_name_system(size: int, seed: int):
    """A gender-blind system that links the closest name, on data where feminine referents sit further away."""
    rng = np.random.default_rng(seed)
    genders = rng.choice(["female", "male"], size).tolist()
    names = (2 + rng.poisson(4, size)).tolist()
    ranks = [
        int(min(rng.geometric(0.45 if gender == "female" else 0.6), count)) for gender, count in zip(genders, names)
    ]
    references = [A if rng.random() < 0.5 else B for _ in genders]
    predictions = [reference if rank == 1 else NONE for reference, rank in zip(references, ranks)]
    return {
        "predictions": predictions,
        "references": references,
        "genders": genders,
        "num_names": names,
        "correct_ranks": ranks,
    }


def test_add_batch_and_num_process_equal_single_call(in_repo):
    inputs = closest_name_system(40, seed=0)
    assert_add_batch_equivalent("gap_w_bias", inputs, [15, 10, 15], variant="w", n_bootstrap=100, seed=2)
    assert_num_process_equivalent("gap_w_bias", inputs, 18, variant="w", n_bootstrap=100, seed=2)
    weights = {key: inputs[key] for key in ("predictions", "references", "genders")}
    weights["weights"] = [float(index % 3) for index in range(40)]
    assert_add_batch_equivalent("gap_w_bias", weights, [20, 20], n_bootstrap=100, seed=2)


def test_hand_computed_with_given_weights():
    results = gap_w_bias.gap_w_bias(
        predictions=[A, NONE, B, B, NONE],
        references=[A, A, B, A, NONE],
        genders=["male", "male", "female", "female", "female"],
        weights=[1.0, 3.0, 0.5, 1.5, 0.0],
        n_bootstrap=0,
    )
    # Male: 1 of 1 + 3 right → 0.25; female: 0.5 of 0.5 + 1.5 right → 0.25.
    assert (results["weighted_accuracy_male"], results["weighted_accuracy_female"], results["w_bias"]) == (
        0.25,
        0.25,
        1.0,
    )
    assert results["weighted_accuracy"] == pytest.approx(1.5 / 6)
    assert (results["max_weight"], results["num_zero_weights"], results["num_weighted_examples"]) == (3.0, 0, 4)
    assert results["variant"] == "given" and "weights" not in results


def test_balancing_the_rank_makes_a_closest_name_system_unbiased():
    inputs = closest_name_system(400, seed=1)
    plain = gap_acc_bias.gap_acc_bias(*(inputs[key] for key in ("predictions", "references", "genders")), n_bootstrap=0)
    assert plain["acc_bias"] < 0.85
    for variant in ("w", "wdist", "wt"):
        results = gap_w_bias.gap_w_bias(**inputs, variant=variant, n_bootstrap=0)
        assert results["w_bias"] == pytest.approx(1.0, abs=1e-9), variant
    # Balancing the number of names alone leaves the rank imbalance in place.
    assert gap_w_bias.gap_w_bias(**inputs, variant="wnum", n_bootstrap=0)["w_bias"] < 0.9


def test_variants_use_their_properties_only():
    inputs = closest_name_system(120, seed=2)

    def weights(variant, **change):
        return gap_w_bias.gap_w_bias(**{**inputs, **change}, variant=variant, return_weights=True, n_bootstrap=0)[
            "weights"
        ]

    shuffled_ranks = np.random.default_rng(0).permutation(inputs["correct_ranks"]).tolist()
    constant_ranks = [1] * 120
    assert weights("wnum") == weights("wnum", correct_ranks=constant_ranks)
    assert weights("wdist") == weights("wdist", num_names=[max(inputs["num_names"])] * 120)
    assert weights("w") != weights("w", correct_ranks=[min(r, n) for r, n in zip(shuffled_ranks, inputs["num_names"])])


def test_trimmed_variant_drops_many_names_and_far_referents():
    inputs = closest_name_system(200, seed=3)
    inputs["num_names"][0], inputs["correct_ranks"][0] = 16, 1
    inputs["num_names"][1], inputs["correct_ranks"][1] = 8, 5
    inputs["num_names"][2], inputs["correct_ranks"][2] = 15, 4
    weights = np.array(gap_w_bias.gap_w_bias(**inputs, variant="wt", return_weights=True, n_bootstrap=0)["weights"])
    far_or_crowded = (np.array(inputs["num_names"]) > 15) | (np.array(inputs["correct_ranks"]) >= 5)
    assert far_or_crowded[:2].all() and not far_or_crowded[2]
    assert (weights[far_or_crowded] == 0).all()
    assert weights.sum() == pytest.approx(np.count_nonzero(~far_or_crowded))
    genders = np.array(inputs["genders"])
    kept = ~far_or_crowded
    residuals = weighting.balance_residuals(
        weights[kept],
        genders[kept].tolist(),
        {
            "num_names": np.array(inputs["num_names"])[kept].tolist(),
            "rank": np.array(inputs["correct_ranks"])[kept].tolist(),
        },
    )
    assert max(abs(value) for value in residuals.values()) < 1e-9


def test_examples_without_referent_weigh_nothing_and_their_ranks_are_ignored():
    inputs = closest_name_system(60, seed=4)
    inputs["references"][0], inputs["predictions"][0], inputs["correct_ranks"][0] = NONE, A, None
    results = gap_w_bias.gap_w_bias(**inputs, variant="w", return_weights=True, n_bootstrap=0)
    inputs["correct_ranks"][0] = 1
    assert (
        gap_w_bias.gap_w_bias(**inputs, variant="w", return_weights=True, n_bootstrap=0)["weights"]
        == results["weights"]
    )
    assert results["weights"][0] == 0.0
    assert sum(results["weights"]) == pytest.approx(59)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"weights": [1.0] * 4}, "give either weights, or both num_names and correct_ranks"),
        ({"num_names": None}, "give either weights, or both"),
        ({"num_names": [3, 3, 3]}, "one entry per instance"),
        ({"correct_ranks": [1, 4, 1, 2]}, r"correct_ranks\[1\] is 4; it must be the position"),
        ({"num_names": [3, -1, 3, 3]}, r"num_names\[1\] is -1"),
        ({"variant": "wx"}, "unknown variant 'wx'"),
        (
            {"genders": ["male", "male", "male", "female"], "correct_ranks": [1, 1, 1, 2]},
            r"balancing these sets: correct_rank=1 \(male: 3, female: 0\)",
        ),
        ({"genders": ["male", "male", "nb", "female"]}, "unknown genders: 'nb'"),
        ({"genders": ["male"] * 4}, r"no instances in group\(s\) female"),
        ({"predictions": [A, A, A, [1, 2]]}, r"predictions\[3\] is \[1, 2\]"),
        ({"block_ids": ["page a"] * 3}, "one entry per instance"),
        ({"block_ids": ["page a", None, "page b", "page b"]}, r"block_ids\[1\] is None; give every instance its block"),
        ({"block_ids": ["page a", 2.5, "page b", "page b"]}, r"block_ids\[1\] is 2.5 \(float\); each entry must be a"),
        ({"block_ids": ["page a", ("page a", "x"), "page b", "page b"]}, "gives 1 id.* for some instances and 2 for"),
    ],
)
def test_malformed_property_inputs(change, message):
    inputs = {
        "predictions": [A, B, A, B],
        "references": [A, B, B, A],
        "genders": ["male", "female", "male", "female"],
        "num_names": [3, 3, 3, 3],
        "correct_ranks": [1, 1, 2, 2],
        "variant": "w",
    }
    with pytest.raises(ValueError, match=message):
        gap_w_bias.gap_w_bias(**{**inputs, **change}, n_bootstrap=0)


@pytest.mark.parametrize(
    "weights, message",
    [
        ([1.0, -1.0, 1.0], r"weights\[1\] is -1.0; weights must be finite and non-negative"),
        ([1.0, float("nan"), 1.0], r"weights\[1\] is nan"),
        ([1.0, 1.0, 2.0], r"weights\[2\] is 2.0 but example 2 has no positive candidate"),
        ([1.0, 1.0], "one entry per instance"),
    ],
)
def test_malformed_weights(weights, message):
    with pytest.raises(ValueError, match=message):
        gap_w_bias.gap_w_bias([A, B, A], [A, B, NONE], ["male", "female", "female"], weights=weights, n_bootstrap=0)


def test_malformed_inputs_through_the_module(in_repo):
    with pytest.raises(ValueError, match="give either weights"):
        load("gap_w_bias").compute(predictions=[A, B], references=[A, B], genders=["male", "female"], n_bootstrap=0)


def test_zero_weight_group_is_undefined_with_reason():
    results = gap_w_bias.gap_w_bias([A, B], [A, B], ["male", "female"], weights=[2.0, 0.0], n_bootstrap=20)
    assert results["w_bias"] is None and results["weighted_accuracy_female"] is None
    assert (
        results["undefined"]["weighted_accuracy_female"]
        == "the female examples with a positive candidate carry no weight"
    )
    assert results["num_zero_weights"] == 1


def test_an_undefined_w_bias_says_which_condition_held():
    """No weight on the female side, or weight on both sides but no male example right: two different reasons."""
    no_female_weight = gap_w_bias.gap_w_bias([A, B], [A, B], ["male", "female"], weights=[2.0, 0.0], n_bootstrap=0)
    assert no_female_weight["undefined"]["w_bias"].startswith("the female examples with a positive candidate carry")
    male_wrong = gap_w_bias.gap_w_bias([B, B], [A, B], ["male", "female"], weights=[1.0, 1.0], n_bootstrap=0)
    assert male_wrong["weighted_accuracy_male"] == 0.0 and male_wrong["weighted_accuracy_female"] == 1.0
    assert male_wrong["undefined"]["w_bias"].startswith("the male weighted accuracy is 0")
    plain = gap_acc_bias.gap_acc_bias([B, B], [A, B], ["male", "female"], n_bootstrap=0)
    assert plain["undefined"]["acc_bias"].startswith("the male accuracy is 0")


def test_blocks_draw_the_examples_of_a_page_together():
    # Twelve pages of five examples, each page about one person (one gender) and answered alike, with given weights
    # that differ within a page. Drawn by page, the interval rests on 12 blocks and is wider than drawn by example.
    right = {"female": [True, False] * 3, "male": [True, True, False] * 2}
    inputs = {"predictions": [], "references": [], "genders": [], "weights": []}
    pages = []
    for page in range(12):
        gender = "female" if page % 2 else "male"
        for example in range(5):
            inputs["references"].append(A)
            inputs["predictions"].append(A if right[gender][page // 2] else NONE)
            inputs["genders"].append(gender)
            inputs["weights"].append(1.0 + example / 2)
            pages.append(f"http://en.wikipedia.org/wiki/Person_{page:02d}")
    by_example = gap_w_bias.gap_w_bias(**inputs, seed=4)
    by_page = gap_w_bias.gap_w_bias(**inputs, block_ids=pages, seed=4)
    assert by_example["w_bias"] == by_page["w_bias"] == pytest.approx(0.75)
    assert by_example.overall["w_bias"].n_blocks == 60 and by_page.overall["w_bias"].n_blocks == 12
    example_width = by_example["w_bias_ci_high"] - by_example["w_bias_ci_low"]
    page_width = by_page["w_bias_ci_high"] - by_page["w_bias_ci_low"]
    assert page_width > 2 * example_width
    assert by_page["w_bias_p_value"] > by_example["w_bias_p_value"]
    # A page of its own per example is no block at all: the same draws as without block_ids.
    alone = gap_w_bias.gap_w_bias(**inputs, block_ids=[f"page {index}" for index in range(60)], seed=4)
    assert (alone["w_bias_ci_low"], alone["w_bias_ci_high"], alone["w_bias_p_value"]) == (
        by_example["w_bias_ci_low"],
        by_example["w_bias_ci_high"],
        by_example["w_bias_p_value"],
    )
    assert alone.unit_rows.blocks.sizes == (60,)


def test_the_module_takes_block_ids(in_repo):
    inputs = closest_name_system(40, seed=5)
    inputs["block_ids"] = [f"http://en.wikipedia.org/wiki/Person_{index // 4}" for index in range(40)]
    expected = dict(gap_w_bias.gap_w_bias(**inputs, variant="w", n_bootstrap=200, seed=2))
    assert load("gap_w_bias").compute(**inputs, variant="w", n_bootstrap=200, seed=2) == expected
    assert_add_batch_equivalent("gap_w_bias", inputs, [15, 25], variant="w", n_bootstrap=200, seed=2)
