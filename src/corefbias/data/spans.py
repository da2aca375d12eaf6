"""Character spans of the exported data sets and of model output, and their checks at build time.

Every exported set has ``text``, a ``pronoun`` span and a list of ``candidates`` (spans with
``is_referent``; their ``datasets`` features are ``corefbias.data.features``). A span is
``{"text", "start", "end"}`` with ``text[start:end] == span["text"]`` (Python string indices, i.e. Unicode
code points, end exclusive). A span that does not match its text is a build error naming the row, never a
silently shifted offset. Plain Python: model adapters use these helpers without ``datasets``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

Span = tuple[int, int]  # character offsets (start, end), end exclusive, as Python slices


class SpanError(ValueError):
    """A span's offsets do not match its row's text."""


def span_at(text: str, start: int | str, span_text: str, *, row: str, what: str) -> dict:
    """The span of ``span_text`` at character ``start`` of ``text``; a SpanError if it is not there."""
    start = int(start)
    end = start + len(span_text)
    if not span_text or start < 0 or text[start:end] != span_text:
        raise SpanError(
            f"row {row}: {what} {span_text!r} is not at offset {start} of the text (found {text[start:end]!r} there)"
        )
    return {"text": span_text, "start": start, "end": end}


def _as_bool(value: str, *, row: str, column: str) -> bool:
    value = value.strip().upper()
    if value not in ("TRUE", "FALSE"):
        raise ValueError(f"row {row}: {column} is {value!r}, expected TRUE or FALSE")
    return value == "TRUE"


def gap_columns(row: dict) -> dict:
    """``text``, ``pronoun`` and ``candidates`` (A, B) of a row in the GAP TSV format.

    GAP format (GAP, Counter-GAP): ``ID``, ``Text``, ``Pronoun``, ``Pronoun-offset``, ``A``,
    ``A-offset``, ``A-coref``, ``B``, ``B-offset``, ``B-coref``; offsets are character offsets into
    ``Text`` and ``*-coref`` is TRUE/FALSE. Every span is checked against the text.
    """
    row_id, text = row["ID"], row["Text"]
    return {
        "text": text,
        "pronoun": span_at(text, row["Pronoun-offset"], row["Pronoun"], row=row_id, what="Pronoun"),
        "candidates": [
            {
                **span_at(text, row[f"{name}-offset"], row[name], row=row_id, what=name),
                "is_referent": _as_bool(row[f"{name}-coref"], row=row_id, column=f"{name}-coref"),
            }
            for name in ("A", "B")
        ],
    }


def validate_row(example: dict, *, row: str) -> None:
    """Check that the pronoun and every candidate span match ``example["text"]``."""
    text = example["text"]
    spans = [("pronoun", example["pronoun"])] + [
        (f"candidates[{index}]", candidate) for index, candidate in enumerate(example["candidates"])
    ]
    for what, span in spans:
        start, end = span["start"], span["end"]
        if not (0 <= start < end <= len(text)) or text[start:end] != span["text"]:
            raise SpanError(
                f"row {row}: {what} {span['text']!r} at [{start}, {end}) does not match the text "
                f"(found {text[start:end]!r})"
            )


def token_offsets(tokens: Sequence[str], text: str | None = None, *, exact: bool = False) -> list[Span]:
    """Character span of each token in ``text`` (default: the tokens joined by spaces).

    Parameters
    ----------
    tokens : sequence of str
        The tokens, in text order.
    text : str, optional
        The text they were made from.
    exact : bool, default False
        Whether the tokens must be ``text`` tokenized: each token starts where the previous one ended or after
        white space only, and together they cover every character of ``text`` but white space (a predictions
        file's tokens for an instance). Without it each token is found anywhere after the previous one, skipping
        what the tokenizer dropped (a model adapter's tokens).

    Returns
    -------
    list of (int, int)
        ``(start, end)`` of each token, end exclusive.

    Raises
    ------
    ValueError
        Where a token is not found, or with ``exact`` where one does not line up with the text or the text
        goes on after the last token; the message names the token and quotes the text there.

    Examples
    --------
    >>> token_offsets(["Ann", "left", "."], "Ann  left.")
    [(0, 3), (5, 9), (9, 10)]
    >>> token_offsets(["that", "he"], "that she", exact=True)
    Traceback (most recent call last):
    ...
    ValueError: token 1 ('he') does not line up with the text at character 5, which reads 'she'
    >>> token_offsets(["she"], "she left", exact=True)
    Traceback (most recent call last):
    ...
    ValueError: the text goes on after the last token: token 0 ('she') ends at character 3, and character 4 reads 'left'
    """
    if text is None:
        text = " ".join(tokens)
    if exact:
        return _exact_token_offsets(tokens, text)
    offsets, cursor = [], 0
    for index, token in enumerate(tokens):
        start = text.find(token, cursor)
        if start < 0:
            raise ValueError(f"token {index} ({token!r}) not found in the text after character {cursor}")
        offsets.append((start, start + len(token)))
        cursor = start + len(token)
    return offsets


def _exact_token_offsets(tokens: Sequence[str], text: str) -> list[Span]:
    offsets, cursor = [], 0
    for index, token in enumerate(tokens):
        space_end = cursor
        while space_end < len(text) and text[space_end].isspace():
            space_end += 1
        # Anywhere in the white space before the next word: a token of white space itself (spaCy's) may sit in it.
        start = next((start for start in range(cursor, space_end + 1) if text.startswith(token, start)), None)
        if start is None:
            raise ValueError(
                f"token {index} ({token!r}) does not line up with the text at character {space_end}, which reads "
                f"{_excerpt(text, space_end)!r}"
            )
        offsets.append((start, start + len(token)))
        cursor = start + len(token)
    rest = len(text) - len(text[cursor:].lstrip())
    if rest < len(text):
        last = f"token {len(tokens) - 1} ({tokens[-1]!r}) ends at character {cursor}" if tokens else "there is none"
        raise ValueError(
            f"the text goes on after the last token: {last}, and character {rest} reads {_excerpt(text, rest)!r}"
        )
    return offsets


def _excerpt(text: str, start: int, length: int = 40) -> str:
    rest = text[start : start + length]
    return rest + "..." if start + length < len(text) else rest


def token_clusters_to_char(
    clusters: Iterable[Sequence[Sequence[int]]],
    tokens: Sequence[str],
    text: str | None = None,
    *,
    inclusive_end: bool = True,
    exact: bool = False,
) -> list[list[Span]]:
    """Clusters of token spans (``[first, last]`` by default, as AllenNLP and c2f-coref write
    them; ``inclusive_end=False`` for ``[first, last + 1)``) as clusters of character spans; the tokens are
    placed in ``text`` by :func:`token_offsets` (``exact`` as there)."""
    offsets = token_offsets(tokens, text, exact=exact)
    converted = []
    for cluster in clusters:
        spans = []
        for first, last in cluster:
            last_token = last if inclusive_end else last - 1
            if not 0 <= first <= last_token < len(offsets):
                raise ValueError(f"token span {[first, last]} is outside the {len(offsets)} tokens")
            spans.append((offsets[first][0], offsets[last_token][1]))
        converted.append(spans)
    return converted
