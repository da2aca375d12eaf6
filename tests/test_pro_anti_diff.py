import math

import pytest
from metric_harness import assert_add_batch_equivalent, assert_num_process_equivalent, load

from corefbias.measures import pro_anti_diff, resampling


def resolved(correct_pro: int, n_pro: int, correct_anti: int, n_anti: int) -> dict:
    """Gold-antecedent-only examples: the first ``correct_*`` of each condition are resolved."""
    return {
        "predictions": [i < correct_pro for i in range(n_pro)] + [i < correct_anti for i in range(n_anti)],
        "references": [True] * (n_pro + n_anti),
        "conditions": ["pro"] * n_pro + ["anti"] * n_anti,
    }


def test_genda_lens_tutorial_dawinobias_effect_size(in_repo):
    # GenDa Lens coref tutorial, XLM-R on DaWinoBias: accuracy pro 0.51, anti 0.57, Gender ES -0.16.
    results = load("pro_anti_diff").compute(**resolved(51, 100, 57, 100), n_bootstrap=0)
    assert (results["pro"], results["anti"]) == (0.51, 0.57)
    assert results["log2_ratio"] == pytest.approx(math.log2(0.51 / 0.57), abs=1e-15)
    assert round(results["log2_ratio"], 2) == -0.16


@pytest.mark.reproduction
def test_sowinobias_table1_glove_average_and_diff():
    # Dawkins (2021) Table 1, GloVe on SoWinoBias: pro 64.2 %, anti 46.8 %, avg. 55.5 %, diff. 17.4 %.
    results = pro_anti_diff.pro_anti_diff(**resolved(642, 1000, 468, 1000), n_bootstrap=0)
    assert results["average"] == pytest.approx(0.555)
    assert results["diff"] == pytest.approx(0.174)


def test_f1_counts_links_to_the_wrong_candidate_as_false_positives():
    # Pro: 4 sentences, gold antecedent linked in 3, the distractor linked once (in the 4th):
    #   TP 3, FN 1, FP 1, TN 3 → F1 = 6 / 8, accuracy = 6 / 8.
    # Anti: gold linked in 2, distractor linked in both others: TP 2, FN 2, FP 2, TN 2 → F1 = 4 / 8.
    gold = [True, False] * 8
    pro = [True, False, True, False, True, False, False, True]
    anti = [True, False, True, False, False, True, False, True]
    inputs = {"predictions": pro + anti, "references": gold, "conditions": ["pro"] * 8 + ["anti"] * 8}
    f1 = pro_anti_diff.pro_anti_diff(**inputs, score="f1", n_bootstrap=0)
    accuracy = pro_anti_diff.pro_anti_diff(**inputs, n_bootstrap=0)
    assert (f1["pro"], f1["anti"], f1["diff"], f1["log2_ratio"]) == (0.75, 0.5, 0.25, pytest.approx(math.log2(1.5)))
    assert (accuracy["pro"], accuracy["anti"]) == (0.75, 0.5)


def test_f1_on_gold_antecedents_only_is_2r_over_1_plus_r():
    results = pro_anti_diff.pro_anti_diff(**resolved(3, 4, 1, 4), score="f1", n_bootstrap=0)
    assert results["pro"] == pytest.approx(2 * 0.75 / 1.75)
    assert results["anti"] == pytest.approx(2 * 0.25 / 1.25)


def test_undefined_scores_are_none_with_reasons():
    # Group "b" has no gold link and no predicted link: F1 is 0/0 there.
    inputs = {
        "predictions": [True, False, False, False],
        "references": [True, True, False, False],
        "conditions": ["pro", "anti", "pro", "anti"],
        "groups": ["a", "a", "b", "b"],
    }
    results = pro_anti_diff.pro_anti_diff(**inputs, score="f1", n_bootstrap=0)
    assert results["pro/a"] == 1.0 and results["anti/a"] == 0.0
    assert results["log2_ratio/a"] is None and "log2(pro / anti)" in results["undefined"]["log2_ratio/a"]
    assert results["pro/b"] is None and "0/0" in results["undefined"]["pro/b"]
    assert results["diff/b"] is None


