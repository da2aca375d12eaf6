"""Asking an HTTP server again: the one retry loop of corefbias's HTTP clients.

``http_protocol.HttpClusterModel`` (corefbias's own protocol) and ``openai_http.OpenAIEndpoint``
(OpenAI-compatible APIs) ask again, waiting ``backoff * 2**attempt`` seconds, when a request got no
answer (a refused or dropped connection, a timeout) or a server error (5xx), and not when the server
refused the request itself (another 4xx): the same request would be refused again. Standard library
only and Python 3.7 compatible: the NeuralCoref service imports ``http_protocol`` under Python 3.7.
"""

from __future__ import annotations

import http.client
import time
import urllib.error
from typing import Callable, TypeVar

T = TypeVar("T")


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
        True for a 5xx or one of ``statuses``, a timeout, or a refused or dropped connection.

    Examples
    --------
    >>> import socket
    >>> transient(socket.timeout("timed out"))
    True
    >>> too_many = urllib.error.HTTPError("http://x", 429, "Too Many Requests", None, None)
    >>> transient(too_many), transient(too_many, statuses=(429,))
    (False, True)
    """
    if isinstance(error, urllib.error.HTTPError):
        return error.code >= 500 or error.code in statuses
    return isinstance(error, (OSError, http.client.HTTPException))


def with_retries(
    attempt: Callable[[], T], retries: int, backoff: float, retryable: Callable[[BaseException], bool] = transient
) -> T:
    """What ``attempt()`` returns, calling it again after a failure that ``retryable`` accepts.

    Parameters
    ----------
    attempt : callable
        Sends the request once and returns its answer.
    retries : int
        How many times to call ``attempt`` again after the first call (0 or less: never).
    backoff : float
        Seconds to wait before the first retry; each further retry waits twice as long as the one before.
    retryable : callable
        ``retryable(error)`` says whether a failure is worth another attempt (default: ``transient``).

    Raises
    ------
    Exception
        What the last attempt raised, once the retries are spent, or at once when ``retryable`` refuses it.

    Examples
    --------
    >>> answers = iter([ConnectionResetError("dropped"), "ok"])
    >>> def attempt():
    ...     answer = next(answers)
    ...     if isinstance(answer, Exception):
    ...         raise answer
    ...     return answer
    >>> with_retries(attempt, retries=1, backoff=0.0)
    'ok'
    """
    for number in range(retries):
        try:
            return attempt()
        except Exception as error:
            if not retryable(error):
                raise
        time.sleep(backoff * 2**number)
    return attempt()
