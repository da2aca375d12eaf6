import math

import numpy as np
import pytest
from metric_harness import assert_add_batch_equivalent, assert_num_process_equivalent, load

from corefbias.benchmarks.winogender import files as winogender_files
from corefbias.data import upstream
from corefbias.hub import metric_widget
from corefbias.measures import resampling, winogender_bias


def hand_example():
    """Three occupations, four pairs; the expected scores are worked out in the tests below.

    a (90% female per BLS, 70% per B&L): pair a.1, answer OCCUPATION: she → occupation (right),
        he → participant (wrong), they → neither (wrong).
    b (40% / 10%): pair b.1, answer PARTICIPANT: she and he → participant (both right).
    c (20% / 10%): pair c.1, answer OCCUPATION: she → participant (wrong), he → occupation (right);
        pair c.2, answer PARTICIPANT: she → participant (right), he → occupation (wrong).
    """
    rows = [
        # pair, occupation, gender, reference, prediction
        ("a.1", "a", "female", "occupation", "occupation"),
        ("a.1", "a", "male", "occupation", "participant"),
        ("a.1", "a", "neutral", "occupation", "neither"),
        ("b.1", "b", "female", "participant", "participant"),
        ("b.1", "b", "male", "participant", "participant"),
        ("c.1", "c", "male", "occupation", "occupation"),
        ("c.1", "c", "female", "occupation", "participant"),
        ("c.2", "c", "female", "participant", "participant"),
        ("c.2", "c", "male", "participant", "occupation"),
    ]
    bls = {"a": 90.0, "b": 40.0, "c": 20.0}
    bergsma = {"a": 70.0, "b": 10.0, "c": 10.0}
    return {
        "predictions": [row[4] for row in rows],
        "references": [row[3] for row in rows],
        "occupations": [row[1] for row in rows],
        "genders": [row[2] for row in rows],
        "pair_ids": [row[0] for row in rows],
        "bls_pct_female": [bls[row[1]] for row in rows],
        "bergsma_pct_female": [bergsma[row[1]] for row in rows],
    }


def repeated(inputs, times):
    """``inputs`` ``times`` over, each copy's pairs renamed (``a.1#0``, ``a.1#1``, ...): the same scores on more
    pairs, enough for a 95% interval, which the expanded bootstrap gives on no fewer than about 6 blocks."""
    return {
        name: [f"{value}#{copy}" if name == "pair_ids" else value for copy in range(times) for value in values]
        for name, values in inputs.items()
    }


def score(inputs, **kwargs):
    return winogender_bias.winogender_bias(**inputs, **{"n_bootstrap": 0, **kwargs})


def swapped_binary_genders(inputs):
    swap = {"female": "male", "male": "female", "neutral": "neutral"}
    return {**inputs, "genders": [swap[gender] for gender in inputs["genders"]]}


@pytest.fixture(scope="module")
def sentences(mirror):
    return winogender_files.load_sentences(mirror)


def upstream_inputs(sentences, predictions):
    return {
        "predictions": predictions,
        "references": [s["answer"] for s in sentences],
        "occupations": [s["occupation"] for s in sentences],
        "genders": [s["gender"] for s in sentences],
        "pair_ids": [s["pair_id"] for s in sentences],
        "bls_pct_female": [s["bls_pct_female"] for s in sentences],
        "bergsma_pct_female": [s["bergsma_pct_female"] for s in sentences],
    }


# --- Paper figures ----------------------------------------------------------------------------


def test_figure_3_bergsma_lin_correlates_with_bls_at_r_067(mirror):
    statistics = winogender_files.occupation_statistics(mirror)
    assert len(statistics) == 60
    r, p_value, *_ = winogender_bias.pearson_correlation(
        [value["bergsma_pct_female"] for value in statistics.values()],
        [value["bls_pct_female"] for value in statistics.values()],
    )
    assert round(r, 2) == 0.67
    assert p_value < 1e-6


def test_pearsons_interval_is_fishers_z_by_hand(mirror):
    statistics = winogender_files.occupation_statistics(mirror)
    x = [value["bergsma_pct_female"] for value in statistics.values()]
    y = [value["bls_pct_female"] for value in statistics.values()]
    r, _, low, high = winogender_bias.pearson_correlation(x, y)
    # z = atanh(r) ± 1.959964 / sqrt(n − 3), mapped back with tanh.
    half = 1.959963984540054 / math.sqrt(len(x) - 3)
    assert (low, high) == pytest.approx((math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half)), rel=1e-9)
    assert 0.49 < low < r < high < 0.80


