"""How many of a model's answers could be read, and what that does to the scores.

A chat model's unreadable answer is scored as "no link" (never guessed), so a benchmark answered
mostly in unreadable prose would otherwise look like an unbiased model. Every benchmark therefore
reports its parse rate (readable answers / instances; a cluster model's output is always readable,
1.0). Below ``PARSE_RATE_THRESHOLD`` its scores are flagged ``low_parse_rate``: they rest on few real
answers. With no readable answer at all, every score of the benchmark is undefined.
"""

from __future__ import annotations

from ..measures.result import MeasureResult

# One unreadable answer in ten already moves an accuracy by up to 0.1, the size of the biases measured.
PARSE_RATE_THRESHOLD = 0.9


def parse_rate(num_instances: int, num_unparsed: int) -> float | None:
    """The share of answers that could be read; None for a benchmark with no instances."""
    return None if num_instances == 0 else (num_instances - num_unparsed) / num_instances


def is_low(rate: float | None) -> bool:
    return rate is not None and rate < PARSE_RATE_THRESHOLD


def without_readable_answers(sections: dict[str, MeasureResult], num_instances: int) -> dict[str, MeasureResult]:
    """``sections`` with every score (and its p-value and CI) undefined, because no answer could be read.

    Counts (integers) describe the data, not the model, and stay; so do the extras (weights, names).

    Examples
    --------
    >>> from corefbias.measures.result import measure_result
    >>> sections = without_readable_answers({"toy": measure_result("toy", {"diff": 0.5, "num_pairs": 3})}, 3)
    >>> dict(sections["toy"])
    {'diff': None, 'num_pairs': 3, 'undefined': {'diff': "no readable answer: none of the model's 3 answers could \
be parsed"}}
    """
    reason = f"no readable answer: none of the model's {num_instances} answers could be parsed"
    return {name: section.blanked(reason) for name, section in sections.items()}
