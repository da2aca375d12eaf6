"""CoNLL-2012 predictions (read by ``corefbias.data.conll_2012``), one ``Document`` per document named by its
header."""

from __future__ import annotations

from pathlib import Path

from ...data import conll_2012
from .document import Document, PredictionFileError, lines_of
from .file_format import FileFormat


def read(path: Path) -> list[Document]:
    lines = lines_of(path)
    try:
        documents = conll_2012.read_documents(lines, source=path.name)
    except ValueError as error:  # its messages name the file and line
        raise PredictionFileError(str(error)) from None
    return [
        Document(
            where=f"{path.name} document ({document.name}) at line {document.line}",
            id=document.name,
            tokens=document.tokens,
            clusters=document.clusters,
        )
        for document in documents
    ]


FORMAT = FileFormat("conll", read, __doc__, lambda line: line.startswith("#begin document"))
