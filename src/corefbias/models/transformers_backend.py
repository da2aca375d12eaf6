"""How ``hf:`` scores cloze requests with a loaded ``transformers`` causal LM (``TransformersBackend``; loading is
``corefbias.models.hf_causal_lm``'s).

**The same numbers as lm-eval 0.4.13.** A context and a continuation are tokenized as lm-eval's ``hf``
backend does (``HFLM._encode_pair`` and ``tok_encode``): whitespace at the end of the context moves to the
continuation; the continuation's tokens are those of ``context + continuation`` after the context's own
tokens; both are encoded with the tokenizer's default special tokens (``add_special_tokens`` left unset, so
a tokenizer that prepends BOS, as Gemma's does, prepends it, and one that does not, as SmolLM2's, does
not), except that a text already starting with the BOS token's text gets none; an empty context is the
BOS token (else EOS) alone. The log-likelihood is the sum of the continuation tokens' log-softmax
(computed in float32). On Winogender's 720 instances this gives lm-eval's decisions on all 720 with
SmolLM2-135M-Instruct and Gemma 3 270M (GGUF), log-likelihoods within 6e-5 in every layout (``tests/test_hf_cloze.py``,
``perf/cloze_throughput.py``).

**Fast.** Each context is computed once, whatever its number of options. A call tokenizes all its requests at
once (two batched calls of the fast tokenizer) and lays them out in batches of at most ``max_batch_tokens``
tokens (a batch's *footprint*: its rows times its widest context, plus each option of more than one token's copy
of its context and its tail; ``token_batches.footprint``; the prefix-tree layout's, its rows times their width), by
one of three layouts (``layout``; by default ``LAYOUTS`` of the device):

* ``prefix-sharing``: the first tokens that several contexts share are computed once for them all
  (Winogender's sentences differ from their minimal pair only from the pronoun on: a quarter fewer tokens).
  Contexts are grouped by shared prefix (in token order; ``token_batches.shared_prefix_groups``), whole groups,
  the widest first, in a batch (``token_batches.token_batches``), and a batch takes two passes, the second
  continuing the key/value cache of the first: (A) the prefixes, each once; (B) the rest of each context,
  left-padded under an attention mask, positions counted on from its prefix, giving every option's first
  token. Where pass A starts each context's pass B (``token_batches.split_points``) weighs pass B's padding
  against pass A's rows and the fixed cost of a pass (``PASS_COST``: it reads every weight).
* ``right-padded`` (CUDA): contexts sorted by length (``token_batches.length_sorted_batches``), each batch one
  pass of whole contexts padded on the right. A causal model's attention never reaches forward, so the padding
  cannot change a context's tokens and the pass needs no attention mask: on a GPU that lets
  ``scaled_dot_product_attention`` take its fused causal kernels, which a padding mask rules out. Each row's
  last real position is picked before the model's output layer (a hook on it), so the logits are one row per
  context whatever the padding.

* ``prefix-tree`` (CPU): one pass per batch and nothing computed twice in a row. Each context, and each option's tokens
  but its last after it, is laid in rows of ``row_tokens`` (``ROW_TOKENS``) after the sequence before it, sharing
  what the two have in common (``token_trees.pack``): the rows hold trees of the requests' tokens, a token attends
  to its ancestors under a 4-D mask (``sdpa`` or ``eager`` attention; a window's worth for layers of sliding
  attention) at its depth as its position, and the output layer is fed the scored positions alone. Over the seven
  original benchmarks at CUDA's budget it computes 1.05 tokens per distinct token in 64 passes (``right-padded``:
  1.53 in 379), at the cost of attention over whole rows.

In the first two layouts, then (C), only for options of more than one token, their other tokens, continuing a copy
of the cache per such option, in passes of tails of about one length (``token_batches.tail_passes``). Only the
logits the sums need are computed (``logits_to_keep``; none in pass A), which matters for large vocabularies (Gemma
3: 262 144 tokens). ``stats`` counts the tokens the passes computed (padding included; ``masked``: those in passes
under an attention mask) against what the requests need with each context computed once (``needed``) and with each
distinct prefix once (``distinct``; options' tokens but their last count in both), and the floats copied from the
model's device to the host. lm-eval instead computes every option's whole sequence, padded on the right with no mask
as the right-padded layout does, and the full vocabulary's logits at every position (it shares one pass among
options of one token after the same context).

**Nothing vocabulary-sized leaves the device.** The log-softmax is computed in float32 on the model's
device, a bounded number of rows at a time (``LOGITS_CHUNK``), the continuation tokens' log-probabilities
are gathered and summed there, and only one float per option crosses to the host per batch.

**Attention without cuDNN.** torch tries cuDNN's attention first on sm90 and sm100 cards (an H100, an H200, a
B200) with cuDNN above 9.15, and cuDNN builds an execution plan on the host for every new shape of batch and lengths
(tens to hundreds of milliseconds; torch caches them by shape). Nearly every pass here has a shape of its own (302 of
the 379 passes over the seven original benchmarks' requests on a 1B-shaped model), so the passes run with cuDNN's
attention off (``cudnn_attention``, default False): flash kernels for unmasked passes, memory-efficient ones under a
mask. Everywhere else the switch changes nothing.

**Devices.** ``max_batch_tokens``, ``layout`` and ``tokenize_ahead`` default per device (``MAX_BATCH_TOKENS``,
``LAYOUTS``, ``TOKENIZE_AHEAD``: on a GPU a call tokenizes the eighth of its requests with the longest contexts, and
the rest in a thread while the device scores that eighth). A batch that runs out of device memory is split and
retried at half the budget, which the backend then keeps for the rest of its life, instead of crashing; only a
single request that does not fit is an error.

**Rounding.** Splitting, padding, batching, the layout and torch's CPU thread count change floating-point sums in
their last bits: in float32 up to about 1e-4 on a CPU and 3e-4 on a GPU (SmolLM2 against lm-eval on whole
benchmarks, docs/running/lm_eval.md), so an option whose log-likelihood ties another's within that may be decided
differently from lm-eval's unbatched pass, and from this backend at another ``max_batch_tokens``
(``tests/test_hf_cloze.py`` checks both on a CPU). In bfloat16 every layer rounds to 8 bits of mantissa, so any two
layouts of the same request (another batch, another padding, lm-eval's) differ by up to about 0.2 and decisions
within that margin can flip: run ``dtype=float32`` where decisions must match lm-eval's.

**Calls.** ``loglikelihoods_in_batches`` yields each batch's answers as they come, so that ``corefbias run`` caches
them: each once the next batch is laid out and on its way to the device, so that on a GPU the host's work between two
batches (reading the floats, the runner's caching, laying out the next) overlaps the device's computing (a request too
large for the device's memory still gets the batch before it answered, then the error). ``call_size`` is the number
of instances the runner hands it per call (``CALL_SIZE``: whole benchmarks but the largest), instead of the run's
``--batch-size``.
"""

