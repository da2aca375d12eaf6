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

* ``prefix-sharing``: the first tokens that several contexts share computed once for them all, then the rest of each
  context, left-padded under an attention mask (``pass_layouts.prefix_sharing``);
* ``right-padded`` (CUDA): whole contexts sorted by length and padded on the right, where a causal model's
  attention cannot reach them, so that a pass needs no attention mask (``pass_layouts.right_padded``);
* ``prefix-tree`` (CPU): one pass per batch over rows holding trees of the requests' tokens, each token attending to
  its ancestors under a 4-D mask (``pass_layouts.prefix_tree``): over the seven original benchmarks at CUDA's budget,
  1.05 tokens computed per distinct token in 64 passes (``right-padded``: 1.53 in 379).

The first two continue each context's key/value cache over the tails of its options of more than one token
(``pass_layouts.cached``). Only the logits the sums need are computed (``logits_to_keep``, or a hook before the
output layer), which matters for large vocabularies (Gemma 3: 262 144 tokens). ``stats`` counts the tokens the
passes computed (padding included; ``masked``: those in passes under an attention mask) against what the requests
need with each context computed once (``needed``) and with each distinct prefix once (``distinct``; options' tokens
but their last count in both), and the floats copied from the model's device to the host. lm-eval instead computes
every option's whole sequence, padded on the right with no mask as the right-padded layout does, and the full
vocabulary's logits at every position (it shares one pass among options of one token after the same context).

