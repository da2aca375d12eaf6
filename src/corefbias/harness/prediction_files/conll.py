"""CoNLL-2012 predictions (read by ``corefbias.data.conll_2012``), one ``Document`` per document named by its
header. GICoref's file is read as the GICoref builder reads it, so that its released file scores as a predictions
file: asterisk marks (``(1*)``, ``(1*``, ``1*)``: a deadname or a misgendering word, still a mention of the entity)
are plain marks, and a token ``#`` of its two-column layout (``#<tab>-``) is a token, not a comment."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from ...benchmarks.gicoref.files import MENTION_MARK as GICOREF_MARK
from ...data import conll_2012
from .document import Document, PredictionFileError, lines_of
from .file_format import FileFormat

_LAST_COLUMN = re.compile(r"(\S+)(\s*)$")


def without_asterisks(line: str) -> str:
    """The line with each GICoref mark of its coreference column (the last) written without its asterisk.

    The GICoref builder (``corefbias.benchmarks.gicoref.files``) reads ``(1*)`` as a mention of entity 1 flagged
    misgendering; the flag is no part of a coreference score, so the mark is the plain ``(1)`` here.

    Examples
    --------
    >>> without_asterisks("she\\t(1*)(2\\n"), without_asterisks("Jorge\\t3*)|(4*\\n")
    ('she\\t(1)(2\\n', 'Jorge\\t3)|(4\\n')
    >>> without_asterisks("d 0 0 * * -\\n")  # other columns, and a column of no marks, are left as they are
    'd 0 0 * * -\\n'
    """
    if "*" not in line or line.startswith(("#begin document", "#end document")):
        return line
    last = _LAST_COLUMN.search(line)
    if last is None:
        return line
    marks = GICOREF_MARK.sub(lambda mark: mark.group(0).replace("*", ""), last.group(1))
    return line[: last.start(1)] + marks + last.group(2)


def as_tokens(lines: Iterable[str]) -> Iterator[str]:
    """The lines, with those of a token ``#`` in GICoref's two-column layout (``#<tab>-``) made token lines.

    ``corefbias.data.conll_2012`` reads a line starting with ``#`` as a comment; the reference scorer and the
    GICoref builder read every line of a document as a token line, and GICoref has 12 tokens ``#``. A line of a
    document of a word and a coreference column, tab-separated, is a token line here; an indent keeps
    ``conll_2012`` from reading it as a comment (it splits the line on white space).

    Examples
    --------
    >>> list(as_tokens(["#begin document d\\n", "#\\t-\\n", "# a comment\\n", "#end document d\\n"]))
    ['#begin document d\\n', ' #\\t-\\n', '# a comment\\n', '#end document d\\n']
    """
    in_document = False
    for line in lines:
        if line.startswith("#begin document"):
            in_document = True
        elif line.startswith("#end document"):
            in_document = False
        elif in_document and line.startswith("#") and len(line.rstrip("\r\n").split("\t")) == 2:
            line = " " + line
        yield line


def read(path: Path) -> list[Document]:
    lines = list(as_tokens(without_asterisks(line) for line in lines_of(path)))
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
