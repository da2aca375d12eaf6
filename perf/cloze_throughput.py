"""Cloze scoring throughput: corefbias's ``hf:`` backend against lm-evaluation-harness 0.4.13's ``hf``, CPU or GPU.

    .venv/bin/python perf/cloze_throughput.py --mirror ../shared/data \\
        [--model FILE.gguf | --architecture tiny|llama-1b|llama-8b [--tokenizer FILE.gguf]] \\
        [--device cpu|cuda] [--dtype float32|bfloat16] [--benchmarks winogender ...|all] [--limit N] [--sample N] \\
        [--threads 1] [--ours-layouts prefix-sharing right-padded prefix-tree] [--ours-batch-tokens 4096 ...] \\
        [--ours-row-tokens 256 512] \\
        [--ours-tokenize-ahead off on] [--ours-cudnn-attention off on] [--call-size 4096] \\
        [--lm-eval-batch-sizes 1 16] [--lm-eval-cudnn-attention on off] \\
        [--peak-flops 989e12]

Both sides score the same requests (by default Winogender's 720 instances, two options each; the seven original
benchmarks, 39 724 instances, are what docs/performance.md times), as ``corefbias run`` renders them for ``hf:``,
with the same model object on the same device, one setting after the other, in one process. Only the scoring is timed,
from strings to log-likelihoods, tokenization included; loading is not:

* the model: a GGUF file (``--model``, default SmolLM2-135M-Instruct, the file ``services/llamacpp/setup.sh``
  fetches), loaded by ``hf_causal_lm.load``; or random weights in a named shape (``--architecture``:
  ``llama-1b`` is Llama-3.2-1B's, 1.24 B parameters, ``llama-8b`` Llama-3.1-8B's, 8.03 B, ``tiny`` two layers
  of 64), built from a ``transformers.LlamaConfig`` on the device, nothing downloaded, with the tokenizer of a
  local GGUF (``--tokenizer``, default SmolLM2's);
* corefbias: ``TransformersBackend.loglikelihoods`` per layout (``--ours-layouts``: ``prefix-sharing``,
  ``right-padded``, ``prefix-tree`` with its rows' widths, ``--ours-row-tokens``), token budget
  (``--ours-batch-tokens``), tokenizing ahead or not (``--ours-tokenize-ahead``) and cuDNN's attention off (its
  default) or on (``--ours-cudnn-attention``), in calls of ``--call-size`` instances as ``corefbias run`` hands them
  (``CALL_SIZE``);
* lm-eval: ``HFLM(pretrained=<the same model object>, tokenizer=<the same tokenizer>, batch_size=B,
  softmax_dtype=float32)``, its defaults otherwise (``logits_cache`` on, which computes one forward pass for
  options of one token after the same context), timing ``lm.loglikelihood`` on ``Instance("loglikelihood",
  ...)`` built from the same context/continuation pairs (what ``simple_evaluate`` hands it), with torch's choice of
  attention kernels as its users get them, or with cuDNN's left out as corefbias's passes leave them
  (``--lm-eval-cudnn-attention on off``).

Each side first scores a few requests untimed (warm-up). Decisions are the argmax of the summed
log-likelihoods (``acc``), compared with lm-eval's at its first batch size; a difference where lm-eval's
two options lie within 1e-4 is a tie. ``tokens computed / distinct``: the tokens the forward passes
computed, padding included (lm-eval's: the token ids it fed its model), per token of the least any method
computes (each distinct prefix of the contexts once, each option's tokens but its last). ``under a mask``: the
share of those tokens computed in passes with an attention mask, which on a GPU keeps attention off its fused
causal kernels (lm-eval's: none, it pads on the right and passes no mask). ``passes``: the model's forward passes
(each reads every weight and launches every layer's kernels once). ``attention shapes``: the distinct shapes of
query, key and mask that the passes' attention took, for each of which cuDNN's attention (torch's first choice on
recent NVIDIA cards; corefbias leaves it out) builds an execution plan on the host. ``tokenizing``: of corefbias's
seconds, those spent tokenizing before a call's first batch reaches the device.
``× FLOP bound`` (on a GPU): the seconds against 2 × parameters × distinct tokens ÷ the card's dense bf16
rate (``--peak-flops``; by default 989 TFLOP/s for an H100 SXM or H200 SXM, 756 for an H100 PCIe, from the
card's name). ``device→host bytes per request``: on a GPU every tensor that leaves the device during the
scoring of the first ``--count-requests`` instances, on a CPU the floating-point tensors that each
implementation's own code turns into host values (``cpu``, ``to("cpu")``, ``tolist``, ``item``, ``numpy``,
``float``), counted in an untimed pass.

A GPU machine may lack ``datasets`` and the GGUF: ``--save-requests FILE.jsonl.gz`` renders the requests here and
stops, ``--requests FILE.jsonl.gz`` reads them there, and ``--tokenizer`` takes a tokenizer folder (``save_pretrained``)
as well as a GGUF. Measured on the 2-core development machine and on a GPU: see docs/performance.md.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import random
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from corefbias.models.cloze_template import ClozeRequest
from corefbias.models.pass_layouts import BY_NAME
from corefbias.models.pass_layouts.prefix_tree import ROW_TOKENS
from corefbias.models.token_batches import distinct_tokens
from corefbias.models.transformers_backend import (
    CALL_SIZE,
    LAYOUTS,
    MAX_BATCH_TOKENS,
    TOKENIZE_AHEAD,
    TransformersBackend,
    cudnn_attention,
)

MODELS = Path.home() / ".cache" / "corefbias" / "llamacpp" / "models"  # where services/llamacpp/setup.sh puts them
DEFAULT_GGUF = MODELS / "SmolLM2-135M-Instruct.Q4_1.gguf"
WARM_UP = 8
TIE = 1e-4
# Llama-3.2-1B and Llama-3.1-8B's shapes (their config.json), and a tiny one for quick runs on a CPU.
ARCHITECTURES = {
    "llama-1b": dict(
        hidden_size=2048,
        intermediate_size=8192,
        num_hidden_layers=16,
        num_attention_heads=32,
        num_key_value_heads=8,
        head_dim=64,
        tie_word_embeddings=True,
        rope_theta=500000.0,
        vocab_size=128256,
    ),
    "llama-8b": dict(
        hidden_size=4096,
        intermediate_size=14336,
        num_hidden_layers=32,
        num_attention_heads=32,
        num_key_value_heads=8,
        head_dim=128,
        tie_word_embeddings=False,
        rope_theta=500000.0,
        vocab_size=128256,
    ),
    "tiny": dict(
        hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2
    ),
}
# Dense bf16 tensor-core FLOP/s by the card's name (NVIDIA's data sheets), the longest match first.
PEAK_FLOPS = (("H100 PCIe", 756e12), ("H100", 989e12), ("H200", 989e12))


def benchmark_requests(names: list[str], data_dir: Path | None, mirror, limit: int | None) -> list:
    """The cloze requests of ``names``' instances, in order, as ``corefbias run`` renders them."""
    from corefbias.benchmarks import resolve
    from corefbias.harness import benchmark_data

    data_dir = data_dir or benchmark_data.default_data_dir()
    requests = []
    for benchmark in resolve(names):
        rows = []
        for config, split in benchmark.parts:
            rows.extend(benchmark_data.load_part(benchmark, config, split, data_dir, mirror))
        requests.extend(benchmark.task.cloze.render(row) for row in (rows[:limit] if limit else rows))
    return requests


