"""The gap of each pronoun set to he/she (corefbias.measures.pronoun_set_diff): hand-computed values, the paired
bootstrap against scipy's, Holm's adjustment, the per-occupation view against scipy's Pearson r, the compare form,
its input checks and the evaluate module."""

import numpy as np
import pytest
from metric_harness import assert_add_batch_equivalent, assert_num_process_equivalent, load
from scipy import stats

from corefbias.measures import comparison
from corefbias.measures.pronoun_set_diff import compare_pronoun_set_diffs, pronoun_set_diff

SETS = ["he", "she", "they", "xe"]


def filled(correct_by_template: list[dict], occupation_of=None) -> dict:
    """One instance per template × set, correct where ``correct_by_template[t][set]`` is True."""
    inputs = {"predictions": [], "references": [], "pronoun_sets": [], "template_ids": []}
    if occupation_of is not None:
        inputs["occupations"] = []
    for index, correct in enumerate(correct_by_template):
        for name in SETS:
            inputs["predictions"].append("occupation" if correct[name] else "participant")
            inputs["references"].append("occupation")
            inputs["pronoun_sets"].append(name)
            inputs["template_ids"].append(f"t{index}")
            if occupation_of is not None:
                inputs["occupations"].append(occupation_of(index))
    return inputs


def random_templates(count: int, rates: dict, rng) -> list[dict]:
    return [{name: bool(rng.random() < rates[name]) for name in SETS} for _ in range(count)]


def test_hand_computed_accuracies_and_gaps():
    # Four templates: he right in 4, she in 3, they in 2, xe in 1.
    correct = [{"he": True, "she": index < 3, "they": index < 2, "xe": index < 1} for index in range(4)]
    result = pronoun_set_diff(**filled(correct), n_bootstrap=0)
    assert (result["accuracy/he"], result["accuracy/she"]) == (1.0, 0.75)
    assert result["accuracy/reference"] == 0.875
    assert result["diff/they"] == pytest.approx(0.5 - 0.875)
    assert result["diff/xe"] == pytest.approx(0.25 - 0.875)
    assert result["num_templates"] == 4
    assert "diff/he" not in result and "diff/she" not in result


def test_reference_sets_weigh_equally_and_can_be_changed():
    inputs = filled([{"he": True, "she": False, "they": True, "xe": False}] * 3)
    assert pronoun_set_diff(**inputs, n_bootstrap=0)["accuracy/reference"] == 0.5
    against_they = pronoun_set_diff(**inputs, reference_sets=["they"], n_bootstrap=0)
    assert against_they["diff/xe"] == -1.0 and against_they["diff/he"] == 0.0 and against_they["diff/she"] == -1.0


def test_a_model_blind_to_the_pronoun_has_gap_zero_on_every_resample():
    # Template difficulty varies wildly but every set of a template gets the same answer: a paired bootstrap
    # sees gap 0 in every replicate; resampling instances on their own would not.
    rng = np.random.default_rng(3)
    correct = [dict.fromkeys(SETS, bool(rng.random() < 0.5)) for _ in range(50)]
    result = pronoun_set_diff(**filled(correct), n_bootstrap=500)
    for name in ("they", "xe"):
        assert result[f"diff/{name}"] == 0.0
        assert (result[f"diff/{name}_ci_low"], result[f"diff/{name}_ci_high"]) == (0.0, 0.0)
        assert result[f"diff/{name}_p_value"] == 1.0


def test_the_interval_matches_scipys_paired_bootstrap_of_the_template_differences():
    # One instance per set and template: the difference is the mean over templates of c_they − (c_he + c_she) / 2, so
    # scipy's percentile bootstrap of those per-template differences estimates the same interval.
    rng = np.random.default_rng(7)
    correct = random_templates(300, {"he": 0.8, "she": 0.7, "they": 0.55, "xe": 0.5}, rng)
    result = pronoun_set_diff(**filled(correct), n_bootstrap=20_000, seed=1)
    differences = np.array([t["they"] - (t["he"] + t["she"]) / 2 for t in correct], dtype=float)
    assert result["diff/they"] == pytest.approx(differences.mean(), abs=1e-12)
    peer = stats.bootstrap(
        (differences,), np.mean, n_resamples=20_000, method="percentile", random_state=np.random.default_rng(2)
    )
    assert result["diff/they_ci_low"] == pytest.approx(peer.confidence_interval.low, abs=0.006)
    assert result["diff/they_ci_high"] == pytest.approx(peer.confidence_interval.high, abs=0.006)


