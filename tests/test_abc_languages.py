"""ABC's Swedish, Russian and Chinese benchmarks end to end: ``corefbias run`` with baselines (the stereotype found
where it lies, chance not), their ``--limit`` cells, the calibration of their test on simulated models, the Explore
view, the cloze template of each language, chat models and their position rates, and ``score`` on files."""

import json
import shutil
import threading
from collections import Counter

import numpy as np
import pytest
from test_chat_adapter import FakeChatServer, always_a, base_url, reads_the_text

from corefbias import cli
from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import calibration, run_outputs, runner
from corefbias.harness.benchmark_data import load_part, set_folder
from corefbias.harness.limits import limit_units
from corefbias.harness.prediction_files import scoring
from corefbias.measures.stored_results import from_json
from corefbias.models.cloze import decide
from corefbias.space import explore

NAMES = ("abc_sv", "abc_ru", "abc_zh")
STEREOTYPES = ("female", "male", None)


@pytest.fixture(scope="module")
def data_dir(exported_set):
    return exported_set("abc").parent


def run(model: str, names, data_dir, tmp_path, limit, **settings) -> runner.RunResult:
    return runner.run(
        model,
        list(names),
        settings=runner.RunSettings(limit=limit, **settings),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )


def part_of(name, data_dir):
    benchmark = BENCHMARKS[name]
    (part,) = benchmark.parts
    return part, load_part(benchmark, *part, data_dir)


@pytest.mark.slow
def test_an_export_made_before_the_languages_is_made_again(exported_set, mirror, tmp_path):
    """A data folder holding an ``abc`` export without the ``sv`` config (written before the builder had it) is
    exported again when ``abc_sv`` asks for it, instead of failing on the missing config."""
    shutil.copytree(exported_set("abc"), tmp_path / "abc")
    shutil.rmtree(tmp_path / "abc" / "data" / "sv")
    folder = set_folder(BENCHMARKS["abc_sv"], tmp_path, mirror)
    assert folder == tmp_path / "abc" and (folder / "data" / "sv").is_dir()
    assert len(load_part(BENCHMARKS["abc_sv"], "sv", "test", tmp_path)) == 13680


@pytest.mark.parametrize("name", NAMES)
def test_a_limit_keeps_whole_triplets_of_every_stereotype(name, data_dir):
    part, data = part_of(name, data_dir)
    limited = limit_units({part: data}, BENCHMARKS[name], 2)[part]
    assert Counter(zip(limited["occupation_gender"], limited["pronoun_gender"])) == {
        (stereotype, gender): 2 for stereotype in STEREOTYPES for gender in ("neutral", "male", "female")
    }


def test_the_stereotype_baseline_is_found_where_it_follows_the_occupation(data_dir, tmp_path):
    """The command a user runs. The baseline links the anti-reflexive of the occupation's gender (a grammar error)
    and not the other; where the occupation has no stereotype it links both, as it links every reflexive."""
    argv = ["run", "--model", "baseline:stereotype", *[f"--benchmark={name}" for name in NAMES], "--limit", "50"]
    argv += ["--out", str(tmp_path / "run"), "--data-dir", str(data_dir), "--cache", str(tmp_path / "cache.sqlite")]
    assert cli.main(argv) == 0
    outcomes = json.loads((tmp_path / "run" / "results.json").read_text())["benchmarks"]
    for name in NAMES:
        section = outcomes[name]["sections"][name]
        assert (section["num_reflexive"], section["num_male"], section["num_female"]) == (150, 150, 150)
        assert section["tpr_reflexive"] == 1.0
        assert (section["fpr_male/male_occupations"], section["fpr_female/male_occupations"]) == (1.0, 0.0)
        assert (section["fpr_male/female_occupations"], section["fpr_female/female_occupations"]) == (0.0, 1.0)
        # Among female occupations FPR_M / FPR_F = 0 / 1, far from 1: significant where there are enough female
        # occupations to draw (Swedish 22 of them at --limit 50, Russian 18). Chinese has two female-majority
        # occupations in all: two blocks, and no two blocks can make a ratio significant, however far from 1.
        assert section["fpr_ratio/female_occupations"] == 0.0
        female = from_json(outcomes[name]["sections"][name]).by_group["female_occupations"]["fpr_ratio"]
        if name == "abc_zh":
            assert female.n_blocks == 2 and section["fpr_ratio/female_occupations_p_value"] > 0.05
        else:
            assert female.n_blocks >= 18 and section["fpr_ratio/female_occupations_p_value"] < 0.05
        # Overall the two genders' errors balance (50 triplets of each stereotype, 50 without): no pronoun bias.
        assert (section["fpr_male"], section["fpr_female"]) == (100 / 150, 100 / 150)
        assert section["log2_fpr_ratio"] == 0.0 and section["log2_fpr_ratio_p_value"] > 0.5


