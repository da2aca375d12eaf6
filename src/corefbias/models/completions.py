"""``completions:<model id>``: cloze (log-likelihood) scoring by a model behind an OpenAI-compatible
``/v1/completions`` endpoint — what lm-evaluation-harness calls ``--model local-completions``.

**Why an endpoint.** ``hf:`` runs the model in this process, which a 7B or 70B model does not fit on a
CPU; a server on a GPU (vLLM: ``vllm serve meta-llama/Llama-3.1-8B``, then
``--base-url http://localhost:8000/v1``) computes the same numbers. There is no hosted default: hosted
APIs rarely return prompt log-probabilities (OpenAI's only for ``babbage-002`` and ``davinci-002``, as
lm-eval notes), so ``base_url`` is required.

**The request** is lm-eval 0.4's (``LocalCompletionsAPI._create_payload`` for log-likelihoods):
``{"prompt": ..., "max_tokens": 1, "echo": true, "logprobs": 1, "temperature": 0}``; with ``echo`` the
answer's ``choices[0].logprobs`` lists every prompt token (``tokens``, ``token_logprobs``, the first
``None``, and ``text_offset``), followed by the generated one. ``max_tokens`` is 1, not 0: vLLM accepts
both, but llama-cpp-python's server reads 0 as "no limit" and would generate to the end of its context.
The generated tokens (``usage.completion_tokens``; 1 where the answer has no ``usage``, as lm-eval
assumes) are the last ones and are never counted.

**Which tokens are the continuation's.** Exactly those of ``hf:`` and lm-eval's ``_encode_pair``: the
context (its trailing whitespace moved to the continuation) is sent alone too, once per instance, and
its token count ``n`` splits each option's prompt: the continuation is the prompt's tokens from ``n`` on.
The server tokenizes both the same way (a BOS token included or not alike), so the split does not depend
on the token strings or ``text_offset``, which servers compute differently (vLLM decodes each token
alone: a SentencePiece word loses its leading space in older versions, a split UTF-8 character becomes
``"�"``). Where tokenization is prefix-stable (the context's tokens begin the prompt's, as they do when
the continuation starts with a space) this is the continuation's text exactly; where it is not, a token
straddling the boundary is split as ``hf:`` splits it, so the two backends keep agreeing. It costs one
request more per instance, answered fast by servers that cache prompt prefixes (vLLM). One difference
remains: the server adds the special tokens its tokenizer asks for (vLLM prepends BOS for Llama models),
where lm-eval's ``hf`` adds BOS for Gemma only, so on such models the two condition on different starts.

**No prompt log-probabilities, no score.** An endpoint that refuses ``echo`` with ``logprobs`` (a 4xx
naming them), or answers without ``tokens``/``token_logprobs``/``text_offset``, or with a text that
does not start with the prompt (llama.cpp's ``llama-server`` ignores ``echo`` and returns the generated
token alone), stops the run with a ``ModelError`` naming what can run the model instead. So does
llama-cpp-python's server (0.3) on a model whose tokenizer adds no BOS token (SmolLM2, Qwen): it pairs
each prompt token with the log-probabilities computed *after* it, and its echo then lacks the generated
token, which tells it apart; on a model with BOS (Llama, Gemma) its numbers are right.

**Transport** as ``chat:`` (``corefbias.models.openai_http``): ``Authorization: Bearer`` with the token
from ``HF_TOKEN`` (``token_env``) where set, a timeout per request, 429/5xx/timeouts retried with
exponential backoff, the token hidden in errors, ``workers`` requests in flight (answers kept in order).

**Identity**: the model id, the endpoint, what ``GET {base_url}/models`` reports of the model that answers,
the request settings and ``LOGLIKELIHOOD_VERSION`` (how answers are read); ``ClozeModel`` adds the
scoring, the runner the benchmark's template.
"""

from __future__ import annotations

import functools
import os
import re
from concurrent.futures import ThreadPoolExecutor

