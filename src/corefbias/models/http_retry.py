"""Asking an HTTP server within a deadline, and again: the one request loop of corefbias's HTTP clients.

``http_protocol.HttpClusterModel`` (corefbias's own protocol) and ``openai_http.OpenAIEndpoint``
(OpenAI-compatible APIs) send each request through ``with_retries`` and ``read_within``:

* **a deadline per attempt**, from connecting to the last byte of the answer. A socket's timeout bounds
  each read only, so a server sending one byte a second would keep a request alive for as long as it
  liked; here a watchdog shuts the connection down when the attempt's time is up (``read_within``);
* **retries counted against the deadline**: a request with its retries and the waits between them ends
  within ``(retries + 1) × timeout``;
* **what is retried**: a request that got no answer (a refused or dropped connection, a deadline
  passed) or a server error (5xx) is sent again after ``backoff * 2**attempt`` seconds; one the server
  refused itself (another 4xx) is not, since the same request would be refused again.

Standard library only and Python 3.7 compatible: the NeuralCoref service imports ``http_protocol`` under
Python 3.7.
"""

from __future__ import annotations

import http.client
import io
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Callable, TypeVar

T = TypeVar("T")


class DeadlineExceeded(socket.timeout):
    """An attempt that got no whole answer within its deadline (a timeout, so it is worth another attempt)."""


def transient(error: BaseException, statuses: tuple = ()) -> bool:
    """Whether a request that failed with ``error`` is worth sending again.

    Parameters
    ----------
    error : BaseException
        What the request raised.
    statuses : tuple of int
        HTTP statuses below 500 that are asked again too, e.g. ``(429,)`` for a server that rate-limits.

    Returns
    -------
    bool
        True for a 5xx or one of ``statuses``, a timeout or a passed deadline, or a refused or dropped
        connection.

    Examples
    --------
    >>> transient(DeadlineExceeded("no whole answer within 2 s"))
    True
    >>> too_many = urllib.error.HTTPError("http://x", 429, "Too Many Requests", None, None)
    >>> transient(too_many), transient(too_many, statuses=(429,))
    (False, True)
    """
    if isinstance(error, urllib.error.HTTPError):
        return error.code >= 500 or error.code in statuses
    return isinstance(error, (OSError, http.client.HTTPException))


def with_retries(
    attempt: Callable[[float | None], T],
    retries: int,
    backoff: float,
    retryable: Callable[[BaseException], bool] = transient,
    timeout: float | None = None,
) -> T:
    """What ``attempt(seconds)`` returns, calling it again after a failure that ``retryable`` accepts.

    Parameters
    ----------
    attempt : callable
        Sends the request once, within ``seconds`` (None: no deadline), and returns its answer.
    retries : int
        How many times to call ``attempt`` again after the first call (0 or less: never).
    backoff : float
        Seconds to wait before the first retry; each further retry waits twice as long as the one before.
    retryable : callable
        ``retryable(error)`` says whether a failure is worth another attempt (default: ``transient``).
    timeout : float or None
        Seconds each attempt may take; the attempts and the waits between them share ``(retries + 1) × timeout``,
        so a retry that would start past it is not made, and the last attempt gets what is left.

    Raises
    ------
    Exception
        What the last attempt raised, once the retries or the time are spent, or at once when ``retryable``
        refuses it; its ``attempts`` attribute says how many attempts were made.

    Examples
    --------
    >>> answers = iter([ConnectionResetError("dropped"), "ok"])
    >>> def attempt(seconds):
    ...     answer = next(answers)
    ...     if isinstance(answer, Exception):
    ...         raise answer
    ...     return answer
    >>> with_retries(attempt, retries=1, backoff=0.0)
    'ok'
    """
    ends = None if timeout is None else time.monotonic() + timeout * (max(retries, 0) + 1)
    number = 0
    while True:
        seconds = None if ends is None else min(timeout, ends - time.monotonic())
        try:
            return attempt(seconds)
        except Exception as error:
            wait = backoff * 2**number
            number += 1
            out_of_time = ends is not None and ends - time.monotonic() - wait <= 0
            if number > retries or out_of_time or not retryable(error):
                error.attempts = number
                raise
        time.sleep(wait)


