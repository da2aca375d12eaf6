"""The ``pro_anti_conll_f1`` evaluate module: a thin shell over ``measures.pro_anti_conll_f1.pro_anti_conll_f1``."""

import pytest
from metric_harness import assert_add_batch_equivalent, assert_num_process_equivalent, load

from corefbias.measures import pro_anti_conll_f1

GOLD = [[[0, 3], [10, 12]], [[5, 8]]]
WRONG = [[[0, 3]], [[5, 8], [10, 12]]]
NOTHING = []


def _inputs():
    predictions = [GOLD, GOLD, GOLD, WRONG, GOLD, NOTHING, WRONG, GOLD]
    return {
        "predictions": predictions,
        "references": [GOLD] * 8,
        "conditions": ["pro"] * 4 + ["anti"] * 4,
        "pair_ids": ["p1", "p2", "p3", "p4"] * 2,
    }


def test_the_module_returns_the_core_functions_result():
    inputs = _inputs()
    results = load("pro_anti_conll_f1").compute(**inputs, n_bootstrap=200, seed=4)
    as_tuples = {
        name: [[[tuple(span) for span in cluster] for cluster in document] for document in inputs[name]]
        for name in ("predictions", "references")
    }
    expected = pro_anti_conll_f1.pro_anti_conll_f1(
        as_tuples["references"],
        as_tuples["predictions"],
        inputs["conditions"],
        inputs["pair_ids"],
        n_bootstrap=200,
        seed=4,
    )
    assert results == expected
    # Pro: three perfect documents and one with MUC 0, B³ and CEAFφ4 2/3 (counts summed over documents).
    assert results["pro/muc_recall"] == pytest.approx(3 / 4)
    assert results["pro/bcubed_recall"] == pytest.approx((9 + 2) / 12)
    assert results["anti/ceafe_precision"] == pytest.approx((4 + 4 / 3) / 6)  # the empty response adds nothing


def test_add_batch_and_num_process_give_the_single_call_result(in_repo):
    assert_add_batch_equivalent("pro_anti_conll_f1", _inputs(), [3, 5], n_bootstrap=100, seed=1)
    assert_num_process_equivalent("pro_anti_conll_f1", _inputs(), 4, n_bootstrap=100, seed=1)


def test_bad_input_is_a_clear_error():
    inputs = {**_inputs(), "conditions": ["pro"] * 4 + ["neutral"] * 4}
    with pytest.raises(ValueError, match="conditions"):
        load("pro_anti_conll_f1").compute(**inputs, n_bootstrap=0)


def test_the_module_takes_block_ids(in_repo):
    inputs = {
        **_inputs(),
        "block_ids": ["developer + designer", "developer + designer", "cook + cashier", "cook + cashier"] * 2,
    }
    results = load("pro_anti_conll_f1").compute(**inputs, n_bootstrap=200, seed=4)
    unblocked = load("pro_anti_conll_f1").compute(**_inputs(), n_bootstrap=200, seed=4)
    assert results["diff"] == unblocked["diff"]
    # Two frames are too few blocks for a 95% interval at any number of resamples; four pairs need 8402.
    assert (
        results["diff_ci_low"] is None
        and "resting on 2 blocks needs more blocks" in results["undefined"]["diff_ci_low"]
    )
    assert "resting on 4 blocks needs at least 8402 resamples" in unblocked["undefined"]["diff_ci_low"]
    assert_add_batch_equivalent("pro_anti_conll_f1", inputs, [3, 5], n_bootstrap=100, seed=1)
    split = {**inputs, "block_ids": ["a", "b", "a", "b", "a", "a", "a", "b"]}
    with pytest.raises(ValueError, match="pair 'p2' lies in block 'b' and in block 'a'"):
        load("pro_anti_conll_f1").compute(**split, n_bootstrap=0)