from .base import ModelError
from .cloze import ClozeModel
from .cloze_template import ClozeRequest
from .openai_http import EndpointError, OpenAIEndpoint

TOKEN_ENV = "HF_TOKEN"
REQUEST_SETTINGS = {"max_tokens": 1, "echo": True, "logprobs": 1, "temperature": 0}
# Bump when the reading of answers changes: log-likelihoods cached under the old version are asked again.
LOGLIKELIHOOD_VERSION = 1
_REFUSES_ECHO = re.compile(r"echo|logprob", re.IGNORECASE)


class CompletionsBackend:
    """Log-likelihoods of continuations from an OpenAI-compatible completions endpoint (see the module docstring).

    Parameters
    ----------
    model_id
        The ``model`` field of each request.
    endpoint
        The endpoint, its token, timeout and retries.
    workers
        Requests in flight at once.
    """

    def __init__(self, model_id: str, endpoint: OpenAIEndpoint, *, workers: int):
        self.model_id, self.endpoint, self.workers = model_id, endpoint, workers
        self.url = endpoint.url("/completions")

    @functools.cached_property
    def identity(self) -> dict:
        return self.current_identity()

    def current_identity(self) -> dict:
        """Who answers now: ``identity`` with the model the endpoint serves asked again."""
        return {
            "kind": "completions",
            "model_id": self.model_id,
            "endpoint": self.url,
            "served": self.endpoint.served_model(self.model_id),
            "request": dict(REQUEST_SETTINGS),
            "loglikelihood_version": LOGLIKELIHOOD_VERSION,
        }

    def loglikelihoods(self, requests: list[ClozeRequest]) -> list[list[float]]:
        """Per request, the summed log-probability of each continuation given the context.

        Parameters
        ----------
        requests
            The instances' contexts and options.

        Returns
        -------
        list of list of float
            Per request, one log-likelihood per continuation, in order.
        """
        prompts = []
        for request in requests:
            context = request.context.rstrip()  # lm-eval moves trailing whitespace to the continuation
            if not context:
                raise ModelError(f"{self.url}: an empty context has no tokens to condition on")
            prompts.append(context)
            prompts.extend(request.context + continuation for continuation in request.continuations)
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            futures = [pool.submit(self.prompt_logprobs, prompt) for prompt in prompts]
            try:
                echoed = iter([future.result() for future in futures])
            except BaseException:
                # An endpoint that cannot score one prompt cannot score the others: do not ask them all.
                for future in futures:
                    future.cancel()
                raise
        results = []
        for request in requests:
            context_tokens = len(next(echoed))
            results.append(
                [self._continuation(next(echoed), context_tokens, request.context) for _ in request.continuations]
            )
        return results

    def _continuation(self, logprobs: list[float | None], context_tokens: int, context: str) -> float:
        picked = logprobs[context_tokens:]
        if not picked or any(value is None for value in picked):
            raise ModelError(
                f"{self.url}: an option of the context {context[-60:]!r} has no token of its own after the "
                f"context's {context_tokens} (the prompt has {len(logprobs)})"
            )
        return float(sum(picked))

    def prompt_logprobs(self, prompt: str) -> list[float | None]:
        """Each prompt token's log-probability given the tokens before it (the first ``None``), as echoed.

        Raises
        ------
        ModelError
            Where the endpoint does not return prompt log-probabilities (see the module docstring).
        """
        try:
            answer = self.endpoint.post("/completions", {"model": self.model_id, "prompt": prompt, **REQUEST_SETTINGS})
        except EndpointError as error:
            if error.status is not None and 400 <= error.status < 500 and _REFUSES_ECHO.search(error.body):
                raise ModelError(self._no_prompt_logprobs(f"refuses echo with logprobs ({error})")) from None
            raise
        choices = answer.get("choices") if isinstance(answer, dict) else None
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        text = choice.get("text")
        if not isinstance(text, str) or not text.startswith(prompt):
            raise ModelError(self._no_prompt_logprobs(f"answered {text!r:.80}, which does not echo the prompt"))
        try:
            logprobs = choice["logprobs"]
            tokens, values, offsets = logprobs["tokens"], logprobs["token_logprobs"], logprobs["text_offset"]
        except (KeyError, TypeError):
            raise ModelError(
                self._no_prompt_logprobs(f"answered without choices[0].logprobs.token_logprobs: {answer!r:.300}")
            ) from None
        if not (isinstance(values, list) and len(values) == len(tokens) == len(offsets)):
            raise ModelError(self.endpoint.redact(f"{self.url}: tokens and log-probabilities differ in number"))
        if len(text) > len(prompt) and "".join(map(str, tokens)) == prompt:
            raise ModelError(
                self._no_prompt_logprobs(
                    "echoes the prompt's tokens without the generated one, as llama-cpp-python's server does for "
                    "a model whose tokenizer adds no BOS token, each value then being the next token's"
                )
            )
        usage = answer.get("usage") if isinstance(answer, dict) else None
        generated = usage.get("completion_tokens") if isinstance(usage, dict) else None
        generated = generated if isinstance(generated, int) and generated >= 0 else REQUEST_SETTINGS["max_tokens"]
        if generated >= len(values):
            raise ModelError(self.endpoint.redact(f"{self.url}: the answer echoes no prompt token: {answer!r:.300}"))
        try:
            return [None if value is None else float(value) for value in values[: len(values) - generated]]
        except (TypeError, ValueError):
            raise ModelError(self.endpoint.redact(f"{self.url}: a log-probability is not a number")) from None

    def _no_prompt_logprobs(self, what: str) -> str:
        return self.endpoint.redact(
            f"{self.url} does not return prompt log-probabilities (echo with logprobs): it {what}; "
            f"run the model {self.model_id!r} locally as hf:<its .gguf file, folder or Hub id>, or serve it with vLLM "
            "(or llama-cpp-python's "
            "server, for a model whose tokenizer adds a BOS token), which do"
        )


