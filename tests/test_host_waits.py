"""The host never reads a value of the model's device while ``hf:`` lays out and scores a batch (on CUDA each such read
waits for every pass queued, so that the host cannot lay out the next batch meanwhile): ``perf/host_syncs.py``'s
``DeviceReads`` follows the device's tensors on the CPU too."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from test_hf_cloze import (  # noqa: F401  (fixtures)
    LAYOUTS,
    random_backend,
    requests_of,
    tiny,
    tiny_folder,
    tokenizer,
    winogender,
)

from corefbias.models import transformers_backend
from corefbias.models.pass_layouts.device_copies import on_device

CPU_LAYOUT = transformers_backend.LAYOUTS["cpu"]

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def host_syncs():
    """``perf/host_syncs.py`` as a module."""
    spec = importlib.util.spec_from_file_location("benchmark_host_syncs", REPO / "perf" / "host_syncs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def reads_of(host_syncs, backend, requests):
    """The reads of device values while ``backend`` scores ``requests``, and its answers."""
    reads = host_syncs.DeviceReads()
    with reads.watching(backend.model):
        answers = backend.loglikelihoods(requests)
    return reads.where, answers


# The CPU's layout in the quick tier, the others in the slow one.
@pytest.mark.parametrize(
    "layout",
    [layout if layout == CPU_LAYOUT else pytest.param(layout, marks=pytest.mark.slow) for layout in LAYOUTS],
)
def test_no_layout_reads_a_value_of_the_device_between_its_answers(host_syncs, tiny, winogender, layout):
    """60 instances in several batches, a Llama with ``sdpa`` attention: not one read, and the answers of an unwatched
    call."""
    backend = tiny.backend
    backend.layout = layout
    requests = requests_of(winogender[:60])
    where, answers = reads_of(host_syncs, backend, requests)
    assert backend.stats.forward_passes > 1
    assert where == {}
    for watched, unwatched in zip(answers, backend.loglikelihoods(requests)):
        assert watched == pytest.approx(unwatched, abs=1e-6)


def test_the_count_sees_transformers_read_a_padding_mask(host_syncs, tiny, winogender, monkeypatch):
    """Handed the 2-D padding masks as they were before, transformers reads them on the host to choose between a mask
    and ``is_causal``; the count finds those reads, in transformers' masking code."""
    backend = tiny.backend
    backend.layout = "prefix-sharing"

    def as_before(model, padding, query_length, device):
        return on_device(padding, device)

    monkeypatch.setattr(transformers_backend, "padding_attention", as_before)
    where, _ = reads_of(host_syncs, backend, requests_of(winogender[:60]))
    assert {line.split(" at ")[1].split(":")[0] for line in where} == {"masking_utils.py"}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_with_sliding_attention_only_transformers_reads_where_its_cache_dropped_keys(
    host_syncs, tokenizer, winogender, layout
):
    """Gemma 3's layers, every other one with a window of 6 tokens: the prefix trees read nothing; the layouts that
    continue a key/value cache leave the mask to transformers where its sliding layers have dropped keys
    (``keeps_a_window``), which may read it; nothing in corefbias does."""
    import transformers

    backend = random_backend(
        tokenizer,
        transformers.Gemma3TextConfig,
        transformers.Gemma3ForCausalLM,
        "sdpa",
        head_dim=16,
        sliding_window=6,
        layer_types=["sliding_attention", "full_attention"],
    )
    backend.layout, backend.max_batch_tokens = layout, 600
    where, _ = reads_of(host_syncs, backend, requests_of(winogender[:24]))
    readers = {line.split(" at ")[1].split(":")[0] for line in where}
    assert readers <= (set() if layout == "prefix-tree" else {"masking_utils.py"})


def test_the_count_asks_no_lazy_module_for_a_name_it_lacks(host_syncs, tiny, winogender, monkeypatch):
    """A module that imports what it is asked for (transformers' are lazy) and fails to, as transformers 5.17 did
    without torchvision, is not asked: the count still runs, and still follows the copies to the device."""
    import types

    class Lazy(types.ModuleType):
        def __getattr__(self, name):
            raise ModuleNotFoundError(f"asked for {name}")

    monkeypatch.setitem(sys.modules, "a_lazy_module", Lazy("a_lazy_module"))
    backend = tiny.backend
    backend.layout = "prefix-tree"
    reads, copying = host_syncs.DeviceReads(), transformers_backend.on_device
    with reads.watching(backend.model):
        assert transformers_backend.on_device is not copying
        backend.loglikelihoods(requests_of(winogender[:12]))
    assert transformers_backend.on_device is copying
    assert reads.where == {}
