import numpy as np
import pytest

from corefbias.measures import resampling
from corefbias.measures.blocks import Blocks


def mean_difference(sums):
    return {
        "difference": resampling.safe_div(sums[..., 0], sums[..., 1]) - resampling.safe_div(sums[..., 2], sums[..., 3])
    }


def rows_from(successes_a, successes_b):
    return np.column_stack([successes_a, np.ones(len(successes_a)), successes_b, np.ones(len(successes_b))])


def test_bootstrap_counts_draw_each_replicate_with_replacement():
    counts = resampling.bootstrap_counts(7, 50, np.random.default_rng(0))
    assert counts.shape == (50, 7) and (counts.sum(axis=1) == 7).all()


def test_chunked_replicates_equal_one_chunk(monkeypatch):
    rows = rows_from(np.random.default_rng(1).integers(0, 2, 40), np.random.default_rng(2).integers(0, 2, 40))
    whole = resampling.bootstrap_replicates(rows, mean_difference, 300, seed=5)["difference"]
    monkeypatch.setattr(resampling, "_MAX_DRAWS_PER_CHUNK", 40 * 7)
    chunked = resampling.bootstrap_replicates(rows, mean_difference, 300, seed=5)["difference"]
    assert len(chunked) == 300
    assert whole.mean() == pytest.approx(chunked.mean(), abs=0.02)  # same distribution, other draws


def test_clear_effect_is_significant_and_null_effect_is_not():
    rng = np.random.default_rng(0)
    strong = rows_from(rng.random(400) < 0.8, rng.random(400) < 0.5)
    result = resampling.bootstrap_test(strong, mean_difference, {"difference": 0.0}, n_bootstrap=2000, seed=0)
    # No resample reaches 0: the smallest p-value of 2000 resamples over 400 units (resampling.expanded_p_value).
    assert result["difference"].p_value == pytest.approx(resampling.expanded_p_value(1 / 2001, 400), rel=1e-12)
    assert result["difference"].p_value < 0.0012
    assert 0.1 < result["difference"].ci_low < result["difference"].ci_high < 0.4
    same = rows_from(np.arange(400) % 2, (np.arange(400) + 1) % 2)
    result = resampling.bootstrap_test(same, mean_difference, {"difference": 0.0}, n_bootstrap=2000, seed=0)
    assert result["difference"].p_value == 1.0


def test_percentile_interval_of_a_proportion_matches_the_normal_approximation():
    successes = np.r_[np.ones(300), np.zeros(700)]
    rows = np.column_stack([successes, np.ones(1000)])
    inference = resampling.bootstrap_test(
        rows, lambda s: {"p": resampling.safe_div(s[..., 0], s[..., 1])}, {"p": 0.5}, n_bootstrap=4000, seed=1
    )["p"]
    half_width = 1.96 * np.sqrt(0.3 * 0.7 / 1000)
    assert inference.ci_low == pytest.approx(0.3 - half_width, abs=0.006)
    assert inference.ci_high == pytest.approx(0.3 + half_width, abs=0.006)


