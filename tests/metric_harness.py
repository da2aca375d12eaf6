"""Helpers of the metric modules' own tests: loading a module, add_batch and num_process equivalence (the checks
every metric folder passes are in ``metric_checks``)."""

from __future__ import annotations

import math
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import evaluate

REPO = Path(__file__).resolve().parents[1]


def load(name: str):
    return evaluate.load(str(REPO / "metrics" / name), experiment_id=uuid.uuid4().hex)


def assert_same_results(left: dict, right: dict) -> None:
    assert left.keys() == right.keys()
    for key, value in left.items():
        other = right[key]
        if isinstance(value, float) and isinstance(other, float):
            assert math.isclose(value, other, rel_tol=1e-12, abs_tol=1e-12), key
        else:
            assert value == other, key


def _chunks(inputs: dict, sizes: list[int]):
    start = 0
    for size in sizes:
        yield {key: values[start : start + size] for key, values in inputs.items()}
        start += size


def assert_add_batch_equivalent(name: str, inputs: dict, sizes: list[int], **compute_kwargs) -> dict:
    """Scoring ``inputs`` in one call equals adding them in chunks of ``sizes``."""
    single = load(name).compute(**inputs, **compute_kwargs)
    batched = load(name)
    for chunk in _chunks(inputs, sizes):
        batched.add_batch(**chunk)
    assert_same_results(single, batched.compute(**compute_kwargs))
    return single


def assert_num_process_equivalent(name: str, inputs: dict, split: int, **compute_kwargs) -> None:
    """evaluate's distributed mode (two workers sharing an experiment) equals one call.

    Each worker waits for the other at evaluate's rendez-vous, so they run in two threads.
    """
    single = load(name).compute(**inputs, **compute_kwargs)
    experiment = uuid.uuid4().hex
    path = str(REPO / "metrics" / name)
    parts = list(_chunks(inputs, [split, len(next(iter(inputs.values()))) - split]))

    def worker(process_id: int):
        module = evaluate.load(path, num_process=2, process_id=process_id, experiment_id=experiment, timeout=60)
        module.add_batch(**parts[process_id])
        return module.compute(**compute_kwargs)

    with ThreadPoolExecutor(max_workers=2) as pool:
        main, other = pool.map(worker, [0, 1])
    assert other is None
    assert_same_results(single, main)
