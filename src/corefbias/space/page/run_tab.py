"""The Run tab: a model, the benchmarks and the limits in; scores, charts and downloads out."""

from __future__ import annotations

import gradio as gr

from .. import inputs, jobs
from ..settings import SpaceSettings
from . import results
from .shared import StoredRuns, page_error


def build(settings: SpaceSettings, runs: StoredRuns, last_run: gr.State):
    """The tab's widgets and its Run event (``api_name="run"``), which puts the new run's id in ``last_run``."""
    with gr.Tab("Run", id="run"):
        with gr.Row():
            model = gr.Dropdown(
                choices=inputs.model_choices(settings.models),
                value="baseline:stereotype",
                allow_custom_value=True,
                label="Model",
                scale=2,
                info=inputs.model_help(settings.models),
            )
            limit = gr.Number(
                value=settings.default_limit,
                precision=0,
                label="Instance limit",
                info=f"Units (quadruples, pairs, ...) per design cell of each benchmark (both genders, pro and "
                f"anti, ...), up to {settings.max_units}; 0: whole sets.",
            )
        benchmarks = gr.CheckboxGroup(
            choices=inputs.benchmark_choices(),
            value=inputs.default_benchmarks(),
            label="Benchmarks",
        )
        with gr.Accordion("Significance", open=False):
            with gr.Row():
                n_bootstrap = gr.Number(
                    value=1000,
                    precision=0,
                    label="Bootstrap resamples",
                    info=f"0–{settings.max_bootstrap}; 0: no p-values or CIs",
                )
                seed = gr.Number(value=0, precision=0, label="Seed")
        if settings.visitor_sign_in:  # Gradio's OAuth works on a Space only (README: hf_oauth)
            gr.LoginButton(value="Sign in with Hugging Face to run chat: models on your account")
        run_button = gr.Button("Run", variant="primary")
        views = results.ResultViews.build("run-status", "summary")

    def run(model_spec, benchmarks, limit, n_bootstrap, seed, progress, visitor_token):
        def report(what: str, done: int, total: int | None) -> None:
            if total:
                progress((done, total), desc=what, unit="instances")
            else:
                progress(0.0, desc=what)

        try:
            job = jobs.run_job(
                settings,
                runs.store,
                model_spec,
                benchmarks,
                limit,
                n_bootstrap,
                seed,
                progress=report,
                visitor_token=visitor_token,
            )
        except jobs.JobError as error:
            raise page_error(str(error)) from None
        return *results.values(job, runs.downloads(job.run_id), runs.plots(job.run_id)), job.run_id

    # ZeroGPU attaches a GPU only while a decorated call runs, for at most `duration` s: a listed Hub model (a
    # cluster model or an hf: language model) is loaded on settings.device (cuda there) inside this call.
    if settings.zero_gpu:
        import spaces

        run = spaces.GPU(duration=int(settings.time_limit_s))(run)

    def on_run(model_spec, benchmarks, limit, n_bootstrap, seed, progress=gr.Progress()):
        return run(model_spec, benchmarks, limit, n_bootstrap, seed, progress, visitor_token=None)

    def on_run_signed_in(
        model_spec, benchmarks, limit, n_bootstrap, seed, oauth_token: gr.OAuthToken | None, progress=gr.Progress()
    ):
        """``on_run`` with the visitor's Hugging Face token, which Gradio injects from the sign-in session."""
        token = oauth_token.token if oauth_token is not None else None
        return run(model_spec, benchmarks, limit, n_bootstrap, seed, progress, visitor_token=token)

    return run_button.click(
        on_run_signed_in if settings.visitor_sign_in else on_run,
        [model, benchmarks, limit, n_bootstrap, seed],
        [*views.components(), last_run],
        api_name="run",
        concurrency_limit=settings.concurrency,
        concurrency_id="run",
    )
