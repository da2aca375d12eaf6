"""What significance costs each benchmark's scoring: seconds and peak memory of its bootstrap, on its whole set.

    python perf/bootstrap_cost.py --mirror ../shared/data [--data-dir DIR] [--n-bootstrap 1000] [--repeats 3]

Each benchmark's scoring runs on decisions of its own gold links (every instance answered by its gold candidates,
one wrong in seven: so no score is degenerate) twice: with ``--n-bootstrap`` resamples and with none. Their
difference (best of ``--repeats``) is what the bootstrap costs, the peak of Python's allocations (tracemalloc) during
it its memory. It uses only what every version of corefbias has (the declarations and their scorers), so the same
command run on an older checkout (``PYTHONPATH=<old checkout>/src``) times that version on the same decisions.
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc
from pathlib import Path

from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import benchmark_data


def decisions_of(parts: dict) -> dict:
    """Gold links, with every seventh instance's links turned over."""
    decisions = {}
    for part, columns in parts.items():
        decisions[part] = [
            [bool(candidate["is_referent"]) != (index % 7 == 3) for candidate in candidates]
            for index, candidates in enumerate(columns["candidates"])
        ]
    return decisions


def cost(name: str, data_dir: Path, mirror, n_bootstrap: int, repeats: int) -> dict:
    benchmark = BENCHMARKS[name]
    parts = {part: benchmark_data.load_part(benchmark, *part, data_dir, mirror).to_dict() for part in benchmark.parts}
    decisions = decisions_of(parts)
    timings = {}
    for resamples in (0, n_bootstrap):
        best = float("inf")
        for _ in range(repeats):
            started = time.perf_counter()
            benchmark.score(parts, decisions, resamples, 0)
            best = min(best, time.perf_counter() - started)
        timings[resamples] = best
    tracemalloc.start()
    benchmark.score(parts, decisions, n_bootstrap, 0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "bootstrap_seconds": timings[n_bootstrap] - timings[0],
        "scoring_seconds": timings[0],
        "peak_mib": peak / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", help="upstream mirror (e.g. ../shared/data)")
    parser.add_argument("--data-dir", help="exported sets (default: the runner's)")
    parser.add_argument("--benchmark", action="append")
    parser.add_argument("--n-bootstrap", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    data_dir = Path(args.data_dir) if args.data_dir else benchmark_data.default_data_dir()
    figures = {}
    print("| benchmark | bootstrap (s) | scoring without it (s) | peak memory (MiB) |")
    print("|---|---|---|---|")
    for name in args.benchmark or list(BENCHMARKS):
        found = figures[name] = cost(name, data_dir, args.mirror, args.n_bootstrap, args.repeats)
        print(f"| {name} | {found['bootstrap_seconds']:.3f} | {found['scoring_seconds']:.3f} | "
              f"{found['peak_mib']:.1f} |", flush=True)  # fmt: skip
    total = sum(found["bootstrap_seconds"] for found in figures.values())
    print(f"\nall benchmarks: {total:.2f} s of bootstrap ({args.n_bootstrap} resamples each)")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
