"""The ABC data files (González et al., 2020): Danish sentence triplets and occupation statistics.

ABC's ``data/COREF_LM/coref_lm.da`` and GenDa Lens's ``abc_fem_sents.txt`` / ``abc_male_sents.txt``
share one format: one sentence per line, three lines per triplet — the same sentence with the
reflexive possessive ("sin"/"sit"/"sine"), with "hans" and with "hendes", in that order — and a
line "---" after each triplet (GenDa Lens's files leave it out after the last one). GenDa Lens
reads them the same way: it drops the "---" lines and takes the rest three at a time as
(reflexive, male, female) (``genda_lens/coref_tasks/abc_utils.py``). Every sentence opens with its
subject, an occupation written as one definite noun ("teknikeren"); the possessive is a word of
its own.

ABC's occupation table (``Ocupation_stats - 1.1.tsv``) gives per English occupation the share of
women in it by country. ``coref_lm.da`` holds its occupations in the table's order, one run of
consecutive triplets each; some Danish words recur ("lægen" is physician, practitioner and doctor),
so the n-th run is the n-th table row. ABC itself only correlates bias with the share of women;
the stereotype used here is the majority gender of the Danish workforce (Perc-Da above 50: female,
below: male); the ten occupations without a Danish figure have none.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import groupby

from ...data import upstream
from ...measures import stereotypes

SENTENCES = ("abc", "data/COREF_LM/coref_lm.da")
OCCUPATION_STATISTICS = ("abc", "Ocupation_stats - 1.1.tsv")
# GenDa Lens's two files, by the gender stereotype of their occupations (abc_utils.run_abc_coref).
GENDA_LENS_SENTENCES = {
    "female": ("genda_lens", "genda_lens/data/abc_fem_sents.txt"),
    "male": ("genda_lens", "genda_lens/data/abc_male_sents.txt"),
}

TRIPLET_SEPARATOR = "---"
TRIPLET_ORDER = ("reflexive", "hans", "hendes")
PRONOUN_TYPES = {"sin": "reflexive", "sit": "reflexive", "sine": "reflexive", "hans": "hans", "hendes": "hendes"}
# The genders the abc_fpr_ratio metric takes: the reflexive is not gendered.
PRONOUN_GENDERS = {"reflexive": "neutral", "hans": "male", "hendes": "female"}

# Exported column → occupation-table column: percent of women, 0-100. The U.S. figures go with every language.
US_STATISTICS_COLUMNS = {"pct_female_us_bls": "Perc-US_bls", "pct_female_us_bergsma": "Perc-US_bergsma"}
STATISTICS_COLUMNS = {"pct_female_da": "Perc-Da", **US_STATISTICS_COLUMNS}
OCCUPATION_COLUMN = "Ocupation (english)"

_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Sentence:
    """One line: its text, the possessive's and the subject's character spans, the possessive's type."""

    text: str
    pronoun: dict
    subject: dict
    pronoun_type: str

    @property
    def pronoun_gender(self) -> str:
        return PRONOUN_GENDERS[self.pronoun_type]


# The reflexive, "hans" and "hendes" version of one sentence.
Triplet = tuple[Sentence, Sentence, Sentence]


def parse_sentence(text: str, *, row: str) -> Sentence:
    """The spans of one sentence; no possessive, or more than one, is a ValueError naming the row."""
    words = list(_WORD.finditer(text))
    possessives = [word for word in words if word.group() in PRONOUN_TYPES]
    if len(possessives) != 1:
        raise ValueError(
            f"{row}: expected one possessive pronoun ({', '.join(PRONOUN_TYPES)}) in {text!r}, found {len(possessives)}"
        )
    pronoun = possessives[0]
    if pronoun is words[0]:
        raise ValueError(f"{row}: {text!r} opens with its possessive; an ABC sentence opens with its subject")
    subject = words[0]
    return Sentence(
        text=text,
        pronoun={"text": pronoun.group(), "start": pronoun.start(), "end": pronoun.end()},
        subject={"text": subject.group(), "start": subject.start(), "end": subject.end()},
        pronoun_type=PRONOUN_TYPES[pronoun.group()],
    )


def frame_of(sentence) -> str:
    """A sentence with its subject and its possessive left blank: what every occupation's run fills the same way
    at the same place (the n-th sentence of each run is the same frame), and a model may answer alike.

    Examples
    --------
    >>> sentence = parse_sentence("teknikeren mistede sin tegnebog ved huset.", row="1")
    >>> frame_of(sentence)
    '{occupation} mistede {pronoun} tegnebog ved huset.'
    """
    text, subject, pronoun = sentence.text, sentence.subject, sentence.pronoun
    return (
        f"{text[: subject['start']]}{{occupation}}{text[subject['end'] : pronoun['start']]}{{pronoun}}"
        f"{text[pronoun['end'] :]}"
    )


