"""The Space's "Score a file" job: an uploaded predictions file scored on one benchmark, stored as a run.

Scoring is ``corefbias score``'s (``harness.prediction_files.scoring``); this adds the Space's checks (upload
size, benchmark, significance limits) and turns every reader or matching error into a ``JobError`` the
page shows.
"""

from __future__ import annotations

import time
from pathlib import Path

from ..harness.prediction_files import format_choices, scoring
from . import explore, inputs, jobs
from .settings import SpaceSettings
from .store import RunStore


def readable_size(size: int) -> str:
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size / 2**10:.0f} KiB"


def check_upload(path, max_bytes: int) -> Path:
    if not path:
        raise ValueError("upload a predictions file first")
    path = Path(path)
    size = path.stat().st_size
    if size > max_bytes:
        raise ValueError(
            f"the file is {readable_size(size)}; the Space scores files up to {readable_size(max_bytes)} "
            "(run `corefbias score` locally for larger ones)"
        )
    return path


def score_job(
    settings: SpaceSettings,
    store: RunStore,
    path,
    benchmark,
    file_format="auto",
    n_bootstrap=1000,
    seed=0,
    progress: jobs.Progress | None = None,
) -> jobs.Job:
    """Score the uploaded file as ``corefbias score`` does, and store it on the leaderboard."""
    started = time.monotonic()
    try:
        path = check_upload(path, settings.max_upload_bytes)
        (name,) = inputs.check_benchmarks([benchmark] if benchmark else [])
        if file_format not in format_choices():
            raise ValueError(f"unknown format {file_format!r}; choose one of {', '.join(format_choices())}")
        n_bootstrap, seed = inputs.check_bootstrap(n_bootstrap, seed, settings.max_bootstrap)
        jobs.prepare_sets([name], settings, progress)
        if progress is not None:
            progress(f"scoring {path.name}", 0, None)
        result = scoring.score(
            name,
            [path],
            format=file_format,
            data_dir=settings.exports,
            mirror=settings.mirror,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
        run_id = store.save(result, explore.cases(result))
    except Exception as error:  # noqa: BLE001 — a bad file gets a message in the page, not a dead app
        raise jobs.JobError(jobs.readable(error)) from error
    finally:
        jobs.give_back_freed_memory()
    return jobs.Job(run_id, result, time.monotonic() - started)
