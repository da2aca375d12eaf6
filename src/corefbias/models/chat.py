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

**Answers are read strictly**: one option letter (``B``, ``B.``, ``B)`` or ``(B)``), or exactly
one option's text (case aside). Anything else is ``Choice(None, parsed=False, raw=answer)``, which
the runner counts and reports. Gold labels are never read (``reads_gold = False``).

**Transport**: OpenAI-compatible chat completions, ``POST {base_url}/chat/completions`` with
``Authorization: Bearer <token>``. ``base_url`` defaults to Hugging Face's Inference Providers
router (the base that ``huggingface_hub`` 2.4's auto router posts ``/v1/chat/completions`` to,
``inference/_providers/_common.py``) and the token comes from ``HF_TOKEN``; any OpenAI-compatible
server (vLLM, TGI, llama.cpp, OpenAI) works through ``base_url``. Each request has a timeout; a 429,
a 5xx, a timeout or a dropped connection is retried with exponential backoff; the token never
appears in an error message.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import string
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from .base import Choice, ModelError, Task

DEFAULT_BASE_URL = "https://router.huggingface.co/v1"
TOKEN_ENV = "HF_TOKEN"
NONE_OPTION = "none of them"
LANGUAGE_NAMES = {"en": "English", "da": "Danish"}
SYSTEM_PROMPT = (
    "You resolve pronouns: you decide what a pronoun in a text refers to. "
    "Reply with the letter of one option and nothing else."
)
_LETTER_ANSWER = re.compile(r"\(?([A-Z])[.)]?")

Option = tuple[int | None, str]  # (candidate index, or None for "none of them"; the text shown)


def option_order(instance: dict, unit: str) -> list[Option]:
    """The options of one instance in the order they are shown (see the module docstring)."""
    options: list[Option] = [(index, candidate["text"]) for index, candidate in enumerate(instance["candidates"])]
    options.append((None, NONE_OPTION))
    if len(options) > len(string.ascii_uppercase):
        raise ValueError(f"instance {instance.get('id')!r} has {len(options) - 1} candidates; at most 25 can be lettered")
    shift = int.from_bytes(hashlib.sha256(str(instance[unit]).encode("utf-8")).digest()[:8], "big") % len(options)
    return options[shift:] + options[:shift]


def build_messages(instance: dict, options: list[Option], language: str) -> list[dict]:
    """The chat messages asking about one instance, options in the given order."""
    text, pronoun = instance["text"], instance["pronoun"]
    marked = f"{text[:pronoun['start']]}*{text[pronoun['start']:pronoun['end']]}*{text[pronoun['end']:]}"
    letters = string.ascii_uppercase[: len(options)]
    listed = "\n".join(f"{letter}. {label}" for letter, (_, label) in zip(letters, options))
    question = (
        f"Text ({LANGUAGE_NAMES.get(language, language)}):\n{marked}\n\n"
        f'What does the pronoun "{pronoun["text"]}", marked with asterisks in the text, refer to?\n'
        f"{listed}\n\nAnswer with one letter: {', '.join(letters[:-1])} or {letters[-1]}."
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": question}]


def read_answer(answer: str | None, options: list[Option]) -> Choice:
    """The candidate an answer names, or an unparsed Choice (see the module docstring)."""
    raw = answer or ""
    reply = raw.strip()
    letter = _LETTER_ANSWER.fullmatch(reply)
    if letter:
        position = string.ascii_uppercase.index(letter.group(1))
        if position < len(options):
            return Choice(options[position][0], parsed=True, raw=raw)
        return Choice(None, parsed=False, raw=raw)
    named = [index for index, label in options if label.casefold() == reply.casefold()]
    if len(named) == 1:
        return Choice(named[0], parsed=True, raw=raw)
    return Choice(None, parsed=False, raw=raw)


class ChatModel:
    """A chat-completions model answering multiple-choice questions (see the module docstring)."""

    reads_gold = False

    def __init__(self, model_id: str, base_url: str, token: str | None, *, timeout: float, retries: int,
                 backoff: float, max_tokens: int, workers: int):
        self.name = f"chat:{model_id}"
        self.model_id = model_id
        self.url = base_url.rstrip("/") + "/chat/completions"
        self._token = token
        self.timeout, self.retries, self.backoff = timeout, retries, backoff
        self.max_tokens, self.workers = max_tokens, workers

    def choose(self, instances: list[dict], task: Task) -> list[Choice]:
        options = [option_order(instance, task.unit) for instance in instances]
        questions = [build_messages(instance, shown, task.language) for instance, shown in zip(instances, options)]
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            answers = list(pool.map(self.ask, questions))
        return [read_answer(answer, shown) for answer, shown in zip(answers, options)]

    def ask(self, messages: list[dict]) -> str | None:
        """The model's reply to one conversation (None when the reply has no text)."""
        body = self._post({"model": self.model_id, "messages": messages, "temperature": 0, "max_tokens": self.max_tokens})
        try:
            content = body["choices"][0]["message"]["content"]
            if content is None or isinstance(content, str):
                return content
        except (KeyError, IndexError, TypeError):
            pass
        raise ModelError(self._redact(f"{self.url}: no choices[0].message.content text in the answer {body!r:.300}"))

    def _post(self, payload: dict):
        headers = {"Content-Type": "application/json"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        data = json.dumps(payload).encode("utf-8")
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
                break
            except urllib.error.HTTPError as error:
                failure = f"answered {error.code}: {_error_text(error)}"
                if error.code != 429 and error.code < 500:
                    raise ModelError(self._redact(f"{self.url} {failure}")) from None
            except (OSError, http.client.HTTPException) as error:  # timeouts, refused or dropped connections
                failure = f"did not answer: {getattr(error, 'reason', None) or error!r}"
            if attempt < self.retries:
                time.sleep(self.backoff * 2**attempt)
        else:
            raise ModelError(self._redact(f"{self.url} {failure} ({self.retries + 1} attempts)"))
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise ModelError(self._redact(f"{self.url}: the answer is not UTF-8 JSON: {raw[:300]!r}")) from None

    def _redact(self, message: str) -> str:
        return message.replace(self._token, "***") if self._token else message


def _error_text(error: urllib.error.HTTPError) -> str:
    try:
        return error.read().decode("utf-8", "replace")[:300]
    except OSError:
        return str(error.reason)


def load(argument: str, kind: str = "chat", base_url: str = DEFAULT_BASE_URL, token_env: str = TOKEN_ENV,
         timeout: float = 60.0, retries: int = 4, backoff: float = 1.0, max_tokens: int = 16, workers: int = 4,
         token: str | None = None) -> ChatModel:
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
    return ChatModel(argument, base_url, token, timeout=timeout, retries=retries, backoff=backoff,
                     max_tokens=max_tokens, workers=workers)
