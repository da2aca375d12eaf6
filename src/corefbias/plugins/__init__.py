"""What corefbias is extended with, found in one way: benchmarks, model kinds and prediction file formats.

``registry.Registry`` is the one pattern every kind of extension uses: the package's own entries, then those of
installed distributions' entry points, then those a program registers (``--include DIR``), loaded once and
failing loudly, on every use, while an entry point is broken.

Imports nothing else of corefbias; every room may import it.
"""
