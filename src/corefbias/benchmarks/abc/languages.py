"""ABC's Swedish, Russian and Chinese sentence files (``data/COREF_LM/coref_lm.{sv,ru,zh}``), read as the Danish
one is: triplets of the same sentence with the reflexive possessive, the male and the female anti-reflexive, in
that order, ``---`` after each.

No possessive is typed here. ABC's pronoun list of each language (``experiments/prons/prons.<code>``: the
reflexive forms, the female, the male, one line each, the order ``prons.da`` shows with "sin,sit,sine", "hendes",
"hans") says which words are reflexive; the first of them in a triplet's reflexive version is the possessive
asked about, and the words at the same place in the two other versions are their anti-reflexives, read from the
file. Words are compared folded (:func:`fold`); Chinese, written without spaces, is cut into the listed pronouns
and single characters.

The files are less regular than the Danish one, so each triplet is checked and kept or left out with its
reason (:data:`LEFT_OUT`): a version without its anti-reflexive cannot be scored as one. A kept triplet may
still differ in more than the possessive (``frame_differs``): a second possessive changed with the first,
a spelling slip, Russian past-tense verbs agreeing with the pronoun's gender. Each occupation is one run of
consecutive triplets, in the order of ABC's occupation table; the run's subject is what all its sentences open
with.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from ...data import upstream
from . import files as abc_format

SENTENCES = "data/COREF_LM/coref_lm.{code}"
PRONOUN_LISTS = "experiments/prons/prons.{code}"
# A line of dashes longer than the triplet separator ends an occupation (coref_lm.sv has one after each).
_OCCUPATION_SEPARATOR = re.compile(r"-{4,}")
# The Russian file keeps its nurse sentences under this mark ("####### NOT GENDER NEUTRAL, DO NOT USE #######").
DO_NOT_USE = "DO NOT USE"
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Language:
    """One of ABC's languages beside Danish: its code, name, and column of the occupation table."""

    code: str
    name: str
    statistics_column: str  # the share of women in the language's country, in ABC's occupation table
    spaced: bool = True  # words separated by spaces (Chinese: not)

    @property
    def sentences(self) -> tuple[str, str]:
        return abc_format.SENTENCES[0], SENTENCES.format(code=self.code)

    @property
    def pronoun_lists(self) -> tuple[str, str]:
        return abc_format.SENTENCES[0], PRONOUN_LISTS.format(code=self.code)


LANGUAGES = {
    language.code: language
    for language in (
        Language("sv", "Swedish", "Perc-Sv"),
        Language("ru", "Russian", "Perc-Ru"),
        Language("zh", "Chinese", "Perc-Zh", spaced=False),
    )
}

# Why a triplet of the file is not in the set.
LEFT_OUT = {
    "marked": f"the file marks it '{DO_NOT_USE}'",
    "no_reflexive": "its reflexive version holds no reflexive possessive",
    "male_missing": "its male version holds no anti-reflexive where the reflexive stands",
    "female_missing": "its female version holds no anti-reflexive where the reflexive stands",
}


def fold(word: str) -> str:
    """A word as the pronoun lists and the sentences are compared: stress marks dropped, case folded, ё as е.

    Russian writes stress only in dictionaries and ё mostly as е; ``prons.ru`` lists "своя́" and "Её", the
    sentences write "своя" and "ее".

    Examples
    --------
    >>> fold("Её"), fold("своя́"), fold("hennes")
    ('ее', 'своя', 'hennes')
    """
    without_stress = unicodedata.normalize("NFC", unicodedata.normalize("NFD", word).replace("\u0301", ""))
    return without_stress.casefold().replace("ё", "е")


@dataclass(frozen=True)
class PronounLists:
    """ABC's pronoun list of one language, folded: the reflexive, female and male forms."""

    reflexive: frozenset[str]
    female: frozenset[str]
    male: frozenset[str]

    @property
    def words(self) -> frozenset[str]:
        return self.reflexive | self.female | self.male


