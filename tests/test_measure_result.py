"""Every measure returns one ``MeasureResult``: its scores by where they were measured, readable as the flat dict.

The flat view is what the measures returned before (the reproduction tests read it); the structure adds groups and
conditions as keys of their own, so that a label can never overwrite another score, and ``results.json`` keeps it.
"""

import json

import pytest
from metric_harness import load
from test_unit_rows import CASES

from corefbias.measures import abc_fpr_ratio, gap_w_bias, pro_anti_conll_f1, pro_anti_diff, winogender_bias
from corefbias.measures.result import SIGNIFICANCE_SUFFIXES, Cell, Estimate, MeasureResult, measure_result
from corefbias.measures.stored_results import from_flat, from_json

# Two groups of four aligned pairs: in 'female' the model resolves both pro and one anti pronoun (diff 0.5), in
# 'female_p_value' both pro and no anti one (diff 1.0). The second group's name ends like the first group's p-value.
COLLIDING = {
    "predictions": [True, True, True, True, True, False, False, False],
    "references": [True] * 8,
    "conditions": ["pro"] * 4 + ["anti"] * 4,
    "pair_ids": ["p1", "p2", "p3", "p4"] * 2,
    "groups": ["female", "female", "female_p_value", "female_p_value"] * 2,
}


def test_a_group_named_like_another_groups_p_value_keeps_its_score_and_the_flat_view_refuses_it():
    result = pro_anti_diff.pro_anti_diff(**COLLIDING, n_bootstrap=50)
    assert result.by_group["female"]["diff"].value == 0.5
    assert result.by_group["female_p_value"]["diff"].value == 1.0  # not the p-value of group 'female'
    assert 0 < result.by_group["female"]["diff"].p_value <= 1
    with pytest.raises(ValueError) as refused:
        result["diff"]
    message = str(refused.value)
    assert "'diff/female_p_value'" in message and "rename group 'female_p_value'" in message
    assert "the p-value of diff in group 'female'" in message and "by_group" in message
    # results.json keeps both, under the structure.
    section = json.loads(json.dumps(result.to_json()))
    assert list(section) == ["measure_result"]
    again = from_json(section)
    assert again.by_group["female_p_value"]["diff"].value == 1.0
    assert again.by_group["female"]["diff"].p_value == result.by_group["female"]["diff"].p_value


def test_the_evaluate_module_refuses_colliding_labels_with_the_same_message():
    with pytest.raises(ValueError, match="rename group 'female_p_value'"):
        load("pro_anti_diff").compute(**COLLIDING, n_bootstrap=10)


@pytest.mark.parametrize("case", list(CASES))
def test_the_flat_view_the_json_and_the_structure_hold_the_same_scores(case):
    function, inputs, options = CASES[case]
    result = function(**inputs(), **options, n_bootstrap=20, seed=1)
    flat = dict(result)
    # Every estimate is in the flat view under its key, with its reported significance and reasons.
    for _, _, estimate in result.estimates():
        assert flat[estimate.key] == estimate.value
        for name in estimate.reported:
            assert flat[f"{estimate.key}_{name}"] == getattr(estimate, name)
        assert {key: flat["undefined"][key] for key in estimate.reasons()} == estimate.reasons()
    # results.json gives the same result back, and a flat dict read back gives the same flat view.
    stored = json.loads(json.dumps(result.to_json()))
    assert from_json(stored) == result and stored == result
    assert {key: value for key, value in stored.items() if key != "measure_result"} == flat
    assert dict(from_flat(flat)) == flat


def test_groups_conditions_and_classes_are_keys_of_their_own():
    counted = pro_anti_diff.referent_class_f1(
        ["female", "male", None, "female"], ["female", "female", "male", "male"], ["pro", "pro", "anti", "anti"]
    )
    # anti: one counted sentence, referent male, predicted female: F1 of both classes 0.
    assert counted.by_condition_and_group["anti"]["male"]["f1"].key == "anti/male"
    assert counted.by_condition_and_group["anti"]["male"]["support"].value == 1
    assert counted.by_condition_and_group["pro"]["female"]["f1"].value == pytest.approx(2 / 3)
    assert set(counted.overall) == {"num_pro", "num_unlinked_pro", "num_anti", "num_unlinked_anti"}
    with pytest.raises(ValueError, match="no single bias score"):
        _ = counted.value

    conll = pro_anti_conll_f1.pro_anti_conll_f1(**CASES["pro_anti_conll_f1"][1](), n_bootstrap=0)
    assert set(conll.by_condition) == {"pro", "anti"}
    assert conll.by_condition["pro"]["muc_recall"].key == "pro/muc_recall"
    assert len(conll.by_condition["anti"]) == 9  # recall, precision and F1 of MUC, B³ and CEAFφ4
    assert conll.overall["pro"].value == conll["pro"] and conll.primary == "diff"

    abc = abc_fpr_ratio.abc_fpr_ratio(**CASES["fpr_ratio"][1](), n_bootstrap=0)
    assert set(abc.by_group) == {"female_occupations", "male_occupations"}
    assert abc.by_group["male_occupations"]["log2_fpr_ratio"].key == "log2_fpr_ratio/male_occupations"

    wino = winogender_bias.winogender_bias(**CASES["winogender_bias"][1](), n_bootstrap=0)
    assert set(wino.by_group) == {"a", "b", "c"}
    assert wino.by_group["c"]["preference"].value == wino["preference/c"]
    # Pearson's r carries its own test's p-value and Fisher's interval, with the bootstrap off too.
    r = wino.overall["pearson_r_bls"]
    assert r.reported == ("p_value", "ci_low", "ci_high")
    assert r.p_value == wino["pearson_r_bls_p_value"] and r.ci == (
        wino["pearson_r_bls_ci_low"],
        wino["pearson_r_bls_ci_high"],
    )
    assert r.ci == (-1.0, 1.0)  # three occupations: Fisher's z has no degree of freedom left for its error

    weighted = gap_w_bias.gap_w_bias(**CASES["w_bias"][1](), **CASES["w_bias"][2], return_weights=True, n_bootstrap=0)
    assert weighted.extras["variant"] == "given" and len(weighted.extras["weights"]) == 10
    assert list(weighted)[-3:] == ["undefined", "variant", "weights"]


