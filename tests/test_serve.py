"""``corefbias serve`` as a real server process, and the runner pointed at its URL."""

import json
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request

import pytest

from corefbias.harness import runner
from corefbias.models.registry import load_model

# A spaCy component standing in for a trained coreference model: it clusters the text's first
# two words with every third-person pronoun, in spacy-experimental's doc.spans format.
COMPONENT = textwrap.dedent(
    """
    import re

    from spacy.language import Language
    from spacy.tokens import SpanGroup


    @Language.factory("first_phrase_coref", assigns=["doc.spans"])
    def make(nlp, name):
        def component(doc):
            first = re.match(r"\\w+ \\w+", doc.text)
            found = re.finditer(r"(?i)\\b(he|she|they|him|her|them|his|their)\\b", doc.text)
            pronouns = [doc.char_span(m.start(), m.end()) for m in found]
            if first and pronouns:
                doc.spans["coref_clusters_1"] = SpanGroup(doc, spans=[doc.char_span(*first.span()), *pronouns])
            return doc

        return component
    """
)


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    import spacy

    folder = tmp_path_factory.mktemp("serve")
    (folder / "first_phrase_coref.py").write_text(COMPONENT)
    sys.path.insert(0, str(folder))
    try:
        import first_phrase_coref  # noqa: F401  (registers the factory in this process too)
    finally:
        sys.path.remove(str(folder))
    nlp = spacy.blank("en")
    nlp.add_pipe("first_phrase_coref")
    nlp.to_disk(folder / "pipeline")
    return folder


@pytest.fixture(scope="module")
def server(pipeline):
    code = (
        "import sys, first_phrase_coref; from corefbias.cli import main; "
        f"sys.exit(main(['serve', '--model', 'spacy:{pipeline / 'pipeline'}', '--port', '0', '--max-texts', '5']))"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**__import__("os").environ, "PYTHONPATH": str(pipeline)},
    )
    line = process.stdout.readline()
    if not line.startswith("serving"):
        process.kill()
        pytest.fail(f"server did not start: {line}{process.stderr.read()}")
    yield line.split(" at ")[1].split()[0]
    process.terminate()
    process.wait(timeout=10)


def test_runner_over_a_served_model_equals_the_model_in_process(server, pipeline, exported_set, tmp_path):
    data_dir = exported_set("winogender").parent
    common = dict(data_dir=data_dir, settings=runner.RunSettings(n_bootstrap=100), progress=False)
    served = runner.run(server, ["winogender"], cache_path=tmp_path / "served.sqlite", **common)
    local = runner.run(
        "spacy:local",
        ["winogender"],
        cache_path=tmp_path / "local.sqlite",
        model=load_model(f"spacy:{pipeline / 'pipeline'}"),
        **common,
    )
    assert served.runs["winogender"].sections == local.runs["winogender"].sections
    assert served.runs["winogender"].num_predicted == 720
    # Every link goes through the text's first two words, so a linked candidate starts the sentence.
    (rows,) = served.runs["winogender"].parts.values()
    linked_starts = {
        candidate["start"]
        for instance, candidates in zip(served.runs["winogender"].instances, rows["candidates"])
        for candidate, linked in zip(candidates, instance["decision"])
        if linked
    }
    assert linked_starts == {0}


def test_the_server_answers_bad_requests_and_stays_up(server):
    def post(body: bytes):
        request = urllib.request.Request(f"{server}/v1/clusters", data=body, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    assert post(b"not json")[0] == 400
    assert post(json.dumps({"texts": "one text"}).encode()) == (400, {"error": 'expected {"texts": [string, ...]}'})
    assert post(json.dumps({"texts": ["a"] * 6}).encode()) == (413, {"error": "6 texts in one request; the limit is 5"})
    status, answer = post(json.dumps({"texts": ["Ann and Bea met. She smiled."]}).encode())
    assert status == 200 and answer == {"clusters": [[[[0, 7], [17, 20]]]]}  # one text, one cluster, two spans
    with urllib.request.urlopen(f"{server}/v1/info", timeout=10) as response:
        assert json.loads(response.read())["protocol"] == "corefbias-coref/1"


@pytest.mark.parametrize(
    ("spec", "instead"),
    [
        (
            "hf:HuggingFaceTB/SmolLM2-135M-Instruct@" + "0" * 40,
            "an hf: model is a choice model scored by log-likelihood. To evaluate it, run `corefbias run --model "
            "hf:HuggingFaceTB/SmolLM2-135M-Instruct@" + "0" * 40 + "` directly; to share it over HTTP, serve it "
            "with vLLM (`vllm serve HuggingFaceTB/SmolLM2-135M-Instruct --revision " + "0" * 40 + "`, an "
            "OpenAI-compatible server) and run `corefbias run --model completions:HuggingFaceTB/SmolLM2-135M-Instruct "
            "--base-url http://<host>:8000/v1` against it",
        ),
        (
            "completions:meta-llama/Llama-3.1-8B",
            "a completions: model is a choice model scored by log-likelihood, already served by its "
            "OpenAI-compatible server; run `corefbias run --model completions:meta-llama/Llama-3.1-8B --base-url "
            "<server>/v1` directly",
        ),
    ],
)
def test_serving_a_language_model_says_what_to_do_instead_before_loading_it(spec, instead, monkeypatch, capsys):
    from corefbias.cli import main
    from corefbias.models import built_in

    def never(*args, **kwargs):
        raise AssertionError(f"serve loaded {args}: a choice model is refused before its weights load")

    monkeypatch.setattr(built_in, "import_module", never)
    assert main(["serve", "--model", spec, "--port", "0"]) == 2
    message = capsys.readouterr().err
    assert message == (
        f"corefbias: {spec} chooses among candidates; only cluster models can be served over corefbias's protocol: "
        f"{instead}\n"
    )


def test_serving_another_choice_model_is_refused(capsys):
    from corefbias.cli import main

    assert main(["serve", "--model", "baseline:stereotype", "--port", "0"]) == 2
    assert capsys.readouterr().err == (
        "corefbias: baseline:stereotype chooses among candidates; only cluster models can be served over "
        "corefbias's protocol\n"
    )
