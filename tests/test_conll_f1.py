"""CoNLL F1 (MUC, B³, CEAFφ4) against the reference scorer's own test cases, and its pro/anti gap.

The cases are those of conll/reference-coreference-scorers v8.01, test/CorefMetricTestConfig.pm
(expected [recall, precision, F1]) over the clusterings of test/TestCases.README: key {a} {bc} {def};
capital B is a mention overlapping b (a different span), a repeated b is the same span again.
"""

import math

import pytest

from corefbias.measures import conll_f1 as conll
from corefbias.measures import pro_anti_conll_f1

KEY_A = [["a"], ["b", "c"], ["d", "e", "f"]]
# id → (response, {metric: (recall, precision, F1)}) — v8.01's expected values, 5-decimal ones as printed there.
# Where the response has no links (A10, A12: singletons only) MUC precision is 0/0: the reference prints 0, we
# return None with the reason (the F1 is 0 in both).
REFERENCE_CASES = {
    "A1": ([["a"], ["b", "c"], ["d", "e", "f"]], {"muc": (1, 1, 1), "bcubed": (1, 1, 1), "ceafe": (1, 1, 1)}),
    "A2": (
        [["a"], ["d", "e"]],
        {"muc": (1 / 3, 1, 0.5), "bcubed": ((7 / 3) / 6, 1, 14 / 25), "ceafe": (0.6, 0.9, 0.72)},
    ),
    "A3": (
        [["a"], ["b", "c", "x"], ["d", "e", "f", "y"], ["z"]],
        {"muc": (1, 3 / 5, 0.75), "bcubed": (1, (4 + 7 / 12) / 9, 110 / 163), "ceafe": (0.88571, 0.66429, 0.75918)},
    ),
    "A4": (
        [["a"], ["b", "c", "x"], ["d", "y"], ["z"]],
        {
            "muc": (1 / 3, 1 / 3, 1 / 3),
            "bcubed": ((3 + 1 / 3) / 6, (1 + 4 / 3 + 1 / 2) / 7, 2 * (5 / 9) * (17 / 42) / ((5 / 9) + (17 / 42))),
            "ceafe": (0.73333, 0.55, 0.62857),
        },
    ),
    "A5": (
        [["a"], ["b", "c", "x", "B"], ["d", "y"], ["z"]],
        {
            "muc": (1 / 3, 1 / 4, 2 / 7),
            "bcubed": ((3 + 1 / 3) / 6, 2.5 / 8, 2 * (5 / 9) * (5 / 16) / ((5 / 9) + (5 / 16))),
            "ceafe": (0.68889, 0.51667, 0.59048),
        },
    ),
    "A6": (
        [["a"], ["b", "c", "x"], ["d", "y"], ["B", "z"]],
        {
            "muc": (1 / 3, 1 / 4, 2 / 7),
            "bcubed": ((10 / 3) / 6, (1 + 4 / 3 + 1 / 2) / 8, 2 * (5 / 9) * (17 / 48) / ((5 / 9) + (17 / 48))),
            "ceafe": (0.73333, 0.55, 0.62857),
        },
    ),
    "A7": (
        [["a"], ["b", "c", "x", "b"], ["d", "y"], ["z"]],  # b twice in one entity: de-duplicated
        {
            "muc": (1 / 3, 1 / 3, 1 / 3),
            "bcubed": ((10 / 3) / 6, (1 + 4 / 3 + 1 / 2) / 7, 2 * (5 / 9) * (17 / 42) / ((5 / 9) + (17 / 42))),
            "ceafe": (0.73333, 0.55, 0.62857),
        },
    ),
    "A8": (
        [["a"], ["b", "c", "x"], ["d", "y"], ["b", "z"]],  # b again in another entity: de-duplicated
        {
            "muc": (1 / 3, 1 / 3, 1 / 3),
            "bcubed": ((10 / 3) / 6, (1 + 4 / 3 + 1 / 2) / 7, 2 * (5 / 9) * (17 / 42) / ((5 / 9) + (17 / 42))),
            "ceafe": (0.73333, 0.55, 0.62857),
        },
    ),
    "A10": ([["a"], ["b"], ["c"], ["d"], ["e"], ["f"]], {"muc": (0, None, 0), "bcubed": (3 / 6, 1, 2 / 3)}),
    "A11": (
        [["a", "b", "c", "d", "e", "f"]],
        {"muc": (1, 3 / 5, 6 / 8), "bcubed": (1, (1 / 6 + 2 * 2 / 6 + 3 * 3 / 6) / 6, 14 / 25)},
    ),
    "A12": (
        [["a"], ["x"], ["y"], ["c"], ["d"], ["e"], ["z"]],
        {
            "muc": (0, None, 0),
            "bcubed": ((1 + 1 / 2 + 2 / 3) / 6, 4 / 7, 2 * (13 / 36) * (4 / 7) / ((13 / 36) + (4 / 7))),
        },
    ),
    "A13": (
        [["a", "x", "y", "c", "d", "e", "z"]],
        {
            "muc": (1 / 3, 1 / 6, 2 / 9),
            "bcubed": (
                (1 + 1 / 2 + 2 * 2 / 3) / 6,
                (1 / 7 + 1 / 7 + 2 * 2 / 7) / 7,
                2 * (17 / 36) * (6 / 49) / ((17 / 36) + (6 / 49)),
            ),
        },
    ),
}


