"""jsonlines as e2e-coref, SpanBERT, s2e, LingMess, fastcoref and Maverick write it: one JSON object a line,
``doc_key``, ``sentences`` (lists of tokens; or ``tokens``, one flat list) and ``predicted_clusters`` (or
``clusters``) of inclusive token spans over the document's tokens; or as wl-coref and CAW-coref write it,
``document_id``, ``cased_words`` and ``span_clusters`` of ``[start, end)`` word spans (the files WinoPron's
``convert_caw_output.py`` reads)."""

from __future__ import annotations

import json
from pathlib import Path

from ...measures import structured_inputs, validation
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
    elif "cased_words" in record:  # wl-coref, CAW-coref
        tokens = record["cased_words"]
    else:
        raise PredictionFileError(f"{where}: no sentences (lists of tokens), tokens or cased_words")
    if not isinstance(tokens, list) or not all(isinstance(token, str) and token for token in tokens):
        raise PredictionFileError(f"{where}: every token must be a non-empty string")
    return tokens


def _inclusive(span_clusters, where: str):
    """wl-coref's ``span_clusters`` (``[start, end)`` word spans) as inclusive ``[first, last]`` spans."""
    if not isinstance(span_clusters, list) or not all(isinstance(cluster, list) for cluster in span_clusters):
        raise PredictionFileError(f"{where}: span_clusters must be a list of clusters, got {span_clusters!r:.80}")
    inclusive = []
    for cluster in span_clusters:
        spans = []
        for span in cluster:
            if not (isinstance(span, list) and structured_inputs.is_span(span) and span[0] < span[1]):
                raise PredictionFileError(
                    f"{where}: {span!r} is not a word span [start, end) with start < end (span_clusters are lists "
                    f"of such spans, as wl-coref writes them)"
                )
            spans.append([span[0], span[1] - 1])
        inclusive.append(spans)
    return inclusive


def _clusters(record: dict, where: str):
    """The record's clusters as inclusive token spans: ``predicted_clusters``, ``clusters`` or wl-coref's
    ``span_clusters``."""
    for key in ("predicted_clusters", "clusters"):
        if key in record:
            return record[key]
    if "span_clusters" in record:
        return _inclusive(record["span_clusters"], where)
    raise PredictionFileError(f"{where}: no predicted_clusters, clusters or span_clusters")


def read(path: Path) -> list[Document]:
    documents = []
    for where, record in object_lines(path):
        tokens = _tokens(record, where)
        clusters = _clusters(record, where)
        id_key = "doc_key" if "doc_key" in record or "document_id" not in record else "document_id"
        doc_key = record.get(id_key)
        if doc_key is not None and not validation.is_id(doc_key):
            raise PredictionFileError(
                f"{where}: {id_key} must be a non-empty string or an integer, got {doc_key!r:.80}"
            )
        documents.append(
            Document(
                where=where + (f" ({id_key} {doc_key})" if doc_key is not None else ""),
                id=None if doc_key is None else str(doc_key),
                tokens=tuple(tokens),
                clusters=token_clusters(clusters, where=where, num_tokens=len(tokens)),
            )
        )
    return documents


# Every JSON object a line: the formats that tell theirs by a key (instances, allennlp) come first.
FORMAT = FileFormat("jsonlines", read, __doc__, lambda line: line.lstrip().startswith("{"), fallback=True)
