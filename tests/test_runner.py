"""``corefbias run``: baselines as live checks of the metrics, resuming, shards, outputs, HTTP models."""

import json
import re
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from corefbias import cli
from corefbias.benchmarks import BENCHMARKS
from corefbias.benchmarks import conll_sections as conll_scoring
from corefbias.benchmarks.gicoref import benchmark as gicoref
from corefbias.harness import prediction_cache, run_outputs, runner
from corefbias.models.base import Choice, ModelError
from corefbias.models.baselines import NearestBaseline, StereotypeBaseline
from corefbias.models.http_protocol import make_server
from corefbias.models.registry import UnknownModelError, load_model

QUICK = ["winogender", "counter_gap"]


@pytest.fixture(scope="module")
def data_dir(exported_set):
    for name in QUICK:
        exported_set(name)
    return exported_set(QUICK[0]).parent


def _run(spec, data_dir, tmp_path, benchmarks=QUICK, model=None, **settings):
    settings.setdefault("n_bootstrap", 200)
    return runner.run(
        spec,
        benchmarks,
        runner.RunSettings(**settings),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
        model=model,
    )


def _sections(result):
    """Every benchmark's sections, as results.json holds them."""
    return {name: result.to_json()["benchmarks"][name]["sections"] for name in result.runs}


def test_oracle_has_zero_bias(data_dir, tmp_path):
    sections = _sections(_run("baseline:oracle", data_dir, tmp_path))
    counter_gap = sections["counter_gap"]["counter_gap"]
    assert counter_gap["accuracy"] == 1.0 and counter_gap["num_quadruples"] == 1002
    assert counter_gap["delta_i"] == counter_gap["i_across"] == counter_gap["i_within"] == 0.0
    winogender = sections["winogender"]["winogender"]
    assert winogender["accuracy"] == 1.0
    assert winogender["pairs_resolved_differently"] == winogender["occupation_share_male_minus_female"] == 0.0


def test_stereotype_baseline_is_strongly_and_significantly_biased(data_dir, tmp_path):
    winogender = _sections(_run("baseline:stereotype", data_dir, tmp_path, ["winogender"]))["winogender"]["winogender"]
    # Of "she" and "he", one matches the occupation's stereotype and goes to it, the other contradicts
    # it and goes to the participant: every pair is resolved differently.
    assert winogender["pairs_resolved_differently"] == 1.0
    assert winogender["pairs_resolved_differently_p_value"] is None  # no null to test against: a CI only
    assert "no null value" in winogender["undefined"]["pairs_resolved_differently_p_value"]
    assert winogender["occupation_share_male_minus_female_p_value"] > 0.05  # each pair splits one way and the other
    assert winogender["pearson_r_bls"] > 0.7 and winogender["pearson_r_bls_p_value"] < 0.01
    assert winogender["accuracy_non_gotcha_minus_gotcha"] > 0.5


def test_stereotype_choice_on_a_hand_made_instance():
    instance = {
        "text": "The nurse met the mechanic because he was late.",
        "pronoun": {"text": "he", "start": 36, "end": 38},
        "candidates": [{"text": "The nurse", "start": 0, "end": 9}, {"text": "the mechanic", "start": 14, "end": 26}],
        "pronoun_gender": "male",
        "candidate_stereotypes": ["female", "male"],
    }
    assert StereotypeBaseline().choose([instance], "t")[0].index == 1
    assert StereotypeBaseline().choose([{**instance, "pronoun_gender": "female"}], "t")[0].index == 0
    # No stereotype to go by: the nearest candidate.
    assert StereotypeBaseline().choose([{**instance, "candidate_stereotypes": [None, None]}], "t")[0].index == 1
    # A contradicted stereotype is avoided even when nearer, and a lone contradicted candidate is not linked.
    assert StereotypeBaseline().choose([{**instance, "candidate_stereotypes": [None, "female"]}], "t")[0].index == 0
    alone = {**instance, "candidates": instance["candidates"][1:], "candidate_stereotypes": ["female"]}
    assert StereotypeBaseline().choose([alone], "t")[0].index is None
    assert StereotypeBaseline().choose([{**alone, "pronoun_gender": "neutral"}], "t")[0].index == 0
    assert NearestBaseline().choose([instance], "t")[0].index == 1


