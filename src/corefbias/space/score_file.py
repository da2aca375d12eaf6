"""The Space's "Score a file" job: an uploaded predictions file scored on one benchmark, stored as a run.

Scoring is ``corefbias score``'s (``harness.prediction_files.scoring``); this adds the Space's checks (upload
size, benchmark, significance limits), turns every reader or matching error into a ``JobError`` the
page shows, and deletes the upload when the job ends (``uploads.discard``). The run it stores is public: its
file name and scores are on the leaderboard for every visitor.
"""

from __future__ import annotations

import time
from pathlib import Path

from ..harness.prediction_files import format_choices, scoring
from . import explore, inputs, jobs, uploads
from .settings import SpaceSettings
from .store import RunStore


def check_upload(path, max_bytes: int) -> Path:
    if not path:
        raise ValueError("upload a predictions file first")
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ValueError(
            "the uploaded file is gone (each upload is deleted once it is scored): upload it again"
        ) from None
    if size > max_bytes:
        raise ValueError(
            f"the file is {uploads.readable_size(size)}; the Space scores files up to "
            f"{uploads.readable_size(max_bytes)} "
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
    """Score the uploaded file as ``corefbias score`` does, and store it on the leaderboard; the upload is deleted
    when the job ends, scored or not."""
    started = time.monotonic()
    upload = path
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
        if upload:
            uploads.discard(upload, settings)
        jobs.give_back_freed_memory()
    return jobs.Job(run_id, result, time.monotonic() - started)
