"""``chat:<model id>``: an instruction-tuned LLM answers each instance as a multiple-choice question.

The prompt shows the text with the pronoun wrapped in asterisks, names the text's language (the
benchmark's, so the Danish sets say Danish), and lists the instance's candidates plus "none of
them" as options A, B, ...; the model is asked for one letter, at temperature 0.

**Option order is counterbalanced** by a cyclic rotation of all options ("none of them"
included), its shift ``sha256(unit) mod (number of options)``, where the unit is the value of the
benchmark's resampling unit column (``Benchmark.unit``: ``pair_id``, ``quadruple_id``,
``triplet_id``, or ``id``). Every option thus comes first equally often in expectation, while the
variants of one unit — the minimal pairs whose answers the bias scores compare — see the same order,
so a preference for "A" cannot pass for a gender effect. The rotation depends on nothing else, so
reruns and shards ask the same questions.

**Answers** (``answer=``, ``corefbias run --answer``) are read without guessing, in one of two ways:

* ``"logprobs"``: the request asks for one token and its ``top_logprobs`` (OpenAI-compatible
  ``logprobs``/``top_logprobs``, which llama.cpp, vLLM and TGI servers return); the answer is the option
  letter with the highest probability among those tokens (``" B"`` counts as ``B``). The model cannot
  ramble, so base models answer too. No option letter among the top tokens is an unparsed answer; an
  endpoint that returns no log-probabilities is an error naming ``--answer text``.
* ``"text"``: the reply's text must be one of the usual answer shapes — ``B``, ``B.``, ``(B)``,
  ``Answer: B``, ``The answer is B.``, ``B) the nurse`` (the text, if any, must be that option's), with
  or without Markdown bold — or exactly one option's text (case aside). Anything else, and anything
  naming two options ("A or B"), is unparsed.
* ``"auto"`` (default) asks for log-probabilities alongside the text and uses them when the endpoint
  returns them, else reads the text.

An unparsed answer is ``Choice(None, parsed=False, raw=...)``, which the runner counts and reports,
never guessed. Gold labels are never read (``reads_gold = False``). A parsed answer records where the
chosen option stood (``Choice.position``, 0 = ``A``): the runner reports per benchmark the share of
answers at the most frequent position and flags a model that answers by position
(``corefbias.harness.position_rates``).

**Every order** (``orders=``, ``corefbias run --orders``): ``"one"`` (default) asks each question once,
in the rotation above. ``"all"`` asks it in each of its ``m`` cyclic rotations — **m requests per
instance, m times the cost** (3 on most benchmarks, 2 on ABC) — reads from each answer's first-token
``top_logprobs`` the probability of every option letter (``exp(logprob)``, summed over the tokens that
read as that letter, ``"A"`` and ``" A"``; a letter absent from the top list counts 0), adds it to the
option shown at that letter, and answers the option with the highest probability summed over the
rotations (ties: the first candidate, then "none of them"; no letter in any rotation: unparsed). Every
option stands at every letter once, so a preference for a letter adds the same to every option and
cannot decide the answer: the remedy for position bias of averaging over cyclic permutations (Zheng et
al., 2024, "Large Language Models Are Not Robust Multiple Choice Selectors"). It needs
``answer="logprobs"``; its answers have ``position=None`` (they depend on no order) and keep the summed
probabilities in ``raw``.

**Requests in flight**: ``workers`` questions are asked at a time (answers are kept in order), so a
hosted model with several replicas is used at its capacity.

**Identity** (the prediction cache's key): the model id, the endpoint, what the endpoint's
``GET {base_url}/models`` reports of the model that answers (``served``: llama.cpp's parameter count,
size and quantization, vLLM's weights path; ``None`` where the endpoint lists no such model), the
prompt template — its version ``PROMPT_TEMPLATE_VERSION`` and the digest of a question rendered from a
fixed instance, which changes with any edit of the wording — and the decoding settings (the orders
asked included). So another model served under the same name at the same endpoint is asked again.

**Transport**: OpenAI-compatible chat completions, ``POST {base_url}/chat/completions`` with
``Authorization: Bearer <token>``. ``base_url`` defaults to Hugging Face's Inference Providers
router (the base that ``huggingface_hub`` 2.4's auto router posts ``/v1/chat/completions`` to,
``inference/_providers/_common.py``) and the token comes from ``HF_TOKEN``; any OpenAI-compatible
server (vLLM, TGI, llama.cpp, OpenAI) works through ``base_url``. Each request has a timeout; a 429,
a 5xx, a timeout or a dropped connection is retried with exponential backoff; the token never
appears in an error message.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import string
from concurrent.futures import ThreadPoolExecutor

from .base import Choice, ModelError, Task
from .openai_http import OpenAIEndpoint

DEFAULT_BASE_URL = "https://router.huggingface.co/v1"
TOKEN_ENV = "HF_TOKEN"
NONE_OPTION = "none of them"
LANGUAGE_NAMES = {"en": "English", "da": "Danish", "sv": "Swedish", "ru": "Russian", "zh": "Chinese"}
SYSTEM_PROMPT = (
    "You resolve pronouns: you decide what a pronoun in a text refers to. "
    "Reply with the letter of one option and nothing else."
)
ANSWER_MODES = ("auto", "logprobs", "text")
ORDER_MODES = ("one", "all")
TOP_LOGPROBS = 20  # the most that OpenAI's API returns; servers may cap it lower
_LETTER = r"\(?\*{0,2}([A-Z])\*{0,2}\)?"
_ANSWER_SHAPES = (
    re.compile(rf"{_LETTER}[.:)]?"),  # B  B.  (B)  B)  **B**
    re.compile(rf"(?:the\s+)?(?:correct\s+)?answer(?:\s+is)?\s*:?\s*{_LETTER}[.)]?", re.IGNORECASE),
)
_LETTER_WITH_TEXT = re.compile(rf"{_LETTER}[.:)]\s+(.+?)\.?")
# Bump when the option order or the reading of answers changes (edits of the question's wording
# change the template digest by themselves): answers cached under the old version are then asked again.
# 3: answers record the position of the chosen option; cached answers without one would hide a position bias.
PROMPT_TEMPLATE_VERSION = 3

Option = tuple[int | None, str]  # (candidate index, or None for "none of them"; the text shown)


def _options(instance: dict) -> list[Option]:
    """The options of one instance unrotated: its candidates in order, then "none of them"."""
    options: list[Option] = [(index, candidate["text"]) for index, candidate in enumerate(instance["candidates"])]
    options.append((None, NONE_OPTION))
    if len(options) > len(string.ascii_uppercase):
        raise ValueError(
            f"instance {instance.get('id')!r} has {len(options) - 1} candidates; at most 25 can be lettered"
        )
    return options


def option_order(instance: dict, unit: str) -> list[Option]:
    """The options of one instance in the order they are shown (see the module docstring)."""
    options = _options(instance)
    shift = int.from_bytes(hashlib.sha256(str(instance[unit]).encode("utf-8")).digest()[:8], "big") % len(options)
    return options[shift:] + options[:shift]


def all_orders(instance: dict) -> list[list[Option]]:
    """Every cyclic rotation of an instance's options, the unrotated order first (``orders="all"``).

    Parameters
    ----------
    instance
        An instance row with ``candidates``.

    Returns
    -------
    list of list of Option
        ``m`` orders for ``m`` options; every option stands at every position exactly once.
    """
    options = _options(instance)
    return [options[shift:] + options[:shift] for shift in range(len(options))]


def build_messages(instance: dict, options: list[Option], language: str) -> list[dict]:
    """The chat messages asking about one instance, options in the given order."""
    text, pronoun = instance["text"], instance["pronoun"]
    marked = f"{text[: pronoun['start']]}*{text[pronoun['start'] : pronoun['end']]}*{text[pronoun['end'] :]}"
    letters = string.ascii_uppercase[: len(options)]
    listed = "\n".join(f"{letter}. {label}" for letter, (_, label) in zip(letters, options))
    question = (
        f"Text ({LANGUAGE_NAMES.get(language, language)}):\n{marked}\n\n"
        f'What does the pronoun "{pronoun["text"]}", marked with asterisks in the text, refer to?\n'
        f"{listed}\n\nAnswer with one letter: {', '.join(letters[:-1])} or {letters[-1]}."
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": question}]


def _by_letter(letter: str, options: list[Option], raw: str) -> Choice:
    position = string.ascii_uppercase.index(letter)
    if position < len(options):
        return Choice(options[position][0], parsed=True, raw=raw, position=position)
    return Choice(None, parsed=False, raw=raw)


def prompt_template_digest() -> str:
    """The sha256 of the messages built for a fixed instance: it changes whenever the wording does."""
    instance = {
        "text": "Ann met Bo. She smiled.",
        "pronoun": {"text": "She", "start": 12, "end": 15},
        "candidates": [{"text": "Ann", "start": 0, "end": 3}, {"text": "Bo", "start": 8, "end": 10}],
    }
    options = [(index, candidate["text"]) for index, candidate in enumerate(instance["candidates"])]
    messages = build_messages(instance, [*options, (None, NONE_OPTION)], "en")
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode("utf-8")).hexdigest()


def read_answer(answer: str | None, options: list[Option]) -> Choice:
    """The candidate a reply's text names, or an unparsed Choice (see the module docstring)."""
    raw = answer or ""
    reply = raw.strip()
    for shape in _ANSWER_SHAPES:
        match = shape.fullmatch(reply)
        if match:
            return _by_letter(match.group(1), options, raw)
    with_text = _LETTER_WITH_TEXT.fullmatch(reply)
    if with_text:
        position = string.ascii_uppercase.index(with_text.group(1))
        if position < len(options) and options[position][1].casefold() == with_text.group(2).strip().casefold():
            return Choice(options[position][0], parsed=True, raw=raw, position=position)
        return Choice(None, parsed=False, raw=raw)
    said = reply.rstrip(".").casefold()
    named = [position for position, (_, label) in enumerate(options) if label.casefold() == said]
    if len(named) == 1:
        return Choice(options[named[0]][0], parsed=True, raw=raw, position=named[0])
    return Choice(None, parsed=False, raw=raw)