def parse_pronoun_lists(text: str, *, source: str) -> PronounLists:
    """A ``prons.<code>`` file: three lines of comma-separated words — reflexive, female, male.

    Examples
    --------
    >>> lists = parse_pronoun_lists("sin,sina,sitt\\nhenne\\nhans\\n", source="prons.sv")
    >>> sorted(lists.reflexive), sorted(lists.female), sorted(lists.male)
    (['sin', 'sina', 'sitt'], ['henne'], ['hans'])
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != 3:
        raise ValueError(f"{source}: expected 3 lines (reflexive, female, male forms), found {len(lines)}")
    reflexive, female, male = (
        frozenset(fold(word.strip()) for word in line.split(",") if word.strip()) for line in lines
    )
    return PronounLists(reflexive=reflexive, female=female, male=male)


@dataclass(frozen=True)
class Token:
    """A word of a sentence (a listed pronoun or one character in Chinese), its folded form and span."""

    folded: str
    start: int
    end: int


def tokens(text: str, language: Language, lists: PronounLists) -> list[Token]:
    """The words of a sentence: space-separated, or, in Chinese, the listed pronouns and single characters.

    Examples
    --------
    >>> lists = PronounLists(frozenset({"自己"}), frozenset({"她"}), frozenset({"他"}))
    >>> [token.folded for token in tokens("醫生丟了自己的錢包。", LANGUAGES["zh"], lists)][3:6]
    ['了', '自己', '的']
    """
    if language.spaced:
        return [Token(fold(word.group()), word.start(), word.end()) for word in _WORD.finditer(text)]
    longest_first = sorted(lists.words, key=len, reverse=True)
    found, position = [], 0
    while position < len(text):
        word = next((word for word in longest_first if fold(text[position : position + len(word)]) == word), None)
        end = position + (len(word) if word else 1)
        found.append(Token(fold(text[position:end]), position, end))
        position = end
    return found


@dataclass(frozen=True)
class Version:
    """One sentence of a kept triplet: its text, the possessive's and the subject's spans, the pronoun's gender."""

    text: str
    pronoun: dict
    subject: dict
    pronoun_gender: str  # neutral (reflexive), male or female

    @property
    def pronoun_type(self) -> str:
        """``reflexive``, or the anti-reflexive as the file writes it (as the Danish set's ``hans``, ``hendes``)."""
        return "reflexive" if self.pronoun_gender == "neutral" else self.pronoun["text"]


@dataclass(frozen=True)
class FileTriplet:
    """One triplet of a sentence file: its position, first line, occupation-table row, and either its three
    versions (kept) or why it is left out (a key of :data:`LEFT_OUT`)."""

    index: int
    line: int
    occupation: dict
    versions: tuple[Version, Version, Version] | None
    left_out: str | None
    frame_differs: bool = False


def read_blocks(lines: Iterable[str], *, source: str) -> tuple[list[tuple[int, list[str]]], set[int]]:
    """The triplets of a sentence file as (first line number, its three sentences), and the positions of the
    triplets after which an occupation separator stands; a triplet of another size is an error naming its lines.

    Examples
    --------
    >>> read_blocks(["a sin b.", "a hans b.", "a hennes b.", "---", "--------------"], source="x.sv")
    ([(1, ['a sin b.', 'a hans b.', 'a hennes b.'])], {0})
    """
    blocks: list[tuple[int, list[str]]] = []
    ends: set[int] = set()
    block: list[str] = []
    first = 1
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if text == abc_format.TRIPLET_SEPARATOR or _OCCUPATION_SEPARATOR.fullmatch(text):
            if block:
                if len(block) != 3:
                    raise ValueError(
                        f"{source} lines {first}-{number - 1}: a triplet has {len(block)} sentences, not 3"
                    )
                blocks.append((first, block))
            if text != abc_format.TRIPLET_SEPARATOR:
                ends.add(len(blocks) - 1)
            block, first = [], number + 1
        elif text:
            block.append(text)
    if block:
        raise ValueError(
            f"{source} line {first}: the file ends inside a triplet, without '{abc_format.TRIPLET_SEPARATOR}'"
        )
    return blocks, ends


def _common_prefix(sentences: list[list[Token]], texts: list[str]) -> int:
    """How many leading words all the sentences share."""
    shortest = min(len(words) for words in sentences)
    for position in range(shortest):
        if len({text[words[position].start : words[position].end] for words, text in zip(sentences, texts)}) > 1:
            return position
    return shortest


def _version(text: str, words: list[Token], slot: int, subject_words: int, gender: str) -> Version:
    pronoun, first, last = words[slot], words[0], words[subject_words - 1]
    return Version(
        text=text,
        pronoun={"text": text[pronoun.start : pronoun.end], "start": pronoun.start, "end": pronoun.end},
        subject={"text": text[first.start : last.end], "start": first.start, "end": last.end},
        pronoun_gender=gender,
    )


