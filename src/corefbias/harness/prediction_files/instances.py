"""Our own ``instances/<benchmark>.jsonl`` (what ``corefbias run`` and ``score`` write): ``id``, ``decision``
(one boolean per candidate) and ``parsed`` per instance, so a run's decisions can be scored again."""

from __future__ import annotations

from pathlib import Path

from .document import Document, PredictionFileError
from .jsonlines import object_lines


def read(path: Path) -> list[Document]:
    documents = []
    for where, record in object_lines(path):
        decision = record.get("decision")
        if "id" not in record or not isinstance(decision, list) or not all(isinstance(d, bool) for d in decision):
            raise PredictionFileError(f"{where}: expected an id and a decision (a list of true/false per candidate)")
        documents.append(
            Document(
                where=f"{where} (id {record['id']})",
                id=str(record["id"]),
                decisions=tuple(decision),
                parsed=bool(record.get("parsed", True)),
            )
        )
    return documents