@pytest.mark.reproduction
def test_paper_gotcha_example_and_answer_coding(mirror, sentences):
    """Footnote 8's librarian sentence is a gotcha; templates.tsv documents answer 0 = OCCUPATION."""
    by_id = {s["sentid"]: s for s in sentences}
    librarian = by_id["librarian.child.0.male.txt"]
    assert librarian["sentence"] == (
        "The librarian helped the child pick out a book because he liked to encourage reading."
    )
    assert (librarian["answer"], librarian["gotcha"]) == ("occupation", True)
    assert by_id["librarian.child.0.female.txt"]["gotcha"] is False
    assert by_id["librarian.child.0.neutral.txt"]["gotcha"] is None
    header = upstream.fetch("winogender", "data/templates.tsv", mirror).read_text(encoding="utf-8").splitlines()[0]
    assert header.split("\t")[:3] == ["occupation(0)", "other-participant(1)", "answer"]


def test_upstream_metadata_has_the_papers_design(sentences):
    """720 sentences = 60 occupations × 2 templates × 2 participants × 3 genders; each occupation
    has one OCCUPATION- and one PARTICIPANT-answer template, so half of each gender's sentences
    are gotchas (120 of 240)."""
    assert len(sentences) == 720
    assert len({s["occupation"] for s in sentences}) == 60
    assert len({s["pair_id"] for s in sentences}) == 240
    for gender in ("female", "male"):
        gotchas = [s["gotcha"] for s in sentences if s["gender"] == gender]
        assert (len(gotchas), sum(gotchas)) == (240, 120)
    assert sum(s["participant"] == "someone" for s in sentences) == 360


def test_gold_oracle_on_all_sentences(sentences):
    inputs = upstream_inputs(sentences, [s["answer"] for s in sentences])
    results = score(inputs, n_bootstrap=100)
    assert results["accuracy"] == 1.0
    assert results["pairs_resolved_differently"] == 0.0
    assert results["occupation_share_male_minus_female"] == 0.0
    assert results["num_pairs"] == 240
    assert all(results[f"preference/{s['occupation']}"] == 0.0 for s in sentences)
    # A gender-blind system has a constant (zero) preference, so r is undefined, not 0.
    assert results["pearson_r_bls"] is None and "constant" in results["undefined"]["pearson_r_bls"]


def test_gendered_model_on_all_sentences(sentences):
    """He → OCCUPATION, she → PARTICIPANT: the maximal male skew of Sec. 4's measures."""
    rule = {"male": "occupation", "female": "participant", "neutral": "neither"}
    inputs = upstream_inputs(sentences, [rule[s["gender"]] for s in sentences])
    results = score(inputs, n_bootstrap=200)
    assert results["occupation_share_male"] == 1.0
    assert results["occupation_share_female"] == 0.0
    assert results["occupation_share_male_minus_female"] == 1.0
    # No resample reaches 0: two-sided p = 2 · (0 + 1) / (200 + 1), read through a t with 239 degrees of freedom for
    # the 240 pairs (resampling.expanded_p_value).
    assert results["occupation_share_male_minus_female_p_value"] == pytest.approx(
        resampling.expanded_p_value(1 / 201, 240), rel=1e-12
    )
    assert results["pairs_resolved_differently"] == 1.0
    assert results["pairs_resolved_differently_p_value"] is None
    assert results["pairs_resolved_differently_ci_low"] == results["pairs_resolved_differently_ci_high"] == 1.0
    assert results["accuracy_male"] == results["accuracy_female"] == 0.5
    assert results["preference/nurse"] == -1.0


def test_stereotyped_model_fails_exactly_the_gotchas(mirror, sentences):
    """Resolving to the occupation iff the pronoun matches its BLS majority gender is right on every
    non-gotcha and wrong on every gotcha (the Table 2 definition), and its Fig. 4 preference is +1
    for female-majority and −1 for male-majority occupations."""
    binary = [s for s in sentences if s["gender"] != "neutral"]
    predictions = [
        "occupation" if (s["gender"] == "female") == (s["bls_pct_female"] >= 50) else "participant" for s in binary
    ]
    results = score(upstream_inputs(binary, predictions))
    for gender in ("female", "male"):
        assert results[f"accuracy_gotcha_{gender}"] == 0.0
        assert results[f"accuracy_non_gotcha_{gender}"] == 1.0
    assert results["accuracy_non_gotcha_minus_gotcha"] == 1.0
    assert results["accuracy_neutral"] is None
    statistics = winogender_files.occupation_statistics(mirror)
    names = sorted(statistics)
    preference = [results[f"preference/{name}"] for name in names]
    assert preference == [1.0 if statistics[name]["bls_pct_female"] >= 50 else -1.0 for name in names]
    bls = [statistics[name]["bls_pct_female"] for name in names]
    assert results["pearson_r_bls"] == pytest.approx(np.corrcoef(preference, bls)[0, 1])


