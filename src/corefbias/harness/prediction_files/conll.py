"""CoNLL-2012 predictions (read by ``corefbias.data.conll_2012``), one ``Document`` per document named by its
header."""

from __future__ import annotations

from pathlib import Path

from ...data import conll_2012
from .document import Document, PredictionFileError, lines_of


def read(path: Path) -> list[Document]:
    lines = lines_of(path)
    try:
        documents = conll_2012.read_documents(lines, source=path.name)
    except ValueError as error:
        message = str(error)
        # read_documents names the file in its own messages; a ValueError from deeper down (a cluster id of
        # more digits than Python converts) does not.
        raise PredictionFileError(message if message.startswith(path.name) else f"{path.name}: {message}") from None
    return [
        Document(
            where=f"{path.name} document ({document.name}) at line {document.line}",
            id=document.name,
            tokens=document.tokens,
            clusters=document.clusters,
        )
        for document in documents
    ]