def read_logprobs(top_logprobs: list[tuple[str, float]], options: list[Option]) -> Choice:
    """The option letter with the highest log-probability among a first token's top candidates."""
    letters = string.ascii_uppercase[: len(options)]
    best: tuple[float, str] | None = None
    for token, logprob in top_logprobs:
        letter = _letter_of(token)
        if len(letter) == 1 and letter in letters and (best is None or logprob > best[0]):
            best = (logprob, letter)
    shown = " ".join(f"{token!r}:{logprob:.2f}" for token, logprob in top_logprobs[:5])
    if best is None:
        return Choice(None, parsed=False, raw=f"no option letter among the top tokens {shown}")
    return _by_letter(best[1], options, f"{best[1]} (logprob {best[0]:.3f}; top {shown})")


def _letter_of(token: str) -> str:
    """The option letter a token reads as (``" B"``, ``"(B"``, ``"**B"`` → ``"B"``), else the stripped token."""
    return token.strip().strip("(*")


def letter_probabilities(top_logprobs: list[tuple[str, float]], options: list[Option]) -> list[float]:
    """Each shown option's probability as the first token: the summed ``exp(logprob)`` of the top tokens that
    read as its letter.

    Parameters
    ----------
    top_logprobs
        The first token's top candidates, ``(token, logprob)``.
    options
        The options in the order they were shown.

    Returns
    -------
    list of float
        One probability per shown position; 0 for a letter absent from the top tokens (its probability is
        below theirs, and unknown).
    """
    letters = string.ascii_uppercase[: len(options)]
    probabilities = [0.0] * len(options)
    for token, logprob in top_logprobs:
        letter = _letter_of(token)
        # "A" and " A" are different tokens, so their probabilities add up to the letter's.
        if len(letter) == 1 and letter in letters:
            probabilities[letters.index(letter)] += math.exp(logprob)
    return probabilities


