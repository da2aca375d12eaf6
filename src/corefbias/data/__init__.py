"""The test sets' data: upstream files and their registry (``upstream_files.json``), span helpers, the
readers of each upstream format (WinoBias/DaWinoBias brackets, CoNLL-2012, ABC, SoWinoBias generation,
GAP and Winogender files), the ``datasets`` builders (``builders/``, shipped in the package), their base class,
the export to the Hub's Parquet layout and the citations.

May import ``corefbias.measures`` (a builder stores the weights a measure defines); nothing else.
"""