@pytest.mark.reproduction
@pytest.mark.parametrize("case", list(REFERENCE_CASES))
def test_reference_scorer_test_cases(case):
    response, expected = REFERENCE_CASES[case]
    result = conll.conll_f1([KEY_A], [response])
    for metric, values in expected.items():
        for name, value in zip(("recall", "precision", "f1"), values):
            got = result[f"{metric}_{name}"]
            assert got == (None if value is None else pytest.approx(value, abs=5e-5)), (case, metric, name)
    if len(expected) == 3:
        assert result["conll_f1"] == pytest.approx(sum(v[2] for v in expected.values()) / 3, abs=5e-5)


def test_documents_are_micro_averaged_like_the_reference_scorer():
    # Two documents: A2's and A4's responses to the same key. MUC recall = (1 + 1) / (3 + 3),
    # precision = (1 + 1) / (1 + 3); B³ recall = (7/3 + 10/3) / 12; CEAFφ4 recall = (1.8 + 2.2) / 6.
    result = conll.conll_f1([KEY_A, KEY_A], [REFERENCE_CASES["A2"][0], REFERENCE_CASES["A4"][0]])
    assert result["muc_recall"] == pytest.approx(2 / 6)
    assert result["muc_precision"] == pytest.approx(2 / 4)
    assert result["bcubed_recall"] == pytest.approx((7 / 3 + 10 / 3) / 12)
    assert result["bcubed_precision"] == pytest.approx((3 + 17 / 6) / (3 + 7))
    assert result["ceafe_recall"] == pytest.approx((1.8 + 2.2) / 6)
    assert result["ceafe_precision"] == pytest.approx((1.8 + 2.2) / (2 + 4))
    assert result["num_documents"] == 2


def test_no_response_scores_zero_and_no_key_is_undefined():
    empty = conll.conll_f1([KEY_A], [[]])
    assert empty["conll_f1"] == 0.0 and empty["muc_recall"] == 0.0
    assert empty["muc_precision"] is None and "muc precision is 0/0" in empty["undefined"]["muc_precision"]
    no_key = conll.conll_f1([[]], [[["a", "b"]]])
    assert no_key["conll_f1"] is None and "no gold links" in no_key["undefined"]["conll_f1"]


def test_a_response_sharing_no_mention_with_the_key_scores_zero():
    # Every metric's numerators are 0; the response has 1 link, 2 mentions, 1 entity.
    result = conll.conll_f1([[["a", "b"]], KEY_A], [[["x", "y"]], KEY_A])
    assert result["muc_recall"] == pytest.approx(3 / 4) and result["muc_precision"] == pytest.approx(3 / 4)
    assert result["ceafe_recall"] == pytest.approx(3 / 4) and result["ceafe_precision"] == pytest.approx(3 / 4)
    assert result["bcubed_recall"] == pytest.approx(6 / 8)
    alone = conll.conll_f1([[["a", "b"]]], [[["x", "y"]]])
    assert alone["conll_f1"] == 0.0 and alone["ceafe_precision"] == 0.0


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="must be a list of clusters"):
        conll.conll_f1(["a b"], [[]])
    with pytest.raises(ValueError, match="same length|length"):
        conll.conll_f1([KEY_A], [])


PRO_KEY = [[(0, 3), (10, 12)], [(5, 8)]]


def _pro_anti(responses_pro, responses_anti, n_bootstrap=200):
    keys = [PRO_KEY] * (len(responses_pro) + len(responses_anti))
    pairs = [f"p{i}" for i in range(len(responses_pro))] + [f"p{i}" for i in range(len(responses_anti))]
    conditions = ["pro"] * len(responses_pro) + ["anti"] * len(responses_anti)
    return pro_anti_conll_f1.pro_anti_conll_f1(
        keys, responses_pro + responses_anti, conditions, pairs, n_bootstrap=n_bootstrap, seed=1
    )


def test_pro_anti_gap_and_its_paired_bootstrap():
    right = PRO_KEY
    wrong = [[(0, 3)], [(5, 8), (10, 12)]]  # the pronoun (10, 12) linked to the other mention
    # 16 pairs: with 8, the interval (expanded for 8 pairs) still excluded 0 but p rose to 0.066.
    result = _pro_anti([right] * 16, [right] * 8 + [wrong] * 8)
    assert result["pro"] == 1.0
    single = conll.conll_f1([PRO_KEY] * 16, [right] * 8 + [wrong] * 8)
    assert result["anti"] == pytest.approx(single["conll_f1"])
    assert result["anti/muc_f1"] == pytest.approx(single["muc_f1"])
    assert result["diff"] == pytest.approx(1.0 - single["conll_f1"])
    assert result["average"] == pytest.approx((1.0 + single["conll_f1"]) / 2)
    assert result["num_pairs"] == 16 and result["num_pro"] == 16
    assert result["diff_ci_low"] > 0 and result["diff_p_value"] < 0.05
    swapped = _pro_anti([right] * 8 + [wrong] * 8, [right] * 16)
    assert swapped["diff"] == pytest.approx(-result["diff"])
    same = _pro_anti([right] * 16, [right] * 16)
    assert same["diff"] == 0.0 and same["diff_p_value"] == 1.0


