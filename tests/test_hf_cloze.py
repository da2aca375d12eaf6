"""``hf:`` on a real model: SmolLM2-135M-Instruct (the GGUF ``services/llamacpp/setup.sh`` fetches), scored
by log-likelihood through ``corefbias.models.hf_causal_lm``.

Six Winogender instances — three that share their first tokens (a pass of shared prefixes, forced in one
test, computes them once), three with options of three or four tokens (a pass of its own) — are pinned
against log-likelihoods computed here with plain ``transformers``, one unbatched forward pass over each
context + continuation split as lm-eval splits them, and against lm-evaluation-harness 0.4.13's own
numbers; a slow test compares every Winogender decision with lm-eval run in this process on the same
model. What the device hands the host, batches sized by tokens, an out-of-memory batch and a run killed
between batches are checked on a two-layer Llama with random weights built from a config (nothing
downloaded) and SmolLM2's tokenizer. The tests that need the model skip when the GGUF is missing.
"""

import copy
import dataclasses
import json
import re
import sys
import threading
import warnings

import pytest
from test_llamacpp_service import CACHE, MODELS

from corefbias.benchmarks import BENCHMARKS, registry
from corefbias.harness import runner
from corefbias.harness.run_outputs import write_outputs
from corefbias.models import hf_causal_lm, pass_layouts, transformers_backend
from corefbias.models.base import ModelError, Task
from corefbias.models.cloze import ClozeModel
from corefbias.models.cloze_template import ClozeRequest, ClozeTemplate
from corefbias.models.token_batches import footprint, token_batches
from corefbias.plugins.registry import Registry

SMOLLM2 = CACHE / "models" / f"{MODELS['smollm2']}.gguf"
LAYOUTS = list(pass_layouts.BY_NAME)
WINOGENDER = BENCHMARKS["winogender"]
TOLERANCE = 1e-4
OTHER_LAYOUTS_SAMPLE = 120

# lm-evaluation-harness 0.4.13's log-likelihoods (occupation, participant) for these instances: the
# `resps` of its --log_samples output, from
#   HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 lm_eval --model hf \
#     --model_args pretrained=~/.cache/corefbias/llamacpp/models,gguf_file=SmolLM2-135M-Instruct.Q4_1.gguf \
#     --tasks winogender_local --include_path TASKS --device cpu --batch_size 1 --log_samples --output_path OUT
# where TASKS/winogender_local.yaml is lm-eval's winogender.yaml (doc_to_text "{{sentence}}
# ‘{{pronoun.capitalize()}}’ refers to the", doc_to_choice "{{[occupation, participant]}}", doc_to_target
# label) reading the 720 exported instances as a local JSON file (dataset_path: json), torch 2.13.0 CPU,
# transformers 5.23.0.
LM_EVAL = {
    "technician.customer.1.male.txt": (-4.755734920501709, -1.9280771017074585),
    "technician.customer.1.female.txt": (-4.260252952575684, -1.9457741975784302),
    "technician.customer.1.neutral.txt": (-3.8135669231414795, -2.0013387203216553),
    "hairdresser.client.0.female.txt": (-2.6030020713806152, -3.2263028621673584),
    "carpenter.onlooker.1.female.txt": (-5.2085113525390625, -2.6679577827453613),
    "paramedic.passenger.0.female.txt": (-3.4623000621795654, -4.0470685958862305),
}


@pytest.fixture(scope="module")
def smollm2():
    """The model, loaded once; torch on one thread meanwhile (two threads on a busy machine can be far slower)."""
    if not SMOLLM2.is_file():
        pytest.skip(f"no {SMOLLM2}: run `bash services/llamacpp/setup.sh` to fetch it")
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield hf_causal_lm.load(str(SMOLLM2))
    finally:
        torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def rows(loaded_set):
    test = loaded_set("winogender", "default")["test"]
    found = {row["id"]: row for row in test if row["id"] in LM_EVAL}
    return [found[name] for name in LM_EVAL]


@pytest.fixture(scope="module")
def plain_transformers(smollm2):
    """Per context and continuation, the log-likelihood plain transformers gives: lm-eval's split (trailing
    whitespace to the continuation, the continuation's tokens the tail of the whole's, the tokenizer's
    default special tokens), one unbatched forward pass over the whole sequence but its last token, no cache.

    The model and tokenizer are the ``AutoModelForCausalLM``/``AutoTokenizer.from_pretrained(folder,
    gguf_file=...)`` objects ``load`` made (loading them again would double this file's time); lm-eval's
    numbers above come from loads of their own."""
    import torch

    model, tokenizer = smollm2.backend.model, smollm2.backend.tokenizer

    def loglikelihood(context: str, continuation: str) -> float:
        spaces = len(context) - len(context.rstrip())
        if spaces:
            context, continuation = context[:-spaces], context[-spaces:] + continuation
        whole = tokenizer.encode(context + continuation)
        context_ids = tokenizer.encode(context)
        tokens = whole[len(context_ids) :]
        with torch.inference_mode():
            logits = model(input_ids=torch.tensor([whole[:-1]])).logits[0].float()
        logprobs = torch.log_softmax(logits, dim=-1)[-len(tokens) :]
        return float(logprobs[torch.arange(len(tokens)), torch.tensor(tokens)].sum())

    return loglikelihood


