"""``hf:`` on a real model: SmolLM2-135M-Instruct (the GGUF ``services/llamacpp/setup.sh`` fetches), scored
by log-likelihood through ``corefbias.models.hf_causal_lm``.

Six Winogender instances — three that share their first tokens (a pass of shared prefixes, forced in one
test, computes them once), three with options of three or four tokens (a pass of its own) — are pinned
against log-likelihoods computed here with plain ``transformers``, one unbatched forward pass over each
context + continuation split as lm-eval splits them, and against lm-evaluation-harness 0.4.13's own
numbers. The tests that need the model skip when the GGUF is missing.
"""

import copy
import dataclasses
import json
import re

import pytest
from test_llamacpp_service import CACHE, MODELS

from corefbias.benchmarks import BENCHMARKS, registry
from corefbias.harness import runner
from corefbias.harness.run_outputs import write_outputs
from corefbias.models import hf_causal_lm
from corefbias.models.base import ModelError, Task
from corefbias.models.cloze import ClozeModel
from corefbias.models.cloze_template import ClozeTemplate
from corefbias.plugins.registry import Registry

SMOLLM2 = CACHE / "models" / f"{MODELS['smollm2']}.gguf"
WINOGENDER = BENCHMARKS["winogender"]
TOLERANCE = 1e-4

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


def test_the_pinned_instances_are_lm_evals_requests(rows):
    first = requests_of(rows)[0]
    assert first.context == "The technician told the customer that he could pay with cash. ‘He’ refers to the"
    assert first.continuations == (" technician", " customer")


def test_loglikelihoods_and_decisions_match_plain_transformers_and_lm_eval(smollm2, rows, plain_transformers):
    requests = requests_of(rows)
    backend = smollm2.backend
    backend.stats = hf_causal_lm.TokenStats()
    ours = backend.loglikelihoods(requests)
    expected = [[plain_transformers(r.context, continuation) for continuation in r.continuations] for r in requests]
    for name, mine, reference in zip(LM_EVAL, ours, expected):
        assert mine == pytest.approx(reference, abs=TOLERANCE), name
        assert mine == pytest.approx(list(LM_EVAL[name]), abs=TOLERANCE), name
        assert reference == pytest.approx(list(LM_EVAL[name]), abs=TOLERANCE), name
    assert backend.stats.forward_passes == 2  # the contexts, the options of more than one token

    choices = smollm2.choose(rows, WINOGENDER.task)
    lm_eval_choice = [max((0, 1), key=lambda option: LM_EVAL[name][option]) for name in LM_EVAL]
    assert [choice.index for choice in choices] == lm_eval_choice == [1, 1, 1, 0, 1, 0]
    for choice, mine in zip(choices, ours):
        assert list(choice.loglikelihoods) == pytest.approx(mine, abs=1e-9)


def test_batch_size_and_a_forced_prefix_pass_change_nothing_but_rounding(smollm2, rows, monkeypatch):
    backend = smollm2.backend
    requests = requests_of(rows)
    batched, size = backend.loglikelihoods(requests), backend.batch_size
    backend.batch_size = 1
    try:
        one_by_one = backend.loglikelihoods(requests)
    finally:
        backend.batch_size = size
    # Six instances are too few for a pass of shared prefixes to pay; free passes force one.
    monkeypatch.setattr(hf_causal_lm, "PASS_COST", 0)
    backend.stats = hf_causal_lm.TokenStats()
    split = backend.loglikelihoods(requests)
    assert backend.stats.forward_passes == 3  # shared prefixes, the rest of each context, the longer options
    for name, a, b, c in zip(LM_EVAL, batched, one_by_one, split):
        assert a == pytest.approx(b, abs=TOLERANCE) and a == pytest.approx(c, abs=TOLERANCE)
        assert c == pytest.approx(list(LM_EVAL[name]), abs=TOLERANCE), name


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


def test_the_identity_follows_the_dtype_not_the_device_or_batch_size(smollm2, monkeypatch):
    """``load`` with transformers' loaders answering with the weights already loaded (cast where asked)."""
    import torch
    import transformers

    model, tokenizer = smollm2.backend.model, smollm2.backend.tokenizer

    def from_pretrained(source, dtype="auto", **options):
        assert options["gguf_file"] == SMOLLM2.name and not options["trust_remote_code"]
        return model if dtype in ("auto", "float32") else copy.deepcopy(model).to(getattr(torch, dtype))

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", from_pretrained)
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", lambda *args, **options: tokenizer)

    def key(**options):
        return runner.cache_key(hf_causal_lm.load(str(SMOLLM2), **options).identity)

    assert key() == runner.cache_key(smollm2.identity)
    assert key(device="auto", batch_size=1) == key(device="cpu", batch_size=64, threads=1) == key(dtype="float32")
    assert key(dtype="bfloat16") != key()
    assert hf_causal_lm.load(str(SMOLLM2), dtype="bfloat16").identity["dtype"] == "bfloat16"
    assert smollm2.identity["dtype"] == "float32"  # what the GGUF's weights dequantize to


def test_a_run_writes_loglikelihoods_and_caches_them_by_template(smollm2, exported_set, tmp_path, monkeypatch):
    data_dir = exported_set("winogender").parent
    cache = tmp_path / "cache.sqlite"

    def run():
        return runner.run(
            f"hf:{SMOLLM2}",
            ["winogender"],
            runner.RunSettings(limit=1, n_bootstrap=0),
            data_dir=data_dir,
            cache_path=cache,
            progress=False,
            model=smollm2,
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
