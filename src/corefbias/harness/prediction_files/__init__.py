"""Reading the predictions a coreference system already wrote, one small reader per format.

Every reader turns a file into ``Document``s: where it came from (for error messages), an id when
the format carries one, and either its tokens with clusters of inclusive token spans, or per-candidate
decisions (formats that hold links, not clusters). ``matching`` pairs documents with a benchmark's
instances; ``scoring`` runs the benchmark's scoring on them (``corefbias score``).
"""

from __future__ import annotations

from pathlib import Path

from . import allennlp, conll, gap_tsv, instances, jsonlines
from .document import Document, PredictionFileError, lines_of

READERS = {
    "conll": conll.read,
    "jsonlines": jsonlines.read,
    "allennlp": allennlp.read,
    "gap-tsv": gap_tsv.read,
    "instances": instances.read,
}
FORMATS = ("auto", *READERS)


def detect(path: Path) -> str:
    """The format of a file, from its first non-blank line."""
    first = next((line for line in lines_of(path) if line.strip()), "")
    if first.startswith("#begin document"):
        return "conll"
    if first.split("\t")[0] == "ID" and "A-coref" in first.split("\t"):
        return "gap-tsv"
    if first.lstrip().startswith("["):
        return "allennlp"
    if first.lstrip().startswith("{"):
        keys = jsonlines.first_keys(first)
        if "decision" in keys:
            return "instances"
        if "document" in keys:
            return "allennlp"
        return "jsonlines"
    raise PredictionFileError(
        f"{path}: cannot tell its format from the first line {first[:80]!r}; give --format ({', '.join(READERS)})"
    )


def read(paths, format: str = "auto") -> list[Document]:
    """Every document of the files, in order."""
    if format not in FORMATS:
        raise ValueError(f"unknown predictions format {format!r}; choose one of {', '.join(FORMATS)}")
    documents: list[Document] = []
    for path in map(Path, paths):
        if not path.is_file():
            raise FileNotFoundError(f"no predictions file {path}")
        documents += READERS[detect(path) if format == "auto" else format](path)
    return documents


__all__ = ["Document", "FORMATS", "PredictionFileError", "READERS", "detect", "read"]