def save_requests(requests: list, path: Path, names: list[str] | None = None) -> None:
    """One line per request: its fields, then its benchmark's name if ``names`` gives one per request."""
    with gzip.open(path, "wt", encoding="utf-8") as file:
        for index, request in enumerate(requests):
            fields = [request.context, request.choices, request.candidate_of, request.delimiter]
            file.write(json.dumps(fields + ([names[index]] if names else [])) + "\n")


def read_requests(path: Path, *, named: bool = False) -> list:
    """``save_requests``'s requests; with ``named``, (benchmark name, request) pairs ("requests" where none was
    saved)."""
    found = []
    with gzip.open(path, "rt", encoding="utf-8") as file:
        for context, choices, candidate_of, delimiter, *name in map(json.loads, file):
            request = ClozeRequest(context, tuple(choices), tuple(candidate_of), delimiter)
            found.append((name[0] if name else "requests", request) if named else request)
    return found


def random_model(architecture: str, tokenizer, device: str, dtype: str, **narrowed):
    """A causal LM of a named shape with random weights (seeded), built on ``device`` in ``dtype``; ``narrowed``
    overrides fields of the shape (``pass_overhead.py``: its widths), and ``tokenizer`` may then be None."""
    import torch
    import transformers

    tokens = (
        {}
        if tokenizer is None
        else dict(vocab_size=len(tokenizer), bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id)
    )
    shape = {**tokens, **ARCHITECTURES[architecture], **narrowed}
    config = transformers.LlamaConfig(**shape, max_position_embeddings=8192)
    torch.manual_seed(0)
    with torch.device(device):
        model = transformers.AutoModelForCausalLM.from_config(config, dtype=getattr(torch, dtype))
    return model.eval()


