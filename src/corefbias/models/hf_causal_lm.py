"""``hf:<Hub id[@revision] | local folder | file.gguf>``: a causal language model through ``transformers``,
scored by log-likelihood (cloze; ``corefbias.models.cloze``) — what lm-evaluation-harness calls ``--model hf``.

**Loading.** ``AutoModelForCausalLM`` and ``AutoTokenizer``: safetensors only, never
``trust_remote_code``; a ``.gguf`` file through transformers' GGUF loader (``gguf_file=``, needs the
``gguf`` package; the weights are dequantized). ``device`` is ``cpu``, ``cuda[:N]``, ``mps`` or ``auto``;
``dtype`` is ``auto`` (what the checkpoint says) or a torch dtype name; further keyword options go to
``from_pretrained`` unchanged (``corefbias run --model-arg KEY=VALUE`` for those the kind declares,
``corefbias.models.built_in``).

**The same numbers as lm-eval 0.4.13.** A context and a continuation are tokenized as lm-eval's ``hf``
backend does (``HFLM._encode_pair`` and ``tok_encode``): whitespace at the end of the context moves to the
continuation; the continuation's tokens are those of ``context + continuation`` after the context's own
tokens; both are encoded with the tokenizer's default special tokens (``add_special_tokens`` left unset, so
a tokenizer that prepends BOS, as Gemma's does, prepends it, and one that does not, as SmolLM2's, does
not), except that a text already starting with the BOS token's text gets none; an empty context is the
BOS token (else EOS) alone. The log-likelihood is the sum of the continuation tokens' log-softmax
(computed in float32). On Winogender's 720 instances this gives lm-eval's decisions on all 720 with
SmolLM2-135M-Instruct and Gemma 3 270M (GGUF), log-likelihoods within 5e-5 (``tests/test_hf_cloze.py``,
``perf/cloze_throughput.py``).

**Fast.** Each context is computed once, and the first tokens that several contexts share once for them
all (Winogender's sentences differ from their minimal pair only from the pronoun on: a quarter fewer
tokens). Requests are grouped by shared prefix (in token order; ``shared_prefix_groups``) and whole groups
go into batches of ``batch_size`` instances. A batch takes two or three forward passes, each continuing the
key/value cache of the one before: (A) the prefixes, each once; (B) the rest of each context, left-padded,
positions counted on from its prefix, giving every option's first token; (C) only for options of more than
one token (few), their other tokens, from a copy of the cache per such option. Where pass A starts each
context's pass B (``split_points``) weighs pass B's padding against pass A's rows and the fixed cost of a
pass (it reads every weight). Only the logits the sums need are computed (``logits_to_keep``; none in pass
A), which matters for large vocabularies (Gemma 3: 262 144 tokens). ``stats`` counts the tokens the passes
computed (padding included) against what the requests need with each context computed once (``needed``)
and with each distinct prefix once (``distinct``; options' tokens but their last count in both). lm-eval
instead computes every option's whole sequence and the full vocabulary's logits at every position (it
shares one pass among options of one token after the same context). Splitting, padding and batching change
floating-point sums in their last bits (up to about 5e-5 here), so an option whose log-likelihood ties
another's within about 1e-4 may be decided differently from lm-eval's unbatched pass.

**Threads.** On CPU torch uses one thread per core by default, as lm-eval does; on a machine busy with
other work that can be many times slower than one thread (``load(..., threads=1)``, ``corefbias run
--model-arg threads=1``, or ``OMP_NUM_THREADS=1``): measure with ``perf/cloze_throughput.py``.

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
    """Tokens the forward passes computed (padding included); what the requests need with each context
    computed once (``needed``), and with each distinct prefix of the contexts computed once (``distinct``)."""

    computed: int = 0
    needed: int = 0
    distinct: int = 0
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


def adds_bos_token(tokenizer) -> bool:
    """Whether the tokenizer's default special tokens, which lm-eval 0.4.13's ``hf`` backend keeps, start with BOS."""
    bos = tokenizer.bos_token_id
    return bos is not None and tokenizer("a")["input_ids"][:1] == [bos]


class TransformersBackend:
    """Log-likelihoods of continuations from a loaded causal LM (see the module docstring)."""

    def __init__(self, model, tokenizer, *, batch_size: int, identity: dict):
        self.model, self.tokenizer, self.batch_size = model, tokenizer, batch_size
        self.add_special_tokens = adds_bos_token(tokenizer)
        self.identity = {**identity, "tokenization": {"lm_eval_pair_split": True, "bos": self.add_special_tokens}}
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else (tokenizer.eos_token_id or 0)
        # lm-eval's prefix_token_id: the context of an empty context, and the text that turns special tokens off
        self.prefix_id = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
        self.prefix_text = tokenizer.decode(self.prefix_id) if self.prefix_id is not None else None
        self.stats = TokenStats()

    def encode(self, text: str) -> list[int]:
        """lm-eval's ``tok_encode``: the tokenizer's default special tokens, none if ``text`` starts with BOS."""
        if self.prefix_text is not None and text.startswith(self.prefix_text):
            return self.tokenizer(text, add_special_tokens=False)["input_ids"]
        return self.tokenizer(text)["input_ids"]

    def encode_pair(self, context: str, continuation: str) -> tuple[list[int], list[int]]:
        """lm-eval's ``_encode_pair``: context tokens, and the continuation's as the tail of the whole's."""
        return self._encode_options(context, [continuation])[0]

    def _encode_options(self, context: str, continuations) -> list[tuple[list[int], list[int]]]:
        if not context:  # lm-eval's loglikelihood: the prefix token is the context
            pairs = []
            for continuation in continuations:
                tokens = self.tokenizer(continuation, add_special_tokens=False)["input_ids"]
                pairs.append(([self.prefix_id], tokens) if tokens[:1] != [self.prefix_id] else (tokens[:1], tokens[1:]))
            return pairs
        spaces = len(context) - len(context.rstrip())
        context, moved = (context[:-spaces], context[-spaces:]) if spaces else (context, "")
        context_ids = self.encode(context)
        return [
            (context_ids, self.encode(context + moved + continuation)[len(context_ids) :])
            for continuation in continuations
        ]

    def loglikelihoods(self, requests: list[ClozeRequest]) -> list[list[float]]:
        encoded: list[Item] = []
        for request in requests:
            pairs = self._encode_options(request.context, request.continuations)
            if len({tuple(context) for context, _ in pairs}) != 1:  # only an empty context can differ per option
                raise ModelError(f"options of one instance tokenized with different contexts: {request.context!r}")
            if not all(continuation for _, continuation in pairs):
                raise ModelError(f"an option of {request.context!r} tokenizes to nothing: {request.continuations!r}")
            encoded.append((pairs[0][0], [continuation for _, continuation in pairs]))
        self.stats.needed += sum(len(context) + sum(len(t) - 1 for t in options) for context, options in encoded)
        self.stats.distinct += distinct_tokens(encoded)
        results: list[list[float]] = [[] for _ in encoded]
        for batch in self._batches(encoded):
            for (index, _), scores in zip(batch, self._score_batch([(encoded[i], shared) for i, shared in batch])):
                results[index] = scores
        return results

    def _batches(self, encoded: list[Item]) -> list[list[tuple[int, int]]]:
        """Batches of ``(request index, tokens its context shares with its group's)``: whole groups, first fit,
        those with the longest unshared rest first."""
        groups = shared_prefix_groups([context for context, _ in encoded], self.batch_size)
        groups.sort(key=lambda group: (-max(len(encoded[i][0]) for i in group[0]) + group[1], -group[1]))
        batches: list[list[tuple[int, int]]] = []
        while groups:
            batch, left = [], []
            for members, shared in groups:
                if len(batch) + len(members) <= self.batch_size:
                    batch.extend((index, shared) for index in members)
                else:
                    left.append((members, shared))
            batches.append(batch)
            groups = left
        return batches

    def _score_batch(self, items: list[tuple[Item, int]]) -> list[list[float]]:
        """Pass A: the contexts' first tokens (prefixes shared in a group computed once); pass B: the rest of
        each context, giving each option's first token; pass C: the options' tokens after their first, for
        options of more than one token. Passes B and C continue the key/value cache of the one before."""
        import torch

        device = self.model.device
        contexts = [context for (context, _), _ in items]
        splits = split_points(contexts, [shared for _, shared in items])
        prefixes: dict[tuple[int, ...], int] = {}  # a prefix → its row in pass A
        for context, split in zip(contexts, splits):
            if split:
                prefixes.setdefault(tuple(context[:split]), len(prefixes))
        # The options of more than one token: their tokens after the first need pass C.
        longer = [
            (item, tokens) for item, ((_, options), _) in enumerate(items) for tokens in options if len(tokens) > 1
        ]
        cache, prefix_mask = None, torch.zeros((len(items), 0), dtype=torch.long)
        split_lengths = torch.tensor(splits)
        with torch.inference_mode():
            if prefixes:
                ids, mask = left_padded(list(prefixes), self.pad_id)
                out = self.model(
                    input_ids=ids.to(device),
                    attention_mask=mask.to(device),
                    position_ids=(mask.cumsum(dim=1) - 1).clamp(min=0).to(device),
                    use_cache=True,
                    logits_to_keep=torch.zeros(0, dtype=torch.long, device=device),  # no logits: the cache only
                )
                cache = out.past_key_values
                del out
                self._count(ids)
                rows = [prefixes[tuple(context[:split])] if split else 0 for context, split in zip(contexts, splits)]
                cache.reorder_cache(torch.tensor(rows, device=device))
                prefix_mask = mask[rows] * (split_lengths > 0)[:, None]  # a context split at 0 sees none of it
            ids, mask = left_padded([context[split:] for context, split in zip(contexts, splits)], self.pad_id)
            out = self.model(
                input_ids=ids.to(device),
                attention_mask=torch.cat([prefix_mask, mask], dim=1).to(device),
                position_ids=(split_lengths[:, None] + (mask.cumsum(dim=1) - 1).clamp(min=0)).to(device),
                past_key_values=cache,
                use_cache=bool(longer),
                logits_to_keep=1,
            )
            self._count(ids)
            first = torch.log_softmax(out.logits[:, -1, :].float(), dim=-1).cpu()
            later = None
            if longer:
                cache = out.past_key_values
                del out
                context_mask = torch.cat([prefix_mask, mask], dim=1)
                lengths = torch.tensor([len(context) for context in contexts])
                row_items = torch.tensor([item for item, _ in longer])
                cache.reorder_cache(row_items.to(device))
                fed = max(len(tokens) - 1 for _, tokens in longer)
                tail = torch.full((len(longer), fed), self.pad_id, dtype=torch.long)
                tail_mask = torch.zeros((len(longer), fed), dtype=torch.long)
                for row, (_, tokens) in enumerate(longer):
                    tail[row, : len(tokens) - 1] = torch.tensor(tokens[:-1], dtype=torch.long)
                    tail_mask[row, : len(tokens) - 1] = 1
                out = self.model(
                    input_ids=tail.to(device),
                    attention_mask=torch.cat([context_mask[row_items], tail_mask], dim=1).to(device),
                    position_ids=(lengths[row_items][:, None] + torch.arange(fed)[None, :]).to(device),
                    past_key_values=cache,
                    use_cache=False,
                )
                self._count(tail)
                later = torch.log_softmax(out.logits.float(), dim=-1).cpu()
        scores: list[list[float]] = [[] for _ in items]
        row = 0
        for item, ((_, options), _) in enumerate(items):
            for tokens in options:
                total = first[item, tokens[0]]
                if len(tokens) > 1:
                    total = total + later[row, torch.arange(len(tokens) - 1), torch.tensor(tokens[1:])].sum()
                    row += 1
                scores[item].append(float(total))
        return scores

    def _count(self, ids) -> None:
        self.stats.computed += ids.numel()
        self.stats.forward_passes += 1