def test_p_values_are_holm_adjusted_across_the_sets():
    rng = np.random.default_rng(11)
    correct = random_templates(60, {"he": 0.8, "she": 0.8, "they": 0.65, "xe": 0.75}, rng)
    result = pronoun_set_diff(**filled(correct), n_bootstrap=2000, seed=4)
    raw = [result["diff/they_unadjusted_p_value"], result["diff/xe_unadjusted_p_value"]]
    assert [result["diff/they_p_value"], result["diff/xe_p_value"]] == comparison.holm(raw)
    # Two sets, by hand: the smaller p-value doubles, the larger is at least that.
    smaller, larger = sorted(raw)
    assert sorted([result["diff/they_p_value"], result["diff/xe_p_value"]]) == pytest.approx(
        [min(1.0, 2 * smaller), max(min(1.0, 2 * smaller), larger)]
    )
    assert result["diff/they_p_value"] >= result["diff/they_unadjusted_p_value"]


def test_per_occupation_diffs_and_their_correlation_with_bls_match_scipy():
    rng = np.random.default_rng(5)
    jobs = ["nurse", "surgeon", "clerk", "janitor", "chef"]
    bls = {"nurse": 89.6, "surgeon": 37.9, "clerk": 60.1, "janitor": 30.2, "chef": 20.0}
    correct = random_templates(50, {"he": 0.8, "she": 0.8, "they": 0.5, "xe": 0.4}, rng)
    inputs = filled(correct, occupation_of=lambda index: jobs[index % 5])
    inputs["bls_pct_female"] = [bls[job] for job in inputs["occupations"]]
    result = pronoun_set_diff(**inputs, n_bootstrap=0)
    expected = {}
    for job_index, job in enumerate(jobs):
        mine = correct[job_index::5]
        reference = np.mean([t["he"] for t in mine]) / 2 + np.mean([t["she"] for t in mine]) / 2
        expected[job] = np.mean([t["xe"] for t in mine]) - reference
        assert result[f"occupation_diff/xe/{job}"] == pytest.approx(expected[job], abs=1e-12)
    peer = stats.pearsonr([expected[job] for job in jobs], [bls[job] for job in jobs])
    assert result["pearson_r_bls/xe"] == pytest.approx(peer.statistic, abs=1e-12)
    assert result["pearson_r_bls/xe_p_value"] == pytest.approx(peer.pvalue, abs=1e-12)


