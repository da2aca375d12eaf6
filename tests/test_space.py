"""The Space: served for real on loopback and called with gradio_client; its helpers on hand-made runs."""

import json
import re
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest
from loopback import free_port
from test_limits import instances_at

from corefbias.benchmarks import BENCHMARKS, PRO_ANTI_PAIRS
from corefbias.benchmarks.counter_gap.explore import QUADRUPLES
from corefbias.benchmarks.winogender.explore import MINIMAL_PAIRS
from corefbias.harness import run_outputs, runner
from corefbias.harness.result_versions import upgrade
from corefbias.measures.stored_results import from_flat
from corefbias.models import hub_weights
from corefbias.models.http_protocol import make_server
from corefbias.models.registry import kind_of
from corefbias.space import charts, explore, inputs, jobs, learn
from corefbias.space.model_list import ListedModel, ModelList, load_model_list
from corefbias.space.settings import SpaceSettings
from corefbias.space.store import RunStore, score_column

gradio_client = pytest.importorskip("gradio_client")

REPO = Path(__file__).resolve().parents[1]
QUICK = ["counter_gap", "winogender"]  # the Run tab's default benchmarks, in registry order
LIMIT, N_BOOTSTRAP, SEED = 20, 200, 3


@pytest.fixture(scope="module")
def data_dir(exported_set):
    for name in QUICK:
        exported_set(name)
    return exported_set(QUICK[0]).parent


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """Gradio's and datasets' caches under the test's tmp folder, so nothing is written elsewhere."""
    import datasets

    root = tmp_path_factory.mktemp("space")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADIO_TEMP_DIR", str(root / "gradio"))
        patch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        patch.setattr(datasets.config, "HF_DATASETS_CACHE", root / "hf_datasets")
        yield root


def _settings(root: Path, data_dir: Path, mirror: Path, **overrides) -> SpaceSettings:
    return SpaceSettings(
        data_root=root / "data", datasets_dir=data_dir, mirror=mirror, cards_dir=REPO / "metrics", **overrides
    )


@pytest.fixture(scope="module")
def served(sandbox, data_dir, mirror):
    from corefbias.space import ui

    # Local use: the model servers the tests start run on this machine.
    settings = _settings(sandbox, data_dir, mirror, port=free_port(), allow_private_endpoints=True)
    demo = ui.build_app(settings)
    ui.launch(demo, settings, prevent_thread_lock=True, quiet=True)
    try:
        client = gradio_client.Client(demo.local_url, verbose=False, download_files=str(sandbox / "downloads"))
        yield SimpleNamespace(client=client, settings=settings, url=demo.local_url)
    finally:
        demo.close()


def _sections(results: dict) -> dict:
    return {name: outcome["sections"] for name, outcome in results["benchmarks"].items()}


def test_a_served_run_scores_what_the_runner_scores_and_joins_the_leaderboard(served, data_dir, tmp_path):
    outputs = served.client.predict("baseline:stereotype", QUICK, LIMIT, N_BOOTSTRAP, SEED, api_name="/run")
    status, summary, occupation_plot, inconsistency_plot, pro_anti_plot, gap_plot, gallery, files = outputs
    expected = runner.run(
        "baseline:stereotype",
        QUICK,
        settings=runner.RunSettings(limit=LIMIT, n_bootstrap=N_BOOTSTRAP, seed=SEED),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    ).to_json()
    downloaded = {Path(path).name: Path(path) for path in files}
    assert set(downloaded) == {"results.json", "report.md", "summary.csv"}
    assert _sections(json.loads(downloaded["results.json"].read_text())) == _sections(json.loads(json.dumps(expected)))
    assert summary["data"] == charts.summary_frame(upgrade(expected)).values.tolist()
    # The stereotype baseline sends one of "she"/"he" to the stereotyped occupation: most pairs split.
    pairs_split = expected["benchmarks"]["winogender"]["sections"]["winogender"]["pairs_resolved_differently"]
    assert pairs_split > 0.5 and f"{pairs_split:.3f}" in {row[2] for row in summary["data"]}
    assert "baseline:stereotype" in status and "winogender 120" in status and "counter_gap 160" in status
    winogender = expected["benchmarks"]["winogender"]["sections"]["winogender"]
    preferences = [key for key, value in winogender.items() if key.startswith("preference/") and value is not None]
    assert occupation_plot["visible"] and len(occupation_plot["value"]["data"]) == len(preferences)
    assert inconsistency_plot["visible"] and not pro_anti_plot["visible"] and not gap_plot["visible"]
    # The gallery shows the run's PNGs: Winogender's and Counter-GAP's declared figures and their headline figures.
    captions = sorted(item["caption"] for item in gallery["value"])
    assert captions == [
        "counter_gap_delta_i",
        "counter_gap_headlines",
        "winogender_headlines",
        "winogender_occupations",
    ]

    board, _ = served.client.predict(None, True, api_name="/leaderboard")
    rows = [dict(zip(board["headers"], row)) for row in board["data"]]
    (ours,) = [row for row in rows if row["model"] == "baseline:stereotype" and row["limit"] == str(LIMIT)]
    for headline in run_outputs.summary_rows(upgrade(expected)):
        assert ours[score_column(headline)] == pytest.approx(headline["value"], abs=5e-5)

    note, cases_html, _ = served.client.predict(ours["run"], "winogender", 1, api_name="/explore")
    assert "Minimal pairs" in note and cases_html.count('class="case"') == min(10, round(pairs_split * 2 * LIMIT))
    assert '<b class="pronoun">' in cases_html and '<mark class="linked">' in cases_html