Item = tuple[list[int], list[list[int]]]  # a context's tokens and each option's
MIN_SHARED = 4  # tokens a group's contexts must share to compute them once
PASS_COST = 32  # a forward pass reads every weight: on CPU about the cost of computing this many more tokens


def left_padded(sequences: list, pad_id: int):
    """Token ids left-padded to the longest, and their attention mask."""
    import torch

    widest = max(len(tokens) for tokens in sequences)
    ids = torch.full((len(sequences), widest), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), widest), dtype=torch.long)
    for row, tokens in enumerate(sequences):
        if tokens:
            ids[row, widest - len(tokens) :] = torch.tensor(tokens, dtype=torch.long)
            mask[row, widest - len(tokens) :] = 1
    return ids, mask


def common_prefix(first: list[int], second: list[int]) -> int:
    length = 0
    for a, b in zip(first, second):
        if a != b:
            break
        length += 1
    return length


def shared_prefix_groups(contexts: list[list[int]], largest: int) -> list[tuple[list[int], int]]:
    """Contexts (by index) in groups of at most ``largest`` that share a prefix, and its length in tokens.

    In lexicographic order, a context joins the group before it while the tokens the group saves (the
    shared length times the members after the first) do not drop and at least ``MIN_SHARED`` are shared;
    every member keeps at least its last token out of the prefix, and a group of one shares nothing.
    """
    groups: list[tuple[list[int], int]] = []
    members: list[int] = []
    shared = 0
    for index in sorted(range(len(contexts)), key=lambda i: contexts[i]):
        if members:
            joined = min(shared, common_prefix(contexts[members[0]], contexts[index]), len(contexts[index]) - 1)
            if len(members) < largest and joined >= MIN_SHARED and joined * len(members) >= shared * (len(members) - 1):
                members.append(index)
                shared = joined
                continue
            groups.append((members, shared if len(members) > 1 else 0))
        members, shared = [index], len(contexts[index]) - 1
    if members:
        groups.append((members, shared if len(members) > 1 else 0))
    return groups


