"""The host's share of one forward pass: a Llama with the layers and attention heads of a named shape
(``cloze_throughput.ARCHITECTURES``: Llama-3.2-1B's 16 layers, Llama-3.1-8B's 32) but widths of a few numbers, on a
few tokens, so that nearly all of a pass's time is the Python, dispatch and (on a GPU) kernel launches it costs
whatever the model's size.

    OMP_NUM_THREADS=1 .venv/bin/python perf/pass_overhead.py [--architectures llama-1b llama-8b] [--passes 200] \
        [--device cpu]

Per shape it prints the milliseconds of a pass with no attention mask (``right-padded``'s context passes) and
with a padding mask (its tail passes, and every ``prefix-sharing`` pass), on one row of four tokens and on eight
rows, one of them padded. Times the planned passes of a run (``cloze_throughput.py``'s ``passes``), this bounds what
the host costs per pass; measured: docs/performance.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from cloze_throughput import ARCHITECTURES, random_model  # noqa: E402

WARM_UP = 20


def skeleton(architecture: str, device: str):
    """A random Llama with the layers and heads of ``architecture``, each head two numbers wide."""
    return random_model(
        architecture, None, device, "float32", vocab_size=512, hidden_size=64, intermediate_size=128, head_dim=2
    )


def milliseconds_per_pass(model, passes: int, *, masked: bool) -> float:
    """The mean milliseconds of ``passes`` forward passes (after ``WARM_UP``), keeping one position's logits."""
    import torch

    device = model.device
    rows = 8 if masked else 1
    ids = torch.ones((rows, 4), dtype=torch.long, device=device)
    mask = None
    if masked:
        mask = torch.ones((rows, 4), dtype=torch.long, device=device)
        mask[0, :2] = 0
    with torch.inference_mode():
        for number in range(WARM_UP + passes):
            if number == WARM_UP:
                if device.type == "cuda":
                    torch.cuda.synchronize()
                started = time.perf_counter()
            model(input_ids=ids, attention_mask=mask, use_cache=True, logits_to_keep=1)
        if device.type == "cuda":
            torch.cuda.synchronize()
    return (time.perf_counter() - started) / passes * 1e3


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--architectures", nargs="+", choices=sorted(ARCHITECTURES), default=["llama-1b", "llama-8b"])
    parser.add_argument("--passes", type=int, default=200)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=1, help="torch's CPU threads")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    for architecture in args.architectures:
        model = skeleton(architecture, args.device)
        layers = model.config.num_hidden_layers
        plain = milliseconds_per_pass(model, args.passes, masked=False)
        masked = milliseconds_per_pass(model, args.passes, masked=True)
        print(
            f"{architecture}'s {layers} layers on {args.device}: {plain:.1f} ms per pass, "
            f"{masked:.1f} ms with a padding mask"
        )


if __name__ == "__main__":
    main()
