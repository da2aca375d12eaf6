"""One run of the Space: check the inputs, load the model, run it with a time limit, store it.

Errors a visitor can cause or meet (bad input, an unknown adapter, an unreachable endpoint, a
failing model, the time limit) come out as ``JobError`` with a readable message, secrets masked.
Every job ends by giving the memory it freed back to the system (``give_back_freed_memory``).
"""

from __future__ import annotations

import ctypes
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..benchmarks import resolve
from ..harness import runner
from ..harness.benchmark_data import load_part
from ..models.base import ModelError
from ..models.http_protocol import HttpClusterModel
from ..models.registry import kind_of, load_model
from . import explore, inputs, model_inputs
from .settings import SpaceSettings
from .store import RunStore

Progress = Callable[[str, int, int | None], None]  # (what, done, total or None)

# Exporting a set from upstream files writes its folder; two first runs must not do it at once.
_EXPORT_LOCK = threading.Lock()

try:  # glibc's; other C libraries lack it (and need it less)
    _MALLOC_TRIM = ctypes.CDLL(None).malloc_trim
except (AttributeError, OSError, TypeError):
    _MALLOC_TRIM = None


class JobError(Exception):
    """What went wrong, in words for the page."""


class RunTimeLimitError(RuntimeError):
    pass


@dataclass
class Job:
    run_id: str
    result: runner.RunResult
    seconds: float


def readable(error: BaseException, secrets=()) -> str:
    if isinstance(error, (ValueError, ModelError, RunTimeLimitError)):
        message = str(error)
    else:
        message = f"the run failed: {type(error).__name__}: {error}"
    return inputs.redact(message, secrets)


def _load_model(spec: str, settings: SpaceSettings, visitor_token: str | None = None):
    """The model, with the options its kind takes from the Space (``model_inputs``); a server is asked for its
    ``/v1/info`` first, so a dead URL fails at once."""
    kind = kind_of(spec)[0]
    model = load_model(spec, **model_inputs.loader_options(kind, spec, settings, visitor_token))
    if isinstance(model, HttpClusterModel):
        model.info  # noqa: B018 — the probe: raises ModelError naming the URL and the reason
    return model


def give_back_freed_memory() -> None:
    """Return the free pages of the C heap to the system.

    A job runs on whichever of Gradio's worker threads is free, and glibc gives threads heaps of their own (up to
    eight per core); what a job frees stays in its thread's heap, given back only from the heap's top. Measured
    on the served Space: 150 visitors with a small run each grew its memory by 43 MiB without this, 5 MiB with it,
    while tracemalloc found no Python objects kept."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


def prepare_sets(names: list[str], settings: SpaceSettings, progress: Progress | None) -> None:
    with _EXPORT_LOCK:
        for benchmark in resolve(names):
            if progress is not None:
                progress(f"loading {benchmark.dataset}", 0, None)
            for config, split in benchmark.parts:
                load_part(benchmark, config, split, settings.exports, settings.mirror)


def run_job(
    settings: SpaceSettings,
    store: RunStore,
    model_spec,
    benchmarks,
    limit=None,
    n_bootstrap=1000,
    seed=0,
    progress: Progress | None = None,
    visitor_token: str | None = None,
) -> Job:
    """Run ``model_spec`` on ``benchmarks`` as the Run tab asks, and store it on the leaderboard.

    ``visitor_token``: the signed-in visitor's Hugging Face token, used for ``chat:`` and never stored or shown.
    """
    started = time.monotonic()
    try:
        spec = inputs.check_model_spec(model_spec, settings.max_spec_chars, settings.models)
        names = inputs.check_benchmarks(benchmarks)
        limit = inputs.check_limit(limit, settings.max_units)
        n_bootstrap, seed = inputs.check_bootstrap(n_bootstrap, seed, settings.max_bootstrap)
        model = _load_model(spec, settings, visitor_token)
        prepare_sets(names, settings, progress)
        deadline = started + settings.time_limit_s

        def on_progress(benchmark: str, done: int, total: int) -> None:
            if progress is not None:
                progress(benchmark, done, total)
            if time.monotonic() > deadline:
                raise RunTimeLimitError(
                    f"the run passed the Space's time limit of {settings.time_limit_s:.0f} s during {benchmark} "
                    f"({done} of {total} instances); set a smaller instance limit, or run `corefbias run` locally"
                )

        scratch = settings.data_root / "scratch"
        scratch.mkdir(parents=True, exist_ok=True)
        # A fresh prediction cache per run: an endpoint may serve another model tomorrow under the same URL.
        with tempfile.TemporaryDirectory(dir=scratch) as folder:
            result = runner.run(
                spec,
                names,
                settings=runner.RunSettings(limit=limit, n_bootstrap=n_bootstrap, seed=seed),
                data_dir=settings.exports,
                mirror=settings.mirror,
                cache_path=Path(folder) / "predictions.sqlite",
                progress=False,
                model=model,
                on_progress=on_progress,
            )
        if progress is not None:
            progress("saving the run", 0, None)
        run_id = store.save(result, explore.cases(result))
    except Exception as error:  # noqa: BLE001 — whatever a model does, the visitor gets a message, not a dead app
        raise JobError(readable(error, [visitor_token] if visitor_token else [])) from error
    finally:
        give_back_freed_memory()
    return Job(run_id, result, time.monotonic() - started)
