"""Cloze scoring throughput: corefbias's ``hf:`` backend against lm-evaluation-harness 0.4.13's ``hf``.

    .venv/bin/python perf/cloze_throughput.py --mirror ../shared/data \\
        [--model ~/.cache/corefbias/llamacpp/models/SmolLM2-135M-Instruct.Q4_1.gguf] \\
        [--threads 1 2] [--ours-batch-sizes 1 16 64] [--lm-eval-batch-sizes 1 16] [--limit N]

Both score the same Winogender requests (all 720 instances, two options each: the context
``{sentence} ‘{Pronoun}’ refers to the`` and the continuations `` {occupation}``, `` {participant}``,
as ``WINOGENDER_CLOZE`` renders them) with the same model on this machine's CPU, one setting after
the other. Only the scoring is timed, from strings to log-likelihoods, tokenization included; model
loading is not, on either side:

* corefbias: ``hf_causal_lm.load`` once, then ``backend.loglikelihoods(requests)`` per batch size over
  all requests at once, and at its default batch size in chunks of ``--chunk`` instances, as ``corefbias
  run`` calls it (``RunSettings.batch_size``, 32 by default);
* lm-eval: a subprocess of the lm-eval venv's python (``--lm-eval-python``) constructs ``HFLM`` once
  (``pretrained=<folder>, gguf_file=<file>``, its defaults otherwise: ``logits_cache`` on, which
  computes one forward pass for options of one token after the same context), then times
  ``lm.loglikelihood(instances)`` per batch size on ``Instance("loglikelihood", ...)`` built from the same
  context/continuation pairs (what ``simple_evaluate`` hands it for the ``winogender`` task).

Each side first scores a few requests untimed (warm-up). ``torch.set_num_threads`` is set per row on
both sides (on a busy machine 2 threads can be far slower than 1). Decisions are the argmax of the
summed log-likelihoods (``acc``); they and the log-likelihoods are compared with lm-eval's at batch
size 1 (unbatched) with the same thread count. ``tokens computed / needed / distinct`` is the
backend's ``stats``: the tokens its forward passes computed, padding included, against what the requests
need with each context computed once, and with each distinct prefix of the contexts computed once (the
least any method computes; each option's tokens but its last count in both).

Measured (2 shared cores, otherwise idle; SmolLM2-135M-Instruct Q4_1, all 720 instances, seconds of
scoring): lm-eval bs 1 / 16: 142 / 60 s at 1 thread, 82 / 31 s at 2; corefbias bs 64: 26 s at 1 thread,
15 s at 2 (2.1× lm-eval's best), 38 / 22 s in chunks of 32; 720/720 decisions identical everywhere, log-
likelihoods within 4.2e-5 of lm-eval's unbatched ones (lm-eval's own bs 16 differs from its bs 1 by up to
2.8e-5). Gemma 3 270M (a 262 144-token vocabulary) at 1 thread: lm-eval 206 / 102 s, corefbias 26 s (3.9×).

The lm-eval venv, once (CPU torch; the same transformers as corefbias's venv keeps numbers comparable):

    python3 -m venv /tmp/lmeval-venv
    /tmp/lmeval-venv/bin/pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0
    /tmp/lmeval-venv/bin/pip install lm-eval==0.4.13 transformers gguf accelerate
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import benchmark_data

DEFAULT_MODEL = Path.home() / ".cache" / "corefbias" / "llamacpp" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
WARM_UP = 8

# Runs in the lm-eval venv: argv[1] a JSON job, argv[2] where to write the timings and log-likelihoods.
LM_EVAL_SCRIPT = r"""
import json, sys, time
job = json.load(open(sys.argv[1]))
import torch
torch.set_num_threads(job["threads"])
from lm_eval.api.instance import Instance
from lm_eval.models.huggingface import HFLM

lm = HFLM(pretrained=job["folder"], gguf_file=job["gguf_file"], device="cpu", batch_size=1)

def instances(pairs):
    return [Instance("loglikelihood", {}, tuple(pair), i) for i, pair in enumerate(pairs)]

runs = []
for batch_size in job["batch_sizes"]:
    lm.batch_size_per_gpu = batch_size
    lm.loglikelihood(instances(job["pairs"][: job["warm_up"]]), disable_tqdm=True)
    requests = instances(job["pairs"])
    started = time.perf_counter()
    answers = lm.loglikelihood(requests, disable_tqdm=True)
    seconds = time.perf_counter() - started
    runs.append({"batch_size": batch_size, "seconds": seconds, "loglikelihoods": [ll for ll, _ in answers]})
