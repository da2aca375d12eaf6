"""The test sets, one folder each, and the benchmarks declared over them.

``corefbias/benchmarks/<set>/`` holds everything about one set: its ``datasets`` builder (``builder.py``), its
card (``card.md``), its upstream pins (``upstream.json``), its papers' BibTeX (``citation.bib``), the readers
of its upstream format, its Explore view, and its declaration (``benchmark.py``: parts, unit, design cells,
scoring, headlines, bias axis, cloze wording). The registry finds the folders by walking this package; the rest
of corefbias reads benchmarks only through ``BENCHMARKS``/``resolve`` and their fields. What several sets
share sits beside the folders: the declaration's types, the link and CoNLL scoring of pro/anti sets, the
English and Danish cloze wordings and the Explore views' common pieces.

May import ``corefbias.measures``, ``corefbias.data``, ``corefbias.models`` and ``corefbias.plugins``.
"""

from .declaration import FIGURE_KINDS, Benchmark, BiasAxis, BlockDesign, Figure, Headline, Part, rows_of
from .explore import PRO_ANTI_PAIRS, ExploreView
from .registry import BENCHMARKS, register, resolve

__all__ = [
    "BENCHMARKS",
    "FIGURE_KINDS",
    "Benchmark",
    "ExploreView",
    "BiasAxis",
    "BlockDesign",
    "Figure",
    "Headline",
    "PRO_ANTI_PAIRS",
    "Part",
    "register",
    "resolve",
    "rows_of",
]