@pytest.mark.slow  # every benchmark at --limit 40 through the Space: the quick tier runs each at 1 (test_limits.py)
def test_the_space_runs_every_benchmark_at_its_default_limit(served, exported_set):
    for benchmark in BENCHMARKS.values():
        exported_set(benchmark.dataset)  # the folder the Space reads; exported once per test session
    parameters = served.client.view_api(return_format="dict", print_info=False)["named_endpoints"]["/run"]["parameters"]
    assert (
        {p["parameter_name"]: p.get("parameter_default") for p in parameters}["limit"]
        == 40
        == served.settings.default_limit
    )
    # The limit left out: the page's default is used.
    status, summary, *_ = served.client.predict(
        model_spec="baseline:random", benchmarks=list(BENCHMARKS), n_bootstrap=100, seed=0, api_name="/run"
    )
    counts = instances_at(40)  # 40 units of every design cell, counted by hand where tests/test_limits.py counts
    shown = dict(re.findall(r"(\w+) (\d+)", status.split("(instances: ", 1)[1].split(")", 1)[0]))
    assert list(shown) == list(BENCHMARKS)
    assert {name: int(shown[name]) for name in counts if name in shown} == {
        n: c for n, c in counts.items() if n in shown
    }
    rows = [dict(zip(summary["headers"], row)) for row in summary["data"]]
    assert {row["benchmark"] for row in rows} == set(BENCHMARKS)
    assert all(row["parsed"] == "1.000" for row in rows)  # a baseline's every answer is readable
    assert sum(row["value"] != "undefined" for row in rows) > len(rows) // 2
    # A random baseline chooses among candidates: WinoBias's CoNLL F1 is undefined, its reason in a column of its own.
    conll = [row for row in rows if row["benchmark"] == "winobias" and "CoNLL F1" in row["score"]]
    assert conll and all(row["value"] == "undefined" for row in conll)
    assert all(row["undefined because"].startswith("the model chooses among candidates") for row in conll)
    assert all(row["undefined because"] == "" for row in rows if row["value"] != "undefined")
    board, _ = served.client.predict(None, True, api_name="/leaderboard")
    (ours,) = [row for row in (dict(zip(board["headers"], row)) for row in board["data"]) if "abc" in row["benchmarks"]]
    assert ours["limit"] == "40" and all(ours[f"{name}: parse rate"] == 1.0 for name in BENCHMARKS)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nonsense:<b>x</b>", "unknown model spec 'nonsense:&lt;b&gt;x&lt;/b&gt;'"),  # shown as text, never as markup
        ("http://127.0.0.1:1", "cannot reach http://127.0.0.1:1/v1/info"),
        ("http://:8808", "names no host"),
        ("http://user:secret@127.0.0.1:8808", "put no credentials in the endpoint URL"),
        ("baseline:best", "unknown baseline 'best'"),
        ("", "enter a model"),
    ],
)
def test_bad_models_are_readable_errors_and_the_app_keeps_serving(served, spec, message):
    with pytest.raises(gradio_client.exceptions.AppError) as raised:
        served.client.predict(spec, ["winogender"], 2, 0, 0, api_name="/run")
    assert message in str(raised.value)
    status, summary, *_ = served.client.predict("baseline:oracle", ["winogender"], 1, 0, 0, api_name="/run")
    assert "baseline:oracle" in status and summary["data"][0][:3] == [
        "winogender",
        "pairs resolved differently",
        "0.000",
    ]


def test_a_failing_endpoint_model_is_a_readable_error(served):
    def predict(texts):
        raise RuntimeError("CUDA out of memory")

    server = make_server(predict, "failing")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(gradio_client.exceptions.AppError) as raised:
            served.client.predict(
                f"http://127.0.0.1:{server.server_address[1]}", ["winogender"], 1, 0, 0, api_name="/run"
            )
    finally:
        server.shutdown()
        server.server_close()
    assert "/v1/clusters answered 500: RuntimeError: CUDA out of memory" in str(raised.value)


F_COREF = ListedModel(
    "F-coref",
    "fastcoref",
    "biu-nlp/f-coref",
    "d5a382c8bfe1105cee1a73007525ee08ab693d9a",
    "91M parameters",
    "est. 2-5 min on CPU",
)


@pytest.fixture(scope="module")
def published(sandbox, data_dir, mirror):
    """The Space as published: endpoint URLs may reach public addresses only; one listed Hub model."""
    from corefbias.space import ui

    settings = _settings(sandbox / "published", data_dir, mirror, port=free_port(), models=ModelList((F_COREF,)))
    assert not settings.allow_private_endpoints
    demo = ui.build_app(settings)
    ui.launch(demo, settings, prevent_thread_lock=True, quiet=True)
    try:
        client = gradio_client.Client(
            demo.local_url, verbose=False, download_files=str(sandbox / "published-downloads")
        )
        yield SimpleNamespace(client=client, url=demo.local_url)
    finally:
        demo.close()


