"""Coreference models behind one small protocol, named by spec strings (``registry``): baselines,
library adapters, the chat (LLM) adapter and the HTTP protocol (client and server, Python 3.7 compatible).
Each kind of spec is a declaration (``declaration.ModelKind``, with the options its loader takes); corefbias's
own are in ``built_in``.

May import ``corefbias.plugins`` and the data layer's plain helpers (``corefbias.data.spans``: no ``datasets``);
nothing from ``measures``, ``harness``, ``hub``, ``space`` or ``cli``.
"""
