"""CoNLL-2012 predictions (read by ``corefbias.data.conll_2012``), one ``Document`` per document named by its
header."""

from __future__ import annotations

from pathlib import Path

from ...data import conll_2012
from .document import Document, PredictionFileError


def read(path: Path) -> list[Document]:
    with open(path, encoding="utf-8") as handle:
        try:
            documents = conll_2012.read_documents(handle, source=path.name)
        except ValueError as error:
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
