"""GAP TSV, the input of GAP's ``gap_scorer.py``: a header, then ``ID``, ``A-coref``, ``B-coref`` (TRUE/FALSE)
per example (other columns are ignored); the pronoun's links to candidates A and B."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from .document import Document, PredictionFileError, text_of
from .file_format import FileFormat

_REQUIRED = ("ID", "A-coref", "B-coref")


def _flag(value: str | None, where: str, column: str) -> bool:
    text = (value or "").strip().upper()
    if text not in ("TRUE", "FALSE"):
        raise PredictionFileError(f"{where}: {column} is {value!r}, expected TRUE or FALSE")
    return text == "TRUE"


def read(path: Path) -> list[Document]:
    reader = csv.DictReader(io.StringIO(text_of(path), newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
    try:
        missing = [column for column in _REQUIRED if column not in (reader.fieldnames or [])]
        if missing:
            raise PredictionFileError(
                f"{path.name}: the header lacks {', '.join(missing)}; a GAP TSV has ID, A-coref and B-coref columns"
            )
        documents = []
        for number, row in enumerate(reader, 2):
            where = f"{path.name} line {number} (ID {row['ID']})"
            if not row["ID"]:
                raise PredictionFileError(f"{where}: the ID is empty; give every example its GAP ID")
            documents.append(
                Document(
                    where=where,
                    id=row["ID"],
                    decisions=(_flag(row["A-coref"], where, "A-coref"), _flag(row["B-coref"], where, "B-coref")),
                )
            )
    except csv.Error as error:  # a field beyond csv's size limit, a NUL byte
        raise PredictionFileError(f"{path.name} line {reader.reader.line_num}: not a GAP TSV line ({error})") from None
    return documents


def _recognises(line: str) -> bool:
    """Whether ``line`` (as read, its line break kept) is a GAP TSV header: ``ID`` first, ``A-coref`` anywhere.

    Examples
    --------
    >>> _recognises("ID\\tA-coref\\tB-coref\\n"), _recognises("ID\\tB-coref\\tA-coref\\n"), _recognises("ID\\tText\\n")
    (True, True, False)
    """
    # Without the line break, which would otherwise stay on a last column ("A-coref\n").
    columns = line.rstrip("\r\n").split("\t")
    return columns[0] == "ID" and "A-coref" in columns


FORMAT = FileFormat("gap-tsv", read, __doc__, _recognises)