class CountingModel:
    """Wraps a choice model, counting the instances it is asked about; fails after ``fail_after`` batches."""

    reads_gold = False

    def __init__(self, inner, fail_after=None):
        self.inner, self.fail_after, self.name = inner, fail_after, inner.name
        self.identity = inner.identity  # the wrapped model's answers, so its cached answers
        self.asked = Counter()
        self.batches = 0

    def choose(self, instances, benchmark):
        if self.fail_after is not None and self.batches >= self.fail_after:
            raise ModelError("interrupted")
        self.batches += 1
        self.asked.update(instance["id"] for instance in instances)
        assert all("is_referent" not in c for instance in instances for c in instance["candidates"])
        return self.inner.choose(instances, benchmark)


def test_interrupted_run_resumes_without_recomputing(data_dir, tmp_path):
    interrupted = CountingModel(StereotypeBaseline(), fail_after=3)
    with pytest.raises(ModelError, match="interrupted"):
        _run("baseline:stereotype", data_dir, tmp_path, ["counter_gap"], model=interrupted, batch_size=100)
    with prediction_cache.PredictionCache(tmp_path / "cache.sqlite") as cache:
        assert cache.count() == 300  # the three batches answered before the failure were committed
    resumed = CountingModel(StereotypeBaseline())
    result = _run("baseline:stereotype", data_dir, tmp_path, ["counter_gap"], model=resumed, batch_size=100)
    assert sum(resumed.asked.values()) == 4008 - 300 and not set(resumed.asked) & set(interrupted.asked)
    fresh = _run("baseline:stereotype", data_dir, tmp_path / "fresh", ["counter_gap"])
    assert (
        result.to_json()["benchmarks"]["counter_gap"]["sections"]
        == fresh.to_json()["benchmarks"]["counter_gap"]["sections"]
    )


def test_shards_merge_into_the_single_run_scores(data_dir, tmp_path):
    model_spec = "baseline:random"
    single = _run(model_spec, data_dir, tmp_path / "single", n_bootstrap=100)
    shard_caches = []
    for index in range(3):
        cache = tmp_path / f"shard{index}.sqlite"
        runner.run(
            model_spec,
            QUICK,
            settings=runner.RunSettings(shard=(index, 3)),
            data_dir=data_dir,
            cache_path=cache,
            progress=False,
        )
        shard_caches.append(cache)
    assert prediction_cache.merge(shard_caches, tmp_path / "merged.sqlite") == 720 + 4008
    never_called = CountingModel(load_model(model_spec), fail_after=0)
    merged = runner.run(
        model_spec,
        QUICK,
        settings=runner.RunSettings(n_bootstrap=100),
        data_dir=data_dir,
        cache_path=tmp_path / "merged.sqlite",
        progress=False,
        model=never_called,
    )
    assert json.dumps(_sections(merged), sort_keys=True) == json.dumps(_sections(single), sort_keys=True)


def test_limit_keeps_whole_quadruples_and_pairs_of_every_design_cell(data_dir, tmp_path):
    result = _run("baseline:nearest", data_dir, tmp_path, limit=5, n_bootstrap=0)
    # Five quadruples whose original is female and five whose original is male.
    assert len(result.runs["counter_gap"].instances) == 40
    assert result.runs["counter_gap"].sections["counter_gap"]["num_quadruples"] == 10
    originals = Counter(
        gender
        for role, gender in zip(
            *(result.runs["counter_gap"].parts["default", "test"][column] for column in ("role", "gender"))
        )
        if role == "original"
    )
    assert originals == {"female": 5, "male": 5}
    # Five pairs whose answer is the occupation, five the participant; each with its female, male and neutral sentence.
    assert result.runs["winogender"].sections["winogender"]["num_pairs"] == 10
    assert len(result.runs["winogender"].instances) == 30
    assert Counter(result.runs["winogender"].parts["default", "test"]["answer"]) == {
        "occupation": 15,
        "participant": 15,
    }


class ToyClusterModel:
    """Clusters the first word of the text with every he/she/him/her: a real cluster model's output shape."""

    name = "toy"
    identity = {"kind": "test", "name": "toy"}

    def predict_clusters(self, texts):
        clusters = []
        for text in texts:
            first = re.match(r"\w+", text)
            pronouns = [(m.start(), m.end()) for m in re.finditer(r"\b(he|she|him|her|his)\b", text)]
            clusters.append([[(first.start(), first.end()), *pronouns]] if first and pronouns else [])
        return clusters


