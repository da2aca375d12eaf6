"""``hf:<Hub id[@revision] | local folder | file.gguf>``: a causal language model through ``transformers``,
scored by log-likelihood (cloze; ``corefbias.models.cloze``) — what lm-evaluation-harness calls ``--model hf``.

**Loading.** ``AutoModelForCausalLM`` and ``AutoTokenizer``: safetensors only, never
``trust_remote_code``; a ``.gguf`` file through transformers' GGUF loader (``gguf_file=``, needs the
``gguf`` package; the weights are dequantized). ``device`` is ``cpu``, ``cuda[:N]``, ``mps`` or ``auto``;
``dtype`` is ``auto`` (what the checkpoint says) or a torch dtype name; further keyword options go to
``from_pretrained`` unchanged (``corefbias run --model-arg KEY=VALUE``).

**The same numbers as lm-eval 0.4.** A context and a continuation are tokenized as lm-eval's ``hf``
backend does (``HFLM._encode_pair``): whitespace at the end of the context moves to the continuation; the
continuation's tokens are those of ``context + continuation`` after the context's own tokens; special
tokens are added only where lm-eval adds a BOS token (Gemma models). The log-likelihood is the sum of the
continuation tokens' log-softmax.

**Fast.** Each instance's context is computed once: one forward pass over a batch of contexts (left-padded,
positions counted from each context's first token) keeps their key/value cache; the cache is copied to one
row per option, and one more pass computes every option's tokens from it. Only the logits the sums need are
computed (``logits_to_keep``), which matters for large vocabularies (Gemma 3: 262 144 tokens). Instances
are sorted by length into batches of ``batch_size``. ``stats`` counts the tokens the batches computed
(padding included) against the least any method must compute (each context once, each option's tokens).
Padding and batching change floating-point sums in their last bits, so an option whose log-likelihood ties
another's within about 1e-5 may be decided differently from lm-eval's unbatched pass.

**Identity**: the weights (a Hub id and the snapshot commit of the local cache, or the file or folder's
fingerprint), the dtype the model runs in, the tokenization (BOS or not), and the library versions; the
benchmark's template is added per benchmark by the runner. Where the model runs (device, batch size) is not.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .base import ModelError
from .cloze import ClozeModel
from .cloze_template import ClozeRequest
from .identity import library_versions, weights_identity

DEVICES = ("cpu", "cuda", "mps", "auto")


@dataclass
class TokenStats:
    """Tokens the forward passes computed (padding included) and the least the requests need."""

    computed: int = 0
    needed: int = 0
    forward_passes: int = 0


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


def adds_bos_token(config) -> bool:
    """Whether lm-eval 0.4's ``hf`` backend prepends BOS to every context: for Gemma models only."""
    return "gemma" in str(getattr(config, "model_type", "")).lower()