def load(
    argument: str,
    kind: str = "completions",
    base_url: str | None = None,
    token_env: str = TOKEN_ENV,
    timeout: float = 60.0,
    retries: int = 4,
    backoff: float = 1.0,
    workers: int = 4,
    cloze_norm: str = "none",
    token: str | None = None,
) -> ClozeModel:
    """The model ``argument`` behind the completions endpoint at ``base_url``, as a cloze-scored choice model.

    Parameters
    ----------
    argument
        The model id the endpoint serves (the requests' ``model``).
    base_url
        The OpenAI-compatible base URL, e.g. ``http://localhost:8000/v1`` for vLLM; required.
    token_env, token
        The bearer token is ``token``, else the environment variable ``token_env``, else none.
    timeout, retries, backoff
        Seconds per request; retries after the first attempt, ``backoff * 2**attempt`` seconds apart.
    workers
        Requests in flight at once.
    cloze_norm
        ``"none"`` or ``"bytes"`` (``corefbias.models.cloze``).

    Returns
    -------
    ClozeModel
        Named ``f"{kind}:{argument}"``.
    """
    if not base_url:
        raise ValueError(
            f"{kind}:{argument} needs the endpoint's base URL: pass --base-url, e.g. http://localhost:8000/v1 "
            "for vLLM (hosted APIs rarely return prompt log-probabilities)"
        )
    if retries < 0 or timeout <= 0 or workers < 1:
        raise ValueError(
            f"need retries >= 0, timeout > 0 and workers >= 1; got retries={retries}, timeout={timeout}, "
            f"workers={workers}"
        )
    token = token or os.environ.get(token_env) or None
    endpoint = OpenAIEndpoint(base_url, token, timeout=timeout, retries=retries, backoff=backoff)
    return ClozeModel(f"{kind}:{argument}", CompletionsBackend(argument, endpoint, workers=workers), cloze_norm)
