"""bug_bias: BUG's accuracy, ΔG, ΔS and ΔS by distance, hand-computed, against pro_anti_diff (the same difference),
with significance, undefined cases, bad input and its evaluate module."""

import numpy as np
import pytest
from metric_harness import assert_add_batch_equivalent, assert_num_process_equivalent, load

from corefbias.measures import pro_anti_diff
from corefbias.measures.bug_bias import bin_label, bug_bias, distance_bin


def sentences(count: int, seed: int = 0, *, stereotype_bonus: float = 0.0) -> dict:
    """``count`` sentences of random genders, labels, distances (1-30) and professions; a sentence is resolved with
    probability 0.6, plus ``stereotype_bonus`` where it is stereotypical and minus it where anti-stereotypical."""
    rng = np.random.default_rng(seed)
    labels = rng.choice(["stereotypical", "anti-stereotypical", "neutral"], count).tolist()
    chance = 0.6 + np.asarray([{"stereotypical": 1, "anti-stereotypical": -1}.get(x, 0) for x in labels]) * (
        stereotype_bonus
    )
    professions = rng.choice(["nurse", "surgeon", "mechanic", "teacher", "clerk"], count).tolist()
    shares = {"nurse": 88.3, "surgeon": 38.2, "mechanic": 7.3, "teacher": 80.0, "clerk": 65.0}
    return {
        "predictions": (rng.random(count) < chance).tolist(),
        "genders": rng.choice(["female", "male"], count).tolist(),
        "stereotypes": labels,
        "distances": rng.integers(1, 31, count).tolist(),
        "professions": professions,
        "pct_female": [shares[p] for p in professions],
    }


def test_hand_computed_scores():
    # stereotypical: 2 of 3 resolved; anti: 0 of 2; neutral: 1 of 1. Male 2/3, female 1/3.
    result = bug_bias(
        [True, True, False, False, False, True],
        ["male", "female", "male", "female", "male", "female"],
        ["stereotypical", "stereotypical", "stereotypical", "anti-stereotypical", "anti-stereotypical", "neutral"],
        [1, 6, 11, 7, 2, 30],
        n_bootstrap=0,
    )
    assert result["accuracy"] == pytest.approx(3 / 6)
    assert result["accuracy_male"] == pytest.approx(1 / 3) and result["accuracy_female"] == pytest.approx(2 / 3)
    assert result["delta_g"] == pytest.approx(-1 / 3)
    assert result["delta_s"] == pytest.approx(2 / 3)
    assert result["delta_s/distance_0-4"] == pytest.approx(1.0)  # d=1 stereotypical ✓, d=2 anti ✗
    assert result["delta_s/distance_5-9"] == pytest.approx(1.0)  # d=6 stereotypical ✓, d=7 anti ✗
    assert result["delta_s/distance_10-14"] is None  # d=11 stereotypical only
    assert result["accuracy/distance_30-34"] == 1.0 and result["num_stereotyped/distance_30-34"] == 0
    assert (result["num_stereotypical"], result["num_anti_stereotypical"], result["num_neutral"]) == (3, 2, 1)
    significance = ("_p_value", "_ci_low", "_ci_high")
    assert [key for key in result if key.startswith("delta_s/distance_") and not key.endswith(significance)] == [
        f"delta_s/distance_{label}" for label in ("0-4", "5-9", "10-14", "30-34")
    ]


def test_bins_are_floor_of_distance_over_five():
    assert [distance_bin(d) for d in range(0, 12)] == [0] * 5 + [1] * 5 + [2] * 2
    assert [bin_label(b) for b in (0, 1, 4)] == ["0-4", "5-9", "20-24"]


def test_delta_s_and_delta_g_are_pro_anti_diffs():
    data = sentences(400, 1, stereotype_bonus=0.2)
    result = bug_bias(**data, n_bootstrap=0)
    stereotyped = [i for i, label in enumerate(data["stereotypes"]) if label != "neutral"]
    by_stereotype = pro_anti_diff.pro_anti_diff(
        [data["predictions"][i] for i in stereotyped],
        [True] * len(stereotyped),
        ["pro" if data["stereotypes"][i] == "stereotypical" else "anti" for i in stereotyped],
        n_bootstrap=0,
    )
    by_gender = pro_anti_diff.pro_anti_diff(
        data["predictions"],
        [True] * 400,
        ["pro" if gender == "male" else "anti" for gender in data["genders"]],
        n_bootstrap=0,
    )
    assert result["delta_s"] == by_stereotype["diff"] and result["delta_g"] == by_gender["diff"]
    assert result["accuracy_stereotypical"] == by_stereotype["pro"]
    assert result["accuracy_female"] == by_gender["anti"]


