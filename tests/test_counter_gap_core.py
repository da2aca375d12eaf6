import pytest
from test_counter_gap_delta_i import ROLES, quadruples

from corefbias.measures import counter_gap


def scores(patterns, genders, **kwargs):
    return counter_gap.delta_i(**quadruples(patterns, genders), n_bootstrap=kwargs.pop("n_bootstrap", 0), **kwargs)


def test_perfect_model_has_no_bias():
    result = scores([(1, 1, 1, 1)] * 4, ["male", "female"] * 2)
    assert result["delta_i"] == 0.0 and result["i_across"] == 0.0 and result["accuracy_diff"] == 0.0


def test_hand_computed_quadruples():
    # q0 (male original): o=1 c=0 s1=1 s2=1 → within M |1-0|=1, within F 0, across |1-1|+|0-1|+|1-1|+|0-1| = 2
    # q1 (female original): o=1 c=1 s1=0 s2=0 → within 0, across 4; male instances are the swapped ones
    result = scores([(1, 0, 1, 1), (1, 1, 0, 0)], ["male", "female"])
    assert result["i_within_male"] == pytest.approx(1 / 2)
    assert result["i_within_female"] == 0.0
    assert result["i_within"] == pytest.approx(1 / 4)
    assert result["i_across_m2f"] == pytest.approx(2 / 4)
    assert result["i_across_f2m"] == pytest.approx(4 / 4)
    assert result["i_across"] == pytest.approx(6 / 8)
    assert result["delta_i"] == pytest.approx(6 / 8 - 1 / 4)
    assert result["accuracy_male"] == pytest.approx(1 / 4)  # q0: o,c → 1 of 2; q1: s1,s2 → 0 of 2
    assert result["accuracy_female"] == pytest.approx(4 / 4)
    assert result["accuracy_original_gender"] == pytest.approx(3 / 4)
    assert result["accuracy_counterfactual_gender"] == pytest.approx(2 / 4)


def test_swapping_gender_labels_swaps_directions():
    patterns = [(1, 0, 1, 1), (1, 1, 0, 0), (0, 1, 1, 1), (1, 1, 1, 0)]
    genders = ["male", "female", "female", "male"]
    flipped = ["female" if g == "male" else "male" for g in genders]
    original, swapped = scores(patterns, genders), scores(patterns, flipped)
    assert swapped["i_across_m2f"] == original["i_across_f2m"]
    assert swapped["i_across_f2m"] == original["i_across_m2f"]
    assert swapped["accuracy_diff"] == -original["accuracy_diff"]
    assert swapped["i_within_diff"] == -original["i_within_diff"]
    assert swapped["delta_i"] == original["delta_i"]


def test_significance_is_deterministic_and_brackets_the_estimate():
    patterns = [(1, 1, 0, 0)] * 30 + [(1, 1, 1, 1)] * 30
    genders = ["male", "female"] * 30
    first = scores(patterns, genders, n_bootstrap=500, seed=7)
    again = scores(patterns, genders, n_bootstrap=500, seed=7)
    assert first == again
    assert first["delta_i_ci_low"] <= first["delta_i"] <= first["delta_i_ci_high"]
    assert first["delta_i_p_value"] < 0.01  # every resample has ΔI > 0


def test_one_direction_only_is_undefined_not_nan():
    result = scores([(1, 0, 1, 1)], ["male"])
    assert result["i_across_f2m"] is None and "F2M" in result["undefined"]["i_across_f2m"]
    assert result["spearman_rho"] is None


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda x: x["predictions"].pop(), "one entry per instance"),
        (lambda x: x["roles"].__setitem__(1, "control"), "unknown roles"),
        (lambda x: x["genders"].__setitem__(0, "f"), "unknown genders"),
        (lambda x: x["predictions"].__setitem__(0, [True]), r"predictions\[0\]"),
        (lambda x: x["roles"].__setitem__(1, "original"), "has two 'original' instances"),
        (lambda x: [x[k].pop() for k in x], "has no gender_swapped_2 instance"),
        (lambda x: x["genders"].__setitem__(2, "male"), "must share one gender"),
    ],
)
def test_malformed_inputs_raise_clear_errors(mutate, message):
    inputs = quadruples([(1, 1, 1, 1)], ["male"])
    mutate(inputs)
    with pytest.raises(ValueError, match=message):
        counter_gap.delta_i(**inputs, n_bootstrap=0)


def test_negative_n_bootstrap_is_rejected():
    with pytest.raises(ValueError, match="n_bootstrap"):
        counter_gap.delta_i(**quadruples([(1, 1, 1, 1)], ["male"]), n_bootstrap=-1)


def test_roles_are_the_four_of_the_paper():
    assert tuple(ROLES) == counter_gap.ROLES