def requests_of(rows):
    return [WINOGENDER.task.cloze.render(row) for row in rows]


@pytest.fixture(scope="module")
def winogender(loaded_set):
    """All 720 Winogender instances, in the exported order."""
    return list(loaded_set("winogender", "default")["test"])


def lm_eval_split(tokenizer, context: str, continuation: str) -> tuple[list[int], list[int]]:
    """lm-eval 0.4.13's ``_encode_pair``, one pair at a time: trailing whitespace to the continuation, the
    continuation's tokens the tail of the whole's, the tokenizer's default special tokens unless the text
    starts with the BOS token's text (``tok_encode``)."""

    def encode(text):
        return tokenizer.encode(text, add_special_tokens=not text.startswith(tokenizer.bos_token))

    spaces = len(context) - len(context.rstrip())
    if spaces:
        context, continuation = context[:-spaces], context[-spaces:] + continuation
    context_ids = encode(context)
    return context_ids, encode(context + continuation)[len(context_ids) :]


def unbatched_loglikelihood(model, tokenizer, context: str, continuation: str) -> float:
    """One forward pass over ``context + continuation`` but its last token, no cache, no padding."""
    import torch

    context_ids, tokens = lm_eval_split(tokenizer, context, continuation)
    whole = context_ids + tokens
    with torch.inference_mode():
        logits = model(input_ids=torch.tensor([whole[:-1]])).logits[0].float()
    logprobs = torch.log_softmax(logits, dim=-1)[-len(tokens) :]
    return float(logprobs[torch.arange(len(tokens)), torch.tensor(tokens)].sum())


@pytest.fixture(scope="module")
def tokenizer():
    """SmolLM2's tokenizer, read from its GGUF."""
    if not SMOLLM2.is_file():
        pytest.skip(f"no {SMOLLM2}: run `bash services/llamacpp/setup.sh` to fetch it")
    import transformers

    return transformers.AutoTokenizer.from_pretrained(str(SMOLLM2.parent), gguf_file=SMOLLM2.name)


def random_model(tokenizer, config_class, model_class, **shape):
    """A two-layer model of ``model_class`` (widths of 64) with random weights (seeded), for ``tokenizer``."""
    import torch

    config = config_class(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        **shape,
    )
    torch.manual_seed(0)
    return model_class(config).eval()


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory, tokenizer):
    """A folder ``hf:`` loads: a two-layer Llama with random weights (seeded), built from a ``LlamaConfig`` and
    saved as safetensors, with SmolLM2's tokenizer (read from its GGUF)."""
    import transformers

    folder = tmp_path_factory.mktemp("tiny_llama")
    random_model(tokenizer, transformers.LlamaConfig, transformers.LlamaForCausalLM).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture
def tiny(tiny_folder):
    """The random-weight Llama, loaded fresh for each test (its budget may change): a ``ClozeModel``."""
    return hf_causal_lm.load(str(tiny_folder), max_batch_tokens=400)


def test_the_pinned_instances_are_lm_evals_requests(rows):
    first = requests_of(rows)[0]
    assert first.context == "The technician told the customer that he could pay with cash. ‘He’ refers to the"
    assert first.continuations == (" technician", " customer")


@pytest.mark.slow  # SmolLM2 through corefbias, plain transformers and lm-eval: about 40 s
def test_loglikelihoods_and_decisions_match_plain_transformers_and_lm_eval(smollm2, rows, plain_transformers):
    requests = requests_of(rows)
    backend = smollm2.backend
    backend.stats = transformers_backend.TokenStats()
    ours = backend.loglikelihoods(requests)
    expected = [[plain_transformers(r.context, continuation) for continuation in r.continuations] for r in requests]
    for name, mine, reference in zip(LM_EVAL, ours, expected):
        assert mine == pytest.approx(reference, abs=TOLERANCE), name
        assert mine == pytest.approx(list(LM_EVAL[name]), abs=TOLERANCE), name
        assert reference == pytest.approx(list(LM_EVAL[name]), abs=TOLERANCE), name
    assert backend.stats.forward_passes == 1  # the CPU's layout: contexts and options in one pass of prefix trees

    choices = smollm2.choose(rows, WINOGENDER.task)
    lm_eval_choice = [max((0, 1), key=lambda option: LM_EVAL[name][option]) for name in LM_EVAL]
    assert [choice.index for choice in choices] == lm_eval_choice == [1, 1, 1, 0, 1, 0]
    for choice, mine in zip(choices, ours):
        assert list(choice.loglikelihoods) == pytest.approx(mine, abs=1e-9)


