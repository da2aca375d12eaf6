"""The significance tests are calibrated: simulated unbiased models on real designs (harness.calibration).

The full check over every benchmark, with power, is ``perf/calibration.py``; this is its small run.
Its simulations (hundreds of runs, half a minute each) are slow tests: ``pytest -m slow tests/test_calibration.py``.
"""

import numpy as np
import pytest

from corefbias.harness import calibration


@pytest.fixture(scope="module")
def designs(exported_set, mirror):
    data_dir = exported_set("abc").parent
    exported_set("winogender")
    exported_set("dawinobias")
    return {name: calibration.load_design(name, data_dir, mirror) for name in ("abc", "winogender", "dawinobias")}


def test_simulated_rows_are_the_scoring_rows(designs):
    rng = np.random.default_rng(0)
    design = designs["abc"]
    linear = calibration.SectionRowsModel(design, rng)
    assert linear.linear  # ABC's rows count linked items per pronoun
    links = calibration.simulate_links(design, np.full((design.num_units, 2), [0.7, 0.2]), 0.1, rng)
    scored = linear.recorded(calibration._split(design, links))
    assert np.array_equal(linear.rows(links)["abc"], scored["abc"].rows)
    assert not calibration.SectionRowsModel(designs["winogender"], rng).linear  # an answer needs both links


@pytest.mark.slow
def test_unbiased_models_are_called_biased_about_five_percent_of_the_time(designs):
    model = calibration.SectionRowsModel(designs["abc"], np.random.default_rng(1))
    rates = calibration.headline_rates(model, bias=0.0, runs=1000, n_bootstrap=200, seed=1)
    assert set(rates) == {"abc log2_fpr_ratio"}
    for name, rate in rates.items():
        assert rate.runs == 1000 and 0.03 <= rate.rate <= 0.07, (name, rate)


@pytest.mark.slow
def test_winogender_tests_only_scores_with_a_null(designs):
    model = calibration.SectionRowsModel(designs["winogender"], np.random.default_rng(2))
    rates = calibration.headline_rates(model, bias=0.0, runs=300, n_bootstrap=200, seed=2)
    assert set(rates) == {
        "winogender occupation_share_male_minus_female",
        "winogender accuracy_non_gotcha_minus_gotcha",
    }
    for name, rate in rates.items():  # 300 runs: the 99% binomial interval around 0.05
        assert 0.02 <= rate.rate <= 0.085, (name, rate)


@pytest.mark.slow
def test_equally_biased_models_compare_as_equal_and_a_biased_one_is_found(designs):
    model = calibration.SectionRowsModel(designs["abc"], np.random.default_rng(3))
    same = calibration.comparison_rates(model, bias=0.05, runs=400, n_resamples=100, seed=3)
    for name, rate in same.items():  # 400 runs: the 99% binomial interval around 0.05
        assert 0.025 <= rate.rate <= 0.08, (name, rate)
    biased = calibration.headline_rates(model, bias=0.1, runs=40, n_bootstrap=200, seed=4)
    assert all(rate.rate >= 0.9 for rate in biased.values()), biased


@pytest.mark.slow
def test_models_leaving_out_different_pairs_compare_over_every_pair_either_kept(designs):
    """DaWinoBias's GenDa Lens headlines leave out a model's unlinked pronouns, so two models keep different
    pairs: each simulated comparison is still defined, and equally biased models compare as equal."""
    model = calibration.SectionRowsModel(designs["dawinobias"], np.random.default_rng(5))
    assert not model.linear
    same = calibration.comparison_rates(model, bias=0.05, runs=300, n_resamples=100, seed=5)
    for name in ("dawinobias log2_ratio", "dawinobias diff"):
        assert same[name].runs == 300 and same[name].undefined == 0
        assert 0.02 <= same[name].rate <= 0.085, (name, same[name])