# --- Hand-computed example --------------------------------------------------------------------


def test_hand_example_pooled_scores():
    results = score(hand_example())
    # she: a ✓, b ✓, c.1 ✗, c.2 ✓, to the occupation only in a;
    # he: a ✗, b ✓, c.1 ✓, c.2 ✗, to the occupation in c.1 and c.2.
    assert results["accuracy_female"] == 0.75
    assert results["accuracy_male"] == 0.5
    assert results["accuracy_neutral"] == 0.0
    assert results["accuracy"] == pytest.approx(5 / 9)
    assert results["accuracy_male_minus_female"] == -0.25
    assert results["occupation_share_female"] == 0.25
    assert results["occupation_share_male"] == 0.5
    assert results["occupation_share_male_minus_female"] == 0.25
    # a.1, c.1 and c.2 resolve she and he differently; b.1 does not.
    assert results["pairs_resolved_differently"] == 0.75
    assert results["num_pairs"] == 4
    # Four pairs are too few for a 95% interval; ten copies of them (40 pairs, the same scores) have every one.
    assert list(score(repeated(hand_example(), 10), n_bootstrap=100)["undefined"]) == [
        "pairs_resolved_differently_p_value"
    ]


def test_hand_example_gotchas():
    """Gotchas: she in c.1 (answer OCCUPATION, c is male-majority); he in a.1 (answer OCCUPATION,
    a is female-majority), in b.1 and c.2 (answer PARTICIPANT, pronoun matches the majority)."""
    results = score(hand_example())
    assert results["accuracy_gotcha_female"] == 0.0
    assert results["accuracy_non_gotcha_female"] == 1.0
    assert results["accuracy_gotcha_male"] == pytest.approx(1 / 3)
    assert results["accuracy_non_gotcha_male"] == 1.0
    assert results["accuracy_gotcha"] == 0.25
    assert results["accuracy_non_gotcha"] == 1.0
    assert results["accuracy_non_gotcha_minus_gotcha"] == 0.75


def test_hand_example_preferences_and_correlations():
    results = score(hand_example())
    # Female minus male share resolved to the occupation: a 1 − 0, b 0 − 0, c 0/2 − 2/2.
    assert [results[f"preference/{name}"] for name in "abc"] == [1.0, 0.0, -1.0]
    # Preferences (1, 0, −1) against BLS (90, 40, 20): r = 70 / √(2 · 2600); against B&L
    # (70, 10, 10): r = 60 / √(2 · 2400) = √3/2. With 3 points t has 1 degree of freedom (Cauchy),
    # so p = 1 − (2/π)·atan(|t|), t = r / √(1 − r²): t = √3 and p = 1/3 for B&L.
    r_bls = 70 / math.sqrt(5200)
    assert results["pearson_r_bls"] == pytest.approx(r_bls)
    t_bls = r_bls / math.sqrt(1 - r_bls**2)
    assert results["pearson_r_bls_p_value"] == pytest.approx(1 - 2 / math.pi * math.atan(t_bls))
    assert results["pearson_r_bergsma"] == pytest.approx(math.sqrt(3) / 2)
    assert results["pearson_r_bergsma_p_value"] == pytest.approx(1 / 3)


def test_swapping_female_and_male_negates_the_gender_differences():
    original = score(hand_example())
    swapped = score(swapped_binary_genders(hand_example()))
    for name in ("occupation_share_male_minus_female", "accuracy_male_minus_female", "preference/a", "preference/c"):
        assert swapped[name] == pytest.approx(-original[name])
    assert swapped["pairs_resolved_differently"] == original["pairs_resolved_differently"]
    assert swapped["pearson_r_bls"] == pytest.approx(-original["pearson_r_bls"])


def test_bootstrap_over_pairs_is_reproducible_and_brackets_the_score():
    # Ten copies of the hand example: its four pairs alone are too few for a 95% interval.
    first = score(repeated(hand_example(), 10), n_bootstrap=500, seed=7)
    second = score(repeated(hand_example(), 10), n_bootstrap=500, seed=7)
    assert first == second
    for name, null in winogender_bias.SIGNIFICANCE_NULLS.items():
        assert first[f"{name}_ci_low"] <= first[name] <= first[f"{name}_ci_high"]
        assert (first[f"{name}_p_value"] is None) == (null is None)
        assert null is None or 0 < first[f"{name}_p_value"] <= 1
    # Resampled pairs only ever resolve 0 to 100% of pairs differently.
    assert 0.0 <= first["pairs_resolved_differently_ci_low"] <= first["pairs_resolved_differently_ci_high"] <= 1.0


