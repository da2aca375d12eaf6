"""``completions:`` against OpenAI-compatible ``/v1/completions`` servers on loopback.

Two servers written here: a fake one whose "tokens" are words (fast, always runs: the request, the token
split, retries, redaction, requests in flight), and one that answers with the log-probabilities of the real
``hf:`` model (SmolLM2-135M's GGUF, which ``services/llamacpp/setup.sh`` fetches; skipped without it), so that
``completions:`` and ``hf:`` must agree on Winogender. Endpoints that return no prompt log-probabilities
must stop the run with a clear error.
"""

import json
import math
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from test_llamacpp_service import CACHE, MODELS

from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import runner
from corefbias.models import completions
from corefbias.models.base import ModelError
from corefbias.models.registry import load_model

SECRET = "hf_TEST_secret_token_456"
SMOLLM2 = CACHE / "models" / f"{MODELS['smollm2']}.gguf"
NO_PROMPT_LOGPROBS = r"does not return prompt log-probabilities \(echo with logprobs\).*as hf:<its \.gguf file.*vLLM"


def word_tokens(text):
    """The fake server's tokenizer: a word with the whitespace before it, as byte-level BPE splits English."""
    return re.findall(r"\s*\S+|\s+", text)


def fake_logprob(token):
    return -0.5 * len(token.strip())


