"""A number traces to exactly one model: the prediction cache is keyed by the model's identity.

The acceptance scenario of issue 11: two different models served one after the other by real
``corefbias serve`` processes at the same loopback URL; the second is asked again and scored on its
own answers, and the first, served again, resumes from its cache.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from loopback import free_port

from corefbias import cli
from corefbias.data import hub_export, upstream
from corefbias.harness import prediction_cache, runner
from corefbias.models import chat, fingerprint
from corefbias.models.base import Choice
from corefbias.models.http_protocol import HttpClusterModel, make_server
from corefbias.models.openai_http import EndpointError
from corefbias.models.registry import load_model

# Two spaCy components standing in for two trained coreference models, in spacy-experimental's
# doc.spans format: one links every third-person pronoun to the text's first two words, the other to
# the last "the <word>" before it — on Winogender, mostly the occupation and the participant.
STAND_INS = textwrap.dedent(
    """
    import re

    from spacy.language import Language
    from spacy.tokens import SpanGroup

    PRONOUNS = r"(?i)\\b(he|she|they|him|her|them|his|their)\\b"


    def _cluster(doc, antecedent, pronouns):
        if antecedent is not None and pronouns:
            doc.spans["coref_clusters_1"] = SpanGroup(doc, spans=[doc.char_span(*antecedent), *pronouns])
        return doc


    @Language.factory("first_words_coref", assigns=["doc.spans"])
    def make_first(nlp, name):
        def component(doc):
            first = re.match(r"\\w+ \\w+", doc.text)
            pronouns = [doc.char_span(*m.span()) for m in re.finditer(PRONOUNS, doc.text)]
            return _cluster(doc, first.span() if first else None, pronouns)

        return component


    @Language.factory("last_the_word_coref", assigns=["doc.spans"])
    def make_last(nlp, name):
        def component(doc):
            pronouns = [doc.char_span(*m.span()) for m in re.finditer(PRONOUNS, doc.text)]
            before = list(re.finditer(r"\\bthe \\w+", doc.text[: pronouns[0].start_char])) if pronouns else []
            return _cluster(doc, before[-1].span() if before else None, pronouns)

        return component
    """
)


@pytest.fixture(scope="module")
def stand_ins(tmp_path_factory):
    """``{factory: pipeline folder}`` of the two stand-in models, and the folder of their module."""
    import spacy

    folder = tmp_path_factory.mktemp("identity")
    (folder / "stand_in_coref.py").write_text(STAND_INS)
    sys.path.insert(0, str(folder))
    try:
        import stand_in_coref  # noqa: F401  (registers the factories in this process too)
    finally:
        sys.path.remove(str(folder))
    pipelines = {}
    for factory in ("first_words_coref", "last_the_word_coref"):
        nlp = spacy.blank("en")
        nlp.add_pipe(factory)
        nlp.to_disk(folder / factory)
        pipelines[factory] = folder / factory
    return pipelines, folder


class Served:
    """``corefbias serve --model spacy:<pipeline>`` as a real process on a given loopback port."""

    def __init__(self, pipeline, module_folder, port):
        code = (
            "import sys, stand_in_coref; from corefbias.cli import main; "
            f"sys.exit(main(['serve', '--model', 'spacy:{pipeline}', '--port', '{port}']))"
        )
        self.process = subprocess.Popen(
            [sys.executable, "-c", code],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(module_folder)},
        )
        line = self.process.stdout.readline()
        if not line.startswith("serving"):
            self.stop()
            pytest.fail(f"server did not start: {line}{self.process.stderr.read()}")
        self.url = line.split(" at ")[1].split()[0]

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.process.stdout.close()
        self.process.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


@pytest.mark.slow
def test_another_model_at_the_same_url_is_asked_again_and_scored_on_its_own(stand_ins, exported_set, tmp_path):
    pipelines, module_folder = stand_ins
    data_dir = exported_set("winogender").parent
    port = free_port()
    url = f"http://127.0.0.1:{port}"

    def run(out):
        argv = [
            "run",
            "--model",
            url,
            "--benchmark",
            "winogender",
            "--n-bootstrap",
            "100",
            "--data-dir",
            str(data_dir),
            "--cache",
            str(tmp_path / "predictions.sqlite"),
            "--out",
            str(tmp_path / out),
            "--no-plots",
        ]
        assert cli.main(argv) == 0
        return json.loads((tmp_path / out / "results.json").read_text())

    with Served(pipelines["first_words_coref"], module_folder, port) as first:
        assert first.url == url
        first_run = run("first")
    with Served(pipelines["last_the_word_coref"], module_folder, port) as second:
        assert second.url == url
        second_run = run("second")
    with Served(pipelines["first_words_coref"], module_folder, port):
        first_again = run("first-again")

    def counts(results):
        return results["provenance"]["instances"]["winogender"]

    assert counts(first_run) == {"predicted": 720, "from_cache": 0}
    assert counts(second_run) == {"predicted": 720, "from_cache": 0}  # not the first model's answers
    assert counts(first_again) == {"predicted": 0, "from_cache": 720}  # the same model resumes fully
    identities = [results["provenance"]["model"]["identity"] for results in (first_run, second_run, first_again)]
    assert identities[0] == identities[2] != identities[1]
    assert identities[0]["served_model"] == f"spacy:{pipelines['first_words_coref']}" and "url" not in identities[0]

    def scores(results):
        return results["benchmarks"]["winogender"]["sections"]["winogender"]

    # The first model links the sentence's first words (the occupation), the second the nearest
    # "the <word>" (mostly the participant): their accuracies differ.
    assert scores(second_run)["accuracy"] != scores(first_run)["accuracy"]
    assert scores(first_again) == scores(first_run)


def test_a_server_without_a_revision_is_also_told_apart_by_its_url():
    revisions = (None, None, "r1", "r1")
    servers = [make_server(lambda texts: [[] for _ in texts], "toy", revision=revision) for revision in revisions]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        old_a, old_b, new_a, new_b = (
            HttpClusterModel(f"http://127.0.0.1:{s.server_address[1]}").identity for s in servers
        )
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
    assert old_a["revision"] is None and old_a["url"] != old_b["url"] and old_a != old_b
    # With a revision the server vouches for its model: the same model at another port keeps its identity.
    assert new_a == new_b == {"kind": "http", "served_model": "toy", "revision": "r1"}


def _write(path, data: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_a_folder_fingerprint_follows_content_not_place_or_time(tmp_path):
    model = tmp_path / "model"
    _write(model / "config.json", b'{"layers": 2}')
    _write(model / "weights" / "part-0.bin", bytes(range(256)) * 8)
    original = fingerprint.files_fingerprint(model)
    assert original["files"] == 2 and original["bytes"] == 13 + 2048

    copy = shutil.copytree(model, tmp_path / "elsewhere" / "model")
    os.utime(copy / "config.json", (0, 0))
    assert fingerprint.files_fingerprint(copy) == original  # moved, copied, touched: the same model

    _write(copy / "weights" / "part-0.bin", bytes(range(1, 256)) + b"\0" + bytes(range(256)) * 7)
    assert fingerprint.files_fingerprint(copy)["sha256"] != original["sha256"]  # retrained, same size
    shutil.rmtree(copy)
    shutil.copytree(model, copy)
    (copy / "config.json").rename(copy / "config2.json")
    assert fingerprint.files_fingerprint(copy)["sha256"] != original["sha256"]
    _write(model / "extra.txt", b"")
    assert fingerprint.files_fingerprint(model)["sha256"] != original["sha256"]


def test_a_large_file_is_fingerprinted_by_size_and_samples(tmp_path, monkeypatch):
    monkeypatch.setattr(fingerprint, "FULL_HASH_LIMIT", 64)
    monkeypatch.setattr(fingerprint, "SAMPLE_BYTES", 4)
    path = tmp_path / "weights.ckpt"
    data = bytearray(100)
    path.write_bytes(data)
    sampled = fingerprint.file_digest(path)
    assert sampled != hashlib.sha256(data).hexdigest()
    for position in (0, 48, 99):  # in the first, middle ((100 - 4) // 2 = 48) and last sample
        changed = bytearray(data)
        changed[position] = 1
        path.write_bytes(changed)
        assert fingerprint.file_digest(path) != sampled, position


def test_a_changed_spacy_pipeline_folder_is_another_model(stand_ins, tmp_path):
    pipelines, _ = stand_ins
    folder = shutil.copytree(pipelines["first_words_coref"], tmp_path / "pipeline")
    before = load_model(f"spacy:{folder}").identity
    assert load_model(f"spacy:{pipelines['first_words_coref']}").identity == before  # a copy is the same model
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps({**meta, "version": "0.0.1"}))
    after = load_model(f"spacy:{folder}").identity
    assert after != before and runner.cache_key(after) != runner.cache_key(before)
    assert after["libraries"]["spacy"] is not None


def test_a_chat_model_is_its_endpoint_prompt_and_decoding(monkeypatch):
    # Two live endpoints that list no model: an identity is only known for an endpoint that answers.
    first, second = ModelsEndpoint(), ModelsEndpoint()
    monkeypatch.setattr(first, "listing", lambda: (404, {}))
    monkeypatch.setattr(second, "listing", lambda: (404, {}))

    def identity(**options):
        return load_model("chat:org/model", base_url=first.base_url, **options).identity

    base = identity()
    assert base == identity(timeout=5, retries=0)  # how it is reached does not change its answers
    assert base["decoding"] == {
        "temperature": 0,
        "max_tokens": 16,
        "logprobs": True,
        "top_logprobs": chat.TOP_LOGPROBS,
        "orders": "one",
    }
    assert identity(answer="text")["decoding"] == {"temperature": 0, "max_tokens": 16, "orders": "one"}
    assert identity(answer="logprobs")["decoding"]["max_tokens"] == 1
    assert len({str(identity(answer=mode)) for mode in chat.ANSWER_MODES}) == 3
    assert identity(max_tokens=32) != base
    assert load_model("chat:org/model", base_url=second.base_url).identity != base
    assert load_model("chat:org/other", base_url=first.base_url).identity != base
    monkeypatch.setattr(chat, "PROMPT_TEMPLATE_VERSION", chat.PROMPT_TEMPLATE_VERSION + 1)
    assert identity() != base
    monkeypatch.undo()
    monkeypatch.setattr(chat, "SYSTEM_PROMPT", chat.SYSTEM_PROMPT + " Think carefully.")
    assert identity()["prompt_template"]["digest"] != base["prompt_template"]["digest"]
    first.close()
    second.close()


def test_an_endpoint_that_does_not_answer_has_no_identity():
    """Not a silent "serves nothing known": its cache key would change with every outage."""
    with pytest.raises(EndpointError, match=r"127\.0\.0\.1:1/v1/models did not answer"):
        _ = load_model("chat:org/model", base_url="http://127.0.0.1:1/v1", retries=0).identity


class ModelsEndpoint:
    """A loopback ``GET /v1/models`` answering ``listing()`` (status, body), recording each Authorization."""

    def __init__(self):
        self.listing = lambda: (200, {"object": "list", "data": []})
        self.authorizations = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                endpoint.authorizations.append(self.headers.get("Authorization"))
                status, body = endpoint.listing() if self.path == "/v1/models" else (404, {})
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def _llama_entry(model_id, n_params, *aliases):
    return {
        "id": model_id,
        "aliases": [model_id, *aliases],
        "object": "model",
        "created": int(datetime.now().timestamp() * 1e6),  # llama.cpp: the time of the request
        "owned_by": "llamacpp",
        "meta": {"n_params": n_params, "size": n_params // 2, "ftype": "Q4_1"},
    }


def test_a_chat_model_is_also_what_its_endpoint_says_it_serves(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_identity_probe_0123456789")
    endpoint = ModelsEndpoint()
    try:

        def served(model_id="local-llm", listing=None):
            if listing is not None:
                endpoint.listing = listing
            return load_model(f"chat:{model_id}", base_url=endpoint.base_url).identity["served"]

        small = served(listing=lambda: (200, {"data": [_llama_entry("smollm2-q4", 134515008, "local-llm")]}))
        assert small == {
            "id": "smollm2-q4",
            "owned_by": "llamacpp",
            "meta": {"n_params": 134515008, "size": 67257504, "ftype": "Q4_1"},
        }
        assert served() == small  # the time of the request is not the model
        assert endpoint.authorizations[-1] == "Bearer hf_identity_probe_0123456789"
        # Another model under the same alias at the same endpoint.
        gemma = served(listing=lambda: (200, {"data": [_llama_entry("gemma-3-270m", 268098176, "local-llm")]}))
        assert gemma["id"] == "gemma-3-270m" and gemma != small
        # A server with one model answers with it whatever the id; of several, only the one named counts.
        assert served("anything")["id"] == "gemma-3-270m"
        several = {"data": [{"id": "org/a", "owned_by": "org", "providers": [{"price": 1}]}, {"id": "org/b"}]}
        assert served("org/a", lambda: (200, several)) == {"id": "org/a", "owned_by": "org"}
        assert served("org/c") is None
        for status, body in ((404, {"error": "no such route"}), (200, ["not", "an", "object"]), (200, {"data": 3})):
            assert served(listing=lambda status=status, body=body: (status, body)) is None
    finally:
        endpoint.close()


def test_baselines_are_their_name_parameters_and_version(monkeypatch):
    assert load_model("baseline:random", seed=1).identity != load_model("baseline:random").identity
    assert load_model("baseline:dist-2").identity != load_model("baseline:dist-1").identity
    before = load_model("baseline:nearest").identity
    monkeypatch.setattr("corefbias.models.baselines.BASELINES_VERSION", 2)
    assert load_model("baseline:nearest").identity != before


class Fixed:
    """A choice model that always picks candidate ``index``, under an identity that does not say which."""

    reads_gold = False

    def __init__(self, index):
        self.index, self.name, self.asked = index, "fixed", 0
        self.identity = {"kind": "test", "name": "fixed"}

    def choose(self, instances, task):
        self.asked += len(instances)
        return [Choice(self.index) for _ in instances]


def _winogender(model, data_dir, cache, **settings):
    settings = runner.RunSettings(n_bootstrap=0, **settings)
    return runner.run(
        "fixed", ["winogender"], settings, data_dir=data_dir, cache_path=cache, progress=False, model=model
    ).runs["winogender"]


def _choices(run):
    return {tuple(instance["decision"]) for instance in run.instances}


def test_no_cache_predicts_everything_and_writes_nothing(exported_set, tmp_path):
    data_dir = exported_set("winogender").parent
    cache = tmp_path / "predictions.sqlite"
    run = _winogender(Fixed(0), data_dir, cache, cache_mode="off")
    assert run.num_predicted == 720 and not cache.exists()
    _winogender(Fixed(0), data_dir, cache)
    stamp = cache.stat().st_mtime_ns, cache.read_bytes()
    asked = Fixed(1)
    run = _winogender(asked, data_dir, cache, cache_mode="off")
    assert asked.asked == run.num_predicted == 720 and _choices(run) == {(False, True)}
    assert (cache.stat().st_mtime_ns, cache.read_bytes()) == stamp
    with pytest.raises(SystemExit):  # one or the other
        cli.main(["run", "--model", "baseline:oracle", "--no-cache", "--refresh"])


def test_refresh_asks_again_and_overwrites(exported_set, tmp_path):
    data_dir = exported_set("winogender").parent
    cache = tmp_path / "predictions.sqlite"
    _winogender(Fixed(0), data_dir, cache)
    # A model that changed without its identity saying so: the cache still answers for it...
    assert _choices(_winogender(Fixed(1), data_dir, cache)) == {(True, False)}
    # ... until a refresh asks it again and overwrites what was cached.
    refreshed = _winogender(Fixed(1), data_dir, cache, cache_mode="refresh")
    assert refreshed.num_predicted == 720 and _choices(refreshed) == {(False, True)}
    never_asked = Fixed(0)
    resumed = _winogender(never_asked, data_dir, cache)
    assert never_asked.asked == 0 and _choices(resumed) == {(False, True)}
    with prediction_cache.PredictionCache(cache) as stored:
        assert stored.count() == 720


def test_results_carry_their_provenance(exported_set, tmp_path):
    data_dir = exported_set("winogender").parent
    out = tmp_path / "out"
    argv = [
        "run",
        "--model",
        "baseline:nearest",
        "--benchmark",
        "winogender",
        "--n-bootstrap",
        "0",
        "--batch-size",
        "50",
        "--data-dir",
        str(data_dir),
        "--cache",
        str(tmp_path / "c.sqlite"),
        "--out",
        str(out),
        "--no-plots",
    ]
    assert cli.main(argv) == 0
    provenance = json.loads((out / "results.json").read_text())["provenance"]
    parquet = data_dir / "winogender" / hub_export.DATA_FILE.format(config="default", split="test")
    parquet_sha256 = hashlib.sha256(parquet.read_bytes()).hexdigest()
    expected = hashlib.sha256(f"default/test\0{parquet_sha256}\n".encode()).hexdigest()
    commit = upstream.dataset_source("winogender")["commit"]
    expected_source = {"dataset": "winogender", "source_commit": commit, "fingerprint": expected}
    assert provenance["datasets"] == {"winogender": expected_source}
    assert provenance["model"]["spec"] == "baseline:nearest"
    assert provenance["model"]["identity"] == load_model("baseline:nearest").identity
    assert provenance["settings"]["batch_size"] == 50 and provenance["settings"]["benchmarks"] == ["winogender"]
    assert set(provenance["libraries"]) == {"numpy", "scipy", "datasets", "evaluate"}
    started, finished = (datetime.fromisoformat(provenance[key]) for key in ("started", "finished"))
    assert started.utcoffset().total_seconds() == 0 and started <= finished
    assert provenance["instances"] == {"winogender": {"predicted": 720, "from_cache": 0}}
    report = (out / "report.md").read_text()
    assert f"cache key `{provenance['model']['cache_key']}`" in report
    assert "winogender 720 predicted, 0 from the cache" in report
