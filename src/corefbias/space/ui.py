"""The Space's page (Gradio 6): Run, Explore, Compare, Learn. Handlers only translate between
widgets and the ``corefbias.space`` helpers; every error reaches the page as a ``gr.Error``.
"""

from __future__ import annotations

import html
import math

import gradio as gr

from ..harness import run_outputs
from ..harness.benchmarks import BENCHMARKS
from ..harness.parse_rates import PARSE_RATE_THRESHOLD
from ..harness.prediction_files import FORMATS
from . import charts, compare, explore, inputs, jobs, learn, score_file
from .settings import SpaceSettings
from .store import INFO_COLUMNS, RunStore

CASES_PER_PAGE = 10
DEFAULT_BENCHMARKS = ["winogender", "counter_gap"]
INTRO = """\
# corefbias: gender bias in coreference resolution

Run a coreference model (or a baseline) on the bias benchmarks and get every score as the paper that
defined it computes it, with a 95% bootstrap confidence interval and a two-sided p-value (`*`: p < 0.05).
**Explore** shows the instances behind a score, **Compare** every run so far, **Learn** what each score means.
"""
LEARN_INTRO = """\
## How to read a score

Each score is compared with the value a model without that bias gets (the *unbiased value* below):
how far it lies from it, and on which side, is the size and the direction of the bias; the 95%
confidence interval says how precisely the benchmark pins it down, and `*` marks a two-sided
bootstrap p-value below 0.05 (the score differs from the unbiased value in the direction observed).
The cards under the table give each metric's definition, formula, reading and citation.

"""
EXPLORE_CSS = """
.case { margin: 0 0 1.4em 0; }
.case h4 { margin: 0.2em 0 0.4em 0; font-size: 1em; }
.case table { border-collapse: collapse; width: 100%; border: 1px solid var(--border-color-primary) !important; }
.case td { border: none !important; border-top: 1px solid var(--border-color-primary) !important;
           padding: 0.4em 0.6em; vertical-align: top; }
.case td.role { width: 14em; font-size: 0.9em; }
.case td.role .correct { color: #15803d; }
.case td.role .incorrect { color: #b91c1c; }
mark.linked { background: #fde68a; color: #111; padding: 0 0.1em; border-radius: 2px; }
.legend { font-size: 0.9em; margin-bottom: 1em; }
"""


def _error(message: str) -> gr.Error:
    # gr.Error renders its message as HTML: a visitor's spec must show as text.
    return gr.Error(html.escape(message, quote=False), duration=None, print_exception=False)


def _plot_update(component, frame, **options):
    return component(value=frame, visible=frame is not None, **options)


def _result_views(summary_id: str) -> tuple:
    """A result's views, the same on the Run and the Score tab: the scores table (``elem_id=summary_id``), the
    four charts (hidden until a result has their benchmark) and the downloads."""
    summary = gr.Dataframe(
        headers=charts.SUMMARY_HEADERS,
        label="Scores",
        interactive=False,
        wrap=True,
        elem_id=summary_id,
    )
    with gr.Row():
        winogender_plot = gr.ScatterPlot(
            x="bls_pct_female",
            y="preference",
            tooltip=["occupation", "bls_pct_female", "preference"],
            x_title="% women in the occupation (BLS)",
            y_title="female − male share resolved to the occupation",
            title="Winogender: preference by occupation",
            x_lim=[0, 100],
            y_lim=[-1, 1],
            visible=False,
        )
        counter_gap_plot = gr.BarPlot(
            x="measure",
            y="inconsistency",
            color="kind",
            title="Counter-GAP: inconsistency breakdown",
            y_lim=[0, None],
            y_axis_format=".2f",
            sort=["I_within M", "I_within F", "I_across M2F", "I_across F2M"],
            visible=False,
        )
    with gr.Row():
        pro_anti_plot = gr.BarPlot(
            x="bar",
            y="score",
            color="condition",
            title="Pro- vs anti-stereotypical",
            y_lim=[0, 1],
            x_title="section",
            visible=False,
        )
        gap_plot = gr.BarPlot(
            x="weight",
            y="examples",
            color="gender",
            y_aggregate="sum",
            title="GAP test: W weights",
            y_lim=[0, None],
            visible=False,
        )
    files = gr.File(label="Downloads: results.json, report.md, summary.csv", file_count="multiple", interactive=False)
    return summary, winogender_plot, counter_gap_plot, pro_anti_plot, gap_plot, files


