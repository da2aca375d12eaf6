"""corefbias's HTTP protocol for hosted coreference models: texts in, clusters out.

``GET /v1/info`` → ``{"protocol": "corefbias-coref/1", "model": NAME, "max_texts": N, "max_chars": M}``,
plus, optionally, ``"revision": FINGERPRINT``: a string that changes whenever the served model would
answer differently (new weights, new code or library versions). Clients key cached answers by
``model`` and ``revision``, so a server should send one; a server without it (protocol as first
published) is told apart by its URL too, and clients ignore fields they do not know.

``POST /v1/clusters`` with ``{"texts": ["...", ...]}`` → ``{"clusters": [...]}``: per text, a list
of clusters, each a list of ``[start, end]`` character spans (Python string indices, end
exclusive), as ``corefbias.models.cluster_format`` defines. Errors are ``{"error": MESSAGE}`` with status
400 (malformed request), 413 (more than ``max_texts`` texts or a text over ``max_chars``), 404
(unknown path) or 500 (the model failed). Bodies are UTF-8 JSON.

The server (``make_server``) and the client (``HttpClusterModel``) are standard library only and
Python 3.7 compatible, so a model that needs an old stack (NeuralCoref on Python 3.7) serves the
same protocol in its own interpreter.
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .cluster_format import ModelError, check_clusters
from .http_retry import (
    DeadlineExceeded,
    attempts_said,
    read_within,
    transient,
    watched_opener,
    with_retries,
)

PROTOCOL = "corefbias-coref/1"
INFO_PATH = "/v1/info"
CLUSTERS_PATH = "/v1/clusters"
DEFAULT_MAX_TEXTS = 64
DEFAULT_MAX_CHARS = 20000


class _RequestError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _parse_request(body, max_texts, max_chars):
    try:
        request = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise _RequestError(400, f"the body is not UTF-8 JSON: {error}") from None
    texts = request.get("texts") if isinstance(request, dict) else None
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        raise _RequestError(400, 'expected {"texts": [string, ...]}')
    if len(texts) > max_texts:
        raise _RequestError(413, f"{len(texts)} texts in one request; the limit is {max_texts}")
    for index, text in enumerate(texts):
        if len(text) > max_chars:
            raise _RequestError(413, f"text {index} has {len(text)} characters; the limit is {max_chars}")
    return texts


def make_server(
    predict, name, host="127.0.0.1", port=0, max_texts=DEFAULT_MAX_TEXTS, max_chars=DEFAULT_MAX_CHARS, revision=None
):
    """A ThreadingHTTPServer answering the protocol with ``predict(texts) -> clusters``.

    ``revision``, when given, is the served model's fingerprint that ``GET /v1/info`` reports.

    ``port=0`` picks a free port (``server.server_address`` tells which). The model's answers
    are validated before they are sent; a model error becomes a 500 with its message. Requests
    reach ``predict`` one at a time, since few model libraries are thread-safe.
    """
    import threading

    lock = threading.Lock()
    info = {"protocol": PROTOCOL, "model": name, "max_texts": max_texts, "max_chars": max_chars}
    if revision is not None:
        info["revision"] = revision

    class Handler(BaseHTTPRequestHandler):
        server_version = "corefbias-serve"

        def _send(self, status, payload):
            body = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == INFO_PATH:
                self._send(200, info)
            else:
                self._send(404, {"error": f"unknown path {self.path}; try {INFO_PATH} or POST {CLUSTERS_PATH}"})

        def do_POST(self):
            if self.path != CLUSTERS_PATH:
                self._send(404, {"error": f"unknown path {self.path}; POST texts to {CLUSTERS_PATH}"})
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
                texts = _parse_request(self.rfile.read(length), max_texts, max_chars)
                with lock:
                    clusters = check_clusters(texts, predict(texts), name)
            except _RequestError as error:
                self._send(error.status, {"error": str(error)})
            except Exception as error:  # noqa: BLE001 — any model failure is the client's 500, not a dead server
                self._send(500, {"error": f"{type(error).__name__}: {error}"})
            else:
                self._send(
                    200, {"clusters": [[[list(span) for span in cluster] for cluster in text] for text in clusters]}
                )

        def log_message(self, format, *args):  # noqa: A002 — the base class's signature
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server


def serve_until_interrupted(server, name):
    """Print where ``server`` answers, then answer requests until Ctrl-C."""
    host, port = server.server_address[:2]
    print(f"serving {name} at http://{host}:{port} (POST {CLUSTERS_PATH}, GET {INFO_PATH})", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


class HttpClusterModel:
    """A cluster model behind the protocol at ``url`` (e.g. ``http://127.0.0.1:8808``).

    Requests are split into batches of the server's ``max_texts``, ``workers`` of them in flight at
    once (answers kept in order), so that a server with several replicas is used at its capacity. Each
    attempt of a request must get its whole answer within ``timeout`` seconds; a connection failure, a
    passed deadline, a 5xx or an answer that is not JSON is retried ``retries`` times with exponential
    backoff, the request ending within ``(retries + 1) × timeout`` (``http_retry``), and the error it then
    raises names the endpoint, the deadline and the attempts made; a 4xx is not retried. ``opener`` (a
    urllib ``OpenerDirector`` whose connections are ``http_retry.WatchedConnection`` ones) replaces the
    default one, e.g. with ``url_guard.guarded_opener`` where the URL comes from a visitor.
    """

    def __init__(self, url, timeout=120.0, retries=3, backoff=0.5, workers=4, opener=None):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if not timeout > 0 or retries < 0:
            raise ValueError(f"need timeout > 0 (seconds) and retries >= 0; got timeout={timeout}, retries={retries}")
        self.url = url.rstrip("/")
        self._open = (opener if opener is not None else watched_opener()).open
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.workers = workers
        self._info = None

    @property
    def info(self):
        """The server's ``GET /v1/info``, as it answered first."""
        if self._info is None:
            self._info = self._fetch_info()
        return self._info

    def _fetch_info(self):
        info = self._request("GET", INFO_PATH, None)
        if not isinstance(info, dict) or info.get("protocol") != PROTOCOL:
            raise ModelError(f"{self.url} does not speak {PROTOCOL} (its {INFO_PATH} says {info!r})")
        max_texts = info.get("max_texts", DEFAULT_MAX_TEXTS)
        if isinstance(max_texts, bool) or not isinstance(max_texts, int) or max_texts < 1:
            raise ModelError(f"{self.url}{INFO_PATH} says max_texts {max_texts!r}; it must be a positive integer")
        return info

    @property
    def name(self):
        return "http:{} ({})".format(self.url, self.info.get("model"))

    @property
    def identity(self):
        """What the server said it serves, first; its URL too when it reports no ``revision``."""
        return self._identity(self.info)

    def current_identity(self):
        """What the server says it serves now (the runner compares it with ``identity`` after every batch)."""
        return self._identity(self._fetch_info())

    def _identity(self, info):
        identity = {"kind": "http", "served_model": info.get("model"), "revision": info.get("revision")}
        if identity["revision"] is None:
            identity["url"] = self.url
        return identity

    def predict_clusters(self, texts):
        from concurrent.futures import ThreadPoolExecutor

        batch_size = self.info.get("max_texts", DEFAULT_MAX_TEXTS)
        batches = [list(texts[start : start + batch_size]) for start in range(0, len(texts), batch_size)]
        with ThreadPoolExecutor(max_workers=min(self.workers, max(len(batches), 1))) as pool:
            answered = list(pool.map(self._predict_batch, batches))
        return [clusters for batch in answered for clusters in batch]

    def _predict_batch(self, batch):
        answer = self._request("POST", CLUSTERS_PATH, {"texts": batch})
        if not isinstance(answer, dict) or "clusters" not in answer:
            raise ModelError(f"{self.url}{CLUSTERS_PATH}: the answer has no 'clusters': {answer!r}")
        return check_clusters(batch, answer["clusters"], self.url)

    def _request(self, method, path, payload):
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )

        def attempt(seconds):
            return json.loads(read_within(self._open, request, seconds).decode("utf-8"))

        try:
            return with_retries(attempt, self.retries, self.backoff, _retryable, self.timeout)
        except urllib.error.HTTPError as error:
            tried = attempts_said(error) if _retryable(error) else ""
            raise ModelError(f"{self.url}{path} answered {error.code}: {_error_message(error)}{tried}") from None
        except DeadlineExceeded as error:
            raise ModelError(
                f"{self.url}{path} sent no whole answer within the deadline of {self.timeout:g} s per attempt"
                f"{attempts_said(error)}"
            ) from None
        except (OSError, http.client.HTTPException, ValueError) as error:
            reason = getattr(error, "reason", error)
            raise ModelError(f"cannot reach {self.url}{path}: {reason}{attempts_said(error)}") from None


def _retryable(error):
    # A body cut off or garbled on the way is not UTF-8 JSON: asked again, like a connection dropped.
    return transient(error) or isinstance(error, ValueError)


def _error_message(error):
    try:
        return json.loads(error.read().decode("utf-8")).get("error", "")
    except (ValueError, AttributeError):
        return error.reason


def load(argument, kind="http", **options):
    """The model behind the server at the URL ``argument``: the loader of ``http(s)://`` specs
    (``corefbias.models.built_in.SERVER``); ``options`` are ``HttpClusterModel``'s."""
    return HttpClusterModel(argument, **options)
