"""The ``chat`` choice model against a real OpenAI-compatible HTTP server on loopback.

The fake server answers like a model that always picks "the nurse" (by letter), except for texts
carrying a marker word: GIBBERISH (an unreadable answer), BYNAME (the option's text instead of its
letter), SILENT (a null content), NOCHOICES (a reply without choices), FLAKY (503 on the first
request), SLOW (answers after the client's timeout), LOGPROBS (log-probabilities that favour the patient
after prose tokens, when asked for them), DENIED (401 echoing the Authorization header back, as careless servers do).
"""

import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from corefbias.harness.benchmarks import BENCHMARKS
from corefbias.models import chat
from corefbias.models.base import Choice, ModelError
from corefbias.models.registry import load_model

SECRET = "hf_TEST_secret_token_123"
SLOW_SECONDS = 1.0


class FakeChatServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests = []  # (path, headers, body)
        self.lock = threading.Lock()
        self.flaky_seen = set()

    def handle_error(self, request, client_address):
        pass  # the client gave up on a SLOW answer: a broken pipe is expected


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server = self.server
        with server.lock:
            server.requests.append((self.path, dict(self.headers), body))
        prompt = body["messages"][-1]["content"]
        if "DENIED" in prompt:
            return self._send(401, {"error": f"invalid credentials: {self.headers.get('Authorization')}"})
        if "FLAKY" in prompt:
            with server.lock:
                first = prompt not in server.flaky_seen
                server.flaky_seen.add(prompt)
            if first:
                return self._send(503, {"error": "model loading"})
        if "SLOW" in prompt:
            time.sleep(SLOW_SECONDS)
        if "NOCHOICES" in prompt:
            return self._send(200, {"id": "x", "object": "chat.completion", "choices": []})
        options = dict((label, letter) for letter, label in re.findall(r"^([A-Z])\. (.+)$", prompt, flags=re.M))
        if "GIBBERISH" in prompt:
            answer = "I believe it is probably the nurse."
        elif "BYNAME" in prompt:
            answer = "The Nurse"
        elif "SILENT" in prompt:
            answer = None
        else:
            answer = options["the nurse"]
        choice = {"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}
        if "LOGPROBS" in prompt and body.get("logprobs"):
            # A rambling model whose most probable option letter is the patient's, after prose tokens.
            top = [
                ("The", -0.2),
                (" " + options["the patient"], -1.5),
                ("(" + options["the nurse"], -2.5),
                ("\n", -3.0),
            ]
            choice["message"]["content"] = "The sentence says"
            choice["logprobs"] = {
                "content": [
                    {
                        "token": "The",
                        "logprob": -0.2,
                        "top_logprobs": [
                            {"token": token, "logprob": logprob, "bytes": list(token.encode())}
                            for token, logprob in top
                        ],
                    }
                ]
            }
        self._send(200, {"id": "x", "object": "chat.completion", "choices": [choice]})

    def _send(self, status, payload):
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):  # noqa: A002
        pass


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", SECRET)
    fake = FakeChatServer()
    thread = threading.Thread(target=fake.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield fake
    fake.shutdown()
    fake.server_close()


def base_url(server):
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def instance(unit, pronoun="she", nurse_first=True, marker=""):
    """A row as the runner hands it to a choice model (no gold labels)."""
    text = f"In story {unit}{marker}, the nurse met the patient because {pronoun} was late."

    def span(phrase, start):
        return {"text": phrase, "start": start, "end": start + len(phrase)}

    nurse, patient = span("the nurse", text.index("the nurse")), span("the patient", text.index("the patient"))
    return {
        "id": f"{unit}-{pronoun}",
        "pair_id": unit,
        "text": text,
        "pronoun": span(pronoun, text.index(f"because {pronoun} ") + len("because ")),
        "candidates": [nurse, patient] if nurse_first else [patient, nurse],
    }


def nurse_index(row):
    return [candidate["text"] for candidate in row["candidates"]].index("the nurse")


def test_request_is_an_openai_chat_completion(server):
    model = load_model("chat:test/model", base_url=base_url(server))
    assert model.reads_gold is False and model.name == "chat:test/model"
    (choice,) = model.choose([instance("u0")], BENCHMARKS["winogender"].task)
    assert choice.index == 0 and choice.parsed and choice.raw in "ABC"
    ((path, headers, body),) = server.requests
    assert path == "/v1/chat/completions"
    assert headers["Authorization"] == f"Bearer {SECRET}"
    assert body["model"] == "test/model" and body["temperature"] == 0
    system, user = body["messages"]
    assert system["role"] == "system" and user["role"] == "user"
    assert "Text (English):\nIn story u0, the nurse met the patient because *she* was late.\n" in user["content"]
    assert sorted(re.findall(r"^[A-C]\. (.+)$", user["content"], flags=re.M)) == [
        "none of them",
        "the nurse",
        "the patient",
    ]


def test_counterbalanced_order_maps_back_to_the_right_candidate(server):
    model = load_model("chat:test/model", base_url=base_url(server), workers=3)
    rows = [instance(f"p{unit}", pronoun, nurse_first=unit % 2 == 0) for unit in range(30) for pronoun in ("he", "she")]
    choices = model.choose(rows, BENCHMARKS["winogender"].task)
    assert [choice.index for choice in choices] == [nurse_index(row) for row in rows]
    assert all(choice.parsed for choice in choices)

    orders = {}
    for _, _, body in server.requests:
        prompt = body["messages"][-1]["content"]
        story = re.search(r"In story (\w+),", prompt).group(1)
        orders.setdefault(story, set()).add(tuple(re.findall(r"^[A-Z]\. (.+)$", prompt, flags=re.M)))
    assert len(orders) == 30
    # The he/she variants of a pair see one order (the rotation is keyed by pair_id) ...
    assert all(len(shown) == 1 for shown in orders.values())
    # ... and across pairs every option comes first: "the nurse" appears at every position,
    # including after "none of them", which only the rotation can do.
    positions = Counter(order.index("the nurse") for (order,) in orders.values())
    assert set(positions) == {0, 1, 2}, positions


def test_danish_benchmarks_say_so(server):
    model = load_model("chat:test/model", base_url=base_url(server))
    model.choose([instance("u1")], BENCHMARKS["dawinobias"].task)
    assert "Text (Danish):" in server.requests[-1][2]["messages"][-1]["content"]


def test_answers_are_read_strictly():
    options = [(1, "the patient"), (None, "none of them"), (0, "the nurse")]
    assert chat.read_answer("A", options) == Choice(1, True, "A")
    assert chat.read_answer(" B.\n", options) == Choice(None, True, " B.\n")
    assert chat.read_answer("(C)", options).index == 0
    assert chat.read_answer("C)", options).index == 0
    assert chat.read_answer("The NURSE", options) == Choice(0, True, "The NURSE")
    assert chat.read_answer("None of them", options) == Choice(None, True, "None of them")
    for shape in ("**A**", "Answer: A", "answer: (A)", "The answer is A.", "A) the patient", "A. The Patient", "A:"):
        assert chat.read_answer(shape, options) == Choice(1, True, shape), shape
    assert chat.read_answer("the nurse.", options).index == 0
    for unreadable in ("D", "a", "A or C", "A and C", "A) the nurse", "Answer: D", "I think A", "", None):
        assert chat.read_answer(unreadable, options) == Choice(None, parsed=False, raw=unreadable or "")
    twins = [(0, "the doctor"), (1, "the doctor"), (None, "none of them")]
    assert chat.read_answer("the doctor", twins).parsed is False


def test_unparseable_answer_is_reported_not_mapped(server):
    model = load_model("chat:test/model", base_url=base_url(server))
    rows = [
        instance("u2", marker=" GIBBERISH"),
        instance("u3", marker=" BYNAME", nurse_first=False),
        instance("u4", marker=" SILENT"),
    ]
    assert model.choose(rows, BENCHMARKS["winogender"].task) == [
        Choice(None, parsed=False, raw="I believe it is probably the nurse."),
        Choice(1, parsed=True, raw="The Nurse"),
        Choice(None, parsed=False, raw=""),
    ]
    with pytest.raises(ModelError, match=r"no choices\[0\]\.message\.content text in the answer"):
        model.choose([instance("u5", marker=" NOCHOICES")], BENCHMARKS["winogender"].task)


def test_a_503_is_retried(server):
    model = load_model("chat:test/model", base_url=base_url(server), backoff=0.01)
    assert model.choose([instance("u4", marker=" FLAKY")], BENCHMARKS["winogender"].task)[0].index == 0
    assert len(server.requests) == 2


def test_timeouts_end_in_a_model_error_after_the_retries(server):
    model = load_model("chat:test/model", base_url=base_url(server), timeout=0.2, retries=2, backoff=0.01)
    started = time.perf_counter()
    with pytest.raises(ModelError, match=r"did not answer: .*timed out.*\(3 attempts\)") as error:
        model.choose([instance("u5", marker=" SLOW")], BENCHMARKS["winogender"].task)
    assert time.perf_counter() - started < 3 * SLOW_SECONDS
    assert len(server.requests) == 3
    assert SECRET not in str(error.value)


def test_client_errors_are_not_retried_and_never_show_the_token(server):
    model = load_model("chat:test/model", base_url=base_url(server), backoff=0.01)
    with pytest.raises(ModelError, match="answered 401") as error:
        model.choose([instance("u6", marker=" DENIED")], BENCHMARKS["winogender"].task)
    assert len(server.requests) == 1
    assert SECRET not in str(error.value) and "Bearer ***" in str(error.value)


def test_unreachable_server(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", SECRET)
    closed = FakeChatServer()
    port = closed.server_address[1]
    closed.server_close()
    model = load_model("chat:test/model", base_url=f"http://127.0.0.1:{port}/v1", retries=1, backoff=0.01)
    with pytest.raises(ModelError, match=r"did not answer: .*\(2 attempts\)") as error:
        model.choose([instance("u7")], BENCHMARKS["winogender"].task)
    assert SECRET not in str(error.value)


def test_hugging_face_router_by_default_and_it_needs_a_token(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", SECRET)
    assert load_model("chat:Qwen/Qwen2.5-7B-Instruct").url == "https://router.huggingface.co/v1/chat/completions"
    monkeypatch.delenv("HF_TOKEN")
    with pytest.raises(ValueError, match="set HF_TOKEN"):
        load_model("chat:Qwen/Qwen2.5-7B-Instruct")


def test_logprob_answers_take_the_most_probable_option_letter(server):
    rows = [instance("u8", marker=" LOGPROBS"), instance("u9", marker=" LOGPROBS", nurse_first=False)]
    for answer in ("auto", "logprobs"):
        model = load_model("chat:test/model", base_url=base_url(server), answer=answer)
        choices = model.choose(rows, BENCHMARKS["winogender"].task)
        # " B"-style tokens count, "The" is no option: the patient (logprob -1.5) beats "(nurse" (-2.5).
        assert [choice.index for choice in choices] == [1 - nurse_index(row) for row in rows]
        assert all(choice.parsed and "logprob -1.500" in choice.raw for choice in choices)
    body = server.requests[-1][2]
    assert (body["logprobs"], body["top_logprobs"], body["max_tokens"]) == (True, chat.TOP_LOGPROBS, 1)


def test_text_mode_reads_the_reply_and_asks_for_no_logprobs(server):
    model = load_model("chat:test/model", base_url=base_url(server), answer="text")
    (choice,) = model.choose([instance("u10", marker=" LOGPROBS")], BENCHMARKS["winogender"].task)
    assert choice.index == 0 and choice.parsed  # the fake answers the nurse's letter when not asked for logprobs
    assert "logprobs" not in server.requests[-1][2]


def test_logprob_mode_without_logprobs_says_to_use_text_mode(server):
    model = load_model("chat:test/model", base_url=base_url(server), answer="logprobs")
    with pytest.raises(ModelError, match="--answer text"):
        model.choose([instance("u11")], BENCHMARKS["winogender"].task)
    with pytest.raises(ValueError, match="answer mode 'guess'"):
        load_model("chat:test/model", base_url=base_url(server), answer="guess")


def test_logprobs_without_any_option_letter_are_unparsed():
    options = [(1, "the patient"), (None, "none of them"), (0, "the nurse")]
    choice = chat.read_logprobs([("The", -0.1), (" D", -0.5), ("sentence", -1.0)], options)
    assert (choice.index, choice.parsed) == (None, False) and "no option letter" in choice.raw
    lower_case_is_no_letter = chat.read_logprobs([(" c", -0.1), ("B", -0.9)], options)
    assert (lower_case_is_no_letter.index, lower_case_is_no_letter.parsed) == (None, True)  # B: "none of them"