@pytest.mark.slow
def test_the_random_baseline_finds_nothing_in_any_seed(data_dir, tmp_path):
    """ABC's one candidate is the subject, so baseline:random, which picks a candidate, always links it: both FPRs
    are 1 and their ratio exactly 1 in every seed. (The simulated models below are the calibration proper.)"""
    for seed in range(5):
        result = run("baseline:random", NAMES, data_dir, tmp_path, 10, n_bootstrap=200, seed=seed)
        for name in NAMES:
            section = result.runs[name].sections[name]
            assert (section["fpr_male"], section["fpr_female"], section["log2_fpr_ratio"]) == (1.0, 1.0, 0.0)
            assert section["log2_fpr_ratio_p_value"] == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_simulated_unbiased_models_are_rarely_called_biased_and_biased_ones_always(name, data_dir, mirror):
    model = calibration.SectionRowsModel(calibration.load_design(name, data_dir, mirror), np.random.default_rng(0))
    assert model.linear  # the rows count linked items per pronoun: a run needs no scoring call
    rates = calibration.headline_rates(model, bias=0.0, runs=40, n_bootstrap=200, seed=1)
    (rate,) = rates.values()
    assert set(rates) == {f"{name} log2_fpr_ratio"}
    assert rate.runs == 40 and rate.rate < 6 / 40, rate  # 2 expected at α = 0.05; 6 or more has probability 1.4%
    biased = calibration.headline_rates(model, bias=0.1, runs=5, n_bootstrap=200, seed=2)
    assert biased[f"{name} log2_fpr_ratio"].rate == 1.0


def test_explore_shows_the_triplets_whose_anti_reflexives_are_treated_apart(data_dir, tmp_path):
    result = run("baseline:stereotype", NAMES, data_dir, tmp_path, 5, n_bootstrap=0)
    found = explore.cases(result)
    forms = {"abc_sv": ("hans", "hennes"), "abc_ru": ("его", "ее"), "abc_zh": ("他", "她")}
    for name in NAMES:
        # One anti-reflexive linked in every triplet of a stereotyped occupation (5 male, 5 female); both where none.
        assert found[name]["total"] == 10
        male, female = forms[name]
        titles = [case["title"] for case in found[name]["cases"]]
        assert sum(f"(male occupation): '{male}' linked to the subject, '{female}' not" in t for t in titles) == 5
        assert sum(f"(female occupation): '{female}' linked to the subject, '{male}' not" in t for t in titles) == 5
        first = found[name]["cases"][0]
        assert [member["label"].split(" (")[0] for member in first["members"]] == ["reflexive", "male", "female"]
        reflexive = first["members"][0]
        assert reflexive["candidates"][0]["gold"] and reflexive["candidates"][0]["linked"] and reflexive["correct"]
    html = explore.render(found["abc_zh"]["cases"][:1])
    assert '<b class="pronoun"><u>' in html and "linked to the subject" in html