class _Watch:
    """Shuts down the connections of one attempt when its deadline passes, unless the attempt ended first."""

    def __init__(self, seconds: float):
        self._lock = threading.Lock()
        self._sockets = []
        self.fired = False
        self._done = False
        self._timer = threading.Timer(max(seconds, 0.0), self._fire)
        self._timer.daemon = True

    def start(self):
        self._timer.start()

    def add(self, sock):
        with self._lock:
            self._sockets.append(sock)
            if self.fired:
                _shut(sock)

    def _fire(self):
        with self._lock:
            if self._done:
                return
            self.fired = True
            for sock in self._sockets:
                _shut(sock)

    def close(self):
        with self._lock:
            self._done = True
            self._timer.cancel()


def _shut(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)  # a blocked read returns at once; the socket is closed by its owner
    except OSError:
        pass  # closed already


_ATTEMPT = threading.local()  # the watch of the attempt this thread is making


class WatchedConnection:
    """Mixed into an ``http.client`` connection class: its socket is shut down when the attempt's deadline passes
    (``read_within``). ``url_guard``'s connections mix it in too."""

    def connect(self):
        super().connect()
        watch = getattr(_ATTEMPT, "watch", None)
        if watch is not None:
            watch.add(self.sock)


class _WatchedHTTPConnection(WatchedConnection, http.client.HTTPConnection):
    pass


class _WatchedHTTPSConnection(WatchedConnection, http.client.HTTPSConnection):
    pass


_WATCHED = {http.client.HTTPConnection: _WatchedHTTPConnection, http.client.HTTPSConnection: _WatchedHTTPSConnection}


class _WatchedHTTPHandler(urllib.request.HTTPHandler):
    def do_open(self, http_class, req, **kwargs):
        return super().do_open(_WATCHED.get(http_class, http_class), req, **kwargs)


class _WatchedHTTPSHandler(urllib.request.HTTPSHandler):
    def do_open(self, http_class, req, **kwargs):
        return super().do_open(_WATCHED.get(http_class, http_class), req, **kwargs)


def watched_opener() -> urllib.request.OpenerDirector:
    """urllib's default opener (proxies from the environment included) whose connections ``read_within`` can cut."""
    return urllib.request.build_opener(_WatchedHTTPHandler(), _WatchedHTTPSHandler())


def read_within(open_request: Callable, request: urllib.request.Request, seconds: float | None) -> bytes:
    """The whole body of the answer to ``request``, sent with ``open_request`` (an opener's ``open``, whose
    connections are ``WatchedConnection`` ones) within ``seconds`` from connecting to its last byte.

    Raises
    ------
    DeadlineExceeded
        When the answer (a refusal's body included) was not whole within ``seconds``.
    urllib.error.HTTPError
        For an answer with an error status, its body read within the deadline too.
    OSError, http.client.HTTPException
        When the request failed otherwise.
    """
    if seconds is None:
        with open_request(request) as response:
            return response.read()
    watch = _Watch(seconds)
    _ATTEMPT.watch = watch
    watch.start()
    try:
        try:
            with open_request(request, timeout=max(seconds, 0.001)) as response:
                body = response.read()
        except urllib.error.HTTPError as error:
            refusal = error.read()
            raise urllib.error.HTTPError(error.url, error.code, error.msg, error.hdrs, io.BytesIO(refusal)) from None
    except (OSError, http.client.HTTPException, ValueError) as error:
        # The socket's own timeout is the deadline too: one wait of ``seconds`` passes it, and under load it can
        # fire before the watch does.
        if watch.fired or isinstance(error, TimeoutError) or isinstance(getattr(error, "reason", None), TimeoutError):
            raise DeadlineExceeded(_missed(seconds)) from None
        raise
    finally:
        watch.close()
        _ATTEMPT.watch = None
    if watch.fired:  # an answer without a length ends where the connection was shut down: cut short
        raise DeadlineExceeded(_missed(seconds))
    return body


def _missed(seconds: float) -> str:
    return f"no whole answer within the deadline of {seconds:g} s"


def attempts_said(error: BaseException) -> str:
    """How many attempts a failure came after, as its message ends (``with_retries`` counts them): a failure after
    the retries is an outage, not one lost packet.

    Examples
    --------
    >>> error = TimeoutError("timed out")
    >>> attempts_said(error)
    ' (1 attempt)'
    >>> error.attempts = 3
    >>> attempts_said(error)
    ' (3 attempts)'
    """
    attempts = getattr(error, "attempts", 1)
    return f" ({attempts} attempt{'' if attempts == 1 else 's'})"
