"""Fill-in-the-blank instances as corefbias rows: which word should fill the blank where a pronoun goes?

MISGENDERED and RUFF ask a language model which pronoun to write for a person, not what a written pronoun refers
to. Such an instance becomes a row whose ``text`` is the passage with its blank (``BLANK``) followed by the
options, listed as RUFF's ``scripts/prompt.py`` lists them to its models (``OPTIONS:`` and one ``- option`` line
each); the row's ``pronoun`` is the blank and its ``candidates`` are the options in that list, the referent being
the right word; the options are listed in a rotation counterbalanced over units (:func:`rotated`). A choice model
choosing a candidate therefore chooses the word for the blank; the spans keep the
row valid for everything that reads spans (the export's checks, the Explore view), but a coreference system's
clusters over such a text mean nothing, and the sets say so (``Benchmark.clusters_cannot_express``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

BLANK = "___"  # RUFF's prompt_model: sentence.replace(pronoun_type, '___')
OPTIONS_HEADER = "OPTIONS:"  # RUFF's prompt_model: 'OPTIONS:\n' + '\n'.join(['- ' + o for o in options])
OPTION_BULLET = "- "
# Where a row's options begin: a language model scored by log-likelihood reads the text up to here
# (``ClozeTemplate.reads_until``).
OPTIONS_START = "\n" + OPTIONS_HEADER


def rotated(options: Sequence[str], key: str) -> list[str]:
    """The options in the order a row lists them: a cyclic rotation, its shift ``sha256(key) mod len(options)``.

    ``key`` is the unit's id, so the instances of a unit (one sentence with each pronoun set declared in turn) list
    the options alike, and over the units each option stands at each place about equally often: a model that
    copies the last listed option (or the first) cannot pass for one that prefers a pronoun set, and where it
    does so its answers pile up at one position, which the position rate reports (as ``chat:`` counterbalances its
    lettered options).

    Examples
    --------
    >>> rotated(["he", "she", "they", "xe"], "c1"), rotated(["he", "she", "they", "xe"], "c2")
    (['xe', 'he', 'she', 'they'], ['she', 'they', 'xe', 'he'])
    """
    shift = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:8], "big") % len(options)
    return [*options[shift:], *options[:shift]]


def options_text(options: Sequence[str]) -> str:
    """The options as RUFF's ``prompt_model`` lists them.

    Examples
    --------
    >>> print(options_text(["he", "she"]))
    OPTIONS:
    - he
    - she
    """
    return OPTIONS_HEADER + "\n" + "\n".join(OPTION_BULLET + option for option in options)


def fill_in_row(passage: str, options: Sequence[str], answer: str | None, *, blank: str = BLANK) -> dict:
    """``text``, ``pronoun`` and ``candidates`` of a passage holding one ``BLANK``, with its options.

    Parameters
    ----------
    passage : str
        The instance's text with ``BLANK`` where the word goes (exactly once).
    options : sequence of str
        The words a model chooses among, in the order shown; no word twice.
    answer : str or None
        The right word (one of ``options``), or None where no option is right.
    blank : str, default ``BLANK``
        What marks the blank in the passage (Winogenerated's upstream sentences write ``_``).

    Returns
    -------
    dict
        ``text`` (the passage, a newline and the options list), ``pronoun`` (the blank's span) and
        ``candidates`` (each option's span in the list, ``is_referent`` for the answer).

    Raises
    ------
    ValueError
        If the passage holds no blank or several, an option repeats or is empty, or the answer is not an option.

    Examples
    --------
    >>> row = fill_in_row("Alex said ___ was late.", ["he", "xe"], "xe")
    >>> print(row["text"])
    Alex said ___ was late.
    OPTIONS:
    - he
    - xe
    >>> row["pronoun"], [(c["text"], c["is_referent"]) for c in row["candidates"]]
    ({'text': '___', 'start': 10, 'end': 13}, [('he', False), ('xe', True)])
    """
    if not blank or passage.count(blank) != 1:
        raise ValueError(f"a fill-in passage holds its blank {blank!r} exactly once: {passage!r}")
    if len(set(options)) != len(options) or not all(options):
        raise ValueError(f"the options of a fill-in instance must be distinct, non-empty words: {list(options)!r}")
    if answer is not None and answer not in options:
        raise ValueError(f"the answer {answer!r} is not one of the options {list(options)!r}")
    text = passage + "\n" + options_text(options)
    blank_start = passage.index(blank)
    candidates, cursor = [], len(passage) + 1 + len(OPTIONS_HEADER)
    for option in options:
        start = cursor + 1 + len(OPTION_BULLET)
        candidates.append({"text": option, "start": start, "end": start + len(option), "is_referent": option == answer})
        cursor = start + len(option)
    return {
        "text": text,
        "pronoun": {"text": blank, "start": blank_start, "end": blank_start + len(blank)},
        "candidates": candidates,
    }
