"""How much time does ``corefbias run`` add around the model? (Goal: under 5% of the model's time.)

    python perf/harness_overhead.py --mirror ../shared/data [--model SPEC] [--benchmark NAME] [--repeats 3]

Runs the model on one benchmark (default: the one with the most instances) from an empty
prediction cache, so every instance goes through the model, and reports:

* model time: inside the model's calls (``predict_clusters`` / ``choose``);
* harness time: the prediction loop's wall time minus the model time (reading rows, the
  prediction cache, ``Dataset.map``), absolute, per instance, and as a fraction of model time;
* scoring time (decisions and every metric with ``--n-bootstrap`` resamples), reported apart,
  since it does not grow with the model's cost.

A baseline answers in microseconds, so for it the fraction is large and the per-instance harness
time is the figure to read; for a real model (e.g. NeuralCoref served over HTTP, ``--model
http://127.0.0.1:8808``) the fraction is the one the goal is about. The best of ``--repeats`` runs is kept.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import benchmark_data, runner


def largest_benchmark(data_dir: Path, mirror) -> str:
    sizes = {
        name: sum(len(benchmark_data.load_part(b, config, split, data_dir, mirror)) for config, split in b.parts)
        for name, b in BENCHMARKS.items()
    }
    return max(sizes, key=sizes.get)


def measure(model_spec: str, benchmark: str, data_dir: Path, mirror, n_bootstrap: int, batch_size: int):
    with tempfile.TemporaryDirectory() as empty:
        result = runner.run(
            model_spec,
            [benchmark],
            settings=runner.RunSettings(n_bootstrap=n_bootstrap, batch_size=batch_size),
            data_dir=data_dir,
            mirror=mirror,
            cache_path=Path(empty) / "cache.sqlite",
            progress=False,
        )
    return result.runs[benchmark]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", help="upstream mirror (e.g. ../shared/data)")
    parser.add_argument("--model", default="baseline:nearest")
    parser.add_argument("--benchmark", help="default: the benchmark with the most instances")
    parser.add_argument("--data-dir", type=Path, default=benchmark_data.default_data_dir())
    parser.add_argument("--n-bootstrap", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    benchmark = args.benchmark or largest_benchmark(args.data_dir, args.mirror)
    runs = [
        measure(args.model, benchmark, args.data_dir, args.mirror, args.n_bootstrap, args.batch_size)
        for _ in range(args.repeats)
    ]
    best = min(runs, key=lambda run: run.predict_seconds - run.model_seconds)
    instances = len(best.instances)
    harness = best.predict_seconds - best.model_seconds
    print(
        f"model {args.model} on {benchmark}: {instances} instances, batch size {args.batch_size}, best of "
        f"{args.repeats}"
    )
    print(f"  model time    {best.model_seconds:9.3f} s  ({1e3 * best.model_seconds / instances:.3f} ms/instance)")
    print(f"  harness time  {harness:9.3f} s  ({1e6 * harness / instances:.1f} µs/instance)")
    if best.model_seconds > 0:
        print(f"  harness / model = {100 * harness / best.model_seconds:.2f} %  (goal < 5 %)")
    print(f"  scoring       {best.score_seconds:9.3f} s  ({args.n_bootstrap} bootstrap resamples)")


if __name__ == "__main__":
    main()
