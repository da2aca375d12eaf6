"""``corefbias run --executor ray``: replicas as Ray actors give exactly a local run's results, survive a killed
replica and a killed driver, fail fast on a model they cannot load, and take a GPU each when the model asks
for one (the module's cluster declares two GPUs, which Ray hands out as it would real ones).

One Ray cluster per module, on loopback only: node address 127.0.0.1 (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``),
no dashboard, no usage statistics, and a closed loopback port as HTTP proxy, since Ray's dashboard process asks
cloud metadata addresses which cloud it runs on even with usage statistics off. The slow stand-in model is a
``--include`` folder the tests write, so the replicas load it the way they load a user's model kinds.
"""

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_hf_cloze import tiny_folder, tokenizer  # noqa: F401  (fixtures)

from corefbias import cli
from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import extensions, prediction_cache, runner
from corefbias.harness.ray_executor import RayExecutor
from corefbias.models.base import ModelError

pytestmark = pytest.mark.slow  # every test starts a Ray cluster of its own

HAS_RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAS_RAY, reason="Ray is not installed: pip install 'corefbias[ray]'")
CLOSED_PORT = "http://127.0.0.1:9"
LOOPBACK_ONLY = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    **{name: CLOSED_PORT for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")},
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
}

# ``slowstereo:SECONDS@LOG``: the stereotype baseline, each batch after a pause, noting in LOG which process started
# which instances. The pause and the log change no answer, so they are not in the identity: runs with and without
# them share cached answers. ``slowstereo:broken`` cannot load, ``slowstereo:failing`` fails every batch, and
# ``slowstereo:drifting`` has a per-process identity.
STAND_IN = """
import os
import time
from pathlib import Path

from corefbias.models.base import ModelError
from corefbias.models.baselines import StereotypeBaseline
from corefbias.models.registry import ModelKind


class SlowStereotype:
    reads_gold = False

    def __init__(self, seconds, log, identity):
        self.inner, self.seconds, self.log, self.identity = StereotypeBaseline(), seconds, log, identity
        self.name = "slowstereo"

    def choose(self, rows, task):
        if self.seconds < 0:
            raise ModelError("slowstereo:failing gave up on a batch, on purpose")
        if self.log:
            Path(self.log, f"{time.monotonic_ns()}-{os.getpid()}").write_text(" ".join(row["id"] for row in rows))
        time.sleep(self.seconds)
        return self.inner.choose(rows, task)


def load(argument, *, kind):
    if argument == "broken":
        raise ModelError("slowstereo:broken cannot load, on purpose")
    identity = {"kind": "slowstereo", "inner": StereotypeBaseline().identity}
    if argument == "drifting":
        return SlowStereotype(0.0, None, {**identity, "process": os.getpid()})
    if argument == "failing":
        return SlowStereotype(-1.0, None, identity)
    seconds, _, log = argument.partition("@")
    return SlowStereotype(float(seconds), log or None, identity)


SLOWSTEREO = ModelKind("slowstereo", load, example="slowstereo:0.5", loads_by_name=False)
"""


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory):
    """The folder declaring ``slowstereo``, included here (the driver parses the spec) and by every replica."""
    folder = tmp_path_factory.mktemp("stand_in")
    (folder / "slowstereo.py").write_text(STAND_IN, encoding="utf-8")
    extensions.include(folder)
    return folder


