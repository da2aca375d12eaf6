"""jsonlines as e2e-coref, SpanBERT, s2e, LingMess, fastcoref and Maverick write it: one JSON object a line,
``doc_key``, ``sentences`` (lists of tokens; or ``tokens``, one flat list) and ``predicted_clusters`` (or
``clusters``) of inclusive token spans over the document's tokens."""

from __future__ import annotations

import json
from pathlib import Path

from ...measures import validation
from .document import Document, PredictionFileError, lines_of, token_clusters
from .file_format import FileFormat


def parse_json(text: str, where: str, what: str):
    """``json.loads``, with every way it fails as a ``PredictionFileError`` naming ``where``.

    Besides malformed JSON (``JSONDecodeError``), that is an integer of more digits than Python converts
    (another ``ValueError``) and nesting deeper than the recursion limit (``RecursionError``).
    """
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as error:
        raise PredictionFileError(f"{where}: not {what} ({str(error) or type(error).__name__})") from None


def first_keys(line: str) -> set[str]:
    try:
        value = parse_json(line, "", "JSON")
    except PredictionFileError:
        return set()
    return set(value) if isinstance(value, dict) else set()


def object_lines(path: Path):
    """(where, object) of every non-blank line."""
    for number, line in enumerate(lines_of(path), 1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        value = parse_json(line, where, "a JSON object")
        if not isinstance(value, dict):
            raise PredictionFileError(f"{where}: expected a JSON object, got {type(value).__name__}")
        yield where, value


def _tokens(record: dict, where: str) -> list[str]:
    if "sentences" in record:
        sentences = record["sentences"]
        if not isinstance(sentences, list) or not all(isinstance(s, list) for s in sentences):
            raise PredictionFileError(f"{where}: sentences must be a list of token lists")
        tokens = [token for sentence in sentences for token in sentence]
    elif "tokens" in record:
        tokens = record["tokens"]
    else:
        raise PredictionFileError(f"{where}: no sentences (lists of tokens) or tokens")
    if not isinstance(tokens, list) or not all(isinstance(token, str) and token for token in tokens):
        raise PredictionFileError(f"{where}: every token must be a non-empty string")
    return tokens


def read(path: Path) -> list[Document]:
    documents = []
    for where, record in object_lines(path):
        tokens = _tokens(record, where)
        key = "predicted_clusters" if "predicted_clusters" in record else "clusters"
        if key not in record:
            raise PredictionFileError(f"{where}: no predicted_clusters or clusters")
        doc_key = record.get("doc_key")
        if doc_key is not None and not validation.is_id(doc_key):
            raise PredictionFileError(f"{where}: doc_key must be a non-empty string or an integer, got {doc_key!r:.80}")
        documents.append(
            Document(
                where=where + (f" (doc_key {doc_key})" if doc_key is not None else ""),
                id=None if doc_key is None else str(doc_key),
                tokens=tuple(tokens),
                clusters=token_clusters(record[key], where=where, num_tokens=len(tokens)),
            )
        )
    return documents


# Every JSON object a line: the formats that tell theirs by a key (instances, allennlp) come first.
FORMAT = FileFormat("jsonlines", read, __doc__, lambda line: line.lstrip().startswith("{"), fallback=True)
