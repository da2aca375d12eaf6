"""Weights load without running code: checkpoints that would execute code when unpickled are refused
by every loader before the model library sees them; real tensor checkpoints pass; safetensors win."""

import io
import pickle
import sys
import types
from collections import OrderedDict

import pytest

from corefbias.models import hub_weights, pickle_guard
from corefbias.models.pickle_guard import UnsafeCheckpointError, check_checkpoint, pickle_globals
from corefbias.models.registry import load_model

REVISION = "d5a382c8bfe1105cee1a73007525ee08ab693d9a"


class WritesMarker:
    """Unpickling this runs ``exec``, which writes a marker file: what a malicious checkpoint would do."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('ran')",)


def _malicious_checkpoint(path, marker, torch_format=True):
    payload = {"state_dict": OrderedDict(weight=[0.5, 1.5]), "hyper_parameters": WritesMarker(marker)}
    if torch_format:
        torch = pytest.importorskip("torch")
        payload["state_dict"]["weight"] = torch.ones(2)
        torch.save(payload, path)
    else:
        path.write_bytes(pickle.dumps(payload, protocol=4))
    return path


def test_the_malicious_checkpoint_really_runs_code_when_unpickled(tmp_path):
    marker = tmp_path / "marker"
    pickle.loads(_malicious_checkpoint(tmp_path / "x.pkl", marker, torch_format=False).read_bytes())
    assert marker.read_text() == "ran"


@pytest.mark.parametrize("torch_format", [True, False], ids=["torch.save zip", "plain pickle protocol 4"])
def test_a_checkpoint_that_runs_code_is_refused_and_torch_weights_only_agrees(tmp_path, torch_format):
    marker = tmp_path / "marker"
    path = _malicious_checkpoint(tmp_path / "weights.ckpt", marker, torch_format)
    with pytest.raises(UnsafeCheckpointError, match="would import builtins.exec when unpickled"):
        check_checkpoint(path)
    if torch_format:
        import torch

        with pytest.raises(pickle.UnpicklingError, match="GLOBAL exec was not an allowed global"):
            torch.load(path, weights_only=True)
    assert not marker.exists()


def test_a_torch_state_dict_and_a_lightning_style_checkpoint_pass(tmp_path):
    torch = pytest.importorskip("torch")
    checkpoint = {
        "epoch": 3,
        "global_step": 1200,
        "pytorch-lightning_version": "2.4.0",
        "state_dict": OrderedDict(weight=torch.randn(3, 2), bias=torch.zeros(3, dtype=torch.float16)),
        "optimizer_states": [{"state": {0: {"step": torch.tensor(5.0)}}, "param_groups": [{"lr": 1e-5}]}],
        "hyper_parameters": {"model": {"name": "maverick_mes", "dims": (1, 2)}, "tags": {"a", "b"}, "raw": b"\x00\x01"},
    }
    torch.save(checkpoint, tmp_path / "weights.ckpt")
    torch.save(checkpoint["state_dict"], tmp_path / "pytorch_model.bin")
    torch.save(checkpoint, tmp_path / "legacy.ckpt", _use_new_zipfile_serialization=False)
    for name in ("weights.ckpt", "pytorch_model.bin", "legacy.ckpt"):
        check_checkpoint(tmp_path / name)
        torch.load(tmp_path / name, weights_only=True)  # torch's own rule accepts them too


def test_imports_hidden_behind_the_memo_or_the_stack_are_caught():
    # Protocol 4 names a global by two strings on the stack; the second "builtins" comes from the memo.
    assert pickle_globals(io.BytesIO(pickle.dumps([exec, eval], protocol=4))) == [
        ("builtins", "exec"),
        ("builtins", "eval"),
    ]
    # STACK_GLOBAL on values that are not strings pushed just before it: what it imports is unknown, so refused.
    crafted = b"\x80\x04\x8c\x08builtins\x8c\x04exec\x86\x94(t\x93."
    assert ("?", "?") in pickle_globals(io.BytesIO(crafted))


@pytest.fixture
def stand_in_libraries(monkeypatch):
    """``fastcoref`` and ``maverick`` stand-ins that record whether a model was ever built."""
    built = []

    class Model:
        def __init__(self, **kwargs):
            built.append(kwargs)

    monkeypatch.setitem(sys.modules, "fastcoref", types.SimpleNamespace(FCoref=Model, LingMessCoref=Model))
    monkeypatch.setitem(sys.modules, "maverick", types.SimpleNamespace(Maverick=Model))
    return built


def _hub(monkeypatch, folder, files):
    asked = []
    monkeypatch.setattr(hub_weights, "_hub_files", lambda repo, revision: files)
    monkeypatch.setattr(hub_weights, "_hub_download", lambda repo, revision, patterns: asked.append(patterns) or folder)
    return asked


@pytest.mark.parametrize("spec", ["fastcoref", "lingmess", "fastcoref-hub", "lingmess-hub"])
def test_the_fastcoref_loader_refuses_a_pickled_model_that_runs_code(spec, stand_in_libraries, tmp_path, monkeypatch):
    folder, marker = tmp_path / "model", tmp_path / "marker"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    _malicious_checkpoint(folder / "pytorch_model.bin", marker, torch_format=False)
    kind, _, hub = spec.partition("-")
    if hub:
        asked = _hub(monkeypatch, folder, ["config.json", "pytorch_model.bin", "modeling_evil.py"])
        argument = f"biu-nlp/f-coref@{REVISION}"
    else:
        argument = str(folder)
    with pytest.raises(UnsafeCheckpointError, match="pytorch_model.bin would import builtins.exec"):
        load_model(f"{kind}:{argument}")
    assert stand_in_libraries == [] and not marker.exists()
    if hub:  # no code is ever downloaded
        assert asked == [["*.json", "*.txt", "*.model", "*.tiktoken", "pytorch_model.bin"]]


@pytest.mark.parametrize("where", ["file", "folder", "hub"])
def test_the_maverick_loader_refuses_a_checkpoint_that_runs_code(where, stand_in_libraries, tmp_path, monkeypatch):
    marker = tmp_path / "marker"
    checkpoint = _malicious_checkpoint(tmp_path / "weights.ckpt", marker, torch_format=False)
    argument = {
        "file": str(checkpoint),
        "folder": str(tmp_path),
        "hub": f"sapienzanlp/maverick-mes-ontonotes@{REVISION}",
    }
    if where == "hub":
        _hub(monkeypatch, tmp_path, ["weights.ckpt"])
    with pytest.raises(UnsafeCheckpointError, match="weights.ckpt would import builtins.exec"):
        load_model(f"maverick:{argument[where]}")
    assert stand_in_libraries == [] and not marker.exists()


def test_safetensors_are_chosen_over_pickles_and_unused_pickles_are_not_read(stand_in_libraries, tmp_path, monkeypatch):
    (tmp_path / "model.safetensors").write_bytes(b"")
    _malicious_checkpoint(tmp_path / "pytorch_model.bin", tmp_path / "marker", torch_format=False)
    asked = _hub(monkeypatch, tmp_path, ["config.json", "model.safetensors", "pytorch_model.bin"])
    load_model(f"fastcoref:biu-nlp/f-coref@{REVISION}")
    assert asked == [["*.json", "*.txt", "*.model", "*.tiktoken", "*.safetensors"]]
    assert stand_in_libraries == [{"model_name_or_path": str(tmp_path), "device": "cpu", "enable_progress_bar": False}]


def test_hub_revisions_must_be_full_commit_ids():
    assert hub_weights.split_hub_id(f"biu-nlp/f-coref@{REVISION}") == ("biu-nlp/f-coref", REVISION)
    assert hub_weights.split_hub_id("biu-nlp/f-coref") == ("biu-nlp/f-coref", None)
    assert hub_weights.split_hub_id("/etc") is None and hub_weights.split_hub_id("../x/y") is None
    with pytest.raises(ValueError, match="full 40-character commit id"):
        hub_weights.split_hub_id("biu-nlp/f-coref@main")
    assert ("builtins", "exec") not in pickle_guard.ALLOWED_GLOBALS