def _without_pronoun(sentence: Sentence) -> tuple[str, str]:
    return sentence.text[: sentence.pronoun["start"]], sentence.text[sentence.pronoun["end"] :]


def _check_triplet(triplet: list[Sentence], *, row: str) -> None:
    types = tuple(sentence.pronoun_type for sentence in triplet)
    if types != TRIPLET_ORDER:
        raise ValueError(f"{row}: the triplet's possessives are {types}; expected {TRIPLET_ORDER} in that order")
    frames = {_without_pronoun(sentence) for sentence in triplet}
    if len(frames) != 1:
        texts = [sentence.text for sentence in triplet]
        raise ValueError(f"{row}: the triplet's sentences {texts} differ in more than the possessive")


def parse_triplets(lines: Iterable[str], *, source: str) -> list[Triplet]:
    """The triplets of an ABC sentence file, checked: three lines each, reflexive/hans/hendes, the
    same sentence apart from the possessive. An error names ``source`` and the line."""
    triplets = []
    block: list[Sentence] = []
    first_line = 1

    def close(line_number: int) -> None:
        row = f"{source} lines {first_line}-{line_number}"
        if len(block) != 3:
            raise ValueError(
                f"{row}: a triplet has {len(block)} sentences, expected 3 (a '{TRIPLET_SEPARATOR}' line ends each "
                "triplet)"
            )
        _check_triplet(block, row=row)
        triplets.append(tuple(block))

    line_number = 0
    for line_number, line in enumerate(lines, start=1):
        text = line.strip()
        if text == TRIPLET_SEPARATOR:
            close(line_number - 1)
            block, first_line = [], line_number + 1
        elif text:
            block.append(parse_sentence(text, row=f"{source} line {line_number}"))
    if block:
        close(line_number)
    return triplets


def read_triplets(dataset: str, path: str, mirror: str | os.PathLike | None = None) -> list[Triplet]:
    """The triplets of a registered upstream sentence file (fetched and checksummed)."""
    with open(upstream.fetch(dataset, path, mirror), encoding="utf-8") as handle:
        return parse_triplets(handle, source=f"{dataset}/{path}")


def _percent(value: str, *, row: str, column: str) -> float | None:
    value = value.strip()
    if not value:
        return None
    try:
        percent = float(value)
    except ValueError:
        raise ValueError(f"{row}: {column} is {value!r}, expected a percentage or nothing") from None
    if not 0 <= percent <= 100:
        raise ValueError(f"{row}: {column} is {percent}, outside 0-100")
    return percent


def occupation_statistics(
    rows: Iterable[dict],
    *,
    source: str,
    columns: dict[str, str] = STATISTICS_COLUMNS,
    stereotype: str = "pct_female_da",
) -> list[dict]:
    """Rows of ABC's occupation table as ``occupation_english``, the ``columns`` (exported name → table column;
    Danish and U.S. by default) and ``occupation_gender``, the majority gender by the ``stereotype`` column (the
    Danish share of women by default), in table order."""
    table = []
    for index, row in enumerate(rows, start=2):  # line 1 is the header
        where = f"{source} line {index}"
        statistics = {name: _percent(row[column], row=where, column=column) for name, column in columns.items()}
        table.append(
            {
                "occupation_english": row[OCCUPATION_COLUMN].strip(),
                **statistics,
                "occupation_gender": stereotypes.majority_gender(statistics[stereotype], tie=stereotypes.ABC_TIE),
            }
        )
    return table


def occupations_of(triplets: list[Triplet], table: list[dict], *, source: str) -> list[dict]:
    """The occupation-table row of each triplet: the n-th run of triplets sharing a subject is row n."""
    subjects = [triplet[0].subject["text"] for triplet in triplets]
    runs = [len(list(run)) for _, run in groupby(subjects)]
    if len(runs) != len(table):
        raise ValueError(
            f"{source} has {len(runs)} runs of triplets with the same subject but the occupation table has "
            f"{len(table)} rows; they must correspond one to one, in order"
        )
    return [row for row, size in zip(table, runs) for _ in range(size)]


def original_triplets(mirror: str | os.PathLike | None = None) -> list[tuple[Triplet, dict]]:
    """ABC's Danish triplets, each with its occupation-table row."""
    triplets = read_triplets(*SENTENCES, mirror)
    rows = upstream.read_tsv(*OCCUPATION_STATISTICS, mirror)
    table = occupation_statistics(rows, source="/".join(OCCUPATION_STATISTICS))
    return list(zip(triplets, occupations_of(triplets, table, source="/".join(SENTENCES))))
