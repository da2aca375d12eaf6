"""WinoBias's bracketed sentence files, shared by WinoBias (English) and DaWinoBias (Danish).

A line is ``[The developer] argued with the designer because [he] did not like the design.``
(WinoBias prefixes a line number, DaWinoBias does not): one bracketed mention is the pronoun, the
other its gold antecedent. The two candidates are the sentence's two occupation mentions, found
by the set's own occupation lists, each with its article ("the designer"; Danish occupations are
definite nouns, "designeren", and need none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .spans import SpanError

_NUMBERED = re.compile(r"^\d+ ")
_BRACKET = re.compile(r"\[([^\[\]]+)\]")
_ARTICLE = re.compile(r"(?:\b(?:[Tt]he|[Aa]n?) )$")
_ARTICLE_PREFIX = re.compile(r"^(?:[Tt]he|[Aa]n?) ")

PRONOUN_GENDERS = {
    "en": {"he": "male", "him": "male", "his": "male", "she": "female", "her": "female", "hers": "female"},
    "da": {"han": "male", "ham": "male", "hans": "male", "hun": "female", "hende": "female", "hendes": "female"},
}

# Bracketed reflexives corefer with the pronoun; they are neither the pronoun nor an antecedent.
REFLEXIVES = {"en": {"himself", "herself"}, "da": set()}


def _is_antecedent(span: dict, language: str) -> bool:
    word = span["text"].lower()
    return word not in PRONOUN_GENDERS[language] and word not in REFLEXIVES[language]


@dataclass(frozen=True)
class WinoSentence:
    text: str
    pronoun: dict
    pronoun_gender: str
    candidates: list[dict]  # the two occupation mentions, in text order, with is_referent
    occupations: list[str]  # each candidate's noun, lower case, without its article


def strip_brackets(line: str, *, row: str) -> tuple[str, list[dict]]:
    """The sentence without its line number and brackets, and the bracketed spans in it."""
    line = _NUMBERED.sub("", line.strip())
    pieces, spans, position = [], [], 0
    length = 0
    for match in _BRACKET.finditer(line):
        before = line[position : match.start()]
        pieces.append(before)
        length += len(before)
        inner = match.group(1)
        mention = inner.strip()
        offset = length + inner.index(mention)
        spans.append({"text": mention, "start": offset, "end": offset + len(mention)})
        pieces.append(inner)
        length += len(inner)
        position = match.end()
    pieces.append(line[position:])
    text = "".join(pieces)
    if "[" in text or "]" in text or not spans:
        raise SpanError(f"row {row}: expected bracketed mentions (antecedent and pronoun) in {line!r}, found {len(spans)}")
    return text, spans


def _overlaps(a: dict, b: dict) -> bool:
    return a["start"] < b["end"] and b["start"] < a["end"]


def _bare(mention: str) -> str:
    return _ARTICLE_PREFIX.sub("", mention)


def _split_mentions(spans: list[dict], language: str, *, row: str, text: str) -> tuple[dict, dict]:
    """(pronoun, antecedent): the first bracketed pronoun, and the one bracketed non-pronoun.

    Further bracketed pronouns ("... because [she] needed to cut [her] hair") corefer with the first.
    A few upstream lines leave the pronoun unbracketed ("[Sælgeren] ... og hun lykkedes", "... because
    he was burying [himself] ..."): then it is the first pronoun of the text.
    """
    genders = PRONOUN_GENDERS[language]
    others = [span for span in spans if _is_antecedent(span, language)]
    if len(others) != 1:
        raise SpanError(f"row {row}: expected one bracketed antecedent in {text!r}, found {[s['text'] for s in others]}")
    bracketed = [span for span in spans if span["text"].lower() in genders]
    if bracketed:
        return bracketed[0], others[0]
    words = "|".join(genders)
    match = re.search(rf"(?<!\w)({words})(?!\w)", text, re.IGNORECASE)
    if match is None:
        raise SpanError(f"row {row}: no pronoun in {text!r}")
    return {"text": match.group(0), "start": match.start(), "end": match.end()}, others[0]


def antecedent_nouns(lines: list[str], language: str, *, source: str) -> set[str]:
    """Every bracketed antecedent's noun (lower case, no article) in a set's lines: its occupation vocabulary."""
    nouns = set()
    for number, line in enumerate(lines, 1):
        text, spans = strip_brackets(line, row=f"{source}:{number}")
        nouns.update(_bare(span["text"]).lower() for span in spans if _is_antecedent(span, language))
    return nouns


def _other_occupation(text: str, twin_noun: str, antecedent: dict, pronoun: dict, vocabulary: set[str], *, row: str) -> dict:
    """The occupation mention that is not the antecedent: the twin's antecedent noun where it occurs,
    else the first other noun of the vocabulary (upstream twins that bracket the same occupation,
    or a genitive "frisørens" where the twin has "frisøren")."""
    own = _bare(antecedent["text"]).lower()
    for noun in [twin_noun, *sorted(vocabulary - {own}, key=len, reverse=True)]:
        if noun.lower() == own:
            continue
        for match in re.finditer(rf"(?<!\w){re.escape(noun)}(?!\w)", text, re.IGNORECASE):
            span = {"text": match.group(0), "start": match.start(), "end": match.end()}
            if not _overlaps(span, antecedent) and not _overlaps(span, pronoun):
                article = _ARTICLE.search(text[: span["start"]])
                if article:
                    span = {"text": text[article.start() : span["end"]], "start": article.start(), "end": span["end"]}
                return span
    raise SpanError(f"row {row}: no second occupation besides {antecedent['text']!r} in {text!r}")


def parse_pair(first: str, second: str, language: str, vocabulary: set[str], *, rows: tuple[str, str]) -> list[WinoSentence]:
    """The two lines of a WinoBias twin: one sentence frame, each line's antecedent the other occupation.

    WinoBias writes each frame twice ("[The developer] argued with the designer because [he] ..." /
    "The developer argued with [the designer] because [her] ..."), so the other occupation of a
    line is the antecedent of its twin, found in the line by its noun (any case, any article).
    """
    parsed = []
    for line, row in zip((first, second), rows):
        text, spans = strip_brackets(line, row=row)
        pronoun, antecedent = _split_mentions(spans, language, row=row, text=text)
        parsed.append((text, pronoun, antecedent, row))
    sentences = []
    for index, (text, pronoun, antecedent, row) in enumerate(parsed):
        twin_noun = _bare(parsed[1 - index][2]["text"])
        other = _other_occupation(text, twin_noun, antecedent, pronoun, vocabulary, row=row)
        candidates = sorted(
            [{**antecedent, "is_referent": True}, {**other, "is_referent": False}], key=lambda span: span["start"]
        )
        sentences.append(
            WinoSentence(
                text=text,
                pronoun=pronoun,
                pronoun_gender=PRONOUN_GENDERS[language][pronoun["text"].lower()],
                candidates=candidates,
                occupations=[_bare(candidate["text"]).lower() for candidate in candidates],
            )
        )
    return sentences


def parse_lines(lines: list[str], language: str, vocabulary: set[str], *, source: str) -> list[WinoSentence]:
    """Every sentence of a bracketed file, read twin by twin (lines 1-2, 3-4, ...)."""
    if len(lines) % 2:
        raise SpanError(f"{source}: {len(lines)} lines; WinoBias files hold twins, an even number")
    sentences = []
    for index in range(0, len(lines), 2):
        rows = (f"{source}:{index + 1}", f"{source}:{index + 2}")
        sentences.extend(parse_pair(lines[index], lines[index + 1], language, vocabulary, rows=rows))
    return sentences


def examples(sentences: list[WinoSentence], polarity: str, stereotype_of=None) -> list[dict]:
    """The rows of a pro or anti file, with each candidate's occupation stereotype.

    ``stereotype_of(occupation)`` gives a stereotype from a list (None: not listed). Without it
    the stereotypes come from the design itself: in a pro sentence the pronoun's gender is the
    stereotype of its antecedent's occupation, in an anti sentence the other one, and every frame
    pairs a male- and a female-stereotyped occupation; ``check_stereotypes`` then requires each
    occupation to get one stereotype across the whole set.
    """
    opposite = {"female": "male", "male": "female"}
    rows = []
    for line, sentence in enumerate(sentences, 1):
        referent_gender = sentence.pronoun_gender if polarity == "pro" else opposite[sentence.pronoun_gender]
        referent = [c["is_referent"] for c in sentence.candidates].index(True)
        if stereotype_of is None:
            stereotypes = [
                referent_gender if candidate["is_referent"] else opposite[referent_gender]
                for candidate in sentence.candidates
            ]
        else:
            stereotypes = [stereotype_of(occupation) for occupation in sentence.occupations]
        rows.append(
            {
                "line": line,
                "text": sentence.text,
                "pronoun": sentence.pronoun,
                "candidates": sentence.candidates,
                "polarity": polarity,
                "pronoun_gender": sentence.pronoun_gender,
                "referent_occupation": sentence.occupations[referent],
                "occupations": sentence.occupations,
                "candidate_stereotypes": stereotypes,
            }
        )
    return rows


def check_stereotypes(rows: list[dict], *, source: str) -> dict[str, str]:
    """Occupation → stereotype over ``rows``; an occupation given both genders is an error."""
    found: dict[str, str] = {}
    for row in rows:
        for occupation, stereotype in zip(row["occupations"], row["candidate_stereotypes"]):
            if found.setdefault(occupation, stereotype) != stereotype:
                raise SpanError(f"{source}: {occupation!r} is {found[occupation]}-stereotyped in one sentence and "
                                f"{stereotype}-stereotyped in another ({row['text']!r})")
    return found