def test_a_stereotype_following_model_is_significant_and_an_unbiased_one_mostly_not():
    biased = bug_bias(**sentences(600, 2, stereotype_bonus=0.25), n_bootstrap=500, seed=1)
    assert biased["delta_s"] > 0.3 and biased["delta_s_p_value"] < 0.01 and biased["delta_s_ci_low"] > 0
    significant = sum(
        bug_bias(**sentences(300, seed), n_bootstrap=200, seed=seed)["delta_s_p_value"] < 0.05 for seed in range(40)
    )
    assert significant <= 6  # 40 unbiased models at α = 0.05: 2 expected, more than 6 has probability 1.4%


def test_a_perfect_model_is_unbiased_everywhere():
    data = sentences(200, 3)
    result = bug_bias(**{**data, "predictions": [True] * 200}, n_bootstrap=100)
    assert result["accuracy"] == 1.0 and result["delta_g"] == 0.0 and result["delta_s"] == 0.0
    assert result["delta_s_p_value"] == 1.0 and result["delta_s_ci_low"] == result["delta_s_ci_high"] == 0.0
    assert all(value == 0.0 for key, value in result.items() if key.startswith("preference/"))
    assert result["pearson_r_pct_female"] is None  # a constant preference has no correlation
    assert "constant" in result["undefined"]["pearson_r_pct_female"]


def test_the_preference_follows_the_share_of_women():
    professions = ["nurse", "teacher", "surgeon", "mechanic"]
    shares = {"nurse": 88.3, "teacher": 80.0, "surgeon": 38.2, "mechanic": 7.3}
    # Female pronouns resolved where women are many, male ones where men are: preference +1, +1, -1, -1.
    predictions, genders, names = [], [], []
    for profession in professions:
        for gender in ("female", "male"):
            predictions.append((gender == "female") == (shares[profession] > 50))
            genders.append(gender)
            names.append(profession)
    result = bug_bias(predictions, genders, ["neutral"] * 8, [3] * 8, names, [shares[p] for p in names], n_bootstrap=0)
    assert [result[f"preference/{p}"] for p in professions] == [1.0, 1.0, -1.0, -1.0]
    assert result["pearson_r_pct_female"] == pytest.approx(np.corrcoef([88.3, 80.0, 38.2, 7.3], [1, 1, -1, -1])[0, 1])
    assert result["num_professions_correlated"] == 4


def test_unit_rows_reproduce_the_result_and_the_structure_names_the_bins():
    scored = bug_bias(**sentences(150, 4), n_bootstrap=50)
    observed = scored.unit_rows.statistic(scored.unit_rows.rows.sum(axis=0))
    assert scored.unit_rows.rows.shape[0] == 150
    for name in scored.unit_rows.tested:
        if scored[name] is None:
            assert not np.isfinite(observed[name])
        else:
            assert float(observed[name]) == pytest.approx(scored[name], abs=1e-12)
    assert scored.value == scored["delta_s"] and scored.p_value == scored["delta_s_p_value"]
    assert scored.by_group["distance_0-4"]["delta_s"].value == scored["delta_s/distance_0-4"]
    assert scored.by_group["nurse"]["preference"].value == scored["preference/nurse"]
    assert scored.overall["pearson_r_pct_female"].p_value == scored["pearson_r_pct_female_p_value"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(genders=["male", "female"]), "one entry per instance"),
        (dict(predictions=[True, None, False]), r"predictions\[1\]"),
        (dict(genders=["male", "neutral", "female"]), "unknown genders"),
        (dict(stereotypes=[1, -1, 0]), "unknown stereotypes"),
        (dict(distances=[1, -2, 3]), r"distances\[1\] is -2; it must be an integer from 0"),
        (dict(distances=[1, True, 3]), r"distances\[1\] is True"),
        (dict(professions=["nurse", "nurse", "clerk"], pct_female=[88.3, 101, 65.0]), r"pct_female\[1\]"),
        (dict(professions=["nurse", "nurse", "clerk"], pct_female=[88.3, 80.0, 65.0]), "one share of women"),
        (dict(pct_female=[88.3, 88.3, 65.0]), "pct_female was given without professions"),
        (dict(n_bootstrap=-1), "n_bootstrap must be an integer"),
        (dict(block_ids=["s1", "s1"]), "one entry per instance"),
        (dict(block_ids=["s1", None, "s2"]), r"block_ids\[1\] is None; give every instance its block"),
        (dict(block_ids=["s1", 2.5, "s2"]), r"block_ids\[1\] is 2.5 \(float\); each entry must be a block id"),
        (dict(block_ids=["s1", ("s1", "x"), "s2"]), "gives 1 id.* for some instances and 2 for others"),
    ],
)
def test_malformed_input_is_a_clear_value_error(change, message):
    inputs = {
        "predictions": [True, False, True],
        "genders": ["male", "female", "female"],
        "stereotypes": ["stereotypical", "anti-stereotypical", "neutral"],
        "distances": [1, 2, 3],
        "n_bootstrap": 0,
    }
    inputs.update(change)
    with pytest.raises(ValueError, match=message):
        bug_bias(**inputs)