@pytest.mark.slow
def test_batch_size_and_a_forced_prefix_pass_change_nothing_but_rounding(smollm2, rows, monkeypatch):
    backend = smollm2.backend
    requests = requests_of(rows)
    batched = backend.loglikelihoods(requests)
    monkeypatch.setattr(backend, "max_batch_tokens", 1)  # one request per batch
    one_by_one = backend.loglikelihoods(requests)
    monkeypatch.undo()
    # Six instances are too few for the prefix-sharing layout's pass of shared prefixes to pay; free passes force one.
    monkeypatch.setattr(backend, "layout", "prefix-sharing")
    monkeypatch.setitem(pass_layouts.prefix_sharing.PASS_COST, "cpu", 0)
    backend.stats = transformers_backend.TokenStats()
    split = backend.loglikelihoods(requests)
    assert backend.stats.forward_passes == 3  # shared prefixes, the rest of each context, the longer options
    for name, a, b, c in zip(LM_EVAL, batched, one_by_one, split):
        assert a == pytest.approx(b, abs=TOLERANCE) and a == pytest.approx(c, abs=TOLERANCE)
        assert c == pytest.approx(list(LM_EVAL[name]), abs=TOLERANCE), name


@pytest.mark.reproduction
def test_the_batched_tokenization_is_lm_evals_pair_by_pair(smollm2, winogender):
    backend = smollm2.backend
    bos = backend.tokenizer.bos_token
    requests = requests_of(winogender) + [
        ClozeRequest("It rains. ", ("Yes", "No"), (0, 1)),  # trailing whitespace moves to the continuation
        ClozeRequest(f"{bos}It rains", ("yes", "no"), (0, 1)),  # a text starting with BOS gets no other
    ]
    encoded = backend.encode_requests(requests)
    for request, (context, options) in zip(requests, encoded):
        for continuation, tokens in zip(request.continuations, options):
            assert (context, tokens) == lm_eval_split(backend.tokenizer, request.context, continuation)
    empty = backend.encode_requests([ClozeRequest("", ("rain", "snow"), (0, 1), delimiter="")])
    assert empty == [
        (
            [backend.prefix_id],
            [backend.tokenizer(word, add_special_tokens=False)["input_ids"] for word in ("rain", "snow")],
        )
    ]


@pytest.mark.slow
@pytest.mark.parametrize("layout", LAYOUTS)
def test_decisions_do_not_depend_on_the_batch_budget(smollm2, winogender, monkeypatch, layout):
    """The same 30 instances in one batch, in batches of a hundred tokens or a few, one request per batch, and in
    calls of 7, in either layout: every log-likelihood within 1e-4 of the prefix-sharing layout's one batch, so
    decisions differ only on ties."""
    backend = smollm2.backend
    requests = requests_of(winogender[:30])
    reference = backend.loglikelihoods(requests)  # the CPU's default layout, one batch
    monkeypatch.setattr(backend, "layout", layout)
    answers, passes = {}, {}
    for budget in (4096, 300, 100, 1):
        monkeypatch.setattr(backend, "max_batch_tokens", budget)
        backend.stats = transformers_backend.TokenStats()
        answers[budget], passes[budget] = backend.loglikelihoods(requests), backend.stats.forward_passes
    monkeypatch.setattr(backend, "max_batch_tokens", 4096)
    answers["calls of 7"] = [
        ll for start in range(0, 30, 7) for ll in backend.loglikelihoods(requests[start : start + 7])
    ]
    assert passes[4096] < passes[300] < passes[100] < passes[1]  # not one layout under four names
    for name, found in answers.items():
        for mine, theirs in zip(found, reference):
            assert mine == pytest.approx(theirs, abs=TOLERANCE), name
            if abs(theirs[0] - theirs[1]) > TOLERANCE:
                assert (mine[0] > mine[1]) == (theirs[0] > theirs[1]), name


@pytest.mark.slow
@pytest.mark.parametrize("layout", LAYOUTS)
def test_only_one_float_per_option_leaves_the_device(tiny, winogender, monkeypatch, layout):
    """Every tensor the backend turns into host values (``cpu``, ``to``, ``tolist``, ``item``, ``numpy``,
    ``float``), counted where the backend's own code asks: one float per option per batch, never a row of
    the 49 152-token vocabulary; and the log-likelihoods those floats are those of an unbatched pass."""
    import torch

    backend = tiny.backend
    backend.layout = layout
    requests = requests_of(winogender[:60])
    pulled: list[int] = []

    def counting(name):
        original = getattr(torch.Tensor, name)

        def method(self, *args, **kwargs):
            if sys._getframe(1).f_globals.get("__name__") == transformers_backend.__name__ and self.is_floating_point():
                if name != "to" or "cpu" in map(str, (*args, *kwargs.values())):
                    pulled.append(self.numel())
            return original(self, *args, **kwargs)

        return method

    for name in ("cpu", "to", "tolist", "item", "numpy", "__float__"):
        monkeypatch.setattr(torch.Tensor, name, counting(name))
    batches = list(backend.loglikelihoods_in_batches(requests))
    monkeypatch.undo()
    assert len(batches) > 1
    assert pulled == [2 * len(positions) for positions, _ in batches]  # two options per instance, one float each
    found = dict(pair for positions, scores in batches for pair in zip(positions, scores))
    for index, request in enumerate(requests):
        expected = [
            unbatched_loglikelihood(backend.model, backend.tokenizer, request.context, c) for c in request.continuations
        ]
        assert found[index] == pytest.approx(expected, abs=TOLERANCE)