**Nothing vocabulary-sized leaves the device.** The log-softmax is computed in float32 on the model's
device, a bounded number of rows at a time (``pass_layouts.vocabulary_rows``), the continuation tokens'
log-probabilities are gathered and summed there, and only one float per option crosses to the host per batch.

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
large for the device's memory still gets the batch before it answered, then the error). For that, nothing before a
batch's answers makes the host wait for the device: copies to it go through pinned memory
(``pass_layouts.device_copies``), and masks are built on the device in a 4-D form that transformers takes without
reading its values, wherever the model's attention takes one (``pass_layouts.attention_masks``;
``perf/host_syncs.py`` counts what waits). ``call_size`` is the number of instances the runner hands it per call
(``CALL_SIZE``: whole benchmarks but the largest), instead of the run's ``--batch-size``.
"""

from __future__ import annotations

import inspect
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

from . import pass_layouts
from .base import ModelError
from .cloze_template import ClozeRequest
from .pass_layouts import own_mask_refusal
from .pass_layouts.attention_masks import padding_attention
from .pass_layouts.device_copies import on_device
from .pass_layouts.prefix_tree import PASS_LOGITS, ROW_TOKENS
from .token_batches import Item, distinct_tokens

# The footprint of a batch (see the module docstring) by default. On CPU a batch of more than a few dozen rows
# is no faster; on a GPU large batches keep the device busy, and an out-of-memory batch halves the budget.
MAX_BATCH_TOKENS = {"cpu": 4096, "mps": 16384, "cuda": 65536}
# On CPU masks cost little and prefix trees compute the fewest tokens (3–13 % faster than sharing prefixes, SmolLM2 and
# Gemma 3); on CUDA a mask rules out the fused attention kernels, and prefix trees are not timed yet
# (perf/cloze_throughput.py --ours-layouts times them; docs/performance.md). A model whose attention cannot take a
# prefix tree's mask (``own_mask_refusal``) gets prefix-sharing instead of the CPU's default.
LAYOUTS = {"cpu": "prefix-tree", "mps": "prefix-sharing", "cuda": "right-padded"}
CALL_SIZE = 4096  # instances per call of `corefbias run`: whole benchmarks but SoWinoBias and ABC
# On a GPU tokenizing a call of 4 096 instances took 3–5 s of an H200 run's 38–93 before any batch reached the card:
# there a call tokenizes the eighth of its requests with the longest contexts, and the rest in a thread while the card
# scores that eighth. On CPU the scoring keeps the cores busy, and a call tokenizes at once.
TOKENIZE_AHEAD = {"cpu": False, "mps": True, "cuda": True}
FIRST_SHARE = 8


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
    ``right-padded`` or ``prefix-tree`` (``pass_layouts``; default by device, ``LAYOUTS``); ``row_tokens``: the
    prefix-tree layout's rows (default by device, ``pass_layouts.prefix_tree.ROW_TOKENS``). ``layout``,
    ``max_batch_tokens`` and ``row_tokens`` may be changed between calls."""

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
        self.vocab_size = model.config.get_text_config().vocab_size
        self.max_batch_tokens = max_batch_tokens or MAX_BATCH_TOKENS.get(self.device.type, MAX_BATCH_TOKENS["cpu"])
        self.layout = layout or LAYOUTS.get(self.device.type, LAYOUTS["cpu"])
        if layout is None and self.layout == "prefix-tree" and own_mask_refusal(model):
            self.layout = "prefix-sharing"  # what the device's default needs, the model lacks
        if self.layout not in pass_layouts.BY_NAME:
            raise ValueError(f"unknown layout {self.layout!r}; choose {' or '.join(pass_layouts.BY_NAME)}")
        self.layouts = {name: kind(self) for name, kind in pass_layouts.BY_NAME.items()}
        self.tokenize_ahead = TOKENIZE_AHEAD.get(self.device.type, TOKENIZE_AHEAD["cpu"])
        self.row_tokens = row_tokens or ROW_TOKENS.get(self.device.type, ROW_TOKENS["cpu"])
        self.pass_logits = PASS_LOGITS.get(self.device.type, PASS_LOGITS["cpu"])
        self.cudnn_attention = False
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
        tokenizes the rest; the two parts are batched apart, the rest planned while the device computes the first
        part's last batch."""
        first = len(requests) // FIRST_SHARE if self.tokenize_ahead else 0
        if not first:
            yield from self._scored_batches(
                [(self._encoded(lambda: self.encode_requests(requests)), range(len(requests)))]
            )
            return
        order = sorted(range(len(requests)), key=lambda index: -len(requests[index].context))
        head, rest = order[:first], order[first:]
        head_encoded = self._encoded(lambda: self.encode_requests([requests[index] for index in head]))
        with ThreadPoolExecutor(max_workers=1) as pool:
            later = pool.submit(self.encode_requests, [requests[index] for index in rest])

            def parts():
                yield head_encoded, head
                yield self._encoded(later.result), rest

            yield from self._scored_batches(parts())

    def _encoded(self, encode) -> list[Item]:
        """``encode()``, its seconds counted as tokenizing (the device waits for them)."""
        started = time.perf_counter()
        encoded = encode()
        self.stats.tokenizing_seconds += time.perf_counter() - started
        return encoded

    def _scored_batches(
        self, parts: Iterable[tuple[list[Item], Sequence[int]]]
    ) -> Iterator[tuple[list[int], list[list[float]]]]:
        """``loglikelihoods_in_batches`` of requests already encoded, in ``parts`` planned apart (each its requests
        and their positions in the call). Each batch is answered once the next is on its way to the device, across
        parts too: the host works while the device does."""
        pending = None  # the batch before, with its part's requests and positions
        for encoded, positions in parts:
            self.stats.needed += sum(len(context) + sum(len(t) - 1 for t in options) for context, options in encoded)
            self.stats.distinct += distinct_tokens(encoded)
            layout, planned = self.layouts[self.layout], self.max_batch_tokens
            queue = deque(layout.plan(encoded, range(len(encoded))))
            while queue:
                batch = queue.popleft()
                items = [encoded[index] for index, _ in batch]
                if (
                    self.max_batch_tokens < planned
                    and len(batch) > 1
                    and layout.footprint(items) > self.max_batch_tokens
                ):
                    queue.extendleft(reversed(layout.plan(encoded, [i for i, _ in batch])))  # planned before a halving
                    continue
                try:
                    totals = self._score_or_none(layout, [(item, shared) for item, (_, shared) in zip(items, batch)])
                except ModelError:  # a request too large for the device: what was computed before it is answered first
                    if pending is not None:
                        yield self._answers(*pending)
                    raise
                if totals is None:
                    self._free_device_memory()
                    self.max_batch_tokens = max(1, layout.footprint(items) // 2)
                    queue.appendleft(batch)
                    continue
                if pending is not None:
                    yield self._answers(*pending)
                pending = encoded, positions, batch, totals
        if pending is not None:
            yield self._answers(*pending)

    def _answers(self, encoded: list[Item], positions: Sequence[int], batch, totals) -> tuple[list[int], list]:
        """A batch's positions in the call and its log-likelihoods per request, from ``totals`` (one float per option
        on the device), which cross to the host here."""
        floats = totals.tolist()
        self.stats.host_floats += len(floats)
        flat = iter(floats)
        return [positions[index] for index, _ in batch], [[next(flat) for _ in encoded[index][1]] for index, _ in batch]

    def _score_or_none(self, layout, batch: list[tuple[Item, int]]):
        """The batch's log-likelihoods (one float32 per option, in order, on the device) in ``layout``, or None if it
        ran out of device memory."""
        import torch

        try:
            return layout.score(batch)
        except RuntimeError as error:  # torch's OutOfMemoryError is one
            if not isinstance(error, torch.OutOfMemoryError) and "out of memory" not in str(error):
                raise
            if len(batch) == 1:
                context, options = batch[0][0]
                raise ModelError(
                    f"one request ({len(context)} context tokens, {len(options)} options) does not fit in the memory "
                    f"of {self.device}: {error}"
                ) from error
        return None

    def _free_device_memory(self) -> None:
        import torch

        if self.device.type == "cuda":
            torch.cuda.empty_cache()

    def forward(self, ids, mask, positions, cache, *, keep, use_cache: bool = True):
        """One forward pass: its logits (``logits_to_keep=keep``) and, with ``use_cache``, its key/value cache.
        ``mask``: a host 2-D padding mask, or a mask in the model's form on its device; ``mask`` and ``positions``
        None: every row's tokens from position 0, with no attention mask."""
        device = self.device
        continued = {self.cache_argument: cache} if cache is not None else {}
        with cudnn_attention(self.cudnn_attention):
            out = self.model(
                input_ids=on_device(ids, device),
                attention_mask=None if mask is None else self._attention_on(mask, ids.shape[1]),
                position_ids=None if positions is None else on_device(positions, device),
                use_cache=use_cache,
                logits_to_keep=keep,
                **continued,
            )
        self.stats.computed += ids.numel()
        self.stats.masked += 0 if mask is None else ids.numel()
        self.stats.forward_passes += 1
        return out.logits, getattr(out, self.cache_argument) if use_cache else None

    def _attention_on(self, mask, query_length: int):
        """A pass's attention mask on the device: a host 2-D padding mask as the model's own 4-D mask where it takes
        one (``padding_attention``: transformers would read a 2-D one's values on the host, waiting for the device);
        a mask already in the model's form (the prefix trees', built on the device) as it is."""
        if isinstance(mask, dict) or mask.dim() != 2:
            return mask
        return padding_attention(self.model, mask, query_length, self.device)


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