def test_add_batch_and_num_process_equal_single_call(in_repo):
    inputs = sentences(60, 5)
    single = assert_add_batch_equivalent("bug_bias", inputs, [10, 25, 25], n_bootstrap=50, seed=2)
    assert single == dict(bug_bias(**inputs, n_bootstrap=50, seed=2))
    assert_num_process_equivalent("bug_bias", inputs, 20, n_bootstrap=50, seed=2)


def test_the_module_leaves_optional_inputs_out_and_reads_unknown_shares(in_repo):
    inputs = sentences(40, 6)
    bare = load("bug_bias").compute(**{k: inputs[k] for k in ("predictions", "genders", "stereotypes", "distances")})
    assert bare["pearson_r_pct_female"] is None and bare["undefined"]["pearson_r_pct_female"] == (
        "professions were not given"
    )
    shares = [None if p == "clerk" else s for p, s in zip(inputs["professions"], inputs["pct_female"])]
    result = load("bug_bias").compute(**{**inputs, "pct_female": shares}, n_bootstrap=0)
    assert result == dict(bug_bias(**{**inputs, "pct_female": shares}, n_bootstrap=0))
    assert result["num_professions_correlated"] == 4  # the clerk's share is unknown


def two_row_sentences(count: int = 40) -> dict:
    """``count`` sentences of two rows each (a female and a male pronoun, each linked to a profession), both of one
    stereotype label and answered alike: stereotypical sentences right 3 times in 4, anti-stereotypical ones every
    other time."""
    inputs = {"predictions": [], "genders": [], "stereotypes": [], "distances": [], "block_ids": []}
    for index in range(count):
        label = "stereotypical" if index % 2 == 0 else "anti-stereotypical"
        right = (index // 2) % 4 != 3 if label == "stereotypical" else (index // 2) % 2 == 0
        for row, gender in enumerate(("female", "male")):
            inputs["predictions"].append(right)
            inputs["genders"].append(gender)
            inputs["stereotypes"].append(label)
            inputs["distances"].append(2 + 3 * row)
            inputs["block_ids"].append(f"sentence {index:02d}")
    return inputs


def test_blocks_draw_the_rows_of_a_sentence_together():
    # Drawn row by row, the 80 rows look like a tight interval around 0.25; drawn by sentence, it rests on 40 blocks
    # and is wider, as the two rows of a sentence, answered alike, say it must be.
    inputs = two_row_sentences()
    texts = inputs.pop("block_ids")
    by_row = bug_bias(**inputs, seed=2)
    by_sentence = bug_bias(**inputs, block_ids=texts, seed=2)
    assert by_row["delta_s"] == by_sentence["delta_s"] == 0.25
    assert by_row.overall["delta_s"].n_blocks == 80 and by_sentence.overall["delta_s"].n_blocks == 40
    row_width = by_row["delta_s_ci_high"] - by_row["delta_s_ci_low"]
    sentence_width = by_sentence["delta_s_ci_high"] - by_sentence["delta_s_ci_low"]
    assert sentence_width > 1.3 * row_width
    assert by_sentence["delta_s_p_value"] > by_row["delta_s_p_value"]
    assert by_sentence.unit_rows.blocks.sizes == (40,)
    # A sentence of its own per row is no block at all: the same draws as without block_ids (whatever order its ids
    # sort in).
    alone = bug_bias(**inputs, block_ids=[f"row {index}" for index in range(80)], seed=2)
    for key in ("delta_s", "delta_g"):
        assert (alone[f"{key}_ci_low"], alone[f"{key}_ci_high"], alone[f"{key}_p_value"]) == (
            by_row[f"{key}_ci_low"],
            by_row[f"{key}_ci_high"],
            by_row[f"{key}_p_value"],
        )


def test_the_module_takes_block_ids(in_repo):
    inputs = two_row_sentences(30)
    expected = dict(bug_bias(**inputs, n_bootstrap=200, seed=2))
    assert load("bug_bias").compute(**inputs, n_bootstrap=200, seed=2) == expected
    assert expected != dict(bug_bias(**{**inputs, "block_ids": None}, n_bootstrap=200, seed=2))
    assert_add_batch_equivalent("bug_bias", inputs, [20, 40], n_bootstrap=200, seed=2)