def split_points(contexts: list[list[int]], shared: list[int]) -> list[int]:
    """Per context of a batch, how many of its first tokens pass A computes (0: none, all in pass B).

    At least what it shares with its group; more where that narrows pass B (its width is the longest rest
    over the batch, padding included) by more than the rows it adds to pass A cost. The least estimated
    cost wins, a pass counting as ``PASS_COST`` tokens; sharing nothing and no pass A is one candidate.
    """
    longest = max(map(len, contexts))
    best_cost, best = len(contexts) * longest, [0] * len(contexts)
    groups = [tuple(context[:start]) for context, start in zip(contexts, shared)]
    for width in range(1, max(len(context) - start for context, start in zip(contexts, shared)) + 1):
        splits = [max(start, len(context) - width) for context, start in zip(contexts, shared)]
        # Rows of pass A: a group's prefix once; a context split after it, its own row (an estimate: equal
        # contexts would share it).
        rows = {groups[i] if split == shared[i] else i for i, split in enumerate(splits) if split}
        cost = (PASS_COST + len(rows) * max(splits) if rows else 0) + len(contexts) * width
        if cost < best_cost:
            best_cost, best = cost, splits
    return best


def distinct_tokens(encoded: list[Item]) -> int:
    """The least any method computes: each distinct context prefix once, and each option's tokens but its last."""
    contexts = sorted(context for context, _ in encoded)  # in order, a context adds what it does not share
    prefixes = sum(len(context) - common_prefix(before, context) for before, context in zip([[]] + contexts, contexts))
    return prefixes + sum(len(tokens) - 1 for _, options in encoded for tokens in options)


def load(
    argument: str,
    kind: str = "hf",
    device: str = "cpu",
    dtype: str = "auto",
    batch_size: int = 64,
    cloze_norm: str = "none",
    threads: int | None = None,
    **loader_options,
) -> ClozeModel:
    """The causal LM ``argument`` names, as a cloze-scored choice model (see the module docstring).

    ``threads``: torch's CPU threads for the whole process (``torch.set_num_threads``; ``corefbias run
    --model-arg threads=1``); None keeps torch's default, one per core."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a positive whole number, got {threads!r}")
    if loader_options.get("trust_remote_code"):
        raise ValueError("hf: models never run code from their repository (trust_remote_code is refused)")
    import torch
    import transformers

    location = WeightsLocation.parse(argument)
    device = pick_device(device)
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
