"""Throughput of ``corefbias run --executor ray`` against its number of replicas. (Goal: at least 0.8·N times
one replica's throughput for the fixed-latency stand-in, up to 8 replicas.)

    OMP_NUM_THREADS=1 .venv/bin/python perf/scale_out.py --mirror ../shared/data

Two models, each run from an empty prediction cache so that every instance is asked:

* a stand-in with a fixed latency per batch (``--latency`` seconds of sleep, then the nearest-candidate
  answer), so that even on a 2-core machine the replicas' work overlaps and what is left is the engine's
  overhead (dispatch, returning answers, committing each batch to the cache); its replicas take 0.25 CPU each;
* ``hf:`` SmolLM2-135M-Instruct (the GGUF ``services/llamacpp/setup.sh`` fetches) with one torch thread
  per replica (one CPU each, and ``--model-arg threads=1``), CPU-bound, so at most one replica per core helps.

Throughput is instances per second of the prediction phase (``predict_seconds``: from the first batch out to
the last answer cached), so the replicas' start (each loading the model) is left out, as it is paid once per
run; it is reported apart. ``local`` is the same model without Ray. One Ray cluster on 127.0.0.1 serves
every row; a closed loopback port as HTTP proxy keeps Ray's dashboard process off cloud metadata addresses.

"busy" is the replicas' time inside the model over the prediction time: how many replicas were at work on
average. Measured on the development machine (2 cores shared with other jobs, load average 5-6; ray 2.60.0,
torch 2.13.0 CPU, Python 3.11), with the command above:

    fixedlatency:0.25 on counter_gap, batches of 32
    executor   instances predict s    inst/s  speed-up per replica      busy   start s
    local           4008     31.87     125.8      1.01        1.01      0.99       1.0
    ray × 1         4008     32.34     123.9      1.00        1.00      0.98       2.6
    ray × 2         4008     16.18     247.8      2.00        1.00      1.97       4.1
    ray × 4         4008      8.16     491.2      3.96        0.99      3.87       7.7
    ray × 8         4008      4.10     977.1      7.88        0.99      7.71      15.4

    hf: SmolLM2-135M-Instruct.Q4_1.gguf on winogender, limit 20, batches of 8
    executor   instances predict s    inst/s  speed-up per replica      busy   start s
    local            120     12.73       9.4      1.21        1.21      1.00      34.6
    ray × 1          120     15.42       7.8      1.00        1.00      0.99      47.6
    ray × 2          120      9.49      12.6      1.62        0.81      1.92      66.8

The stand-in keeps 0.99 of the ideal throughput per replica up to 8 replicas (goal 0.8). hf: on 2 replicas is
as good as the machine's free cores: the replicas stay busy (1.92), but how fast each computes depends on the
other jobs. An earlier run, in which two CPU-bound probe processes each took twice as long as one alone, gave
0.91× on 2 replicas with busy 1.97; this one, with more of the second core free, 1.62×. The local hf: row is the
same model in the driver's process (no Ray), measured under the same varying load.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

# Read by Ray when it is imported and inherited by the processes ray.init starts: loopback only.
LOOPBACK_ONLY = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_USAGE_STATS_ENABLED": "0",
    **{name: "http://127.0.0.1:9" for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")},
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
}
SMOLLM2 = (
    Path(os.environ.get("COREFBIAS_CACHE") or Path.home() / ".cache" / "corefbias")
    / "llamacpp"
    / "models"
    / "SmolLM2-135M-Instruct.Q4_1.gguf"
)
STAND_IN = """
import time

from corefbias.models.baselines import NearestBaseline
from corefbias.models.registry import ModelKind


class FixedLatency(NearestBaseline):
    def __init__(self, seconds):
        super().__init__()
        self.seconds = seconds

    def choose(self, rows, task):
        time.sleep(self.seconds)
        return super().choose(rows, task)


def load(argument, *, kind):
    return FixedLatency(float(argument))