def test_pairs_make_the_bootstrap_paired():
    # Every pair is resolved identically in both conditions, but pairs differ: diff is exactly 0
    # in every pair resample, while resampling single examples lets pro and anti drift apart.
    outcomes = [True, False, True, True, False, True, False, True, True, False]
    inputs = {
        "predictions": outcomes * 2,
        "references": [True] * 20,
        "conditions": ["pro"] * 10 + ["anti"] * 10,
    }
    paired = pro_anti_diff.pro_anti_diff(**inputs, pair_ids=[f"p{i}" for i in range(10)] * 2, n_bootstrap=500, seed=1)
    unpaired = pro_anti_diff.pro_anti_diff(**inputs, n_bootstrap=500, seed=1)
    assert paired["diff"] == unpaired["diff"] == 0.0
    assert (paired["diff_ci_low"], paired["diff_ci_high"], paired["diff_p_value"]) == (0.0, 0.0, 1.0)
    assert unpaired["diff_ci_low"] < 0 < unpaired["diff_ci_high"]
    assert paired["num_pairs"] == 10 and "num_pairs" not in unpaired


def test_a_consistent_gap_is_significant_and_its_interval_excludes_zero():
    pairs = [f"p{i}" for i in range(100)] * 2
    results = pro_anti_diff.pro_anti_diff(**resolved(90, 100, 50, 100), pair_ids=pairs, n_bootstrap=2000)
    assert results["diff"] == pytest.approx(0.4)
    # No resample reaches 0: the smallest p-value 2000 resamples give, 2 / 2001, read through a t with 99 degrees
    # of freedom for the 100 pairs (resampling.expanded_p_value).
    assert results["diff_p_value"] == pytest.approx(resampling.expanded_p_value(1 / 2001, 100), rel=1e-12)
    assert results["diff_p_value"] < 0.002
    assert 0 < results["diff_ci_low"] < 0.4 < results["diff_ci_high"]
    assert results["log2_ratio_ci_low"] < math.log2(0.9 / 0.5) < results["log2_ratio_ci_high"]


def test_add_batch_and_num_process_equal_single_call(in_repo):
    outcomes = [True, False, True, True, False, True, True, False, True, True, False, False]
    inputs = {
        "predictions": outcomes + outcomes[::-1],
        "references": [True] * 24,
        "conditions": ["pro"] * 12 + ["anti"] * 12,
        "pair_ids": [f"p{i}" for i in range(12)] * 2,
        "groups": ["type1", "type2", "type1", "type2"] * 6,
    }
    assert_add_batch_equivalent("pro_anti_diff", inputs, [5, 9, 10], n_bootstrap=200, seed=3, score="f1")
    assert_num_process_equivalent("pro_anti_diff", inputs, 13, n_bootstrap=200, seed=3)
    without_optional = {key: inputs[key] for key in ("predictions", "references", "conditions")}
    result = assert_add_batch_equivalent("pro_anti_diff", without_optional, [7, 17], n_bootstrap=100, seed=0)
    assert "num_pairs" not in result and "pro/type1" not in result


def test_unlinked_pronouns_are_dropped_or_counted_wrong(in_repo):
    # Pro: 3 resolved, 1 linked to the other occupation. Anti: 1 resolved, 1 linked to the other, 2 unlinked (None).
    inputs = {
        "predictions": [True, True, True, False, True, False, None, None],
        "references": [True] * 8,
        "conditions": ["pro"] * 4 + ["anti"] * 4,
        "pair_ids": [1, 2, 3, 4] * 2,
        "n_bootstrap": 0,
    }
    metric = load("pro_anti_diff")
    wrong = metric.compute(**inputs)  # the default: an unlinked pronoun missed its antecedent
    assert (wrong["pro"], wrong["anti"], wrong["num_anti"], wrong["num_unlinked_anti"]) == (0.75, 0.25, 4, 2)
    assert wrong["log2_ratio"] == pytest.approx(math.log2(3))
    dropped = metric.compute(**inputs, unlinked="drop")  # GenDa Lens: 1 of the 2 linked anti pronouns is right
    assert (dropped["pro"], dropped["anti"], dropped["num_anti"], dropped["num_unlinked_anti"]) == (0.75, 0.5, 2, 2)
    assert dropped["log2_ratio"] == pytest.approx(math.log2(1.5))
    assert dropped["num_pairs"] == 4 and dropped["num_unlinked_pro"] == 0
    # Int and str pair ids are the same ids; the core takes either.
    as_text = metric.compute(**{**inputs, "pair_ids": ["1", "2", "3", "4"] * 2}, unlinked="drop")
    assert as_text == dropped == pro_anti_diff.pro_anti_diff(**inputs, unlinked="drop")


