"""How a Winogender decision reads: which of the two candidates the pronoun names, if exactly one."""

from __future__ import annotations

from collections.abc import Sequence


def winogender_answer(decision: Sequence[bool]) -> str:
    """``occupation``/``participant`` when exactly that candidate is linked, else ``neither``.

    Candidates are [occupation, participant]; a pronoun linked to both names no single antecedent.

    Examples
    --------
    >>> winogender_answer([True, False]), winogender_answer([True, True])
    ('occupation', 'neither')
    """
    occupation, participant = decision
    if occupation != participant:
        return "occupation" if occupation else "participant"
    return "neither"