class _IPv6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


@pytest.fixture
def counting_server():
    """A protocol server on loopback (an empty model) that records every request it receives."""
    started = []

    def start(host: str):
        protocol = make_server(lambda texts: [[] for _ in texts], "counting")
        protocol.server_close()
        hits = []

        class Counting(protocol.RequestHandlerClass):
            def parse_request(self):
                hits.append(self.raw_requestline)
                return super().parse_request()

        server = (_IPv6Server if ":" in host else ThreadingHTTPServer)((host, 0), Counting)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return server.server_address[1], hits

    yield start
    for server in started:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("listen", "url_host"), [("127.0.0.1", "127.0.0.1"), ("127.0.0.1", "localhost"), ("::1", "[::1]")]
)
def test_endpoints_on_private_addresses_are_refused_unless_the_owner_allows_them(
    published, served, counting_server, listen, url_host
):
    port, hits = counting_server(listen)
    url = f"http://{url_host}:{port}"
    with pytest.raises(gradio_client.exceptions.AppError, match="refused to connect to .*loopback address"):
        published.client.predict(url, ["winogender"], 1, 0, 0, api_name="/run")
    assert hits == []
    status, *_ = served.client.predict(url, ["winogender"], 1, 0, 0, api_name="/run")
    assert (
        "finished" in status
        and hits[0].startswith(b"GET /v1/info")
        and any(b"POST /v1/clusters" in hit for hit in hits)
    )


@pytest.mark.parametrize(
    "spec",
    [
        "fastcoref:someone/any-model",  # a Hub id not on the list
        "fastcoref:biu-nlp/f-coref",  # listed, but not at its pinned revision
        "maverick:sapienzanlp/maverick-mes-ontonotes",
        "spacy:/etc",  # a local path
        "spacy:en_core_web_sm",  # an installed package
        "lingmess:/tmp",
    ],
)
def test_models_not_on_the_owners_list_are_refused_with_how_to_add_one(published, spec):
    with pytest.raises(gradio_client.exceptions.AppError) as raised:
        published.client.predict(spec, ["winogender"], 1, 0, 0, api_name="/run")
    message = str(raised.value)
    assert f"{spec} is not on this Space's model list (offered: F-coref)" in message
    assert "the owner adds one as a [[model]] entry with the Hub id and a pinned revision" in message


def test_a_listed_model_reaches_its_adapter_at_its_pinned_revision(published, monkeypatch, tmp_path):
    built, downloads = [], []

    class StandInFCoref:
        def __init__(self, **options):
            built.append(options)

        def predict(self, texts, max_tokens_in_batch):
            return [SimpleNamespace(get_clusters=lambda as_strings: []) for _ in texts]

    monkeypatch.setitem(sys.modules, "fastcoref", SimpleNamespace(FCoref=StandInFCoref))
    monkeypatch.setattr(hub_weights, "_hub_files", lambda repo, revision: ["config.json", "model.safetensors"])
    monkeypatch.setattr(hub_weights, "_hub_download", lambda *asked: downloads.append(asked) or tmp_path)
    status, *_ = published.client.predict(F_COREF.spec, ["winogender"], 1, 0, 0, api_name="/run")
    assert f"{F_COREF.spec}** finished" in status
    assert downloads == [
        ("biu-nlp/f-coref", F_COREF.revision, ["*.json", "*.txt", "*.model", "*.tiktoken", "*.safetensors"])
    ]
    assert built == [{"model_name_or_path": str(tmp_path), "device": "cpu", "enable_progress_bar": False}]


def test_the_model_list_file_is_checked_and_shown_in_the_model_menu(tmp_path):
    shipped = load_model_list(REPO / "spaces" / "corefbias" / "models.toml")
    assert F_COREF in shipped.models
    choices = inputs.model_choices(shipped)
    assert choices[0] == ("baseline:stereotype", "baseline:stereotype") and (F_COREF.display, F_COREF.spec) in choices
    assert (
        "chat:Qwen/Qwen2.5-7B-Instruct (sign in: runs on your Hugging Face account)",
        "chat:Qwen/Qwen2.5-7B-Instruct",
    ) in choices
    paid = inputs.model_choices(ModelList(owner_paid_chat=frozenset({"Qwen/Qwen2.5-7B-Instruct"})))
    assert paid[-1] == ("chat:Qwen/Qwen2.5-7B-Instruct", "chat:Qwen/Qwen2.5-7B-Instruct")
    assert F_COREF.display == "F-coref (biu-nlp/f-coref) · 91M parameters · est. 2-5 min on CPU"
    entry = 'label = "X"\nkind = "fastcoref"\nrepo = "a/b"\nrevision = "{}"\nsize = "1M"\nrun_time = "1 min"\n'
    for revision, kind, message in [
        ("main", "fastcoref", "full 40-character commit id"),
        ("0" * 40, "spacy", "kind 'spacy' is not one the Space runs"),
    ]:
        (tmp_path / "models.toml").write_text("[[model]]\n" + entry.format(revision).replace("fastcoref", kind))
        with pytest.raises(ValueError, match=message):
            load_model_list(tmp_path / "models.toml")


