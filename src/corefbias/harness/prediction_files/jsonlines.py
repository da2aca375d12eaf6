"""jsonlines as e2e-coref, SpanBERT, s2e, LingMess, fastcoref and Maverick write it: one JSON object a line,
``doc_key``, ``sentences`` (lists of tokens; or ``tokens``, one flat list) and ``predicted_clusters`` (or
``clusters``) of inclusive token spans over the document's tokens."""

from __future__ import annotations

import json
from pathlib import Path

from .document import Document, PredictionFileError, token_clusters


def first_keys(line: str) -> set[str]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return set()
    return set(value) if isinstance(value, dict) else set()


def object_lines(path: Path):
    """(where, object) of every non-blank line."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path.name} line {number}"
            try:
                value = json.loads(line)
            except json.JSONDecodeError as error:
                raise PredictionFileError(f"{where}: not a JSON object ({error})") from None
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
        documents.append(
            Document(
                where=where + (f" (doc_key {doc_key})" if doc_key is not None else ""),
                id=None if doc_key is None else str(doc_key),
                tokens=tuple(tokens),
                clusters=token_clusters(record[key], where=where, num_tokens=len(tokens)),
            )
        )
    return documents
