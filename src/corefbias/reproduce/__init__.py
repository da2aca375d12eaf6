"""Recomputing published tables from the published system outputs (``corefbias reproduce``).

May import ``corefbias.measures``, ``corefbias.data`` and ``corefbias.harness``; never ``hub``, ``space`` or
``cli``.
"""
