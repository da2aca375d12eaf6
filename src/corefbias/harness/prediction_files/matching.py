"""Pairing predicted documents with a benchmark's instances: by id where the document carries one that is an
instance id, else by text (its tokens, concatenated, against the instance text without whitespace). Every
instance must be matched exactly once; anything else is an error naming the first offending document. Matched
either way, a document's tokens must be the instance's text tokenized, every character of it but white space in
order (``token_offsets(..., exact=True)``): by id, nothing else checks that they are that instance's.

Where a benchmark's instances are questions about longer documents (``Benchmark.document_column``), a predicted
document may instead stand for a whole document: matched by the document's name (the column's value) or by its
text, it answers every instance of that document."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from ...data.spans import token_clusters_to_char
from .document import Document, PredictionFileError

Part = tuple[str, str]  # (config, split)

# A file of a `run --limit N` (or `export-lm-eval --limit N`) scored without that limit lacks the rest.
LIMIT_HINT = "; the instances of a `run --limit N` or an `export-lm-eval --limit N` are scored with the same limit"


def _text_key(text: str) -> str:
    return "".join(text.split())


def answers(document: Document, columns: dict, document_column: str | None = None) -> bool:
    """Whether ``document`` would be matched to an instance of these rows: by its id (an instance id, or the
    name of a document in ``document_column``) or by its text.

    Parameters
    ----------
    document : Document
        A predicted document.
    columns : dict
        Rows as columns: ``id``, ``text`` (and ``document_column``).
    document_column : str or None, default None
        The column naming each instance's document (``Benchmark.document_column``).

    Returns
    -------
    bool

    Examples
    --------
    >>> rows = {"id": ["a-1"], "text": ["She left ."]}
    >>> answers(Document("line 1", id="a-1"), rows), answers(Document("line 2", tokens=["She", "left", "."]), rows)
    (True, True)
    >>> answers(Document("line 3", id="b-1"), rows)
    False
    """
    names = {str(value) for value in columns["id"]}
    if document_column is not None and document_column in columns:
        names |= {str(value) for value in columns[document_column]}
    if document.id is not None and document.id in names:
        return True
    return document.tokens is not None and _text_key("".join(document.tokens)) in {
        _text_key(text) for text in columns["text"]
    }


def _describe(document: Document) -> str:
    if document.tokens is None:
        return document.where
    text = " ".join(document.tokens)
    return f"{document.where} ({text[:60]!r}{'...' if len(text) > 60 else ''})"


def _output(document: Document, row: dict, instance: str):
    """The runner's output for one instance: character-span clusters, or the file's decisions."""
    if document.char_clusters is not None:
        beyond = [span for cluster in document.char_clusters for span in cluster if span[1] > len(row["text"])]
        if beyond:
            raise PredictionFileError(
                f"{document.where}: span {list(beyond[0])} ends beyond the {len(row['text'])} characters of "
                f"instance {instance}; the file was written for another version of the data set"
            )
        return [[list(span) for span in cluster] for cluster in document.char_clusters]
    if document.decisions is not None:
        if len(document.decisions) != len(row["candidates"]):
            raise PredictionFileError(
                f"{document.where}: {len(document.decisions)} decisions, but instance {instance} has "
                f"{len(row['candidates'])} candidates"
            )
        output = {"decision": list(document.decisions), "parsed": document.parsed}
        # A choice model is shown the candidates and at most one "none of them" option.
        if document.position is not None and document.position > len(row["candidates"]):
            raise PredictionFileError(
                f"{document.where}: position {document.position} is beyond the options of instance {instance} (its "
                f"{len(row['candidates'])} candidates and at most one 'none of them', positions 0 to "
                f"{len(row['candidates'])})"
            )
        if document.position is not None:  # the runner keeps it in the instance record, for the position rate
            output["position"] = document.position
        if document.loglikelihoods is not None:  # a cloze model's, for the "don't know" scores
            output["loglikelihoods"] = list(document.loglikelihoods)
        return output
    try:
        # Exact: a document matched by id may hold another text's tokens (a "he" would be found inside "she").
        clusters = token_clusters_to_char(document.clusters, document.tokens, row["text"], exact=True)
    except ValueError as error:
        raise PredictionFileError(
            f"{_describe(document)}: its tokens do not line up with the text of instance {instance} "
            f"({row['text'][:80]!r}{'...' if len(row['text']) > 80 else ''}): {error}; the file's tokens must be "
            f"the instance's text tokenized (every character of it but white space, in order)"
        ) from None
    return [[list(span) for span in cluster] for cluster in clusters]


def _groups(parts: dict, document_column: str | None) -> tuple[dict, dict]:
    """What one predicted document may stand for: key → the instances it answers (one instance, or with a
    ``document_column`` every instance of a document), and text key → those keys in order."""
    groups: dict[str, list[str]] = {}
    by_text: dict[str, deque] = {}
    for columns in parts.values():
        names = columns["id"] if document_column is None else columns[document_column]
        for instance, name, text in zip(columns["id"], names, columns["text"]):
            if name not in groups:
                groups[name] = []
                by_text.setdefault(_text_key(text), deque()).append(name)
            groups[name].append(instance)
    return groups, by_text


def match(
    documents: list[Document],
    parts: dict,
    benchmark: str,
    *,
    document_column: str | None = None,
    elsewhere: Callable[[Document], str] | None = None,
    only_parts: Callable[[list[Part]], str] | None = None,
) -> dict:
    """``(config, split)`` → outputs in the order of the part's rows; ``parts`` maps (config, split) to
    rows as columns (``id``, ``text``, ``candidates``, and ``document_column`` where one is given). ``elsewhere``
    gives the end of the message of a document that is no instance: where it is one (``; ...``, or ""); where the
    documents answer some parts whole and the others not at all, ``only_parts`` (given those parts) ends the message
    that instances are missing."""
    located = {}
    for part, columns in parts.items():
        for position, instance in enumerate(columns["id"]):
            located[instance] = (part, position)
    groups, by_text = _groups(parts, document_column)
    per = "instance" if document_column is None else "document"
    matched: dict[str, Document] = {}
    outputs = {part: [None] * len(columns["id"]) for part, columns in parts.items()}
    for document in documents:
        if document.id is not None and document.id in located:
            instances = [document.id]
        elif document.id is not None and document.id in groups:
            instances = groups[document.id]
        elif document.tokens is not None:
            waiting = by_text.get(_text_key("".join(document.tokens)))
            while waiting and all(instance in matched for instance in groups[waiting[0]]):
                waiting.popleft()
            if not waiting:
                what = f"no further {per}" if _text_key("".join(document.tokens)) in by_text else f"no {per}"
                raise PredictionFileError(
                    f"{_describe(document)} matches {what} of {benchmark} by id or by text: expected one document "
                    f"per {per}, with that {per}'s tokens{elsewhere(document) if elsewhere else ''}"
                )
            instances = groups[waiting.popleft()]
        else:
            raise PredictionFileError(
                f"{document.where}: id {document.id!r} is not an {per} of {benchmark} (expected ids such as "
                f"{next(iter(groups), '?')!r}){elsewhere(document) if elsewhere else ''}"
            )
        for instance in instances:
            if instance in matched:
                raise PredictionFileError(
                    f"{_describe(document)}: instance {instance} of {benchmark} is already matched by "
                    f"{matched[instance].where}; expected each {per} once"
                )
            matched[instance] = document
            part, position = located[instance]
            row = {"text": parts[part]["text"][position], "candidates": parts[part]["candidates"][position]}
            outputs[part][position] = _output(document, row, instance)
    missing = [instance for instance in located if instance not in matched]
    if missing:
        answered = {part for instance, (part, _) in located.items() if instance in matched}
        whole = [part for part in parts if all(instance in matched for instance in parts[part]["id"])]
        if only_parts is not None and whole and answered == set(whole):
            hint = only_parts(whole)
        else:
            hint = LIMIT_HINT if matched else ""
        raise PredictionFileError(
            f"the predictions have no document for instance {missing[0]} of {benchmark} ({len(missing)} of "
            f"{len(located)} instances unmatched): expected one document per instance{hint}"
        )
    return outputs
