"""AllenNLP's coreference predictor output: per document ``document`` (tokens) and ``clusters`` of inclusive
token spans; a JSON list of such objects (as the DaNLP XLM-R predictions are published) or one a line."""

from __future__ import annotations

from pathlib import Path

from .document import Document, PredictionFileError, text_of, token_clusters
from .file_format import FileFormat
from .jsonlines import first_keys, object_lines, parse_json


def _records(path: Path):
    text = text_of(path)
    if text.lstrip().startswith("["):
        records = parse_json(text, path.name, "a JSON list of predictions")
        for index, record in enumerate(records):
            where = f"{path.name} item {index}"
            if not isinstance(record, dict):
                raise PredictionFileError(f"{where}: expected a JSON object, got {type(record).__name__}")
            yield where, record
    else:
        yield from object_lines(path)


def read(path: Path) -> list[Document]:
    documents = []
    for where, record in _records(path):
        tokens = record.get("document")
        if not isinstance(tokens, list) or not all(isinstance(token, str) and token for token in tokens):
            raise PredictionFileError(f"{where}: document must be the list of the document's tokens")
        if "clusters" not in record:
            raise PredictionFileError(f"{where}: no clusters")
        documents.append(
            Document(
                where=where,
                tokens=tuple(tokens),
                clusters=token_clusters(record["clusters"], where=where, num_tokens=len(tokens)),
            )
        )
    return documents


def _recognises(line: str) -> bool:
    start = line.lstrip()
    return start.startswith("[") or (start.startswith("{") and "document" in first_keys(line))


FORMAT = FileFormat("allennlp", read, __doc__, _recognises)