def load(args):
    """The backend (``TransformersBackend``) and a description of its model."""
    import torch
    import transformers

    from corefbias.models import hf_causal_lm

    if args.architecture is None:
        dtype = args.dtype or ("bfloat16" if args.device == "cuda" else None)
        backend = hf_causal_lm.load(str(args.model), device=args.device, dtype=dtype).backend
        return backend, args.model.name
    gguf = args.tokenizer
    tokenizer = (
        transformers.AutoTokenizer.from_pretrained(str(gguf))
        if gguf.is_dir()
        else transformers.AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    )
    dtype = args.dtype or ("bfloat16" if args.device == "cuda" else "float32")
    vocabulary = {"vocab_size": args.vocab_size} if args.vocab_size else {}
    model = random_model(args.architecture, tokenizer, args.device, dtype, **vocabulary)
    identity = {"kind": "hf", "weights": {"random": args.architecture}}
    backend = TransformersBackend(model, tokenizer, identity=identity)
    torch.set_grad_enabled(False)
    return backend, f"random {args.architecture} ({dtype}, tokenizer of {gguf.name})"


def ours(backend, requests, budget: int, call_size: int, layout: str, ahead: bool, cudnn: bool) -> dict:
    backend.max_batch_tokens, backend.layout, backend.tokenize_ahead = budget, layout, ahead
    backend.cudnn_attention = cudnn
    backend.loglikelihoods(requests[:WARM_UP])
    backend.stats = stats = type(backend.stats)()
    lls, seconds, shapes = timed(backend.device, lambda: in_calls(backend.loglikelihoods, requests, call_size))
    return {
        "seconds": seconds,
        "loglikelihoods": lls,
        "computed": stats.computed,
        "masked": stats.masked,
        "passes": stats.forward_passes,
        "shapes": len(shapes),
        "tokenizing": stats.tokenizing_seconds,
    }


def lm_eval_model(backend, batch_size: int):
    """lm-eval's ``HFLM`` on the backend's model and tokenizer, counting the token ids it feeds the model."""
    from lm_eval.models.huggingface import HFLM

    lm = HFLM(pretrained=backend.model, tokenizer=backend.tokenizer, batch_size=batch_size, softmax_dtype="float32")
    lm.fed = lm.passes = 0
    call = lm._model_call

    def counted(inps, *args, **kwargs):
        lm.fed += inps.numel()
        lm.passes += 1
        return call(inps, *args, **kwargs)

    lm._model_call = counted
    return lm


def in_calls(answer, requests: list, call_size: int) -> list:
    """``answer``'s answers to ``requests`` handed to it ``call_size`` at a time, as ``corefbias run`` hands them."""
    return [
        found for start in range(0, len(requests), call_size) for found in answer(requests[start : start + call_size])
    ]


def lm_eval_instances(requests) -> list:
    """What ``simple_evaluate`` hands ``lm.loglikelihood``: one ``Instance`` per option of every request."""
    from lm_eval.api.instance import Instance

    pairs = [(request.context, continuation) for request in requests for continuation in request.continuations]
    return [Instance("loglikelihood", {}, pair, index) for index, pair in enumerate(pairs)]


def per_request(flat: list[float], requests) -> list[list[float]]:
    """One answer per option, in order, grouped by request."""
    answers = iter(flat)
    return [[next(answers) for _ in request.continuations] for request in requests]


def lm_eval_loglikelihoods(lm, requests) -> list[list[float]]:
    """lm-eval's ``lm.loglikelihood`` on every option of ``requests``, grouped by request."""
    found = lm.loglikelihood(lm_eval_instances(requests), disable_tqdm=True)
    return per_request([ll for ll, _ in found], requests)


