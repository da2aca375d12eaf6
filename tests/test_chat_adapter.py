"""The ``chat`` choice model against a real OpenAI-compatible HTTP server on loopback.

The fake server answers like a model that always picks "the nurse" (by letter), except for texts
carrying a marker word: GIBBERISH (an unreadable answer), BYNAME (the option's text instead of its
letter), SILENT (a null content), NOCHOICES (a reply without choices), FLAKY (503 on the first
request), SLOW (answers after the client's timeout), LOGPROBS (log-probabilities that favour the patient
after prose tokens, when asked for them), DENIED (401 echoing the Authorization header back, as careless servers do).
A test may instead give the server a ``policy``: the whole answer, from the question's text and its lettered options.
"""

import json
import math
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from corefbias import cli
from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import runner
from corefbias.harness.position_rates import NO_POSITIONS, POSITION_RATE_THRESHOLD
from corefbias.models import chat, http_retry
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
        self.policy = None  # policy(text, options: {label: letter}, body) -> the choice; replaces the markers

    def handle_error(self, request, client_address):
        pass  # the client gave up on a SLOW answer: a broken pipe is expected


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server = self.server
        with server.lock:
            server.requests.append((self.path, dict(self.headers), body))
        prompt = body["messages"][-1]["content"]
        if server.policy is not None:
            text = re.search(r"^Text \(\w+\):\n(.*)$", prompt, flags=re.M).group(1)
            shown = dict((label, letter) for letter, label in re.findall(r"^([A-Z])\. (.+)$", prompt, flags=re.M))
            answer = server.policy(text, shown, body)
            return self._send(200, {"id": "x", "object": "chat.completion", "choices": [answer]})
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
    # Every parsed answer says where the chosen option stood in the order shown (0 = A).
    assert chat.read_answer("A", options) == Choice(1, True, "A", position=0)
    assert chat.read_answer(" B.\n", options) == Choice(None, True, " B.\n", position=1)
    assert chat.read_answer("(C)", options).index == 0
    assert chat.read_answer("C)", options).position == 2
    assert chat.read_answer("The NURSE", options) == Choice(0, True, "The NURSE", position=2)
    assert chat.read_answer("None of them", options) == Choice(None, True, "None of them", position=1)
    for shape in ("**A**", "Answer: A", "answer: (A)", "The answer is A.", "A) the patient", "A. The Patient", "A:"):
        assert chat.read_answer(shape, options) == Choice(1, True, shape, position=0), shape
    assert (chat.read_answer("the nurse.", options).index, chat.read_answer("the nurse.", options).position) == (0, 2)
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
    byname_position = [index for index, _ in chat.option_order(rows[1], "pair_id")].index(1)
    assert model.choose(rows, BENCHMARKS["winogender"].task) == [
        Choice(None, parsed=False, raw="I believe it is probably the nurse."),
        Choice(1, parsed=True, raw="The Nurse", position=byname_position),
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
    with pytest.raises(
        ModelError, match=r"no whole answer within the deadline of 0.2 s per attempt \(3 attempts\)$"
    ) as error:
        model.choose([instance("u5", marker=" SLOW")], BENCHMARKS["winogender"].task)
    assert time.perf_counter() - started < 3 * SLOW_SECONDS
    assert len(server.requests) == 3
    assert SECRET not in str(error.value)


def test_a_socket_timeout_before_the_watch_is_the_same_deadline(server, monkeypatch):
    # Under load the socket's own 0.2 s timeout can fire before the deadline's watch does; before, that attempt said
    # "did not answer: TimeoutError('timed out')" instead of the deadline (seen on a busy 2-core machine).
    monkeypatch.setattr(http_retry._Watch, "start", lambda watch: None)  # the watch never fires: the socket's wins
    model = load_model("chat:test/model", base_url=base_url(server), timeout=0.2, retries=0, backoff=0.01)
    with pytest.raises(ModelError, match=r"no whole answer within the deadline of 0.2 s per attempt \(1 attempt\)$"):
        model.choose([instance("u5", marker=" SLOW")], BENCHMARKS["winogender"].task)


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
    assert lower_case_is_no_letter.position == 1 and choice.position is None


# Stub models for the position checks: each a server policy answering from the question as a model would.


def _reply(content, top=None):
    choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
    if top is not None:
        entries = [{"token": token, "logprob": logprob, "bytes": list(token.encode())} for token, logprob in top]
        choice["logprobs"] = {"content": [{"token": top[0][0], "logprob": top[0][1], "top_logprobs": entries}]}
    return choice


def _first_named(text, shown):
    """The letter of the candidate the text names first: a choice made from the text, whatever the order."""
    folded = text.casefold()
    named = [label for label in shown if label != chat.NONE_OPTION and label.casefold() in folded]
    return shown[min(named, key=lambda label: folded.index(label.casefold()))]


def always_a(text, shown, body):
    return _reply("A")


def reads_the_text(text, shown, body):
    return _reply(_first_named(text, shown))


def prefers_a(text, shown, body):
    """Letter probabilities of a model that likes "A" best whatever the options (0.5, then 0.1 and 0.05) but
    gives 0.3 more to the letter of the candidate the text names first: asked once, it answers A every time."""
    letters = sorted(shown.values())
    probabilities = dict(zip(letters, (0.5, 0.1, 0.05)))
    probabilities[_first_named(text, shown)] += 0.3
    # The letter's probability split over two tokens ("A" and " A"), as tokenizers do; prose before it.
    top = [("The", math.log(0.04))]
    for letter, probability in probabilities.items():
        top += [(letter, math.log(probability * 0.75)), (" " + letter, math.log(probability * 0.25))]
    return _reply("A", top)


@pytest.fixture(scope="module")
def data_dir(exported_set):
    for name in ("winogender", "abc"):
        exported_set(name)
    return exported_set("winogender").parent


def _run(server, data_dir, benchmarks, **options):
    return runner.run(
        "chat:test/model",
        benchmarks,
        settings=runner.RunSettings(limit=5, n_bootstrap=0, cache_mode="off"),
        data_dir=data_dir,
        progress=False,
        model_options={"base_url": base_url(server), "workers": 8, **options},
    )


def test_parsed_answers_record_the_position_they_were_given_at(server):
    model = load_model("chat:test/model", base_url=base_url(server))
    rows = [instance(f"q{unit}", nurse_first=unit % 2 == 0) for unit in range(6)]
    for row, choice in zip(rows, model.choose(rows, BENCHMARKS["winogender"].task)):
        # The fake answers the nurse's letter: its position is where the nurse was shown.
        assert choice.position == [label for _, label in chat.option_order(row, "pair_id")].index("the nurse")


def test_a_model_answering_a_whatever_the_text_is_flagged(server, data_dir):
    server.policy = always_a
    result = _run(server, data_dir, ["winogender", "abc"], answer="text")
    for name, outcome in result.to_json()["benchmarks"].items():
        total = outcome["num_instances"]
        assert outcome["parse_rate"] == 1.0, name
        assert (outcome["position_rate"], outcome["top_position"], outcome["position_bias"]) == (1.0, 0, True)
        assert outcome["position_note"] == f"answers at option position A in {total} of {total} questions"
        assert [line["position"] for line in result.runs[name].instances] == [0] * total


def test_a_model_reading_the_text_is_not_flagged(server, data_dir):
    server.policy = reads_the_text
    result = _run(server, data_dir, ["winogender", "abc"], answer="text")
    for name, outcome in result.to_json()["benchmarks"].items():
        assert outcome["parse_rate"] == 1.0 and outcome["top_position"] is not None, name
        # The rotation spreads its answers over the positions: about 1/3 (winogender), 1/2 (abc: 2 options).
        assert outcome["position_rate"] <= 0.7 < POSITION_RATE_THRESHOLD and not outcome["position_bias"], name


@pytest.mark.slow  # every order of the options of two benchmarks, through the HTTP server
def test_every_order_undoes_a_preference_for_a_letter(server, data_dir):
    server.policy = prefers_a
    asked_once = _run(server, data_dir, ["winogender", "abc"], answer="logprobs")
    assert all(outcome["position_bias"] for outcome in asked_once.to_json()["benchmarks"].values())
    server.requests.clear()
    every_order = _run(server, data_dir, ["winogender", "abc"], answer="logprobs", orders="all")
    # m questions per instance of m options: 3 on Winogender (2 candidates), 2 on ABC (1).
    sizes = {name: len(run.instances) for name, run in every_order.runs.items()}
    assert len(server.requests) == 3 * sizes["winogender"] + 2 * sizes["abc"]
    assert all(body["max_tokens"] == 1 and body["logprobs"] for _, _, body in server.requests)
    server.policy = reads_the_text
    by_text = _run(server, data_dir, ["winogender", "abc"], answer="text")
    for name, run in every_order.runs.items():
        # The answers are the text's, not A's ...
        assert [line["decision"] for line in run.instances] == [
            line["decision"] for line in by_text.runs[name].instances
        ]
        assert [line["decision"] for line in run.instances] != [
            line["decision"] for line in asked_once.runs[name].instances
        ]
        # ... decided from every order, so they have no position, and no position rate.
        assert all("position" not in line for line in run.instances)
        outcome = every_order.to_json()["benchmarks"][name]
        assert (outcome["position_rate"], outcome["position_bias"], outcome["position_note"]) == (
            None,
            False,
            NO_POSITIONS,
        )
    assert every_order.provenance["model"]["identity"]["decoding"]["orders"] == "all"


def test_every_order_asks_each_question_in_each_rotation_and_keeps_the_sums(server):
    server.policy = prefers_a
    model = load_model("chat:test/model", base_url=base_url(server), answer="logprobs", orders="all", workers=3)
    rows = [instance(f"r{unit}", pronoun, nurse_first=unit % 2 == 0) for unit in range(4) for pronoun in ("he", "she")]
    choices = model.choose(rows, BENCHMARKS["winogender"].task)
    assert [choice.index for choice in choices] == [nurse_index(row) for row in rows]  # the nurse is named first
    assert all(choice.parsed and choice.position is None for choice in choices)
    # The nurse: 0.3 more than the others in each of the 3 orders, and 0.5 + 0.1 + 0.05 over them.
    assert "'the nurse' 1.5500" in choices[0].raw and "'none of them' 0.6500" in choices[0].raw
    asked = {}
    for _, _, body in server.requests:
        prompt = body["messages"][-1]["content"]
        question = re.search(r"In story (\w+), .* because \*(\w+)\*", prompt).groups()
        asked.setdefault(question, []).append(tuple(re.findall(r"^[A-Z]\. (.+)$", prompt, flags=re.M)))
    assert len(asked) == len(rows) and all(len(orders) == 3 for orders in asked.values())
    for orders in asked.values():  # every option at every letter once
        assert all(len({order[letter] for order in orders}) == 3 for letter in range(3))


def test_letter_probabilities_add_the_tokens_of_a_letter():
    options = [(1, "the patient"), (None, "none of them"), (0, "the nurse")]
    top = [("The", -0.1), ("B", math.log(0.2)), (" B", math.log(0.1)), ("(A", math.log(0.05)), ("D", -1.0)]
    assert chat.letter_probabilities(top, options) == pytest.approx([0.05, 0.3, 0.0])
    unreadable = chat.decide_over_orders(instance("z"), [[0.0, 0.0, 0.0]] * 3)
    assert (unreadable.index, unreadable.parsed) == (None, False) and "no option letter" in unreadable.raw


def test_every_order_needs_logprob_answers(server, tmp_path, capsys):
    for answer in ("auto", "text"):
        with pytest.raises(ValueError, match="needs answer='logprobs'"):
            load_model("chat:test/model", base_url=base_url(server), answer=answer, orders="all")
    with pytest.raises(ValueError, match="orders 'some' is not one of one, all"):
        load_model("chat:test/model", base_url=base_url(server), orders="some")
    common = ["--benchmark", "winogender", "--limit", "1", "--no-cache", "--out", str(tmp_path), "--orders", "all"]
    assert cli.main(["run", "--model", "chat:test/model", "--base-url", base_url(server), *common]) == 2
    assert "needs answer='logprobs' (--answer logprobs)" in capsys.readouterr().err
    assert cli.main(["run", "--model", "baseline:random", *common]) == 2
    assert "--orders is for chat: models only" in capsys.readouterr().err
    assert not server.requests


def test_the_orders_asked_are_part_of_the_identity(server):
    one = load_model("chat:test/model", base_url=base_url(server), answer="logprobs")
    every = load_model("chat:test/model", base_url=base_url(server), answer="logprobs", orders="all")
    assert (one.identity["decoding"]["orders"], every.identity["decoding"]["orders"]) == ("one", "all")
    assert runner.cache_key(one.identity) != runner.cache_key(every.identity)
