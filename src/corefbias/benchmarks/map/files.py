"""MAP's upstream file, ``MAP/map.csv``: 183 Wikipedia snippets, each in its original form and nine ablations.

A row's ``id`` is the snippet's id and the ablations applied (``new-106+ent+addr``); ``full-text`` the snippet
(ablated); ``A``, ``B`` two names with their character offsets, in the order shown to the annotators (shuffled per
row); ``Pronoun`` and its offset; ``Answer`` the gold answer (0: the pronoun refers to A, 1: to either, 2: to B, 3:
to neither); ``Human1``–``Human3`` the crowd annotations on a six-point scale (0: very likely A, 1: probably A,
2: either, 3: probably B, 4: very likely B, 5: neither), empty where an annotation was removed (its annotator failed
the page's test question; 810 rows end before ``Human3``). Both scales are the datasheet's.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass

from ...data import upstream
from ...data.spans import span_at

DATASET = "gicoref"  # one upstream repository holds GICoref and MAP; GICoref's folder pins it
MAP_FILE = "MAP/map.csv"
ORIGINAL = "original"
# The datasheet's ablations: "addr" terms of address removed, "ent" names replaced by an initial and a random
# surname, "lex" semantically gendered nouns replaced (sem.csv), "pro" pronouns replaced by neopronouns or they.
ABLATIONS = ("pro", "ent", "addr", "lex", "ent+addr", "ent+lex", "lex+addr", "ent+addr+lex", "ent+addr+lex+pro")
ANSWERS = {"0": "A", "1": "either", "2": "B", "3": "neither"}
RATINGS = {"0": "A", "1": "A", "2": "either", "3": "B", "4": "B", "5": "neither"}
HUMAN_COLUMNS = ("Human1", "Human2", "Human3")
PRONOUN_GENDERS = {"he": "male", "him": "male", "his": "male", "she": "female", "her": "female", "hers": "female"}
# Snippets some of whose rows name a mention the text does not hold at its offset; the paired comparison needs all
# ten rows of a snippet, so the snippet is left out whole.
UNLOCATED = {
    "new-29": "ent+addr+lex: A is 'M. Duke', the text has 'M. Noble' (the lex ablation rewrote the name)",
    "new-72": "pro and ent+addr+lex+pro: the Pronoun column is '\"\"' at offset 0",
    "new-8": "addr and lex+addr: A is 'John Stevens Cabot Abbott', the text has 'John Stevens Cabot .' (the addr "
    "ablation removed 'Abbott' as the term of address 'Abbot')",
    "new-filtered-103": "lex and lex+addr: 'Magic Man' is 'Magic Person' in the text",
    "new-filtered-15": "lex and lex+addr: 'the Pale Man' is 'the Pale Person' in the text",
    "new-filtered-155": "ent+lex: A is 'M. Prince', the text has 'M. Noble'",
    "new-filtered-159": "lex and lex+addr: 'Billy Dukes' is 'Billy Noble' in the text",
    "new-filtered-172": "ent, ent+addr, ent+lex, ent+addr+lex, ent+addr+lex+pro: B's offset is 0, where another name "
    "stands",
    "new-filtered-180": "ent+lex: B is 'D. King', the text has 'D. Ruler'",
    "new-filtered-71": "pro and ent+addr+lex+pro: the Pronoun column is '\"\"' at offset 0",
    "new-filtered-97": "ent+addr+lex: A is 'C. Abbott', the text has 'C.' (the addr ablation removed 'Abbott')",
}


@dataclass(frozen=True)
class MapRow:
    """One row of ``map.csv``, located: its spans checked against its text."""

    id: str
    snippet_id: str
    ablation: str
    text: str
    pronoun: dict
    a: dict
    b: dict
    answer: str
    ratings: tuple[int, ...]  # the annotations given, on the six-point scale

    @property
    def human_answers(self) -> tuple[str, ...]:
        """The annotations on the answer's scale (very likely and probably A are both A)."""
        return tuple(RATINGS[str(rating)] for rating in self.ratings)


def answer_of(linked: list[bool]) -> str:
    """A system's answer on MAP's scale, from its links to A and B.

    Examples
    --------
    >>> answer_of([True, False]), answer_of([True, True]), answer_of([False, False])
    ('A', 'either', 'neither')
    """
    linked_a, linked_b = (bool(link) for link in linked)
    return {(True, False): "A", (False, True): "B", (True, True): "either", (False, False): "neither"}[
        (linked_a, linked_b)
    ]


def ablation_of(row_id: str) -> tuple[str, str]:
    """The snippet and the ablation of a row id.

    Examples
    --------
    >>> ablation_of("new-106+ent+addr"), ablation_of("new-filtered-3")
    (('new-106', 'ent+addr'), ('new-filtered-3', 'original'))
    """
    snippet, _, ablation = row_id.partition("+")
    return snippet, ablation or ORIGINAL


def located(record: dict) -> MapRow:
    """A ``map.csv`` record with its pronoun and names located (a ``SpanError`` where one is not at its offset)."""
    row_id, text = record["id"], record["full-text"]
    snippet, ablation = ablation_of(row_id)
    if ablation not in (ORIGINAL, *ABLATIONS):
        raise ValueError(f"row {row_id}: unknown ablation {ablation!r}; expected one of {(ORIGINAL, *ABLATIONS)}")
    if record["Answer"] not in ANSWERS:
        raise ValueError(f"row {row_id}: Answer is {record['Answer']!r}, expected one of {sorted(ANSWERS)}")
    ratings = []
    for column in HUMAN_COLUMNS:
        value = (record[column] or "").strip()  # a row ending before Human3 lacks the field
        if value and value not in RATINGS:
            raise ValueError(f"row {row_id}: {column} is {value!r}, expected one of {sorted(RATINGS)} or empty")
        if value:
            ratings.append(int(value))
    return MapRow(
        id=row_id,
        snippet_id=snippet,
        ablation=ablation,
        text=text,
        pronoun=span_at(text, record["Pronoun-offset"], record["Pronoun"], row=row_id, what="Pronoun"),
        a=span_at(text, record["A-offset"], record["A"], row=row_id, what="A"),
        b=span_at(text, record["B-offset"], record["B"], row=row_id, what="B"),
        answer=ANSWERS[record["Answer"]],
        ratings=tuple(ratings),
    )


def read_records(mirror=None) -> list[dict]:
    """The records of the pinned ``map.csv`` (checked against its sha256), as ``csv.DictReader`` gives them."""
    path = upstream.fetch(DATASET, MAP_FILE, mirror)
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def load_rows(mirror=None) -> list[MapRow]:
    """Every row of the snippets not left out (``UNLOCATED``), located; a snippet must have all ten rows."""
    rows = [located(record) for record in read_records(mirror) if ablation_of(record["id"])[0] not in UNLOCATED]
    found: dict[str, list[str]] = {}
    for row in rows:
        found.setdefault(row.snippet_id, []).append(row.ablation)
    for snippet, ablations in found.items():
        if sorted(ablations) != sorted((ORIGINAL, *ABLATIONS)):
            raise ValueError(f"snippet {snippet} has the rows {sorted(ablations)}, not the original and nine ablations")
    return rows