def theirs(backend, requests, batch_size: int, cudnn: bool) -> dict:
    lm = lm_eval_model(backend, batch_size)
    with cudnn_attention(cudnn):
        lm_eval_loglikelihoods(lm, requests[:WARM_UP])
        lm.fed = lm.passes = 0
        lls, seconds, shapes = timed(backend.device, lambda: lm_eval_loglikelihoods(lm, requests))
    # lm-eval pads its batches on the right and calls the model with no attention mask
    return {
        "seconds": seconds,
        "loglikelihoods": lls,
        "computed": lm.fed,
        "masked": 0,
        "passes": lm.passes,
        "shapes": len(shapes),
    }


def timed(device, score):
    """``score()``'s answer, its seconds once the device has finished, and the distinct attention shapes it took."""
    synchronize(device)
    started = time.perf_counter()
    with attention_shapes() as shapes:
        answer = score()
    synchronize(device)
    return answer, time.perf_counter() - started, shapes


@contextmanager
def attention_shapes():
    """The distinct shapes of query, key and mask that ``scaled_dot_product_attention`` is called with inside (a set,
    filled as it goes): cuDNN's attention builds an execution plan on the host for each new one."""
    import torch

    attention = torch.nn.functional.scaled_dot_product_attention
    seen = set()

    def counted(query, key, value, attn_mask=None, *args, **kwargs):
        seen.add((query.shape, key.shape, None if attn_mask is None else attn_mask.shape))
        return attention(query, key, value, attn_mask, *args, **kwargs)

    torch.nn.functional.scaled_dot_product_attention = counted
    try:
        yield seen
    finally:
        torch.nn.functional.scaled_dot_product_attention = attention


def synchronize(device) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize()


@contextmanager
def host_bytes(device, modules: tuple[str, ...]):
    """A one-item list counting the bytes turned into host values while the block runs: on a GPU every tensor on
    the device that is copied to the host, on a CPU the floating-point ones that code of ``modules`` turns into
    host values."""
    import torch

    counted = [0]
    originals = {name: getattr(torch.Tensor, name) for name in ("cpu", "to", "tolist", "item", "numpy", "__float__")}

    def counting(name, original):
        def method(self, *args, **kwargs):
            if name == "to" and "cpu" not in map(str, (*args, *kwargs.values())):
                return original(self, *args, **kwargs)
            if device.type != "cpu":
                leaves = self.device.type != "cpu"
            else:  # the values computed, not the token ids handed to the model
                leaves = self.is_floating_point() and sys._getframe(1).f_globals.get("__name__", "").startswith(modules)
            if leaves:
                counted[0] += self.numel() * self.element_size()
            return original(self, *args, **kwargs)

        return method

    for name, original in originals.items():
        setattr(torch.Tensor, name, counting(name, original))
    try:
        yield counted
    finally:
        for name, original in originals.items():
            setattr(torch.Tensor, name, original)


def argmax(values) -> int:
    return max(range(len(values)), key=lambda i: (values[i], -i))


def agreement(lls, reference) -> tuple[int, int, float]:
    """Same decisions, differences where the reference's best option leads by more than ``TIE``, max |Δ|."""
    same = sum(argmax(a) == argmax(b) for a, b in zip(lls, reference))
    real = sum(argmax(a) != argmax(b) and sorted(b)[-1] - sorted(b)[-2] > TIE for a, b in zip(lls, reference))
    delta = max(abs(x - y) for a, b in zip(lls, reference) for x, y in zip(a, b))
    return same, real, delta


def peak_flops(args, device) -> float | None:
    if args.peak_flops:
        return args.peak_flops
    if device.type != "cuda":
        return None
    import torch

    name = torch.cuda.get_device_name(device)
    return next((rate for card, rate in PEAK_FLOPS if card in name), None)