def decide_over_orders(instance: dict, probabilities: list[list[float]]) -> Choice:
    """The option with the highest probability summed over every order it was shown in (``orders="all"``).

    Parameters
    ----------
    instance
        The instance row (its candidates).
    probabilities
        Per order of ``all_orders(instance)``, in that order, each shown position's letter probability
        (``letter_probabilities``).

    Returns
    -------
    Choice
        The option with the highest sum (ties: the earliest candidate, then "none of them"), ``position=None``,
        and the sums in ``raw``; unparsed where no order's top tokens held an option letter.
    """
    options = _options(instance)
    summed = {index: 0.0 for index, _ in options}
    for shown, shown_probabilities in zip(all_orders(instance), probabilities):
        for (index, _), probability in zip(shown, shown_probabilities):
            summed[index] += probability
    described = "; ".join(f"{label!r} {summed[index]:.4f}" for index, label in options)
    raw = f"letter probabilities summed over {len(probabilities)} orders: {described}"
    if not any(summed.values()):
        return Choice(None, parsed=False, raw=f"no option letter among the top tokens of any order ({raw})")
    best = max(options, key=lambda option: summed[option[0]])  # max keeps the first of tied options
    return Choice(best[0], parsed=True, raw=raw)


def first_token_logprobs(body) -> list[tuple[str, float]] | None:
    """``choices[0].logprobs.content[0].top_logprobs`` as (token, logprob) pairs; None when absent."""
    try:
        content = body["choices"][0]["logprobs"]["content"]
        if not content:
            return None
        return [(str(entry["token"]), float(entry["logprob"])) for entry in content[0]["top_logprobs"]]
    except (KeyError, IndexError, TypeError, ValueError):
        return None


