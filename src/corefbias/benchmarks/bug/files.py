"""BUG's upstream files (Levy et al., 2021): the sentence tables in their zips, the labour statistics, and where
each sentence's profession and pronoun are in its text.

Every table is one CSV in a zip, a row per sentence with ``sentence_text``, ``profession``, ``g`` (the pronoun),
their word offsets ``profession_first_index`` and ``g_first_index``, ``predicted gender``, ``stereotype`` (1, -1,
0), ``distance`` (words between the two), ``num_of_pronouns``, ``corpus`` and ``data_index`` (the SPIKE query
that found it). Words are the text split at single spaces, as BUG's CoNLL converter splits it.
"""

from __future__ import annotations

import csv
import io
import zipfile
from dataclasses import dataclass

from ...data import upstream

UPSTREAM_DATASET = "bug"
TABLES = {"gold": "gold_BUG.zip", "balanced": "balanced_BUG.zip", "full": "full_BUG.zip"}
LABOUR_STATISTICS = "src/evaluations/inc_occ_gender.csv"
# Analyze.py's pronoun lists (it also lists each capitalized): a male pronoun makes the "predicted gender" male.
MALE_PRONOUNS = ("he", "his", "himself", "him")
FEMALE_PRONOUNS = ("she", "herself", "her")
# The upstream ``stereotype`` column: 1 the pronoun's gender is the profession's majority gender, -1 the other, 0 the
# profession has no majority (as many women as men, or none of the labour statistics' rows lists it).
STEREOTYPE_LABELS = {1: "stereotypical", -1: "anti-stereotypical", 0: "neutral"}
# Some upstream offsets are a word or three off the words they name (a whitespace token the text lost, a word
# the sentence lacks at its start); the nearest occurrence within this many words is taken instead.
MAX_WORD_SHIFT = 3


@dataclass(frozen=True)
class Word:
    """A word of a sentence and where it starts (a character offset)."""

    text: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def words(text: str) -> list[Word]:
    """The words BUG's offsets count: the text split at single spaces, empty words included.

    Examples
    --------
    >>> [(word.text, word.start) for word in words("A nurse  said")]
    [('A', 0), ('nurse', 2), ('', 8), ('said', 9)]
    """
    found, start = [], 0
    for piece in text.split(" "):
        found.append(Word(piece, start))
        start += len(piece) + 1
    return found


def nearest(sentence: list[Word], target: str, index: int) -> list[int]:
    """Positions of the word ``target`` (compared in lower case) within ``MAX_WORD_SHIFT`` of ``index``,
    nearest first (the earlier of two as near)."""
    window = range(max(0, index - MAX_WORD_SHIFT), min(len(sentence), index + MAX_WORD_SHIFT + 1))
    return sorted((j for j in window if sentence[j].text.lower() == target), key=lambda j: (abs(j - index), j))


def locate(row: dict) -> tuple[Word, Word, str] | None:
    """The profession's and the pronoun's words in ``row["sentence_text"]``, and how they were found.

    ``"index"`` where both stand at their upstream offsets; ``"nearest"`` where one does not and the nearest
    occurrences are taken, shifted alike where a common shift finds both; None where a word is not within
    ``MAX_WORD_SHIFT`` of its offset (a truncated or empty text).

    Examples
    --------
    >>> row = {"sentence_text": "Farrell , army agent , had his place", "profession": "agent", "g": "his",
    ...        "profession_first_index": 4, "g_first_index": 7}
    >>> profession, pronoun, how = locate(row)
    >>> profession.start, pronoun.start, how
    (15, 27, 'nearest')
    """
    sentence = words(row["sentence_text"])
    professions = nearest(sentence, row["profession"].lower(), row["profession_first_index"])
    pronouns = nearest(sentence, row["g"].lower(), row["g_first_index"])
    if not professions or not pronouns:
        return None
    shift = {j - row["profession_first_index"] for j in professions} & {j - row["g_first_index"] for j in pronouns}
    if shift:
        common = min(shift, key=lambda s: (abs(s), s))
        profession, pronoun = row["profession_first_index"] + common, row["g_first_index"] + common
    else:
        profession, pronoun = professions[0], pronouns[0]
    if profession == pronoun:
        return None
    at_index = (profession, pronoun) == (row["profession_first_index"], row["g_first_index"])
    return sentence[profession], sentence[pronoun], "index" if at_index else "nearest"


def pronoun_gender(pronoun: str) -> str:
    """Analyze.py's ``predict_gender``: ``male`` for a male pronoun, else ``female``."""
    return "male" if pronoun.lower() in MALE_PRONOUNS else "female"


def read_table(config: str, mirror=None) -> list[dict]:
    """The rows of a config's table, with ``upstream_row`` (its position among the rows) and the integer columns
    as integers; the zip must hold exactly one CSV file."""
    path = upstream.fetch(UPSTREAM_DATASET, TABLES[config], mirror)
    with zipfile.ZipFile(path) as archive:
        tables = [name for name in archive.namelist() if name.endswith(".csv")]
        if len(tables) != 1:
            raise ValueError(f"{TABLES[config]} holds {len(tables)} CSV files ({tables}); expected exactly one")
        text = archive.read(tables[0]).decode("utf-8")
    rows = []
    integers = ("profession_first_index", "g_first_index", "stereotype", "distance", "num_of_pronouns", "data_index")
    for position, row in enumerate(csv.DictReader(io.StringIO(text, newline=""))):
        where = f"{TABLES[config]} row {position}"
        try:
            rows.append({**row, **{name: int(row[name]) for name in integers}, "upstream_row": position})
        except (KeyError, ValueError) as error:
            raise ValueError(f"{where}: the integer columns {integers} cannot be read ({error})") from None
    return rows


def profession_statistics(mirror=None) -> dict[str, dict]:
    """Profession → ``pct_female`` (women among the workers of the labour statistics' rows that list it, in
    percent; None where they count none, as for ``sociologist``) and ``majority`` (``female``/``male``/``neutral``,
    Analyze.py's ``create_lists``: more women than men, more men, or as many).

    Analyze.py reads a row's ``entities`` as comma-separated professions, stripped and lowercased, and compares
    its ``F_workers`` with its ``M_workers``; a profession two rows list (``agricultural``, ``counselor``) has the
    same majority in both, and its share here pools their workers.
    """
    path = upstream.fetch(UPSTREAM_DATASET, LABOUR_STATISTICS, mirror)
    counts: dict[str, list[int]] = {}
    majorities: dict[str, set[str]] = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if not row["entities"].strip():
                continue
            women, men = int(row["F_workers"]), int(row["M_workers"])
            majority = "female" if women > men else "male" if men > women else "neutral"
            for entity in (entity.strip().lower() for entity in row["entities"].split(",")):
                counts.setdefault(entity, [0, 0])
                counts[entity][0] += women
                counts[entity][1] += men
                majorities.setdefault(entity, set()).add(majority)
    split = sorted(entity for entity, found in majorities.items() if len(found) > 1)
    if split:
        raise ValueError(f"{LABOUR_STATISTICS}: {split[0]!r} is listed in rows with different majorities")
    return {
        entity: {
            "pct_female": 100 * women / (women + men) if women + men else None,
            "majority": majorities[entity].pop(),
        }
        for entity, (women, men) in counts.items()
    }


def stereotype(majority: str, gender: str) -> int:
    """Analyze.py's ``is_stereotype``: 1 where the pronoun's gender is the profession's majority, -1 where it is the
    other gender's, 0 for a profession with no majority."""
    if majority == "neutral":
        return 0
    return 1 if majority == gender else -1
