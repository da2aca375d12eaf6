"""Our own ``instances/<benchmark>.jsonl`` (what ``corefbias run`` and ``score`` write): ``id``, ``decision``
(one boolean per candidate) and ``parsed`` per instance, a cluster model's ``clusters`` (character spans), a
choice model's option ``position`` and a cloze model's ``loglikelihoods``, so a run can be scored again: from its
clusters where it kept them (every score, CoNLL F1 included), else from its decisions, with its parse and position
rates (and the "don't know" scores from the log-likelihoods)."""

from __future__ import annotations

from pathlib import Path

from ...measures import structured_inputs, validation
from .document import Document, PredictionFileError
from .file_format import FileFormat
from .jsonlines import first_keys, object_lines


def _char_clusters(value, where: str) -> tuple:
    def is_span(span) -> bool:  # [start, end): a non-empty span
        return isinstance(span, list) and structured_inputs.is_span(span) and span[0] < span[1]

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
        if not validation.is_id(record["id"]):
            raise PredictionFileError(f"{where}: id must be a non-empty string or an integer, got {record['id']!r:.80}")
        parsed = record.get("parsed", True)
        if not isinstance(parsed, bool):
            raise PredictionFileError(
                f"{where}: parsed must be true or false (was the model's answer read), got {parsed!r:.80}"
            )
        clusters = record.get("clusters")
        position = record.get("position")
        if position is not None and not validation.is_integer(position):
            raise PredictionFileError(f"{where}: position must be an option position (0, 1, ...), got {position!r:.80}")
        loglikelihoods = record.get("loglikelihoods")
        if loglikelihoods is not None and not (
            isinstance(loglikelihoods, list)
            and all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in loglikelihoods)
        ):
            raise PredictionFileError(f"{where}: loglikelihoods must be a list of numbers, got {loglikelihoods!r:.80}")
        documents.append(
            Document(
                where=f"{where} (id {record['id']})",
                id=str(record["id"]),
                char_clusters=None if clusters is None else _char_clusters(clusters, where),
                decisions=None if clusters is not None else tuple(decision),
                parsed=parsed,
                position=position,
                loglikelihoods=None if loglikelihoods is None else tuple(float(value) for value in loglikelihoods),
            )
        )
    return documents


FORMAT = FileFormat(
    "instances", read, __doc__, lambda line: line.lstrip().startswith("{") and "decision" in first_keys(line)
)
