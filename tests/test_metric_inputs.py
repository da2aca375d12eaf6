"""What the metric modules answer to input a user gets wrong or gives in an unexpected form: each case once found
by a user pass (one resampling unit called significant, batches lost to a refused compute, a column dropped or
read as None entries, internal names and stringified values in messages)."""

import uuid

import evaluate
import numpy as np
import pytest
from metric_checks import metric_names, widget_inputs
from metric_harness import REPO, load

PAIR = {"predictions": [True, False], "references": [True, True], "conditions": ["pro", "anti"]}
QUADRUPLE = {
    "predictions": [[True, False], [True, False], [False, True], [True, False]],
    "references": [[True, False]] * 4,
    "quadruple_ids": ["q1"] * 4,
    "roles": ["original", "gender_controlled", "gender_swapped_1", "gender_swapped_2"],
    "genders": ["male", "male", "female", "female"],
}
ABC = {
    "predictions": [True, True, False] * 2,
    "references": [True, False, False] * 2,
    "pronoun_genders": ["neutral", "male", "female"] * 2,
}
DOCUMENT = [[[0, 3], [10, 12]], [[20, 22], [30, 32]]]


def test_one_pair_gives_no_p_value_or_interval():
    # Every resample of one pair is that pair: it gave diff_p_value 0.002 and the CI [1, 1].
    result = load("pro_anti_diff").compute(**PAIR, pair_ids=["p1", "p1"])
    assert (result["diff_p_value"], result["diff_ci_low"], result["diff_ci_high"]) == (None, None, None)
    assert result["undefined"]["diff_p_value"] == "the bootstrap resamples pairs and needs at least two; 1 was given"


def test_one_quadruple_gives_no_p_value():
    result = load("counter_gap_delta_i").compute(**QUADRUPLE)
    assert result["delta_i_p_value"] is None
    assert "resamples quadruples and needs at least two" in result["undefined"]["delta_i_p_value"]


def test_one_example_per_gender_gives_no_p_value():
    # The resamples holding both examples were the only defined ones, all equal to the observed score: p = 0.0038.
    result = load("gap_acc_bias").compute(
        predictions=[[True, False], [False, True]], references=[[True, False]] * 2, genders=["male", "female"]
    )
    assert result["acc_bias"] == 0.0 and result["acc_bias_p_value"] is None
    assert result["undefined"]["acc_bias_p_value"].startswith("acc_bias rests on a single example")


def test_a_label_refused_in_a_batch_keeps_the_batches_added_before():
    module = load("pro_anti_diff")
    module.add_batch(**PAIR)
    with pytest.raises(ValueError, match="unknown conditions: 'Pro' at index 0"):
        module.add_batch(predictions=[True], references=[True], conditions=["Pro"])
    assert module.compute(n_bootstrap=0)["diff"] == 1.0


def test_a_measure_error_in_compute_keeps_the_batches():
    module = load("pro_anti_diff")
    module.add_batch(**PAIR)
    with pytest.raises(ValueError, match="unknown score"):
        module.compute(score="F1", n_bootstrap=0)
    assert module.compute(n_bootstrap=0)["diff"] == 1.0


@pytest.mark.parametrize("option", [{"seed": -1}, {"n_bootstrap": 2**70}], ids=["negative seed", "n_bootstrap 2**70"])
@pytest.mark.parametrize("name", metric_names())
def test_keep_in_memory_refuses_a_bad_option_as_on_disk_and_keeps_the_batches(name, option):
    # Before, a module kept in memory answered with "TypeError: 'NoneType' object is not iterable" from the step that
    # adds the batches back (it zipped the cache files evaluate keeps only on disk), hiding the measure's ValueError.
    inputs = widget_inputs(load(name))
    expected = load(name).compute(**inputs, n_bootstrap=0, seed=0)
    in_memory = evaluate.load(str(REPO / "metrics" / name), experiment_id=uuid.uuid4().hex, keep_in_memory=True)
    messages = []
    for module in (load(name), in_memory):
        module.add_batch(**inputs)
        with pytest.raises(ValueError) as refused:
            module.compute(**option)
        messages.append(str(refused.value))
        assert module.compute(n_bootstrap=0, seed=0) == expected
    assert messages[0] == messages[1] and "\n" not in messages[0]