class TransformersBackend:
    """Log-likelihoods of continuations from a loaded causal LM (see the module docstring)."""

    def __init__(self, model, tokenizer, *, batch_size: int, identity: dict):
        self.model, self.tokenizer, self.batch_size = model, tokenizer, batch_size
        self.add_special_tokens = adds_bos_token(model.config)
        self.identity = {**identity, "tokenization": {"lm_eval_pair_split": True, "bos": self.add_special_tokens}}
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else (tokenizer.eos_token_id or 0)
        self.stats = TokenStats()

    def encode(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=self.add_special_tokens)["input_ids"]

    def encode_pair(self, context: str, continuation: str) -> tuple[list[int], list[int]]:
        """lm-eval's ``_encode_pair``: context tokens, and the continuation's as the tail of the whole's."""
        spaces = len(context) - len(context.rstrip())
        if spaces:
            context, continuation = context[:-spaces], context[-spaces:] + continuation
        whole, context_ids = self.encode(context + continuation), self.encode(context)
        return context_ids, whole[len(context_ids) :]

    def loglikelihoods(self, requests: list[ClozeRequest]) -> list[list[float]]:
        encoded = []
        for request in requests:
            pairs = [self.encode_pair(request.context, continuation) for continuation in request.continuations]
            contexts = {tuple(context) for context, _ in pairs}
            if len(contexts) != 1:  # the context's trailing whitespace moved: contexts differ per option
                raise ModelError(f"options of one instance tokenized with different contexts: {request.context!r}")
            encoded.append((pairs[0][0], [continuation for _, continuation in pairs]))
        order = sorted(range(len(encoded)), key=lambda i: -(len(encoded[i][0]) + max(map(len, encoded[i][1]))))
        results: list[list[float]] = [[] for _ in encoded]
        for start in range(0, len(order), self.batch_size):
            chosen = order[start : start + self.batch_size]
            for index, scores in zip(chosen, self._score_batch([encoded[i] for i in chosen])):
                results[index] = scores
        return results

    def _score_batch(self, items: list[tuple[list[int], list[list[int]]]]) -> list[list[float]]:
        import torch

        device = self.model.device
        widest = max(len(context) for context, _ in items)
        ids = torch.full((len(items), widest), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(items), widest), dtype=torch.long)
        for row, (context, _) in enumerate(items):
            ids[row, widest - len(context) :] = torch.tensor(context)
            mask[row, widest - len(context) :] = 1
        lengths = mask.sum(dim=1)
        positions = (mask.cumsum(dim=1) - 1).clamp(min=0)
        with torch.inference_mode():
            out = self.model(
                input_ids=ids.to(device),
                attention_mask=mask.to(device),
                position_ids=positions.to(device),
                use_cache=True,
                logits_to_keep=1,
            )
            first = torch.log_softmax(out.logits[:, -1, :].float(), dim=-1).cpu()
            rows = [(item, option) for item, (_, options) in enumerate(items) for option in range(len(options))]
            continuations = [items[item][1][option] for item, option in rows]
            fed = max(len(tokens) - 1 for tokens in continuations)
            self.stats.computed += ids.numel() + len(rows) * fed
            self.stats.needed += int(lengths.sum()) + sum(len(tokens) for tokens in continuations)
            self.stats.forward_passes += 1 + (fed > 0)
            later = None
            if fed > 0:
                cache = out.past_key_values
                cache.reorder_cache(torch.tensor([item for item, _ in rows], device=device))
                tail = torch.full((len(rows), fed), self.pad_id, dtype=torch.long)
                tail_mask = torch.zeros((len(rows), fed), dtype=torch.long)
                for row, tokens in enumerate(continuations):
                    tail[row, : len(tokens) - 1] = torch.tensor(tokens[:-1], dtype=torch.long)
                    tail_mask[row, : len(tokens) - 1] = 1
                row_items = torch.tensor([item for item, _ in rows])
                tail_positions = lengths[row_items][:, None] + torch.arange(fed)[None, :]
                out = self.model(
                    input_ids=tail.to(device),
                    attention_mask=torch.cat([mask[row_items], tail_mask], dim=1).to(device),
                    position_ids=tail_positions.to(device),
                    past_key_values=cache,
                    use_cache=True,
                )
                later = torch.log_softmax(out.logits.float(), dim=-1).cpu()
        scores: list[list[float]] = [[] for _ in items]
        for row, ((item, _), tokens) in enumerate(zip(rows, continuations)):
            total = first[item, tokens[0]]
            if len(tokens) > 1:
                total = total + later[row, torch.arange(len(tokens) - 1), torch.tensor(tokens[1:])].sum()
            scores[item].append(float(total))
        return scores


def load(
    argument: str,
    kind: str = "hf",
    device: str = "cpu",
    dtype: str = "auto",
    batch_size: int = 16,
    cloze_norm: str = "none",
    **loader_options,
) -> ClozeModel:
    """The causal LM ``argument`` names, as a cloze-scored choice model (see the module docstring)."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    if loader_options.get("trust_remote_code"):
        raise ValueError("hf: models never run code from their repository (trust_remote_code is refused)")
    import torch
    import transformers

    location = WeightsLocation.parse(argument)
    device = pick_device(device)
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
        raise ModelError(f"hf:{argument} could not be loaded: {error}") from error
    model.to(device).eval()
    identity = {
        "kind": kind,
        "weights": location.identity,
        "model_class": type(model).__name__,
        "dtype": str(model.dtype).removeprefix("torch."),
        "loader_options": {key: repr(value) for key, value in sorted(loader_options.items())},
        "libraries": library_versions("transformers", "torch", "gguf"),
    }
    backend = TransformersBackend(model, tokenizer, batch_size=batch_size, identity=identity)
    return ClozeModel(f"{kind}:{argument}", backend, cloze_norm)
