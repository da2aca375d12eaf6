"""Hosted-model clients keep a bounded number of requests in flight and their answers in order."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from corefbias.models.http_protocol import INFO_PATH, PROTOCOL, HttpClusterModel

LATENCY = 0.05


class CountingServer(ThreadingHTTPServer):
    """The corefbias protocol with a fixed latency per request, counting requests in flight."""

    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.in_flight = self.most_in_flight = self.requests = 0


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self._send({"protocol": PROTOCOL, "model": "counting", "max_texts": 2, "max_chars": 1000})

    def do_POST(self):
        texts = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["texts"]
        server = self.server
        with server.lock:
            server.in_flight += 1
            server.requests += 1
            server.most_in_flight = max(server.most_in_flight, server.in_flight)
        time.sleep(LATENCY)
        with server.lock:
            server.in_flight -= 1
        # One cluster per text whose span length encodes the text, so the order can be checked.
        self._send({"clusters": [[[[0, len(text)], [0, 1]]] for text in texts]})

    def _send(self, payload):
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def counting_server():
    server = CountingServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("workers", [1, 3])
def test_batches_are_sent_with_at_most_workers_in_flight_and_answered_in_order(counting_server, workers):
    texts = ["x" * length for length in range(2, 22)]  # 20 texts, 10 batches of max_texts=2
    model = HttpClusterModel(f"http://127.0.0.1:{counting_server.server_address[1]}", workers=workers)
    assert model.info["protocol"] == PROTOCOL and INFO_PATH == "/v1/info"
    clusters = model.predict_clusters(texts)
    assert [cluster[0][0][1] for cluster in clusters] == [len(text) for text in texts]
    assert counting_server.requests == 10
    assert counting_server.most_in_flight == workers


def test_workers_must_be_positive():
    with pytest.raises(ValueError, match="workers must be at least 1"):
        HttpClusterModel("http://127.0.0.1:1", workers=0)