HF_ENTRY = """
[[model]]
label = "SmolLM2 135M Instruct"
kind = "hf"
repo = "HuggingFaceTB/SmolLM2-135M-Instruct"
revision = "1111111111111111111111111111111111111111"
size = "135M parameters"
run_time = "est. 2-5 min on CPU"
"""


def test_an_hf_entry_on_the_list_offers_that_language_model_and_no_other(tmp_path, monkeypatch):
    from corefbias.space import model_list

    assert model_list.hub_kinds() == ("fastcoref", "lingmess", "maverick", "hf")
    (tmp_path / "models.toml").write_text(HF_ENTRY)
    listed = load_model_list(tmp_path / "models.toml")
    assert listed.models == (SMOLLM2,)
    assert listed.specs == {"hf:HuggingFaceTB/SmolLM2-135M-Instruct@" + "1" * 40}
    listed.check(SMOLLM2.spec)
    for spec in [
        "hf:someone/other-model@" + "1" * 40,  # another repository
        "hf:HuggingFaceTB/SmolLM2-135M-Instruct",  # the listed one, not at its pinned revision
        "hf:HuggingFaceTB/SmolLM2-135M-Instruct@" + "2" * 40,
        "hf:/local/path",
        "hf:file.gguf",
        "hf:~/.cache/corefbias/llamacpp/models/SmolLM2-135M-Instruct.Q4_1.gguf",
    ]:
        with pytest.raises(ValueError, match=f"^{re.escape(spec)} is not on this Space's model list"):
            listed.check(spec)
        with pytest.raises(ValueError, match="is not on this Space's model list"):
            inputs.check_model_spec(spec, 300, listed)

    # The Model menu and its help say what the language model is.
    assert SMOLLM2.display == (
        "SmolLM2 135M Instruct (HuggingFaceTB/SmolLM2-135M-Instruct) · language model, chooses by log-likelihood "
        "· 135M parameters · est. 2-5 min on CPU"
    )
    assert (SMOLLM2.display, SMOLLM2.spec) in inputs.model_choices(listed)
    assert "coreference models predict clusters, unless marked: language model, chooses by log-likelihood" in (
        inputs.model_help(listed)
    )
    assert "language model" not in inputs.model_help(ModelList((F_COREF,)))

    # A GGUF file in a Hub repository is not offered; an old transformers (fastcoref's) refuses the list at start.
    (tmp_path / "models.toml").write_text(HF_ENTRY + 'gguf_file = "model.Q4_1.gguf"\n')
    with pytest.raises(ValueError, match="gguf_file is not supported: the Space runs hf: models from a Hub"):
        load_model_list(tmp_path / "models.toml")
    (tmp_path / "models.toml").write_text(HF_ENTRY)
    monkeypatch.setattr(
        model_list, "metadata", SimpleNamespace(version=lambda name: "4.45.2", PackageNotFoundError=LookupError)
    )
    with pytest.raises(
        ValueError, match=r"hf: models need transformers >= 4.56 \(corefbias\[hf\]\) and transformers 4.45.2 is"
    ):
        load_model_list(tmp_path / "models.toml")


class _ChatServer(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat server on loopback that records each request's Authorization header."""

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self.server.authorizations.append(self.headers.get("Authorization"))
        status, body = self.server.answer(self.headers.get("Authorization"))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def chat_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ChatServer)
    server.authorizations = []
    server.answer = lambda authorization: (200, json.dumps({"choices": [{"message": {"content": "A"}}]}).encode())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


OWNER_TOKEN, VISITOR_TOKEN = "hf_owner_secret_0123456789", "hf_visitor_secret_9876543210"


def test_chat_runs_on_the_visitors_token_or_the_owners_for_listed_models_only(
    sandbox, data_dir, mirror, tmp_path, chat_server, monkeypatch
):
    monkeypatch.setenv("HF_TOKEN", OWNER_TOKEN)
    settings = _settings(
        tmp_path,
        data_dir,
        mirror,
        visitor_sign_in=True,
        models=ModelList(owner_paid_chat=frozenset({"owner/paid"})),
        chat_base_url=f"http://127.0.0.1:{chat_server.server_address[1]}/v1",
    )
    store = RunStore(settings.data_root)
    with pytest.raises(
        jobs.JobError,
        match=r"chat:someone/else runs on your own Hugging Face account: sign in with the "
        r"'Sign in with Hugging Face' button, then run it again \(the chat models this "
        r"Space pays for: owner/paid\)",
    ):
        jobs.run_job(settings, store, "chat:someone/else", ["winogender"], 1, 0, 0)
    assert chat_server.authorizations == []

    jobs.run_job(settings, store, "chat:owner/paid", ["winogender"], 1, 0, 0)
    assert set(chat_server.authorizations) == {f"Bearer {OWNER_TOKEN}"}
    chat_server.authorizations.clear()
    jobs.run_job(settings, store, "chat:someone/else", ["winogender"], 1, 0, 0, visitor_token=VISITOR_TOKEN)
    assert set(chat_server.authorizations) == {f"Bearer {VISITOR_TOKEN}"}

    # A server that echoes the token in an error: the page shows it masked.
    chat_server.answer = lambda authorization: (401, f"bad token {authorization}".encode())
    with pytest.raises(jobs.JobError) as raised:
        jobs.run_job(settings, store, "chat:someone/else", ["winogender"], 1, 0, 0, visitor_token=VISITOR_TOKEN)
    assert "answered 401: bad token Bearer ***" in str(raised.value) and VISITOR_TOKEN not in str(raised.value)
    stored = [path.read_bytes() for path in settings.data_root.rglob("*") if path.is_file()]
    assert len(store.run_ids()) == 2 and not any(
        token.encode() in data for data in stored for token in (OWNER_TOKEN, VISITOR_TOKEN)
    )