def test_a_batch_with_an_empty_first_column_is_refused_not_dropped():
    with pytest.raises(ValueError, match="predictions has 0, references has 4, conditions has 4"):
        load("pro_anti_diff").compute(predictions=[], references=[False] * 4, conditions=["pro"] * 4)


def test_no_instances_at_all_says_so():
    empty = dict.fromkeys(["predictions", "references", "genders", "weights", "num_names", "correct_ranks"], [])
    with pytest.raises(ValueError, match="^no instances given: gap_w_bias needs"):
        load("gap_w_bias").compute(**empty)


def test_a_module_without_references_refuses_them():
    module = load("bug_bias")
    with pytest.raises(ValueError, match="^bug_bias takes no references"):
        module.compute(predictions=[True], references=[False], n_bootstrap=0)


def test_an_optional_column_left_out_of_one_batch_is_refused():
    module = load("abc_fpr_ratio")
    module.add_batch(**ABC, occupation_genders=["male"] * 6)
    module.add_batch(**ABC)
    with pytest.raises(ValueError, match="occupation_genders was given with some batches and left out of others"):
        module.compute(n_bootstrap=0)


def test_a_numpy_array_of_clusters_is_accepted():
    listed = load("pro_anti_conll_f1").compute(
        predictions=[DOCUMENT] * 2,
        references=[DOCUMENT] * 2,
        conditions=["pro", "anti"],
        pair_ids=["a", "a"],
        n_bootstrap=0,
    )
    array = np.array([DOCUMENT] * 2)
    assert (
        load("pro_anti_conll_f1").compute(
            predictions=array, references=array, conditions=["pro", "anti"], pair_ids=["a", "a"], n_bootstrap=0
        )
        == listed
    )


def test_conll_messages_use_the_modules_argument_names():
    module = load("conll_f1_by_mention_type")
    spans = [[[0, 3], [8, 10]]]
    with pytest.raises(ValueError) as refused:
        module.compute(
            predictions=[spans],
            references=[spans],
            prediction_types=[[["name"]]],
            reference_types=[[["name", "binary_pronoun"]]],
            n_bootstrap=0,
        )
    assert "prediction_types[0]" in str(refused.value) and "response" not in str(refused.value)
    with pytest.raises(ValueError, match=r"compared_types must be a list of mention types, got the string 'name'"):
        load("conll_f1_by_mention_type").compute(
            predictions=[spans],
            references=[spans],
            prediction_types=[[["name", "binary_pronoun"]]],
            reference_types=[[["name", "binary_pronoun"]]],
            compared_types="name",
            n_bootstrap=0,
        )


def test_allowed_values_are_shown_as_they_must_be_typed():
    with pytest.raises(ValueError, match=r"each must be one of \['female', 'male', None\]"):
        load("abc_fpr_ratio").compute(**ABC, occupation_genders=["None"] * 6, n_bootstrap=0)
    with pytest.raises(ValueError, match=r"pair_ids\[0\] is 1.0; each entry must be a non-empty string or an integer$"):
        load("pro_anti_diff").compute(**PAIR, pair_ids=[1.0, 1.0], n_bootstrap=0)


def test_counter_gap_refuses_a_gold_pair_marking_both_candidates():
    references = [[True, True]] + QUADRUPLE["references"][1:]
    with pytest.raises(ValueError, match=r"references\[0\] marks both candidates"):
        load("counter_gap_delta_i").compute(**{**QUADRUPLE, "references": references}, n_bootstrap=0)


def test_counter_gap_gender_message_shows_plain_strings():
    with pytest.raises(ValueError, match=r"has genders \{'original': 'male', 'gender_controlled': 'male', "):
        load("counter_gap_delta_i").compute(**{**QUADRUPLE, "genders": ["male"] * 4}, n_bootstrap=0)
