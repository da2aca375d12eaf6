"""Faults survived, nothing lost: a driver killed mid-benchmark, endpoints that fail, writers that race.

Every model here is served from this process on 127.0.0.1 by ``LoopbackServer``, which answers corefbias's
cluster protocol or OpenAI's chat completions and fails the requests a test picks: it drops the connection
unanswered, cuts the body short, answers 500, or stalls past the client's timeout. ``corefbias run`` runs
as a subprocess where a process must be killed or several must write one cache at once.
"""

import json
import math
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from corefbias import cli
from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import executors, run_outputs, runner
from corefbias.harness.benchmark_data import load_part
from corefbias.harness.prediction_cache import PredictionCache
from corefbias.models.base import ModelError
from corefbias.models.http_protocol import PROTOCOL
from corefbias.models.openai_http import EndpointError
from corefbias.models.registry import load_model
from corefbias.space.store import RunStore

WINOGENDER = 720  # instances
BATCH = 8
FAULT_KINDS = ("drop", "cut", "500", "stall")
TIMEOUT = 1.0  # the clients' timeout per request
STALL_SECONDS = 1.5  # a stalled answer would come after the client's timeout
CLI = [sys.executable, "-c", "import sys; from corefbias.cli import main; sys.exit(main())"]


@pytest.fixture(scope="module")
def data_dir(exported_set):
    return exported_set("winogender").parent


class LoopbackServer(ThreadingHTTPServer):
    """``answer(method, path, body) -> (status, payload)`` on 127.0.0.1, failing the requests ``reset`` picks.

    A request is (method, path, body): a client's retry is the same request again, so ``attempts`` tells
    how often each was sent. ``gate``, when set, is called before each POST is answered (a delay, a barrier).
    """

    daemon_threads = True
    block_on_close = False

    def __init__(self, answer):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answer = answer
        self.lock = threading.Lock()
        self.gate = None
        self.reset()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def reset(self, share: int | None = None, fail_after: int | None = None) -> None:
        """Count afresh; fail the first attempt of every ``share``-th distinct request (the first one among
        them), and every attempt of every POST once ``fail_after`` POSTs have been answered."""
        with self.lock:
            self.share, self.fail_after = share, fail_after
            self.attempts = Counter()
            self.faults = []  # (kind, request), kinds in FAULT_KINDS' order, round and round
            self.answered_posts = 0

    def fault(self, request: tuple) -> str | None:
        """The fault this attempt of ``request`` meets, or None for an answer."""
        with self.lock:
            first = request not in self.attempts
            index = len(self.attempts)
            self.attempts[request] += 1
            picked = first and self.share is not None and index % self.share == 0
            broken = request[0] == "POST" and self.fail_after is not None and self.answered_posts >= self.fail_after
            if not (picked or broken):
                self.answered_posts += request[0] == "POST"
                return None
            kind = FAULT_KINDS[len(self.faults) % len(FAULT_KINDS)]
            self.faults.append((kind, request))
            return kind

    def posts(self) -> list[bytes]:
        """The bodies of the POSTs sent, once each however often they were retried."""
        return [body for method, _, body in self.attempts if method == "POST"]

    def handle_error(self, request, client_address):
        pass  # a client that gave up on a stalled or cut answer: the broken pipe is the fault itself


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.0: the connection closes after each answer, so a dropped or cut one ends where the fault leaves it.

    def do_GET(self):
        self._handle("GET", b"")

    def do_POST(self):
        self._handle("POST", self.rfile.read(int(self.headers["Content-Length"])))

    def _handle(self, method, body):
        server = self.server
        kind = server.fault((method, self.path, body))
        if kind == "stall":
            time.sleep(STALL_SECONDS)
            return
        if kind == "drop":
            return  # the connection closes with no answer at all
        if method == "POST" and server.gate is not None:
            server.gate()
        status, payload = (500, {"error": "overloaded"}) if kind == "500" else server.answer(method, self.path, body)
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2] if kind == "cut" else data)

    def log_message(self, format, *args):  # noqa: A002 — the base class's signature
        pass


@pytest.fixture
def serve(start_server):
    """``serve(answer)``: a started ``LoopbackServer``, shut down after the test."""
    return lambda answer: start_server(LoopbackServer(answer))


def toy_clusters(texts: list[str]) -> list:
    """A cluster model's answer, cheap and exact: each text's first word with every he/she/him/her/his in it."""
    clusters = []
    for text in texts:
        first = re.match(r"\w+", text)
        pronouns = [[m.start(), m.end()] for m in re.finditer(r"\b(he|she|him|her|his)\b", text)]
        clusters.append([[[first.start(), first.end()], *pronouns]] if first and pronouns else [])
    return clusters


