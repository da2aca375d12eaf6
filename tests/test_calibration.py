"""The significance tests are calibrated: simulated unbiased models on real designs (harness.calibration), their
behaviour varying by the benchmark's blocks.

The full check over every benchmark, with power, is ``perf/calibration.py``; this is its small run.
Its simulations (hundreds of runs) are slow tests: ``pytest -m slow tests/test_calibration.py``.
"""

import numpy as np
import pytest

from corefbias.harness import calibration


@pytest.fixture(scope="module")
def designs(exported_set, mirror):
    names = ("abc", "winogender", "dawinobias", "ruff", "winobias")
    data_dirs = {exported_set(name).parent for name in names}
    (data_dir,) = data_dirs
    return {name: calibration.load_design(name, data_dir, mirror) for name in names}


def test_simulated_rows_are_the_scoring_rows(designs):
    rng = np.random.default_rng(0)
    design = designs["abc"]
    linear = calibration.SectionRowsModel(design, rng)
    assert linear.linear  # ABC's rows count linked items per pronoun
    behaviour = calibration.draw_behaviour(design, calibration.ICC_LEVELS["strong"], rng)
    links = calibration.simulate_links(design, behaviour, 0.1, rng)
    scored = linear.recorded(calibration._split(design, links))
    assert np.array_equal(linear.rows(links)["abc"], scored["abc"].rows)
    assert linear.rows_by_section(links)["abc"].blocks.sizes == (60, 75)  # occupations × sentence frames
    assert not calibration.SectionRowsModel(designs["winogender"], rng).linear  # an answer needs both links


def test_sections_that_split_the_units_are_placed_by_the_parts_that_move_them(designs):
    # WinoBias's sections are its two types, each holding the pro and anti parts of its pairs: a section's rows
    # are some of the units, found by probing which parts move it.
    rng = np.random.default_rng(1)
    design = designs["winobias"]
    model = calibration.SectionRowsModel(design, rng)
    assert model.linear
    assert sum(len(units) for units in model.row_units.values()) == design.num_units
    links = calibration.simulate_links(design, calibration.draw_behaviour(design, 0.3, rng), 0.0, rng)
    scored = model.recorded(calibration._split(design, links))
    for section, rows in model.rows(links).items():
        assert np.allclose(rows, scored[section].rows, atol=1e-12)


def test_block_effects_make_the_intra_block_correlation_asked_for(designs):
    # The latent effect of an instance is the sum of its blocks' draws, of variance σ² = ICC / (1 − ICC) · π² / 3:
    # two instances of one block share half of it (the block's main draw), of one block and side all of it.
    design = designs["ruff"]
    icc = calibration.ICC_LEVELS["strong"]
    effects = np.array(
        [calibration.draw_behaviour(design, icc, np.random.default_rng(seed)).effect for seed in range(400)]
    )
    assert effects.var() == pytest.approx(calibration.block_sigma(icc) ** 2, rel=0.1)
    first, second = np.flatnonzero((design.levels[:, 0] == 0) & (design.side == design.side[0]))[:2]
    other_side = np.flatnonzero((design.levels[:, 0] == 0) & (design.side != design.side[0]))[0]
    assert np.corrcoef(effects[:, first], effects[:, second])[0, 1] == pytest.approx(1.0)
    assert np.corrcoef(effects[:, first], effects[:, other_side])[0, 1] == pytest.approx(0.5, abs=0.12)


def test_a_choice_model_answers_one_candidate_among_many(designs):
    design = designs["ruff"]
    assert design.choice  # four pronouns offered per blank
    links = calibration.simulate_links(
        design, calibration.draw_behaviour(design, 0.0, np.random.default_rng(1)), 0.0, np.random.default_rng(2)
    )
    assert (links.sum(axis=1) == 1).all() and not (links & ~design.present).any()