def _judge(sentences: list[str], words: list[list[Token]], lists: PronounLists) -> tuple[str | None, int | None]:
    """Why a triplet is left out (None: kept) and the position of its possessive."""
    if any(DO_NOT_USE in sentence for sentence in sentences):
        return "marked", None
    reflexive, male, female = words
    slot = next((position for position, word in enumerate(reflexive) if word.folded in lists.reflexive), None)
    if slot is None:
        return "no_reflexive", None
    for version, reason in ((male, "male_missing"), (female, "female_missing")):
        if slot >= len(version) or version[slot].folded in lists.reflexive:
            return reason, slot
    return None, slot


def triplets_of(
    blocks: list[tuple[int, list[str]]],
    ends: set[int],
    table: list[dict],
    language: Language,
    lists: PronounLists,
    *,
    source: str,
) -> list[FileTriplet]:
    """Every triplet of a file, kept or left out, with its row of the occupation table: the n-th run of
    ``len(blocks) / len(table)`` triplets is row n. The runs are checked: the occupation separators (where the file
    has them) fall between runs, every run's sentences open with the same words, its subject, and neighbouring
    runs' subjects differ."""
    size, rest = divmod(len(blocks), len(table))
    if rest or not size:
        raise ValueError(
            f"{source} has {len(blocks)} triplets, not a whole number of runs for {len(table)} occupations"
        )
    if ends and ends != {size * (run + 1) - 1 for run in range(len(table))}:
        raise ValueError(f"{source}: its occupation separators do not fall after every {size} triplets")
    found, previous = [], None
    for run, occupation in enumerate(table):
        run_blocks = blocks[run * size : (run + 1) * size]
        texts = [sentence for _, sentences in run_blocks for sentence in sentences]
        words = [tokens(sentence, language, lists) for sentence in texts]
        subject_words = _common_prefix(words, texts)
        subject = texts[0][: words[0][subject_words - 1].end] if subject_words else ""
        if not subject or subject == previous:
            raise ValueError(
                f"{source} lines {run_blocks[0][0]}-{run_blocks[-1][0] + 2}: the run of occupation "
                f"{occupation['occupation_english']!r} does not open with a subject of its own ({subject!r})"
            )
        previous = subject
        for offset, (line, sentences) in enumerate(run_blocks):
            triplet_words = words[3 * offset : 3 * offset + 3]
            reason, slot = _judge(sentences, triplet_words, lists)
            index = run * size + offset
            if reason is not None:
                found.append(FileTriplet(index, line, occupation, None, reason))
                continue
            if slot < subject_words:
                raise ValueError(f"{source} line {line}: the possessive stands inside the subject {subject!r}")
            versions = tuple(
                _version(sentence, sentence_words, slot, subject_words, gender)
                for sentence, sentence_words, gender in zip(sentences, triplet_words, ("neutral", "male", "female"))
            )
            frames = {
                version.text[: version.pronoun["start"]] + version.text[version.pronoun["end"] :]
                for version in versions
            }
            found.append(FileTriplet(index, line, occupation, versions, None, frame_differs=len(frames) > 1))
    return found


def occupation_table(language: Language, mirror: str | os.PathLike | None = None) -> list[dict]:
    """ABC's occupation table with the language's share of women and its majority gender."""
    columns = {f"pct_female_{language.code}": language.statistics_column, **abc_format.US_STATISTICS_COLUMNS}
    rows = upstream.read_tsv(*abc_format.OCCUPATION_STATISTICS, mirror)
    return abc_format.occupation_statistics(
        rows,
        source="/".join(abc_format.OCCUPATION_STATISTICS),
        columns=columns,
        stereotype=f"pct_female_{language.code}",
    )


def read_pronoun_lists(language: Language, mirror: str | os.PathLike | None = None) -> PronounLists:
    """ABC's pronoun list of the language (fetched and checksummed)."""
    path = upstream.fetch(*language.pronoun_lists, mirror)
    return parse_pronoun_lists(path.read_text(encoding="utf-8"), source="/".join(language.pronoun_lists))


def read_language(code: str, mirror: str | os.PathLike | None = None) -> list[FileTriplet]:
    """Every triplet of ABC's sentence file of language ``code`` (``sv``, ``ru``, ``zh``), kept or left out."""
    language = LANGUAGES[code]
    source = "/".join(language.sentences)
    with open(upstream.fetch(*language.sentences, mirror), encoding="utf-8") as handle:
        blocks, ends = read_blocks(handle, source=source)
    lists = read_pronoun_lists(language, mirror)
    return triplets_of(blocks, ends, occupation_table(language, mirror), language, lists, source=source)
