"""On CUDA a copy from pageable host memory waits for every kernel already queued, so that one made after a forward
pass is queued holds the host until the pass is done (``corefbias.models.pass_layouts.device_copies``). The scoring
code copies to the device only through ``device_copies``; allocating on the device (``torch.zeros(..., device=)``) is
no copy."""

import ast
from pathlib import Path

import torch

from corefbias.models.pass_layouts import device_copies

MODELS = Path(device_copies.__file__).parents[1]
SCORING = [MODELS / "transformers_backend.py", *sorted((MODELS / "pass_layouts").glob("*.py"))]
COPIES = {"to", "cuda", "copy_"}  # tensor methods that copy across devices
FROM_HOST_DATA = {"tensor", "as_tensor", "from_numpy"}  # torch functions that build a tensor from host data


def copies_outside_device_copies(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        name = node.func.attr
        to_device = name in FROM_HOST_DATA and any(keyword.arg == "device" for keyword in node.keywords)
        if name in COPIES or to_device:
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node)[:80]}")
    return found


def test_the_scoring_code_copies_to_the_device_only_through_device_copies():
    assert len(SCORING) > 5
    found = [copy for path in SCORING if path.name != "device_copies.py" for copy in copies_outside_device_copies(path)]
    assert found == []


def test_the_finder_sees_a_pageable_copy(tmp_path):
    written = tmp_path / "layout.py"
    written.write_text("def f(t, d):\n    return t.to(d), torch.tensor([1], device=d), torch.zeros(2, device=d)\n")
    assert copies_outside_device_copies(written) == ["layout.py:2 t.to(d)", "layout.py:2 torch.tensor([1], device=d)"]


def test_on_a_cpu_a_copy_is_a_plain_one():
    values = torch.tensor([[1, 2], [3, 4]])
    assert device_copies.on_device(values, torch.device("cpu")) is values
    assert device_copies.indices_on([2, 0], torch.device("cpu")).tolist() == [2, 0]
