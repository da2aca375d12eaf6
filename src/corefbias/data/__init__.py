"""What every test set's data shares: fetching upstream files against their pins (``upstream``), where the
sets keep their facts (``set_files``: each set's ``upstream.json`` and ``citation.bib``), the bibliography
(``citations``), span and pronoun helpers, the readers of formats several sets share (WinoBias/DaWinoBias
brackets, CoNLL-2012), the builders' base class and the export to the Hub's Parquet layout.

A set's own readers, builder, card, pins and citation live in its folder, ``corefbias/benchmarks/<set>/``.

May import ``corefbias.measures`` (a builder stores the weights a measure defines) and ``corefbias.plugins``;
nothing else.
"""
