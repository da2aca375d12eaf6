"""The Compare tab: the leaderboard of every run, its downloads, and paired tests between runs."""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from .. import compare
from ..settings import SpaceSettings
from .shared import QUICK_READ, StoredRuns, page_error


@dataclass
class CompareTab:
    sort_by: gr.Dropdown
    descending: gr.Checkbox
    board: gr.Dataframe
    download_run: gr.Dropdown
    download_files: gr.File

    def leaderboard_inputs(self) -> list:
        return [self.sort_by, self.descending]

    def leaderboard_views(self) -> list:
        """The components ``StoredRuns.leaderboard`` fills, in its order."""
        return [self.board, self.sort_by]

    def run_views(self) -> list:
        """The components ``StoredRuns.show`` fills here, in its order (after the Explore tab's)."""
        return [self.download_run, self.download_files]


def build(settings: SpaceSettings, runs: StoredRuns) -> CompareTab:
    """The tab's widgets with their own events: sorting and refreshing the board, downloads, and the paired
    comparison (``api_name="compare"``)."""
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
            chosen = gr.Dropdown(
                label="Runs to compare (two or more)",
                choices=[],
                multiselect=True,
                allow_custom_value=True,
                scale=3,
            )
            compare_button = gr.Button("Compare runs")
        note = gr.Markdown()
        differences = gr.Dataframe(
            headers=compare.DIFFERENCE_HEADERS,
            label="Differences",
            interactive=False,
            wrap=True,
            elem_id="differences",
        )
        forest = gr.Image(label="Forest plot", type="filepath", visible=False)
        comparison_files = gr.File(
            label="Downloads: comparison.json, comparison.md, forest.png",
            file_count="multiple",
            interactive=False,
        )
    tab = CompareTab(sort_by, descending, board, download_run, download_files)

    def on_compare(run_ids):
        try:
            text, frame, forest_png, written = compare.compare_stored(runs.store, settings, run_ids)
        except ValueError as error:
            raise page_error(str(error)) from None
        return text, frame, gr.Image(value=str(forest_png), visible=True), [str(path) for path in written]

    for trigger in (sort_by.input, descending.input, refresh.click):
        trigger(runs.leaderboard, tab.leaderboard_inputs(), tab.leaderboard_views(), **QUICK_READ)
    download_run.input(runs.downloads, download_run, download_files, **QUICK_READ)
    board_csv.click(lambda: [str(runs.store.leaderboard_csv())], None, download_files, **QUICK_READ)
    chosen.focus(lambda: gr.Dropdown(choices=runs.choices()), None, chosen, **QUICK_READ)
    compare_button.click(
        on_compare,
        chosen,
        [note, differences, forest, comparison_files],
        api_name="compare",
        concurrency_limit=settings.concurrency,
    )
    return tab
