"""The HTTP side of OpenAI-compatible endpoints, shared by ``chat:`` and ``completions:``.

Both adapters must fail the same way: a hosted endpoint that is busy (429), failing (5xx), slow or
unreachable is asked again with exponential backoff, a request it refuses (any other 4xx) is not,
and the bearer token never appears in an error message — servers echo request headers back in
their errors. Both also identify the model that answers by what ``GET {base_url}/models`` reports,
so another model served under the same name is asked again rather than read from the cache; that GET
is retried as a request is, since one lost answer would key the model's answers as if it listed none.
Standard library only: the adapters need no client package.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from collections.abc import Callable

from .base import ModelError
from .http_retry import (
    DeadlineExceeded,
    attempts_said,
    read_within,
    transient,
    watched_opener,
    with_retries,
)

# The fields of a GET /models entry that describe the model itself. The others change while the model does
# not: llama.cpp's "created" is the time of the request, the Hugging Face router's "providers" carry live
# status and prices, vLLM's "permission" fresh ids.
SERVED_MODEL_FIELDS = ("id", "owned_by", "root", "parent", "meta")


class EndpointError(ModelError):
    """An endpoint's failure: ``status`` is its HTTP status (None where it never answered), ``body`` the
    start of what it answered, both with the token hidden."""

    def __init__(self, message: str, status: int | None = None, body: str = ""):
        super().__init__(message)
        self.status, self.body = status, body


class OpenAIEndpoint:
    """An OpenAI-compatible API at ``base_url`` (e.g. ``http://localhost:8000/v1``), with a bearer ``token``
    or none, ``timeout`` seconds for each attempt of a request to get its whole answer, and ``retries`` after
    the first attempt, waiting ``backoff * 2**attempt`` seconds between them; a request ends within
    ``(retries + 1) × timeout`` (``http_retry``)."""

    def __init__(self, base_url: str, token: str | None, *, timeout: float, retries: int, backoff: float):
        self.base_url = base_url.rstrip("/")
        self._token = token
        self.timeout, self.retries, self.backoff = timeout, retries, backoff
        self._open = watched_opener().open

    def url(self, path: str) -> str:
        """The full URL of ``path`` (``"/completions"``) under the base URL."""
        return self.base_url + path

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._token}"} if self._token else {}

    def redact(self, message: str) -> str:
        """``message`` with the token replaced by ``***``."""
        return message.replace(self._token, "***") if self._token else message

    def _fetch(self, request: urllib.request.Request, retryable: Callable[[BaseException], bool]) -> bytes:
        """The bytes ``request`` is answered with, sent again after each failure ``retryable`` accepts; an
        ``EndpointError`` (caused by the last failure) naming the URL, and the attempts where they were spent."""

        def attempt(seconds: float | None) -> bytes:
            return read_within(self._open, request, seconds)

        url = request.full_url
        try:
            return with_retries(attempt, self.retries, self.backoff, retryable, self.timeout)
        except urllib.error.HTTPError as error:
            body = self.redact(_error_text(error))
            tried = attempts_said(error) if retryable(error) else ""
            raise EndpointError(self.redact(f"{url} answered {error.code}: {body}{tried}"), error.code, body) from error
        except DeadlineExceeded as error:
            raise EndpointError(
                self.redact(
                    f"{url} sent no whole answer within the deadline of {self.timeout:g} s per attempt"
                    f"{attempts_said(error)}"
                )
            ) from error
        except (OSError, http.client.HTTPException) as error:  # refused or dropped connections
            reason = getattr(error, "reason", None) or error
            raise EndpointError(self.redact(f"{url} did not answer: {reason!r}{attempts_said(error)}")) from error

    def post(self, path: str, payload: dict):
        """POST ``payload`` as JSON to ``path`` and return the decoded JSON answer.

        Raises
        ------
        EndpointError
            On a 4xx other than 429 (at once), on a 429, a 5xx, a timeout or a dropped connection once the
            retries are spent, and on an answer that is not UTF-8 JSON.
        """
        url = self.url(path)
        headers = {"Content-Type": "application/json", **self.headers()}
        request = urllib.request.Request(url, data=json.dumps(payload).encode("utf-8"), headers=headers, method="POST")
        raw = self._fetch(request, _retryable)
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise EndpointError(self.redact(f"{url}: the answer is not UTF-8 JSON: {raw[:300]!r}"), 200) from None

    def served_model(self, model_id: str) -> dict | None:
        """What ``GET {base_url}/models`` reports of the model that answers ``model_id``.

        Returns
        -------
        dict or None
            The ``SERVED_MODEL_FIELDS`` of the entry whose id or alias is ``model_id``, else of the only
            entry (a llama.cpp server answers with its one model whatever the id); None where the endpoint
            lists no models (it has no ``/models``, or answers it with something else than a list), or
            several and not this one.

        Raises
        ------
        EndpointError
            When ``/models`` fails on every attempt in a way ``post`` retries (a 429, a 5xx other than 501, a
            timeout, a dropped connection): its answer keys the model's cached answers, and a guess of None
            would key two models' answers alike.
        """
        request = urllib.request.Request(self.url("/models"), headers=self.headers())
        try:
            raw = self._fetch(request, _listing_retryable)
        except EndpointError as error:
            refused = error.__cause__
            if isinstance(refused, urllib.error.HTTPError) and not _listing_retryable(refused):
                return None  # no /models here (404, or 501 from a server without GET)
            raise
        try:
            listed = json.loads(raw.decode("utf-8")).get("data")
        except (ValueError, AttributeError):
            return None
        entries = [entry for entry in listed if isinstance(entry, dict)] if isinstance(listed, list) else []
        named = [e for e in entries if model_id == e.get("id") or model_id in (e.get("aliases") or ())]
        chosen = named[0] if named else entries[0] if len(entries) == 1 else None
        return None if chosen is None else {key: chosen[key] for key in SERVED_MODEL_FIELDS if key in chosen}


def _retryable(error: BaseException) -> bool:
    # A hosted endpoint that rate-limits (429) frees up again, as a failing one (5xx) may.
    return transient(error, statuses=(429,))


def _listing_retryable(error: BaseException) -> bool:
    # 501 Not Implemented is how a server without GET routes answers: it will not list models on a retry.
    return _retryable(error) and getattr(error, "code", None) != 501


def _error_text(error: urllib.error.HTTPError) -> str:
    try:
        return error.read().decode("utf-8", "replace")[:300]
    except OSError:
        return str(error.reason)