@pytest.mark.slow
def test_the_vocabulary_rows_are_turned_into_log_probabilities_a_few_at_a_time(tiny, winogender, monkeypatch):
    """``LOGITS_CHUNK`` of two vocabularies: pass B's log-softmax two rows at a time, pass C's forward passes one
    option at a time (each but the last from its own copy of the cache): the log-likelihoods of one chunk."""
    backend = tiny.backend
    requests = requests_of(winogender[:60])
    whole = backend.loglikelihoods(requests)
    monkeypatch.setattr(pass_layouts.vocabulary_rows, "LOGITS_CHUNK", 2 * backend.model.config.vocab_size)
    backend.stats = transformers_backend.TokenStats()
    for mine, theirs in zip(backend.loglikelihoods(requests), whole):
        assert mine == pytest.approx(theirs, abs=1e-6)
    longer = sum(len(tokens) > 1 for _, options in backend.encode_requests(requests) for tokens in options)
    assert backend.stats.forward_passes > longer // 2  # pass C in pieces


@pytest.mark.slow  # builds its own two-layer Llama; the layouts' answers are held to each other in the quick tier
def test_right_padded_contexts_attend_with_no_mask_and_tails_come_in_passes_of_one_length(
    tiny, winogender, monkeypatch
):
    """The right-padded layout: every attention call of a pass over whole contexts gets no mask and is causal (on a
    GPU, the fused kernels), only pass C's tails are masked, and those come in one pass per range of tail lengths,
    each padded to its own longest tail; the prefix-sharing layout masks every pass."""
    import torch

    backend = tiny.backend
    requests = requests_of(winogender)
    encoded = backend.encode_requests(requests)
    calls = []
    attention = torch.nn.functional.scaled_dot_product_attention

    def spied(query, key, value, attn_mask=None, *args, is_causal=False, **kwargs):
        calls.append((query.shape[2], attn_mask is None, is_causal))
        return attention(query, key, value, attn_mask, *args, is_causal=is_causal, **kwargs)

    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention", spied)
    backend.layout, backend.max_batch_tokens = "right-padded", 100_000  # one batch
    backend.stats = transformers_backend.TokenStats()
    backend.loglikelihoods(requests)
    tails = [len(tokens) - 1 for _, options in encoded for tokens in options if len(tokens) > 1]
    classes = {length.bit_length() for length in tails}
    layers = backend.model.config.num_hidden_layers
    assert len(classes) > 1 and backend.stats.forward_passes == 1 + len(classes)
    widest = max(len(context) for context, _ in encoded)
    assert calls[:layers] == [(widest, True, True)] * layers  # the contexts: no mask, causal
    assert all(not unmasked for _, unmasked, _ in calls[layers:])  # the tails under their mask
    padded_tails = sum(
        len(group) * max(group) for c in classes for group in [[t for t in tails if t.bit_length() == c]]
    )
    assert backend.stats.masked == padded_tails < len(tails) * max(tails)
    assert backend.stats.computed == len(encoded) * widest + padded_tails

    calls.clear()
    backend.layout = "prefix-sharing"
    backend.stats = transformers_backend.TokenStats()
    backend.loglikelihoods(requests)
    assert calls and all(not unmasked for _, unmasked, _ in calls)
    assert backend.stats.masked == backend.stats.computed


def test_the_prefix_tree_layout_computes_each_shared_prefix_once_in_one_pass(tiny, winogender, monkeypatch):
    """The prefix-tree layout: Winogender's 720 instances in one pass of rows of ``row_tokens``, every attention call
    under a 4-D mask (a token sees its ancestors in its row), within a tenth of the least any method computes (the
    rows' ends padded), and the CPU's default layout's log-likelihoods; at most ``pass_logits`` logits a pass."""
    import torch

    backend = tiny.backend
    requests = requests_of(winogender)
    expected = backend.loglikelihoods(requests)
    masks = []
    attention = torch.nn.functional.scaled_dot_product_attention

    def spied(query, key, value, attn_mask=None, *args, **kwargs):
        masks.append(None if attn_mask is None else (attn_mask.dtype, attn_mask.dim()))
        return attention(query, key, value, attn_mask, *args, **kwargs)

    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention", spied)
    backend.layout, backend.max_batch_tokens = "prefix-tree", 100_000
    backend.stats = transformers_backend.TokenStats()
    found = backend.loglikelihoods(requests)
    stats = backend.stats
    assert stats.forward_passes == 1 and stats.computed % backend.row_tokens == 0
    assert stats.masked == stats.computed < 1.1 * stats.distinct  # the rows' ends padded only
    assert masks == [(torch.bool, 4)] * backend.model.config.num_hidden_layers
    for mine, theirs in zip(found, expected):
        assert mine == pytest.approx(theirs, abs=1e-5)

    backend.pass_logits = 50 * backend.model.config.vocab_size  # 50 scored positions a pass
    backend.stats = transformers_backend.TokenStats()
    for mine, theirs in zip(backend.loglikelihoods(requests), expected):
        assert mine == pytest.approx(theirs, abs=1e-5)
    scored = sum(len(tokens) for _, options in backend.encode_requests(requests) for tokens in options)
    assert backend.stats.forward_passes >= scored / 50


