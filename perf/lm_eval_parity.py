"""Every cloze request, corefbias's ``hf:`` against lm-evaluation-harness 0.4.13's ``hf``: the token ids, and on a
model the decisions.

    .venv/bin/python perf/lm_eval_parity.py --mirror ../shared/data [--benchmarks all] [--tokenizers A.gguf ...] \\
        [--workers N]
    .venv/bin/python perf/lm_eval_parity.py --mirror ../shared/data --model SmolLM2.gguf [--device cpu|cuda] \\
        [--dtype float32] [--threads 1] [--lm-eval-batch-size 64] [--benchmarks winobias ...]
    .venv/bin/python perf/lm_eval_parity.py --mirror ../shared/data --save-requests FILE.jsonl.gz   # then, there:
    python3 perf/lm_eval_parity.py --requests FILE.jsonl.gz --model SmolLM2.gguf --device cuda --workers 14

Two log-likelihood scorers on the same model can answer differently only through the strings each builds per
instance, the token ids those strings become, and the rounding of the forward pass. The strings are checked on
every instance of every exportable benchmark by ``tests/test_lm_eval_export.py`` (lm-eval's own evaluator on the
exported tasks); this script checks the other two. Each benchmark's instances are rendered as ``corefbias run``
renders them (or read from ``--requests``, a file ``--save-requests`` wrote where the exports are) and encoded
twice: by ``TransformersBackend.encode_requests`` (in calls of ``CALL_SIZE`` instances, as the run hands them),
and by lm-eval's ``HFLM.loglikelihood`` itself — its tokenization (``_encode_pair``, ``tok_encode``, the
empty-context case) up to ``_loglikelihood_tokens``, which is replaced by a recorder — on an ``HFLM`` around a tiny
random-weight model and the tokenizer of each GGUF (``--tokenizers``; by default SmolLM2-135M-Instruct's, which adds
no BOS, and Gemma 3 270M's, which does; the files ``services/llamacpp/setup.sh`` fetches), in ``--workers``
processes (lm-eval encodes one request at a time in Python: 257 s of the 499 092 requests on one core).

With ``--model`` (a GGUF, whose tokenizer is then the one checked), the model scores every request twice, on one
model object: ``TransformersBackend.loglikelihoods`` in calls of ``CALL_SIZE`` (its default layout on the device),
and lm-eval's ``HFLM._loglikelihood_tokens`` (``softmax_dtype=float32``, ``--lm-eval-batch-size``) on exactly what
lm-eval's tokenization handed it; ``HFLM.loglikelihood`` is those two steps. A decision is the option of the highest
log-likelihood (lm-eval's ``acc``); a differing one where lm-eval's two best options lie within 1e-4 is a tie.

Per benchmark it prints the instances, the requests (one per option), the requests whose context ids differ and
those whose continuation ids differ, the longest request in tokens (lm-eval keeps only the last ``max_length`` + 1
tokens of a longer one) and, with a model, the decisions equal to lm-eval's, the differing ones that are not ties
and the largest difference of a log-likelihood; then the totals and each side's seconds. The exit status is 1 if
any id differs or any decision differs beyond a tie. Measured: docs/running/lm_eval.md.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

from cloze_throughput import (
    MODELS,
    agreement,
    benchmark_requests,
    in_calls,
    lm_eval_instances,
    lm_eval_model,
    per_request,
    random_model,
    read_requests,
    save_requests,
)

DEFAULT_TOKENIZERS = [MODELS / "SmolLM2-135M-Instruct.Q4_1.gguf", MODELS / "gemma-3-270m-q4_k_m.gguf"]
WORKER_CHUNK = 2048  # instances a worker encodes per task


def lm_eval_encoder(gguf: Path):
    """corefbias's backend and lm-eval's ``HFLM`` on one tiny random-weight model with the GGUF's tokenizer."""
    import transformers
    from lm_eval.models.huggingface import HFLM

    from corefbias.models.transformers_backend import TransformersBackend

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = random_model("tiny", tokenizer, "cpu", "float32")
    backend = TransformersBackend(model, tokenizer, identity={"kind": "hf", "weights": {"random": "tiny"}})
    return backend, HFLM(pretrained=model, tokenizer=tokenizer, batch_size=1)


