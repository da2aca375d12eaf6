"""GICoref's upstream file, ``GICoref/coref.combo.conll``: documents in a two-column CoNLL layout.

Each document opens with ``#begin document NAME`` and closes with ``#end document NAME``; a blank line ends a
sentence; a token line is the word, a tab and the coreference column (``-``, or marks such as ``(2``, ``2)``,
``(2)``, written together as in ``(2(3(2)``). A mark may carry an asterisk (``(1*)``, ``(1*``, ``1*)``), which the
datasheet does not explain: all 28 marked mentions are deadnames or words that misgender their referent (``Jorge``
for Amaranta Gómez Regalado, ``Christine`` and ``young lady`` for Frisk, ``his [sic]``), so it is read as that
(``Mention.misgendering``). Only person entities are annotated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ...data import upstream

DATASET = "gicoref"
CONLL_FILE = "GICoref/coref.combo.conll"

_BEGIN = re.compile(r"^#begin document (\S+)$")
_END = re.compile(r"^#end document (\S+)$")
_MARK = re.compile(r"\((\d+)(\*?)\)|\((\d+)(\*?)|(\d+)(\*?)\)")
# Where a document's name says where it comes from (the datasheet's three kinds of source); the rest are English
# Wikipedia articles.
PERIODICALS = ("Advocate", "DailyXtra", "DigitalTrans", "GLReview", "LambdaLiterary", "Lavender",
               "PakistanGenderNews", "Terremoto")  # fmt: skip
SOURCES = ("wikipedia", "periodical", "ao3")
# A second annotation of the same text (the datasheet: "we left open the possibility that an entity reference
# might truly be ambiguous"): ``NAME_v2`` has NAME's tokens with other clusters.
SECOND_ANNOTATION = "_v2"


@dataclass(frozen=True)
class Mention:
    """Tokens ``first`` to ``last`` (inclusive) of a document, in the cluster ``entity``."""

    first: int
    last: int
    entity: int
    misgendering: bool = False


@dataclass(frozen=True)
class Document:
    """One annotated document: its tokens, the sentence of each token, its mentions in text order."""

    name: str
    tokens: tuple[str, ...]
    sentences: tuple[int, ...]
    mentions: tuple[Mention, ...]

    @property
    def text_id(self) -> str:
        """The text the document annotates: its name without the ``_v2`` of a second annotation."""
        return self.name.removesuffix(SECOND_ANNOTATION)

    @property
    def source(self) -> str:
        """``ao3`` (fan fiction), ``periodical`` (an LGBTQ+ periodical) or ``wikipedia``.

        Examples
        --------
        >>> [Document(name, (), (), ()).source for name in ("ao3_7401061", "Advocate__Saved", "Rae_Spoon")]
        ['ao3', 'periodical', 'wikipedia']
        """
        if self.name.startswith("ao3_"):
            return "ao3"
        if "__" in self.name and self.name.split("__", 1)[0] in PERIODICALS:
            return "periodical"
        return "wikipedia"

    def clusters(self) -> list[list[Mention]]:
        """The mentions grouped by entity, entities in order of their first mention."""
        found: dict[int, list[Mention]] = {}
        for mention in self.mentions:
            found.setdefault(mention.entity, []).append(mention)
        return list(found.values())


def read_documents(lines: Iterable[str], *, source: str) -> list[Document]:
    """Every document of GICoref's CoNLL lines; a ``ValueError`` naming ``source:line`` for anything malformed.

    Examples
    --------
    The datasheet's example, *hir* a mention of entity 2 inside two others:

    >>> lines = ["#begin document Toy", "Ze\\t(1)", "met\\t-", "hir\\t(2(3(2)", "husband\\t3)", "'s\\t-",
    ...          "spouse\\t2)", "", "Ze\\t(1*)", "#end document Toy"]
    >>> (document,) = read_documents(lines, source="toy")
    >>> document.sentences, [(m.first, m.last, m.entity) for m in document.mentions]
    ((0, 0, 0, 0, 0, 0, 1), [(0, 0, 1), (2, 5, 2), (2, 3, 3), (2, 2, 2), (6, 6, 1)])
    >>> document.mentions[-1].misgendering
    True
    """
    documents: list[Document] = []
    name = None
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\n").rstrip("\r")
        where = f"{source}:{number}"
        begin, end = _BEGIN.match(line), _END.match(line)
        if begin:
            if name is not None:
                raise ValueError(f"{where}: document {begin.group(1)} begins before document {name} ended")
            name, tokens, sentences, mentions, sentence = begin.group(1), [], [], [], 0
            open_mentions: dict[int, list[tuple[int, bool]]] = {}
        elif end:
            if name is None or end.group(1) != name:
                raise ValueError(f"{where}: #end document {end.group(1)} does not close the open document {name}")
            unclosed = sorted(entity for entity, starts in open_mentions.items() if starts)
            if unclosed:
                raise ValueError(f"{where}: document {name} ends with mentions of {unclosed} still open")
            documents.append(Document(name, tuple(tokens), tuple(sentences), tuple(sorted(mentions, key=_order))))
            name = None
        elif name is None:
            if line.strip():
                raise ValueError(f"{where}: a line outside a document: {line!r:.80}")
        elif not line.strip():
            if sentences and sentences[-1] == sentence:
                sentence += 1
        else:
            columns = line.split("\t")
            if len(columns) != 2 or not columns[0]:
                raise ValueError(f"{where}: expected a word, a tab and a coreference column, got {line!r:.80}")
            word, marks = columns
            position = len(tokens)
            tokens.append(word)
            sentences.append(sentence)
            if marks == "-":
                continue
            if _MARK.sub("", marks):
                raise ValueError(f"{where}: {marks!r} is not a sequence of marks such as (2, 2), (2) or (2*)")
            found = list(_MARK.finditer(marks))
            # The reference scorer's order on a token: one-token mentions, then openings, then closings.
            for mark in (m for m in found if m.group(1)):
                mentions.append(Mention(position, position, int(mark.group(1)), bool(mark.group(2))))
            for mark in (m for m in found if m.group(3)):
                open_mentions.setdefault(int(mark.group(3)), []).append((position, bool(mark.group(4))))
            for mark in (m for m in found if m.group(5)):
                closing = int(mark.group(5))
                if not open_mentions.get(closing):
                    raise ValueError(f"{where}: entity {closing} closes a mention it never opened")
                first, marked = open_mentions[closing].pop()
                mentions.append(Mention(first, position, closing, marked or bool(mark.group(6))))
    if name is not None:
        raise ValueError(f"{source}: document {name} has no #end document")
    return documents


def _order(mention: Mention) -> tuple[int, int, int]:
    return mention.first, -mention.last, mention.entity


def load_documents(mirror=None) -> list[Document]:
    """The documents of the pinned ``coref.combo.conll``, read through the mirror (checked against its sha256)."""
    path = upstream.fetch(DATASET, CONLL_FILE, mirror)
    with open(path, encoding="utf-8") as handle:
        return read_documents(handle, source=CONLL_FILE)