class ChatModel:
    """A chat-completions model answering multiple-choice questions (see the module docstring)."""

    reads_gold = False

    def __init__(
        self,
        model_id: str,
        base_url: str,
        token: str | None,
        *,
        timeout: float,
        retries: int,
        backoff: float,
        max_tokens: int,
        workers: int,
        answer: str = "auto",
        orders: str = "one",
    ):
        self.name = f"chat:{model_id}"
        self.model_id = model_id
        self.endpoint = OpenAIEndpoint(base_url, token, timeout=timeout, retries=retries, backoff=backoff)
        self.url = self.endpoint.url("/chat/completions")
        if orders not in ORDER_MODES:
            raise ValueError(f"orders {orders!r} is not one of {', '.join(ORDER_MODES)}")
        if orders == "all" and answer != "logprobs":
            raise ValueError(
                f"orders='all' (--orders all) sums each option letter's first-token probability over the orders, "
                f"so it needs answer='logprobs' (--answer logprobs), not {answer!r}: a text answer gives no "
                "probabilities, and auto would mix the two"
            )
        self.max_tokens, self.workers, self.answer, self.orders = max_tokens, workers, answer, orders

    def choose(self, instances: list[dict], task: Task) -> list[Choice]:
        if self.orders == "all":
            return self._choose_over_orders(instances, task)
        options = [option_order(instance, task.unit) for instance in instances]
        questions = [build_messages(instance, shown, task.language) for instance, shown in zip(instances, options)]
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            return list(pool.map(self.answer_question, questions, options))

    def _choose_over_orders(self, instances: list[dict], task: Task) -> list[Choice]:
        orders = [all_orders(instance) for instance in instances]
        asked = [(instance, shown) for instance, shown_orders in zip(instances, orders) for shown in shown_orders]
        questions = [build_messages(instance, shown, task.language) for instance, shown in asked]
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            answered = iter(list(pool.map(self.ask_letter_probabilities, questions, [shown for _, shown in asked])))
        return [
            decide_over_orders(instance, [next(answered) for _ in shown_orders])
            for instance, shown_orders in zip(instances, orders)
        ]

    def ask_letter_probabilities(self, messages: list[dict], options: list[Option]) -> list[float]:
        """Ask one question and read each shown option letter's first-token probability (``orders="all"``)."""
        top = first_token_logprobs(self._post(self.request_body(messages)))
        if top is None:
            raise ModelError(self._redact(f"{self.url} returned no log-probabilities {self._no_logprobs_hint()}"))
        return letter_probabilities(top, options)

    def _no_logprobs_hint(self) -> str:
        return (
            "(choices[0].logprobs.content[0].top_logprobs); --orders all needs them"
            if self.orders == "all"
            else "(choices[0].logprobs.content[0].top_logprobs); use --answer text for an endpoint without them"
        )

    def request_body(self, messages: list[dict]) -> dict:
        """The chat-completions request for one question under this model's answer mode."""
        body = {"model": self.model_id, "messages": messages, "temperature": 0, "max_tokens": self.max_tokens}
        if self.answer != "text":
            body.update(logprobs=True, top_logprobs=TOP_LOGPROBS)
        if self.answer == "logprobs":
            body["max_tokens"] = 1
        return body

    def answer_question(self, messages: list[dict], options: list[Option]) -> Choice:
        """Ask one question and read its answer (see the module docstring)."""
        body = self._post(self.request_body(messages))
        top = first_token_logprobs(body) if self.answer != "text" else None
        if top is not None:
            return read_logprobs(top, options)
        if self.answer == "logprobs":
            raise ModelError(self._redact(f"{self.url} returned no log-probabilities {self._no_logprobs_hint()}"))
        return read_answer(self._content(body), options)

    def _content(self, body) -> str | None:
        try:
            content = body["choices"][0]["message"]["content"]
            if content is None or isinstance(content, str):
                return content
        except (KeyError, IndexError, TypeError):
            pass
        raise ModelError(self._redact(f"{self.url}: no choices[0].message.content text in the answer {body!r:.300}"))

    def _post(self, payload: dict):
        return self.endpoint.post("/chat/completions", payload)

    def served_model(self) -> dict | None:
        """What ``GET {base_url}/models`` reports of the model that answers (``OpenAIEndpoint.served_model``)."""
        return self.endpoint.served_model(self.model_id)

    @functools.cached_property
    def identity(self) -> dict:
        """Who answers, as the run started (see the module docstring)."""
        return self.current_identity()

    def current_identity(self) -> dict:
        """Who answers now: ``identity`` with the model the endpoint serves asked again (the runner compares the
        two after every batch)."""
        return {
            "kind": "chat",
            "model_id": self.model_id,
            "endpoint": self.url,
            "served": self.served_model(),
            "prompt_template": {"version": PROMPT_TEMPLATE_VERSION, "digest": prompt_template_digest()},
            "answer": self.answer,
            "decoding": {
                **{key: value for key, value in self.request_body([]).items() if key not in ("model", "messages")},
                "orders": self.orders,
            },
        }

    def _redact(self, message: str) -> str:
        return self.endpoint.redact(message)


