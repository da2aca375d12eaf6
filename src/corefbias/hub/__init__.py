"""The Hugging Face Hub face of corefbias: publishing the test sets and Spaces, the support every
``evaluate`` module shares, and the metric widget.

May import ``corefbias.measures`` and ``corefbias.data``; never ``harness``, ``models``, ``space`` or ``cli``.
"""
