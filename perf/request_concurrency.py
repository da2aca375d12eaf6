"""Speed-up from keeping several requests in flight to a hosted model with artificial latency.

A loopback server answers both corefbias's protocol (``/v1/clusters``) and OpenAI-compatible chat
completions after a fixed delay per request, as a hosted model with several replicas would; the
script times ``HttpClusterModel.predict_clusters`` and ``ChatModel.choose`` at several ``workers``.

    .venv/bin/python perf/request_concurrency.py --latency 0.2 --texts 64
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from corefbias.benchmarks import BENCHMARKS
from corefbias.models.chat import ChatModel
from corefbias.models.http_protocol import PROTOCOL, HttpClusterModel

MAX_TEXTS = 8


def serve(latency: float) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self._send({"protocol": PROTOCOL, "model": "latency", "max_texts": MAX_TEXTS, "max_chars": 10_000})

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            time.sleep(latency)
            if "texts" in body:
                self._send({"clusters": [[] for _ in body["texts"]]})
            else:
                self._send({"choices": [{"index": 0, "message": {"role": "assistant", "content": "A"}}]})

        def _send(self, payload):
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def instance(index: int) -> dict:
    text = f"Story {index}: the nurse met the patient because she was late."
    return {
        "id": str(index),
        "pair_id": str(index),
        "text": text,
        "pronoun": {"text": "she", "start": text.index("she"), "end": text.index("she") + 3},
        "candidates": [
            {"text": "the nurse", "start": text.index("the nurse"), "end": text.index("the nurse") + 9},
            {"text": "the patient", "start": text.index("the patient"), "end": text.index("the patient") + 11},
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the server waits per request")
    parser.add_argument("--texts", type=int, default=64, help="texts (and chat questions) per measurement")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8])
    args = parser.parse_args()
    server = serve(args.latency)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    texts = [instance(i)["text"] for i in range(args.texts)]
    rows = [instance(i) for i in range(args.texts)]
    print(
        f"latency {args.latency} s per request; {args.texts} texts ({MAX_TEXTS} per protocol request), "
        f"{args.texts} chat questions (one per request)"
    )
    print(f"{'workers':>7} {'protocol s':>11} {'speed-up':>8} {'chat s':>8} {'speed-up':>8}")
    baseline = None
    for workers in args.workers:
        start = time.perf_counter()
        HttpClusterModel(url, workers=workers).predict_clusters(texts)
        protocol = time.perf_counter() - start
        model = ChatModel(
            "latency",
            f"{url}/v1",
            None,
            timeout=30,
            retries=0,
            backoff=0,
            max_tokens=16,
            workers=workers,
            answer="text",
        )
        start = time.perf_counter()
        model.choose(rows, BENCHMARKS["winogender"].task)
        chat = time.perf_counter() - start
        baseline = baseline or (protocol, chat)
        print(
            f"{workers:>7} {protocol:>11.2f} {baseline[0] / protocol:>7.1f}x {chat:>8.2f} {baseline[1] / chat:>7.1f}x"
        )
    server.shutdown()


if __name__ == "__main__":
    main()
