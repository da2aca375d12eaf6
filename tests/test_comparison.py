"""Paired model comparison (measures.comparison): hand-computed p-values, CIs, Holm, invariants."""

import itertools

import numpy as np
import pytest

from corefbias.measures import comparison, counter_gap_delta_i, resampling
from corefbias.measures.blocks import Blocks


def accuracy(sums):
    return {"accuracy": resampling.safe_div(sums[..., 0], sums[..., 1])}


def rows_of(correct):
    return np.column_stack([np.asarray(correct, dtype=float), np.ones(len(correct))])


def test_a_run_compared_with_itself_differs_by_zero_with_p_one():
    rows = rows_of(np.random.default_rng(0).random(200) < 0.6)
    result = comparison.paired_difference(rows, rows, accuracy, ["accuracy"], n_resamples=2000)["accuracy"]
    assert result.difference == 0.0 and result.p_value == 1.0
    assert result.ci_low == result.ci_high == 0.0
    assert result.value_a == result.value_b == pytest.approx(rows[:, 0].mean())


def test_swapping_the_models_flips_the_difference_and_its_interval():
    rng = np.random.default_rng(1)
    a, b = rows_of(rng.random(300) < 0.7), rows_of(rng.random(300) < 0.6)
    ab = comparison.paired_difference(a, b, accuracy, ["accuracy"], n_resamples=3000, seed=4)["accuracy"]
    ba = comparison.paired_difference(b, a, accuracy, ["accuracy"], n_resamples=3000, seed=4)["accuracy"]
    assert ab.difference == pytest.approx(a[:, 0].mean() - b[:, 0].mean())
    assert ba.difference == -ab.difference
    assert (ba.ci_low, ba.ci_high) == pytest.approx((-ab.ci_high, -ab.ci_low))
    assert ba.p_value == ab.p_value


def test_p_value_is_the_paired_bootstrap_s_enumerated_by_hand():
    # 6 units: A right on units 0–3, B on units 3 and 4: per unit A − B is +1, +1, +1, 0, −1, 0, and the observed
    # difference is 1/3. A paired resample draws 6 units with replacement; its difference is ≤ 0 when it draws the
    # −1 unit at least as often as the three +1 units together. Enumerating all 6^6 ordered draws gives that share
    # exactly; the p-value is twice it, read through a t with 5 degrees of freedom (resampling.expanded_p_value).
    a = rows_of([1, 1, 1, 1, 0, 0])
    b = rows_of([0, 0, 0, 1, 1, 0])
    per_unit = np.array([1, 1, 1, 0, -1, 0])
    draws = np.array(list(itertools.product(range(6), repeat=6)))
    share = np.mean(per_unit[draws].sum(axis=1) <= 0)
    result = comparison.paired_difference(a, b, accuracy, ["accuracy"], n_resamples=40_000, seed=2)["accuracy"]
    assert result.difference == pytest.approx(1 / 3)
    assert result.n_blocks == 6
    assert result.p_value == pytest.approx(resampling.expanded_p_value(share, 6), abs=0.01)
    assert result.p_value > 2 * share  # the expansion for 6 units: 0.23 against the plain bootstrap's 0.16


def test_blocks_of_units_answered_alike_are_drawn_whole():
    # 20 templates of 5 units; within a template both models answer every unit alike, and A wins on 12 templates,
    # B on 8. Unit by unit the 100 units make A's 0.2 lead look certain; template by template it rests on 20.
    template_wins = [True] * 12 + [False] * 8
    a = rows_of(np.repeat(template_wins, 5))
    b = rows_of(np.repeat(np.logical_not(template_wins), 5))
    blocks = Blocks(np.repeat(np.arange(20), 5)[:, None])
    by_unit = comparison.paired_difference(a, b, accuracy, ["accuracy"], n_resamples=4000)["accuracy"]
    by_template = comparison.paired_difference(a, b, accuracy, ["accuracy"], n_resamples=4000, blocks=blocks)[
        "accuracy"
    ]
    assert by_unit.difference == by_template.difference == pytest.approx(0.2)
    assert by_unit.p_value < 0.05 < by_template.p_value
    assert (by_unit.n_blocks, by_template.n_blocks) == (100, 20)


def test_interval_of_a_linear_score_matches_the_paired_normal_approximation():
    rng = np.random.default_rng(5)
    difficulty = rng.random(1000)
    a = rows_of(rng.random(1000) < difficulty)  # both models find the same units hard:
    b = rows_of(rng.random(1000) < difficulty - 0.05)  # pairing removes that variance
    per_unit = a[:, 0] - b[:, 0]
    half_width = 1.96 * per_unit.std() / np.sqrt(len(per_unit))
    result = comparison.paired_difference(a, b, accuracy, ["accuracy"], n_resamples=4000, seed=0)["accuracy"]
    assert result.ci_low == pytest.approx(per_unit.mean() - half_width, abs=0.003)
    assert result.ci_high == pytest.approx(per_unit.mean() + half_width, abs=0.003)


def test_clear_difference_is_detected_on_counter_gap_rows():
    rng = np.random.default_rng(7)
    quadruples = 300
    original_male = rng.random(quadruples) < 0.5
    table = np.arange(4 * quadruples).reshape(quadruples, 4)
    unbiased = counter_gap_delta_i.quadruple_rows(rng.random(4 * quadruples) < 0.8, table, original_male)
    # B is right on every male-named instance and on half of the female-named ones: a large ΔI.
    male_instance = np.repeat(original_male, 4) == np.tile([True, True, False, False], quadruples)
    biased = counter_gap_delta_i.quadruple_rows(
        male_instance | (rng.random(4 * quadruples) < 0.5), table, original_male
    )
    names = ["delta_i", "accuracy_diff"]
    result = comparison.paired_difference(unbiased, biased, counter_gap_delta_i.statistic, names, n_resamples=4000)
    for name in names:
        assert result[name].difference < 0 and result[name].ci_high < 0 and result[name].p_value < 0.001


def test_undefined_scores_say_why():
    defined = rows_of([1, 0, 1])
    empty = np.zeros((3, 2))
    result = comparison.paired_difference(defined, empty, accuracy, ["accuracy"], n_resamples=100)["accuracy"]
    assert result.difference is None and result.p_value is None and result.value_a == pytest.approx(2 / 3)
    assert result.undefined == "accuracy is undefined for model B on these units"
    # Named as the report names it: GAP's Wt-Bias is the key w_bias of its own section, and said "w_bias" before.
    labelled = comparison.paired_difference(
        defined, empty, accuracy, ["accuracy"], n_resamples=100, labels={"accuracy": "Wt-Bias"}
    )["accuracy"]
    assert labelled.undefined == "Wt-Bias is undefined for model B on these units"


def test_rows_must_cover_the_same_units():
    with pytest.raises(ValueError, match="same units"):
        comparison.paired_difference(rows_of([1, 0]), rows_of([1, 0, 1]), accuracy, ["accuracy"])
    with pytest.raises(ValueError, match="n_resamples"):
        comparison.paired_difference(rows_of([1, 0]), rows_of([1, 1]), accuracy, ["accuracy"], n_resamples=0)


def test_holm_by_hand():
    # Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → raised to 0.06 (monotone).
    assert comparison.holm([0.01, 0.04, 0.03, None, 0.005]) == pytest.approx([0.03, 0.06, 0.06, None, 0.02])
    assert comparison.holm([0.5, 0.9]) == [1.0, 1.0]
    assert comparison.holm([]) == [] and comparison.holm([None]) == [None]
    with pytest.raises(ValueError, match="between 0 and 1"):
        comparison.holm([1.5])