def build_app(settings: SpaceSettings) -> gr.Blocks:
    store = RunStore(settings.data_root)

    def run_choices() -> list[tuple[str, str]]:
        return [(store.describe(run_id), run_id) for run_id in store.run_ids()]

    def on_run(model_spec, benchmarks, limit, n_bootstrap, seed, progress=gr.Progress()):
        return run(model_spec, benchmarks, limit, n_bootstrap, seed, progress, visitor_token=None)

    def on_run_signed_in(
        model_spec, benchmarks, limit, n_bootstrap, seed, oauth_token: gr.OAuthToken | None, progress=gr.Progress()
    ):
        """``on_run`` with the visitor's Hugging Face token, which Gradio injects from the sign-in session."""
        token = oauth_token.token if oauth_token is not None else None
        return run(model_spec, benchmarks, limit, n_bootstrap, seed, progress, visitor_token=token)

    def run(model_spec, benchmarks, limit, n_bootstrap, seed, progress, visitor_token):
        def report(what: str, done: int, total: int | None) -> None:
            if total:
                progress((done, total), desc=what, unit="instances")
            else:
                progress(0.0, desc=what)

        try:
            job = jobs.run_job(
                settings,
                store,
                model_spec,
                benchmarks,
                limit,
                n_bootstrap,
                seed,
                progress=report,
                visitor_token=visitor_token,
            )
        except jobs.JobError as error:
            raise _error(str(error)) from None
        return job_views(job)

    def on_score(upload, benchmark, file_format, n_bootstrap, seed, progress=gr.Progress()):
        try:
            job = score_file.score_job(
                settings,
                store,
                upload,
                benchmark,
                file_format,
                n_bootstrap,
                seed,
                progress=lambda what, done, total: progress(0.0, desc=what),
            )
        except jobs.JobError as error:
            raise _error(str(error)) from None
        return job_views(job)

    def job_views(job):
        """Status, scores, charts and downloads of a finished run or scored file."""
        result = job.result
        results = result.to_json()
        counts = ", ".join(f"{name} {len(run.instances)}" for name, run in result.runs.items())
        status = (
            f"**{html.escape(result.model)}** finished in {job.seconds:.1f} s (instances: {counts}); "
            f"run `{job.run_id}` is on the leaderboard. `*`: two-sided bootstrap p < 0.05. parsed: the share of "
            f"answers the model gave in a readable form; {run_outputs.LOW_PARSE_MARK}: below "
            f"{PARSE_RATE_THRESHOLD:.0%}, so the score rests on few real answers."
        )
        weights, bin_width = charts.gap_weights_frame(result) or (None, None)
        return (
            status,
            charts.summary_frame(results),
            _plot_update(gr.ScatterPlot, charts.winogender_frame(result)),
            _plot_update(gr.BarPlot, charts.counter_gap_frame(result)),
            _plot_update(gr.BarPlot, charts.pro_anti_frame(result)),
            _plot_update(gr.BarPlot, weights, x_bin=bin_width),
            run_downloads(job.run_id),
            job.run_id,
        )

    if settings.zero_gpu:  # ZeroGPU attaches a GPU only while a decorated call runs, for at most `duration` s
        import spaces

        run = spaces.GPU(duration=int(settings.time_limit_s))(run)

    def explore_page(run_id, benchmark, page):
        if not run_id:
            return "Run a model, or pick a run.", "", gr.Dropdown(choices=[1], value=1)
        try:
            found = store.explore_cases(run_id)
        except ValueError as error:
            raise _error(str(error)) from None
        if benchmark not in found:
            return (
                "This benchmark has no explorer; pick Counter-GAP, Winogender or a pro/anti benchmark.",
                "",
                gr.Dropdown(choices=[1], value=1),
            )
        entry = found[benchmark]
        pages = max(1, math.ceil(len(entry["cases"]) / CASES_PER_PAGE))
        page = min(max(int(page or 1), 1), pages)
        shown = entry["cases"][(page - 1) * CASES_PER_PAGE : page * CASES_PER_PAGE]
        kept = "" if len(entry["cases"]) == entry["total"] else f" (the first {len(entry['cases'])} are kept)"
        first = (page - 1) * CASES_PER_PAGE + 1
        note = (
            f"{entry['explained']} **{entry['total']}** found{kept}; showing {first}–{first + len(shown) - 1}."
            if shown
            else f"{entry['explained']} None found in this run."
        )
        return note, explore.render(shown), gr.Dropdown(choices=list(range(1, pages + 1)), value=page)

    def leaderboard(sort_by, descending):
        try:
            frame = store.leaderboard(sort_by or None, bool(descending))
        except ValueError as error:
            raise _error(str(error)) from None
        scores = [column for column in frame.columns if column not in INFO_COLUMNS]
        return frame.round(4), gr.Dropdown(choices=scores, value=sort_by if sort_by in scores else None)

    def run_downloads(run_id):
        if not run_id:
            return None
        try:
            return [str(path) for path in store.downloads(run_id)]
        except ValueError as error:
            raise _error(str(error)) from None

    def show_run(run_id):
        """The Explore and download views of a stored run (default: the newest)."""
        choices = run_choices()
        if run_id not in {value for _, value in choices}:
            run_id = choices[0][1] if choices else None
        names = list(store.explore_cases(run_id)) if run_id else []
        benchmark = names[0] if names else None
        note, cases, page = explore_page(run_id, benchmark, 1)
        return (
            gr.Dropdown(choices=choices, value=run_id),
            gr.Dropdown(choices=names, value=benchmark),
            page,
            note,
            cases,
            gr.Dropdown(choices=choices, value=run_id),
            run_downloads(run_id),
        )

    def on_compare(run_ids):
        try:
            note, frame, forest, written = compare.compare_stored(store, settings, run_ids)
        except ValueError as error:
            raise _error(str(error)) from None
        return note, frame, gr.Image(value=str(forest), visible=True), [str(path) for path in written]

    with gr.Blocks(title="corefbias: gender bias in coreference", analytics_enabled=False) as demo:
        gr.Markdown(INTRO)
        last_run = gr.State(None)
        with gr.Tabs():
            with gr.Tab("Run", id="run"):
                with gr.Row():
                    model = gr.Dropdown(
                        choices=inputs.model_choices(settings.models),
                        value="baseline:stereotype",
                        allow_custom_value=True,
                        label="Model",
                        scale=2,
                        info="A baseline, a model from this Space's list (size · expected run time), chat:<model id>, "
                        "or the URL of a public server speaking corefbias's HTTP protocol (corefbias serve).",
                    )
                    limit = gr.Number(
                        value=settings.default_limit,
                        precision=0,
                        label="Instance limit",
                        info=f"Units (quadruples, pairs, ...) per design cell of each benchmark (both genders, pro and "
                        f"anti, ...), up to {settings.max_units}; 0: whole sets.",
                    )
                benchmarks = gr.CheckboxGroup(
                    choices=[(f"{name} ({benchmark.language})", name) for name, benchmark in BENCHMARKS.items()],
                    value=DEFAULT_BENCHMARKS,
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
                status = gr.Markdown(elem_id="run-status")
                summary, winogender_plot, counter_gap_plot, pro_anti_plot, gap_plot, files = _result_views("summary")
            with gr.Tab("Score a file", id="score"):
                gr.Markdown(
                    "Upload the predictions a coreference system already wrote (CoNLL-2012, jsonlines, AllenNLP, "
                    f"GAP TSV or a run's instances file, up to {score_file.readable_size(settings.max_upload_bytes)}): "
                    "one document per instance of the benchmark, matched by id or by text. The scores are those of "
                    "`corefbias score`."
                )
                with gr.Row():
                    upload = gr.File(label="Predictions file", type="filepath", elem_id="score-upload", scale=2)
                    with gr.Column(scale=1):
                        score_benchmark = gr.Dropdown(choices=list(BENCHMARKS), value="winobias", label="Benchmark")
                        score_format = gr.Dropdown(choices=list(FORMATS), value="auto", label="Format")
                with gr.Row():
                    score_bootstrap = gr.Number(value=1000, precision=0, label="Bootstrap resamples")
                    score_seed = gr.Number(value=0, precision=0, label="Seed")
                score_button = gr.Button("Score", variant="primary")
                score_status = gr.Markdown(elem_id="score-status")
                (
                    score_summary,
                    score_winogender_plot,
                    score_counter_gap_plot,
                    score_pro_anti_plot,
                    score_gap_plot,
                    score_files,
                ) = _result_views("score-summary")
            with gr.Tab("Explore", id="explore"):
                with gr.Row():
                    # Choices arrive with each run; custom values let API callers name a run (the store checks it).
                    explore_run_choice = gr.Dropdown(label="Run", choices=[], allow_custom_value=True, scale=3)
                    explore_benchmark = gr.Dropdown(label="Benchmark", choices=[], allow_custom_value=True, scale=1)
                    explore_page_number = gr.Dropdown(
                        choices=[1], value=1, label="Page", allow_custom_value=True, scale=1
                    )
                explore_note = gr.Markdown()
                explore_html = gr.HTML(css_template=EXPLORE_CSS, js_on_load=None, elem_id="explore-cases")
            with gr.Tab("Compare", id="compare"):
                with gr.Row():
                    sort_by = gr.Dropdown(label="Sort by", choices=[], allow_custom_value=True, scale=3)
                    descending = gr.Checkbox(value=True, label="Largest first")
                    refresh = gr.Button("Refresh")
                board = gr.Dataframe(
                    label="Every run so far (click a column header to sort in the page)",
                    interactive=False,
                    pinned_columns=1,
                    elem_id="leaderboard",
                )
                with gr.Row():
                    download_run = gr.Dropdown(label="Run", choices=[], allow_custom_value=True, scale=3)
                    board_csv = gr.Button("Leaderboard as CSV")
                download_files = gr.File(label="Downloads", file_count="multiple", interactive=False)
                gr.Markdown("### Is one run's bias different from another's? Paired tests on the same instances")
                with gr.Row():
                    compare_choice = gr.Dropdown(
                        label="Runs to compare (two or more)",
                        choices=[],
                        multiselect=True,
                        allow_custom_value=True,
                        scale=3,
                    )
                    compare_button = gr.Button("Compare runs")
                compare_note = gr.Markdown()
                compare_table = gr.Dataframe(
                    headers=compare.DIFFERENCE_HEADERS,
                    label="Differences",
                    interactive=False,
                    wrap=True,
                    elem_id="differences",
                )
                compare_forest = gr.Image(label="Forest plot", type="filepath", visible=False)
                compare_files = gr.File(
                    label="Downloads: comparison.json, comparison.md, forest.png",
                    file_count="multiple",
                    interactive=False,
                )
            with gr.Tab("Learn", id="learn"):
                gr.Markdown(LEARN_INTRO + learn.headline_table())
                pages = learn.metric_pages(settings.cards_dir)
                if not pages:
                    gr.Markdown("The metric cards are not installed next to this Space.")
                for title, text in pages:
                    with gr.Accordion(title, open=False):
                        gr.Markdown(text)

        run_event = run_button.click(
            on_run_signed_in if settings.visitor_sign_in else on_run,
            [model, benchmarks, limit, n_bootstrap, seed],
            [status, summary, winogender_plot, counter_gap_plot, pro_anti_plot, gap_plot, files, last_run],
            api_name="run",
            concurrency_limit=settings.concurrency,
            concurrency_id="run",
        )
        score_event = score_button.click(
            on_score,
            [upload, score_benchmark, score_format, score_bootstrap, score_seed],
            [
                score_status,
                score_summary,
                score_winogender_plot,
                score_counter_gap_plot,
                score_pro_anti_plot,
                score_gap_plot,
                score_files,
                last_run,
            ],
            api_name="score",
            concurrency_limit=settings.concurrency,
            concurrency_id="run",
        )
        explore_inputs = [explore_run_choice, explore_benchmark, explore_page_number]
        explore_outputs = [explore_note, explore_html, explore_page_number]
        run_views = [
            explore_run_choice,
            explore_benchmark,
            explore_page_number,
            explore_note,
            explore_html,
            download_run,
            download_files,
        ]
        board_outputs = [board, sort_by]
        light = {"concurrency_limit": None, "api_name": False}  # quick reads of the store never wait behind a run
        run_event.success(show_run, last_run, run_views, **light).success(
            leaderboard, [sort_by, descending], board_outputs, **light
        )
        score_event.success(show_run, last_run, run_views, **light).success(
            leaderboard, [sort_by, descending], board_outputs, **light
        )
        explore_run_choice.input(show_run, explore_run_choice, run_views, **light)
        explore_benchmark.input(
            lambda run_id, benchmark: explore_page(run_id, benchmark, 1), explore_inputs[:2], explore_outputs, **light
        )
        explore_page_number.input(explore_page, explore_inputs, explore_outputs, **{**light, "api_name": "explore"})
        for trigger in (sort_by.input, descending.input, refresh.click):
            trigger(leaderboard, [sort_by, descending], board_outputs, **light)
        download_run.input(run_downloads, download_run, download_files, **light)
        board_csv.click(lambda: [str(store.leaderboard_csv())], None, download_files, **light)
        compare_choice.focus(lambda: gr.Dropdown(choices=run_choices()), None, compare_choice, **light)
        compare_button.click(
            on_compare,
            compare_choice,
            [compare_note, compare_table, compare_forest, compare_files],
            api_name="compare",
            concurrency_limit=settings.concurrency,
        )
        demo.load(leaderboard, [sort_by, descending], board_outputs, **{**light, "api_name": "leaderboard"}).then(
            show_run, last_run, run_views, **light
        )
    return demo


def launch(demo: gr.Blocks, settings: SpaceSettings, **options):
    """Queue with the Space's limits and serve; ``options`` go to ``Blocks.launch``."""
    demo.queue(default_concurrency_limit=settings.concurrency, max_size=settings.max_queue)
    options.setdefault("server_name", settings.host)
    options.setdefault("server_port", settings.port)
    return demo.launch(allowed_paths=[str(settings.data_root)], **options)