def cluster_protocol(max_texts: int):
    """corefbias's cluster protocol (``models.http_protocol``) answered by ``toy_clusters``."""

    def answer(method, path, body):
        if method == "GET":
            return 200, {"protocol": PROTOCOL, "model": "toy", "max_texts": max_texts, "max_chars": 20000}
        return 200, {"clusters": toy_clusters(json.loads(body)["texts"])}

    return answer


def chat_completions(method, path, body):
    """An OpenAI-compatible chat endpoint whose model answers a letter picked by the question's text alone."""
    if method == "GET":
        return 200, {"object": "list", "data": [{"id": "test/model", "object": "model", "owned_by": "test"}]}
    question = json.loads(body)["messages"][-1]["content"]
    letters = re.findall(r"^([A-Z])\. ", question, flags=re.M)
    letter = letters[sum(question.encode("utf-8")) % len(letters)]
    message = {"role": "assistant", "content": letter}
    return 200, {"object": "chat.completion", "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}


def run_command(model: str, cache, out, data_dir, mirror, *options: str) -> list[str]:
    """``corefbias run`` of ``model`` on winogender as a subprocess's argv."""
    return [
        *CLI,
        "run",
        "--model",
        model,
        "--benchmark",
        "winogender",
        "--mirror",
        str(mirror),
        "--data-dir",
        str(data_dir),
        "--cache",
        str(cache),
        "--out",
        str(out),
        "--no-plots",
        "--n-bootstrap",
        "200",
        "--batch-size",
        str(BATCH),
        *options,
    ]


SUBPROCESS_ENV = {**os.environ, "OMP_NUM_THREADS": "1"}


def cached_rows(path) -> Counter:
    """Answers per model key in the cache at ``path``, read through a read-only connection (0 before it exists)."""
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    except sqlite3.OperationalError:
        return Counter()
    try:
        return Counter(dict(connection.execute("SELECT model, COUNT(*) FROM predictions GROUP BY model")))
    except sqlite3.OperationalError:  # the file is there, its table not yet
        return Counter()
    finally:
        connection.close()


def results_of(out) -> dict:
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def scores(results: dict) -> dict:
    """What a results.json scores: every benchmark's sections and headlines."""
    return {
        name: {"sections": outcome["sections"], "headlines": outcome["headlines"]}
        for name, outcome in results["benchmarks"].items()
    }


def texts_asked(server: LoopbackServer) -> int:
    return sum(len(json.loads(body)["texts"]) for body in server.posts())


# --- 1. the driver killed mid-benchmark -----------------------------------------------------------------------


@pytest.mark.slow
def test_a_run_killed_mid_benchmark_resumes_with_only_the_missing_answers(serve, data_dir, mirror, tmp_path):
    server = serve(cluster_protocol(max_texts=64))  # one request per batch of the runner
    server.gate = lambda: time.sleep(0.01)  # slow enough to be caught mid-way
    cache = tmp_path / "cache.sqlite"
    command = run_command(server.url, cache, tmp_path / "killed", data_dir, mirror)
    with open(tmp_path / "killed.err", "w") as errors:
        process = subprocess.Popen(command, env=SUBPROCESS_ENV, stdout=subprocess.DEVNULL, stderr=errors)
        deadline = time.monotonic() + 120
        while sum(cached_rows(cache).values()) < WINOGENDER // 4:
            assert process.poll() is None, (tmp_path / "killed.err").read_text()
            assert time.monotonic() < deadline, "the run never cached a quarter of its answers"
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=30) == -signal.SIGKILL
    kept = sum(cached_rows(cache).values())
    # Whole batches are committed or not at all, and the killed run lost at most the batch it was asking about.
    assert 0 < kept < WINOGENDER and kept % BATCH == 0
    assert kept <= texts_asked(server) <= kept + BATCH
    with PredictionCache(cache) as opened:
        assert opened.check() == []

    server.reset()
    resumed = subprocess.run(
        run_command(server.url, cache, tmp_path / "resumed", data_dir, mirror),
        env=SUBPROCESS_ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    resumed_results = results_of(tmp_path / "resumed")
    missing = WINOGENDER - kept
    assert resumed_results["provenance"]["instances"]["winogender"] == {"predicted": missing, "from_cache": kept}
    assert texts_asked(server) == missing and len(server.posts()) == missing // BATCH
    # Every batch sent once; the server's info asked at the start and again after each batch (is it the same model?).
    assert set(posts_attempts(server).values()) == {1}
    assert server.attempts["GET", "/v1/info", b""] == 1 + missing // BATCH
    assert f"{missing} instances predicted, {kept} from the cache" in resumed.stdout

    server.reset()
    undisturbed = runner.run(
        server.url,
        ["winogender"],
        runner.RunSettings(n_bootstrap=200, batch_size=BATCH),
        data_dir=data_dir,
        cache_path=tmp_path / "fresh.sqlite",
        progress=False,
    )
    assert undisturbed.provenance["instances"]["winogender"] == {"predicted": WINOGENDER, "from_cache": 0}
    assert len(server.posts()) == WINOGENDER // BATCH
    assert scores(resumed_results) == scores(json.loads(json.dumps(undisturbed.to_json())))
    assert scores(resumed_results)["winogender"]["headlines"]  # the comparison compared scores


WRITER = """
import sys
from corefbias.harness.prediction_cache import PredictionCache

with PredictionCache(sys.argv[1]) as cache:
    for batch in range(10**6):
        cache.put(("m", "d", "c", "s"), {f"{batch}-{i}": [[[i, i + 1], [i + 2, i + 3]]] * 20 for i in range(50)})
"""


@pytest.mark.parametrize("delay", [0.05, 0.13, 0.31])
def test_a_writer_killed_mid_write_leaves_whole_batches(tmp_path, delay):
    # The run above is most likely killed while it waits for its model; this writer does nothing but ``put``,
    # so the kill lands while a batch is written, and the file must still hold whole 50-answer batches only.
    cache = tmp_path / "cache.sqlite"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(cache)], env=SUBPROCESS_ENV)
    deadline = time.monotonic() + 60
    while not cached_rows(cache):
        assert writer.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    time.sleep(delay)
    writer.send_signal(signal.SIGKILL)
    assert writer.wait(timeout=30) == -signal.SIGKILL
    with PredictionCache(cache) as opened:
        assert opened.check() == []
        assert opened.count() > 0 and opened.count() % 50 == 0


