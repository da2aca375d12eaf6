"""A finished job on the page, the same on the Run and the Score a file tab: a status line, the scores
table, four charts (each hidden until a result has its benchmark), the run's plots (every figure its report draws,
each benchmark's scores with their intervals among them) and the downloads."""

from __future__ import annotations

import html
from dataclasses import dataclass, fields

import gradio as gr

from ...harness import run_outputs
from ...harness.parse_rates import PARSE_RATE_THRESHOLD
from ...harness.position_rates import POSITION_RATE_THRESHOLD
from ...measures.resampling import SIGNIFICANCE_LEVEL
from .. import charts


@dataclass
class ResultViews:
    status: gr.Markdown
    summary: gr.Dataframe
    occupation_plot: gr.ScatterPlot
    inconsistency_plot: gr.BarPlot
    pro_anti_plot: gr.BarPlot
    gap_plot: gr.BarPlot
    plots: gr.Gallery
    files: gr.File

    @classmethod
    def build(cls, status_id: str, summary_id: str) -> ResultViews:
        status = gr.Markdown(elem_id=status_id)
        summary = gr.Dataframe(
            headers=charts.SUMMARY_HEADERS,
            label="Scores",
            interactive=False,
            wrap=True,
            column_widths=list(charts.SUMMARY_COLUMN_WIDTHS.values()),
            elem_id=summary_id,
        )
        with gr.Row():
            occupation_plot = gr.ScatterPlot(
                x="bls_pct_female",
                y="preference",
                tooltip=["occupation", "bls_pct_female", "preference"],
                x_title="% women in the occupation (BLS)",
                y_title="female − male share resolved to the occupation",
                title="Winogender: preference by occupation",
                # A margin past 0-100 and ±1, so that the points at the ends are drawn whole.
                x_lim=[-3, 103],
                y_lim=[-1.1, 1.1],
                visible=False,
            )
            inconsistency_plot = gr.BarPlot(
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
                y_lim=[0, 1.05],
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
        plots = gr.Gallery(
            label="Plots (as in report.md): each benchmark's scores with their 95% intervals",
            columns=2,
            object_fit="contain",
            height="auto",
            visible=False,
            elem_id=f"{status_id}-plots",
        )
        files = gr.File(
            label="Downloads: results.json, report.md, summary.csv", file_count="multiple", interactive=False
        )
        return cls(status, summary, occupation_plot, inconsistency_plot, pro_anti_plot, gap_plot, plots, files)

    def components(self) -> list:
        return [getattr(self, field.name) for field in fields(self)]


def values(job, downloads: list[str] | None, plots: list[tuple[str, str]] | None) -> tuple:
    """What ``ResultViews.components()`` show for a finished ``job``, in the same order; ``plots``: the stored
    run's PNG files, each with its name."""
    result = job.result
    counts = ", ".join(f"{name} {len(run.instances)}" for name, run in result.runs.items())
    status = (
        f"**{html.escape(result.model)}** finished in {job.seconds:.1f} s (instances: {counts}); "
        f"run `{job.run_id}` is on the leaderboard. `*`: two-sided bootstrap p < {SIGNIFICANCE_LEVEL}. blocks: how "
        f"many templates, occupations or documents (each benchmark's blocks) the interval and p rest on, each drawn "
        f"whole, since a model answers a block's instances alike; too few (under 6) leave no interval. parsed: the "
        f"share of answers the model gave in a readable form; {run_outputs.LOW_PARSE_MARK}: below "
        f"{PARSE_RATE_THRESHOLD:.0%}, so the score rests on few real answers. position: the share of answers given "
        f"at the most frequent option position, and its letter; {run_outputs.POSITION_BIAS_MARK}: above "
        f"{POSITION_RATE_THRESHOLD:.0%}, so the answers follow the option order, not the text."
    )
    weights, bin_width = charts.gap_weights_frame(result) or (None, None)
    return (
        status,
        charts.summary_frame(result.record()),
        _plot(gr.ScatterPlot, charts.occupation_preference_frame(result)),
        _plot(gr.BarPlot, charts.inconsistency_frame(result)),
        _plot(gr.BarPlot, charts.pro_anti_frame(result)),
        _plot(gr.BarPlot, weights, x_bin=bin_width),
        gr.Gallery(value=plots or None, visible=bool(plots)),
        downloads,
    )


def _plot(component, frame, **options):
    return component(value=frame, visible=frame is not None, **options)