def lm_eval_encoded(lm, requests) -> list:
    """What ``HFLM.loglikelihood`` hands ``_loglikelihood_tokens`` for every option of every request: ((context,
    continuation), context ids, continuation ids)."""
    recorded = []

    def record(new_requests, disable_tqdm=False):
        recorded.extend(new_requests)
        return [(0.0, False)] * len(new_requests)

    lm._loglikelihood_tokens = record
    lm.loglikelihood(lm_eval_instances(requests), disable_tqdm=True)
    return recorded


_worker_lm = None  # a worker process's HFLM (``encode_in_worker``)


def encode_in_worker(requests) -> list:
    return lm_eval_encoded(_worker_lm, requests)


def lm_eval_encoded_by(lm, pool, requests) -> list:
    """``lm_eval_encoded``, in the pool's processes (forked from this one, each with ``lm``) if there is one."""
    if pool is None:
        return lm_eval_encoded(lm, requests)
    chunks = [requests[start : start + WORKER_CHUNK] for start in range(0, len(requests), WORKER_CHUNK)]
    return [encoded for part in pool.map(encode_in_worker, chunks) for encoded in part]


def ours_pairs(backend, requests, call_size: int) -> list[tuple[list[int], list[int]]]:
    """The (context ids, continuation ids) from ``TransformersBackend.encode_requests``, one per option."""
    return [
        (context, option)
        for context, options in in_calls(backend.encode_requests, requests, call_size)
        for option in options
    ]


def rendered_requests(args) -> dict[str, list]:
    """Each benchmark's requests, rendered from the exports or read from ``--requests``."""
    if args.requests:
        grouped: dict[str, list] = {}
        for name, request in read_requests(args.requests, named=True):
            grouped.setdefault(name, []).append(request)
        wanted = set(args.benchmarks) - {"all"}
        return {name: requests[: args.limit] for name, requests in grouped.items() if not wanted or name in wanted}
    from corefbias.benchmarks import resolve

    names = [benchmark.name for benchmark in resolve(args.benchmarks) if benchmark.cloze is not None]
    return {name: benchmark_requests([name], args.data_dir, args.mirror, args.limit) for name in names}


def check_token_ids(gguf: Path, rendered: dict[str, list], workers: int, call_size: int) -> tuple[dict, dict, dict]:
    """Per benchmark: what lm-eval hands its model, and the counts of ``main``'s table; the seconds of each side."""
    backend, lm = lm_eval_encoder(gguf)
    print(f"{gguf.name} (BOS prepended: {backend.add_special_tokens})")
    global _worker_lm
    _worker_lm = lm  # the pool's processes are forked now, with it
    pool = multiprocessing.get_context("fork").Pool(workers) if workers > 1 else None
    encoded, found, seconds = {}, {}, {"corefbias": 0.0, "lm-eval": 0.0}
    try:
        for name, requests in rendered.items():
            started = time.perf_counter()
            ours = ours_pairs(backend, requests, call_size)
            seconds["corefbias"] += time.perf_counter() - started
            started = time.perf_counter()
            encoded[name] = lm_eval_encoded_by(lm, pool, requests)
            seconds["lm-eval"] += time.perf_counter() - started
            theirs = [(context, continuation) for _, context, continuation in encoded[name]]
            assert len(ours) == len(theirs), (name, len(ours), len(theirs))
            found[name] = {
                "instances": len(requests),
                "requests": len(theirs),
                "context ≠": sum(a[0] != b[0] for a, b in zip(ours, theirs)),
                "continuation ≠": sum(a[1] != b[1] for a, b in zip(ours, theirs)),
                "longest": max(len(context) + len(continuation) for context, continuation in theirs),
            }
    finally:
        if pool is not None:
            pool.close()
    return encoded, found, seconds