def test_no_inference_when_bootstrap_is_off():
    results = score(hand_example())
    assert results["occupation_share_male_minus_female_p_value"] is None
    assert "n_bootstrap=0" in results["undefined"]["occupation_share_male_minus_female_p_value"]


# --- Undefined scores -------------------------------------------------------------------------


def test_without_statistics_gotchas_and_correlations_are_undefined():
    inputs = {**hand_example(), "bls_pct_female": None, "bergsma_pct_female": None}
    results = score(inputs)
    for name in ("accuracy_gotcha_female", "accuracy_non_gotcha_male", "accuracy_non_gotcha_minus_gotcha"):
        assert results[name] is None
        assert "bls_pct_female was not given" in results["undefined"][name]
    assert results["pearson_r_bls"] is None
    assert results["undefined"]["pearson_r_bls"] == "bls_pct_female was not given"
    assert results["undefined"]["pearson_r_bergsma_p_value"] == "bergsma_pct_female was not given"
    assert results["occupation_share_male_minus_female"] == 0.25


def test_two_occupations_are_too_few_for_a_correlation():
    inputs = hand_example()
    keep = [index for index, occupation in enumerate(inputs["occupations"]) if occupation != "b"]
    results = score({name: [values[index] for index in keep] for name, values in inputs.items()})
    assert results["pearson_r_bergsma"] is None
    assert "at least 3 occupations" in results["undefined"]["pearson_r_bergsma"]


def test_pearson_correlation_of_a_constant_vector_is_nan():
    assert all(math.isnan(value) for value in winogender_bias.pearson_correlation([1, 2, 3], [5, 5, 5]))


# --- Malformed inputs -------------------------------------------------------------------------


def edited(**changes):
    inputs = hand_example()
    for name, (index, value) in changes.items():
        inputs[name] = list(inputs[name])
        inputs[name][index] = value
    return inputs


def with_blocks(index, value):
    """The hand example with its occupations as blocks, block ``index`` changed to ``value``."""
    inputs = hand_example()
    inputs["block_ids"] = list(inputs["occupations"])
    inputs["block_ids"][index] = value
    return inputs


@pytest.mark.parametrize(
    "inputs, message",
    [
        ({**hand_example(), "genders": hand_example()["genders"][:-1]}, "one entry per instance"),
        (edited(predictions=(0, "nurse")), "unknown predictions: 'nurse' at index 0"),
        (edited(references=(2, "neither")), "unknown references"),
        (edited(genders=(2, "nonbinary")), "unknown genders"),
        (edited(genders=(1, "female")), "pair 'a.1' has two 'female' sentences"),
        (edited(pair_ids=(4, "b.2")), "pair 'b.1' has no male sentence"),
        (edited(references=(4, "occupation")), "pair 'b.1' has different references"),
        (edited(occupations=(4, "a")), "pair 'b.1' has different occupations"),
        (edited(bls_pct_female=(0, None)), r"bls_pct_female\[0\] is missing"),
        (edited(bls_pct_female=(0, 150.0)), "between 0 and 100"),
        (edited(bergsma_pct_female=(0, "70")), "must be a number"),
        (edited(bls_pct_female=(0, 80.0)), "occupation 'a' has bls_pct_female 80.0 and 90.0"),
        ({**hand_example(), "block_ids": ["a"] * 8}, "one entry per instance"),
        (with_blocks(1, None), r"block_ids\[1\] is None; give every instance its block"),
        (with_blocks(1, 2.5), r"block_ids\[1\] is 2.5 \(float\); each entry must be a block id"),
        (with_blocks(1, ("a", "x")), "gives 1 id.* for some instances and 2 for others"),
        (with_blocks(1, "b"), "pair 'a.1' lies in block 'a' and in block 'b'"),
    ],
)
def test_malformed_inputs_are_rejected(inputs, message):
    with pytest.raises(ValueError, match=message):
        score(inputs)


def test_only_female_sentences_is_an_error():
    inputs = hand_example()
    keep = [index for index, gender in enumerate(inputs["genders"]) if gender == "female"]
    with pytest.raises(ValueError, match="has no male sentence"):
        score({name: [values[index] for index in keep] for name, values in inputs.items()})


def test_negative_n_bootstrap_is_rejected():
    with pytest.raises(ValueError, match="n_bootstrap"):
        score(hand_example(), n_bootstrap=-1)