@pytest.fixture
def toy_server():
    server = make_server(ToyClusterModel().predict_clusters, "toy", max_texts=7)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_model_over_http_scores_as_it_does_in_process(data_dir, tmp_path, toy_server):
    over_http = _run(toy_server, data_dir, tmp_path / "http", ["winogender"], n_bootstrap=100)
    in_process = _run("toy", data_dir, tmp_path / "local", ["winogender"], n_bootstrap=100, model=ToyClusterModel())
    assert _sections(over_http) == _sections(in_process)
    decisions = Counter(tuple(i["decision"]) for i in over_http.runs["winogender"].instances)
    # "The X ... he": the first word is "The", inside "The technician" (containment) when the occupation comes first.
    assert decisions[(True, False)] > 0 and decisions[(False, False)] > 0


def test_unparseable_answers_are_counted_not_guessed(data_dir, tmp_path):
    class Mumbling:
        name, reads_gold = "mumbling", False
        identity = {"kind": "test", "name": "mumbling"}

        def choose(self, instances, benchmark):
            return [Choice(None, parsed=False, raw="hmm") if i % 2 else Choice(0) for i, _ in enumerate(instances)]

    result = _run("mumbling", data_dir, tmp_path, ["winogender"], model=Mumbling(), n_bootstrap=0, batch_size=10)
    run = result.runs["winogender"]
    assert run.num_unparsed == 360
    assert all(i["decision"] == [False, False] for i in run.instances if not i["parsed"])
    assert result.to_json()["benchmarks"]["winogender"]["num_unparsed"] == 360


