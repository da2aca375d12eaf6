"""GAP TSV, the input of GAP's ``gap_scorer.py``: a header, then ``ID``, ``A-coref``, ``B-coref`` (TRUE/FALSE)
per example (other columns are ignored); the pronoun's links to candidates A and B."""

from __future__ import annotations

import csv
from pathlib import Path

from .document import Document, PredictionFileError

_REQUIRED = ("ID", "A-coref", "B-coref")


def _flag(value: str | None, where: str, column: str) -> bool:
    text = (value or "").strip().upper()
    if text not in ("TRUE", "FALSE"):
        raise PredictionFileError(f"{where}: {column} is {value!r}, expected TRUE or FALSE")
    return text == "TRUE"


def read(path: Path) -> list[Document]:
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        missing = [column for column in _REQUIRED if column not in (reader.fieldnames or [])]
        if missing:
            raise PredictionFileError(
                f"{path.name}: the header lacks {', '.join(missing)}; a GAP TSV has ID, A-coref and B-coref columns"
            )
        documents = []
        for number, row in enumerate(reader, 2):
            where = f"{path.name} line {number} (ID {row['ID']})"
            documents.append(
                Document(
                    where=where,
                    id=row["ID"],
                    decisions=(_flag(row["A-coref"], where, "A-coref"), _flag(row["B-coref"], where, "B-coref")),
                )
            )
    return documents
