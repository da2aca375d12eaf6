"""BUG's own reading of a system's clusters: ``src/evaluations/evaluate_coref.py``'s ``is_correct_pred``.

The script calls a sentence resolved when one predicted cluster holds a mention covering the word at the upstream
``profession_first_index`` and one covering the word at ``g_first_index`` (inclusive spans of the sentence's words,
the text split at single spaces, as BUG's CoNLL converter splits it). corefbias's own sections decide it from where
the two words are (``files.locate``: in 27 gold and 23 balanced rows the nearest occurrence, as the offsets miss
their words) with the project's cluster rule; the sections ``bug/<config>/evaluate_coref`` read the same clusters
as the script does, so that both figures stand side by side (the card's "Known issues" says where they part).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from .files import Word, words

SECTION = "evaluate_coref"  # the suffix of the sections read as the script reads clusters: bug/<config>/evaluate_coref


def word_span(sentence: Sequence[Word], start: int, end: int) -> tuple[int, int]:
    """The first and last word (inclusive) a mention of characters ``start``–``end`` runs over, as the script's
    word spans count them; first > last where it holds no word.

    Parameters
    ----------
    sentence : sequence of Word
        The sentence's words (``files.words``).
    start, end : int
        The mention's characters, end exclusive.

    Returns
    -------
    tuple of (int, int)

    Examples
    --------
    >>> sentence = words("her  assistant called")  # two spaces: an empty word between "her" and "assistant"
    >>> word_span(sentence, 0, 14), word_span(sentence, 5, 14), word_span(sentence, 15, 21)
    ((0, 2), (2, 2), (3, 3))
    """
    first = bisect_right([word.end for word in sentence], start)
    last = bisect_left([word.start for word in sentence], end) - 1
    return first, last


def linked_at_offsets(row: dict, clusters: Sequence) -> bool:
    """``is_correct_pred`` of evaluate_coref.py: does one cluster hold a mention covering the word at
    ``profession_first_index`` and one covering the word at ``g_first_index``?

    Parameters
    ----------
    row : dict
        The instance's row: ``text`` and upstream's word offsets ``profession_first_index``, ``g_first_index``.
    clusters : sequence
        The system's clusters of ``[start, end]`` character spans of ``text`` (end exclusive).

    Returns
    -------
    bool

    Examples
    --------
    >>> row = {"text": "Her assistant called .", "profession_first_index": 1, "g_first_index": 0}
    >>> linked_at_offsets(row, [[[0, 13]]])  # one mention "Her assistant" covers both words
    True
    >>> linked_at_offsets(row, [[[4, 13]], [[0, 3]]])
    False
    """
    sentence = words(row["text"])
    spans = [[word_span(sentence, start, end) for start, end in cluster] for cluster in clusters]

    def holding(index: int) -> set[int]:
        """The clusters with a mention covering word ``index`` (the script's ``find_cluster_ind``)."""
        return {number for number, mentions in enumerate(spans) for first, last in mentions if first <= index <= last}

    return bool(holding(row["profession_first_index"]) & holding(row["g_first_index"]))
