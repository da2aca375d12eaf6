"""The Explore tab: the instances behind a run's scores, a page at a time."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from .shared import QUICK_READ, StoredRuns

CASES_CSS = """
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


@dataclass
class ExploreTab:
    run_choice: gr.Dropdown
    benchmark: gr.Dropdown
    page_number: gr.Dropdown
    note: gr.Markdown
    cases: gr.HTML

    def run_views(self) -> list:
        """The components ``StoredRuns.show`` fills here, in its order."""
        return [self.run_choice, self.benchmark, self.page_number, self.note, self.cases]


def build(runs: StoredRuns) -> ExploreTab:
    """The tab's widgets, with paging (``api_name="explore"``) and the benchmark switch wired; choosing a run
    also updates the Compare tab, so ``corefbias.space.ui`` wires that."""
    with gr.Tab("Explore", id="explore"):
        with gr.Row():
            # Choices arrive with each run; custom values let API callers name a run (the store checks it).
            run_choice = gr.Dropdown(label="Run", choices=[], allow_custom_value=True, scale=3)
            benchmark = gr.Dropdown(label="Benchmark", choices=[], allow_custom_value=True, scale=1)
            page_number = gr.Dropdown(choices=[1], value=1, label="Page", allow_custom_value=True, scale=1)
        note = gr.Markdown()
        cases = gr.HTML(css_template=CASES_CSS, js_on_load=None, elem_id="explore-cases")
    page_views = [note, cases, page_number]
    benchmark.input(
        lambda run_id, name: runs.explore_page(run_id, name, 1), [run_choice, benchmark], page_views, **QUICK_READ
    )
    page_number.input(
        runs.explore_page, [run_choice, benchmark, page_number], page_views, **{**QUICK_READ, "api_name": "explore"}
    )
    return ExploreTab(run_choice, benchmark, page_number, note, cases)
