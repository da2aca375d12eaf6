"""WinoPron's upstream files (Gautam et al., 2024) and the sentences its scripts instantiate from them.

Upstream ships its templates in an encrypted ``data.zip`` (AGPL-3.0) whose password its README gives; it is read
here with Python's ``zipfile`` and that password, never unpacked to disk or vendored. The zip holds:

* ``new_templates.tsv``: 360 WinoPron templates, 6 per occupation–participant pair (nominative, accusative and
  possessive case × the answer occupation or participant), each with a double-entity ``template`` and a
  ``single_version`` naming only the entity the pronoun refers to;
* ``old_templates.tsv``: Winogender's 120 templates, for comparison.

Upstream's ``scripts/verification.py`` fills every double- and single-entity template with each of the four
pronoun sets of ``scripts/pronouns.py`` in its case (``double.tsv``, ``single.tsv``: 1,440 rows each), and
``scripts/prep_old_templates.py`` fills the old ones (``double_old.tsv``: 480 rows), writing "they were" for
"they was". :func:`instances` does the same string replacements, in the same order, and records where each
mention and the pronoun land, so every instance is traceable to its template row and equals upstream's sentence.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile

from ...data import spans, upstream

UPSTREAM_DATASET = "winopron"
ARCHIVE = "data.zip"
README = "README.md"
NEW_TEMPLATES = "new_templates.tsv"
OLD_TEMPLATES = "old_templates.tsv"
_PASSWORD = re.compile(r"with the password `([^`]+)`")

# scripts/pronouns.py: each case's placeholder and its four pronoun sets, in upstream's order.
PRONOUNS = {
    "$NOM_PRONOUN": ("he", "she", "they", "xe"),
    "$ACC_PRONOUN": ("him", "her", "them", "xem"),
    "$POSS_PRONOUN": ("his", "her", "their", "xyr"),
}
PRONOUN_SETS = PRONOUNS["$NOM_PRONOUN"]  # a set is named by its nominative form
CASES = {"$NOM_PRONOUN": "nom", "$ACC_PRONOUN": "acc", "$POSS_PRONOUN": "poss"}
# The binary sets' gender, for the stereotype baseline; they and xe have none.
PRONOUN_GENDERS = {"he": "male", "she": "female", "they": "neutral", "xe": "neutral"}
ANSWER_CODES = {"0": "occupation", "1": "participant"}
# The template types: the configs of the export.
DOUBLE, SINGLE, OLD = "double", "single", "old"
# prep_old_templates.py writes singular "they" with a plural verb where the old template has "$NOM_PRONOUN was".
_OLD_AGREEMENT = ("they was", "they were")
_SLOT = re.compile(
    r"(?:\b(?P<det>[Tt]he|[Aa]) )?\$(?P<slot>OCCUPATION|PARTICIPANT|NOM_PRONOUN|ACC_PRONOUN|POSS_PRONOUN)"
)


def password(mirror=None) -> bytes:
    """The zip's password, as the pinned README gives it."""
    text = upstream.fetch(UPSTREAM_DATASET, README, mirror).read_text(encoding="utf-8")
    found = _PASSWORD.search(text)
    if found is None:
        raise ValueError(f"{UPSTREAM_DATASET}/{README} names no password for {ARCHIVE} ('with the password `...`')")
    return found.group(1).encode("utf-8")


def template_rows(name: str, mirror=None) -> list[dict]:
    """The rows of ``new_templates.tsv`` or ``old_templates.tsv``, read from the encrypted zip in memory."""
    with zipfile.ZipFile(upstream.fetch(UPSTREAM_DATASET, ARCHIVE, mirror)) as archive:
        raw = archive.read(name, pwd=password(mirror))
    return list(csv.DictReader(io.StringIO(raw.decode("utf-8"), newline=""), delimiter="\t"))


def _placeholder_of(template: str) -> str:
    """prep_old_templates.py's pronoun type: the first of the cases whose placeholder the template holds."""
    found = [case for case in PRONOUNS if case in template]
    if len(found) != 1:
        raise ValueError(f"template {template!r} holds {len(found)} pronoun placeholders; upstream fills one")
    return found[0]


