"""Whether a model's answers follow the order its options were shown in, and what that does to the scores.

A chat model (``chat:``) answers a lettered multiple-choice question whose options are rotated per unit
(``corefbias.models.chat``), so over the units every option position holds the right answer, and each of
the other options, equally often in expectation. A model whose answers do not depend on the order (one
that reads the text, or even one that always names the same option) therefore answers at each of the
``m`` positions about ``1/m`` of the time, whatever it chooses. A model that always answers ``A`` answers
at one position every time, and because the variants of a unit (the minimal pairs the bias scores
compare) see the same order, it answers them identically: every minimal-pair score comes out 0 with a
zero-width interval, which is "no gender signal from a model that does not resolve the pronoun", not
"unbiased".

Every benchmark therefore reports its **position rate**: the share of the parsed answers given at the
single most frequent option position (``0`` = ``A``), counted over the answers that carry a position
(``Choice.position``). It is None where no answer does: cluster models, baselines and cloze scoring are
shown no order, and ``chat --orders all`` decides from every order at once. Above
``POSITION_RATE_THRESHOLD`` the benchmark's scores are flagged ``position_bias``.

**The threshold, 0.8.** A model that answers a share ``q`` of the questions by position and the rest
independently of the order has a position rate of about ``q + (1 - q) / m``. Every benchmark shows its
candidates plus "none of them": ``m = 3`` options on Counter-GAP, GAP, Winogender, WinoBias, SoWinoBias
and DaWinoBias, ``m = 2`` on ABC (one candidate, the occupation). A rate above 0.8 thus means
``q > 0.6`` even with two options (``q > 0.7`` with three): most answers are forced by the position. A
model that ignores the order has an expected rate of 1/3 (1/2 on ABC), and its rate exceeds 0.8 only by
chance. The worst case is a model that gives every variant of a unit the same option, so that a unit's
answers share one position and only the units count (``n``); in a ``--limit 5`` run the chance that
some position then holds more than 80% of the answers is, by the exact multinomial tail with uniform
positions: ``1.1e-3`` with ``n = 10`` units and 3 options (Counter-GAP, GAP, Winogender, SoWinoBias),
``1.3e-5`` for WinoBias (22 units), ``7.9e-7`` for DaWinoBias (25), and ``2.1e-2`` for ABC (10 triplets, 2
options: 9 or 10 of 10 on one side). Answers independent within a unit make it far smaller (ABC's 30
instances: ``3.3e-4``). A threshold of 0.75 (exactly "a majority forced" with two options) would give
ABC ``1.1e-1`` in that worst case. With fewer units (``--limit 1``: two Counter-GAP quadruples) even a
model reading the text can cross it, hence the note says on how many questions the rate rests.
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

# Above it a majority (> 60%) of the answers are forced by the position even with 2 options; see the docstring.
POSITION_RATE_THRESHOLD = 0.8
NO_POSITIONS = (
    "the model reported no option positions (cluster models, baselines and cloze scoring are shown no order of "
    "options; chat --orders all decides from every order)"
)


@dataclass(frozen=True)
class PositionRate:
    """How one benchmark's answers fall on the option positions.

    ``rate`` is the share of the positioned answers at ``top_position`` (0 = ``A``), the most frequent
    position (the first of tied ones); both None where no answer carries a position. ``answers`` counts
    the parsed answers with a position, ``at_top`` those at ``top_position``; ``note`` says it in words.
    """

    rate: float | None
    top_position: int | None
    at_top: int
    answers: int
    note: str

    @property
    def flagged(self) -> bool:
        """Whether the benchmark's scores are flagged ``position_bias``."""
        return is_position_biased(self.rate)


def position_letter(position: int) -> str:
    """The letter an option position is shown with (0 → ``A``)."""
    return string.ascii_uppercase[position]


def position_rate(instances: Iterable[dict]) -> PositionRate:
    """The position rate of one benchmark's answers.

    Parameters
    ----------
    instances
        The runner's instance records (``BenchmarkRun.instances``, the lines of ``instances/<benchmark>.jsonl``):
        ``parsed`` and, where the model reported one, ``position``.

    Returns
    -------
    PositionRate
        The share of the parsed, positioned answers at the most frequent position, with the reason in
        ``note`` where there is none.
    """
    counts = Counter(
        record["position"] for record in instances if record.get("parsed", True) and record.get("position") is not None
    )
    if not counts:
        return PositionRate(None, None, 0, 0, NO_POSITIONS)
    answers = sum(counts.values())
    # Ties go to the earliest position, so the same answers always name the same one.
    top, at_top = min(counts.items(), key=lambda item: (-item[1], item[0]))
    note = f"answers at option position {position_letter(top)} in {at_top} of {answers} questions"
    return PositionRate(at_top / answers, top, at_top, answers, note)


def is_position_biased(rate: float | None) -> bool:
    """Whether a position rate is above ``POSITION_RATE_THRESHOLD`` (None, no positions: never)."""
    return rate is not None and rate > POSITION_RATE_THRESHOLD


def results_fields(instances: Iterable[dict]) -> dict:
    """The position fields of a benchmark in ``results.json``.

    Returns
    -------
    dict
        ``position_rate`` (float or None), ``top_position`` (0 = ``A``, or None), ``position_bias`` (bool) and
        ``position_note`` (the counts in words, or why there is no rate).
    """
    rate = position_rate(instances)
    return {
        "position_rate": rate.rate,
        "top_position": rate.top_position,
        "position_bias": rate.flagged,
        "position_note": rate.note,
    }