def test_the_integrity_check_finds_broken_answers_and_a_broken_file(tmp_path):
    path = tmp_path / "cache.sqlite"
    with PredictionCache(path) as cache:
        cache.put(
            ("m", "winogender", "default", "test"), {str(i): {"choice": i % 2, "parsed": True} for i in range(2000)}
        )
        assert cache.check() == []
    with sqlite3.connect(path) as writer:  # an answer cut short by something other than the cache
        writer.execute("UPDATE predictions SET output = '{\"choice\": ' WHERE instance = '7'")
    writer.close()
    with PredictionCache(path) as cache:
        (problem,) = cache.check()
    assert problem.startswith("('m', 'winogender', 'default', 'test', '7'): the stored output is not JSON")
    data = bytearray(path.read_bytes())
    page = 4096
    data[3 * page : 4 * page] = b"\xff" * page  # a page of the table overwritten
    path.write_bytes(bytes(data))
    with PredictionCache(path) as cache:
        problems = cache.check()
    # How SQLite words it depends on its version: the file is malformed, or a page of it is.
    assert problems and any(word in problem.lower() for problem in problems for word in ("malformed", "page"))


# --- 2. endpoints that fail ------------------------------------------------------------------------------------


def _run_in_process(spec, data_dir, cache, **options):
    return runner.run(
        spec,
        ["winogender"],
        runner.RunSettings(limit=5, n_bootstrap=100, batch_size=BATCH),
        data_dir=data_dir,
        cache_path=cache,
        progress=False,
        model_options={"timeout": TIMEOUT, "retries": 3, "backoff": 0.01, "workers": 2, **options},
    )


def _assert_same_answers(faulted, clean):
    assert faulted.provenance["model"]["cache_key"] == clean.provenance["model"]["cache_key"]
    assert (
        faulted.provenance["instances"]
        == clean.provenance["instances"]
        == {"winogender": {"predicted": 30, "from_cache": 0}}
    )
    assert json.loads(json.dumps(faulted.to_json()["benchmarks"]["winogender"]["sections"])) == json.loads(
        json.dumps(clean.to_json()["benchmarks"]["winogender"]["sections"])
    )
    assert faulted.runs["winogender"].instances == clean.runs["winogender"].instances


def _assert_each_fault_asked_again_once(server):
    faulted = {request for _, request in server.faults}
    assert len(server.faults) == len(faulted) == math.ceil(len(server.attempts) / 3)
    assert {kind for kind, _ in server.faults} == set(FAULT_KINDS)
    # Who the model is, asked first (its fault asked again), then once more after each of the 4 batches of 8.
    (identity,) = [request for request in server.attempts if request[0] == "GET"]
    assert server.faults[0][1] == identity and server.attempts[identity] == 2 + math.ceil(30 / BATCH)
    posts = posts_attempts(server)
    assert {request: posts[request] for request in faulted - {identity}} == dict.fromkeys(faulted - {identity}, 2)
    assert set(posts.values()) == {1, 2}