def instantiate(template: str, occupation: str, participant: str, pronoun: str, *, old: bool) -> tuple[str, dict]:
    """A template filled as upstream fills it, and the spans of its mentions and pronoun.

    The mentions include their determiner ("The technician", "the customer"); an old template's "they was"
    becomes "they were" as in ``prep_old_templates.py``.
    """
    pieces: list[str] = []
    found: dict[str, dict] = {}
    length = position = 0
    for match in _SLOT.finditer(template):
        before = template[position : match.start()]
        pieces.append(before)
        length += len(before)
        slot = match.group("slot")
        if slot in ("OCCUPATION", "PARTICIPANT"):
            noun = occupation if slot == "OCCUPATION" else participant
            word, key = (f"{match.group('det')} {noun}" if match.group("det") else noun), slot.lower()
        else:
            if match.group("det"):
                raise ValueError(f"template {template!r}: a determiner before ${slot}")
            word, key = pronoun, "pronoun"
        if key in found:
            raise ValueError(f"template {template!r} has ${slot} twice")
        found[key] = {"text": word, "start": length, "end": length + len(word)}
        pieces.append(word)
        length += len(word)
        position = match.end()
    rest = template[position:]
    text = "".join(pieces) + rest
    if old and pronoun == "they":
        end = found["pronoun"]["end"]
        if text[found["pronoun"]["start"] : end + 4] == _OLD_AGREEMENT[0]:
            text = text[:end] + text[end:].replace(" was", " were", 1)
            shift = len(" were") - len(" was")
            for span in found.values():
                if span["start"] > end:
                    span["start"], span["end"] = span["start"] + shift, span["end"] + shift
    return text, found


def upstream_sentence(template: str, occupation: str, participant: str, placeholder: str, pronoun: str, *, old: bool):
    """The sentence as upstream's scripts write it: the same ``str.replace`` calls in the same order."""
    sentence = template.replace("$OCCUPATION", occupation).replace("$PARTICIPANT", participant)
    sentence = sentence.replace(placeholder, pronoun)
    return sentence.replace(*_OLD_AGREEMENT) if old else sentence


def instances(config: str, mirror=None) -> list[dict]:
    """Every instance of one template type (``double``, ``single``, ``old``), in upstream's row order.

    Keys: ``text``, ``spans`` (``occupation``/``participant``, whichever the sentence holds, and ``pronoun``),
    ``occupation``, ``participant``, ``answer`` (``occupation``/``participant``), ``case``, ``pronoun_type``
    (upstream's placeholder), ``pronoun`` (the form in the sentence), ``pronoun_set``, ``template_row`` (the
    0-based data row of the upstream template file).
    """
    if config not in (DOUBLE, SINGLE, OLD):
        raise ValueError(f"unknown WinoPron template type {config!r}; choose {DOUBLE}, {SINGLE} or {OLD}")
    old = config == OLD
    rows = template_rows(OLD_TEMPLATES if old else NEW_TEMPLATES, mirror)
    column = {DOUBLE: "template", SINGLE: "single_version", OLD: "sentence"}[config]
    found = []
    for index, row in enumerate(rows):
        occupation, participant = row["occupation(0)"], row["other-participant(1)"]
        template = row[column].strip()
        placeholder = _placeholder_of(template) if old else row["pronoun_type"]
        if placeholder not in template:
            raise ValueError(f"{NEW_TEMPLATES} row {index}: its {column} lacks its {placeholder}")
        for pronoun_set, pronoun in zip(PRONOUN_SETS, PRONOUNS[placeholder]):
            text, located = instantiate(template, occupation, participant, pronoun, old=old)
            expected = upstream_sentence(template, occupation, participant, placeholder, pronoun, old=old)
            if text != expected:
                raise spans.SpanError(f"row {index}: {text!r} is not upstream's sentence {expected!r}")
            for key, span in located.items():
                spans.span_at(text, span["start"], span["text"], row=f"{config}/{index}", what=key)
            found.append(
                {
                    "text": text,
                    "spans": located,
                    "occupation": occupation,
                    "participant": participant,
                    "answer": ANSWER_CODES[row["answer"]],
                    "case": CASES[placeholder],
                    "pronoun_type": placeholder,
                    "pronoun": pronoun,
                    "pronoun_set": pronoun_set,
                    "template_row": index,
                }
            )
    return found