@pytest.fixture(scope="module")
def cluster():
    """A two-CPU, two-GPU Ray cluster on loopback for the module; its GCS address."""
    if not HAS_RAY:
        pytest.skip("Ray is not installed: pip install 'corefbias[ray]'")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in LOOPBACK_ONLY.items():
            patch.setenv(name, value)  # read by Ray's import and inherited by the processes ray.init starts
        import ray

        ray.init(_node_ip_address="127.0.0.1", include_dashboard=False, num_cpus=2, num_gpus=2, log_to_driver=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def data_dir(exported_set):
    return exported_set("winogender").parent


@pytest.fixture
def torch_threads_restored():
    """A local run with ``threads=1`` sets torch's thread count for this whole process: put it back after."""
    import torch

    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def _run(spec, data_dir, mirror, cache, benchmarks=("winogender",), executor=None, options=None, **settings):
    return runner.run(
        spec,
        benchmarks,
        runner.RunSettings(**{"n_bootstrap": 200, **settings}),
        data_dir=data_dir,
        mirror=mirror,
        cache_path=cache,
        progress=False,
        model_options=options,
        executor=executor,
    )


def _scores(result) -> dict:
    """Everything of a result a score depends on: the benchmarks' fields but their timings and how many instances
    the model was asked about (not the cache), and every instance."""
    benchmarks = result.to_json()["benchmarks"]
    return {
        name: {
            "fields": {
                key: value
                for key, value in benchmarks[name].items()
                if not key.endswith("_seconds") and key != "num_predicted"
            },
            "instances": run.instances,
        }
        for name, run in result.runs.items()
    }


def _started(log: Path) -> list[tuple[int, list[str]]]:
    """(process, instance ids) of every batch the stand-in started, in the order they started."""
    return [(int(path.name.split("-")[1]), path.read_text().split()) for path in sorted(log.iterdir())]


@needs_ray
def test_two_replicas_give_the_local_run_of_every_benchmark(cluster, data_dir, mirror, tmp_path):
    settings = {"limit": 2, "batch_size": 16}
    local = _run("baseline:stereotype", data_dir, mirror, tmp_path / "local.sqlite", ["all"], **settings)
    spread = _run(
        "baseline:stereotype", data_dir, mirror, tmp_path / "ray.sqlite", ["all"], RayExecutor(replicas=2), **settings
    )
    total = sum(len(run.instances) for run in local.runs.values())
    assert set(local.runs) == set(BENCHMARKS) and total == sum(len(run.instances) for run in spread.runs.values())
    assert _scores(spread) == _scores(local)
    assert spread.provenance["model"] == local.provenance["model"]  # same identity, same cache key
    assert spread.settings == {**local.settings, "executor": "ray", "replicas": 2}
    assert sum(run.num_predicted for run in spread.runs.values()) == total
    with prediction_cache.PredictionCache(tmp_path / "ray.sqlite") as cache:
        assert cache.count() == total
    again = _run(
        "baseline:stereotype", data_dir, mirror, tmp_path / "ray.sqlite", ["all"], RayExecutor(replicas=2), **settings
    )
    assert sum(run.num_predicted for run in again.runs.values()) == 0 and _scores(again) == _scores(local)


@needs_ray
@pytest.mark.slow  # three loads of an hf: model (the local run's, each replica's)
def test_hf_replicas_give_the_local_log_likelihoods(
    cluster, data_dir, mirror, tmp_path, torch_threads_restored, tiny_folder
):
    # A two-layer Llama with SmolLM2's tokenizer: the replicas' sums are the local ones to the last bit whatever the
    # weights, and SmolLM2's GGUF took 40 s per load on one core (three loads: 7 minutes of CI on two busy cores).
    spec, options = f"hf:{tiny_folder}", {"threads": 1}
    local = _run(spec, data_dir, mirror, tmp_path / "local.sqlite", options=options, limit=1, batch_size=2)
    spread = _run(
        spec,
        data_dir,
        mirror,
        tmp_path / "ray.sqlite",
        executor=RayExecutor(replicas=2),
        options=options,
        limit=1,
        batch_size=2,
    )
    instances = spread.runs["winogender"].instances
    assert len(instances) == 6 and all(len(instance["loglikelihoods"]) == 2 for instance in instances)
    assert _scores(spread) == _scores(local)  # the log-likelihoods to the last bit
    assert spread.provenance["model"] == local.provenance["model"]  # identity and cloze template from the replicas


@needs_ray
@pytest.mark.slow  # three pools of replicas import torch and transformers: minutes on two shared cores
def test_hf_replicas_take_a_gpu_each_and_give_one_replicas_answers(
    cluster,
    tiny_folder,  # noqa: F811
    data_dir,
    mirror,
    tmp_path,
    torch_threads_restored,
):
    """``device=auto`` on a cluster with GPUs: one GPU per replica, Ray's own; two replicas answer the calls of 120
    instances (Winogender at --limit 40: 240, a call each) exactly as one replica and as this process do, all on one
    CPU thread (torch's thread count splits CPU sums differently: at two threads 21 of Winogender's 720 instances
    differ by up to 4e-6)."""
    spec, options = f"hf:{tiny_folder}", {"device": "auto", "max_batch_tokens": 400, "threads": 1}
    with RayExecutor(replicas=2).open(spec, options) as session:
        assert sorted(session.gpus) == [["0"], ["1"]] and session.model.call_size == 4096
    runs = {
        name: _run(
            spec,
            data_dir,
            mirror,
            tmp_path / f"{name}.sqlite",
            executor=executor,
            options=options,
            batch_size=120,
            limit=40,
        )
        for name, executor in (("two", RayExecutor(replicas=2)), ("one", RayExecutor(replicas=1)), ("local", None))
    }
    assert runs["two"].runs["winogender"].num_predicted == 240
    assert _scores(runs["two"]) == _scores(runs["one"]) == _scores(runs["local"])  # to the last bit


@needs_ray
def test_a_killed_replica_is_restarted_and_its_batch_asked_again(cluster, stand_in, data_dir, mirror, tmp_path):
    log = tmp_path / "log"
    log.mkdir()
    killed = []

    def kill_the_first_replica_mid_batch():
        deadline = time.monotonic() + 120
        while not any(log.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.02)
        pid = _started(log)[0][0]
        os.kill(pid, signal.SIGKILL)  # mid-batch: the stand-in pauses 0.5 s after noting its start
        killed.append(pid)

    killer = threading.Thread(target=kill_the_first_replica_mid_batch)
    killer.start()
    executor = RayExecutor(replicas=2, include=(str(stand_in),))
    disturbed = _run(f"slowstereo:0.5@{log}", data_dir, mirror, tmp_path / "ray.sqlite", executor=executor, limit=2)
    killer.join()
    undisturbed = _run("slowstereo:0", data_dir, mirror, tmp_path / "local.sqlite", limit=2)

    assert _scores(disturbed) == _scores(undisturbed)
    started = _started(log)
    [victim] = killed
    lost = next(ids for pid, ids in started if pid == victim)
    # The lost batch was started again by another process: the replica restarted (or the other replica).
    assert any(pid != victim and set(lost) <= set(ids) for pid, ids in started)
    assert len({pid for pid, _ in started}) >= 2
    with prediction_cache.PredictionCache(tmp_path / "ray.sqlite") as cache:
        assert cache.count() == 12


def _cli(*arguments) -> list[str]:
    return [sys.executable, "-m", "corefbias", "run", *arguments]


@needs_ray
def test_a_killed_driver_resumes_with_what_it_cached(cluster, stand_in, data_dir, mirror, tmp_path):
    log, cache_path = tmp_path / "log", tmp_path / "cache.sqlite"
    log.mkdir()
    command = _cli(
        "--model", f"slowstereo:0.5@{log}", "--benchmark", "winogender", "--limit", "4", "--batch-size", "2",
        "--executor", "ray", "--replicas", "2", "--ray-address", cluster, "--include", str(stand_in),
        "--cache", str(cache_path), "--data-dir", str(data_dir), "--mirror", str(mirror), "--n-bootstrap", "0",
        "--no-plots", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    env = {**os.environ, **LOOPBACK_ONLY}
    driver = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 180
        answered = 0
        while answered < 4 and time.monotonic() < deadline and driver.poll() is None:
            time.sleep(0.1)
            if cache_path.is_file():
                with prediction_cache.PredictionCache(cache_path) as cache:
                    answered = cache.count()
        assert driver.poll() is None, driver.communicate()[0]
        driver.send_signal(signal.SIGKILL)
    finally:
        driver.wait(timeout=60)
    with prediction_cache.PredictionCache(cache_path) as cache:
        cached = cache.count()
    assert 4 <= cached < 24  # answered batches, and some left
    first_replicas = {pid for pid, _ in _started(log)}

    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"{24 - cached} instances predicted, {cached} from the cache" in again.stdout
    # Asked of the new replicas: exactly the instances the cache lacked.
    asked_again = [instance for pid, ids in _started(log) if pid not in first_replicas for instance in ids]
    with prediction_cache.PredictionCache(cache_path) as cache:
        assert len(asked_again) == 24 - cached and cache.count() == 24
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    undisturbed = _run("slowstereo:0", data_dir, mirror, tmp_path / "local.sqlite", limit=4, n_bootstrap=0)
    assert (
        results["benchmarks"]["winogender"]["sections"] == undisturbed.to_json()["benchmarks"]["winogender"]["sections"]
    )
    assert results["settings"]["executor"] == "ray" and results["settings"]["replicas"] == 2


@needs_ray
def test_the_cli_starts_a_loopback_cluster_of_its_own(data_dir, mirror, tmp_path):
    # Without the loopback variables: the executor sets them itself for the cluster it starts.
    env = {**os.environ, **LOOPBACK_ONLY}
    for name in ("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "RAY_USAGE_STATS_ENABLED", "RAY_ADDRESS"):
        env.pop(name, None)
    command = _cli(
        "--model", "baseline:stereotype", "--benchmark", "winogender", "--limit", "1", "--executor", "ray",
        "--cache", str(tmp_path / "cache.sqlite"), "--data-dir", str(data_dir), "--mirror", str(mirror),
        "--n-bootstrap", "0", "--no-plots", "--out", str(tmp_path / "out"),
    )  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Started a local Ray instance" in done.stderr and "6 instances predicted, 0 from the cache" in done.stdout
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    local = _run("baseline:stereotype", data_dir, mirror, tmp_path / "local.sqlite", limit=1, n_bootstrap=0)
    assert results["benchmarks"]["winogender"]["sections"] == local.to_json()["benchmarks"]["winogender"]["sections"]
    assert results["settings"]["replicas"] == 2  # the default


def _within(seconds: float, call):
    """``call()``'s exception, failing the test when it has not returned within ``seconds`` (a hang)."""
    outcome = {}

    def target():
        try:
            call()
        except Exception as error:  # noqa: BLE001 — handed to the test to check
            outcome["error"] = error

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"no answer within {seconds} s: a hang"
    return outcome.get("error")


@needs_ray
def test_a_cluster_address_where_nothing_listens_is_one_line_not_a_hang(data_dir, mirror, tmp_path, capsys):
    # Before, ray.init waited for ever on it (7 minutes of "Failed to connect to GCS" before the user gave up).
    command = [
        "--mirror", str(mirror), "run", "--model", "baseline:stereotype", "--benchmark", "winogender", "--limit", "1",
        "--executor", "ray", "--ray-address", "127.0.0.1:1", "--data-dir", str(data_dir), "--no-cache",
        "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    status = []
    assert _within(60, lambda: status.append(cli.main(command))) is None
    assert status == [2]
    assert "cannot reach the Ray cluster at 127.0.0.1:1 (Connection refused)" in capsys.readouterr().err


@needs_ray
def test_an_address_other_than_the_cluster_this_process_joined_is_refused(cluster, data_dir, mirror, tmp_path):
    # Before, the run went to the cluster the process had joined, whatever address it was given.
    with socket.create_server(("127.0.0.1", 0)) as other:  # something answers there, but not this cluster
        address = f"127.0.0.1:{other.getsockname()[1]}"
        error = _within(
            60,
            lambda: _run(
                "baseline:stereotype", data_dir, mirror, tmp_path / "a.sqlite", executor=RayExecutor(address=address)
            ),
        )
    assert isinstance(error, ModelError)
    assert str(error) == (
        f"this process is already connected to the Ray cluster at {cluster}, not {address}; call ray.shutdown() "
        "before the run, or leave the address out to run on that cluster"
    )
    same = _run(
        "baseline:stereotype", data_dir, mirror, tmp_path / "b.sqlite", executor=RayExecutor(address=cluster), limit=1
    )
    assert same.runs["winogender"].instances


@needs_ray
def test_a_replica_that_cannot_load_its_model_is_a_model_error(cluster, stand_in, data_dir, mirror, tmp_path):
    executor = RayExecutor(replicas=2, include=(str(stand_in),))
    error = _within(120, lambda: _run("slowstereo:broken", data_dir, mirror, tmp_path / "c.sqlite", executor=executor))
    assert isinstance(error, ModelError)
    assert "could not load slowstereo:broken: ModelError: slowstereo:broken cannot load, on purpose" in str(error)


@needs_ray
def test_a_model_error_while_answering_is_raised_as_a_local_run_raises_it(
    cluster, stand_in, data_dir, mirror, tmp_path
):
    with pytest.raises(ModelError) as local:
        _run("slowstereo:failing", data_dir, mirror, tmp_path / "local.sqlite")
    executor = RayExecutor(replicas=2, include=(str(stand_in),))
    error = _within(
        120, lambda: _run("slowstereo:failing", data_dir, mirror, tmp_path / "ray.sqlite", executor=executor)
    )
    assert type(error) is ModelError and str(error) == str(local.value) == (
        "slowstereo:failing gave up on a batch, on purpose"
    )


@needs_ray
def test_replicas_that_cannot_be_placed_end_the_run_at_the_timeout(cluster, stand_in, data_dir, mirror, tmp_path):
    executor = RayExecutor(replicas=1, replica_gpus=3, include=(str(stand_in),), start_timeout=3)
    error = _within(60, lambda: _run("slowstereo:0", data_dir, mirror, tmp_path / "c.sqlite", executor=executor))
    assert isinstance(error, ModelError)
    assert "1 of 1 replicas of slowstereo:0 had not loaded the model after 3 s; each asks for 1 CPU and 3 GPU" in str(
        error
    )


@needs_ray
def test_replicas_holding_different_models_are_refused(cluster, stand_in, data_dir, mirror, tmp_path):
    executor = RayExecutor(replicas=2, include=(str(stand_in),))
    error = _within(
        120, lambda: _run("slowstereo:drifting", data_dir, mirror, tmp_path / "c.sqlite", executor=executor)
    )
    assert isinstance(error, ModelError) and "replica 1 loaded another model than replica 0" in str(error)
    assert not (tmp_path / "c.sqlite").exists()  # refused before anything was asked or cached


def test_ray_flags_need_the_ray_executor(capsys):
    assert cli.main(["run", "--model", "baseline:oracle", "--replicas", "4"]) == 2
    assert "--replicas is for --executor ray only" in capsys.readouterr().err
