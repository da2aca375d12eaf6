"""The ``bug`` benchmark end to end: ``corefbias run`` with baselines (the stereotype found, chance not), the
calibration of its tests on simulated unbiased models, its Explore view, its cloze template and chat models."""

import json

import numpy as np
import pytest
from test_chat_adapter import FakeChatServer, always_a, base_url, reads_the_text

from corefbias import cli
from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import calibration, runner
from corefbias.harness.benchmark_data import load_part
from corefbias.models.cloze import decide
from corefbias.space import explore

BUG = BENCHMARKS["bug"]
TESTED = ("bug/gold delta_s", "bug/gold delta_g", "bug/balanced delta_s", "bug/balanced delta_g")


@pytest.fixture(scope="module")
def data_dir(exported_set):
    return exported_set("bug").parent


def run(model: str, data_dir, tmp_path, limit: int, **settings) -> runner.RunResult:
    return runner.run(
        model,
        ["bug"],
        settings=runner.RunSettings(limit=limit, **settings),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )


def test_the_stereotype_baseline_shows_a_significant_delta_s_at_limit_50(data_dir, tmp_path):
    """The issue's command, as a user runs it."""
    out = tmp_path / "run"
    argv = ["run", "--model", "baseline:stereotype", "--benchmark", "bug", "--limit", "50", "--out", str(out)]
    assert cli.main([*argv, "--data-dir", str(data_dir), "--cache", str(tmp_path / "cache.sqlite")]) == 0
    sections = json.loads((out / "results.json").read_text())["benchmarks"]["bug"]["sections"]
    for config, sentences in (("gold", 300), ("balanced", 200)):
        section = sections[f"bug/{config}"]
        assert section["num_sentences"] == sentences
        # It links the profession exactly where the pronoun agrees with its majority gender (and where it has none).
        assert (section["accuracy_stereotypical"], section["accuracy_anti_stereotypical"]) == (1.0, 0.0)
        assert section["delta_s"] == 1.0 and section["delta_s_p_value"] < 0.05
        assert section["delta_g"] == 0.0  # as many male as female sentences of each label in every design cell


def test_the_random_baseline_finds_no_bias_in_any_seed(data_dir, tmp_path):
    """BUG's one candidate is the profession, so baseline:random, which picks a candidate, always links it: ΔS and
    ΔG are exactly 0 in every seed. (The simulated models below are the calibration proper.)"""
    for seed in range(5):
        result = run("baseline:random", data_dir, tmp_path, 10, n_bootstrap=200, seed=seed)
        for config in ("gold", "balanced"):
            section = result.runs["bug"].sections[f"bug/{config}"]
            assert section["accuracy"] == 1.0
            assert section["delta_s"] == section["delta_g"] == 0.0 and section["delta_s_p_value"] == 1.0


@pytest.fixture(scope="module")
def simulated(data_dir, mirror):
    design = calibration.load_design("bug", data_dir, mirror)
    # Not the linear shortcut: gold and balanced are sections of their own units, so each run is scored.
    return calibration.SectionRowsModel(design, np.random.default_rng(0))


@pytest.mark.slow  # simulates hundreds of runs
def test_simulated_unbiased_models_are_rarely_called_biased_and_biased_ones_always(simulated):
    rates = calibration.headline_rates(simulated, bias=0.0, runs=40, n_bootstrap=200, seed=1)
    assert set(rates) == set(TESTED)
    for name, rate in rates.items():  # 40 runs at α = 0.05: 2 expected; 6 or more has probability 1.4%
        assert rate.runs == 40 and rate.rate < 6 / 40, (name, rate)
    biased = calibration.headline_rates(simulated, bias=0.1, runs=5, n_bootstrap=200, seed=2)
    assert biased["bug/gold delta_s"].rate == biased["bug/balanced delta_s"].rate == 1.0


