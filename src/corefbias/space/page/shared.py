"""What the tabs share: how an error reaches the page, and the stored runs as widget updates."""

from __future__ import annotations

import html
import math

import gradio as gr

from ...benchmarks import BENCHMARKS
from ...harness.number_format import format_number
from .. import explore
from ..store import INFO_COLUMNS, RunStore

CASES_PER_PAGE = 10
# Quick reads of the store: they never wait behind a run and are not part of the API unless named.
QUICK_READ = {"concurrency_limit": None, "api_name": False}


def page_error(message: str) -> gr.Error:
    # gr.Error renders its message as HTML: a visitor's spec must show as text.
    return gr.Error(html.escape(message, quote=False), duration=None, print_exception=False)


class StoredRuns:
    """The runs on disk as the page shows them: choices, explorer pages, the leaderboard, downloads."""

    def __init__(self, store: RunStore):
        self.store = store

    def choices(self) -> list[tuple[str, str]]:
        return [(self.store.describe(run_id), run_id) for run_id in self.store.run_ids()]

    def explore_page(self, run_id, benchmark, page):
        """The explorer's note, the cases of ``page`` as HTML, and the page dropdown."""
        if not run_id:
            return "Run a model, or pick a run.", "", gr.Dropdown(choices=[1], value=1)
        try:
            found = self.store.explore_cases(run_id)
        except ValueError as error:
            raise page_error(str(error)) from None
        if benchmark not in found:
            return (
                "This benchmark has no explorer; pick one of "
                + ", ".join(name for name, declared in BENCHMARKS.items() if declared.explore is not None)
                + ".",
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

    def leaderboard(self, sort_by, descending):
        """The leaderboard sorted by ``sort_by``, and the sort dropdown offering its score columns."""
        try:
            frame = self.store.leaderboard(sort_by or None, bool(descending))
        except ValueError as error:
            raise page_error(str(error)) from None
        scores = [column for column in frame.columns if column not in INFO_COLUMNS]
        # Shown with three decimals, as every table prints them; the API and the CSV keep the numbers.
        shown = frame.style.format(format_number, subset=scores, na_rep="—")
        return shown, gr.Dropdown(choices=scores, value=sort_by if sort_by in scores else None)

    def downloads(self, run_id):
        if not run_id:
            return None
        try:
            return [str(path) for path in self.store.downloads(run_id)]
        except ValueError as error:
            raise page_error(str(error)) from None

    def plots(self, run_id):
        """The run's plots as the gallery shows them: (PNG path, its name) each."""
        if not run_id:
            return None
        try:
            return [(str(path), path.stem) for path in self.store.plots(run_id)]
        except ValueError as error:
            raise page_error(str(error)) from None

    def show(self, run_id):
        """A stored run (default: the newest) in the Explore tab and the Compare tab's downloads: the run
        dropdown, benchmark dropdown, page dropdown, note and cases, then the download dropdown and files."""
        choices = self.choices()
        if run_id not in {value for _, value in choices}:
            run_id = choices[0][1] if choices else None
        try:
            if run_id:
                self.store.results(run_id)
            names = list(self.store.explore_cases(run_id)) if run_id else []
            benchmark = names[0] if names else None
            note, cases, page = self.explore_page(run_id, benchmark, 1)
            downloads = self.downloads(run_id)
        except ValueError as error:  # an unreadable run shows what is wrong with it; the page still loads
            names, benchmark, page, cases, downloads = [], None, gr.Dropdown(choices=[1], value=1), "", None
            note = html.escape(str(error), quote=False)
        return (
            gr.Dropdown(choices=choices, value=run_id),
            gr.Dropdown(choices=names, value=benchmark),
            page,
            note,
            cases,
            gr.Dropdown(choices=choices, value=run_id),
            downloads,
        )
