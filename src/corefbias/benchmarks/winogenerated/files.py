"""Winogenerated's upstream files and how one of its sentences becomes a fill-in row.

Upstream (``anthropics/evals``, folder ``winogenerated``) has ``winogenerated_examples.jsonl``: 2,990 sentences, 10
for each of 299 occupations, each with ``index``, ``occupation``, ``other_person``, ``sentence_with_blank`` (one
``_`` where a pronoun goes), ``pronoun_options`` (male, female and gender-neutral pronoun in that order, in one of
three forms) and the occupation's ``BLS_original_occupation`` and ``BLS_percent_women_2019``; and
``winogenerated_occupations.jsonl``, one line per occupation with the same occupation fields. (Its README names the
two files ``generated_winogender_data.jsonl`` and ``bls_occupations.jsonl``.)
"""

from __future__ import annotations

import json

from corefbias.data import fill_in, upstream
from corefbias.measures import stereotypes

UPSTREAM_DATASET = "winogenerated"
EXAMPLES_FILE = "winogenerated/winogenerated_examples.jsonl"
OCCUPATIONS_FILE = "winogenerated/winogenerated_occupations.jsonl"
BLANK = "_"  # the blank as upstream writes it, and as the paper's prompt shows it to the model
# ``pronoun_options`` in upstream's order (male, female, gender-neutral) → the pronoun's form.
FORMS = {
    ("he", "she", "they"): "nominative",
    ("his", "her", "their"): "possessive",
    ("him", "her", "them"): "accusative",
}
OPTION_GENDERS = ("male", "female", "neutral")  # the gender of each option, in upstream's order
OCCUPATION_FIELDS = ("occupation", "other_person", "BLS_original_occupation", "BLS_percent_women_2019")


def _read_jsonl(path: str, mirror) -> list[dict]:
    with open(upstream.fetch(UPSTREAM_DATASET, path, mirror), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def examples(mirror=None) -> list[dict]:
    """The upstream sentences in file order, each checked against its occupation's line of the occupations file
    (:func:`checked`)."""
    return checked(_read_jsonl(EXAMPLES_FILE, mirror), _read_jsonl(OCCUPATIONS_FILE, mirror))


def checked(sentences: list[dict], occupation_lines: list[dict]) -> list[dict]:
    """The sentences, once each agrees with its occupation's line (occupation, other person, BLS title and percent).

    Raises
    ------
    ValueError
        If a sentence's occupation has no line or disagrees with it, or an occupation has two lines.

    Examples
    --------
    >>> line = {"occupation": "toolmaker", "other_person": "client", "BLS_original_occupation": "Tool and die makers",
    ...         "BLS_percent_women_2019": 4.8}
    >>> len(checked([{**line, "index": 3}], [line]))
    1
    >>> checked([{**line, "index": 3, "BLS_percent_women_2019": 5.0}], [line])
    Traceback (most recent call last):
    ...
    ValueError: winogenerated/winogenerated_examples.jsonl: sentence 3 gives BLS_percent_women_2019 5.0 for toolmaker, \
winogenerated/winogenerated_occupations.jsonl 4.8
    """
    occupations: dict[str, dict] = {}
    for line in occupation_lines:
        if line["occupation"] in occupations:
            raise ValueError(f"{OCCUPATIONS_FILE}: occupation {line['occupation']!r} is listed twice")
        occupations[line["occupation"]] = line
    for sentence in sentences:
        known = occupations.get(sentence["occupation"])
        if known is None:
            raise ValueError(
                f"{EXAMPLES_FILE}: sentence {sentence['index']} names occupation {sentence['occupation']!r}, which "
                f"{OCCUPATIONS_FILE} does not list"
            )
        for field in OCCUPATION_FIELDS:
            if known[field] != sentence[field]:
                raise ValueError(
                    f"{EXAMPLES_FILE}: sentence {sentence['index']} gives {field} {sentence[field]} for "
                    f"{sentence['occupation']}, {OCCUPATIONS_FILE} {known[field]}"
                )
    return sentences


def pronoun_form(options) -> str:
    """The form of a sentence's pronoun options: ``nominative``, ``possessive`` or ``accusative``.

    Examples
    --------
    >>> pronoun_form(["his", "her", "their"])
    'possessive'
    >>> pronoun_form(["he", "her", "them"])
    Traceback (most recent call last):
    ...
    ValueError: pronoun options ['he', 'her', 'them'] are none of he/she/they, his/her/their, him/her/them
    """
    form = FORMS.get(tuple(options))
    if form is None:
        known = ", ".join("/".join(triple) for triple in FORMS)
        raise ValueError(f"pronoun options {list(options)!r} are none of {known}")
    return form


def row(example: dict) -> dict:
    """One upstream sentence as an exported row.

    The row's text is the sentence as upstream writes it, its blank ``_`` the pronoun's span, then the options in
    upstream's order (``corefbias.data.fill_in``); the gender-neutral option is marked ``is_referent``: the one
    pronoun that presumes no gender the sentence does not state (no score of the paper reads it; see the card).

    Examples
    --------
    >>> made = row({"index": 1, "occupation": "floor installer", "other_person": "client",
    ...     "pronoun_options": ["he", "she", "they"], "BLS_percent_women_2019": 1.9,
    ...     "BLS_original_occupation": "Carpet, floor, and tile installers and finishers",
    ...     "sentence_with_blank": "The client told the floor installer that _ could start."})
    >>> made["id"], made["pronoun"], made["pronoun_form"], made["occupation_majority"]
    ('1', {'text': '_', 'start': 41, 'end': 42}, 'nominative', 'male')
    >>> [(c["text"], c["is_referent"]) for c in made["candidates"]]
    [('he', False), ('she', False), ('they', True)]
    """
    options = list(example["pronoun_options"])
    majority = stereotypes.majority_gender(example["BLS_percent_women_2019"], tie=stereotypes.WINOGENDER_TIE)
    return {
        **fill_in.fill_in_row(example["sentence_with_blank"], options, options[-1], blank=BLANK),
        "id": str(example["index"]),
        "occupation": example["occupation"],
        "other_person": example["other_person"],
        "sentence": example["sentence_with_blank"],
        "pronoun_options": options,
        "pronoun_form": pronoun_form(options),
        "bls_occupation": example["BLS_original_occupation"],
        "bls_pct_female": float(example["BLS_percent_women_2019"]),
        "occupation_majority": majority,
        "pronoun_gender": majority,
        "candidate_stereotypes": ["male", "female", None],
    }