def test_chat_without_a_signed_in_visitor_is_refused_on_the_page(published):
    with pytest.raises(
        gradio_client.exceptions.AppError, match=r"chat:someone/else runs on your own Hugging Face account"
    ):
        published.client.predict("chat:someone/else", ["winogender"], 1, 0, 0, api_name="/run")


@pytest.mark.parametrize(
    ("limit", "n_bootstrap", "message"),
    [
        (10_001, 0, "between 1 and 10000"),
        (-3, 0, "between 1 and 10000"),
        (2, 10**6, "bootstrap resamples must be between 0"),
    ],
)
def test_out_of_range_numbers_are_refused(served, limit, n_bootstrap, message):
    with pytest.raises(gradio_client.exceptions.AppError, match=message):
        served.client.predict("baseline:oracle", ["winogender"], limit, n_bootstrap, 0, api_name="/run")


def test_the_time_limit_stops_a_run_between_batches(sandbox, data_dir, mirror, tmp_path):
    settings = _settings(tmp_path, data_dir, mirror, time_limit_s=0.0)
    store = RunStore(settings.data_root)
    seen = []
    with pytest.raises(jobs.JobError, match="time limit of 0 s during winogender \\(0 of 30 instances\\)"):
        jobs.run_job(
            settings, store, "baseline:oracle", ["winogender"], 5, 0, 0, progress=lambda *step: seen.append(step)
        )
    assert seen[-1] == ("winogender", 0, 30) and store.run_ids() == []


def _stand_in_spaces(monkeypatch) -> SimpleNamespace:
    """A stand-in for the Hub's ``spaces`` package: ``held`` records each GPU call's duration, ``holding`` is
    True while a decorated call runs (this machine has no GPU)."""
    gpus = SimpleNamespace(held=[], holding=False)

    def gpu(duration):
        def decorate(handler):
            def on_gpu(*args, **kwargs):
                gpus.held.append(duration)
                gpus.holding = True
                try:
                    return handler(*args, **kwargs)
                finally:
                    gpus.holding = False

            return on_gpu

        return decorate

    monkeypatch.setitem(sys.modules, "spaces", SimpleNamespace(GPU=gpu))
    return gpus


def test_on_zerogpu_the_run_handler_holds_a_gpu_for_the_time_limit(sandbox, data_dir, mirror, tmp_path, monkeypatch):
    """ZeroGPU attaches a GPU only inside a ``spaces.GPU``-decorated call: the Run handler must be that call, with
    the time limit as its duration (this machine has no GPU, so a stand-in ``spaces`` records what the Hub's
    package would be asked)."""
    held = _stand_in_spaces(monkeypatch).held
    from corefbias.space import ui

    settings = _settings(tmp_path, data_dir, mirror, port=free_port(), zero_gpu=True, device="cpu", time_limit_s=120)
    demo = ui.build_app(settings)
    ui.launch(demo, settings, prevent_thread_lock=True, quiet=True)
    try:
        client = gradio_client.Client(demo.local_url, verbose=False, download_files=str(tmp_path / "downloads"))
        assert held == []
        status, summary, *_ = client.predict("baseline:oracle", ["winogender"], 1, 0, 0, api_name="/run")
        client.predict(None, True, api_name="/leaderboard")
    finally:
        demo.close()
    assert held == [120] and "finished" in status and summary["data"]


SMOLLM2 = ListedModel(
    "SmolLM2 135M Instruct",
    "hf",
    "HuggingFaceTB/SmolLM2-135M-Instruct",
    "1" * 40,
    "135M parameters",
    "est. 2-5 min on CPU",
)


@pytest.fixture
def stand_in_hf(monkeypatch):
    """``hf_causal_lm.load`` recording what it is asked (no Hub download here): a cloze model whose options are
    all equally likely, so it picks the first; ``loads`` holds (argument, device, options, whether ``gpus`` — a
    test's stand-in ``spaces`` — held a GPU then)."""
    from corefbias.models import hf_causal_lm
    from corefbias.models.cloze import ClozeModel

    class EvenOdds:
        identity = {"kind": "hf", "weights": {"hub_id": "stand-in"}}

        def loglikelihoods(self, requests):
            return [[0.0] * len(request.continuations) for request in requests]

    stand_in = SimpleNamespace(loads=[], gpus=SimpleNamespace(holding=False))

    def load(argument, kind="hf", device="cpu", **options):
        stand_in.loads.append((argument, device, options, stand_in.gpus.holding))
        return ClozeModel(f"{kind}:{argument}", EvenOdds())

    monkeypatch.setattr(hf_causal_lm, "load", load)
    return stand_in