def switches(parser, flag: str, help: str, default: str | None = None) -> None:
    """A setting timed on, off or both in turn (``on off``: one row each)."""
    parser.add_argument(
        flag, nargs="+", choices=("off", "on"), default=None if default is None else [default], help=help
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", help="upstream mirror (e.g. ../shared/data)")
    parser.add_argument("--data-dir", type=Path, help="exported sets (default: corefbias run's)")
    parser.add_argument("--save-requests", type=Path, help="write the rendered requests here (.jsonl.gz) and stop")
    parser.add_argument("--requests", type=Path, help="read the requests from --save-requests's file instead")
    parser.add_argument("--benchmarks", nargs="+", default=["winogender"], help="benchmark names, or all")
    parser.add_argument("--limit", type=int, help="only the first N instances of each benchmark part")
    parser.add_argument("--sample", type=int, help="a random sample of N of the instances (seed 0), in their order")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--model", type=Path, default=DEFAULT_GGUF, help="a .gguf file")
    source.add_argument("--architecture", choices=sorted(ARCHITECTURES), help="random weights of this shape")
    parser.add_argument(
        "--tokenizer", type=Path, default=DEFAULT_GGUF, help="the .gguf or tokenizer folder --architecture uses"
    )
    parser.add_argument(
        "--vocab-size",
        type=int,
        help="--architecture's vocabulary (default: its own, tiny's the tokenizer's): 128256 on tiny plans the passes "
        "of llama-1b on a CPU",
    )
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--dtype", help="float32, bfloat16... (default: bfloat16 on cuda, else the model's)")
    parser.add_argument("--threads", type=int, help="torch's CPU threads (default: torch's, one per core)")
    parser.add_argument("--ours-batch-tokens", type=int, nargs="+", help="token budgets (default: the device's)")
    parser.add_argument("--call-size", type=int, help="instances per call (default: CALL_SIZE, as corefbias run)")
    parser.add_argument(
        "--ours-layouts",
        nargs="+",
        choices=list(BY_NAME),
        help="corefbias's layouts, each at every budget (default: the device's, LAYOUTS)",
    )
    parser.add_argument(
        "--ours-row-tokens", type=int, nargs="+", help="the prefix-tree layout's row widths (default: ROW_TOKENS)"
    )
    switches(
        parser,
        "--ours-tokenize-ahead",
        "tokenize the rest of a call while its longest eighth is scored, or not (default: TOKENIZE_AHEAD)",
    )
    switches(
        parser,
        "--ours-cudnn-attention",
        "let torch take cuDNN's attention kernels in corefbias's passes, or not (default: off, as hf: runs)",
        "off",
    )
    parser.add_argument("--lm-eval-batch-sizes", type=int, nargs="*", default=[1, 16], help="none: skip lm-eval")
    switches(
        parser,
        "--lm-eval-cudnn-attention",
        "lm-eval with torch's choice of attention kernels (on: what its users get), or with cuDNN's left out",
        "on",
    )
    parser.add_argument("--peak-flops", type=float, help="the card's dense bf16 FLOP/s (default: by its name)")
    parser.add_argument("--count-requests", type=int, default=500, help="instances of the host-bytes count; 0: none")
    args = parser.parse_args(argv)
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    if args.requests:
        requests = read_requests(args.requests)
    else:
        requests = benchmark_requests(args.benchmarks, args.data_dir, args.mirror, args.limit)
    if args.sample is not None and args.sample < len(requests):
        chosen = sorted(random.Random(0).sample(range(len(requests)), args.sample))
        requests = [requests[index] for index in chosen]
    if args.save_requests:
        save_requests(requests, args.save_requests)
        print(f"{len(requests)} instances written to {args.save_requests}")
        return
    pairs = sum(len(request.continuations) for request in requests)
    started = time.perf_counter()
    backend, described = load(args)
    parameters = sum(parameter.numel() for parameter in backend.model.parameters())
    distinct = distinct_tokens(backend.encode_requests(requests))
    rate = peak_flops(args, backend.device)
    bound = 2 * parameters * distinct / rate if rate else None
    card = (
        f"{torch.cuda.get_device_name(backend.device)}, cuDNN {torch.backends.cudnn.version()}"
        if backend.device.type == "cuda"
        else f"CPU, {torch.get_num_threads()} threads"
    )
    dtype = str(backend.model.dtype).removeprefix("torch.")
    print(f"{described}: {parameters / 1e9:.3f} B parameters, {dtype}, on {card}")
    loaded = time.perf_counter() - started
    print(f"{len(requests)} instances, {pairs} requests, {distinct} distinct tokens (loaded in {loaded:.1f} s)")
    if bound:
        print(f"FLOP bound: 2 × parameters × distinct tokens ÷ {rate / 1e12:.0f} TFLOP/s = {bound:.2f} s")

    rows = []
    for batch_size in args.lm_eval_batch_sizes:
        for cudnn in [choice == "on" for choice in args.lm_eval_cudnn_attention]:
            setting = f"batch {batch_size}" + ("" if cudnn else ", no cuDNN attention")
            rows.append(("lm-eval 0.4.13 hf", setting, theirs(backend, requests, batch_size, cudnn)))
    call_size = args.call_size or CALL_SIZE
    device = backend.device.type
    settings = itertools.product(
        args.ours_layouts or [LAYOUTS[device]],
        args.ours_batch_tokens or [MAX_BATCH_TOKENS[device]],
        [choice == "on" for choice in args.ours_tokenize_ahead or []] or [TOKENIZE_AHEAD[device]],
        [choice == "on" for choice in args.ours_cudnn_attention],
    )
    for layout, budget, ahead, cudnn in settings:
        # rows are the prefix-tree layout's alone
        for row_tokens in (args.ours_row_tokens or [ROW_TOKENS[device]]) if layout == "prefix-tree" else [None]:
            setting = f"{layout}, {budget} tokens" + (f", rows of {row_tokens}" if row_tokens else "")
            setting += f", calls of {call_size}" + (", tokenizing ahead" if ahead else "")
            setting += ", cuDNN attention" if cudnn else ""
            backend.row_tokens = row_tokens or backend.row_tokens
            rows.append(("corefbias hf:", setting, ours(backend, requests, budget, call_size, layout, ahead, cudnn)))
    reference = rows[0][2]["loglikelihoods"]
    best_lm_eval = min((run["seconds"] for name, _, run in rows if name.startswith("lm-eval")), default=None)
    header = (
        f"{'implementation':<18} {'setting':>62} {'seconds':>8} {'tokenizing':>10} {'inst/s':>8} {'req/s':>8} "
        f"{'× lm-eval best':>14} {'tokens computed / distinct':>26} {'passes':>7} {'attention shapes':>16} "
        f"{'under a mask':>12} {'× FLOP bound':>12} {'same decisions':>15} "
        f"{'not ties':>8} {'max |ΔLL|':>9}"
    )
    print(header)
    print("-" * len(header))
    for name, setting, run in rows:
        seconds = run["seconds"]
        relative = f"{best_lm_eval / seconds:.2f}×" if best_lm_eval else "—"
        flops = f"{seconds / bound:.1f}" if bound else "—"
        same, real, delta = agreement(run["loglikelihoods"], reference)
        computed, decided = f"{run['computed'] / distinct:.2f}", f"{same}/{len(requests)}"
        masked = f"{run['masked'] / run['computed']:.0%}"
        tokenizing = f"{run['tokenizing']:.1f}" if "tokenizing" in run else "—"  # lm-eval's is not apart
        print(
            f"{name:<18} {setting:>62} {seconds:>8.1f} {tokenizing:>10} {len(requests) / seconds:>8.1f} "
            f"{pairs / seconds:>8.1f} "
            f"{relative:>14} {computed:>26} {run['passes']:>7} {run['shapes']:>16} {masked:>12} {flops:>12} "
            f"{decided:>15} {real:>8} "
            f"{delta:>9.1e}"
        )

    if not args.count_requests:
        return
    counted = requests[: args.count_requests]
    counted_pairs = sum(len(request.continuations) for request in counted)
    with host_bytes(backend.device, ("corefbias",)) as ours_bytes:
        backend.loglikelihoods(counted)
    line = f"device→host bytes per request ({len(counted)} instances): corefbias {ours_bytes[0] / counted_pairs:.1f}"
    if args.lm_eval_batch_sizes:
        lm = lm_eval_model(backend, args.lm_eval_batch_sizes[-1])
        with host_bytes(backend.device, ("lm_eval",)) as their_bytes:
            lm_eval_loglikelihoods(lm, counted)
        line += f", lm-eval (batch {args.lm_eval_batch_sizes[-1]}) {their_bytes[0] / counted_pairs:.1f}"
    print(line)


if __name__ == "__main__":
    main()