class Server(ThreadingHTTPServer):
    """A completions server answering with ``self.answer(body) -> (status, payload)``."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, answer):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answer = answer
        self.lock = threading.Lock()
        self.requests = []  # (headers, body)
        self.in_flight = self.most_in_flight = 0

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/v1/models":
            return self._send(404, {"error": "not found"})
        self._send(200, {"object": "list", "data": [{"id": "served-model", "object": "model", "owned_by": "test"}]})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server = self.server
        with server.lock:
            server.requests.append((dict(self.headers), body))
            server.in_flight += 1
            server.most_in_flight = max(server.most_in_flight, server.in_flight)
        try:
            status, payload = server.answer(self, body) if self.path == "/v1/completions" else (404, {})
        finally:
            with server.lock:
                server.in_flight -= 1
        self._send(status, payload)

    def _send(self, status, payload):
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):  # noqa: A002
        pass


def echo_answer(prompt, tokens, logprobs, generated=" X", generated_logprob=-9.0, usage=True):
    """An OpenAI completions answer echoing ``tokens`` (the first without a log-probability) and one generated
    token, offsets as vLLM computes them (each token's length added up)."""
    tokens, logprobs = [*tokens, generated], [None, *logprobs[1:], generated_logprob]
    offsets = [sum(len(token) for token in tokens[:index]) for index in range(len(tokens))]
    choice = {
        "index": 0,
        "text": prompt + generated,
        "logprobs": {"tokens": tokens, "token_logprobs": logprobs, "text_offset": offsets, "top_logprobs": None},
        "finish_reason": "length",
    }
    answer = {"id": "cmpl-1", "object": "text_completion", "model": "served-model", "choices": [choice]}
    if usage:
        answer["usage"] = {"prompt_tokens": len(tokens) - 1, "completion_tokens": 1, "total_tokens": len(tokens)}
    return answer


def without_the_generated_token(handler, body):
    """Word tokens as llama-cpp-python's server 0.3 echoes a prompt without BOS: the generated token missing."""
    tokens = word_tokens(body["prompt"])
    answer = echo_answer(body["prompt"], tokens, [-1.0] * len(tokens))
    logprobs = answer["choices"][0]["logprobs"]
    for field in ("tokens", "token_logprobs", "text_offset"):
        logprobs[field] = logprobs[field][:-1]
    return 200, answer


def fake_words(handler, body):
    """Word tokens; markers in the prompt: FLAKY (503 to the first such request), DENIED (401 echoing the credentials),
    SLOW (a short latency, to count requests in flight), NOUSAGE (an answer without ``usage``), BOS (a BOS token
    echoed first, as vLLM echoes a Llama model's, its text counted in ``text_offset``)."""
    prompt, server = body["prompt"], handler.server
    if "DENIED" in prompt:
        return 401, {"error": f"invalid credentials: {handler.headers.get('Authorization')}"}
    if "FLAKY" in prompt:
        with server.lock:
            first = sum("FLAKY" in sent["prompt"] for _, sent in server.requests) == 1
        if first:
            return 503, {"error": "model loading"}
    if "SLOW" in prompt:
        time.sleep(0.05)
    tokens = ["<s>"] * ("BOS" in prompt) + word_tokens(prompt)
    return 200, echo_answer(prompt, tokens, [fake_logprob(token) for token in tokens], usage="NOUSAGE" not in prompt)


@pytest.fixture
def serve(start_server):
    """``serve(answer)``: a started ``Server``; all are stopped after the test."""
    return lambda answer: start_server(Server(answer))


def instance(unit, marker="", pronoun="she"):
    """A Winogender-like row as the runner hands it to a choice model."""
    text = f"The nurse{marker} told the patient that {pronoun} was late."

    def span(phrase, start):
        return {"text": phrase, "start": start, "end": start + len(phrase)}

    return {
        "id": f"{unit}-{pronoun}",
        "pair_id": unit,
        "text": text,
        "pronoun": span(pronoun, text.index(f" {pronoun} ") + 1),
        "candidates": [span("The nurse", 0), span("the patient", text.index("the patient"))],
        "occupation": "nurse",
        "participant": "patient",
    }


WINOGENDER = BENCHMARKS["winogender"].task


def test_the_request_is_lm_evals_and_each_option_is_scored_from_the_contexts_token_count(serve, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", SECRET)
    server = serve(fake_words)
    model = load_model("completions:served-model", base_url=server.base_url, workers=1)
    rows = [instance("u1"), instance("u2", marker=" NOUSAGE"), instance("u3", marker=" BOS")]
    choices = model.choose(rows, WINOGENDER)

    context = WINOGENDER.cloze.render(rows[0]).context
    headers, body = server.requests[0]
    assert body == {"model": "served-model", "prompt": context, **completions.REQUEST_SETTINGS}
    assert completions.REQUEST_SETTINGS == {"max_tokens": 1, "echo": True, "logprobs": 1, "temperature": 0}
    assert headers["Authorization"] == f"Bearer {SECRET}"
    # The context alone, then context + " nurse" and context + " patient", per instance.
    assert [sent["prompt"] for _, sent in server.requests[:3]] == [context, context + " nurse", context + " patient"]
    for choice in choices:  # the words' log-probabilities, the generated " X" (-9) never counted
        assert choice.loglikelihoods == (fake_logprob(" nurse"), fake_logprob(" patient"))
        assert choice.index == 0 and choice.parsed  # " nurse" is the shorter word, so the more probable
    identity = model.identity
    assert identity["kind"] == "completions" and identity["model_id"] == "served-model"
    assert identity["endpoint"] == f"{server.base_url}/completions"
    assert identity["served"] == {"id": "served-model", "owned_by": "test"}
    assert identity["request"] == completions.REQUEST_SETTINGS
    assert identity["scoring"] == {"method": "cloze", "norm": "none"}


def test_requests_in_flight_are_bounded_and_answers_kept_in_order(serve):
    server = serve(fake_words)
    model = load_model("completions:served-model", base_url=server.base_url, workers=3)
    rows = [instance(f"u{index}", marker=" SLOW" + " very" * index) for index in range(6)]
    choices = model.choose(rows, WINOGENDER)
    assert len(server.requests) == 18 and server.most_in_flight == 3
    assert [choice.loglikelihoods for choice in choices] == [(fake_logprob(" nurse"), fake_logprob(" patient"))] * 6


def test_a_503_is_retried_and_a_401_is_not_and_never_shows_the_token(serve, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", SECRET)
    server = serve(fake_words)
    model = load_model("completions:served-model", base_url=server.base_url, backoff=0.01, workers=1)
    assert model.choose([instance("u1", marker=" FLAKY")], WINOGENDER)[0].index == 0
    assert len(server.requests) == 4  # the context twice (503, then 200), then both options
    with pytest.raises(ModelError, match="answered 401") as error:
        model.choose([instance("u2", marker=" DENIED")], WINOGENDER)
    denied = [sent["prompt"] for _, sent in server.requests if "DENIED" in sent["prompt"]]
    assert len(denied) == len(set(denied)) <= 2  # not asked again; the rest not asked once the first failed
    assert SECRET not in str(error.value) and "Bearer ***" in str(error.value)


def test_the_base_url_is_required():
    with pytest.raises(ValueError, match="--base-url"):
        load_model("completions:served-model")


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(lambda handler, body: (400, {"error": {"message": "echo is not supported"}}), id="400-echo"),
        pytest.param(
            lambda handler, body: (
                400,
                {"error": {"message": "logprobs and echo cannot be used together", "type": "invalid_request_error"}},
            ),
            id="400-logprobs",
        ),
        pytest.param(  # llama.cpp's llama-server: the generated token alone, its logprobs in the chat format
            lambda handler, body: (
                200,
                {
                    "choices": [
                        {
                            "text": ",",
                            "index": 0,
                            "logprobs": {"content": [{"id": 28, "token": ",", "logprob": -0.76, "top_logprobs": []}]},
                            "finish_reason": "length",
                        }
                    ],
                    "object": "text_completion",
                },
            ),
            id="200-no-prompt-logprobs",
        ),
        pytest.param(lambda handler, body: (200, {"choices": [{"text": body["prompt"]}]}), id="200-echo-no-logprobs"),
        pytest.param(without_the_generated_token, id="200-llama-cpp-python-without-bos"),
        pytest.param(  # echo ignored, yet OpenAI-style logprobs of the generated token
            lambda handler, body: (200, echo_answer("", [","], [None])),
            id="200-not-echoed",
        ),
    ],
)
def test_an_endpoint_without_prompt_logprobs_stops_the_run_with_what_can(serve, monkeypatch, answer):
    monkeypatch.setenv("HF_TOKEN", SECRET)
    server = serve(answer)
    model = load_model("completions:served-model", base_url=server.base_url, backoff=0.01)
    with pytest.raises(ModelError, match=NO_PROMPT_LOGPROBS) as error:
        model.choose([instance("u1")], WINOGENDER)
    # The served name is no spec to load (before: "use hf:served-model"): the error names the kinds of one that is.
    assert "run the model 'served-model' locally as hf:<its .gguf file" in str(error.value)
    assert "hf:served-model" not in str(error.value) and SECRET not in str(error.value)
    assert len(server.requests) <= 3  # the context and two options at most, none asked again


# --- the real hf: model behind the server -------------------------------------------------------------------


@pytest.fixture(scope="module")
def smollm2():
    """``hf:`` SmolLM2-135M (its GGUF), loaded once."""
    if not SMOLLM2.is_file():
        pytest.skip(f"no {SMOLLM2}: run `bash services/llamacpp/setup.sh` to fetch it")
    from corefbias.models import hf_causal_lm

    return hf_causal_lm.load(str(SMOLLM2))


def hf_answer(backend):
    """Answers computed by ``backend`` (a ``TransformersBackend``) in one forward pass over the prompt, the
    generated token its argmax, token strings decoded one by one and offsets added up, as vLLM does."""
    import torch

    def answer(handler, body):
        prompt = body["prompt"]
        ids = backend.encode(prompt)
        with handler.server.lock, torch.inference_mode():
            logits = backend.model(input_ids=torch.tensor([ids])).logits[0].float()
        logprobs = torch.log_softmax(logits, dim=-1)
        prompt_logprobs = [None] + [float(logprobs[index - 1, ids[index]]) for index in range(1, len(ids))]
        following = int(logprobs[-1].argmax())
        tokens = [backend.tokenizer.decode([token]) for token in ids]
        return 200, echo_answer(
            prompt,
            tokens,
            prompt_logprobs,
            generated=backend.tokenizer.decode([following]),
            generated_logprob=float(logprobs[-1, following]),
        )

    return answer


@pytest.fixture(scope="module")
def data_dir(exported_set):
    return exported_set("winogender").parent


@pytest.mark.slow  # SmolLM2 served by llama-server and loaded by transformers: about 35 s
def test_completions_and_hf_agree_on_winogender(smollm2, serve, data_dir, tmp_path):
    server = serve(hf_answer(smollm2.backend))
    settings = runner.RunSettings(limit=2, n_bootstrap=0)
    runs = {
        spec: runner.run(
            spec,
            ["winogender"],
            settings=settings,
            data_dir=data_dir,
            cache_path=tmp_path / f"{kind}.sqlite",
            progress=False,
            **options,
        ).runs["winogender"]
        for kind, spec, options in [
            ("hf", f"hf:{SMOLLM2}", {"model": smollm2}),
            ("completions", "completions:served-model", {"model_options": {"base_url": server.base_url}}),
        ]
    }
    local, remote = runs.values()
    assert len(local.instances) == len(remote.instances) == 12  # 6 per unit at limit 2
    for ours, theirs in zip(local.instances, remote.instances):
        assert (ours["id"], ours["decision"]) == (theirs["id"], theirs["decision"])
        assert len(ours["loglikelihoods"]) == 2
        for a, b in zip(ours["loglikelihoods"], theirs["loglikelihoods"]):
            assert math.isclose(a, b, abs_tol=1e-4), (ours, theirs)