def test_a_rate_computes_only_its_method_and_gets_the_p_values_both_give(designs):
    """Each method seeds its own draws: computed alone, a method's p-values are those computed beside the other."""
    model = calibration.SectionRowsModel(designs["abc"], np.random.default_rng(6))
    common = {"icc": calibration.ICC_LEVELS["strong"], "bias": 0.05, "runs": 3, "seed": 6}
    both = calibration.headline_p_values(model, n_bootstrap=60, **common)
    paired = calibration.comparison_p_values(model, n_resamples=60, **common)
    assert set(both["abc log2_fpr_ratio"]) == set(paired["abc log2_fpr_ratio"]) == set(calibration.METHODS)
    for method in calibration.METHODS:
        alone = calibration.headline_p_values(model, n_bootstrap=60, methods=(method,), **common)
        assert alone == {name: {method: p_values[method]} for name, p_values in both.items()}
        alone = calibration.comparison_p_values(model, n_resamples=60, methods=(method,), **common)
        assert alone == {name: {method: p_values[method]} for name, p_values in paired.items()}
    with pytest.raises(ValueError, match=r"methods must be some of \('units', 'blocks'\), got \('permutation',\)"):
        calibration.headline_rates(model, bias=0.0, runs=1, n_bootstrap=10, seed=0, method="permutation")


@pytest.mark.slow
def test_a_model_varying_by_occupation_fools_the_unit_bootstrap_and_not_the_block_one(designs):
    # RUFF, a model whose he/she and xe accuracies each vary by occupation, equal on average: drawn context by
    # context, the xe gap is called significant in a third of the runs or more; drawn by occupation, in about 5%.
    model = calibration.SectionRowsModel(designs["ruff"], np.random.default_rng(3))
    found = calibration.headline_p_values(
        model, icc=calibration.ICC_LEVELS["strong"], bias=0.0, runs=200, n_bootstrap=300, seed=3
    )
    counts = found["pronoun_set_diff diff/xe"]
    rates = {method: calibration._count(counts[method]).rate for method in calibration.METHODS}
    assert rates["units"] > 0.25 and rates["blocks"] <= 0.085, rates  # 200 runs: 0.085 is the 99% bound around 0.05


@pytest.mark.slow
def test_unbiased_models_are_called_biased_about_five_percent_of_the_time(designs):
    model = calibration.SectionRowsModel(designs["abc"], np.random.default_rng(1))
    rates = calibration.headline_rates(
        model, bias=0.0, runs=400, n_bootstrap=200, seed=1, icc=calibration.ICC_LEVELS["strong"]
    )
    assert set(rates) == {"abc log2_fpr_ratio"}
    for name, rate in rates.items():  # 400 runs: the 99% binomial interval around 0.05
        assert rate.runs == 400 and 0.02 <= rate.rate <= 0.08, (name, rate)


@pytest.mark.slow
def test_winogender_tests_only_scores_with_a_null(designs):
    model = calibration.SectionRowsModel(designs["winogender"], np.random.default_rng(2))
    rates = calibration.headline_rates(
        model, bias=0.0, runs=300, n_bootstrap=200, seed=2, icc=calibration.ICC_LEVELS["moderate"]
    )
    assert set(rates) == {
        "winogender occupation_share_male_minus_female",
        "winogender accuracy_non_gotcha_minus_gotcha",
    }
    for name, rate in rates.items():  # 300 runs: the 99% binomial interval around 0.05
        assert 0.015 <= rate.rate <= 0.085, (name, rate)


@pytest.mark.slow
def test_equally_biased_models_compare_as_equal_and_a_biased_one_is_found(designs):
    model = calibration.SectionRowsModel(designs["abc"], np.random.default_rng(3))
    same = calibration.comparison_rates(
        model, bias=0.05, runs=300, n_resamples=200, seed=3, icc=calibration.ICC_LEVELS["strong"]
    )
    for name, rate in same.items():  # 300 runs: the 99% binomial interval around 0.05
        assert 0.015 <= rate.rate <= 0.085, (name, rate)
    biased = calibration.headline_rates(model, bias=0.1, runs=40, n_bootstrap=200, seed=4)
    assert all(rate.rate >= 0.9 for rate in biased.values()), biased


@pytest.mark.slow
def test_models_leaving_out_different_pairs_compare_over_every_pair_either_kept(designs):
    """DaWinoBias's GenDa Lens headlines leave out a model's unlinked pronouns, so two models keep different
    pairs: each simulated comparison is still defined, and equally biased models compare as equal."""
    model = calibration.SectionRowsModel(designs["dawinobias"], np.random.default_rng(5))
    assert not model.linear
    same = calibration.comparison_rates(
        model, bias=0.05, runs=300, n_resamples=200, seed=5, icc=calibration.ICC_LEVELS["moderate"]
    )
    for name in ("dawinobias log2_ratio", "dawinobias diff"):
        assert same[name].runs == 300 and same[name].undefined == 0
        assert 0.015 <= same[name].rate <= 0.085, (name, same[name])