@pytest.mark.parametrize(
    ("name", "question", "options"),
    [
        ("abc_sv", " Ordet ”hans” syftar på", (" teknikern", " en annan person")),
        ("abc_ru", " Под словом «его» имеется в виду", (" техник", " другой человек")),
        ("abc_zh", "句中的「他」指的是", ("技術員", "另一個人")),
    ],
)
def test_a_cloze_model_reads_the_language_and_can_say_another_person(name, question, options, data_dir):
    _, data = part_of(name, data_dir)
    row = data[1]  # the first triplet's male version; its pronoun is the file's
    assert row["pronoun_gender"] == "male"
    request = BENCHMARKS[name].cloze.render(row)
    assert request.context == row["text"] + question
    assert request.continuations == options and request.candidate_of == (0, None)
    # Choosing "another person" leaves the pronoun unlinked to the subject: right for an anti-reflexive.
    assert request.candidate_of[decide(request, [-3.0, -1.0], "none")] is None
    assert request.candidate_of[decide(request, [-1.0, -3.0], "none")] == 0


@pytest.fixture
def chat_server(monkeypatch):
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
        list(NAMES),
        settings=runner.RunSettings(limit=5, n_bootstrap=0, cache_mode="off"),
        data_dir=data_dir,
        progress=False,
        model_options={"base_url": base_url(server), "workers": 8, "answer": "text"},
    )


@pytest.mark.slow
def test_a_chat_model_is_told_the_language_and_its_position_rate_is_measured(chat_server, data_dir):
    chat_server.policy = reads_the_text  # names the subject, the one person the options name
    outcomes = chat_run(chat_server, data_dir).to_json()["benchmarks"]
    asked = {body["messages"][1]["content"].split(":", 1)[0] for _, _, body in chat_server.requests}
    assert asked == {"Text (Swedish)", "Text (Russian)", "Text (Chinese)"}
    for name in NAMES:
        outcome = outcomes[name]
        assert outcome["parse_rate"] == 1.0 and outcome["sections"][name]["tpr_reflexive"] == 1.0
        # Two options (the subject, none of them), rotated per triplet: about half the answers at A.
        assert 0.2 <= outcome["position_rate"] <= 0.8 and not outcome["position_bias"], name
    chat_server.policy = always_a
    for name, outcome in chat_run(chat_server, data_dir).to_json()["benchmarks"].items():
        assert (outcome["position_rate"], outcome["top_position"], outcome["position_bias"]) == (1.0, 0, True), name


@pytest.mark.slow
def test_a_jsonlines_file_of_clusters_scores_as_the_run_it_was_written_from(data_dir, tmp_path):
    """Chinese, matched by text: the file's tokens are the sentence's characters, with no spaces to find."""
    name = "abc_zh"
    made = run("baseline:stereotype", [name], data_dir, tmp_path, None, n_bootstrap=200)
    _, data = part_of(name, data_dir)
    path = tmp_path / "zh.jsonlines"
    with path.open("w", encoding="utf-8") as handle:
        for index, (row, instance) in enumerate(zip(data, made.runs[name].instances)):
            assert instance["id"] == row["id"]
            subject, pronoun = row["candidates"][0], row["pronoun"]
            linked = [[[subject["start"], subject["end"] - 1], [pronoun["start"], pronoun["end"] - 1]]]
            document = {"doc_key": f"doc{index:05d}", "tokens": list(row["text"])}  # no instance id: by text
            handle.write(json.dumps({**document, "clusters": linked if instance["decision"][0] else []}) + "\n")
    scored = scoring.score(name, [path], data_dir=data_dir, n_bootstrap=200)
    assert scored.settings["predictions"][0]["format"] == "jsonlines"
    assert scored.runs[name].sections == made.runs[name].sections
    assert made.runs[name].sections[name]["num_reflexive"] == 4500
    # The run's own instances file, scored again: the same scores.
    folder = tmp_path / "out"
    run_outputs.write_outputs(made, folder, plots=False)
    again = scoring.score(name, [folder / "instances" / f"{name}.jsonl"], data_dir=data_dir, n_bootstrap=200)
    assert again.settings["predictions"][0]["format"] == "instances"
    assert again.runs[name].sections == made.runs[name].sections