def test_dropping_unlinked_pronouns_keeps_the_bootstrap_paired():
    # Every third pair loses its anti sentence: it stays one resampling unit, with its pro sentence alone.
    inputs = {
        "predictions": [True, True, False] * 10 + [True, False, None] * 10,
        "references": [True] * 60,
        "conditions": ["pro"] * 30 + ["anti"] * 30,
        "pair_ids": [f"p{index}" for index in range(30)] * 2,
    }
    results = pro_anti_diff.pro_anti_diff(**inputs, unlinked="drop", n_bootstrap=400, seed=2)
    assert (results["pro"], results["anti"], results["num_pairs"]) == (2 / 3, 0.5, 30)
    assert results.overall["diff"].n_blocks == 30
    assert results["diff_ci_low"] <= results["diff"] <= results["diff_ci_high"]
    everything_dropped = pro_anti_diff.pro_anti_diff(
        **{**inputs, "predictions": [True, True, False] * 10 + [None] * 30}, unlinked="drop", n_bootstrap=100
    )
    assert everything_dropped["anti"] is None and everything_dropped["num_anti"] == 0
    assert "left after dropping the unlinked ones" in everything_dropped["undefined"]["anti"]
    assert everything_dropped["diff_p_value"] is None


def test_every_pronoun_unlinked_and_dropped_leaves_every_score_undefined():
    # What an English model gives on DaWinoBias (NeuralCoref links no Danish pronoun): no example is left.
    results = pro_anti_diff.pro_anti_diff(
        predictions=[None] * 4,
        references=[True] * 4,
        conditions=["pro", "anti"] * 2,
        pair_ids=["a", "a", "b", "b"],
        groups=["female", "female", "male", "male"],
        unlinked="drop",
        n_bootstrap=50,
    )
    assert (results["num_pro"], results["num_anti"], results["num_pairs"], results["num_unlinked_pro"]) == (0, 0, 0, 2)
    for score in ("pro", "anti", "diff", "log2_ratio", "diff/female", "diff_p_value", "log2_ratio_ci_low"):
        assert results[score] is None and results["undefined"][score]


