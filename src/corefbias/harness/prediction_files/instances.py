"""Our own ``instances/<benchmark>.jsonl`` (what ``corefbias run`` and ``score`` write): ``id``, ``decision``
(one boolean per candidate) and ``parsed`` per instance, a cluster model's ``clusters`` (character spans) and a
choice model's option ``position``, so a run can be scored again: from its clusters where it kept them (every
score, CoNLL F1 included), else from its decisions, with its parse and position rates."""

from __future__ import annotations

from pathlib import Path

from .document import Document, PredictionFileError
from .jsonlines import object_lines


def _char_clusters(value, where: str) -> tuple:
    def is_span(span) -> bool:
        return (
            isinstance(span, list)
            and len(span) == 2
            and all(isinstance(i, int) and not isinstance(i, bool) for i in span)
            and 0 <= span[0] < span[1]
        )

    if not isinstance(value, list) or not all(
        isinstance(cluster, list) and all(is_span(span) for span in cluster) for cluster in value
    ):
        raise PredictionFileError(
            f"{where}: clusters must be a list of clusters of [start, end) character spans, got {value!r:.80}"
        )
    return tuple(tuple((span[0], span[1]) for span in cluster) for cluster in value)


def read(path: Path) -> list[Document]:
    documents = []
    for where, record in object_lines(path):
        decision = record.get("decision")
        if "id" not in record or not isinstance(decision, list) or not all(isinstance(d, bool) for d in decision):
            raise PredictionFileError(f"{where}: expected an id and a decision (a list of true/false per candidate)")
        clusters = record.get("clusters")
        position = record.get("position")
        if position is not None and (not isinstance(position, int) or isinstance(position, bool) or position < 0):
            raise PredictionFileError(f"{where}: position must be an option position (0, 1, ...), got {position!r:.80}")
        documents.append(
            Document(
                where=f"{where} (id {record['id']})",
                id=str(record["id"]),
                char_clusters=None if clusters is None else _char_clusters(clusters, where),
                decisions=None if clusters is not None else tuple(decision),
                parsed=bool(record.get("parsed", True)),
                position=position,
            )
        )
    return documents