def posts_attempts(server: LoopbackServer) -> dict:
    """Attempts per POST request (a batch or a question), each counted however often it was retried."""
    return {request: count for request, count in server.attempts.items() if request[0] == "POST"}


def _cli_run(model, data_dir, cache, out, *options):
    return cli.main(
        [
            "run",
            "--model",
            model,
            "--benchmark",
            "winogender",
            "--limit",
            "5",
            "--n-bootstrap",
            "100",
            "--batch-size",
            "4",
            "--data-dir",
            str(data_dir),
            "--cache",
            str(cache),
            "--out",
            str(out),
            "--no-plots",
            "--model-arg",
            f"timeout={TIMEOUT}",
            "--model-arg",
            "retries=2",
            "--model-arg",
            "backoff=0.01",
            "--concurrency",
            "2",
            *options,
        ]
    )


def _assert_stops_then_resumes(server, spec, endpoint, fail_after, data_dir, tmp_path, capsys, clean, *options):
    """Every POST fails once ``fail_after`` have been answered (those of the first 8 instances, two batches of 4):
    the run stops naming ``endpoint`` after 3 attempts and writes no results; healed, it resumes to the clean
    run's scores."""
    cache = tmp_path / "outage.sqlite"
    server.reset(fail_after=fail_after)
    assert _cli_run(spec, data_dir, cache, tmp_path / "outage", *options) == 2
    error = capsys.readouterr().err.splitlines()[-1]  # the line after the progress bar
    assert error.startswith("corefbias: ") and endpoint in error and error.endswith("(3 attempts)")
    assert not (tmp_path / "outage" / "results.json").exists()
    failed = {request for _, request in server.faults}
    assert failed and {server.attempts[request] for request in failed} == {3}
    assert sum(cached_rows(cache).values()) == 8  # the batches answered before the outage, kept

    server.reset()
    assert _cli_run(spec, data_dir, cache, tmp_path / "healed", *options) == 0
    healed = results_of(tmp_path / "healed")
    assert healed["provenance"]["instances"]["winogender"] == {"predicted": 22, "from_cache": 8}
    assert scores(healed) == scores(json.loads(json.dumps(clean.to_json())))


def test_cluster_protocol_faults_are_asked_again_into_the_fault_free_answers(serve, data_dir, tmp_path, capsys):
    server = serve(cluster_protocol(max_texts=2))
    clean = _run_in_process(server.url, data_dir, tmp_path / "clean.sqlite")
    assert not server.faults and len(server.posts()) == 15

    server.reset(share=3)
    faulted = _run_in_process(server.url, data_dir, tmp_path / "faulted.sqlite")
    _assert_same_answers(faulted, clean)
    _assert_each_fault_asked_again_once(server)
    assert server.faults[0] == ("drop", ("GET", "/v1/info", b""))  # the server's info is asked again too

    # 8 instances are 4 POSTs of 2 texts.
    _assert_stops_then_resumes(server, server.url, f"{server.url}/v1/clusters", 4, data_dir, tmp_path, capsys, clean)


def test_chat_endpoint_faults_are_asked_again_into_the_fault_free_answers(serve, data_dir, tmp_path, capsys):
    server = serve(chat_completions)
    base_url = f"{server.url}/v1"
    clean = _run_in_process("chat:test/model", data_dir, tmp_path / "clean.sqlite", base_url=base_url)
    assert not server.faults and len(server.posts()) == 30

    server.reset(share=3)
    faulted = _run_in_process("chat:test/model", data_dir, tmp_path / "faulted.sqlite", base_url=base_url)
    # The model's identity (what GET /models says it serves) survives a fault too: answers keep their key.
    assert server.faults[0] == ("drop", ("GET", "/v1/models", b""))
    assert faulted.provenance["model"]["identity"]["served"] == {"id": "test/model", "owned_by": "test"}
    _assert_same_answers(faulted, clean)
    _assert_each_fault_asked_again_once(server)

    _assert_stops_then_resumes(
        server,
        "chat:test/model",
        f"{base_url}/chat/completions",
        8,  # questions, one per instance
        data_dir,
        tmp_path,
        capsys,
        clean,
        "--base-url",
        base_url,
    )


