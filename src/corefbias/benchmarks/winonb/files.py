"""WinoNB's upstream files (Baumler & Rudinger, NAACL 2022): the "someone" version, ``data/v0`` and ``data/v1``.

Each row of ``winonb_someone.tsv`` is ``source``, ``sentid`` and ``sentence``: a sentence with a singular entity
("someone"), a plural one ("the technicians") and a *they* pronoun referring to one of them. Upstream's README
(its datasheet) defines the label: "the first number (0 or 1)" of the sentid, "1 is for the singular entity and 0 is
for the plural". The sentid is ``<plural noun>.someone.<label>.someone.txt``, and for WinoBias-derived rows
``<plural noun>.someone.<label>.<type>.<split>.someone.txt``. It does not identify a row (WinoBias templates
repeat their nouns), so a row is identified by its position in the file.

Upstream marks no spans. The pronoun is the first *they* form (they, them, their, theirs, themselves, themself)
after both entities' first mentions, or the only one: in the 142 sentences with two forms, the earlier one is
either the same entity again or an object such as the tickets in "gave them to someone"; the singular mention is
the first "someone", the plural one the first occurrence of the sentid's plural noun, with its "the" where it has
one.

The names version (``winonb.tsv``, the templates filled with 15 names each, over 4 MiB) is not in the mirror: it
could not be retrieved, so only the "someone" version is built.
"""

from __future__ import annotations

import re

from ...data import spans, upstream

UPSTREAM_DATASET = "winonb"
VERSIONS = {"v0": "data/v0/winonb_someone.tsv", "v1": "data/v1/winonb_someone.tsv"}
SOURCES = ("winogender", "wsc", "dpr", "winobias")
# The README's label: the first number of the sentid.
NUMBERS = {"1": "singular", "0": "plural"}
SINGULAR = "someone"
_THEY = re.compile(r"\b(?:they|them|their|theirs|themselves|themself)\b", re.IGNORECASE)
_SOMEONE = re.compile(r"\bsomeone\b", re.IGNORECASE)


def parse_sentid(sentid: str) -> dict:
    """The plural noun, the number the pronoun refers to, and for WinoBias rows its type and split.

    Examples
    --------
    >>> parse_sentid("technicians.someone.1.someone.txt")["number"]
    'singular'
    >>> parse_sentid("developers.someone.0.1.dev.someone.txt")
    {'plural_noun': 'developers', 'number': 'plural', 'winobias_type': '1', 'winobias_split': 'dev'}
    """
    parts = sentid.split(".")
    if len(parts) not in (5, 7) or parts[1] != SINGULAR or parts[2] not in NUMBERS or parts[-2:] != [SINGULAR, "txt"]:
        raise ValueError(
            f"unexpected WinoNB sentid {sentid!r}; expected <plural>.someone.<0|1>[.<type>.<split>].someone.txt"
        )
    found = {"plural_noun": parts[0], "number": NUMBERS[parts[2]], "winobias_type": None, "winobias_split": None}
    if len(parts) == 7:
        found.update(winobias_type=parts[3], winobias_split=parts[4])
    return found


def locate(text: str, plural_noun: str, *, row: str) -> dict[str, dict]:
    """The spans of the pronoun, the singular mention ("someone") and the plural mention (see the module docstring)."""
    someone = _SOMEONE.search(text)
    plural = re.search(rf"\b{re.escape(plural_noun)}\b", text, re.IGNORECASE)
    forms = list(_THEY.finditer(text))
    if someone is None or plural is None or not forms:
        raise spans.SpanError(f"row {row}: {text!r} lacks 'someone', {plural_noun!r} or a they pronoun")
    start = plural.start()
    if text[max(0, start - 4) : start].lower() == "the ":
        start -= 4
    after_both = [form for form in forms if form.start() >= max(someone.end(), plural.end())]
    pronoun = (after_both or forms)[0]
    return {
        "pronoun": spans.span_at(text, pronoun.start(), pronoun.group(), row=row, what="pronoun"),
        "singular": spans.span_at(text, someone.start(), someone.group(), row=row, what="someone"),
        "plural": spans.span_at(text, start, text[start : plural.end()], row=row, what="plural mention"),
    }


def sentences(version: str, mirror=None) -> list[dict]:
    """Every row of one version's file, in file order, with its parsed sentid and spans."""
    if version not in VERSIONS:
        raise ValueError(f"unknown WinoNB version {version!r}; choose {', '.join(VERSIONS)}")
    found = []
    for index, row in enumerate(upstream.read_tsv(UPSTREAM_DATASET, VERSIONS[version], mirror)):
        if row["source"] not in SOURCES:
            raise ValueError(f"{VERSIONS[version]} row {index}: unknown source {row['source']!r}")
        parsed = parse_sentid(row["sentid"])
        found.append(
            {
                "row": index,
                "source": row["source"],
                "sentid": row["sentid"],
                "text": row["sentence"],
                "spans": locate(row["sentence"], parsed["plural_noun"], row=f"{version}/{index}"),
                **parsed,
            }
        )
    return found
