"""Coreference models behind one small protocol, named by spec strings (``registry``): baselines,
library adapters, the chat (LLM) adapter and the HTTP protocol (client and server, Python 3.7 compatible).

May import ``corefbias.data`` (span helpers); nothing from ``measures``, ``harness``, ``hub``, ``space``
or ``cli``.
"""
