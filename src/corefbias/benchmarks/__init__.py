"""The benchmarks: one declaration each (``declaration.Benchmark``), found through one registry.

Built-in declarations are the modules of this package named in ``registry.BUILT_IN``; the rest of
corefbias reads benchmarks only through ``BENCHMARKS``/``resolve`` and their fields.
"""

from .declaration import EXPLORE_VIEWS, FIGURE_KINDS, Benchmark, BiasAxis, Figure, Headline, Part, rows_of
from .registry import BENCHMARKS, register, resolve

__all__ = [
    "BENCHMARKS",
    "EXPLORE_VIEWS",
    "FIGURE_KINDS",
    "Benchmark",
    "BiasAxis",
    "Figure",
    "Headline",
    "Part",
    "register",
    "resolve",
    "rows_of",
]