WRONG = [[(0, 3)], [(5, 8), (10, 12)]]  # the pronoun (10, 12) linked to the other mention


def _frames(n_frames: int = 12, per_frame: int = 5) -> dict:
    """WinoBias pairs by frame (the same two occupations): the pro documents resolved right, the anti ones right in
    every pair of an even frame and wrong in every pair of an odd one. Pair ids sort in the pairs' order."""
    pairs = [f"p{frame:02d}.{pair}" for frame in range(n_frames) for pair in range(per_frame)]
    frames = [f"frame {frame}" for frame in range(n_frames) for _ in range(per_frame)]
    anti = [PRO_KEY if frame % 2 == 0 else WRONG for frame in range(n_frames) for _ in range(per_frame)]
    return {
        "keys": [PRO_KEY] * (2 * len(pairs)),
        "responses": [PRO_KEY] * len(pairs) + anti,
        "conditions": ["pro"] * len(pairs) + ["anti"] * len(pairs),
        "pair_ids": pairs * 2,
        "frames": frames * 2,
    }


def test_pro_anti_blocks_draw_the_pairs_of_a_frame_together():
    # Within a frame every pair is answered alike: drawn pair by pair, the 60 pairs look like a tight interval; drawn
    # by frame, it rests on 12 blocks and is wider, with a larger p-value.
    inputs = _frames()
    frames = inputs.pop("frames")
    by_pair = pro_anti_conll_f1.pro_anti_conll_f1(**inputs, seed=3)
    by_frame = pro_anti_conll_f1.pro_anti_conll_f1(**inputs, block_ids=frames, seed=3)
    assert by_pair["diff"] == by_frame["diff"] > 0
    assert by_pair.overall["diff"].n_blocks == 60 and by_frame.overall["diff"].n_blocks == 12
    pair_width = by_pair["diff_ci_high"] - by_pair["diff_ci_low"]
    frame_width = by_frame["diff_ci_high"] - by_frame["diff_ci_low"]
    assert frame_width > 1.8 * pair_width
    assert by_frame["diff_p_value"] > by_pair["diff_p_value"]
    assert by_frame.unit_rows.blocks.sizes == (12,)
    # A block of its own per pair is no block at all: the same draws as without block_ids.
    alone = pro_anti_conll_f1.pro_anti_conll_f1(**inputs, block_ids=inputs["pair_ids"], seed=3)
    assert (alone["diff_ci_low"], alone["diff_ci_high"], alone["diff_p_value"]) == (
        by_pair["diff_ci_low"],
        by_pair["diff_ci_high"],
        by_pair["diff_p_value"],
    )
    assert alone.unit_rows.blocks.sizes == (60,)


@pytest.mark.parametrize(
    ("block_ids", "message"),
    [
        (["a", "a", "b"], "one entry per instance"),
        (["a", None, "a", "b"], r"block_ids\[1\] is None; give every instance its block"),
        (["a", 2.5, "a", "b"], r"block_ids\[1\] is 2.5 \(float\); each entry must be a block id"),
        (["a", ("a", "x"), "a", "b"], "gives 1 id.* for some instances and 2 for others"),
        (["a", "b", "b", "b"], "pair 'p0' lies in block 'a' and in block 'b'"),
    ],
)
def test_pro_anti_malformed_block_ids_are_a_clear_value_error(block_ids, message):
    with pytest.raises(ValueError, match=message):
        pro_anti_conll_f1.pro_anti_conll_f1(
            [PRO_KEY] * 4,
            [PRO_KEY] * 4,
            ["pro", "pro", "anti", "anti"],
            ["p0", "p1", "p0", "p1"],
            block_ids=block_ids,
            n_bootstrap=0,
        )


def test_pairs_must_join_one_pro_and_one_anti_document():
    with pytest.raises(ValueError, match="pair 'p0' has 2 pro and 0 anti"):
        pro_anti_conll_f1.pro_anti_conll_f1(
            [PRO_KEY] * 3, [PRO_KEY] * 3, ["pro", "pro", "anti"], ["p0", "p0", "p1"], n_bootstrap=0
        )


def test_undefined_result_names_its_reason():
    result = pro_anti_conll_f1.undefined_pro_anti("the model chooses among candidates and predicts no clusters")
    assert result["diff"] is None and "no clusters" in result["undefined"]["diff"]
    assert not any(isinstance(value, float) and math.isnan(value) for value in result.values())