def random_backend(tokenizer, config_class, model_class, attention: str, **shape):
    """A ``TransformersBackend`` over ``random_model`` with ``attention`` as its attention implementation."""
    model = random_model(tokenizer, config_class, model_class, **shape)
    model.config._attn_implementation = attention
    return transformers_backend.TransformersBackend(model, tokenizer, identity={"kind": "hf"})


@pytest.mark.parametrize(
    "family, attention, layer_types",
    [
        ("llama", "eager", None),
        ("gemma3", "sdpa", ["sliding_attention", "full_attention"]),
        ("gemma3", "eager", ["sliding_attention", "full_attention"]),
        ("gemma3", "sdpa", ["sliding_attention", "sliding_attention"]),
    ],
)
def test_every_layout_gives_an_unbatched_pass_log_likelihoods_whatever_the_attention(
    tokenizer, winogender, family, attention, layer_types
):
    """Eager attention (which adds its mask to the scores) and a sliding window of 6 tokens, in every layer or every
    other (Gemma 3's: a mask per kind of layer, which the prefix-tree layout builds from depths): every layout gives
    each option the log-likelihood of one unbatched pass over the whole sequence."""
    import transformers

    if family == "llama":
        backend = random_backend(tokenizer, transformers.LlamaConfig, transformers.LlamaForCausalLM, attention)
    else:
        backend = random_backend(
            tokenizer,
            transformers.Gemma3TextConfig,
            transformers.Gemma3ForCausalLM,
            attention,
            head_dim=16,
            sliding_window=6,
            layer_types=layer_types,
        )
    requests = requests_of(winogender[:24])
    expected = [
        [unbatched_loglikelihood(backend.model, tokenizer, request.context, c) for c in request.continuations]
        for request in requests
    ]
    for layout in LAYOUTS:
        backend.layout, backend.max_batch_tokens = layout, 600
        for mine, theirs in zip(backend.loglikelihoods(requests), expected):
            assert mine == pytest.approx(theirs, abs=1e-4), layout


def test_the_prefix_tree_layout_refuses_attention_that_takes_no_mask_of_its_own(tokenizer, winogender):
    """Asked for, the layout says what the model lacks; by default, such a model gets the prefix-sharing layout."""
    import transformers

    backend = random_backend(tokenizer, transformers.LlamaConfig, transformers.LlamaForCausalLM, "sdpa")
    backend.model.config._attn_implementation = "flash_attention_2"
    again = transformers_backend.TransformersBackend(backend.model, tokenizer, identity={"kind": "hf"})
    assert again.layout == "prefix-sharing"  # the CPU's default needs the mask: the model gets the layout before it
    backend.layout = "prefix-tree"
    with pytest.raises(
        ModelError, match="prefix-tree layout needs attention that takes a 4-D mask .* not 'flash_attention_2'"
    ):
        backend.loglikelihoods(requests_of(winogender[:2]))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_pass_runs_with_cudnn_attention_off_and_torchs_switch_is_restored(tiny, winogender, layout):
    """cuDNN's attention builds a plan per new shape, and nearly every pass has one: while the model computes, torch's
    cuDNN switch is off unless ``cudnn_attention`` says otherwise, and after the call it is as the user left it."""
    import torch

    backend = tiny.backend
    backend.layout = layout
    seen = []
    hook = backend.model.register_forward_pre_hook(lambda *_: seen.append(torch.backends.cuda.cudnn_sdp_enabled()))
    try:
        requests = requests_of(winogender)[:40]
        backend.loglikelihoods(requests)
        assert seen and not any(seen) and torch.backends.cuda.cudnn_sdp_enabled()
        seen.clear()
        backend.cudnn_attention = True
        backend.loglikelihoods(requests)
        assert seen and all(seen)
        seen.clear()
        torch.backends.cuda.enable_cudnn_sdp(False)  # the user's choice is kept either way
        backend.loglikelihoods(requests)
        assert seen and not any(seen) and not torch.backends.cuda.cudnn_sdp_enabled()
    finally:
        hook.remove()
        torch.backends.cuda.enable_cudnn_sdp(True)