def test_on_zerogpu_a_listed_hf_model_loads_on_cuda_inside_the_gpu_call(
    sandbox, data_dir, mirror, tmp_path, monkeypatch, stand_in_hf
):
    gpus = stand_in_hf.gpus = _stand_in_spaces(monkeypatch)
    from corefbias.space import ui

    # What SpaceSettings.from_env gives on ZeroGPU: cuda, the 120 s a ZeroGPU call may hold a GPU.
    settings = _settings(
        tmp_path,
        data_dir,
        mirror,
        port=free_port(),
        zero_gpu=True,
        device="cuda",
        time_limit_s=120,
        models=ModelList((SMOLLM2,)),
    )
    demo = ui.build_app(settings)
    ui.launch(demo, settings, prevent_thread_lock=True, quiet=True)
    try:
        client = gradio_client.Client(demo.local_url, verbose=False, download_files=str(tmp_path / "downloads"))
        status, summary, *_ = client.predict(SMOLLM2.spec, ["winogender"], 1, 0, 0, api_name="/run")
        with pytest.raises(gradio_client.exceptions.AppError, match="is not on this Space's model list"):
            client.predict("hf:HuggingFaceTB/SmolLM2-135M-Instruct", ["winogender"], 1, 0, 0, api_name="/run")
    finally:
        demo.close()
    assert f"{SMOLLM2.spec}** finished" in status and summary["data"]
    assert stand_in_hf.loads == [(f"{SMOLLM2.repo}@{SMOLLM2.revision}", "cuda", {}, True)]
    assert gpus.held == [120, 120]  # the refused run held the GPU too, but loaded nothing


def test_off_zerogpu_a_listed_hf_model_runs_on_the_spaces_device(sandbox, data_dir, mirror, tmp_path, stand_in_hf):
    settings = _settings(tmp_path, data_dir, mirror, models=ModelList((SMOLLM2,)))
    job = jobs.run_job(settings, RunStore(settings.data_root), SMOLLM2.spec, ["winogender"], 1, 0, 0)
    assert job.result.runs["winogender"].num_predicted > 0
    assert stand_in_hf.loads == [(f"{SMOLLM2.repo}@{SMOLLM2.revision}", "cpu", {}, False)]


