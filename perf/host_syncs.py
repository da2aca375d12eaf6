"""Where the host waits for the device while ``hf:`` scores: per layout and per batch, the operations that read a
value of the model's device's tensors on the host, and the lines of code they come from.

    PYTHONPATH=src python3 perf/host_syncs.py [--requests runs/gpu/requests.jsonl.gz] \\
        [--tokenizer runs/gpu/tokenizer] [--sample 2000] [--device cpu|cuda]

On CUDA such a read waits for every kernel already queued, and the host then lays out the next batch while the device
waits. One per batch is the floor: its answers (``tolist``, not counted here). Two counts:

* ``reads of device values``, on any device (``DeviceReads``): a ``torch_dispatch`` mode counts the operations that
  turn a tensor of the device into a host value or into a shape that depends on its values (``item``, ``bool``,
  ``nonzero``, boolean indexing...). On a GPU a tensor's device says whose it is; on a CPU, where host and device are
  one, the mode follows the device's tensors: the model's weights and buffers, what ``pass_layouts.device_copies``
  copies there (made real copies, so that the host's own tensors stay apart), and what any operation makes from
  those. The test suite asserts none, in every layout (``tests/test_host_waits.py``).
* ``waits for the stream``, on CUDA only: every operation torch itself reports as synchronizing
  (``torch.cuda.set_sync_debug_mode("warn")``), copies from pageable memory included.

A small random Llama (``cloze_throughput.ARCHITECTURES["tiny"]``) with the tokenizer's vocabulary, each layout at the
device's default budget.
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import traceback
import warnings
from contextlib import contextmanager
from pathlib import Path

from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, str(Path(__file__).parent))
from cloze_throughput import random_model, read_requests  # noqa: E402

from corefbias.models.pass_layouts import BY_NAME, device_copies  # noqa: E402
from corefbias.models.transformers_backend import TransformersBackend  # noqa: E402

# Operations whose result on the host (a number, a truth value, or a shape) depends on their input's values.
HOST_READS = {
    "aten.item.default",
    "aten.is_nonzero.default",
    "aten._local_scalar_dense.default",
    "aten.equal.default",
    "aten.nonzero.default",
    "aten.masked_select.default",
    "aten.unique_consecutive.default",
    "aten._unique2.default",
    "aten.repeat_interleave.Tensor",
}


class DeviceReads(TorchDispatchMode):
    """Within it (``with reads.watching(model):``), ``where`` counts, per operation and the line outside torch that
    asked for it, each read of a value of a tensor on ``model``'s device (see the module docstring)."""

    def __init__(self):
        from torch.utils.weak import WeakIdKeyDictionary

        super().__init__()
        self.on_device = WeakIdKeyDictionary()
        self.device = None
        self.where: collections.Counter = collections.Counter()

    @contextmanager
    def watching(self, model):
        """Follow ``model``'s weights and buffers and the copies made to its device, while the block runs."""
        self.device = model.device
        for tensor in (*model.parameters(), *model.buffers()):
            self.on_device[tensor] = True
        copying = device_copies.on_device

        def copied(tensor, device):
            copy = copying(tensor, device)
            copy = tensor.clone() if copy is tensor else copy  # on a CPU: a copy of its own, unlike the host's
            self.on_device[copy] = True
            return copy

        # A module's own names only: asking a lazy module (transformers') for a name it lacks imports its submodules.
        importers = [
            module
            for module in list(sys.modules.values())
            if getattr(module, "__dict__", {}).get("on_device") is copying
        ]
        for module in importers:
            module.on_device = copied
        try:
            with self:
                yield self
        finally:
            for module in importers:
                module.on_device = copying

    def holds(self, tensor) -> bool:
        """Whether ``tensor`` is on the model's device: followed there on a CPU, where host and device are one."""
        return tensor in self.on_device or (self.device.type != "cpu" and tensor.device == self.device)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        import torch
        from torch.utils._pytree import tree_leaves

        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if any(isinstance(leaf, torch.Tensor) and self.holds(leaf) for leaf in tree_leaves((args, kwargs))):
            for leaf in tree_leaves(out):
                if isinstance(leaf, torch.Tensor) and self.device.type == "cpu":  # elsewhere, where it lies says
                    self.on_device[leaf] = True
            boolean_index = str(func) == "aten.index.Tensor" and any(
                isinstance(index, torch.Tensor) and index.dtype == torch.bool for index in args[1]
            )
            if str(func) in HOST_READS or boolean_index:
                self.where[f"{func} at {asking_line()}"] += 1
        return out


def asking_line() -> str:
    """The file and line, outside torch and this script, that the operation running now was asked for from."""
    for frame in reversed(traceback.extract_stack()):
        if "/torch/" not in frame.filename and frame.filename != __file__:
            return f"{Path(frame.filename).name}:{frame.lineno}"
    return "?"


def reads_and_waits(backend, requests) -> tuple[int, collections.Counter, collections.Counter]:
    """The batches of one call over ``requests``; per operation and line, the reads of the device's values
    (``DeviceReads``); and, on CUDA, per line, the operations torch reports as waiting for the stream (in a second
    call, without the dispatch mode's Python in between)."""
    import torch

    reads = DeviceReads()
    with reads.watching(backend.model):
        batches = sum(1 for _ in backend.loglikelihoods_in_batches(requests))
    waits: collections.Counter = collections.Counter()
    if backend.device.type == "cuda":
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.cuda.set_sync_debug_mode("warn")
            try:
                backend.loglikelihoods(requests)
            finally:
                torch.cuda.set_sync_debug_mode("default")
        waits.update(
            f"a wait for the stream at {Path(caught_warning.filename).name}:{caught_warning.lineno}"
            for caught_warning in caught
            if "synchroniz" in str(caught_warning.message)
        )
    return batches, reads.where, waits


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=Path, default=Path("runs/gpu/requests.jsonl.gz"))
    parser.add_argument("--tokenizer", type=Path, default=Path("runs/gpu/tokenizer"))
    parser.add_argument("--sample", type=int, default=2000, help="instances drawn at random (seeded)")
    parser.add_argument("--device", default="cuda" if _cuda_available() else "cpu")
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
        batches, reads, waits = reads_and_waits(backend, requests)
        counts = f"{sum(reads.values())} reads of device values"
        if backend.device.type == "cuda":
            counts += f", {sum(waits.values())} waits for the stream ({sum(waits.values()) / batches:.2f} per batch)"
        print(f"{layout}: {batches} batches, {counts}")
        for line, count in (reads + waits).most_common(6):
            print(f"    {count:6d}  {line}")


def _cuda_available() -> bool:
    import torch

    return torch.cuda.is_available()


if __name__ == "__main__":
    main()