def test_difference_between_groups_and_to_overall_as_fairlearn():
    result = pro_anti_diff.pro_anti_diff(
        [True, True, True, False, True, False, False, True],
        [True] * 8,
        ["pro"] * 4 + ["anti"] * 4,
        groups=["female", "female", "male", "male"] * 2,
        n_bootstrap=0,
    )
    # diff/female = 1 − 0.5, diff/male = 0.5 − 0.5, diff = 0.25.
    assert result.difference().value == 0.5
    assert result.difference("pro").value == 0.5
    assert result.difference(method="to_overall").value == 0.25
    with pytest.raises(ValueError, match="measures 'num_pro' in no group"):
        result.difference("num_pro")
    with pytest.raises(ValueError, match="unknown method"):
        result.difference(method="ratio")
    one_group = pro_anti_diff.pro_anti_diff(
        [True, False], [True, True], ["pro", "anti"], groups=["x", "x"], n_bootstrap=0
    )
    assert one_group.difference().undefined == "diff is measured in one group only ('x')"
    # A group without a defined score leaves the difference undefined, saying why.
    f1 = pro_anti_diff.pro_anti_diff(
        [False, False, True, True],
        [True] * 4,
        ["pro", "anti"] * 2,
        groups=["x", "x", "y", "y"],
        score="f1",
        unlinked="drop",
        n_bootstrap=0,
    )
    assert f1.by_group["x"]["log2_ratio"].value is None
    assert f1.difference("log2_ratio").undefined.startswith("log2_ratio/x is undefined: the pro or anti f1")


def test_the_primary_score_and_its_significance():
    result = pro_anti_diff.pro_anti_diff(**{**COLLIDING, "groups": None}, n_bootstrap=100, seed=2)
    assert result.primary == "diff" and result.value == result["diff"] == 0.75
    assert result.ci == (result["diff_ci_low"], result["diff_ci_high"]) and result.p_value == result["diff_p_value"]
    off = pro_anti_diff.pro_anti_diff(**{**COLLIDING, "groups": None}, n_bootstrap=0)
    assert off.undefined == {
        f"diff_{name}": "significance was not computed (n_bootstrap=0)" for name in SIGNIFICANCE_SUFFIXES
    } | {f"log2_ratio_{name}": "significance was not computed (n_bootstrap=0)" for name in SIGNIFICANCE_SUFFIXES}


def test_an_estimate_is_found_where_it_was_measured_or_the_message_says_what_is_there():
    result = pro_anti_diff.pro_anti_diff(**{**COLLIDING, "groups": ["a", "a", "b", "b"] * 2}, n_bootstrap=0)
    assert result.estimate("diff", group="b").key == "diff/b"
    with pytest.raises(KeyError, match=r"no score 'dif' in group 'b'; it has \['anti', 'average', 'diff'"):
        result.estimate("dif", group="b")


def test_blanked_keeps_counts_and_extras_and_undefines_the_rest():
    weighted = gap_w_bias.gap_w_bias(**CASES["w_bias"][1](), **CASES["w_bias"][2], n_bootstrap=10)
    blank = weighted.blanked("no readable answer")
    assert blank["w_bias"] is None and blank["w_bias_p_value"] is None and blank["max_weight"] is None
    assert blank["num_weighted_examples"] == weighted["num_weighted_examples"] and blank["variant"] == "given"
    assert blank["undefined"]["w_bias_ci_low"] == "no readable answer"
    assert "num_weighted_examples" not in blank["undefined"]


def test_a_result_refuses_a_score_twice_in_one_cell_and_an_unknown_primary():
    twice = [(Cell(), "diff", Estimate("diff", 0.1)), (Cell(), "diff", Estimate("diff#2", 0.2))]
    with pytest.raises(ValueError, match="the score 'diff' is given twice overall"):
        MeasureResult("toy", twice)
    with pytest.raises(ValueError, match="primary score 'ratio' is not one of its overall scores"):
        measure_result("toy", {"diff": 0.1}, primary="ratio")


def test_a_non_finite_score_is_none_with_its_reason_and_counts_stay_integers():
    result = measure_result("toy", {"ratio": float("inf"), "other": float("nan"), "num": 3}, {"ratio": "0 / 0"})
    assert dict(result) == {
        "ratio": None,
        "other": None,
        "num": 3,
        "undefined": {"ratio": "0 / 0", "other": "other has a zero denominator for these inputs"},
    }
    assert isinstance(result["num"], int)


def test_a_flat_section_whose_reasons_name_no_score_is_refused():
    with pytest.raises(ValueError, match="undefined names 'typo'"):
        from_flat({"diff": None, "undefined": {"typo": "?"}})
