"""``hf:<Hub id[@revision] | local folder | file.gguf>``: a causal language model through ``transformers``,
scored by log-likelihood (cloze; ``corefbias.models.cloze``) — what lm-evaluation-harness calls ``--model hf``.

**Loading.** ``AutoModelForCausalLM`` and ``AutoTokenizer``: safetensors only, never
``trust_remote_code``; a ``.gguf`` file through transformers' GGUF loader (``gguf_file=``, needs the
``gguf`` package; the weights are dequantized). ``device`` is ``cpu``, ``cuda[:N]``, ``mps`` or ``auto``;
``dtype`` is ``auto`` (what the checkpoint says) or a torch dtype name; further keyword options go to
``from_pretrained`` unchanged (``corefbias run --model-arg KEY=VALUE`` for those the kind declares,
``corefbias.models.built_in``).

**GPUs.** On CUDA the model runs in bfloat16 unless ``dtype`` says otherwise (the sums stay float32).
Scoring (lm-eval's numbers, the layouts of the forward passes, batching, rounding) is
``corefbias.models.transformers_backend``'s.

**Threads.** On CPU torch uses one thread per core by default, as lm-eval does; on a machine busy with
other work that can be many times slower than one thread (``load(..., threads=1)``, ``corefbias run
--model-arg threads=1``, or ``OMP_NUM_THREADS=1``): measure with ``perf/cloze_throughput.py``.

**Identity**: the weights (a Hub id and the snapshot commit of the local cache, or the file or folder's
fingerprint), the dtype the model runs in, the tokenization (BOS or not), and the library versions; the
benchmark's template is added per benchmark by the runner. Where the model runs (device, batch budget, call
size) is not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .base import ModelError
from .cloze import ClozeModel
from .identity import library_versions, weights_identity
from .transformers_backend import CALL_SIZE, TransformersBackend

DEVICES = ("cpu", "cuda", "mps", "auto")


@dataclass(frozen=True)
class WeightsLocation:
    """Where ``from_pretrained`` finds the model: a folder or Hub id, and a GGUF file name in it."""

    source: str
    gguf_file: str | None = None
    revision: str | None = None

    @classmethod
    def parse(cls, argument: str) -> WeightsLocation:
        path = Path(argument).expanduser()
        if argument.endswith(".gguf"):
            if not path.is_file():
                raise ModelError(f"no GGUF file {argument}")
            return cls(str(path.parent), gguf_file=path.name)
        if path.is_dir():
            return cls(str(path))
        if os.sep in argument.strip("/").replace("/", "", 1) or argument.startswith((".", "/", "~")):
            raise ModelError(f"{argument} is neither a local folder, a .gguf file nor a Hub id (owner/name[@revision])")
        repo, _, revision = argument.partition("@")
        return cls(repo, revision=revision or None)

    @property
    def identity(self) -> dict:
        if self.gguf_file is not None:
            return weights_identity(str(Path(self.source) / self.gguf_file))
        if Path(self.source).is_dir():
            return weights_identity(self.source)
        found = weights_identity(self.source)
        return {**found, "hub_revision": self.revision or found["hub_revision"]}


def pick_device(device: str) -> str:
    import torch

    if device == "auto":
        if torch.cuda.is_available():
            return "cuda"
        return "mps" if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available() else "cpu"
    if device.split(":")[0] not in DEVICES:
        raise ValueError(f"unknown device {device!r}; choose cpu, cuda, cuda:N, mps or auto")
    return device


def load(
    argument: str,
    kind: str = "hf",
    device: str = "cpu",
    dtype: str | None = None,
    max_batch_tokens: int | None = None,
    call_size: int = CALL_SIZE,
    layout: str | None = None,
    row_tokens: int | None = None,
    cloze_norm: str = "none",
    threads: int | None = None,
    **loader_options,
) -> ClozeModel:
    """The causal LM ``argument`` names, as a cloze-scored choice model (see the module docstring).

    ``dtype``: None runs bfloat16 on CUDA and the checkpoint's own dtype elsewhere (``auto``).
    ``max_batch_tokens``: the footprint of a batch (default ``MAX_BATCH_TOKENS`` of the device); ``call_size``:
    instances per call of ``corefbias run``; ``layout``: ``prefix-sharing``, ``right-padded`` or ``prefix-tree``
    (default ``LAYOUTS`` of the device); ``row_tokens``: the prefix-tree layout's rows (default ``ROW_TOKENS`` of
    the device). ``threads``: torch's CPU threads for the whole process
    (``torch.set_num_threads``; ``corefbias run --model-arg threads=1``); None keeps torch's default, one per
    core."""
    whole_numbers = {
        "max_batch_tokens": max_batch_tokens,
        "call_size": call_size,
        "row_tokens": row_tokens,
        "threads": threads,
    }
    for name, value in whole_numbers.items():
        if value is not None and (not isinstance(value, int) or value < 1):
            raise ValueError(f"{name} must be a positive whole number, got {value!r}")
    if "batch_size" in loader_options:
        raise ValueError("hf: models batch by tokens: give max_batch_tokens (a batch's tokens, padding included)")
    if loader_options.get("trust_remote_code"):
        raise ValueError("hf: models never run code from their repository (trust_remote_code is refused)")
    import torch
    import transformers

    location = WeightsLocation.parse(argument)
    device = pick_device(device)
    if dtype is None:
        dtype = "bfloat16" if device.startswith("cuda") else "auto"
    if threads is not None:
        torch.set_num_threads(threads)
    options = {"trust_remote_code": False, **loader_options}
    if location.gguf_file is not None:
        options["gguf_file"] = location.gguf_file
    else:
        options["use_safetensors"] = True
    if location.revision is not None:
        options["revision"] = location.revision
    if dtype != "auto" and not isinstance(getattr(torch, dtype, None), torch.dtype):
        raise ValueError(f"unknown dtype {dtype!r}; use auto or a torch dtype such as float32, bfloat16, float16")
    tokenizer_options = {key: options[key] for key in ("gguf_file", "revision") if key in options}
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(location.source, **tokenizer_options)
        model = transformers.AutoModelForCausalLM.from_pretrained(location.source, dtype=dtype, **options)
    except (OSError, ValueError) as error:
        offline = (
            ""
            if Path(location.source).is_dir()
            else " (a Hub id is read from the Hub or the Hugging Face cache; offline, give a local folder or a .gguf "
            "file, and set HF_HUB_OFFLINE=1 so that the Hub is not tried, for a minute, first)"
        )
        raise ModelError(f"hf:{argument} could not be loaded{offline}: {error}") from error
    model.to(device).eval()
    identity = {
        "kind": kind,
        "weights": location.identity,
        "model_class": type(model).__name__,
        "dtype": str(model.dtype).removeprefix("torch."),
        "loader_options": {key: repr(value) for key, value in sorted(loader_options.items())},
        "libraries": library_versions("transformers", "torch", "gguf"),
    }
    backend = TransformersBackend(
        model,
        tokenizer,
        identity=identity,
        max_batch_tokens=max_batch_tokens,
        call_size=call_size,
        layout=layout,
        row_tokens=row_tokens,
    )
    return ClozeModel(f"{kind}:{argument}", backend, cloze_norm)