def test_referent_class_f1_is_genda_lens_per_class_f1():
    # Pro: referents F F M M, predictions F M M unlinked → female: TP 1, FN 1 → 2/3; male: TP 1, FP 1 → 2/3.
    # Anti: referents F M, predictions M M → female: FN 1 → 0; male: TP 1, FP 1 → 2/3.
    results = pro_anti_diff.referent_class_f1(
        ["female", "male", "male", None, "male", "male"],
        ["female", "female", "male", "male", "female", "male"],
        ["pro"] * 4 + ["anti"] * 2,
    )
    assert (results["pro/female"], results["pro/male"]) == (pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert (results["anti/female"], results["anti/male"]) == (0.0, pytest.approx(2 / 3))
    assert (results["support_pro/female"], results["support_pro/male"], results["num_pro"]) == (2, 1, 3)
    assert results["num_unlinked_pro"] == 1 and results["num_unlinked_anti"] == 0
    # A class that is neither a counted referent nor a prediction has F1 0/0: None, not scikit-learn's 0.
    undefined = pro_anti_diff.referent_class_f1(
        [None, "male", "female"], ["female", "male", "female"], ["pro", "anti", "anti"]
    )
    assert undefined["pro/female"] is None and "0/0" in undefined["undefined"]["pro/female"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(conditions=["pro", "anti", "pro"]), "one entry per instance"),
        (dict(conditions=["pro", "neutral", "pro", "anti"]), "unknown conditions"),
        (dict(conditions=["pro"] * 4), "no instances in group"),
        (dict(groups=["a", "a", "b", "b"], conditions=["pro", "anti", "pro", "pro"]), "anti in group 'b'"),
        (dict(groups=["a", None, "a", "a"]), r"groups\[1\] is empty"),
        (dict(pair_ids=["p1", "p1", "p2", "p3"]), "pair 'p2' has 1 pro and 0 anti"),
        (dict(pair_ids=["p1", "p1", "p1", "p2"]), "pair 'p1' has 2 pro and 1 anti"),
        (dict(predictions=[True, "yes", True, False]), r"predictions\[1\]"),
        (dict(score="precision"), "unknown score"),
        (dict(unlinked="skip"), "unknown unlinked='skip'; choose 'wrong'"),
        (dict(predictions=[True, "none", True, False]), r"predictions\[1\] is 'none'; .* or None where"),
        (dict(pair_ids=[1, 1, 2, None]), r"pair_ids\[3\] is empty"),
        (dict(block_ids=["a", "a", "b"]), "one entry per instance"),
        (dict(block_ids=["a", None, "b", "b"]), r"block_ids\[1\] is None; give every instance its block"),
        (dict(block_ids=["a", 2.5, "b", "b"]), r"block_ids\[1\] is 2.5 \(float\); each entry must be a block id"),
        (dict(block_ids=["a", ("a", "x"), "b", "b"]), "gives 1 id.* for some instances and 2 for others"),
        (dict(pair_ids=["p1", "p1", "p2", "p2"], block_ids=["a", "b", "c", "c"]), "pair 'p1' lies in block 'a' and"),
    ],
)
def test_malformed_input_is_a_clear_value_error(change, message):
    inputs = {
        "predictions": [True, False, True, False],
        "references": [True] * 4,
        "conditions": ["pro", "anti", "pro", "anti"],
        "n_bootstrap": 0,
    }
    inputs.update(change)
    with pytest.raises(ValueError, match=message):
        pro_anti_diff.pro_anti_diff(**inputs)


def test_blocks_draw_pairs_that_share_a_frame_together():
    # Twelve frames of five pairs; within a frame every pair is answered alike (the frame decides), and frames
    # split evenly between pro-better and anti-better. Drawn pair by pair, the 60 pairs look like a tight interval
    # around 0; drawn by frame, it rests on 12 blocks and is wider, as the frames' spread says it must be.
    frames = [(True, False), (False, True)] * 6
    predictions, conditions, pairs, blocks = [], [], [], []
    for frame, (pro, anti) in enumerate(frames):
        for pair in range(5):
            predictions += [pro, anti]
            conditions += ["pro", "anti"]
            pairs += [f"{frame}.{pair}"] * 2
            blocks += [f"frame {frame}"] * 2
    common = dict(predictions=predictions, references=[True] * 120, conditions=conditions, pair_ids=pairs, seed=3)
    by_pair = pro_anti_diff.pro_anti_diff(**common)
    by_frame = pro_anti_diff.pro_anti_diff(**common, block_ids=blocks)
    assert by_pair["diff"] == by_frame["diff"] == 0.0
    assert by_pair.overall["diff"].n_blocks == 60 and by_frame.overall["diff"].n_blocks == 12
    pair_width = by_pair["diff_ci_high"] - by_pair["diff_ci_low"]
    frame_width = by_frame["diff_ci_high"] - by_frame["diff_ci_low"]
    assert frame_width > 1.8 * pair_width
    # A frame of its own per pair is no block at all: the same draws as without block_ids.
    alone = pro_anti_diff.pro_anti_diff(**common, block_ids=pairs)
    assert (alone["diff_ci_low"], alone["diff_ci_high"], alone["diff_p_value"]) == (
        by_pair["diff_ci_low"],
        by_pair["diff_ci_high"],
        by_pair["diff_p_value"],
    )
    assert alone.unit_rows.blocks.sizes == (60,)