from __future__ import annotations

import copy
import inspect
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

from . import token_trees
from .base import ModelError
from .cloze_template import ClozeRequest
from .token_batches import (
    Item,
    distinct_tokens,
    footprint,
    length_sorted_batches,
    split_points,
    tail_passes,
    token_batches,
)
from .token_trees import pack, tree_batches

# The footprint of a batch (see the module docstring) by default. On CPU a batch of more than a few dozen rows
# is no faster; on a GPU large batches keep the device busy, and an out-of-memory batch halves the budget.
MAX_BATCH_TOKENS = {"cpu": 4096, "mps": 16384, "cuda": 65536}
# A forward pass reads every weight: on CPU about the cost of computing 32 more tokens (SmolLM2-135M, one
# thread); on a GPU, kernel launches and the Python of a pass cost more tokens' worth.
PASS_COST = {"cpu": 32, "mps": 64, "cuda": 256}
# On CPU masks cost little and prefix trees compute the fewest tokens (3–13 % faster than sharing prefixes, SmolLM2 and
# Gemma 3); on CUDA a mask rules out the fused attention kernels, and prefix trees are not timed yet
# (perf/cloze_throughput.py --ours-layouts times them; docs/performance.md). A model whose attention cannot take a
# prefix tree's mask (``tree_refusal``) gets prefix-sharing instead of the CPU's default.
LAYOUTS = {"cpu": "prefix-tree", "mps": "prefix-sharing", "cuda": "right-padded"}
BATCH_PLANS = {  # a layout's batches
    "prefix-sharing": token_batches,
    "right-padded": length_sorted_batches,
    "prefix-tree": tree_batches,
}
# The prefix-tree layout's rows: wider rows leave less room unused at a batch's end, but each token attends over its
# whole row. Over the seven original benchmarks at CUDA's budget, 1.11 tokens computed per distinct token at 256, 1.05
# at 512, 1.03 at 1 024; on a CPU, where attention weighs more against a small model's products, 256 was the fastest.
ROW_TOKENS = {"cpu": 256, "mps": 512, "cuda": 512}
# At most this many logits (scored positions × vocabulary) in a prefix-tree pass: 512 MiB in float32, 1 GiB in
# bfloat16.
PASS_LOGITS = {"cpu": 1 << 27, "mps": 1 << 27, "cuda": 1 << 29}
TREE_MASKS = {"sdpa", "eager"}  # attention implementations that take a 4-D mask of any shape
CALL_SIZE = 4096  # instances per call of `corefbias run`: whole benchmarks but SoWinoBias and ABC
# On a GPU tokenizing a call of 4 096 instances took 3–5 s of an H200 run's 38–93 before any batch reached the card:
# there a call tokenizes the eighth of its requests with the longest contexts, and the rest in a thread while the card
# scores that eighth. On CPU the scoring keeps the cores busy, and a call tokenizes at once.
TOKENIZE_AHEAD = {"cpu": False, "mps": True, "cuda": True}
FIRST_SHARE = 8
LOGITS_CHUNK = 1 << 27  # logits turned into float32 log-probabilities at once (512 MiB)


