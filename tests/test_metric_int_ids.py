"""Every metric module that takes an id column accepts integer ids, and scores them as their strings."""

import numpy as np
import pytest
from metric_harness import assert_same_results, load

from corefbias.measures import counter_gap_delta_i, winogender_bias

GOLD = [[True, False], [False, True], [True, False], [False, True]]
WRONG = [[False, True], [True, False]]

CASES = {
    "counter_gap_delta_i": (
        "quadruple_ids",
        [7] * 4 + [12] * 4,
        {
            "predictions": GOLD[:2] + WRONG + GOLD,
            "references": GOLD + GOLD,
            "roles": ["original", "gender_controlled", "gender_swapped_1", "gender_swapped_2"] * 2,
            "genders": ["male", "male", "female", "female"] * 2,
        },
    ),
    "pro_anti_diff": (
        "pair_ids",
        [1, 2, 3, 4] * 2,
        {
            "predictions": [True, True, True, False, True, False, False, True],
            "references": [True] * 8,
            "conditions": ["pro"] * 4 + ["anti"] * 4,
            "groups": ["female", "female", "male", "male"] * 2,
        },
    ),
    "winogender_bias": (
        "pair_ids",
        [0, 0, 1, 1],
        {
            "predictions": ["occupation", "occupation", "occupation", "participant"],
            "references": ["occupation", "occupation", "participant", "participant"],
            "occupations": ["surgeon"] * 4,
            "genders": ["male", "female", "male", "female"],
            "bls_pct_female": [37.9] * 4,
        },
    ),
    "pro_anti_conll_f1": (
        "pair_ids",
        [1, 1, 2, 2],
        {
            "predictions": [
                [[[0, 3], [10, 12]], [[5, 8]]],
                [[[0, 3]], [[5, 8], [10, 12]]],
                [[[0, 3], [10, 12]]],
                [[[0, 3], [5, 8]]],
            ],
            "references": [[[[0, 3], [10, 12]], [[5, 8]]]] * 2 + [[[[0, 3], [10, 12]]]] * 2,
            "conditions": ["pro", "anti", "pro", "anti"],
        },
    ),
    "abc_fpr_ratio": (
        "triplet_ids",
        [1] * 3 + [2] * 3 + [3] * 3 + [4] * 3,
        {
            "predictions": [True, True, False, True, True, True, True, False, True, False, True, True],
            "references": [True, False, False] * 4,
            "pronoun_genders": ["neutral", "male", "female"] * 4,
            "occupation_genders": ["male"] * 6 + ["female"] * 6,
        },
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_integer_ids_score_as_their_strings(in_repo, name):
    column, ids, inputs = CASES[name]
    as_ints = load(name).compute(**inputs, **{column: ids}, n_bootstrap=200, seed=3)
    as_numpy = load(name).compute(**inputs, **{column: list(np.array(ids))}, n_bootstrap=200, seed=3)
    as_strings = load(name).compute(**inputs, **{column: [str(i) for i in ids]}, n_bootstrap=200, seed=3)
    assert_same_results(as_ints, as_strings)
    assert_same_results(as_numpy, as_strings)


def test_integer_ids_one_example_at_a_time(in_repo):
    column, ids, inputs = CASES["pro_anti_diff"]
    metric = load("pro_anti_diff")
    for index, pair_id in enumerate(ids):
        metric.add(
            prediction=inputs["predictions"][index],
            reference=inputs["references"][index],
            conditions=inputs["conditions"][index],
            **{column: pair_id},
        )
    expected = load("pro_anti_diff").compute(
        predictions=inputs["predictions"],
        references=inputs["references"],
        conditions=inputs["conditions"],
        **{column: [str(i) for i in ids]},
        n_bootstrap=0,
    )
    assert_same_results(metric.compute(n_bootstrap=0), expected)
    assert expected["num_pairs"] == 4


def test_ids_that_are_neither_strings_nor_integers_are_refused(in_repo):
    column, ids, inputs = CASES["pro_anti_diff"]
    with pytest.raises((ValueError, TypeError)):
        load("pro_anti_diff").compute(**inputs, **{column: [1.5] * len(ids)}, n_bootstrap=0)


def test_the_measure_function_compares_ids_as_text_as_its_module_does(in_repo):
    # 7 and "7" are one pair for the module (evaluate carries ids as strings); the function must agree, not
    # count a pair 7 with two pro examples and a pair "7" with two anti ones.
    from corefbias.measures.pro_anti_diff import pro_anti_diff

    inputs = {
        "predictions": [True, False, True, True],
        "references": [True] * 4,
        "conditions": ["pro", "anti", "pro", "anti"],
        "pair_ids": [7, "7", np.int64(8), "8"],
    }
    by_function = pro_anti_diff(**inputs, n_bootstrap=200, seed=2)
    by_module = load("pro_anti_diff").compute(**inputs, n_bootstrap=200, seed=2)
    assert_same_results(by_function, by_module)
    assert by_function["num_pairs"] == 2


@pytest.mark.parametrize(
    "name, function",
    [
        ("winogender_bias", winogender_bias.winogender_bias),
        ("counter_gap_delta_i", counter_gap_delta_i.counter_gap_delta_i),
    ],
)
def test_the_functions_grouping_units_compare_ids_as_text_as_their_modules_do(in_repo, name, function):
    # The rule of validation.as_id, in the units these functions group (structured_inputs.unit_table): before, the
    # function kept 0 and "0" apart and refused the call ("pair '0' has no female sentence") that the module scored.
    column, ids, inputs = CASES[name]
    mixed = [unit if index % 2 else str(unit) for index, unit in enumerate(ids)]
    by_function = function(**inputs, **{column: mixed}, n_bootstrap=200, seed=2)
    by_module = load(name).compute(**inputs, **{column: mixed}, n_bootstrap=200, seed=2)
    assert_same_results(by_function, by_module)
    as_text = load(name).compute(**inputs, **{column: [str(unit) for unit in ids]}, n_bootstrap=200, seed=2)
    assert_same_results(by_module, as_text)