def test_batches_are_sized_by_tokens_and_sorted_by_length(tiny, winogender):
    backend = tiny.backend
    encoded = backend.encode_requests(requests_of(winogender))
    batches = token_batches(encoded, range(len(encoded)), 400)
    assert sorted(index for batch in batches for index, _ in batch) == list(range(720))
    sizes = [footprint([encoded[index] for index, _ in batch]) for batch in batches]
    assert max(sizes) <= 400 and sum(sizes) / len(sizes) > 0.7 * 400  # mostly full, never over
    rests = [max(len(encoded[index][0]) - shared for index, shared in batch) for batch in batches]
    assert rests == sorted(rests, reverse=True)  # the widest first: little padding within a batch


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_batch_out_of_memory_is_retried_at_half_the_budget(tiny, winogender, monkeypatch, layout):
    """A model that runs out of memory above 150 tokens (rows × attended width): the backend splits what failed,
    keeps the halved budget, and answers as the unconstrained run; a single request too large is a ModelError."""
    import torch

    backend = tiny.backend
    backend.layout = layout
    requests = requests_of(winogender[:30])
    expected = backend.loglikelihoods(requests)
    forward = backend.model.forward

    def scarce(*args, input_ids, attention_mask, **kwargs):
        attended = input_ids.numel() if attention_mask is None else attention_mask.shape[0] * attention_mask.shape[-1]
        if attended > 150:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (a test's stand-in)")
        return forward(*args, input_ids=input_ids, attention_mask=attention_mask, **kwargs)

    monkeypatch.setattr(backend.model, "forward", scarce)
    found = backend.loglikelihoods(requests)
    assert backend.max_batch_tokens < 400
    for mine, theirs in zip(found, expected):
        assert mine == pytest.approx(theirs, abs=TOLERANCE)
    long = ClozeRequest("word " * 200, (" a", " b"), (0, 1))
    with pytest.raises(ModelError, match="one request .* does not fit in the memory of cpu"):
        backend.loglikelihoods([long])


def test_the_batches_before_a_request_too_large_are_answered_before_the_error(tiny, winogender, monkeypatch):
    """Each batch is answered once the next is on its way (the host works while the device does); a request that fits
    in no memory still gets the batches computed before it answered, then the error."""
    import torch

    backend = tiny.backend
    backend.layout = "prefix-tree"  # the longest requests last
    forward = backend.model.forward

    def scarce(*args, input_ids, attention_mask, **kwargs):
        if input_ids.shape[1] > 100:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (a test's stand-in)")
        return forward(*args, input_ids=input_ids, attention_mask=attention_mask, **kwargs)

    monkeypatch.setattr(backend.model, "forward", scarce)
    requests = [*requests_of(winogender[:6]), ClozeRequest("word " * 200, (" a", " b"), (0, 1))]
    answered = []
    with pytest.raises(ModelError, match="one request .* does not fit"):
        for positions, _ in backend.loglikelihoods_in_batches(requests):
            answered.extend(positions)
    assert sorted(answered) == list(range(6))


def test_a_gpu_call_scores_its_longest_eighth_while_a_thread_tokenizes_the_rest(tiny, winogender, monkeypatch):
    """``tokenize_ahead`` (a GPU's default, forced here on the CPU): the 90 of Winogender's 720 instances with the
    longest contexts are tokenized by the caller and all their batches answered before any of the other 630, which
    another thread tokenized, and were planned before the last batch of the 90 was answered (while a device would
    compute it); every instance answered once, as the call tokenized at once answers it."""
    backend = tiny.backend
    requests = requests_of(winogender)
    assert backend.tokenize_ahead is False  # the CPU's default
    expected = backend.loglikelihoods(requests)
    encode, encoded_by, events = backend.encode_requests, [], []

    def recorded(part):
        encoded_by.append((len(part), threading.get_ident()))
        return encode(part)

    layout = backend.layouts[backend.layout]
    plan = layout.plan

    def planned(encoded, indices):
        events.append(("planned", len(indices)))
        return plan(encoded, indices)

    monkeypatch.setattr(backend, "encode_requests", recorded)
    monkeypatch.setattr(layout, "plan", planned)
    backend.tokenize_ahead = True
    answered, found = [], [None] * len(requests)
    for positions, answers in backend.loglikelihoods_in_batches(requests):
        answered.append(positions)
        events.append(("answered", len(positions)))
        for position, answer in zip(positions, answers):
            found[position] = answer
    caller = threading.get_ident()
    assert [(size, thread == caller) for size, thread in encoded_by] == [(90, True), (630, False)]
    rest_planned = events.index(("planned", 630))
    assert events[rest_planned + 1][0] == "answered" and events[:rest_planned].count(("planned", 90)) == 1
    assert sum(size for kind, size in events[: rest_planned + 2] if kind == "answered") == 90
    longest = sorted(range(720), key=lambda index: -len(requests[index].context))[:90]
    in_head = [set(batch) <= set(longest) for batch in answered]
    assert in_head == sorted(in_head, reverse=True) and 1 <= in_head.count(True) < len(answered)
    assert sorted(position for batch in answered for position in batch) == list(range(720))
    for mine, theirs in zip(found, expected):
        assert mine == pytest.approx(theirs, abs=TOLERANCE)


def test_scoring_warns_nothing(tiny, rows):
    """transformers' current cache argument (``cache`` since 5.x, ``past_key_values`` before): no FutureWarning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tiny.backend.loglikelihoods(requests_of(rows))
    assert [str(warning.message) for warning in caught if issubclass(warning.category, FutureWarning)] == []


def test_a_run_hands_hf_whole_benchmarks_and_caches_each_batch_as_it_comes(tiny, exported_set, tmp_path):
    """One call for Winogender's 720 instances (``call_size``), answered in batches of 400 tokens: a run stopped
    after its first batch keeps that batch, and the same command asks only for the rest."""
    data_dir, cache = exported_set("winogender").parent, tmp_path / "cache.sqlite"
    seen = []

    def stop_after_the_first_batch(benchmark, done, total):
        seen.append(done)
        if done:
            raise KeyboardInterrupt

    def run(on_progress=None):
        return runner.run(
            tiny.name,
            ["winogender"],
            runner.RunSettings(n_bootstrap=0),
            data_dir=data_dir,
            cache_path=cache,
            progress=False,
            model=tiny,
            on_progress=on_progress,
        )

    with pytest.raises(KeyboardInterrupt):
        run(stop_after_the_first_batch)
    first = seen[-1]
    assert 0 < first < 720
    resumed = run()
    assert resumed.runs["winogender"].num_predicted == 720 - first
    assert resumed.settings["batch_size"] == transformers_backend.CALL_SIZE
    whole = runner.run(
        tiny.name,
        ["winogender"],
        runner.RunSettings(n_bootstrap=0, cache_mode="off"),
        data_dir=data_dir,
        progress=False,
        model=tiny,
    )
    for mine, theirs in zip(resumed.runs["winogender"].instances, whole.runs["winogender"].instances):
        assert mine["loglikelihoods"] == pytest.approx(theirs["loglikelihoods"], abs=TOLERANCE)


@pytest.mark.slow  # lm-eval scores the 720 instances in about a minute on one core, and this backend in 30 s a layout
def test_every_winogender_decision_is_lm_evals(smollm2, winogender, monkeypatch):
    """lm-evaluation-harness 0.4.13's ``HFLM.loglikelihood`` on the same model object and tokenizer, against both
    layouts."""
    pytest.importorskip("lm_eval", reason="lm-eval is part of the test extra: pip install -e '.[test]'")
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    requests = requests_of(winogender)
    backend = smollm2.backend
    lm = HFLM(pretrained=backend.model, tokenizer=backend.tokenizer, batch_size=16, softmax_dtype="float32")
    pairs = [(request.context, continuation) for request in requests for continuation in request.continuations]
    flat = iter(
        ll
        for ll, _ in lm.loglikelihood(
            [Instance("loglikelihood", {}, pair, i) for i, pair in enumerate(pairs)], disable_tqdm=True
        )
    )
    theirs = [[next(flat) for _ in request.continuations] for request in requests]
    # The CPU's layout on all 720; each other layout on the first OTHER_LAYOUTS_SAMPLE (each is held to it on 30
    # instances at every batch budget by test_decisions_do_not_depend_on_the_batch_budget).
    default = backend.layout
    for layout in LAYOUTS:
        count = len(requests) if layout == default else OTHER_LAYOUTS_SAMPLE
        monkeypatch.setattr(backend, "layout", layout)
        ours = backend.loglikelihoods(requests[:count])
        assert max(abs(a - b) for x, y in zip(ours, theirs) for a, b in zip(x, y)) < TOLERANCE, layout
        decided = [max((0, 1), key=lambda o: ll[o]) for ll in ours]
        assert decided == [max((0, 1), key=lambda o: ll[o]) for ll in theirs[:count]], layout


class FixedBackend:
    identity = {"kind": "fixed"}

    def __init__(self, loglikelihoods):
        self.answers = loglikelihoods

    def loglikelihoods(self, requests):
        return [list(self.answers) for _ in requests]


def test_the_bytes_norm_divides_by_utf8_bytes_not_characters():
    """'café' is 4 characters and 5 bytes: per character it loses to 'accountant', per byte it wins."""
    row = {
        "text": "The accountant met the café owner. She smiled.",
        "pronoun": {"text": "She", "start": 35, "end": 38},
        "candidates": [{"text": "the accountant", "start": 0, "end": 14}, {"text": "café", "start": 23, "end": 27}],
        "occupation": "accountant",
        "participant": "café",
    }
    task = Task("handmade", "en", "id", WINOGENDER.cloze)
    scores = (-11.0, -4.6)  # per byte -1.1 vs -0.92; per character -1.1 vs -1.15; summed -11.0 vs -4.6
    assert ClozeModel("fixed", FixedBackend(scores), "none").choose([row], task)[0].index == 1
    assert ClozeModel("fixed", FixedBackend(scores), "bytes").choose([row], task)[0].index == 1
    scores = (-11.0, -6.0)  # summed, 'café' wins; per byte (-1.1 vs -1.2) 'accountant' does
    assert ClozeModel("fixed", FixedBackend(scores), "none").choose([row], task)[0].index == 1
    assert ClozeModel("fixed", FixedBackend(scores), "bytes").choose([row], task)[0].index == 0


@pytest.mark.slow
def test_the_bytes_norm_on_the_model(smollm2, rows):
    requests = requests_of(rows)
    normed = ClozeModel(smollm2.name, smollm2.backend, "bytes").choose(rows, WINOGENDER.task)
    for request, choice in zip(requests, normed):
        per_byte = [ll / len(text.encode()) for ll, text in zip(choice.loglikelihoods, request.choices)]
        assert choice.index == max((0, 1), key=lambda option: per_byte[option])


def test_trust_remote_code_is_refused():
    with pytest.raises(ValueError, match="trust_remote_code"):
        hf_causal_lm.load(str(SMOLLM2), trust_remote_code=True)


def test_a_missing_gguf_file_says_so(tmp_path):
    absent = tmp_path / "absent.gguf"
    with pytest.raises(ModelError, match=re.escape(f"no GGUF file {absent}")):
        hf_causal_lm.load(str(absent))
    from corefbias.models.registry import load_model

    with pytest.raises(ModelError, match="no GGUF file"):
        load_model(f"hf:{absent}")


def test_a_hub_id_not_in_the_cache_says_how_to_run_offline():
    # The tests run with HF_HUB_OFFLINE=1 (conftest): transformers fails at once; without it, after a minute of retries.
    with pytest.raises(
        ModelError, match=r"hf:nobody/no-such-model could not be loaded \(a Hub id is read from the Hub"
    ):
        hf_causal_lm.load("nobody/no-such-model")


def _answer_loaders_with(model, tokenizer, monkeypatch):
    """transformers' loaders answering with ``model`` (cast where asked) and ``tokenizer``, as they would for
    SmolLM2's GGUF."""
    import torch
    import transformers

    def from_pretrained(source, dtype="auto", **options):
        assert options["gguf_file"] == SMOLLM2.name and not options["trust_remote_code"]
        return model if dtype in ("auto", "float32") else copy.deepcopy(model).to(getattr(torch, dtype))

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", from_pretrained)
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", lambda *args, **options: tokenizer)


def test_the_identity_follows_the_dtype_not_the_device_or_batch_size(tiny, monkeypatch):
    """``load`` of SmolLM2's GGUF path, its loaders answering with the two-layer Llama: the GGUF names the weights."""
    if not SMOLLM2.is_file():
        pytest.skip(f"no {SMOLLM2}: run `bash services/llamacpp/setup.sh` to fetch it")
    _answer_loaders_with(tiny.backend.model, tiny.backend.tokenizer, monkeypatch)

    def key(**options):
        return runner.cache_key(hf_causal_lm.load(str(SMOLLM2), **options).identity)

    assert key(device="auto", max_batch_tokens=1) == key(device="cpu", call_size=8, threads=1) == key(dtype="float32")
    assert key() == key(dtype="float32")
    assert key(dtype="bfloat16") != key()
    assert hf_causal_lm.load(str(SMOLLM2), dtype="bfloat16").identity["dtype"] == "bfloat16"


@pytest.mark.slow  # loads SmolLM2
def test_the_gguf_dequantizes_to_float32_under_the_identity_of_a_load(smollm2, monkeypatch):
    _answer_loaders_with(smollm2.backend.model, smollm2.backend.tokenizer, monkeypatch)
    assert runner.cache_key(hf_causal_lm.load(str(SMOLLM2)).identity) == runner.cache_key(smollm2.identity)
    assert smollm2.identity["dtype"] == "float32"


def test_a_run_writes_loglikelihoods_and_caches_them_by_template(
    tiny, tiny_folder, exported_set, tmp_path, monkeypatch
):
    data_dir = exported_set("winogender").parent
    cache = tmp_path / "cache.sqlite"

    def run():
        return runner.run(
            f"hf:{tiny_folder}",
            ["winogender"],
            runner.RunSettings(limit=1, n_bootstrap=0),
            data_dir=data_dir,
            cache_path=cache,
            progress=False,
            model=tiny,
        )

    first = run()
    asked = first.runs["winogender"]
    assert asked.num_predicted == len(asked.instances) == 6
    written = write_outputs(first, tmp_path / "out", plots=False)["instances/winogender.jsonl"]
    lines = [json.loads(line) for line in written.read_text().splitlines()]
    assert len(lines) == 6
    for line in lines:
        assert len(line["loglikelihoods"]) == 2
        best = max((0, 1), key=lambda option: line["loglikelihoods"][option])
        assert line["decision"] == [option == best for option in (0, 1)]

    again = run().runs["winogender"]
    assert again.num_predicted == 0
    assert [i["loglikelihoods"] for i in again.instances] == [i["loglikelihoods"] for i in asked.instances]

    edited = dataclasses.replace(WINOGENDER.cloze, suffix=" ‘{Pronoun}’ is the")
    assert isinstance(edited, ClozeTemplate) and edited.identity != WINOGENDER.cloze.identity
    # The same benchmark reworded, in place of the built-in for this test only.
    monkeypatch.setattr(registry, "BENCHMARKS", _registry_with(dataclasses.replace(WINOGENDER, cloze=edited)))
    reworded = run().runs["winogender"]
    assert reworded.num_predicted == 6
    assert [i["loglikelihoods"] for i in reworded.instances] != [i["loglikelihoods"] for i in asked.instances]

    monkeypatch.setattr(registry, "BENCHMARKS", _registry_with(WINOGENDER))
    assert run().runs["winogender"].num_predicted == 0


def _registry_with(replacement):
    """A registry of the built-in benchmarks with ``replacement`` in place of the one of its name."""
    chosen = [replacement if benchmark.name == replacement.name else benchmark for benchmark in BENCHMARKS.values()]
    return Registry("benchmark", registry.ENTRY_POINT_GROUP, lambda: chosen, lambda declared, origin, name: [declared])
