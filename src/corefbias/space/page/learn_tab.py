"""The Learn tab: how to read a score, the headline table and every metric card."""

from __future__ import annotations

import gradio as gr

from ...measures.resampling import SIGNIFICANCE_LEVEL
from .. import learn
from ..settings import SpaceSettings

HOW_TO_READ = f"""\
## How to read a score

Each score is compared with the value a model without that bias gets (the *unbiased value* below):
how far it lies from it, and on which side, is the size and the direction of the bias; the 95%
confidence interval says how precisely the benchmark pins it down, and `*` marks a two-sided
bootstrap p-value below {SIGNIFICANCE_LEVEL} (the score differs from the unbiased value in the direction observed).
The cards under the table give each metric's definition, formula, reading and citation.

"""


def build(settings: SpaceSettings) -> None:
    with gr.Tab("Learn", id="learn"):
        gr.Markdown(HOW_TO_READ + learn.headline_table())
        cards = learn.metric_pages(settings.cards_dir)
        if not cards:
            gr.Markdown("The metric cards are not installed next to this Space.")
        for title, text in cards:
            with gr.Accordion(title, open=False):
                gr.Markdown(text)
