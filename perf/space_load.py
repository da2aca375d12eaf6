"""The Space under concurrent visitors: what it answers, what it turns away, how long each request takes, whether
every stored run is the one its visitor was shown, and the server's memory.

The Space (``spaces/corefbias/app.py``) is started as a subprocess on 127.0.0.1 with a fresh data folder, the sets
exported from the mirror by a warm-up visitor, whose run of the whole first benchmark leaves the
``instances/<benchmark>.jsonl`` that the visitors score (a file is scored against every instance). Then, for each
N of ``--visitors``, N threads start at once, each a visitor with its own ``gradio_client.Client`` (its own
session) that:

1. starts a run (``baseline:stereotype``, ``--limit`` units, ``--benchmarks``, a seed of its own),
2. scores the predictions file (``corefbias score``'s scoring, on the first benchmark),
3. reads the leaderboard (the page's load event) and
4. pages Explore (its own run, or the newest when its run was turned away).

Runs and file scoring share ``--concurrency`` slots and a queue of ``--max-queue`` (a full queue turns them away
with "Queue is full", by design); leaderboard and Explore reads must always answer. After each round every
answered run is read back from the store: its scores table and seed must equal what its visitor was shown, and
the round must have stored exactly the runs it answered. The server's RSS is taken before and after each round
(after the visitors' sessions have ended); "held" is the largest N with no error, no quick read turned away and
no stored run lost or mixed.

    .venv/bin/python perf/space_load.py --mirror ../shared/data --visitors 4 8 16 32

It prints, per N, the requests answered and turned away, p50/p95 in seconds per request kind (from a visitor's
request to its answer), the runs stored against the runs answered, and the server's RSS before and after.
Measured on the 2-core development machine on 2026-11-24 (defaults: one run slot, a queue of 16, ``--limit 5``
runs of Winogender and Counter-GAP; the 64 from a second invocation, ``--visitors 64``)::

    N   answered/turned away          p50/p95 seconds                                  stored/   RSS MiB
        run    score  board  explore  run          score       board      explore     answered
    4   4/0    4/0    4/0    4/0      1.33/1.84    2.00/2.14   0.10/0.27  0.09/0.10   8/8       332→327
    8   8/0    8/0    8/0    8/0      2.42/3.73    4.26/4.74   0.15/0.24  0.10/0.17   16/16     327→327
    16  16/0   16/0   16/0   16/0     6.34/9.94    9.00/9.37   0.15/0.24  0.10/0.20   32/32     327→337
    32  17/15  17/15  32/0   32/0     8.20/11.79   9.47/10.34  0.38/1.42  0.25/0.79   34/34     337→346
    64  17/47  17/47  64/0   64/0     13.95/17.31  8.43/10.12  2.80/4.59  1.34/2.09   34/34     324→348

No request ended in an error, no visitor's page failed to open, and no stored run was mixed with another: held
with no error at N = 64, the most the script drives. "board" is the leaderboard. From 32 visitors on, 17 runs and
17 scorings are answered (one in the slot, 16 waiting) and the rest are turned away with "Queue is full", by
design; the reads never are.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import psutil
from gradio_client import Client, handle_file

from corefbias.space import charts
from corefbias.space.store import RunStore

REPO = Path(__file__).resolve().parents[1]
APP = REPO / "spaces" / "corefbias" / "app.py"
KINDS = ("run", "score", "leaderboard", "explore")
FULL_SET = 10_000  # units per design cell: more than any set has (the Space's own bound)
RUN_ID = re.compile(r"run `(\d{8}-\d{6}-[0-9a-f]{8})`")


@dataclass
class Outcome:
    kind: str
    seconds: float
    answer: tuple | None = None  # the answered values
    refused: bool = False  # "Queue is full"
    error: str | None = None


@dataclass
class Visitor:
    seed: int
    outcomes: list[Outcome] = field(default_factory=list)

    def call(self, kind: str, client: Client, *args, api_name: str, timeout_s: float) -> Outcome:
        started = time.monotonic()
        try:
            answer = client.submit(*args, api_name=api_name).result(timeout=timeout_s)
            outcome = Outcome(kind, time.monotonic() - started, answer=answer)
        except Exception as error:  # noqa: BLE001 — every failure is a figure of the report
            full = "queue is full" in str(error).lower()
            outcome = Outcome(kind, time.monotonic() - started, refused=full, error=None if full else repr(error))
        self.outcomes.append(outcome)
        return outcome


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_space(folder: Path, mirror: Path, settings: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """Serve the deployed app on 127.0.0.1 with its runs under ``folder / "data"``, Gradio's and datasets' caches
    under ``folder`` and the upstream ``mirror``; ``settings``: more of its environment (``COREFBIAS_SPACE_*``).
    Returns the server's process and its URL once it answers; its stderr goes to ``folder / "server.log"``."""
    port = free_port()
    env = {
        **os.environ,
        "COREFBIAS_SPACE_DATA": str(folder / "data"),
        "COREFBIAS_MIRROR": str(mirror),
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_TEMP_DIR": str(folder / "gradio"),
        "GRADIO_ANALYTICS_ENABLED": "False",
        "HF_DATASETS_CACHE": str(folder / "hf_datasets"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        **settings,
    }
    with open(folder / "server.log", "wb") as log:
        server = subprocess.Popen([sys.executable, str(APP)], env=env, stdout=subprocess.DEVNULL, stderr=log)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 180
    while True:
        try:
            urllib.request.urlopen(url, timeout=5).close()
            return server, url
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError(f"the Space did not start; see {folder / 'server.log'}") from None
            time.sleep(0.5)


def visit(url: str, visitor: Visitor, args, predictions: Path, start: threading.Barrier) -> None:
    try:
        client = Client(url, verbose=False, download_files=False)  # the page's config, a session, its heartbeat
    except Exception as error:  # noqa: BLE001 — a visitor who cannot open the page is an error of the round
        visitor.outcomes.append(Outcome("page", 0.0, error=repr(error)))
        client = None
    try:
        start.wait(timeout=args.timeout)  # every visitor asks at once
    except threading.BrokenBarrierError:
        pass
    if client is None:
        return
    try:
        n_bootstrap, timeout_s = args.n_bootstrap, args.timeout
        run = visitor.call(
            "run",
            client,
            "baseline:stereotype",
            args.benchmarks,
            args.limit,
            n_bootstrap,
            visitor.seed,
            api_name="/run",
            timeout_s=timeout_s,
        )
        benchmark = args.benchmarks[0]
        visitor.call(
            "score",
            client,
            [handle_file(str(predictions))],
            benchmark,
            "auto",
            n_bootstrap,
            visitor.seed,
            api_name="/score",
            timeout_s=timeout_s,
        )
        board = visitor.call("leaderboard", client, None, True, api_name="/leaderboard", timeout_s=timeout_s)
        own = RUN_ID.search(run.answer[0]).group(1) if run.answer else None
        newest = board.answer[0]["data"][0][-1] if board.answer and board.answer[0]["data"] else None
        visitor.call("explore", client, own or newest, benchmark, 1, api_name="/explore", timeout_s=timeout_s)
    finally:
        client.close()


def checked_runs(visitors: list[Visitor], store: RunStore, before: set[str]) -> tuple[int, int, int]:
    """(runs answered, runs stored, answered runs whose stored scores or seed differ from the visitor's answer);
    runs include scored files, which are stored as runs."""
    stored = set(store.run_ids()) - before
    answered, mixed = 0, 0
    for visitor in visitors:
        for outcome in visitor.outcomes:
            if outcome.kind not in ("run", "score") or outcome.answer is None:
                continue
            answered += 1
            found = RUN_ID.search(outcome.answer[0])
            run_id = found.group(1) if found else None
            if run_id not in stored:
                mixed += 1
                continue
            results = store.results(run_id)
            shown = outcome.answer[1]["data"]
            if charts.summary_frame(results).values.tolist() != shown or results["settings"]["seed"] != visitor.seed:
                mixed += 1
    return answered, len(stored), mixed


def rss_mib(server: subprocess.Popen) -> float:
    return psutil.Process(server.pid).memory_info().rss / 2**20


def settle(server: subprocess.Popen, idle_s: float) -> float:
    """The server's RSS after ``idle_s`` without visitors: the sessions of those who left have ended by then
    (Gradio notices a leaver within its heartbeat, 15 s)."""
    time.sleep(idle_s)
    return rss_mib(server)


def one_round(url, server, store, args, predictions, visitors_n: int, first_seed: int) -> dict:
    before = set(store.run_ids())
    rss_start = rss_mib(server)
    visitors = [Visitor(first_seed + number) for number in range(visitors_n)]
    start = threading.Barrier(visitors_n)
    threads = [
        threading.Thread(target=visit, args=(url, visitor, args, predictions, start), daemon=True)
        for visitor in visitors
    ]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=max(1.0, args.round_limit - (time.monotonic() - began)))
    unfinished = sum(thread.is_alive() for thread in threads)
    seconds = time.monotonic() - began
    rss_end = settle(server, args.idle)
    answered, stored, mixed = checked_runs(visitors, store, before)
    outcomes = [outcome for visitor in visitors for outcome in visitor.outcomes]
    row = {
        "visitors": visitors_n,
        "seconds": round(seconds, 1),
        "page errors": sum(outcome.kind == "page" for outcome in outcomes),
        "unfinished visitors": unfinished,
        "runs answered": answered,
        "runs stored": stored,
        "runs mixed": mixed,
        "rss start MiB": round(rss_start),
        "rss end MiB": round(rss_end),
    }
    for kind in KINDS:
        mine = [outcome for outcome in outcomes if outcome.kind == kind]
        times = [outcome.seconds for outcome in mine if outcome.answer is not None]
        row[kind] = {
            "answered": len(times),
            "refused": sum(outcome.refused for outcome in mine),
            "errors": sum(outcome.error is not None for outcome in mine),
            "p50": round(float(np.percentile(times, 50)), 2) if times else None,
            "p95": round(float(np.percentile(times, 95)), 2) if times else None,
        }
        first_error = next((outcome.error for outcome in mine if outcome.error), None)
        if first_error:
            row[kind]["first error"] = first_error[:300]
    return row


