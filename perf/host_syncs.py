"""Where the host waits for the device while ``hf:`` scores: per layout, the operations that make the host wait for
the CUDA stream (``torch.cuda.set_sync_debug_mode``), per batch, and the lines of code they come from. One per batch is
the floor (its answers cross to the host); each one more holds the host until the device has caught up, and the
host then lays out the next batch while the device waits.

    PYTHONPATH=src python3 perf/host_syncs.py [--requests runs/gpu/requests.jsonl.gz] \\
        [--tokenizer runs/gpu/tokenizer] [--sample 2000] [--device cuda]

A small random Llama (``cloze_throughput.ARCHITECTURES["tiny"]``) with the tokenizer's vocabulary, each layout at the
device's default budget. On a CPU there is no stream to wait for: it runs and counts nothing.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from cloze_throughput import random_model, read_requests  # noqa: E402

from corefbias.models.pass_layouts import BY_NAME  # noqa: E402
from corefbias.models.transformers_backend import TransformersBackend  # noqa: E402


def synchronizing(backend, requests) -> tuple[int, collections.Counter]:
    """The batches of one call over ``requests`` and, per line of code, the operations in it that waited for the
    stream."""
    import torch

    on_cuda = backend.device.type == "cuda"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if on_cuda:
            torch.cuda.set_sync_debug_mode("warn")
        try:
            batches = sum(1 for _ in backend.loglikelihoods_in_batches(requests))
        finally:
            if on_cuda:
                torch.cuda.set_sync_debug_mode("default")
    where = collections.Counter(
        f"{Path(caught_warning.filename).name}:{caught_warning.lineno}"
        for caught_warning in caught
        if "synchroniz" in str(caught_warning.message)
    )
    return batches, where


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=Path, default=Path("runs/gpu/requests.jsonl.gz"))
    parser.add_argument("--tokenizer", type=Path, default=Path("runs/gpu/tokenizer"))
    parser.add_argument("--sample", type=int, default=2000, help="instances drawn at random (seeded)")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--layouts", nargs="+", choices=list(BY_NAME), default=list(BY_NAME))
    args = parser.parse_args(argv)
    import torch
    import transformers

    torch.set_grad_enabled(False)
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(args.tokenizer))
    dtype = "bfloat16" if args.device == "cuda" else "float32"
    model = random_model("tiny", tokenizer, args.device, dtype)
    requests = read_requests(args.requests)
    requests = random.Random(0).sample(requests, min(args.sample, len(requests)))
    for layout in args.layouts:
        backend = TransformersBackend(model, tokenizer, identity={"kind": "hf"}, layout=layout)
        backend.loglikelihoods(requests[:20])  # warm-up
        batches, where = synchronizing(backend, requests)
        waits = sum(where.values())
        print(f"{layout}: {batches} batches, {waits} waits for the stream ({waits / batches:.2f} per batch)")
        for line, count in where.most_common(6):
            print(f"    {count:6d}  {line}")


if __name__ == "__main__":
    main()