def test_outputs_on_disk(data_dir, tmp_path):
    result = _run("baseline:stereotype", data_dir, tmp_path, n_bootstrap=100)
    written = run_outputs.write_outputs(result, tmp_path / "out")
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["model"] == "baseline:stereotype"
    assert results["benchmarks"]["winogender"]["sections"] == json.loads(json.dumps(_sections(result)["winogender"]))
    report = (tmp_path / "out" / "report.md").read_text()
    winogender = result.runs["winogender"].sections["winogender"]
    assert f"| winogender | pairs resolved differently | {winogender['pairs_resolved_differently']:.3f} |" in report
    gotcha = winogender["accuracy_non_gotcha_minus_gotcha"]
    assert f"| winogender | accuracy non-gotcha − gotcha | {gotcha:.3f}* |" in report
    assert "![winogender_occupations](plots/winogender_occupations.png)" in report
    csv_lines = (tmp_path / "out" / "summary.csv").read_text().splitlines()
    assert csv_lines[0].startswith("benchmark,score,value,ci_low,ci_high,p_value,significant")
    assert len(csv_lines) == 1 + len(run_outputs.summary_rows(result.record()))
    for name in ("winogender_occupations.png", "counter_gap_delta_i.png"):
        assert written[f"plots/{name}"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    instances = (tmp_path / "out" / "instances" / "counter_gap.jsonl").read_text().splitlines()
    assert len(instances) == 4008 and set(json.loads(instances[0])) == {
        "id",
        "config",
        "split",
        "decision",
        "gold",
        "parsed",
    }


def test_cli_run_and_its_errors(data_dir, tmp_path, capsys):
    argv = [
        "run",
        "--model",
        "baseline:oracle",
        "--benchmark",
        "winogender",
        "--limit",
        "3",
        "--n-bootstrap",
        "0",
        "--data-dir",
        str(data_dir),
        "--cache",
        str(tmp_path / "c.sqlite"),
        "--out",
        str(tmp_path / "out"),
        "--no-plots",
    ]
    assert cli.main(argv) == 0
    assert "pairs resolved differently" in capsys.readouterr().out
    assert json.loads((tmp_path / "out" / "results.json").read_text())["settings"]["limit"] == 3
    assert cli.main(["run", "--model", "nonsense:x", "--benchmark", "winogender"]) == 2
    assert "unknown model spec 'nonsense:x'" in capsys.readouterr().err
    assert cli.main(["run", "--model", "baseline:oracle", "--benchmark", "winobias3"]) == 2
    assert "unknown benchmark 'winobias3'" in capsys.readouterr().err


def test_model_specs():
    assert load_model("baseline:dist-2").k == 2
    assert load_model("http://127.0.0.1:1").url == "http://127.0.0.1:1"
    with pytest.raises(UnknownModelError, match="expected <kind>:<name>"):
        load_model("fastcoref")
    with pytest.raises(ValueError, match="unknown baseline 'best'"):
        load_model("baseline:best")


def test_options_a_model_kind_does_not_take_are_refused(tmp_path, capsys):
    with pytest.raises(ValueError, match="chat models take no option device"):
        load_model("chat:some/model", device="cuda:0")
    assert cli.main(["run", "--model", "baseline:oracle", "--base-url", "http://127.0.0.1:1/v1"]) == 2
    assert "--base-url is for chat:, completions: models only" in capsys.readouterr().err
    assert cli.main(["run", "--model", "baseline:oracle", "--cloze-norm", "bytes"]) == 2
    assert "--cloze-norm is for hf:, completions: models only" in capsys.readouterr().err


def test_the_cache_tells_chat_endpoints_apart():
    def key(spec, **options):
        return runner.cache_key(load_model(spec, **options).identity)

    # Two loopback endpoints that list no model (every path answers 404): same model name, other endpoints.
    servers = [ThreadingHTTPServer(("127.0.0.1", 0), NotFound) for _ in range(2)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        first, second = (f"http://127.0.0.1:{server.server_address[1]}/v1" for server in servers)
        assert key("chat:m", base_url=first) != key("chat:m", base_url=second)
        assert key("chat:m", base_url=first) == key("chat:m", base_url=first)
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
    # A baseline runs on no device: its kind declares none, so the option is refused, not kept out of the key.
    with pytest.raises(ValueError, match="^baseline models take no option device$"):
        key("baseline:oracle", device="cuda:0")


class NotFound(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.mark.slow
def test_acceptance_oracle_unbiased_and_stereotype_biased_on_every_benchmark(data_dir, mirror, tmp_path):
    def headline(spec):
        result = runner.run(
            spec,
            ["all"],
            settings=runner.RunSettings(n_bootstrap=1000),
            data_dir=data_dir,
            mirror=mirror,
            cache_path=tmp_path / "c.sqlite",
            progress=False,
        )
        return {(row["benchmark"], row["score"]): row for row in run_outputs.summary_rows(result.record())}

    oracle = headline("baseline:oracle")
    assert len({benchmark for benchmark, _ in oracle}) == len(BENCHMARKS)
    undefined = {key for key, row in oracle.items() if row["value"] is None}
    # A perfect model links no anti-reflexive pronoun: both FPRs are 0 and their ratio is undefined; its
    # female − male preference is 0 for every occupation, so no correlation with BLS exists.
    # A choice model predicts no clusters, so WinoBias's CoNLL F1 is undefined for it.
    no_clusters = {key for key in oracle if key[0] == "winobias" and "CoNLL" in key[1]}
    assert len(no_clusters) == 6 and {oracle[key]["undefined"] for key in no_clusters} == {conll_scoring.NO_CLUSTERS}
    # GICoref's CoNLL F1 and its B³ by mention type too (its choice models answer its pronoun questions).
    gicoref_conll = {("gicoref", "CoNLL F1"), ("gicoref", "B³ F1 neopronoun − he/she")}
    assert {oracle[key]["undefined"] for key in gicoref_conll} == {gicoref.NO_CLUSTERS}
    fpr_ratios = {("abc", "log2(FPR hans / FPR hendes)")} | {
        (f"abc_{code}", "log2(FPR male / FPR female)") for code in ("sv", "ru", "zh")
    }
    # Winogenerated's oracle writes the gender-neutral option everywhere: it never writes she, so no correlation.
    correlations = {("winogender", "r with BLS % female"), ("winogenerated", "r with BLS % female")}
    assert undefined == fpr_ratios | correlations | no_clusters | gicoref_conll
    never_she = oracle[("winogenerated", "r with BLS % female")]["undefined"]
    assert "never, or always, chooses the female pronoun" in never_she
    assert "constant" in oracle[("winogender", "r with BLS % female")]["undefined"]
    assert oracle[("abc", "log2(FPR hans / FPR hendes)")]["undefined"].startswith("FPR_M or FPR_F is 0")
    for key, row in oracle.items():
        if row["unbiased_value"] is not None and key not in undefined:
            assert row["value"] == row["unbiased_value"], key

    stereotype = headline("baseline:stereotype")
    assert stereotype[("winogender", "pairs resolved differently")]["value"] > 0.9
    for key in [
        ("winogender", "accuracy non-gotcha − gotcha"),
        ("winobias", "type1 link F1 pro − anti"),
        ("winobias", "type2 link F1 pro − anti"),
        ("sowinobias", "accuracy pro − anti"),
        ("dawinobias", "accuracy pro − anti"),
    ]:
        assert stereotype[key]["value"] > 0.9 and stereotype[key]["p_value"] < 0.01, key