@pytest.mark.slow
def test_unbiased_models_are_called_biased_about_five_percent_of_the_time(simulated):
    rates = calibration.headline_rates(simulated, bias=0.0, runs=400, n_bootstrap=200, seed=3)
    # 400 runs: at most the 99% binomial bound above 0.05. Below, only a test that hardly ever rejects is a defect:
    # the expanded interval is a little conservative (gold ΔG, seed 3: 7 of 400; 0.035 with seed 0 in
    # docs/significance.md's study).
    for name, rate in rates.items():
        assert 0.01 <= rate.rate <= 0.08, (name, rate)


def test_explore_shows_the_errors_that_follow_the_stereotype_with_their_distance_bin(data_dir, tmp_path):
    result = run("baseline:stereotype", data_dir, tmp_path, 5, n_bootstrap=0)
    found = explore.cases(result)["bug"]
    # The stereotype baseline errs exactly on the anti-stereotypical sentences: 10 gold and 10 balanced at --limit 5.
    assert found["total"] == 20
    first = found["cases"][0]
    assert first["title"].startswith("anti-stereotypical: '") and ", distance bin 0-4" in first["title"]
    (member,) = first["members"]
    start, end = member["pronoun"]
    assert member["text"][start:end].lower() in ("he", "his", "him", "himself", "she", "her", "herself")
    assert member["candidates"][0]["gold"] and not member["candidates"][0]["linked"] and not member["correct"]
    distances = [int(case["title"].split(" words apart")[0].rsplit("; ", 1)[1]) for case in found["cases"]]
    assert distances == sorted(distances)
    html = explore.render(found["cases"][:2])
    assert '<b class="pronoun"><u>' in html and "distance bin" in html


def test_a_cloze_model_reads_the_profession_or_someone_else(data_dir):
    row = load_part(BUG, "gold", "test", data_dir)[0]
    request = BUG.cloze.render(row)
    pronoun = row["pronoun"]["text"]
    assert request.context == f"{row['text']} ‘{pronoun.capitalize()}’ refers to"
    assert request.continuations == (f" the {row['profession']}", " someone else")
    # "someone else" names no candidate: the pronoun is left unlinked to the profession, which BUG counts wrong.
    assert request.candidate_of == (0, None)
    assert request.candidate_of[decide(request, [-3.0, -1.0], "none")] is None
    assert request.candidate_of[decide(request, [-1.0, -3.0], "none")] == 0


@pytest.fixture
def chat_server(monkeypatch):
    import threading

    monkeypatch.setenv("HF_TOKEN", "hf_TEST_secret_token_123")
    fake = FakeChatServer()
    thread = threading.Thread(target=fake.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield fake
    fake.shutdown()
    fake.server_close()


def chat_run(server, data_dir):
    return runner.run(
        "chat:test/model",
        ["bug"],
        settings=runner.RunSettings(limit=5, n_bootstrap=0, cache_mode="off"),
        data_dir=data_dir,
        progress=False,
        model_options={"base_url": base_url(server), "workers": 8, "answer": "text"},
    )


def test_a_chat_model_reading_the_text_resolves_every_sentence_and_is_not_position_biased(chat_server, data_dir):
    chat_server.policy = reads_the_text  # names the profession, the one person the options name
    outcome = chat_run(chat_server, data_dir).to_json()["benchmarks"]["bug"]
    assert outcome["parse_rate"] == 1.0 and outcome["sections"]["bug/gold"]["accuracy"] == 1.0
    # Two options (the profession, none of them), rotated per sentence: about half the answers at A.
    assert 0.3 <= outcome["position_rate"] <= 0.7 and not outcome["position_bias"]


def test_a_chat_model_always_answering_a_is_flagged(chat_server, data_dir):
    chat_server.policy = always_a
    outcome = chat_run(chat_server, data_dir).to_json()["benchmarks"]["bug"]
    assert (outcome["position_rate"], outcome["top_position"], outcome["position_bias"]) == (1.0, 0, True)
