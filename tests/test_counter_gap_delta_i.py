from metric_harness import assert_add_batch_equivalent, assert_num_process_equivalent, load

from corefbias.measures import counter_gap_delta_i

ROLES = ["original", "gender_controlled", "gender_swapped_1", "gender_swapped_2"]


def quadruples(correct_pattern, original_genders):
    """Inputs for quadruples whose instances are correct (1) or not (0) per pattern."""
    inputs = {"predictions": [], "references": [], "quadruple_ids": [], "roles": [], "genders": []}
    for index, (pattern, original) in enumerate(zip(correct_pattern, original_genders)):
        other = "female" if original == "male" else "male"
        for role, correct, gender in zip(ROLES, pattern, [original, original, other, other]):
            inputs["references"].append([True, False])
            inputs["predictions"].append([True, False] if correct else [False, True])
            inputs["quadruple_ids"].append(f"q{index}")
            inputs["roles"].append(role)
            inputs["genders"].append(gender)
    return inputs


def test_add_batch_and_num_process_equal_single_call(in_repo):
    patterns = [(1, 1, 0, 0), (1, 0, 1, 1), (0, 0, 0, 1), (1, 1, 1, 1), (0, 1, 1, 0), (1, 1, 0, 1)]
    inputs = quadruples(patterns, ["male", "female", "male", "female", "female", "male"])
    assert_add_batch_equivalent("counter_gap_delta_i", inputs, [5, 7, 12], n_bootstrap=200, seed=3)
    assert_num_process_equivalent("counter_gap_delta_i", inputs, 10, n_bootstrap=200, seed=3)


def test_the_module_takes_block_ids(in_repo):
    # Books of three quadruples each: the module passes the ids on, through batches and processes alike.
    patterns = [(1, 1, 0, 0), (1, 0, 1, 1), (0, 0, 0, 1), (1, 1, 1, 1), (0, 1, 1, 0), (1, 1, 0, 1)] * 2
    inputs = quadruples(patterns, ["male", "female", "male", "female", "female", "male"] * 2)
    inputs["block_ids"] = [f"book {index // 3}" for index in range(12) for _ in ROLES]
    expected = dict(counter_gap_delta_i.counter_gap_delta_i(**inputs, n_bootstrap=200, seed=3))
    assert load("counter_gap_delta_i").compute(**inputs, n_bootstrap=200, seed=3) == expected
    unblocked = dict(counter_gap_delta_i.counter_gap_delta_i(**{**inputs, "block_ids": None}, n_bootstrap=200, seed=3))
    assert expected["delta_i"] == unblocked["delta_i"] and expected["undefined"] != unblocked["undefined"]
    assert_add_batch_equivalent("counter_gap_delta_i", inputs, [10, 14, 24], n_bootstrap=200, seed=3)
    assert_num_process_equivalent("counter_gap_delta_i", inputs, 20, n_bootstrap=200, seed=3)
