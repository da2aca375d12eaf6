"""Real LLMs behind llama.cpp's ``llama-server`` (services/llamacpp/serve.sh), driven with ``chat:``.

Each model runs as a real server process on a free loopback port; ``corefbias.harness.runner.run``
asks it small balanced subsets (``limit=1``) of Winogender and, for the multilingual Gemma 3, of
DaWinoBias. ``completions:`` cannot score with it: llama-server ignores ``echo`` and returns no prompt
log-probabilities, and the run must stop saying so. Runs when ``bash services/llamacpp/setup.sh`` has
built ``llama-server`` and fetched both GGUFs; skips otherwise, saying what is missing. A build still
running (``scripts/test`` builds it beside the suite) is waited for.
"""

import fcntl
import json
import os
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from loopback import free_port

from corefbias.harness import runner
from corefbias.models.base import ModelError

pytestmark = pytest.mark.slow  # every test serves a real GGUF model with llama-server

SERVICE = Path(__file__).resolve().parents[1] / "services" / "llamacpp"
CACHE = Path(os.environ.get("COREFBIAS_CACHE") or Path.home() / ".cache" / "corefbias") / "llamacpp"
BUILD_NAME, BUILD_LOCK_NAME = subprocess.run(  # the shell file is the one place that names them
    ["bash", "-c", 'source "$0" && echo "$build_name" "$build_lock"', SERVICE / "build.env"],
    capture_output=True,
    text=True,
    check=True,
).stdout.split()
SERVER = CACHE / BUILD_NAME / "bin" / "llama-server"  # where setup.sh puts it and serve.sh runs it
BUILD_LOCK = CACHE / BUILD_LOCK_NAME  # held by `setup.sh server` while it builds
BUILD_WAIT_S = 900
MODELS = {  # serve.sh's key → the alias it serves the GGUF under (its file stem)
    "smollm2": "SmolLM2-135M-Instruct.Q4_1",
    "gemma3": "gemma-3-270m-q4_k_m",
}
START_TIMEOUT_S = 60


@pytest.fixture(scope="module", autouse=True)
def finished_build():
    """Waits for a build of llama-server that is still running: ``setup.sh server`` holds ``BUILD_LOCK``
    until it exits, having put the binary in place or not."""
    if SERVER.exists() or not BUILD_LOCK.exists():
        return
    deadline = time.monotonic() + BUILD_WAIT_S
    with open(BUILD_LOCK) as lock:
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.fail(f"llama-server's build still holds {BUILD_LOCK} after {BUILD_WAIT_S} s")
                time.sleep(1)


def _missing(key: str) -> str | None:
    """Why ``serve.sh key`` cannot run here, or None."""
    gguf = CACHE / "models" / f"{MODELS[key]}.gguf"
    absent = [str(path) for path in (SERVER, gguf) if not path.exists()]
    if absent:
        return f"the llama.cpp service is not set up (no {', '.join(absent)}): run `bash services/llamacpp/setup.sh`"
    return None


def _get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def _wait_until_healthy(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"serve.sh exited with {process.returncode}:\n{process.stdout.read()}")
        try:
            if _get_json(f"{url}/health").get("status") == "ok":
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"llama-server did not answer {url}/health within {START_TIMEOUT_S} s")