def test_a_model_list_that_keeps_failing_stops_the_run_naming_it(serve):
    def models_answer(status):
        def answer(method, path, body):
            return (status, {"error": "busy"}) if method == "GET" else chat_completions(method, path, body)

        return answer

    failing = serve(models_answer(503))
    model = load_model("chat:test/model", base_url=f"{failing.url}/v1", retries=2, backoff=0.01)
    with pytest.raises(
        EndpointError, match=re.escape(f"{failing.url}/v1/models answered 503: ") + r".*\(3 attempts\)$"
    ):
        executors.model_identity(model)
    assert failing.attempts == {("GET", "/v1/models", b""): 3}
    # A server without the route (501: no GET at all) lists no models, and is not asked again.
    unlisted = serve(models_answer(501))
    model = load_model("chat:test/model", base_url=f"{unlisted.url}/v1", retries=2, backoff=0.01)
    assert executors.model_identity(model)["served"] is None
    assert unlisted.attempts == {("GET", "/v1/models", b""): 1}


class DripServer(ThreadingHTTPServer):
    """Answers every request with ``answer(method, path)`` (status 200, JSON) one byte a second, headers included,
    and records per connection how many bytes it had sent when the client hung up (None: it sent them all)."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, answer):
        super().__init__(("127.0.0.1", 0), _DripHandler)
        self.answer = answer
        self.cut_after: list[int | None] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def handle_error(self, request, client_address):
        pass


class _DripHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        self._drip("GET")

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        self._drip("POST")

    def _drip(self, method):
        body = json.dumps(self.server.answer(method, self.path)).encode("utf-8")
        answer = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
            len(body),
            body,
        )
        for sent in range(len(answer)):
            try:
                self.wfile.write(answer[sent : sent + 1])
                self.wfile.flush()
            except OSError:
                self.server.cut_after.append(sent)
                return
            time.sleep(1.0)
        self.server.cut_after.append(None)

    def log_message(self, format, *args):  # noqa: A002 — the base class's signature
        pass


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["cluster protocol", "chat"])
def test_an_endpoint_sending_one_byte_a_second_ends_the_run_at_its_deadline(
    start_server, data_dir, tmp_path, capsys, kind
):
    # A socket's timeout bounds each read: before the deadline, the 2 s timeout never passed between two bytes and
    # the run waited for the whole answer (about 160 s), then for the next one.
    # The first request of each kind, which asks who the model is, gets no whole answer already.
    def answer(method, path):
        if kind == "chat":
            return {"object": "list", "data": [{"id": "test/model", "object": "model"}]}
        return cluster_protocol(64)(method, path, b"")[1]

    server = start_server(DripServer(answer))
    spec, endpoint, options = server.url, f"{server.url}/v1/info", []
    if kind == "chat":
        spec, endpoint, options = "chat:test/model", f"{server.url}/v1/models", ["--base-url", f"{server.url}/v1"]
    started = time.monotonic()
    code = cli.main(
        [
            "run",
            "--model",
            spec,
            "--benchmark",
            "winogender",
            "--limit",
            "1",
            "--data-dir",
            str(data_dir),
            "--cache",
            str(tmp_path / "cache.sqlite"),
            "--out",
            str(tmp_path / "out"),
            "--model-arg",
            "timeout=2",
            "--model-arg",
            "retries=1",
            "--model-arg",
            "backoff=0.1",
            *options,
        ]
    )
    seconds = time.monotonic() - started
    assert code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error == f"corefbias: {endpoint} sent no whole answer within the deadline of 2 s per attempt (2 attempts)"
    # Two attempts, each connection shut by the client after about 2 of its bytes, never the whole answer (the
    # server finds the second one shut at its next byte).
    deadline = time.monotonic() + 10
    while len(server.cut_after) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(server.cut_after) == 2 and all(sent is not None and sent < 10 for sent in server.cut_after)
    assert seconds < 10, f"the run ended after {seconds:.1f} s"
    assert not (tmp_path / "out").exists()


# --- 3. writers that race --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_concurrent_runs_share_one_cache(serve, data_dir, mirror, tmp_path):
    # Three runs in lockstep: every POST waits until each run has sent its own, so the three commit their
    # batches at the same moments. Two of them run the same model, the third another one (another server).
    lockstep = threading.Barrier(3, timeout=60)
    same, other = serve(cluster_protocol(max_texts=64)), serve(cluster_protocol(max_texts=64))
    same.gate = other.gate = lockstep.wait
    cache = tmp_path / "shared.sqlite"
    models = [same.url, same.url, other.url]
    processes = []
    for index, model in enumerate(models):
        errors = open(tmp_path / f"run{index}.err", "w")
        command = run_command(model, cache, tmp_path / f"run{index}", data_dir, mirror)
        processes.append(subprocess.Popen(command, env=SUBPROCESS_ENV, stdout=subprocess.DEVNULL, stderr=errors))
        errors.close()
    for index, process in enumerate(processes):
        assert process.wait(timeout=300) == 0, (tmp_path / f"run{index}.err").read_text()
    results = [results_of(tmp_path / f"run{index}") for index in range(3)]

    # In lockstep no run finds a batch another has answered: each asked its own model for all of them.
    assert len(same.posts()) == len(other.posts()) == WINOGENDER // BATCH
    # Every batch sent once by each run of the model, and the info once at the start and after each batch.
    assert set(posts_attempts(same).values()) == {2} and set(posts_attempts(other).values()) == {1}
    info = ("GET", "/v1/info", b"")
    assert same.attempts[info] == 2 * (1 + WINOGENDER // BATCH) and other.attempts[info] == 1 + WINOGENDER // BATCH
    assert [r["provenance"]["instances"]["winogender"]["predicted"] for r in results] == [WINOGENDER] * 3
    keys = [r["provenance"]["model"]["cache_key"] for r in results]
    assert keys[0] == keys[1] != keys[2]
    assert cached_rows(cache) == {keys[0]: WINOGENDER, keys[2]: WINOGENDER}
    with PredictionCache(cache) as opened:
        assert opened.check() == []

    same.gate = other.gate = None
    for model, result in zip(models, results):
        solo = runner.run(
            model,
            ["winogender"],
            runner.RunSettings(n_bootstrap=200, batch_size=BATCH),
            data_dir=data_dir,
            cache_path=tmp_path / "solo" / f"{model.rsplit(':', 1)[1]}.sqlite",
            progress=False,
        )
        assert scores(result) == scores(json.loads(json.dumps(solo.to_json())))


@pytest.mark.slow
def test_runs_saved_at_once_by_many_threads_are_all_stored_whole(data_dir, mirror, tmp_path):
    result = runner.run(
        "baseline:stereotype",
        ["winogender"],
        runner.RunSettings(limit=1, n_bootstrap=0),
        data_dir=data_dir,
        mirror=mirror,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    solo = RunStore(tmp_path / "solo")
    alone = solo.folder(solo.save(result, {"saver": None}))
    store = RunStore(tmp_path / "space")
    savers = 8
    together = threading.Barrier(savers, timeout=60)

    def save(index: int) -> str:
        together.wait()
        return store.save(result, {"saver": index})

    seen = []  # the leaderboard's runs, as a reader polling it during the saves finds them

    def read_while_saving(saving) -> None:
        while not all(future.done() for future in saving):
            seen.append(set(store.leaderboard()["run"]))

    with ThreadPoolExecutor(savers + 1) as pool:
        saving = [pool.submit(save, index) for index in range(savers)]
        reading = pool.submit(read_while_saving, saving)
        run_ids = [future.result() for future in saving]
        reading.result()
    # A reader finds finished runs only, and each one stays: no half-written run is ever listed.
    assert seen and all(earlier <= later <= set(run_ids) for earlier, later in zip(seen, [*seen[1:], set(run_ids)]))
    assert len(set(run_ids)) == savers
    assert sorted(store.run_ids()) == sorted(run_ids)
    assert sorted(path.name for path in store.runs.iterdir()) == sorted(run_ids)  # no staging folder left
    # Each run's explore.json is its own, and so is the manifest that lists its sha256.
    own = ("explore.json", run_outputs.MANIFEST)
    expected = {
        path.relative_to(alone): path.read_bytes()
        for path in alone.rglob("*")
        if path.is_file() and path.name not in own
    }
    assert {"results.json", "report.md", "summary.csv"} <= {str(path) for path in expected}
    for index, run_id in enumerate(run_ids):
        folder = store.folder(run_id)
        assert store.explore_cases(run_id) == {"saver": index}
        assert runner.to_json(store.results(run_id)) == json.loads(json.dumps(result.to_json()))
        run_outputs.check_whole(folder)
        stored = {
            path.relative_to(folder): path.read_bytes()
            for path in folder.rglob("*")
            if path.is_file() and path.name not in own
        }
        assert stored.keys() == expected.keys()
        assert [name for name in expected if stored[name] != expected[name]] == [], run_id
    board = store.leaderboard()
    assert sorted(board["run"]) == sorted(run_ids)
    assert board["model"].tolist() == ["baseline:stereotype"] * savers


# --- 4. runs started together on a fresh data folder ----------------------------------------------------------

FIRST_USE = """
import sys, time
from pathlib import Path
from corefbias.data import hub_export
from corefbias.harness import benchmark_data
from corefbias.benchmarks import BENCHMARKS

