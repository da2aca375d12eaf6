"""CoNLL-2012 coreference files, read once for the WinoBias builder (its gold key files) and for
``corefbias score`` (a system's responses): ``#begin document (NAME); part N`` … ``#end document``, one
token a line (the word in column 4), the coreference column last: ``(3``, ``3)``, ``(3)``, joined by ``|``
or written together (``(3)(4``), ``-`` for none; other ``#`` lines are comments. The two-column layout GICoref
ships is read too: ``#begin document NAME`` and lines of the word and the coreference column, as the reference
scorer reads them (it takes the last column): a mark may carry GICoref's ``*`` (``(1*)``, a deadname or a
misgendering word, still a mention of entity 1; the flag is no part of a coreference score), and a line of a
document of two tab-separated fields is a token even where its word is ``#``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_BEGIN = re.compile(r"^#begin document (?:\((.*)\);?(?: part (\d+))?|(\S+)\s*$)")
_MARKS = re.compile(r"(\(?\d+\*?\)?)+")
_MARK = re.compile(r"^(\()?(\d+)\*?(\))?$")
_MAX_ID_DIGITS = 18  # far beyond any file's cluster count, and short of the 4,300 digits Python will convert


@dataclass(frozen=True)
class ConllDocument:
    """``name``: the header's NAME, with ``; part N`` where it has a part; ``line``: where it begins;
    ``clusters``: inclusive ``(first, last)`` token spans, clusters in the order of their ids, mentions in
    text order."""

    name: str
    line: int
    tokens: tuple[str, ...]
    clusters: tuple[tuple[tuple[int, int], ...], ...]


def _marks(part: str) -> list[str]:
    return re.findall(r"\(?\d+\*?\)?", part) if _MARKS.fullmatch(part) else [part]


def _two_fields(line: str) -> bool:
    """A line of GICoref's two-column layout (word, coreference), whose word may be ``#``."""
    return len(line.rstrip("\r\n").split("\t")) == 2


def read_documents(lines: Iterable[str], *, source: str) -> list[ConllDocument]:
    """Every document of the lines, in order; a ``ValueError`` naming ``source:line`` for anything malformed."""
    documents = []
    name = None
    begun, tokens = 0, []
    open_mentions: dict[int, list[int]] = {}
    clusters: dict[int, list[tuple[int, int]]] = {}
    for number, line in enumerate(lines, 1):
        where = f"{source}:{number}"
        header = _BEGIN.match(line)
        if header:
            if name is not None:
                raise ValueError(f"{where}: a document begins before document ({name}) ended")
            if header.group(3) is not None:
                name = header.group(3)
            else:
                name = header.group(1) + (f"; part {header.group(2)}" if header.group(2) else "")
            begun, tokens, open_mentions, clusters = number, [], {}, {}
        elif line.startswith("#end document"):
            if name is None:
                raise ValueError(f"{where}: #end document outside a document")
            unclosed = sorted(cluster for cluster, starts in open_mentions.items() if starts)
            if unclosed:
                raise ValueError(f"{where}: document ({name}) ends with clusters {unclosed} still open")
            ordered = tuple(tuple(sorted(spans)) for _, spans in sorted(clusters.items()))
            documents.append(ConllDocument(name, begun, tuple(tokens), ordered))
            name = None
        elif line.strip() and (not line.startswith("#") or name is not None and _two_fields(line)):
            columns = line.split()
            if name is None or len(columns) < 5 and len(columns) != 2:
                raise ValueError(
                    f"{where}: a token line outside a document, or with neither 5 or more columns nor the two of "
                    f"GICoref's layout (word, coreference): {line!r:.80}"
                )
            position = len(tokens)
            tokens.append(columns[3] if len(columns) >= 5 else columns[0])
            for part in [] if columns[-1] == "-" else columns[-1].split("|"):
                for mark in _marks(part):
                    match = _MARK.match(mark)
                    if match is None or not (match.group(1) or match.group(3)):
                        raise ValueError(f"{where}: {part!r} is not a coreference mark such as (1, 1) or (1)")
                    if len(match.group(2)) > _MAX_ID_DIGITS:
                        raise ValueError(f"{where}: cluster id {match.group(2)[:20]}... has too many digits")
                    cluster = int(match.group(2))
                    if match.group(1):
                        open_mentions.setdefault(cluster, []).append(position)
                    if match.group(3):
                        if not open_mentions.get(cluster):
                            raise ValueError(f"{where}: cluster {cluster} closes a mention it never opened")
                        clusters.setdefault(cluster, []).append((open_mentions[cluster].pop(), position))
    if name is not None:
        raise ValueError(f"{source}: document ({name}) at line {begun} has no #end document")
    return documents