def held(row: dict) -> bool:
    reads_refused = row["leaderboard"]["refused"] + row["explore"]["refused"]
    errors = sum(row[kind]["errors"] for kind in KINDS)
    return (
        not errors
        and not row["page errors"]
        and not reads_refused
        and not row["unfinished visitors"]
        and not row["runs mixed"]
        and row["runs answered"] == row["runs stored"]
    )


def table(rows: list[dict]) -> str:
    """One line per round: answered/refused/errors and p50/p95 seconds per request kind, runs, RSS."""
    header = ["N", *(f"{kind} ans/ref/err" for kind in KINDS), *(f"{kind} p50/p95" for kind in KINDS)]
    header += ["stored/answered", "mixed", "RSS MiB"]
    lines = [" | ".join(header)]
    for row in rows:
        cells = [str(row["visitors"])]
        cells += [f"{row[k]['answered']}/{row[k]['refused']}/{row[k]['errors']}" for k in KINDS]
        cells += [f"{row[k]['p50']}/{row[k]['p95']}" for k in KINDS]
        cells += [f"{row['runs stored']}/{row['runs answered']}", str(row["runs mixed"])]
        cells += [f"{row['rss start MiB']}→{row['rss end MiB']}"]
        lines.append(" | ".join(cells))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=REPO.parent / "shared" / "data", help="upstream data mirror")
    parser.add_argument("--visitors", type=int, nargs="+", default=[4, 8, 16, 32], help="concurrent visitors")
    parser.add_argument("--benchmarks", nargs="+", default=["winogender", "counter_gap"])
    parser.add_argument("--limit", type=int, default=5, help="units per design cell of each run")
    parser.add_argument("--n-bootstrap", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=1, help="the Space's run slots")
    parser.add_argument("--max-queue", type=int, default=16, help="the Space's queue of waiting runs")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds a visitor waits for one answer")
    parser.add_argument("--round-limit", type=float, default=900.0, help="seconds a round may take")
    parser.add_argument("--idle", type=float, default=20.0, help="seconds without visitors before RSS is taken")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args()
    if max(args.visitors) > 64:
        parser.error("at most 64 visitors: each is a thread with its own client here")

    with tempfile.TemporaryDirectory(prefix="space_load-") as folder:
        space_settings = {
            "COREFBIAS_SPACE_CONCURRENCY": str(args.concurrency),
            "COREFBIAS_SPACE_MAX_QUEUE": str(args.max_queue),
        }
        server, url = start_space(Path(folder), args.mirror.resolve(), space_settings)
        try:
            store = RunStore(Path(folder) / "data")
            # The warm-up visitor exports the sets and makes the run whose instances file everyone scores: a run
            # of the whole first set (a file is scored against all of its instances).
            warm = Client(url, verbose=False, download_files=False)
            warm.predict("baseline:stereotype", args.benchmarks, args.limit, 0, 0, api_name="/run")
            status = warm.predict("baseline:stereotype", args.benchmarks[:1], FULL_SET, 0, 0, api_name="/run")[0]
            predictions = store.folder(RUN_ID.search(status).group(1)) / "instances" / f"{args.benchmarks[0]}.jsonl"
            warm.predict([handle_file(str(predictions))], args.benchmarks[0], "auto", 0, 0, api_name="/score")
            warm.close()
            rss_ready = settle(server, args.idle)
            print(f"the Space at {url}: {rss_ready:.0f} MiB after the warm-up", flush=True)
            rows = []
            for round_number, visitors_n in enumerate(args.visitors):
                row = one_round(url, server, store, args, predictions, visitors_n, 1000 * (round_number + 1))
                rows.append(row)
                print(json.dumps(row), flush=True)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print()
    print(table(rows))
    held_rows = [row["visitors"] for row in rows if held(row)]
    print(f"\nheld with no error: N = {max(held_rows) if held_rows else 'none'}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