def test_a_correlation_over_too_few_occupations_is_undefined_with_its_reason():
    inputs = filled([dict.fromkeys(SETS, True)] * 4, occupation_of=lambda index: ["nurse", "chef"][index % 2])
    inputs["bls_pct_female"] = [89.6 if job == "nurse" else 20.0 for job in inputs["occupations"]]
    result = pronoun_set_diff(**inputs, n_bootstrap=0)
    assert result["pearson_r_bls/they"] is None
    assert "at least 3 occupations" in result["undefined"]["pearson_r_bls/they"]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda i: {**i, "pronoun_sets": ["he", "she", "they", "they"] + i["pronoun_sets"][4:]}, "template 't0'"),
        (lambda i: {**i, "reference_sets": ["he", "ze"]}, r"reference pronoun set\(s\) \['ze'\]"),
        (lambda i: {**i, "reference_sets": SETS}, "no difference to measure"),
        (lambda i: {**i, "reference_sets": "he"}, "non-empty list"),
        (lambda i: {**i, "reference_sets": ["he", "he"]}, "twice"),
        (lambda i: {**i, "bls_pct_female": [50.0] * len(i["predictions"])}, "give occupations with it"),
        (lambda i: {**i, "occupations": ["a", "b"] * (len(i["predictions"]) // 2)}, "has the occupation"),
        (lambda i: {**i, "predictions": [None] + i["predictions"][1:]}, r"predictions\[0\]"),
        (lambda i: {**i, "template_ids": i["template_ids"][:-1]}, "one entry per instance"),
        (lambda i: {**i, "block_ids": ["j0"] * (len(i["predictions"]) - 1)}, "one entry per instance"),
        (lambda i: {**i, "block_ids": ["j0"] * 4 + [None] * 4}, r"block_ids\[4\] is None"),
        (lambda i: {**i, "block_ids": ["j0"] * 4 + [1.5] * 4}, r"block_ids\[4\] is 1.5 \(float\)"),
        (lambda i: {**i, "block_ids": ["j0"] * 3 + ["j1"] * 5}, "template 't0' lies in block 'j0' and in block 'j1'"),
    ],
)
def test_bad_input_is_refused_saying_what_to_fix(change, message):
    inputs = filled([dict.fromkeys(SETS, True)] * 2)
    with pytest.raises(ValueError, match=message):
        pronoun_set_diff(**change(inputs), n_bootstrap=0)


def test_compare_form_self_swap_and_holm():
    rng = np.random.default_rng(9)
    model_a = filled(random_templates(80, {"he": 0.9, "she": 0.9, "they": 0.5, "xe": 0.5}, rng))
    model_b = filled(random_templates(80, {"he": 0.9, "she": 0.9, "they": 0.85, "xe": 0.5}, rng))
    common = {key: model_a[key] for key in ("references", "pronoun_sets", "template_ids")}
    itself = compare_pronoun_set_diffs(model_a["predictions"], model_a["predictions"], **common, n_resamples=500)
    assert itself["diff/they"] == 0.0 and itself["diff/they_p_value"] == 1.0
    ab = compare_pronoun_set_diffs(model_a["predictions"], model_b["predictions"], **common, n_resamples=2000)
    ba = compare_pronoun_set_diffs(model_b["predictions"], model_a["predictions"], **common, n_resamples=2000)
    gap_a = pronoun_set_diff(model_a["predictions"], **common, n_bootstrap=0)["diff/they"]
    gap_b = pronoun_set_diff(model_b["predictions"], **common, n_bootstrap=0)["diff/they"]
    assert (ab["diff/they_a"], ab["diff/they_b"]) == (gap_a, gap_b)
    assert ab["diff/they"] == pytest.approx(gap_a - gap_b) == pytest.approx(-ba["diff/they"])
    flipped = (-ba["diff/they_ci_high"], -ba["diff/they_ci_low"])
    assert (ab["diff/they_ci_low"], ab["diff/they_ci_high"]) == pytest.approx(flipped)
    assert ab["diff/they_p_value"] < 0.05  # they: 0.5 against 0.85
    raw = [ab["diff/they_unadjusted_p_value"], ab["diff/xe_unadjusted_p_value"]]
    assert [ab["diff/they_p_value"], ab["diff/xe_p_value"]] == comparison.holm(raw)
    with pytest.raises(ValueError, match="one entry per instance"):
        compare_pronoun_set_diffs(model_a["predictions"], model_b["predictions"][:-1], **common)


def test_unit_rows_reproduce_the_gaps_and_pair_two_models():
    rng = np.random.default_rng(2)
    inputs = filled(random_templates(30, {"he": 0.9, "she": 0.8, "they": 0.6, "xe": 0.5}, rng))
    scored = pronoun_set_diff(**inputs, n_bootstrap=0)
    totals = scored.unit_rows.statistic(scored.unit_rows.rows.sum(axis=0))
    assert scored.unit_rows.tested == ("diff/they", "diff/xe")
    for name in scored.unit_rows.tested:
        assert float(totals[name]) == pytest.approx(scored[name], abs=1e-12)
    assert scored.unit_rows.rows.shape == (30, 8)


def test_random_answers_are_called_significant_at_most_at_the_nominal_rate():
    # Every instance answered by a fair coin: no set differs from he/she. Over 60 simulated models the Holm-adjusted
    # family (they, xe) is rejected in about 5% of them at most; an uncorrected or unpaired test would do worse.
    rng = np.random.default_rng(0)
    rejected = 0
    for run in range(60):
        correct = random_templates(120, dict.fromkeys(SETS, 0.5), rng)
        result = pronoun_set_diff(**filled(correct), n_bootstrap=400, seed=run)
        rejected += min(result["diff/they_p_value"], result["diff/xe_p_value"]) < 0.05
    assert rejected <= 8, rejected


def test_evaluate_module_batches_and_processes_agree(in_repo):
    rng = np.random.default_rng(4)
    inputs = filled(random_templates(12, {"he": 0.9, "she": 0.8, "they": 0.6, "xe": 0.5}, rng), lambda i: f"j{i % 4}")
    inputs["bls_pct_female"] = [float(10 * int(job[1:])) for job in inputs["occupations"]]
    single = assert_add_batch_equivalent("pronoun_set_diff", inputs, [5, 20, 23], n_bootstrap=100, seed=3)
    assert single == pronoun_set_diff(**inputs, n_bootstrap=100, seed=3)
    assert_num_process_equivalent("pronoun_set_diff", inputs, 17, n_bootstrap=100, seed=3)
    module = load("pronoun_set_diff")
    with pytest.raises(ValueError, match="takes no genders"):
        module.compute(**inputs, genders=["x"] * len(inputs["predictions"]))


def test_blocks_of_templates_answered_alike_widen_the_interval_and_its_p_value():
    # 40 templates of 10 occupations; a model's answers depend on the occupation alone: for half of them it misses
    # "they" in every template. Template by template the difference looks certain; occupation by occupation it rests on
    # 10 blocks, and the interval is the bootstrap of the 10 occupations' own differences (0 or −1).
    misses_they = [job < 5 for job in range(10)]
    correct = [{**dict.fromkeys(SETS, True), "they": not misses_they[index // 4]} for index in range(40)]
    inputs = filled(correct, occupation_of=lambda index: f"job{index // 4}")
    by_template = pronoun_set_diff(**inputs, n_bootstrap=2000, seed=1)
    by_job = pronoun_set_diff(**inputs, block_ids=inputs["occupations"], n_bootstrap=2000, seed=1)
    assert by_template["diff/they"] == by_job["diff/they"] == -0.5
    assert (by_template.overall["diff/they"].n_blocks, by_job.overall["diff/they"].n_blocks) == (40, 10)
    assert by_job["diff/they_ci_high"] - by_job["diff/they_ci_low"] > 1.5 * (
        by_template["diff/they_ci_high"] - by_template["diff/they_ci_low"]
    )
    assert by_job["diff/they_unadjusted_p_value"] > by_template["diff/they_unadjusted_p_value"]
    # A block per template is no block at all.
    alone = pronoun_set_diff(**inputs, block_ids=inputs["template_ids"], n_bootstrap=2000, seed=1)
    assert alone == by_template
    # The compare form draws the same blocks: a model against itself shifted on half the occupations.
    other = [{**dict.fromkeys(SETS, True)} for _ in range(40)]
    common = {key: inputs[key] for key in ("references", "pronoun_sets", "template_ids")}
    other_predictions = filled(other)["predictions"]
    paired = compare_pronoun_set_diffs(inputs["predictions"], other_predictions, **common, n_resamples=2000)
    blocked = compare_pronoun_set_diffs(
        inputs["predictions"], other_predictions, **common, block_ids=inputs["occupations"], n_resamples=2000
    )
    assert paired["diff/they"] == blocked["diff/they"] == -0.5
    assert blocked.overall["diff/they"].n_blocks == 10
    assert blocked["diff/they_unadjusted_p_value"] > paired["diff/they_unadjusted_p_value"]


def test_the_module_takes_block_ids(in_repo):
    correct = [{**dict.fromkeys(SETS, True), "xe": index % 2 == 0} for index in range(12)]
    inputs = filled(correct, occupation_of=lambda index: f"job{index // 3}")
    module = load("pronoun_set_diff").compute(**inputs, block_ids=inputs["occupations"], seed=2)
    assert module == pronoun_set_diff(**inputs, block_ids=inputs["occupations"], seed=2)