FIXED_LATENCY = ModelKind("fixedlatency", load, example="fixedlatency:0.25", loads_by_name=False)
"""


def measure(spec, benchmark, settings, data_dir, mirror, executor, options=None) -> dict:
    """One run from an empty cache: its instances, prediction seconds and the seconds before them."""
    from corefbias.harness import runner

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as empty:
        result = runner.run(
            spec,
            [benchmark],
            settings,
            data_dir=data_dir,
            mirror=mirror,
            cache_path=Path(empty) / "cache.sqlite",
            progress=False,
            model_options=options,
            executor=executor,
        )
    run = result.runs[benchmark]
    wall = time.perf_counter() - started
    return {
        "instances": len(run.instances),
        "predict": run.predict_seconds,
        "model": run.model_seconds,
        # Everything but predicting and scoring: the replicas' start (or the local load), reading the data.
        "start": wall - run.wall_seconds,
    }


def table(title: str, rows: list[tuple[str, dict]]) -> None:
    """Rows of (executor, measurement); speed-up and efficiency against the one-replica row."""
    one = next(measured for name, measured in rows if name == "ray × 1")
    base = one["instances"] / one["predict"]
    print(f"\n{title}")
    columns = ("instances", "predict s", "inst/s", "speed-up", "per replica", "busy", "start s")
    print(f"{'executor':10} " + " ".join(f"{column:>{max(9, len(column))}}" for column in columns))
    for name, measured in rows:
        rate = measured["instances"] / measured["predict"]
        replicas = int(name.split("×")[1]) if "×" in name else 1
        print(
            f"{name:10} {measured['instances']:9d} {measured['predict']:9.2f} {rate:9.1f} {rate / base:9.2f} "
            f"{rate / base / replicas:11.2f} {measured['model'] / measured['predict']:9.2f} {measured['start']:9.1f}"
        )


def stand_in_rows(args, data_dir) -> list[tuple[str, dict]]:
    from corefbias.harness import extensions, runner
    from corefbias.harness.ray_executor import RayExecutor

    spec = f"fixedlatency:{args.latency}"
    settings = runner.RunSettings(batch_size=args.batch_size, n_bootstrap=0)
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "fixed_latency.py").write_text(STAND_IN, encoding="utf-8")
        extensions.include(folder)
        rows = [("local", measure(spec, args.benchmark, settings, data_dir, args.mirror, None))]
        for n in map(int, args.replicas.split(",")):
            # Sleeping replicas need no core of their own: 8 of them fit a 2-core machine.
            executor = RayExecutor(replicas=n, replica_cpus=0.25, include=(folder,))
            rows.append((f"ray × {n}", measure(spec, args.benchmark, settings, data_dir, args.mirror, executor)))
    return rows


def hf_rows(args, data_dir) -> list[tuple[str, dict]]:
    from corefbias.harness import runner
    from corefbias.harness.ray_executor import RayExecutor

    spec, options = f"hf:{args.hf}", {"threads": 1}
    settings = runner.RunSettings(limit=args.hf_limit, batch_size=args.hf_batch_size, n_bootstrap=0)
    rows = [("local", measure(spec, "winogender", settings, data_dir, args.mirror, None, options))]
    for n in map(int, args.hf_replicas.split(",")):
        executor = RayExecutor(replicas=n)
        rows.append((f"ray × {n}", measure(spec, "winogender", settings, data_dir, args.mirror, executor, options)))
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", help="upstream mirror (e.g. ../shared/data)")
    parser.add_argument("--data-dir", type=Path, help="exported sets (default: corefbias's data folder)")
    parser.add_argument("--models", default="stand-in,hf", help="the tables to measure: stand-in, hf, or both")
    parser.add_argument("--benchmark", default="counter_gap", help="the stand-in's benchmark")
    parser.add_argument("--latency", type=float, default=0.25, help="the stand-in's seconds per batch")
    parser.add_argument("--batch-size", type=int, default=32, help="the stand-in's instances per batch")
    parser.add_argument("--replicas", default="1,2,4,8", help="the stand-in's replica counts")
    parser.add_argument("--hf", type=Path, default=SMOLLM2, help="the GGUF of the hf: table")
    parser.add_argument("--hf-limit", type=int, default=20, help="Winogender units per design cell for hf:")
    parser.add_argument("--hf-batch-size", type=int, default=8, help="hf:'s instances per batch")
    parser.add_argument("--hf-replicas", default="1,2", help="hf:'s replica counts")
    args = parser.parse_args(argv)
    models = args.models.split(",")
    os.environ.update(LOOPBACK_ONLY)
    import ray

    from corefbias.harness import benchmark_data

    data_dir = args.data_dir or benchmark_data.default_data_dir()
    ray.init(_node_ip_address="127.0.0.1", include_dashboard=False, log_to_driver=False)
    try:
        if "stand-in" in models:
            rows = stand_in_rows(args, data_dir)
            table(f"fixedlatency:{args.latency} on {args.benchmark}, batches of {args.batch_size}", rows)
        if "hf" in models and not args.hf.is_file():
            print(f"\nno {args.hf}: no hf: table (bash services/llamacpp/setup.sh fetches it)")
        elif "hf" in models:
            rows = hf_rows(args, data_dir)
            table(f"hf: {args.hf.name} on winogender, limit {args.hf_limit}, batches of {args.hf_batch_size}", rows)
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
