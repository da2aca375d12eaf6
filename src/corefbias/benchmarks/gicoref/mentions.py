"""What GICoref's annotation lets us tell about a mention, and the pronoun questions made from its clusters.

Upstream marks mentions and entities only (plus the asterisk of ``files``): no mention type, no named-entity
label. A mention's type is therefore read off its words: a one-word mention that is a pronoun of the tables below
is of that pronoun's type; any other mention is ``name_or_nominal`` (names and common-noun phrases cannot be told
apart from the annotation); a mention upstream marks with an asterisk is ``misgendering`` whatever its words. The
type is a function of the span, so a predicted mention gets the type the same span has in the key.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .files import Document, Mention

BINARY_PRONOUNS = frozenset("he him his himself she her hers herself".split())
THEY = frozenset("they them their theirs themself themselves".split())
# Every neopronoun form in the file, and the other forms of their sets (ze/hir, ze/zir, xe/xem, xey/xem, ey/em,
# ne/nem, ae/aer, fae/faer, hy/hym); ambiguous words ('e', 'per', 'co') are left out, as the file's 'co' (50
# times) and 'per' are never pronouns.
NEOPRONOUNS = frozenset(
    """ze zie zir zirs zirself hir hirs hirself xe xem xyr xyrs xemself xir xirs xirself xeir xeirs xey
    ey em eir eirs emself ne nem nir nirs nemself ae aer aers aerself fae faer faers faerself hy hym hyr""".split()
)
OTHER_PRONOUNS = frozenset(
    "i me my mine myself you your yours yourself yourselves we us our ours ourselves it its itself".split()
)
# The types of the third-person pronouns a question is asked about, the reference first.
PRONOUN_TYPES = ("binary_pronoun", "they", "neopronoun")
MENTION_TYPES = (*PRONOUN_TYPES, "other_pronoun", "name_or_nominal", "misgendering")
_BY_WORD = {
    **dict.fromkeys(BINARY_PRONOUNS, "binary_pronoun"),
    **dict.fromkeys(THEY, "they"),
    **dict.fromkeys(NEOPRONOUNS, "neopronoun"),
    **dict.fromkeys(OTHER_PRONOUNS, "other_pronoun"),
}
# A question's candidates: every entity's nearest name or nominal mention in the pronoun's sentence and the
# WINDOW_SENTENCES sentences before it.
WINDOW_SENTENCES = 3


def word_type(words: str) -> str:
    """The type of a mention's words: its pronoun type, or ``name_or_nominal``.

    Examples
    --------
    >>> [word_type(words) for words in ("Ze", "their", "I", "Leslie Feinberg", "hir husband")]
    ['neopronoun', 'they', 'other_pronoun', 'name_or_nominal', 'name_or_nominal']
    """
    return _BY_WORD.get(words.lower(), "name_or_nominal")


def text_and_offsets(document: Document) -> tuple[str, list[tuple[int, int]]]:
    """The document as one text, tokens joined by single spaces, and each token's character span.

    Examples
    --------
    >>> from corefbias.benchmarks.gicoref.files import Document
    >>> text_and_offsets(Document("d", ("Ze", "left", "."), (0, 0, 0), ()))
    ('Ze left .', [(0, 2), (3, 7), (8, 9)])
    """
    offsets, cursor = [], 0
    for token in document.tokens:
        offsets.append((cursor, cursor + len(token)))
        cursor += len(token) + 1
    return " ".join(document.tokens), offsets


def mention_span(mention: Mention, offsets: Sequence[tuple[int, int]]) -> tuple[int, int]:
    return offsets[mention.first][0], offsets[mention.last][1]


def mention_type(mention: Mention, document: Document) -> str:
    """A gold mention's type: ``misgendering`` where upstream marks it, else its words' type."""
    if mention.misgendering:
        return "misgendering"
    return word_type(" ".join(document.tokens[mention.first : mention.last + 1]))


def type_of_span(text: str, span: tuple[int, int], gold_types: dict[tuple[int, int], str]) -> str:
    """The type of any mention of the document's text, gold or predicted.

    Examples
    --------
    >>> type_of_span("Jorge met hir .", (0, 5), {(0, 5): "misgendering"}), type_of_span("Jorge met hir .", (10, 13), {})
    ('misgendering', 'neopronoun')
    """
    found = gold_types.get(tuple(span))
    return found if found is not None else word_type(text[span[0] : span[1]])


def nesting(document: Document) -> set[Mention]:
    """The mentions that hold another mention or lie inside one ("hir husband" holds "hir"). A cluster's links to
    a candidate are read by containment (``corefbias.harness.cluster_links``), so such a mention would take the
    other's links: it is never a candidate.

    Examples
    --------
    >>> from corefbias.benchmarks.gicoref.files import Mention
    >>> inner, outer, alone = Mention(2, 2, 2), Mention(2, 3, 3), Mention(5, 6, 1)
    >>> sorted(m.first * 10 + m.last for m in nesting(Document("d", (), (), (inner, outer, alone))))
    [22, 23]
    """
    found = set()
    for mention in document.mentions:
        for other in document.mentions:
            if other is not mention and (other.first, other.last) != (mention.first, mention.last):
                if other.first <= mention.first and mention.last <= other.last:
                    found.update((mention, other))
    return found


@dataclass(frozen=True)
class Question:
    """One third-person pronoun of a document and the people it may refer to."""

    pronoun: Mention
    pronoun_type: str
    candidates: tuple[Mention, ...]  # in text order; exactly one of the pronoun's entity
    window_start: int  # the first token of the sentences the candidates are drawn from


def questions(document: Document) -> list[Question]:
    """Every third-person pronoun that can be asked about: a gold mention of a pronoun type (``PRONOUN_TYPES``; not
    one marked as misgendering) whose entity has a name or nominal mention before it in its window (the pronoun's
    sentence and the ``WINDOW_SENTENCES`` before); the candidates are each entity's nearest such mention, none of
    them nesting with another mention (``nesting``).

    Examples
    --------
    >>> from corefbias.benchmarks.gicoref.files import read_documents
    >>> lines = ["#begin document Toy", "Ana\\t(1)", "met\\t-", "Bo\\t(2)", ".\\t-", "", "Ze\\t(1)", "left\\t-",
    ...          "#end document Toy"]
    >>> (asked,) = questions(read_documents(lines, source="toy")[0])
    >>> asked.pronoun_type, [(c.first, c.entity) for c in asked.candidates]
    ('neopronoun', [(0, 1), (2, 2)])
    """
    nested = nesting(document)
    found = []
    for pronoun in document.mentions:
        kind = mention_type(pronoun, document)
        if pronoun.first != pronoun.last or kind not in PRONOUN_TYPES:
            continue
        sentence = document.sentences[pronoun.first]
        nearest: dict[int, Mention] = {}
        for mention in document.mentions:
            if mention.last >= pronoun.first or document.sentences[mention.first] < sentence - WINDOW_SENTENCES:
                continue
            if mention_type(mention, document) not in ("name_or_nominal", "misgendering") or mention in nested:
                continue
            known = nearest.get(mention.entity)
            if known is None or (mention.first, -mention.last) > (known.first, -known.last):
                nearest[mention.entity] = mention
        if pronoun.entity not in nearest:
            continue
        window = sentence - WINDOW_SENTENCES
        start = next(index for index, value in enumerate(document.sentences) if value >= window)
        candidates = tuple(sorted(nearest.values(), key=lambda m: (m.first, m.last)))
        found.append(Question(pronoun, kind, candidates, start))
    return found