def load(
    argument: str,
    kind: str = "chat",
    base_url: str = DEFAULT_BASE_URL,
    token_env: str = TOKEN_ENV,
    timeout: float = 60.0,
    retries: int = 4,
    backoff: float = 1.0,
    max_tokens: int = 16,
    workers: int = 4,
    answer: str = "auto",
    orders: str = "one",
    token: str | None = None,
) -> ChatModel:
    """The chat model ``argument`` behind ``base_url``; the token is ``token`` (e.g. a signed-in visitor's),
    else read from ``token_env``."""
    token = token or os.environ.get(token_env) or None
    if token is None and base_url == DEFAULT_BASE_URL:
        raise ValueError(f"{kind}:{argument} calls Hugging Face Inference, which needs a token: set {token_env}")
    if retries < 0 or timeout <= 0 or workers < 1 or max_tokens < 1:
        raise ValueError(
            f"need retries >= 0, timeout > 0, workers >= 1 and max_tokens >= 1; "
            f"got retries={retries}, timeout={timeout}, workers={workers}, max_tokens={max_tokens}"
        )
    if answer not in ANSWER_MODES:
        raise ValueError(f"answer mode {answer!r} is not one of {', '.join(ANSWER_MODES)}")
    return ChatModel(
        argument,
        base_url,
        token,
        timeout=timeout,
        retries=retries,
        backoff=backoff,
        max_tokens=max_tokens,
        workers=workers,
        answer=answer,
        orders=orders,
    )