def test_secrets_never_reach_the_page(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_abcdefghijklmnop")
    monkeypatch.setenv("GRADIO_SERVER_PORT", "7861")  # not a secret: left as it is
    assert inputs.redact("GET https://x/?t=hf_abcdefghijklmnop on 7861 failed") == "GET https://x/?t=*** on 7861 failed"
    assert (
        jobs.readable(RuntimeError("token hf_abcdefghijklmnop rejected"))
        == "the run failed: RuntimeError: token *** rejected"
    )


def test_inputs_are_checked():
    assert inputs.check_model_spec("  baseline:dist-2 ", 300) == "baseline:dist-2"
    assert inputs.check_model_spec("https://example.org:8808/coref", 300) == "https://example.org:8808/coref"
    for bad, message in [
        ("baseline:x y", "spaces"),
        ("http://h:99999", "malformed endpoint URL"),
        ("http://h/?key=1", "without \\?query"),
        ("b:" + "x" * 400, "the limit is 300"),
    ]:
        with pytest.raises(ValueError, match=message):
            inputs.check_model_spec(bad, 300)
    assert (
        inputs.check_limit(0, 10) is None
        and inputs.check_limit(None, 10) is None
        and inputs.check_limit(10.0, 10) == 10
    )
    with pytest.raises(ValueError, match="whole number"):
        inputs.check_limit(2.5, 10)
    with pytest.raises(ValueError, match="tick at least one benchmark"):
        inputs.check_benchmarks([])
    with pytest.raises(ValueError, match="unknown benchmark 'winobias3'"):
        inputs.check_benchmarks(["winobias3"])
    # Presets are what a visitor may run without the owner's list: baselines and chat, never a kind loading by name.
    presets = [spec for _, spec in inputs.model_choices(ModelList())]
    assert (
        presets[0] == "baseline:stereotype"
        and "baseline:dist-1" in presets
        and "chat:Qwen/Qwen2.5-7B-Instruct" in presets
    )
    assert not [spec for spec in presets if kind_of(spec)[0].loads_by_name]


def _run(parts: dict, decisions: list, golds: list, condition_column: str | None = None):
    """A stand-in for a runner.BenchmarkRun: parts as columns, instances in the parts' row order."""
    instances = []
    rows = [(part, index) for part, columns in parts.items() for index in range(len(columns["id"]))]
    for (part, index), decision, gold in zip(rows, decisions, golds, strict=True):
        instances.append(
            {
                "id": parts[part]["id"][index],
                "config": part[0],
                "split": part[1],
                "decision": decision,
                "gold": gold,
                "parsed": True,
            }
        )
    benchmark = SimpleNamespace(condition_column=condition_column)
    return SimpleNamespace(parts=parts, instances=instances, sections={"any": {}}, benchmark=benchmark)


def _columns(rows: list[dict]) -> dict:
    return {key: [row[key] for row in rows] for key in rows[0]}


def _instance(identifier, text="Ann met Bob because she was late.", **columns):
    return {
        "id": identifier,
        "text": text,
        "pronoun": {"start": 20, "end": 23},
        "candidates": [{"start": 0, "end": 3}, {"start": 8, "end": 11}],
        **columns,
    }


def test_counter_gap_cases_rank_quadruples_by_their_own_delta_i():
    roles = ["original", "gender_controlled", "gender_swapped_1", "gender_swapped_2"]
    genders = ["male", "male", "female", "female"]
    rows = [
        _instance(f"{q}{i}", quadruple_id=q, role=role, gender=gender)
        for q in "ABC"
        for i, (role, gender) in enumerate(zip(roles, genders))
    ]
    gold, wrong = [True, False], [False, True]
    # A: right on both male instances, wrong on both female ones: I_across 4/4, I_within 0, ΔI +1.
    # B: right on the original and swapped-1 only: I_across 2/4, I_within (1 + 1)/2, ΔI −0.5.
    # C: right everywhere: consistent, not shown.
    decisions = [gold, gold, wrong, wrong] + [gold, wrong, gold, wrong] + [gold] * 4
    run = _run({("default", "test"): _columns(rows)}, decisions, [gold] * 12)
    cases = explore.view_cases(QUADRUPLES, run)
    assert [case["title"] for case in cases] == [
        "quadruple A: I_across 1.00, I_within 0.00, ΔI +1.00",
        "quadruple B: I_across 0.50, I_within 1.00, ΔI -0.50",
    ]
    assert [member["correct"] for member in cases[1]["members"]] == [True, False, True, False]
    assert cases[0]["members"][2]["label"] == "gender swapped 1 (female)"


def test_winogender_and_pro_anti_cases():
    wino = [
        _instance(
            f"p{n}.{gender}",
            pair_id=f"p{n}",
            gender=gender,
            occupation="nurse",
            participant="patient",
            bls_pct_female=90.0,
        )
        for n in (1, 2)
        for gender in ("female", "male", "neutral")
    ]
    occupation, participant = [True, False], [False, True]
    decisions = [occupation, participant, participant] + [participant] * 3  # p1 splits by gender, p2 does not
    wino_run = _run({("default", "test"): _columns(wino)}, decisions, [occupation] * 6)
    (case,) = explore.view_cases(MINIMAL_PAIRS, wino_run)
    assert case["title"].startswith(
        "nurse / patient (p1; 90% of nurses are women, BLS): female → occupation, male → participant"
    )
    assert [member["label"] for member in case["members"]] == [
        "female pronoun → occupation",
        "male pronoun → participant",
        "neutral pronoun → participant",
    ]

    gold, wrong = [True, False], [False, True]
    parts = {}
    for kind in ("type1", "type2"):  # the same pair ids in both types: pairs are per type
        for polarity in ("pro", "anti"):
            parts[(f"{kind}_{polarity}", "test")] = _columns(
                [
                    _instance(f"{kind}-{polarity}-{n}", pair_id=str(n), polarity=polarity, pronoun_gender="female")
                    for n in (1, 2)
                ]
            )
    decisions = [
        gold,
        wrong,  # type1 pro: pair 1 right, pair 2 wrong
        wrong,
        gold,  # type1 anti: pair 1 wrong, pair 2 right
        gold,
        gold,
        gold,
        gold,  # type2: all right, nothing to show
    ]
    cases = explore.view_cases(PRO_ANTI_PAIRS, _run(parts, decisions, [gold] * 8, condition_column="polarity"))
    assert [case["title"] for case in cases] == [
        "pair 1 (female pronoun): pro ✓, anti ✗",
        "pair 2 (female pronoun): pro ✗, anti ✓",
    ]
    # SoWinoBias's layout: one config, pro/anti in "condition", "polarity" is the adjective's.
    sowinobias = {
        ("default", "test"): _columns(
            [
                _instance(
                    f"so-{condition}", pair_id="3", condition=condition, polarity="negative", pronoun_gender="male"
                )
                for condition in ("anti", "pro")
            ]
        )
    }
    sowinobias_run = _run(sowinobias, [wrong, gold], [gold] * 2, condition_column="condition")
    (case,) = explore.view_cases(PRO_ANTI_PAIRS, sowinobias_run)
    assert case["title"] == "pair 3 (male pronoun): pro ✓, anti ✗"
    assert [member["label"] for member in case["members"]] == ["anti (so-anti)", "pro (so-pro)"]


def test_cases_render_as_escaped_html_marking_pronoun_gold_and_links():
    member = {
        "label": "original <x>",
        "correct": False,
        "text": "<i>Ann</i> met Bob & she left.",
        "pronoun": [21, 24],
        "candidates": [
            {"start": 3, "end": 6, "gold": True, "linked": False},
            {"start": 15, "end": 18, "gold": False, "linked": True},
        ],
    }
    shown = explore.render([{"title": "t <script>", "members": [member]}])
    assert (
        '&lt;i&gt;<span class="candidate"><u>Ann</u></span>&lt;/i&gt; met <mark class="linked">Bob</mark> &amp; '
        '<b class="pronoun"><u>she</u></b> left.' in shown
    )
    assert "<script>" not in shown and 'original &lt;x&gt;<br><span class="incorrect">✗ incorrect</span>' in shown


def test_leaderboard_sorts_by_any_score_with_missing_scores_last(tmp_path):
    store = RunStore(tmp_path)
    for name, value in [("a", 0.2), ("b", None), ("c", 0.7)]:
        folder = store.runs / f"20260101-00000{len(name + str(value))}-{name * 8}"
        folder.mkdir()
        sections = {} if value is None else {"counter_gap": {"delta_i": value}}
        (folder / "results.json").write_text(
            json.dumps(
                {
                    "model": f"baseline:{name}",
                    "settings": {"limit": None, "n_bootstrap": 0},
                    "benchmarks": {"counter_gap": {"sections": sections}},
                }
            )
        )
    assert store.leaderboard("counter_gap: ΔI")["model"].tolist() == ["baseline:c", "baseline:a", "baseline:b"]
    assert store.leaderboard("counter_gap: ΔI", descending=False)["model"].tolist() == [
        "baseline:a",
        "baseline:c",
        "baseline:b",
    ]
    with pytest.raises(ValueError, match="cannot sort by 'nope'"):
        store.leaderboard("nope")
    with pytest.raises(ValueError, match="no run '../x'"):
        store.results("../x")
    csv_lines = store.leaderboard_csv().read_text().splitlines()
    assert (
        csv_lines[0] == "model,benchmarks,limit,n_bootstrap,date,"
        "counter_gap: Acc_Diff (M − F),counter_gap: accuracy,counter_gap: ΔI,run"
    )
    assert len(csv_lines) == 4


def test_learn_pages_come_from_the_metric_cards():
    pages = dict(learn.metric_pages(REPO / "metrics"))
    assert set(pages) >= {"Counter-GAP ΔI", "Winogender Bias", "GAP acc-Bias"}
    counter_gap = pages["Counter-GAP ΔI"]
    card = (REPO / "metrics" / "counter_gap_delta_i" / "README.md").read_text()
    assert "**ΔI = I_across − I_within** (Eq. 4)" in counter_gap and "xie-etal-2023-counter" in counter_gap
    assert counter_gap.split("### Citation", 1)[1].strip() == card.split("## Citation", 1)[1].strip()
    assert "| counter_gap | ΔI | 0 | `counter_gap_delta_i` | en |" in learn.headline_table()
    assert learn.metric_pages(None) == []


def test_gap_weight_histogram_counts_the_weighted_examples_by_gender():
    weights = [0.0, 0.5, 1.0, 1.0, 2.0, 0.0]  # weight 0: the example is left out by the balancing
    genders = ["female", "female", "female", "male", "male", "male"]
    run = SimpleNamespace(
        benchmark=BENCHMARKS["gap"],
        sections={"gap/w": from_flat({"weights": weights})},
        parts={("default", "test"): {"gender": genders}},
    )
    frame, width = charts.gap_weights_frame(SimpleNamespace(runs={"gap": run}), bins=3)
    # Bins [0.5, 1.0), [1.0, 1.5), [1.5, 2.0] over the positive weights, given by their centres.
    assert width == 0.5
    assert frame.values.tolist() == [
        [0.75, 1, "female"],
        [1.25, 1, "female"],
        [1.75, 0, "female"],
        [0.75, 0, "male"],
        [1.25, 1, "male"],
        [1.75, 1, "male"],
    ]
    assert charts.gap_weights_frame(SimpleNamespace(runs={})) is None


def test_compare_tab_tests_the_differences_between_stored_runs(served):
    for spec in ("baseline:oracle", "baseline:random"):
        served.client.predict(spec, QUICK, LIMIT, N_BOOTSTRAP, SEED, api_name="/run")
    board, _ = served.client.predict(None, True, api_name="/leaderboard")
    rows = [dict(zip(board["headers"], row)) for row in board["data"]]
    ids = {row["model"]: row["run"] for row in rows if row["limit"] == str(LIMIT)}
    note, table, forest, files = served.client.predict(
        [ids["baseline:random"], ids["baseline:oracle"]], api_name="/compare"
    )
    assert "Holm" in note and "Pearson" not in note and "r with BLS % female: not a sum over pair_id units" in note
    differences = [dict(zip(table["headers"], row)) for row in table["data"]]
    assert {row["A"] for row in differences} == {"baseline:random"} and len(differences) == 6
    (split,) = [row for row in differences if row["score"] == "pairs resolved differently"]
    assert split["B value"] == "0.000" and split["A − B"].rstrip("*") == split["A value"]
    assert split["A − B"].endswith("*") == (float(split["p (Holm)"]) < 0.05)
    assert forest["visible"] and Path(forest["value"]).read_bytes()[:4] == b"\x89PNG"
    assert {Path(path).name for path in files} == {"comparison.json", "comparison.md", "forest.png"}
    with pytest.raises(gradio_client.exceptions.AppError, match="pick at least two runs"):
        served.client.predict([ids["baseline:oracle"]], api_name="/compare")