real_export = hub_export.export_dataset

def export(*args, **kwargs):
    print("exported", flush=True)
    return real_export(*args, **kwargs)

hub_export.export_dataset = export
go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.005)
benchmark = BENCHMARKS["winogender"]
rows = sum(len(benchmark_data.load_part(benchmark, *part, Path(sys.argv[1]), sys.argv[3])) for part in benchmark.parts)
print("rows", rows, flush=True)
"""


@pytest.mark.slow
def test_runs_started_together_on_a_fresh_data_folder_export_the_set_once(mirror, tmp_path):
    # Before the lock each of them saw no export, exported, and replaced the folder the others were reading.
    data_dir, go = tmp_path / "data", tmp_path / "go"
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", FIRST_USE, str(data_dir), str(go), str(mirror)],
            env={**SUBPROCESS_ENV, "HF_DATASETS_CACHE": str(tmp_path / f"hf{index}")},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for index in range(4)
    ]
    time.sleep(3)  # every process imported and waiting
    go.touch()
    outputs = [process.communicate(timeout=300) for process in processes]
    assert [process.returncode for process in processes] == [0] * 4, [err[-2000:] for _, err in outputs]
    assert sum(out.count("exported") for out, _ in outputs) == 1
    assert [out.splitlines()[-1] for out, _ in outputs] == [f"rows {WINOGENDER}"] * 4
    assert sorted(path.name for path in data_dir.iterdir()) == [".winogender.lock", "winogender"]


# --- 5. a cache that keeps only sound answers ------------------------------------------------------------------


def _identity_after(posts: int):
    """A chat endpoint whose GET /models reports another model, answering other letters, once ``posts`` questions
    have been answered (as when a server is redeployed mid-run)."""
    answered = []
    lock = threading.Lock()

    def answer(method, path, body):
        with lock:
            changed = len(answered) >= posts
            if method == "POST":
                answered.append(body)
        if method == "GET":
            owner = "second-deploy" if changed else "first-deploy"
            return 200, {"object": "list", "data": [{"id": "test/model", "object": "model", "owned_by": owner}]}
        status, payload = chat_completions(method, path, body)
        if changed:  # the other model answers the letter after
            letter = payload["choices"][0]["message"]["content"]
            letters = re.findall(r"^([A-Z])\. ", json.loads(body)["messages"][-1]["content"], flags=re.M)
            payload["choices"][0]["message"]["content"] = letters[(letters.index(letter) + 1) % len(letters)]
        return status, payload

    return answer


def test_answers_given_after_the_model_changed_are_never_kept_under_the_old_identity(serve, data_dir, tmp_path, capsys):
    # Batches of 4 questions; the model changes after 10 answers, in the third batch. Before, the run went on and
    # cached the new model's answers under the old identity (its key was computed once, at the start).
    server = serve(_identity_after(10))
    base = ["--base-url", f"{server.url}/v1", "--concurrency", "1"]
    cache = tmp_path / "cache.sqlite"
    assert _cli_run("chat:test/model", data_dir, cache, tmp_path / "changed", *base) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith("corefbias: chat:test/model: the model answering changed during the run")
    assert '"owned_by": "first-deploy"' in error and '"owned_by": "second-deploy"' in error
    assert not (tmp_path / "changed").exists()
    (old_key, kept), *others = cached_rows(cache).items()
    assert kept == 8 and others == []  # the two batches answered before the change; the third is dropped
    assert len(server.posts()) == 12

    assert _cli_run("chat:test/model", data_dir, cache, tmp_path / "rerun", *base) == 0
    rerun = results_of(tmp_path / "rerun")
    new_key = rerun["provenance"]["model"]["cache_key"]
    assert new_key != old_key and rerun["provenance"]["model"]["identity"]["served"]["owned_by"] == "second-deploy"
    assert rerun["provenance"]["instances"]["winogender"] == {"predicted": 30, "from_cache": 0}
    assert cached_rows(cache) == {old_key: 8, new_key: 30}


def _null_for(questions: set):
    """A chat endpoint answering ``null`` content (no text) for the questions (by body) in ``questions``."""

    def answer(method, path, body):
        status, payload = chat_completions(method, path, body)
        if method == "POST" and body in questions:
            payload["choices"][0]["message"]["content"] = None
        return status, payload

    return answer


def test_unparsed_answers_are_asked_again_on_the_next_run_unless_told_to_use_them(serve, data_dir, tmp_path, capsys):
    # Before, a chat endpoint that answered null for a few questions and then healed left those questions unparsed
    # on every rerun: the cache kept the unparsed answers as final.
    healthy = serve(chat_completions)
    clean = _run_in_process("chat:test/model", data_dir, tmp_path / "clean.sqlite", base_url=f"{healthy.url}/v1")
    questions = sorted(healthy.posts())[:5]
    flaky = set(questions)
    server = serve(_null_for(flaky))
    base = ["--base-url", f"{server.url}/v1"]
    cache = tmp_path / "cache.sqlite"
    assert _cli_run("chat:test/model", data_dir, cache, tmp_path / "first", *base) == 0
    first = results_of(tmp_path / "first")["benchmarks"]["winogender"]
    assert first["num_unparsed"] == 5

    flaky.clear()  # the endpoint healed
    server.reset()
    assert _cli_run("chat:test/model", data_dir, cache, tmp_path / "healed", "--cache-mode", "use-unparsed", *base) == 0
    kept = results_of(tmp_path / "healed")
    assert kept["benchmarks"]["winogender"]["num_unparsed"] == 5 and server.posts() == []
    assert kept["settings"]["cache_mode"] == "use-unparsed"

    assert _cli_run("chat:test/model", data_dir, cache, tmp_path / "healed", *base) == 0
    healed = results_of(tmp_path / "healed")
    assert sorted(server.posts()) == questions  # only those five asked again
    assert healed["provenance"]["instances"]["winogender"] == {"predicted": 5, "from_cache": 25}
    assert healed["benchmarks"]["winogender"]["num_unparsed"] == 0
    assert scores(healed) == scores(json.loads(json.dumps(clean.to_json())))


IMPOSSIBLE = {
    "a choice past the candidates": '{"choice": 7, "parsed": true, "raw": "H"}',
    "parsed not a boolean": '{"choice": null, "parsed": "no", "raw": ""}',
    "a position past the options": '{"choice": 0, "parsed": true, "raw": "A", "position": 9}',
    "a choice with an unparsed answer": '{"choice": 1, "parsed": false, "raw": "?"}',
    "not JSON": '{"choice": ',
}


def test_impossible_cached_answers_are_asked_again_and_found_by_the_check(serve, data_dir, tmp_path):
    # Before, each of these was scored as an answer (some silently), and the check only parsed the JSON.
    server = serve(chat_completions)
    cache = tmp_path / "cache.sqlite"
    clean = _run_in_process("chat:test/model", data_dir, cache, base_url=f"{server.url}/v1")
    key = clean.provenance["model"]["cache_key"]
    damaged = [instance["id"] for instance in clean.runs["winogender"].instances[: len(IMPOSSIBLE)]]
    with sqlite3.connect(cache) as writer:
        for instance, output in zip(damaged, IMPOSSIBLE.values()):
            writer.execute(
                "UPDATE predictions SET output = ? WHERE model = ? AND instance = ?", (output, key, instance)
            )
    writer.close()

    benchmark = BENCHMARKS["winogender"]

    def instances(dataset, config, split):
        rows = load_part(benchmark, config, split, data_dir)
        return {row["id"]: row for row in rows}

    with PredictionCache(cache) as opened:
        found = opened.check(instances)
    assert [problem.split("): ")[0].split(", ")[-1].strip("'") for problem in found] == damaged
    assert "choice 7, but the instance has 2 candidates" in found[0] and "position 9" in found[2]
    server.reset()
    again = _run_in_process("chat:test/model", data_dir, cache, base_url=f"{server.url}/v1")
    assert again.provenance["instances"]["winogender"] == {"predicted": len(IMPOSSIBLE), "from_cache": 25}
    assert again.runs["winogender"].instances == clean.runs["winogender"].instances
    with PredictionCache(cache) as opened:
        assert opened.check(instances) == []


def test_a_model_answering_what_its_instance_cannot_have_is_refused_naming_it(data_dir, tmp_path):
    from corefbias.models.base import Choice

    class PastTheCandidates:
        name, reads_gold, identity = "past", False, {"kind": "test", "answers": "past the candidates"}

        def choose(self, instances, task):
            return [Choice(len(instance["candidates"]), parsed=True) for instance in instances]

    with pytest.raises(ModelError, match=r"past answered instance '.+' with choice 2, but the instance has 2 cand"):
        runner.run(
            "past",
            ["winogender"],
            runner.RunSettings(limit=1, n_bootstrap=0),
            data_dir=data_dir,
            cache_path=tmp_path / "cache.sqlite",
            progress=False,
            model=PastTheCandidates(),
        )
    assert cached_rows(tmp_path / "cache.sqlite") == {}
