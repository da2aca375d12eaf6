"""The Score a file tab: predictions a system already wrote in; the scores of ``corefbias score`` out."""

from __future__ import annotations

import gradio as gr

from ...benchmarks import BENCHMARKS
from ...harness.prediction_files import format_choices
from .. import jobs, score_file, uploads
from ..settings import SpaceSettings
from . import results
from .shared import StoredRuns, page_error


def build(settings: SpaceSettings, runs: StoredRuns, last_run: gr.State):
    """The tab's widgets and its Score event (``api_name="score"``), which puts the new run's id in ``last_run``;
    it queues with the Run event, as both run the scorer."""
    with gr.Tab("Score a file", id="score"):
        gr.Markdown(
            "Upload the predictions a coreference system already wrote (CoNLL-2012, jsonlines, AllenNLP, "
            f"GAP TSV or a run's instances file, up to {uploads.readable_size(settings.max_upload_bytes)} in all): "
            "one document per instance of the benchmark, matched by id or by text, in one file or in several "
            "(WinoBias's four CoNLL files together). The scores are those of `corefbias score`. **The scores are "
            "public**: the files' names and their scores join the leaderboard, which every visitor sees; the files "
            "themselves are deleted once scored."
        )
        with gr.Row():
            upload = gr.File(
                label="Predictions files", file_count="multiple", type="filepath", elem_id="score-upload", scale=2
            )
            with gr.Column(scale=1):
                benchmark = gr.Dropdown(choices=list(BENCHMARKS), value=_first_scoring_clusters(), label="Benchmark")
                file_format = gr.Dropdown(choices=list(format_choices()), value="auto", label="Format")
        with gr.Row():
            n_bootstrap = gr.Number(value=1000, precision=0, label="Bootstrap resamples")
            seed = gr.Number(value=0, precision=0, label="Seed")
        score_button = gr.Button("Score", variant="primary")
        views = results.ResultViews.build("score-status", "score-summary")

    def on_score(upload, benchmark, file_format, n_bootstrap, seed, progress=gr.Progress()):
        try:
            job = score_file.score_job(
                settings,
                runs.store,
                upload,
                benchmark,
                file_format,
                n_bootstrap,
                seed,
                progress=lambda what, done, total: progress(0.0, desc=what),
            )
        except jobs.JobError as error:
            raise page_error(str(error)) from None
        return *results.values(job, runs.downloads(job.run_id), runs.plots(job.run_id)), job.run_id

    return score_button.click(
        on_score,
        [upload, benchmark, file_format, n_bootstrap, seed],
        [*views.components(), last_run],
        api_name="score",
        concurrency_limit=settings.concurrency,
        concurrency_id="run",
    )


def _first_scoring_clusters() -> str:
    """The first benchmark that scores a system's clusters themselves (CoNLL F1), what an uploaded file has."""
    return next((name for name, b in BENCHMARKS.items() if b.score_outputs is not None), next(iter(BENCHMARKS)))
