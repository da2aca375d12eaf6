"""The corefbias Gradio Space's logic, apart from its page.

``settings`` (limits and folders, from the environment), ``inputs`` (checking what a visitor typed),
``jobs`` (one run: the runner, a time limit, the store), ``store`` (runs on disk and the leaderboard),
``explore`` (the instances behind a score), ``charts`` (the runner's figures as data frames),
``learn`` (the metric cards), ``page`` (one module per tab) and ``ui`` (the tabs on one ``gr.Blocks`` page);
only ``page``, ``ui`` and ``serving`` (how Gradio serves the page: its queue, its sessions) import Gradio.
The Space computes no score itself: every number comes from ``corefbias.harness.runner`` and
``corefbias.harness.run_outputs``.

May import every room but ``hub`` and ``cli``.
"""
