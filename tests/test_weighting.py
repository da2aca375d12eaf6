import itertools

import numpy as np
import pytest

from corefbias.measures import weighting


def gap_like(size: int, seed: int):
    """Genders and (names, rank) properties with GAP test's imbalance: more names, further referents for F."""
    rng = np.random.default_rng(seed)
    genders = rng.choice(["female", "male"], size)
    names = 1 + rng.poisson(np.where(genders == "female", 5.2, 4.4))
    ranks = np.minimum(rng.geometric(np.where(genders == "female", 1 / 2.3, 1 / 1.9)), names)
    return genders.tolist(), {"num_names": names.tolist(), "correct_rank": ranks.tolist()}


def test_hand_solved_case():
    # Male ranks (1, 1, 2), female (1, 2, 2, 2); class weights a (male rank 1, 2 examples), b, c, d.
    # Balance: 2a = c, b = 3d, 2a + b = c + 3d = 3.5, so b = 3.5 − 2a, c = 2a, d = (3.5 − 2a)/3.
    # The objective is constant + half the within-group absolute differences: 2|3a − 3.5| + |8a − 3.5|
    # = 6|a − 7/6| + 8|a − 7/16|, uniquely minimal at a = 7/16.
    genders = ["m"] * 3 + ["f"] * 4
    result = weighting.balance_weights(genders, {"rank": [1, 1, 2, 1, 2, 2, 2]})
    np.testing.assert_allclose(result.weights, [7 / 16, 7 / 16, 21 / 8, 7 / 8, 7 / 8, 7 / 8, 7 / 8], atol=1e-12)
    # Sorted male weights cost 0·7/16 + 1·7/16 + 2·21/8; the four female ones (0 + 1 + 2 + 3)·7/8.
    assert result.objective == pytest.approx(7 / 16 + 2 * 21 / 8 + 6 * 7 / 8, abs=1e-12)
    assert (result.num_classes, result.num_sets) == (4, 2)


def test_pairwise_max_objective_is_the_sum_over_same_group_pairs():
    rng = np.random.default_rng(0)
    weights = rng.exponential(size=12)
    groups = rng.choice(["a", "b"], 12).tolist()
    brute = sum(max(weights[i], weights[j]) for i, j in itertools.combinations(range(12), 2) if groups[i] == groups[j])
    assert weighting.pairwise_max_objective(weights, groups) == pytest.approx(brute, rel=1e-12)


def test_already_balanced_data_keep_unit_weights():
    genders = ["f", "f", "f", "m", "m", "m"]
    result = weighting.balance_weights(genders, {"x": [1, 2, 2, 2, 1, 2], "y": [5, 6, 5, 5, 5, 6]})
    np.testing.assert_allclose(result.weights, 1.0, atol=1e-12)


def test_value_of_one_group_only_gets_zero_weight_and_the_rest_is_rebalanced():
    result = weighting.balance_weights(["a", "a", "b", "b"], {"x": [1, 2, 1, 3]})
    np.testing.assert_allclose(result.weights, [2, 0, 2, 0], atol=1e-12)


def test_missing_value_behaves_like_a_value_of_its_own():
    # The None examples are the complement of the other sets, which are balanced, so they balance too.
    genders, properties = gap_like(80, seed=3)
    missing = [None if index % 7 == 0 else rank for index, rank in enumerate(properties["correct_rank"])]
    labelled = ["none" if rank is None else rank for rank in missing]
    with_none = weighting.balance_weights(genders, {**properties, "correct_rank": missing})
    with_label = weighting.balance_weights(genders, {**properties, "correct_rank": labelled})
    assert with_none.objective == pytest.approx(with_label.objective, rel=1e-9)
    assert with_none.num_sets == with_label.num_sets - 1


@pytest.mark.reproduction
@pytest.mark.parametrize("seed", range(12))
def test_equals_the_papers_per_pair_lp_on_small_problems(seed):
    size = int(np.random.default_rng(seed).integers(20, 121))
    genders, properties = gap_like(size, seed)
    try:
        ours = weighting.balance_weights(genders, properties)
    except weighting.InfeasibleBalanceError:
        with pytest.raises(weighting.InfeasibleBalanceError):
            weighting.per_pair_lp_weights(genders, properties)
        return
    reference = weighting.per_pair_lp_weights(genders, properties)
    assert ours.objective == pytest.approx(reference.objective, rel=1e-8)
    residuals = weighting.balance_residuals(ours.weights, genders, properties)
    assert max(abs(value) for value in residuals.values()) < 1e-9
    assert ours.weights.min() >= 0


def test_constraints_hold_to_1e9_on_larger_data():
    genders, properties = gap_like(5000, seed=11)
    result = weighting.balance_weights(genders, properties)
    residuals = weighting.balance_residuals(result.weights, genders, properties)
    assert set(residuals) >= {"total", "groups", "num_names=5", "correct_rank=1"}
    assert max(abs(value) for value in residuals.values()) < 1e-9
    assert result.weights.min() >= 0


def test_infeasible_sets_are_named():
    with pytest.raises(weighting.InfeasibleBalanceError, match=r"x=1 \(a: 2, b: 0\)"):
        weighting.balance_weights(["a", "a", "b", "b"], {"x": [1, 1, 2, 2]})
    # Neither set alone empties a group; together they do.
    with pytest.raises(weighting.InfeasibleBalanceError, match=r"x=1 \(a: 1, b: 0\); y=6 \(a: 1, b: 0\)"):
        weighting.balance_weights(["a", "a", "b", "b"], {"x": [1, 2, 2, 3], "y": [5, 6, 5, 7]})


@pytest.mark.parametrize("groups", [["a", "a", "a"], ["a", "b", "c"]])
def test_exactly_two_groups(groups):
    with pytest.raises(ValueError, match="exactly two groups"):
        weighting.balance_weights(groups, {"x": [1, 1, 1]})


def test_property_length_must_match():
    with pytest.raises(ValueError, match="property 'x' has 2 values but there are 3 examples"):
        weighting.balance_weights(["a", "b", "a"], {"x": [1, 2]})
