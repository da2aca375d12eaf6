"""How a WinoNB decision reads: the entity the pronoun was resolved to, if exactly one."""

from __future__ import annotations

from collections.abc import Sequence


def winonb_reading(decision: Sequence[bool]) -> str:
    """``singular``/``plural`` when exactly that candidate is linked, else ``neither``.

    Candidates are [the singular mention ("someone"), the plural mention]. A cluster model that puts *they* with
    the plural mention reads it as plural; one that links both entities, or neither, gives no reading.

    Examples
    --------
    >>> winonb_reading([False, True]), winonb_reading([True, False]), winonb_reading([True, True])
    ('plural', 'singular', 'neither')
    """
    singular, plural = decision
    if singular != plural:
        return "singular" if singular else "plural"
    return "neither"
