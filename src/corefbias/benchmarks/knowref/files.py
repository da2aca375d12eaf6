"""KnowRef's upstream test file (``Knowref_dataset/knowref_test.json``) and how its rows become spans.

Upstream gives per row the tokenised sentence with the pronoun in square brackets (``sentence_with_pronoun``), the
two candidates (``candidate0``, ``candidate1``: each a list holding one string of space-separated tokens), the answer
as text (``correct_candidate``) and the original sentence before its antecedents were replaced by names. Its README
names these fields as the ones the authors used; the others (``correct_candidate_idx``, ``is_pronoun_male``, ...)
"were heuristically determined and used during our filtering procedures", and they disagree with the fields it
names (:func:`gold_index`, :data:`PRONOUN_GENDERS`; the card counts the disagreements).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ...data import pronouns, upstream
from ...data.spans import SpanError

UPSTREAM_DATASET = "knowref"
TEST_FILE = "Knowref_dataset/knowref_test.json"
CANDIDATE_FIELDS = ("candidate0", "candidate1")
# The pronoun's gender as the bracketed word marks it; plural "they" (a group: "the soldiers") marks none.
PRONOUN_GENDERS = {**pronouns.ENGLISH, "they": "neutral", "them": "neutral", "their": "neutral"}
_BRACKETED = re.compile(r"\[([^\[\]]*)\]")


@dataclass(frozen=True)
class Repair:
    """One upstream field replaced at build time, where the row contradicts itself.

    Attributes
    ----------
    row : int
        The row's 0-based position in ``knowref_test.json``.
    field : str
        The upstream field replaced.
    upstream : object
        Its value upstream (checked: a different value is a build error, not a silent repair).
    repaired : object
        The value the set uses.
    reason : str
        Why, from the row itself.
    """

    row: int
    field: str
    upstream: object
    repaired: object
    reason: str


REPAIRS = (
    Repair(
        237,
        "candidate1",
        ["Christina"],
        ["Clara"],
        "both candidates are 'Christina'; the sentence's other name, 'Clara', stands where the original has 'Charles'",
    ),
    Repair(
        476,
        "sentence_with_pronoun",
        "Samuel despises Carl , telling Bandini if [he] wants to win him over, he has to treat [him] poorly .",
        "Samuel despises Carl , telling Bandini if he wants to win him over, he has to treat [him] poorly .",
        "two words are bracketed; the answer 'Carl' is the second one's ('[him]', the original's 'her' of "
        "'Camilla'), the first ('[he]') is Bandini, no candidate",
    ),
    *(
        Repair(
            row,
            "candidate0",
            ["Dr. Trichelair"],
            ["Dr. Pheobe"],
            "'Dr. Trichelair' is not in the sentence; 'Dr. Pheobe' stands where the original has 'Hinako'",
        )
        for row in (645, 646)
    ),
    Repair(
        646,
        "correct_candidate",
        ["Dr. Trichelair"],
        ["Dr. Pheobe"],
        "the answer names the candidate repaired above ('until she got pregnant': Hinako, now Dr. Pheobe)",
    ),
    Repair(
        1084,
        "candidate1",
        ["Baba"],
        ["Emilie"],
        "'Baba' is not in the sentence; 'Emilie' stands where the original has 'Baba'",
    ),
)


def repaired(records: list[dict]) -> list[dict]:
    """Copies of the upstream rows with :data:`REPAIRS` applied, each checked against its upstream value.

    Parameters
    ----------
    records : list of dict
        The rows of ``knowref_test.json``, in file order.

    Returns
    -------
    list of dict

    Raises
    ------
    ValueError
        If a repaired field does not hold the upstream value the repair expects.

    Examples
    --------
    >>> repaired([{}] * 1269)
    Traceback (most recent call last):
    ...
    ValueError: knowref_test.json row 237: candidate1 is None, not the value a repair expects (['Christina'])
    """
    rows = [dict(record) for record in records]
    for repair in REPAIRS:
        found = rows[repair.row].get(repair.field) if repair.row < len(rows) else None
        if found != repair.upstream:
            raise ValueError(
                f"knowref_test.json row {repair.row}: {repair.field} is {found!r}, not the value a repair expects "
                f"({repair.upstream!r})"
            )
        rows[repair.row][repair.field] = repair.repaired
    return rows


def load_test(mirror=None) -> list[dict]:
    """The upstream test rows as released (1,269), unrepaired.

    Parameters
    ----------
    mirror : str or path-like, optional
        The upstream mirror (default ``$COREFBIAS_MIRROR``, else the download cache).

    Returns
    -------
    list of dict
    """
    with open(upstream.fetch(UPSTREAM_DATASET, TEST_FILE, mirror), encoding="utf-8") as handle:
        return json.load(handle)


def unbracketed(sentence: str, *, row: int) -> tuple[str, dict]:
    """The sentence without the brackets around its pronoun, and the pronoun's span in it.

    Parameters
    ----------
    sentence : str
        ``sentence_with_pronoun``: exactly one word in square brackets.
    row : int
        The row's position upstream, for messages.

    Returns
    -------
    str
        The text.
    dict
        The pronoun's ``{text, start, end}``.

    Raises
    ------
    SpanError
        If the sentence holds no bracketed word, several, or a stray bracket.

    Examples
    --------
    >>> unbracketed("Ann met Bo , but [she] left .", row=0)
    ('Ann met Bo , but she left .', {'text': 'she', 'start': 17, 'end': 20})
    """
    found = list(_BRACKETED.finditer(sentence))
    if len(found) != 1 or sentence.count("[") != 1 or sentence.count("]") != 1:
        raise SpanError(f"row {row}: expected one bracketed pronoun in {sentence!r}, found {len(found)}")
    (match,) = found
    start = match.start()
    text = sentence[:start] + match.group(1) + sentence[match.end() :]
    return text, {"text": match.group(1), "start": start, "end": start + len(match.group(1))}


def occurrences(text: str, name: str, *, outside: list[dict] = ()) -> list[dict]:
    """Every occurrence of ``name`` in ``text`` not inside a longer word, nor inside one of the spans ``outside``
    (the other candidate's occurrences), in text order.

    Parameters
    ----------
    text : str
        The sentence.
    name : str
        A candidate as upstream gives it ("Ashok 's client").
    outside : list of dict, default ()
        Spans an occurrence must not lie in.

    Returns
    -------
    list of dict
        ``{text, start, end}`` spans.

    Examples
    --------
    >>> [span["start"] for span in occurrences("Dolly , named after Dolly Parton , met Dollyanna .", "Dolly")]
    [0, 20]
    >>> occurrences("Azuth is one of Marcus' subordinates .", "Marcus")
    [{'text': 'Marcus', 'start': 16, 'end': 22}]
    >>> occurrences("Rose 's fiance Julie arrives to see Rose .", "Rose", outside=[{"start": 0, "end": 20}])
    [{'text': 'Rose', 'start': 36, 'end': 40}]
    """
    pattern = re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)")
    return [
        {"text": name, "start": match.start(), "end": match.end()}
        for match in pattern.finditer(text)
        if not any(span["start"] <= match.start() and match.end() <= span["end"] for span in outside)
    ]


def candidate_name(record: dict, field: str, *, row: int) -> str:
    """A candidate's text: the one string of its upstream list.

    Examples
    --------
    >>> candidate_name({"candidate0": ["Ashok 's client"]}, "candidate0", row=0)
    "Ashok 's client"
    """
    value = record[field]
    if not (isinstance(value, list) and len(value) == 1 and isinstance(value[0], str) and value[0].strip()):
        raise ValueError(f"row {row}: {field} is {value!r}, not a list holding one name")
    return value[0]


def gold_index(record: dict, *, row: int) -> int:
    """Which candidate is the answer: the one equal to ``correct_candidate``, the field upstream's README names.

    ``correct_candidate_idx`` is not read: on 299 of the 1,269 rows it points at the other candidate, and there the
    sentence agrees with ``correct_candidate`` (the card gives examples).

    Parameters
    ----------
    record : dict
        An upstream row (repaired).
    row : int
        Its position upstream, for messages.

    Returns
    -------
    int
        0 or 1.

    Raises
    ------
    ValueError
        If ``correct_candidate`` equals neither candidate, or both.

    Examples
    --------
    >>> gold_index({"candidate0": ["Rodin"], "candidate1": ["Leon Gambetta"], "correct_candidate": ["Leon Gambetta"],
    ...             "correct_candidate_idx": 0}, row=1)
    1
    """
    matches = [index for index, field in enumerate(CANDIDATE_FIELDS) if record[field] == record["correct_candidate"]]
    if len(matches) != 1:
        raise ValueError(
            f"row {row}: correct_candidate {record['correct_candidate']!r} is {len(matches)} of the candidates "
            f"{[record[field] for field in CANDIDATE_FIELDS]}"
        )
    return matches[0]