def test_undefined_replicates_are_dropped_and_counted():
    rows = np.array([[1.0, 1.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
    inference = resampling.bootstrap_test(
        rows, lambda s: {"r": resampling.safe_div(s[..., 0], s[..., 1])}, {"r": 0.5}, n_bootstrap=500, seed=0
    )["r"]
    assert 0 < inference.n_valid < 500  # resamples without the first two rows have a zero denominator


def _ratio(sums):
    return {"r": resampling.safe_div(sums[..., 0], sums[..., 1])}


def test_one_unit_gives_no_p_value_or_interval_and_says_why():
    # Every resample of one pair is that pair: the p-value was 2 / 1001, "significant", with the CI [1, 1].
    inference = resampling.bootstrap_test(
        np.array([[1.0, 1.0]]), _ratio, {"r": 0.5}, n_bootstrap=1000, seed=0, unit="pair"
    )["r"]
    assert (inference.p_value, inference.ci_low, inference.ci_high) == (None, None, None)
    assert inference.reason == "the bootstrap resamples pairs and needs at least two; 1 was given"


def test_a_score_resting_on_one_unit_gives_no_p_value():
    # Only the first unit has a denominator: every defined resample repeats it, which gave p = 2 / (n_valid + 1).
    rows = np.array([[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
    inference = resampling.bootstrap_test(rows, _ratio, {"r": 0.5}, n_bootstrap=500, seed=0, unit="example")["r"]
    assert inference.p_value is None and inference.ci_low is None
    assert inference.reason.startswith("r rests on a single example (without example 0 it is undefined)")


def test_randomization_test_identical_systems_and_a_real_difference():
    rng = np.random.default_rng(3)
    a = rows_from(rng.random(300) < 0.7, rng.random(300) < 0.7)
    same = resampling.paired_randomization_test(a, a, mean_difference, "difference", n_permutations=500)
    assert same == {"difference": 0.0, "p_value": 1.0}
    b = rows_from(rng.random(300) < 0.7, rng.random(300) < 0.3)
    different = resampling.paired_randomization_test(a, b, mean_difference, "difference", n_permutations=2000)
    assert different["p_value"] < 0.001
    with pytest.raises(ValueError, match="same units"):
        resampling.paired_randomization_test(a, b[:10], mean_difference, "difference")


def test_safe_operations_never_warn():
    with np.errstate(all="raise"):
        assert np.isnan(resampling.safe_div(1.0, 0.0))
        assert np.isnan(resampling.safe_log2(0.0))
        assert resampling.safe_log2(8.0) == 3.0


def test_too_few_resamples_leave_the_interval_undefined_with_the_reason():
    # One resample: numpy's 2.5% and 97.5% quantiles of it are both that resample, an "interval" of one point
    # that need not even hold the observed value (pro − anti 0.0 got [-1.0, -1.0]).
    from corefbias.measures.pro_anti_diff import pro_anti_diff

    result = pro_anti_diff([True, False, False, True], [True] * 4, ["pro", "pro", "anti", "anti"], n_bootstrap=1)
    assert result["diff"] == 0.0
    assert result["diff_ci_low"] is None and result["diff_ci_high"] is None
    # The four examples are four blocks: the interval's tails widen (resampling.expanded_tail) to 1/8402 each.
    reason = "a 95% interval resting on 4 blocks needs at least 8402 resamples with a defined score; 1 had one"
    assert result["undefined"]["diff_ci_low"] == result["undefined"]["diff_ci_high"] == reason
    assert result["diff_p_value"] is not None  # a p-value of one resample is coarse (1.0), not undefined
    # 40 resamples, each tail of the 95% interval holding one of them: the interval is defined (with many blocks).
    plain = "a 95% interval needs at least 40 resamples with a defined score; 39 had one"
    assert resampling.percentile_interval(np.arange(40.0))[2] is None
    assert resampling.percentile_interval(np.arange(39.0)) == (None, None, plain)
    assert resampling.min_resamples(n_blocks=4) == 8402


def test_a_paired_comparison_of_too_few_resamples_has_no_interval():
    from corefbias.measures.comparison import paired_difference

    rows_a, rows_b = rows_from(np.ones(30), np.zeros(30)), rows_from(np.zeros(30), np.zeros(30))
    (difference,) = paired_difference(rows_a, rows_b, mean_difference, ["difference"], n_resamples=1).values()
    assert difference.difference == 1.0 and difference.ci_low is None and difference.ci_high is None
    assert "resting on 30 blocks needs at least 54 resamples" in difference.undefined


def test_blocks_drawn_whole_are_the_bootstrap_of_the_blocks_summed_rows():
    # Drawing 5 blocks of 4 units is drawing the 5 blocks' summed rows: the same draws, the same replicates.
    rng = np.random.default_rng(3)
    rows = rows_from(rng.random(20) < 0.6, rng.random(20) < 0.4)
    blocks = Blocks(np.repeat(np.arange(5), 4)[:, None])
    summed = rows.reshape(5, 4, 4).sum(axis=1)
    drawn = resampling.bootstrap_replicates(rows, mean_difference, 300, seed=2, blocks=blocks)["difference"]
    assert np.array_equal(drawn, resampling.bootstrap_replicates(summed, mean_difference, 300, seed=2)["difference"])


def test_crossed_factors_weigh_each_unit_by_the_product_of_its_levels_draws():
    # Two crossed factors (3 × 2 cells, one unit each): a replicate weighs cell (r, c) by how often row level r was
    # drawn times how often column level c was. So each replicate's 3 × 2 weights are an outer product (rank one),
    # and they sum to 3 · 2 = 6, every level drawn as often as there are levels.
    blocks = Blocks(np.array([[row, column] for row in range(3) for column in range(2)]))
    weights = resampling.draw_weights(resampling.design(np.eye(6), blocks), 500, np.random.default_rng(0))
    grids = weights.reshape(500, 3, 2)
    assert weights.sum(axis=1).tolist() == [6.0] * 500
    assert np.allclose(grids[:, :, :1] * grids[:, :1, 1:], grids[:, :, 1:] * grids[:, :1, :1])
    assert np.unique(grids).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 6.0]  # products of counts 0–3 and 0–2


def test_a_score_varying_by_one_crossed_factor_gets_that_factor_s_interval():
    # 8 occupations × 30 frames, accuracy set by the occupation alone: the crossed bootstrap's interval is about the
    # one-way bootstrap of the 8 occupations, far wider than drawing the 240 sentences one by one.
    rng = np.random.default_rng(7)
    per_occupation = rng.random(8)
    cells = [(job, frame) for job in range(8) for frame in range(30)]
    rows = np.array([[per_occupation[job], 1.0] for job, _ in cells])

    def accuracy(sums):
        return {"accuracy": resampling.safe_div(sums[..., 0], sums[..., 1])}

    def width(blocks):
        test = resampling.bootstrap_test(rows, accuracy, {"accuracy": None}, n_bootstrap=4000, seed=1, blocks=blocks)
        return test["accuracy"].ci_high - test["accuracy"].ci_low

    crossed = width(Blocks(np.array(cells)))
    by_occupation = width(Blocks(np.array([[job] for job, _ in cells])))
    by_sentence = width(None)
    assert crossed == pytest.approx(by_occupation, rel=0.2)
    assert crossed > 5 * by_sentence


def test_the_expansion_reads_a_t_with_one_degree_of_freedom_fewer_than_the_blocks():
    # Hesterberg's expanded percentile interval by hand for 10 blocks: the t quantile with 9 degrees of freedom
    # (−2.262157) scaled by √(10/9), read back through the normal: Φ(−2.384474) = 0.008551.
    assert resampling.expanded_tail(10) == pytest.approx(0.0085514, abs=1e-6)
    assert resampling.expanded_tail(10**6) == pytest.approx(0.025, abs=1e-5)  # many blocks: the plain interval
    # The p-value inverts it: a share of 0.008551 beyond the null is p = 0.05 on 10 blocks.
    assert resampling.expanded_p_value(resampling.expanded_tail(10), 10) == pytest.approx(0.05, abs=1e-9)
    assert resampling.expanded_p_value(0.2, None) == pytest.approx(0.4)


def test_a_score_rests_on_the_blocks_holding_its_counts():
    # The female columns are held by units 0 and 1 only (blocks 0 and 0), the male ones by all: female rests on 1
    # block, and its interval and p-value are undefined, with the reason; male rests on 3.
    rows = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
    shares = lambda sums: {  # noqa: E731
        "male": resampling.safe_div(sums[..., 0], sums[..., 1]),
        "female": resampling.safe_div(sums[..., 2], sums[..., 3]),
    }
    blocks = Blocks(np.array([[0], [0], [1], [2]]))
    assert resampling.blocks_behind(rows, shares, ["male", "female"], blocks) == {"male": 3, "female": 1}
    tested = resampling.bootstrap_test(
        rows, shares, {"male": None, "female": None}, n_bootstrap=200, seed=0, blocks=blocks
    )
    assert tested["female"].ci_low is None and "rests on a single block" in tested["female"].reason
