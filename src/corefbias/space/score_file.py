"""The Space's "Score a file" job: uploaded predictions files scored on one benchmark, stored as a run.

Scoring is ``corefbias score``'s (``harness.prediction_files.scoring``); this adds the Space's checks (upload
size, benchmark, significance limits), turns every reader or matching error into a ``JobError`` the
page shows, and deletes the uploads when the job ends (``uploads.discard``). The run it stores is public: its
files' names and scores are on the leaderboard for every visitor.
"""

from __future__ import annotations

import time
from pathlib import Path

from ..harness.prediction_files import format_choices, scoring
from . import explore, inputs, jobs, uploads
from .settings import SpaceSettings
from .store import RunStore


def _uploaded_files(paths) -> list[Path]:
    """The uploads as a list, from one path, a list of them (as Gradio hands them) or nothing."""
    return [Path(path) for path in ([paths] if isinstance(paths, (str, Path)) else paths or [])]


def check_uploads(paths: list[Path], max_bytes: int) -> list[Path]:
    """The uploaded files, refused when there are none, when one is gone, or when together they are over
    ``max_bytes``."""
    if not paths:
        raise ValueError("upload a predictions file first")
    try:
        size = sum(path.stat().st_size for path in paths)
    except FileNotFoundError:
        raise ValueError(
            "an uploaded file is gone (each upload is deleted once it is scored): upload it again"
        ) from None
    if size > max_bytes:
        raise ValueError(
            f"the files are {uploads.readable_size(size)} together; the Space scores up to "
            f"{uploads.readable_size(max_bytes)} "
            "(run `corefbias score` locally for larger ones)"
        )
    return paths


def _as_uploaded(message: str, paths: list[Path]) -> str:
    """``message`` naming each upload as the visitor named it, not by the folder the server keeps it in."""
    for path in paths:
        message = message.replace(str(path), path.name)
    return message


def score_job(
    settings: SpaceSettings,
    store: RunStore,
    paths,
    benchmark,
    file_format="auto",
    n_bootstrap=1000,
    seed=0,
    progress: jobs.Progress | None = None,
) -> jobs.Job:
    """Score the uploaded files (a system's output in one file, or split over several, as WinoBias's four CoNLL
    files) as ``corefbias score`` does, and store the run on the leaderboard; the uploads are deleted when the job
    ends, scored or not."""
    started = time.monotonic()
    uploaded = _uploaded_files(paths)
    try:
        files = check_uploads(uploaded, settings.max_upload_bytes)
        (name,) = inputs.check_benchmarks([benchmark] if benchmark else [])
        if file_format not in format_choices():
            raise ValueError(f"unknown format {file_format!r}; choose one of {', '.join(format_choices())}")
        n_bootstrap, seed = inputs.check_bootstrap(n_bootstrap, seed, settings.max_bootstrap)
        jobs.prepare_sets([name], settings, progress)
        if progress is not None:
            progress(f"scoring {', '.join(path.name for path in files)}", 0, None)
        result = scoring.score(
            name,
            files,
            format=file_format,
            data_dir=settings.exports,
            mirror=settings.mirror,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
        run_id = store.save(result, explore.cases(result))
    except Exception as error:  # noqa: BLE001 — a bad file gets a message in the page, not a dead app
        raise jobs.JobError(_as_uploaded(jobs.readable(error), uploaded)) from error
    finally:
        for path in uploaded:
            uploads.discard(path, settings)
        jobs.give_back_freed_memory()
    return jobs.Job(run_id, result, time.monotonic() - started)