@dataclass
class TokenStats:
    """Tokens the forward passes computed (padding included), and of those the ones in passes under an attention
    mask (``masked``); what the requests need with each context computed once (``needed``), and with each
    distinct prefix of the contexts computed once (``distinct``); the floats copied from the model's device to
    the host (``host_floats``); the seconds spent tokenizing, before any batch reaches the device
    (``tokenizing_seconds``)."""

    computed: int = 0
    masked: int = 0
    needed: int = 0
    distinct: int = 0
    forward_passes: int = 0
    host_floats: int = 0
    tokenizing_seconds: float = 0.0


def adds_bos_token(tokenizer) -> bool:
    """Whether the tokenizer's default special tokens, which lm-eval 0.4.13's ``hf`` backend keeps, start with BOS."""
    bos = tokenizer.bos_token_id
    return bos is not None and tokenizer("a")["input_ids"][:1] == [bos]


class TransformersBackend:
    """Log-likelihoods of continuations from a loaded causal LM (see the module docstring).

    ``max_batch_tokens``: the largest footprint of a batch (default by device, ``MAX_BATCH_TOKENS``);
    ``call_size``: the instances ``corefbias run`` hands it per call; ``layout``: ``prefix-sharing``,
    ``right-padded`` or ``prefix-tree`` (default by device, ``LAYOUTS``); ``row_tokens``: the prefix-tree layout's
    rows (default by device, ``ROW_TOKENS``)."""

    def __init__(
        self,
        model,
        tokenizer,
        *,
        identity: dict,
        max_batch_tokens: int | None = None,
        call_size=CALL_SIZE,
        layout: str | None = None,
        row_tokens: int | None = None,
    ):
        self.model, self.tokenizer = model, tokenizer
        self.device = model.device
        self.max_batch_tokens = max_batch_tokens or MAX_BATCH_TOKENS.get(self.device.type, MAX_BATCH_TOKENS["cpu"])
        self.layout = layout or LAYOUTS.get(self.device.type, LAYOUTS["cpu"])
        if layout is None and self.layout == "prefix-tree" and tree_refusal(model):
            self.layout = "prefix-sharing"  # what the device's default needs, the model lacks
        self.tokenize_ahead = TOKENIZE_AHEAD.get(self.device.type, TOKENIZE_AHEAD["cpu"])
        self.row_tokens = row_tokens or ROW_TOKENS.get(self.device.type, ROW_TOKENS["cpu"])
        self.pass_logits = PASS_LOGITS.get(self.device.type, PASS_LOGITS["cpu"])
        self.cudnn_attention = False
        if self.layout not in BATCH_PLANS:
            raise ValueError(f"unknown layout {self.layout!r}; choose {' or '.join(BATCH_PLANS)}")
        self.call_size = call_size
        self.add_special_tokens = adds_bos_token(tokenizer)
        self.identity = {**identity, "tokenization": {"lm_eval_pair_split": True, "bos": self.add_special_tokens}}
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else (tokenizer.eos_token_id or 0)
        # lm-eval's prefix_token_id: the context of an empty context, and the text that turns special tokens off
        self.prefix_id = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
        self.prefix_text = tokenizer.decode(self.prefix_id) if self.prefix_id is not None else None
        # transformers renamed the key/value cache argument (and output) `past_key_values` to `cache` in 5.x
        self.cache_argument = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
        self.stats = TokenStats()

    def encode(self, text: str) -> list[int]:
        """lm-eval's ``tok_encode``: the tokenizer's default special tokens, none if ``text`` starts with BOS."""
        return self.encode_texts([text])[0]

    def encode_texts(self, texts: Sequence[str]) -> list[list[int]]:
        """``encode`` of each text, in at most two batched calls of the tokenizer."""
        plain = [i for i, text in enumerate(texts) if self.prefix_text is None or not text.startswith(self.prefix_text)]
        bare = sorted(set(range(len(texts))) - set(plain))
        found: list[list[int]] = [[] for _ in texts]
        for indices, options in ((plain, {}), (bare, {"add_special_tokens": False})):
            if indices:
                for index, ids in zip(indices, self.tokenizer([texts[i] for i in indices], **options)["input_ids"]):
                    found[index] = ids
        return found

    def encode_requests(self, requests: Sequence[ClozeRequest]) -> list[Item]:
        """Each request's context tokens and its options' tokens, split as lm-eval's ``_encode_pair`` splits them:
        whitespace at the end of the context moves to the continuation, and an option's tokens are the tail of
        ``context + option`` after the context's own; an empty context is the BOS (else EOS) token alone."""
        contexts, wholes, bare = [], [], []
        for request in requests:
            if not request.context:  # lm-eval's loglikelihood: the prefix token is the context
                bare.extend(request.continuations)
                continue
            spaces = len(request.context) - len(request.context.rstrip())
            context = request.context[: len(request.context) - spaces]
            contexts.append(context)
            wholes.extend(request.context + continuation for continuation in request.continuations)
        context_ids, whole_ids = iter(self.encode_texts(contexts)), iter(self.encode_texts(wholes))
        bare_ids = iter(self.tokenizer(bare, add_special_tokens=False)["input_ids"] if bare else [])
        encoded: list[Item] = []
        for request in requests:
            if not request.context:
                pairs = []
                for tokens in (next(bare_ids) for _ in request.continuations):
                    pairs.append(
                        ([self.prefix_id], tokens) if tokens[:1] != [self.prefix_id] else (tokens[:1], tokens[1:])
                    )
                if len({tuple(context) for context, _ in pairs}) != 1:
                    raise ModelError(
                        f"options of one instance tokenized with different contexts: {request.continuations!r}"
                    )
                context, options = pairs[0][0], [tokens for _, tokens in pairs]
            else:
                context = next(context_ids)
                options = [next(whole_ids)[len(context) :] for _ in request.continuations]
            if not all(options):
                raise ModelError(f"an option of {request.context!r} tokenizes to nothing: {request.continuations!r}")
            encoded.append((context, options))
        return encoded

    def loglikelihoods(self, requests: list[ClozeRequest]) -> list[list[float]]:
        results: list[list[float]] = [[] for _ in requests]
        for indices, scores in self.loglikelihoods_in_batches(requests):
            for index, score in zip(indices, scores):
                results[index] = score
        return results

    def loglikelihoods_in_batches(self, requests: list[ClozeRequest]) -> Iterator[tuple[list[int], list[list[float]]]]:
        """Per batch, as it is computed: the positions in ``requests`` it answered and their log-likelihoods.

        With ``tokenize_ahead`` (``TOKENIZE_AHEAD`` of the device) the ``1 / FIRST_SHARE`` of the requests with the
        longest contexts (in characters: where the call's batches would start) is tokenized and scored while a thread
        tokenizes the rest; the two parts are batched apart."""
        first = len(requests) // FIRST_SHARE if self.tokenize_ahead else 0
        if not first:
            yield from self._scored_batches(self._encoded(lambda: self.encode_requests(requests)), range(len(requests)))
            return
        order = sorted(range(len(requests)), key=lambda index: -len(requests[index].context))
        head, rest = order[:first], order[first:]
        head_encoded = self._encoded(lambda: self.encode_requests([requests[index] for index in head]))
        with ThreadPoolExecutor(max_workers=1) as pool:
            later = pool.submit(self.encode_requests, [requests[index] for index in rest])
            yield from self._scored_batches(head_encoded, head)
            rest_encoded = self._encoded(later.result)
        yield from self._scored_batches(rest_encoded, rest)

    def _encoded(self, encode) -> list[Item]:
        """``encode()``, its seconds counted as tokenizing (the device waits for them)."""
        started = time.perf_counter()
        encoded = encode()
        self.stats.tokenizing_seconds += time.perf_counter() - started
        return encoded

    def _scored_batches(
        self, encoded: list[Item], positions: Sequence[int]
    ) -> Iterator[tuple[list[int], list[list[float]]]]:
        """``loglikelihoods_in_batches`` of requests already encoded; ``positions``: each one's in the call."""
        self.stats.needed += sum(len(context) + sum(len(t) - 1 for t in options) for context, options in encoded)
        self.stats.distinct += distinct_tokens(encoded)
        planned = self.max_batch_tokens
        queue = deque(self._plan(encoded, range(len(encoded))))
        pending = None  # the batch before, answered once this one is on its way: the host works while the device does
        while queue:
            batch = queue.popleft()
            items = [encoded[index] for index, _ in batch]
            if self.max_batch_tokens < planned and len(batch) > 1 and self._footprint(items) > self.max_batch_tokens:
                queue.extendleft(reversed(self._plan(encoded, [i for i, _ in batch])))  # planned before a halving
                continue
            try:
                totals = self._score_or_none([(item, shared) for item, (_, shared) in zip(items, batch)])
            except ModelError:  # a request too large for the device: what was computed before it is answered first
                if pending is not None:
                    yield self._answers(encoded, positions, *pending)
                raise
            if totals is None:
                self._free_device_memory()
                self.max_batch_tokens = max(1, self._footprint(items) // 2)
                queue.appendleft(batch)
                continue
            if pending is not None:
                yield self._answers(encoded, positions, *pending)
            pending = batch, totals
        if pending is not None:
            yield self._answers(encoded, positions, *pending)

    def _answers(self, encoded: list[Item], positions: Sequence[int], batch, totals) -> tuple[list[int], list]:
        """A batch's positions in the call and its log-likelihoods per request, from ``totals`` (one float per option
        on the device), which cross to the host here."""
        floats = totals.tolist()
        self.stats.host_floats += len(floats)
        flat = iter(floats)
        return [positions[index] for index, _ in batch], [[next(flat) for _ in encoded[index][1]] for index, _ in batch]

    def _plan(self, encoded: list[Item], indices: Sequence[int]) -> list[list[tuple[int, int]]]:
        """``indices`` of ``encoded`` in the layout's batches of at most ``max_batch_tokens``."""
        if self.layout == "prefix-tree":
            most_scored = max(1, self.pass_logits // self.model.config.get_text_config().vocab_size)
            return tree_batches(encoded, indices, self.max_batch_tokens, self._row_width(), most_scored)
        return BATCH_PLANS[self.layout](encoded, indices, self.max_batch_tokens)

    def _footprint(self, items: list[Item]) -> int:
        """The tokens a batch of ``items`` holds in the layout (what ``max_batch_tokens`` bounds)."""
        if self.layout == "prefix-tree":
            return token_trees.footprint(items, self._row_width())
        return footprint(items)

    def _row_width(self) -> int:
        """The prefix-tree layout's rows: ``row_tokens``, narrower if the budget of a batch is."""
        return min(self.row_tokens, self.max_batch_tokens)

    def _score_or_none(self, items: list[tuple[Item, int]]) -> list[float] | None:
        """The batch's log-likelihoods (one float32 per option, in order, on the device), or None if it ran out of
        device memory."""
        import torch

        try:
            if self.layout == "right-padded":
                return self._score_right_padded([item for item, _ in items])
            if self.layout == "prefix-tree":
                return self._score_prefix_tree([item for item, _ in items])
            return self._score_sharing_prefixes(items)
        except RuntimeError as error:  # torch's OutOfMemoryError is one
            if not isinstance(error, torch.OutOfMemoryError) and "out of memory" not in str(error):
                raise
            if len(items) == 1:
                context, options = items[0][0]
                raise ModelError(
                    f"one request ({len(context)} context tokens, {len(options)} options) does not fit in the memory "
                    f"of {self.device}: {error}"
                ) from error
        return None

    def _free_device_memory(self) -> None:
        import torch

        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    def _score_sharing_prefixes(self, items: list[tuple[Item, int]]):
        """Every option's log-likelihood, in order, as one float32 tensor on the model's device.

        Pass A: the contexts' first tokens (prefixes shared in a group computed once); pass B: the rest of each
        context, left-padded, giving each option's first token; pass C (``_add_tails``). Passes B and C continue
        the key/value cache of the one before."""
        import torch

        device = self.device
        contexts = [context for (context, _), _ in items]
        splits = split_points(contexts, [shared for _, shared in items], PASS_COST.get(device.type, PASS_COST["cuda"]))
        prefixes: dict[tuple[int, ...], int] = {}  # a prefix → its row in pass A
        for context, split in zip(contexts, splits):
            if split:
                prefixes.setdefault(tuple(context[:split]), len(prefixes))
        first_rows, first_tokens, longer = option_tokens([item for item, _ in items])
        cache, prefix_mask = None, torch.zeros((len(items), 0), dtype=torch.long)
        split_lengths = torch.tensor(splits)
        with torch.inference_mode():
            if prefixes:
                ids, mask = padded(list(prefixes), self.pad_id, left=True)
                no_logits = torch.zeros(0, dtype=torch.long, device=device)  # the cache only
                _, cache = self._forward(ids, mask, (mask.cumsum(dim=1) - 1).clamp(min=0), None, keep=no_logits)
                rows = [prefixes[tuple(context[:split])] if split else 0 for context, split in zip(contexts, splits)]
                cache.reorder_cache(torch.tensor(rows, device=device))
                prefix_mask = mask[rows] * (split_lengths > 0)[:, None]  # a context split at 0 sees none of it
            ids, mask = padded([context[split:] for context, split in zip(contexts, splits)], self.pad_id, left=True)
            context_mask = torch.cat([prefix_mask, mask], dim=1)
            positions = split_lengths[:, None] + (mask.cumsum(dim=1) - 1).clamp(min=0)
            logits, cache = self._forward(ids, context_mask, positions, cache, keep=1, use_cache=bool(longer))
            totals = self._logprobs(logits[:, -1, :], torch.tensor(first_rows), torch.tensor(first_tokens))
            del logits
            lengths = torch.tensor([len(context) for context in contexts])
            return self._add_tails(totals, longer, cache, context_mask, lengths)

    def _score_right_padded(self, items: list[Item]):
        """Every option's log-likelihood, in order, as one float32 tensor on the model's device.

        Pass B: the whole contexts, padded on the right, with no attention mask (padding after a context's tokens
        cannot reach them), giving each option's first token from the context's last real position; pass C
        (``_add_tails``) continues its key/value cache, masking the padding."""
        import torch

        contexts = [context for context, _ in items]
        first_rows, first_tokens, longer = option_tokens(items)
        lengths = torch.tensor([len(context) for context in contexts])
        ids, context_mask = padded(contexts, self.pad_id, left=False)
        rows, last = torch.arange(len(contexts), device=self.device), (lengths - 1).to(self.device)

        def last_real_position(module, inputs):  # the output layer sees one position per context
            return (inputs[0][rows, last][:, None, :], *inputs[1:])

        with torch.inference_mode():
            hook = self.model.get_output_embeddings().register_forward_pre_hook(last_real_position)
            try:
                logits, cache = self._forward(ids, None, None, None, keep=0, use_cache=bool(longer))
            finally:
                hook.remove()
            totals = self._logprobs(logits[:, -1, :], torch.tensor(first_rows), torch.tensor(first_tokens))
            del logits
            return self._add_tails(totals, longer, cache, context_mask, lengths)

    def _score_prefix_tree(self, items: list[Item]):
        """Every option's log-likelihood, in order, as one float32 tensor on the model's device: one pass over the
        batch packed in rows (``token_trees.pack``), each token attending to its ancestors in its row's tree, the
        output layer fed only the scored positions."""
        import torch

        rows = pack(items, self._row_width())
        width = rows.width
        ids = torch.full((len(rows.tokens), width), self.pad_id, dtype=torch.long)
        positions = torch.zeros((len(rows.tokens), width), dtype=torch.long)
        ends = torch.arange(1, width + 1).repeat(len(rows.tokens), 1)  # padding attends to itself alone
        for row, (tokens, depths, row_ends) in enumerate(zip(rows.tokens, rows.depths, rows.ends)):
            ids[row, : len(tokens)] = torch.tensor(tokens)
            positions[row, : len(tokens)] = torch.tensor(depths)
            ends[row, : len(tokens)] = torch.tensor(row_ends)
        positions, ends, columns = (
            positions.to(self.device),
            ends.to(self.device),
            torch.arange(width, device=self.device),
        )
        ancestors = (columns[None, None, :] <= columns[None, :, None]) & (columns[None, :, None] < ends[:, None, :])
        scored_rows, scored_columns = (torch.tensor(c, device=self.device) for c in zip(*rows.positions))

        def scored_positions(module, inputs):  # the output layer sees the scored positions alone
            return (inputs[0][scored_rows, scored_columns][None], *inputs[1:])

        number, targets, option_numbers = (torch.tensor(column) for column in zip(*sorted(rows.targets)))
        with torch.inference_mode():
            hook = self.model.get_output_embeddings().register_forward_pre_hook(scored_positions)
            try:
                mask = self._tree_mask(ancestors, positions)
                logits, _ = self._forward(ids, mask, positions, None, keep=0, use_cache=False)
            finally:
                hook.remove()
            logprobs = self._logprobs(logits[0], number, targets)
            del logits
            totals = torch.zeros(sum(len(options) for _, options in items), dtype=torch.float32, device=self.device)
            return totals.index_add(0, option_numbers.to(self.device), logprobs)

    def _tree_mask(self, ancestors, positions):
        """The attention mask the model takes for ``ancestors`` (rows × queries × keys, True where a query may
        attend): a 4-D mask in the form of the model's attention implementation, windowed for layers of sliding
        attention, by kind of layer where the model has both kinds."""
        refused = tree_refusal(self.model)
        if refused:
            raise ModelError(f"the prefix-tree layout {refused}; choose another layout")
        implementation = self.model.config._attn_implementation
        config = self.model.config.get_text_config()
        window = getattr(config, "sliding_window", None)
        kinds = layer_kinds(config)
        mask = ancestors
        if "sliding_attention" in kinds and positions.max() >= window:  # some query sees beyond the window
            windowed = ancestors & (positions[:, :, None] - positions[:, None, :] < window)
            mask = (
                windowed
                if kinds == {"sliding_attention"}
                else {"full_attention": ancestors, "sliding_attention": windowed}
            )
        if isinstance(mask, dict):
            return {kind: self._mask_form(allowed, implementation) for kind, allowed in mask.items()}
        return self._mask_form(mask, implementation)

    def _mask_form(self, allowed, implementation: str):
        """``allowed`` (rows × queries × keys) as ``implementation``'s 4-D mask: True where a query may attend for
        ``sdpa``, added to the scores for ``eager``."""
        import torch

        allowed = allowed[:, None]
        if implementation == "sdpa":
            return allowed
        zero = torch.zeros((), dtype=self.model.dtype, device=self.device)
        return zero.masked_fill(~allowed, torch.finfo(self.model.dtype).min)

    def _add_tails(self, totals, longer, cache, context_mask, lengths):
        """``totals`` (per option, its first token's log-probability) plus pass C's for the options of more than
        one token (``longer``: their position among the options, their item and tokens)."""
        import torch

        if not longer:
            return totals
        tails = self._tail_logprobs(cache, context_mask, lengths, [(item, tokens) for _, item, tokens in longer])
        return totals.index_add(0, torch.tensor([option for option, _, _ in longer], device=self.device), tails)

    def _forward(self, ids, mask, positions, cache, *, keep, use_cache: bool = True):
        """One forward pass: its logits (``logits_to_keep=keep``) and, with ``use_cache``, its key/value cache.
        ``mask`` and ``positions`` None: every row's tokens from position 0, with no attention mask."""
        device = self.device
        continued = {self.cache_argument: cache} if cache is not None else {}
        with cudnn_attention(self.cudnn_attention):
            out = self.model(
                input_ids=ids.to(device),
                attention_mask=None if mask is None else attention_on(mask, device),
                position_ids=None if positions is None else positions.to(device),
                use_cache=use_cache,
                logits_to_keep=keep,
                **continued,
            )
        self.stats.computed += ids.numel()
        self.stats.masked += 0 if mask is None else ids.numel()
        self.stats.forward_passes += 1
        return out.logits, getattr(out, self.cache_argument) if use_cache else None

    def _logprobs(self, logits, rows, tokens):
        """``log_softmax(logits[rows])[tokens]`` per pair, in float32 on the device, ``LOGITS_CHUNK`` at a time;
        ``rows`` ascending."""
        import torch

        step = max(1, LOGITS_CHUNK // logits.shape[-1])
        found = []
        for start in range(0, logits.shape[0], step):
            chosen = (rows >= start) & (rows < start + step)
            if chosen.any():
                chunk = torch.log_softmax(logits[start : start + step].float(), dim=-1)
                found.append(chunk[(rows[chosen] - start).to(chunk.device), tokens[chosen].to(chunk.device)])
        return torch.cat(found)

    def _tail_logprobs(self, cache, context_mask, lengths, longer: list[tuple[int, list[int]]]):
        """Pass C: per option of more than one token (its item, its tokens), the summed log-probabilities of its
        tokens after the first, from a copy of its item's cache, in passes of tails of about one length
        (``tail_passes``) of at most ``LOGITS_CHUNK`` logits each."""
        import torch

        passes = tail_passes(
            [len(tokens) - 1 for _, tokens in longer], LOGITS_CHUNK // self.model.config.get_text_config().vocab_size
        )
        sums, order = [], []
        for number, options in enumerate(passes):
            chunk = [longer[option] for option in options]
            order.extend(options)
            items = torch.tensor([item for item, _ in chunk])
            # the last pass reorders the batch's cache itself; earlier ones a copy
            selected = cache if number == len(passes) - 1 else copy.deepcopy(cache)
            selected.reorder_cache(items.to(self.device))
            tail, tail_mask = padded([tokens[:-1] for _, tokens in chunk], self.pad_id, left=False)
            targets, _ = padded([tokens[1:] for _, tokens in chunk], self.pad_id, left=False)
            logits, _ = self._forward(
                tail,
                torch.cat([context_mask[items], tail_mask], dim=1),
                lengths[items][:, None] + torch.arange(tail.shape[1])[None, :],
                selected,
                keep=0,
                use_cache=False,
            )
            logprobs = torch.log_softmax(logits.float(), dim=-1).gather(2, targets.to(self.device)[..., None])[..., 0]
            sums.append(torch.where(tail_mask.to(self.device).bool(), logprobs, 0.0).sum(dim=1))
            del logits, logprobs
        in_order = torch.empty(len(longer), dtype=torch.long)
        in_order[torch.tensor(order)] = torch.arange(len(longer))
        return torch.cat(sums)[in_order.to(self.device)]


def layer_kinds(config) -> set[str]:
    """The kinds of attention layer of a (text) model's config, as transformers names them (``layer_types``)."""
    window = getattr(config, "sliding_window", None)
    return set(getattr(config, "layer_types", None) or ["sliding_attention" if window else "full_attention"])


def tree_refusal(model) -> str | None:
    """Why ``model`` cannot take the prefix-tree layout's masks (what it needs), or None if it can."""
    implementation = getattr(model.config, "_attn_implementation", None)
    if implementation not in TREE_MASKS:
        return f"needs attention that takes a 4-D mask ({' or '.join(sorted(TREE_MASKS))}), not {implementation!r}"
    config = model.config.get_text_config()
    if getattr(config, "num_attention_heads", None) is None:  # a recurrent layer would read a row as one text
        return "needs a model made of attention layers"
    kinds = layer_kinds(config)
    if not kinds <= {"full_attention", "sliding_attention"}:
        return f"knows full and sliding attention layers, not {', '.join(sorted(kinds))}"
    return None


def attention_on(mask, device):
    """An attention mask, or a model's masks by kind of layer, on ``device``."""
    return {kind: each.to(device) for kind, each in mask.items()} if isinstance(mask, dict) else mask.to(device)


@contextmanager
def cudnn_attention(enabled: bool):
    """Within it, ``scaled_dot_product_attention`` may take cuDNN's kernels only if ``enabled`` (and torch's own switch
    allowed them before); the other kernels stay as they were.

    Examples
    --------
    >>> import torch
    >>> with cudnn_attention(False):
    ...     torch.backends.cuda.cudnn_sdp_enabled()
    False
    """
    import torch

    before = torch.backends.cuda.cudnn_sdp_enabled()
    torch.backends.cuda.enable_cudnn_sdp(before and enabled)
    try:
        yield
    finally:
        torch.backends.cuda.enable_cudnn_sdp(before)


def option_tokens(items: list[Item]) -> tuple[list[int], list[int], list[tuple[int, int, list[int]]]]:
    """Per option of the batch's ``items``, in order: its item and its first token; and per option of more than one
    token, its position among the options, its item and its tokens."""
    first_rows, first_tokens, longer = [], [], []
    for item, (_, options) in enumerate(items):
        for tokens in options:
            if len(tokens) > 1:
                longer.append((len(first_rows), item, tokens))
            first_rows.append(item)
            first_tokens.append(tokens[0])
    return first_rows, first_tokens, longer


def padded(sequences: list, pad_id: int, *, left: bool):
    """Token ids padded to the longest, on the left or the right, and their attention mask.

    Examples
    --------
    >>> padded([[5, 6], [7]], 0, left=True)[0].tolist(), padded([[5, 6], [7]], 0, left=False)[1].tolist()
    ([[5, 6], [0, 7]], [[1, 1], [1, 0]])
    """
    import torch

    widest = max(len(tokens) for tokens in sequences)
    ids = torch.full((len(sequences), widest), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), widest), dtype=torch.long)
    for row, tokens in enumerate(sequences):
        if tokens:
            columns = slice(widest - len(tokens), widest) if left else slice(0, len(tokens))
            ids[row, columns] = torch.tensor(tokens, dtype=torch.long)
            mask[row, columns] = 1
    return ids, mask