json.dump({"torch_threads": torch.get_num_threads(), "runs": runs}, open(sys.argv[2], "w"))
"""


def winogender_requests(data_dir: Path, mirror, limit: int | None):
    benchmark = BENCHMARKS["winogender"]
    rows = []
    for config, split in benchmark.parts:
        rows.extend(benchmark_data.load_part(benchmark, config, split, data_dir, mirror))
    rows = rows[:limit] if limit else rows
    return [benchmark.task.cloze.render(row) for row in rows]


def lm_eval_runs(python: str, model: Path, requests, threads: int, batch_sizes: list[int]) -> list[dict]:
    pairs = [(request.context, continuation) for request in requests for continuation in request.continuations]
    job = {
        "folder": str(model.parent),
        "gguf_file": model.name,
        "threads": threads,
        "batch_sizes": batch_sizes,
        "pairs": pairs,
        "warm_up": WARM_UP,
    }
    with tempfile.TemporaryDirectory() as folder:
        job_path, out_path, script = Path(folder, "job.json"), Path(folder, "out.json"), Path(folder, "run.py")
        job_path.write_text(json.dumps(job))
        script.write_text(LM_EVAL_SCRIPT)
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
        done = subprocess.run([python, str(script), str(job_path), str(out_path)], env=env, capture_output=True)
        if done.returncode != 0:
            sys.exit(f"lm-eval failed ({python}):\n{done.stderr.decode()[-3000:]}")
        result = json.loads(out_path.read_text())
    runs = []
    for run in result["runs"]:
        flat = iter(run["loglikelihoods"])
        lls = [[next(flat) for _ in request.continuations] for request in requests]
        runs.append({**run, "threads": result["torch_threads"], "loglikelihoods": lls})
    return runs


def ours(backend, requests, threads: int, batch_size: int, chunk: int | None) -> dict:
    import torch

    torch.set_num_threads(threads)
    backend.batch_size = batch_size
    backend.stats = type(backend.stats)()  # a fresh count: an earlier row's stays as it was
    backend.loglikelihoods(requests[:WARM_UP])
    backend.stats = stats = type(backend.stats)()
    step = chunk or len(requests)
    started = time.perf_counter()
    lls = []
    for start in range(0, len(requests), step):
        lls.extend(backend.loglikelihoods(requests[start : start + step]))
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "loglikelihoods": lls, "stats": stats, "threads": torch.get_num_threads()}


def argmax(values) -> int:
    return max(range(len(values)), key=lambda i: (values[i], -i))


def agreement(lls, reference) -> tuple[int, float]:
    same = sum(argmax(a) == argmax(b) for a, b in zip(lls, reference))
    delta = max(abs(x - y) for a, b in zip(lls, reference) for x, y in zip(a, b))
    return same, delta


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", help="upstream mirror (e.g. ../shared/data)")
    parser.add_argument("--data-dir", type=Path, default=benchmark_data.default_data_dir())
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="a .gguf file")
    parser.add_argument("--lm-eval-python", default="/tmp/lmeval-venv/bin/python")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--ours-batch-sizes", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--lm-eval-batch-sizes", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--chunk", type=int, default=32, help="instances per call, as `corefbias run` passes them")
    parser.add_argument("--limit", type=int, help="only the first N instances")
    args = parser.parse_args(argv)
    if 1 not in args.lm_eval_batch_sizes:
        args.lm_eval_batch_sizes.insert(0, 1)  # the reference decisions are lm-eval's unbatched ones
    from corefbias.models import hf_causal_lm

    requests = winogender_requests(args.data_dir, args.mirror, args.limit)
    n = len(requests)
    started = time.perf_counter()
    model = hf_causal_lm.load(str(args.model))
    default_batch = model.backend.batch_size
    print(f"{args.model.name}: {n} Winogender instances, {sum(map(len, (r.continuations for r in requests)))} requests")
    print(f"corefbias loaded the model in {time.perf_counter() - started:.1f} s (not timed below)")
    rows = []
    for threads in args.threads:
        theirs = lm_eval_runs(args.lm_eval_python, args.model, requests, threads, args.lm_eval_batch_sizes)
        reference = next(run for run in theirs if run["batch_size"] == 1)
        for run in theirs:
            rows.append(("lm-eval 0.4.13 hf", threads, str(run["batch_size"]), run, reference))
        settings = [(size, None) for size in args.ours_batch_sizes] + [(default_batch, args.chunk)]
        for batch_size, chunk in settings:
            run = ours(model.backend, requests, threads, batch_size, chunk)
            label = f"{batch_size} (chunks of {chunk})" if chunk else str(batch_size)
            rows.append(("corefbias hf:", threads, label, run, reference))
    header = (
        f"{'implementation':<18} {'threads':>7} {'batch size':>18} {'seconds':>8} {'inst/s':>7} "
        f"{'× lm-eval bs1':>13} {'tokens computed / needed / distinct':>35} {'same decision':>13} {'max |ΔLL|':>9}"
    )
    print(header)
    print("-" * len(header))
    for name, _, label, run, reference in rows:
        speed = n / run["seconds"]
        relative = reference["seconds"] / run["seconds"]
        stats = run.get("stats")
        tokens = f"{stats.computed} / {stats.needed} / {stats.distinct}" if stats else "—"
        same, delta = agreement(run["loglikelihoods"], reference["loglikelihoods"])
        print(
            f"{name:<18} {run['threads']:>7} {label:>18} {run['seconds']:>8.1f} {speed:>7.2f} {relative:>12.2f}× "
            f"{tokens:>35} {f'{same}/{n}':>13} {delta:>9.1e}"
        )
    best_theirs = min(row[3]["seconds"] for row in rows if row[0].startswith("lm-eval"))
    best_ours = min(row[3]["seconds"] for row in rows if row[0].startswith("corefbias"))
    print(f"best corefbias / best lm-eval throughput: {best_theirs / best_ours:.2f}× (goal ≥ 1.5×)")


if __name__ == "__main__":
    main()
