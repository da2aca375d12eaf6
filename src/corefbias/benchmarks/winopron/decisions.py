"""How a WinoPron decision reads: the mention the pronoun was resolved to, if exactly one."""

from __future__ import annotations

from collections.abc import Sequence

from ..winogender.decisions import winogender_answer


def winopron_answer(decision: Sequence[bool], answer: str) -> str:
    """``occupation``/``participant``/``neither``; a single-entity sentence's one candidate is its ``answer``.

    Double-entity candidates are [occupation, participant], as Winogender's; a single-entity sentence names only
    the referent, so linking its one candidate answers it and leaving it unlinked answers neither.

    Examples
    --------
    >>> winopron_answer([False, True], "participant"), winopron_answer([True], "participant")
    ('participant', 'participant')
    >>> winopron_answer([False], "occupation"), winopron_answer([True, True], "occupation")
    ('neither', 'neither')
    """
    if len(decision) == 1:
        return answer if decision[0] else "neither"
    return winogender_answer(decision)