def score(gguf: Path, args, rendered: dict[str, list], encoded: dict[str, list], found: dict, seconds: dict) -> None:
    """The model's log-likelihoods of every request by both sides: adds the decisions' columns to ``found``."""
    import torch

    from corefbias.models import hf_causal_lm
    from corefbias.models.transformers_backend import CALL_SIZE

    if args.threads:
        torch.set_num_threads(args.threads)
    backend = hf_causal_lm.load(str(gguf), device=args.device, dtype=args.dtype).backend
    lm = lm_eval_model(backend, args.lm_eval_batch_size)
    dtype = str(backend.model.dtype).removeprefix("torch.")
    print(f"{gguf.name}: {dtype} on {backend.device}, layout {backend.layout}")
    for name, requests in rendered.items():
        started = time.perf_counter()
        ours = in_calls(backend.loglikelihoods, requests, CALL_SIZE)
        seconds["corefbias scoring"] = seconds.get("corefbias scoring", 0.0) + time.perf_counter() - started
        started = time.perf_counter()
        theirs = per_request([ll for ll, _ in lm._loglikelihood_tokens(encoded[name], disable_tqdm=True)], requests)
        seconds["lm-eval scoring"] = seconds.get("lm-eval scoring", 0.0) + time.perf_counter() - started
        same, real, delta = agreement(ours, theirs)
        found[name].update({"same decisions": same, "not ties": real, "max |ΔLL|": delta})
        print(f"  {name}: {same}/{len(requests)} decisions, {real} not ties, max |ΔLL| {delta:.1e}", flush=True)


def print_table(found: dict[str, dict]) -> None:
    columns = list(next(iter(found.values())))
    print(f"{'benchmark':<14}" + "".join(f" {column:>14}" for column in columns))
    totals = {
        column: max(row[column] for row in found.values())
        if column in ("longest", "max |ΔLL|")
        else sum(row[column] for row in found.values())
        for column in columns
    }
    for name, row in [*found.items(), ("all", totals)]:
        cells = (f"{row[column]:.1e}" if column == "max |ΔLL|" else str(row[column]) for column in columns)
        print(f"{name:<14}" + "".join(f" {cell:>14}" for cell in cells))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", help="upstream mirror (e.g. ../shared/data)")
    parser.add_argument("--data-dir", type=Path, help="exported sets (default: corefbias run's)")
    parser.add_argument("--benchmarks", nargs="+", default=["all"], help="benchmark names, or all")
    parser.add_argument("--limit", type=int, help="only the first N instances of each benchmark part (quick runs)")
    parser.add_argument("--save-requests", type=Path, help="write the rendered requests here (.jsonl.gz) and stop")
    parser.add_argument("--requests", type=Path, help="read them from --save-requests's file instead")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--tokenizers", type=Path, nargs="+", default=DEFAULT_TOKENIZERS, help="GGUF files")
    source.add_argument("--model", type=Path, help="a GGUF whose model scores every request by both sides")
    parser.add_argument("--workers", type=int, default=1, help="processes that run lm-eval's tokenization")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--dtype", default="float32", help="the model's dtype (float32: lm-eval's decisions)")
    parser.add_argument("--threads", type=int, help="torch's CPU threads (default: torch's, one per core)")
    parser.add_argument("--lm-eval-batch-size", type=int, default=16)
    args = parser.parse_args(argv)
    from corefbias.models.transformers_backend import CALL_SIZE

    rendered = rendered_requests(args)
    if args.save_requests:
        names = [name for name, requests in rendered.items() for _ in requests]
        save_requests([request for requests in rendered.values() for request in requests], args.save_requests, names)
        print(f"{sum(map(len, rendered.values()))} instances of {len(rendered)} benchmarks: {args.save_requests}")
        return 0
    failed = False
    for gguf in [args.model] if args.model else args.tokenizers:
        encoded, found, seconds = check_token_ids(gguf, rendered, args.workers, CALL_SIZE)
        if args.model:
            score(gguf, args, rendered, encoded, found, seconds)
        print_table(found)
        print(", ".join(f"{side} {value:.1f} s" for side, value in seconds.items()) + "\n")
        failed = failed or any(
            row["context ≠"] or row["continuation ≠"] or row.get("not ties") for row in found.values()
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
