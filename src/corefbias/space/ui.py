"""The Space's page (Gradio 6): the tabs of ``corefbias.space.page`` on one page, and the events that cross
tabs. Handlers only translate between widgets and the ``corefbias.space`` helpers; every error reaches the
page as a ``gr.Error``.
"""

from __future__ import annotations

import gradio as gr

from ..harness import extensions
from ..measures.resampling import SIGNIFICANCE_LEVEL
from . import uploads
from .page import compare_tab, explore_tab, learn_tab, run_tab, score_tab
from .page.shared import QUICK_READ, StoredRuns
from .serving import RunQueue, forget_sessions_of_leavers
from .settings import SpaceSettings
from .store import RunStore

INTRO = f"""\
# corefbias: gender bias in coreference resolution

Run a coreference model (or a baseline) on the bias benchmarks and get every score as the paper that
defined it computes it, with a 95% bootstrap confidence interval and a two-sided p-value
(`*`: p < {SIGNIFICANCE_LEVEL}).
**Explore** shows the instances behind a score, **Compare** every run so far, **Learn** what each score means.
"""


def build_app(settings: SpaceSettings) -> gr.Blocks:
    # Declarations from outside the package ($COREFBIAS_INCLUDE) join the lists the tabs are built from.
    extensions.include_from_environment()
    runs = StoredRuns(RunStore(settings.data_root))
    with gr.Blocks(
        title="corefbias: gender bias in coreference", analytics_enabled=False, delete_cache=uploads.DELETE_CACHE
    ) as demo:
        gr.Markdown(INTRO)
        last_run = gr.State(None)
        with gr.Tabs():
            run_event = run_tab.build(settings, runs, last_run)
            score_event = score_tab.build(settings, runs, last_run)
            explore = explore_tab.build(runs)
            board = compare_tab.build(settings, runs)
            learn_tab.build(settings)

        # A new run, a chosen run and the page's first load show in Explore and in Compare's downloads.
        run_views = [*explore.run_views(), *board.run_views()]
        for finished in (run_event, score_event):
            finished.success(runs.show, last_run, run_views, **QUICK_READ).success(
                runs.leaderboard, board.leaderboard_inputs(), board.leaderboard_views(), **QUICK_READ
            )
        explore.run_choice.input(runs.show, explore.run_choice, run_views, **QUICK_READ)
        demo.load(
            runs.leaderboard,
            board.leaderboard_inputs(),
            board.leaderboard_views(),
            **{**QUICK_READ, "api_name": "leaderboard"},
        ).then(runs.show, last_run, run_views, **QUICK_READ)
        forget_sessions_of_leavers(demo)
    return demo


def launch(demo: gr.Blocks, settings: SpaceSettings, **options):
    """Queue with the Space's limits (at most ``settings.max_queue`` runs waiting; quick reads are never turned
    away), keep at most ``settings.max_sessions`` sessions, cap uploads and their folder (``uploads``), and serve;
    ``options`` go to ``Blocks.launch``."""
    demo.queue(default_concurrency_limit=settings.concurrency)
    RunQueue.install(demo, settings.max_queue)
    options.setdefault("server_name", settings.host)
    options.setdefault("server_port", settings.port)
    options.setdefault("state_session_capacity", settings.max_sessions)
    return demo.launch(allowed_paths=[str(settings.data_root)], **uploads.launch_options(settings), **options)
