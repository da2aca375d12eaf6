"""CoNLL-2012: ``#begin document (NAME); part N`` … ``#end document``, one token a line (the word in column
4), the coreference column last: ``(3``, ``3)``, ``(3)``, joined by ``|``, ``-`` for none."""

from __future__ import annotations

import re
from pathlib import Path

from .document import Document, PredictionFileError

_BEGIN = re.compile(r"^#begin document \((.*)\);?(?: part (\d+))?")
_MARK = re.compile(r"^(\()?(\d+)(\))?$")


def read(path: Path) -> list[Document]:
    documents = []
    name = where = None
    tokens: list[str] = []
    open_mentions: dict[int, list[int]] = {}
    clusters: dict[int, list[tuple[int, int]]] = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            at = f"{path.name} line {number}"
            header = _BEGIN.match(line)
            if header:
                if name is not None:
                    raise PredictionFileError(f"{at}: a document begins before {where} ended")
                name = header.group(1) + (f"; part {header.group(2)}" if header.group(2) else "")
                where, tokens, open_mentions, clusters = f"{path.name} document ({name}) at line {number}", [], {}, {}
            elif line.startswith("#end document"):
                unclosed = sorted(cluster for cluster, starts in open_mentions.items() if starts)
                if name is None or unclosed:
                    raise PredictionFileError(
                        f"{at}: #end document outside a document, or with clusters {unclosed} still open"
                    )
                ordered = tuple(tuple(sorted(spans)) for _, spans in sorted(clusters.items()))
                documents.append(Document(where=where, id=name, tokens=tuple(tokens), clusters=ordered))
                name = None
            elif line.strip() and not line.startswith("#"):
                columns = line.split()
                if name is None or len(columns) < 5:
                    raise PredictionFileError(f"{at}: a token line outside a document or with fewer than 5 columns")
                position = len(tokens)
                tokens.append(columns[3])
                for part in [] if columns[-1] == "-" else columns[-1].split("|"):
                    for mark in re.findall(r"\(?\d+\)?", part) if re.fullmatch(r"(\(?\d+\)?)+", part) else [part]:
                        match = _MARK.match(mark)
                        if match is None or not (match.group(1) or match.group(3)):
                            raise PredictionFileError(f"{at}: {part!r} is not a coreference mark such as (1, 1) or (1)")
                        cluster = int(match.group(2))
                        if match.group(1):
                            open_mentions.setdefault(cluster, []).append(position)
                        if match.group(3):
                            if not open_mentions.get(cluster):
                                raise PredictionFileError(f"{at}: cluster {cluster} closes a mention it never opened")
                            clusters.setdefault(cluster, []).append((open_mentions[cluster].pop(), position))
    if name is not None:
        raise PredictionFileError(f"{path.name}: {where} has no #end document")
    return documents