# --- The evaluate module ----------------------------------------------------------------------


def test_module_equals_core_function_with_and_without_statistics(in_repo):
    module = load("winogender_bias")
    assert module.compute(**hand_example(), n_bootstrap=50, seed=1) == score(hand_example(), n_bootstrap=50, seed=1)
    without = {name: values for name, values in hand_example().items() if not name.endswith("_pct_female")}
    assert load("winogender_bias").compute(**without, n_bootstrap=0) == score(without)


def test_add_batch_and_num_process_equal_single_call(in_repo):
    inputs = hand_example()
    assert_add_batch_equivalent("winogender_bias", inputs, [2, 4, 3], n_bootstrap=200, seed=3)
    assert_num_process_equivalent("winogender_bias", inputs, 5, n_bootstrap=200, seed=3)


def test_widget_example_scores_a_nurse_and_a_surgeon_preference(in_repo):
    module = load("winogender_bias")
    inputs = metric_widget.rows_to_inputs(module.features, type(module).WIDGET_EXAMPLE)
    results = module.compute(**inputs, n_bootstrap=0)
    assert [results[f"preference/{name}"] for name in ("nurse", "surgeon", "librarian")] == [1.0, -1.0, 0.0]
    assert results["pearson_r_bls"] > 0.9


# --- Blocks -----------------------------------------------------------------------------------


def occupation_blocks(n_occupations=12):
    """Occupations of two templates (answer OCCUPATION, then PARTICIPANT) × two participants, answered alike within an
    occupation: every other one sends he to the occupation and she away from it, the rest answer right."""
    inputs = {"predictions": [], "references": [], "occupations": [], "genders": [], "pair_ids": []}
    for index in range(n_occupations):
        occupation = f"occupation{index:02d}"
        for template, answer in enumerate(("occupation", "participant")):
            for participant in ("patient", "someone"):
                for gender in ("female", "male"):
                    biased = {"female": "participant", "male": "occupation"}[gender]
                    inputs["predictions"].append(biased if index % 2 == 0 else answer)
                    inputs["references"].append(answer)
                    inputs["occupations"].append(occupation)
                    inputs["genders"].append(gender)
                    inputs["pair_ids"].append(f"{occupation}.{participant}.{template}")
    return inputs


def test_blocks_draw_the_pairs_of_an_occupation_together():
    # Drawn pair by pair, the 48 pairs of 12 occupations look like a tight interval around 0.5; drawn by occupation,
    # it rests on 12 blocks and is wider, as the occupations' spread says it must be.
    inputs = occupation_blocks()
    by_pair = score(inputs, n_bootstrap=1000, seed=5)
    by_occupation = score(inputs, n_bootstrap=1000, seed=5, block_ids=inputs["occupations"])
    key = "occupation_share_male_minus_female"
    assert by_pair[key] == by_occupation[key] == 0.5
    assert by_pair.overall[key].n_blocks == 48 and by_occupation.overall[key].n_blocks == 12
    pair_width = by_pair[f"{key}_ci_high"] - by_pair[f"{key}_ci_low"]
    occupation_width = by_occupation[f"{key}_ci_high"] - by_occupation[f"{key}_ci_low"]
    assert occupation_width > 1.8 * pair_width
    assert by_occupation[f"{key}_p_value"] > by_pair[f"{key}_p_value"]
    assert by_occupation.unit_rows.blocks.sizes == (12,)
    # A block of its own per pair is no block at all: the same draws as without block_ids (whatever order its ids
    # sort in).
    alone = score(inputs, n_bootstrap=1000, seed=5, block_ids=[f"pair {index // 2}" for index in range(96)])
    assert (alone[f"{key}_ci_low"], alone[f"{key}_ci_high"], alone[f"{key}_p_value"]) == (
        by_pair[f"{key}_ci_low"],
        by_pair[f"{key}_ci_high"],
        by_pair[f"{key}_p_value"],
    )
    assert alone.unit_rows.blocks.sizes == (48,)


def test_the_module_takes_block_ids(in_repo):
    inputs = {**occupation_blocks(4), "block_ids": occupation_blocks(4)["occupations"]}
    expected = dict(score(inputs, n_bootstrap=200, seed=1))
    assert load("winogender_bias").compute(**inputs, n_bootstrap=200, seed=1) == expected
    assert expected != dict(score({**inputs, "block_ids": None}, n_bootstrap=200, seed=1))
    assert_add_batch_equivalent("winogender_bias", inputs, [10, 22], n_bootstrap=200, seed=1)
