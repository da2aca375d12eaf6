"""Token ids of every cloze request: corefbias's ``hf:`` against lm-evaluation-harness 0.4.13's ``hf``, every instance.

    .venv/bin/python perf/lm_eval_parity.py --mirror ../shared/data [--benchmarks all] [--tokenizers A.gguf ...]

Two log-likelihood scorers on the same model can answer differently only through the strings each builds per
instance, the token ids those strings become, and the rounding of the forward pass. The strings are checked on
every instance of every exportable benchmark by ``tests/test_lm_eval_export.py`` (lm-eval's own evaluator on the
exported tasks); this script checks the token ids of every request. Each benchmark's instances are rendered as
``corefbias run`` renders them and encoded twice: by ``TransformersBackend.encode_requests`` (in calls of
``CALL_SIZE`` instances, as the run hands them), and by lm-eval's ``HFLM.loglikelihood`` itself — its
tokenization (``_encode_pair``, ``tok_encode``, the empty-context case) up to ``_loglikelihood_tokens``, which
is replaced by a recorder — on an ``HFLM`` around a tiny random-weight model and the tokenizer of each GGUF
(``--tokenizers``; by default SmolLM2-135M-Instruct's, which adds no BOS, and Gemma 3 270M's, which does; the files
``services/llamacpp/setup.sh`` fetches). Per benchmark and tokenizer it prints the instances, the requests (one per
option), the requests whose context ids differ and those whose continuation ids differ (each must be 0; the exit
status is 1 otherwise), and the longest request in tokens (lm-eval keeps only the last ``max_length`` + 1 tokens of
a longer one); then the totals and the seconds each side spent encoding. Measured: docs/running/lm_eval.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cloze_throughput import benchmark_requests, random_model

MODELS = Path.home() / ".cache" / "corefbias" / "llamacpp" / "models"
DEFAULT_TOKENIZERS = [MODELS / "SmolLM2-135M-Instruct.Q4_1.gguf", MODELS / "gemma-3-270m-q4_k_m.gguf"]


def lm_eval_encoder(gguf: Path):
    """corefbias's backend and lm-eval's ``HFLM`` on one tiny random-weight model with the GGUF's tokenizer."""
    import transformers
    from lm_eval.models.huggingface import HFLM

    from corefbias.models.transformers_backend import TransformersBackend

    tokenizer = transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = random_model("tiny", tokenizer, "cpu", "float32")
    backend = TransformersBackend(model, tokenizer, identity={"kind": "hf", "weights": {"random": "tiny"}})
    return backend, HFLM(pretrained=model, tokenizer=tokenizer, batch_size=1)


def lm_eval_pairs(lm, requests) -> list[tuple[list[int], list[int]]]:
    """(context ids, continuation ids) of every option of every request, as ``HFLM.loglikelihood`` encodes them."""
    from lm_eval.api.instance import Instance

    recorded = []

    def record(new_requests, disable_tqdm=False):
        recorded.extend((context, continuation) for _, context, continuation in new_requests)
        return [(0.0, False)] * len(new_requests)

    lm._loglikelihood_tokens = record
    pairs = [(request.context, continuation) for request in requests for continuation in request.continuations]
    lm.loglikelihood([Instance("loglikelihood", {}, pair, i) for i, pair in enumerate(pairs)], disable_tqdm=True)
    return recorded


def ours_pairs(backend, requests, call_size: int) -> list[tuple[list[int], list[int]]]:
    """The same pairs from ``TransformersBackend.encode_requests``, one per option."""
    return [
        (context, option)
        for start in range(0, len(requests), call_size)
        for context, options in backend.encode_requests(requests[start : start + call_size])
        for option in options
    ]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", help="upstream mirror (e.g. ../shared/data)")
    parser.add_argument("--data-dir", type=Path, help="exported sets (default: corefbias run's)")
    parser.add_argument("--benchmarks", nargs="+", default=["all"], help="benchmark names, or all")
    parser.add_argument("--limit", type=int, help="only the first N instances of each benchmark (quick runs)")
    parser.add_argument("--tokenizers", type=Path, nargs="+", default=DEFAULT_TOKENIZERS, help="GGUF files")
    args = parser.parse_args(argv)
    from corefbias.benchmarks import resolve
    from corefbias.models.transformers_backend import CALL_SIZE

    names = [benchmark.name for benchmark in resolve(args.benchmarks) if benchmark.cloze is not None]
    rendered = {name: benchmark_requests([name], args.data_dir, args.mirror, args.limit) for name in names}
    failed = False
    for gguf in args.tokenizers:
        backend, lm = lm_eval_encoder(gguf)
        print(f"{gguf.name} (BOS prepended: {backend.add_special_tokens})")
        print(
            f"{'benchmark':<14} {'instances':>9} {'requests':>9} {'context ≠':>9} {'continuation ≠':>14} {'longest':>7}"
        )
        totals = {"instances": 0, "requests": 0, "context": 0, "continuation": 0, "longest": 0}
        seconds = {"corefbias": 0.0, "lm-eval": 0.0}
        for name, requests in rendered.items():
            started = time.perf_counter()
            ours = ours_pairs(backend, requests, CALL_SIZE)
            seconds["corefbias"] += time.perf_counter() - started
            started = time.perf_counter()
            theirs = lm_eval_pairs(lm, requests)
            seconds["lm-eval"] += time.perf_counter() - started
            assert len(ours) == len(theirs), (name, len(ours), len(theirs))
            found = {
                "instances": len(requests),
                "requests": len(theirs),
                "context": sum(a[0] != b[0] for a, b in zip(ours, theirs)),
                "continuation": sum(a[1] != b[1] for a, b in zip(ours, theirs)),
                "longest": max(len(context) + len(continuation) for context, continuation in theirs),
            }
            print(
                f"{name:<14} {found['instances']:>9} {found['requests']:>9} {found['context']:>9} "
                f"{found['continuation']:>14} {found['longest']:>7}"
            )
            totals = {
                key: max(totals[key], value) if key == "longest" else totals[key] + value
                for key, value in found.items()
            }
        print(
            f"{'all':<14} {totals['instances']:>9} {totals['requests']:>9} {totals['context']:>9} "
            f"{totals['continuation']:>14} {totals['longest']:>7}"
        )
        print(f"encoding: corefbias {seconds['corefbias']:.1f} s, lm-eval {seconds['lm-eval']:.1f} s\n")
        failed = failed or totals["context"] > 0 or totals["continuation"] > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