def _serve(key: str, port: int | None = None, *flags: str):
    """``(base url, process)`` of ``serve.sh key`` on ``port`` (default: a free loopback port) with extra
    llama-server ``flags``; the caller stops it."""
    missing = _missing(key)
    if missing:
        pytest.skip(missing)
    port = port or free_port()
    process = subprocess.Popen(
        ["bash", str(SERVICE / "serve.sh"), key, str(port), *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_healthy(url, process)
    except BaseException:
        _stop(process)
        raise
    return url, process


def _stop(process: subprocess.Popen) -> None:
    process.terminate()  # serve.sh execs llama-server, so this stops the server itself
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    process.stdout.close()


@pytest.fixture(scope="module")
def data_dir(exported_set):
    exported_set("winogender")
    return exported_set("dawinobias").parent


@pytest.fixture(scope="module", params=sorted(MODELS))
def served(request):
    """``(serve.sh key, base url)`` of a real llama-server, for each model in turn."""
    url, process = _serve(request.param)
    yield request.param, url
    _stop(process)


def _run(served, data_dir, cache, benchmarks, answer, cache_mode="use"):
    key, url = served
    return runner.run(
        f"chat:{MODELS[key]}",
        benchmarks,
        settings=runner.RunSettings(limit=1, n_bootstrap=0, cache_mode=cache_mode),
        data_dir=data_dir,
        cache_path=cache,
        progress=False,
        model_options={"base_url": f"{url}/v1", "answer": answer, "workers": 1},
    )


def _decisions(result):
    return {
        name: [(row["id"], row["decision"], row["parsed"]) for row in run.instances]
        for name, run in result.runs.items()
    }


def test_logprob_answers_are_all_read_traced_to_the_served_model_and_deterministic(served, data_dir, tmp_path):
    key, url = served
    # Gemma 3 is multilingual: it also answers a Danish set.
    benchmarks = ["winogender", "dawinobias"] if key == "gemma3" else ["winogender"]
    # At limit 1: 6N, and 8N + the extra validation pairs (Benchmark.limit_meaning).
    sizes = {"winogender": 6, "dawinobias": 12}
    cache = tmp_path / "cache.sqlite"
    first = _run(served, data_dir, cache, benchmarks, "logprobs")

    for name, run in first.runs.items():
        outcome = first.to_json()["benchmarks"][name]
        assert outcome["num_instances"] == sizes[name]
        assert outcome["parse_rate"] == 1.0, [row for row in run.instances if not row["parsed"]]
        assert run.num_predicted == outcome["num_instances"]
    # The identity that keys the cache names the model the server says it serves, at this server's endpoint.
    [served_model] = _get_json(f"{url}/v1/models")["data"]
    identity = first.provenance["model"]["identity"]
    assert identity["model_id"] == served_model["id"] == MODELS[key]
    assert identity["served"] == {field: served_model[field] for field in ("id", "owned_by", "meta")}
    assert identity["endpoint"] == f"{url}/v1/chat/completions"
    assert identity["answer"] == "logprobs" and identity["decoding"]["max_tokens"] == 1

    cached = _run(served, data_dir, cache, benchmarks, "logprobs")
    assert {name: run.num_predicted for name, run in cached.runs.items()} == {name: 0 for name in benchmarks}
    assert _decisions(cached) == _decisions(first)
    # Asked again (Winogender only, to keep the test short), the server gives the same answers.
    refreshed = _run(served, data_dir, cache, ["winogender"], "logprobs", cache_mode="refresh")
    assert refreshed.runs["winogender"].num_predicted == 6
    assert _decisions(refreshed)["winogender"] == _decisions(first)["winogender"]
    assert refreshed.provenance["model"]["cache_key"] == first.provenance["model"]["cache_key"]


def test_text_answers_report_their_parse_rate_and_no_scores_without_one(data_dir, tmp_path):
    url, process = _serve("smollm2")
    try:
        result = _run(("smollm2", url), data_dir, tmp_path / "cache.sqlite", ["winogender"], "text")
    finally:
        _stop(process)
    outcome = result.to_json()["benchmarks"]["winogender"]
    readable = sum(row["parsed"] for row in result.runs["winogender"].instances)
    assert outcome["num_instances"] == 6
    assert outcome["parse_rate"] == readable / 6
    assert outcome["low_parse_rate"] == (readable / 6 < 0.9)
    if readable == 0:  # SmolLM2 tends to answer in prose: then no score is a number
        for section in outcome["sections"].values():
            assert not [name for name, value in section.items() if isinstance(value, float)]
            blank = {name for name, value in section.items() if value is None}
            assert blank == set(section["undefined"])
            assert all(reason.startswith("no readable answer") for reason in section["undefined"].values())


def test_another_model_served_under_the_same_name_and_port_is_asked_again(data_dir, tmp_path):
    """``chat:local-llm`` at one endpoint: SmolLM2, then Gemma 3 under the same alias, then SmolLM2 again."""
    port, cache = free_port(), tmp_path / "cache.sqlite"
    predicted, identities = [], []
    for key in ("smollm2", "gemma3", "smollm2"):
        url, process = _serve(key, port, "--alias", "local-llm")
        try:
            result = runner.run(
                "chat:local-llm",
                ["winogender"],
                settings=runner.RunSettings(limit=1, n_bootstrap=0),
                data_dir=data_dir,
                cache_path=cache,
                progress=False,
                model_options={"base_url": f"{url}/v1", "answer": "logprobs", "workers": 1},
            )
        finally:
            _stop(process)
        predicted.append(result.runs["winogender"].num_predicted)
        identities.append(result.provenance["model"]["identity"])
    assert predicted == [6, 6, 0]
    assert [identity["served"]["id"] for identity in identities] == [
        MODELS["smollm2"],
        MODELS["gemma3"],
        MODELS["smollm2"],
    ]
    assert identities[0] == identities[2] and identities[0]["model_id"] == identities[1]["model_id"] == "local-llm"


def test_completions_stops_with_a_clear_error_since_llama_server_returns_no_prompt_logprobs(data_dir, tmp_path):
    url, process = _serve("smollm2")
    try:
        with pytest.raises(
            ModelError, match=r"does not return prompt log-probabilities .*locally as hf:<its .gguf file.*vLLM"
        ) as error:
            runner.run(
                f"completions:{MODELS['smollm2']}",
                ["winogender"],
                settings=runner.RunSettings(limit=1, n_bootstrap=0),
                data_dir=data_dir,
                cache_path=tmp_path / "cache.sqlite",
                progress=False,
                model_options={"base_url": f"{url}/v1", "workers": 1},
            )
    finally:
        _stop(process)
    assert "does not echo the prompt" in str(error.value)  # it answers 200 with the generated token alone
