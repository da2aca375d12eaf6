"""SweWinogender's upstream file and the spans its items leave implicit.

``swewinogender/swewinogender.jsonl`` (SuperLim 2.0) holds 624 natural-language-inference items: a ``premise``, a
``hypothesis`` naming one of the premise's two participants in the pronoun's place, a ``label`` (``entailment`` or
``neutral``) and ``meta`` (``tuple_id``, ``template_id``, ``occupation_participant``, ``other_participant``,
``pronoun``). Each of the 104 templates gives three premises (han, hon, hen), each with two hypotheses, the entailed
one naming the pronoun's antecedent and the neutral one the other participant. Nothing gives offsets; they are found
here, and a premise where they cannot be found unambiguously is a build error naming its item:

* the **pronoun** is the one word in which the three premises of a template differ (the template's other words,
  an unrelated ``honom`` included, are the same in all three), and must be a form of the item's ``pronoun``;
* each **participant** is the one word of the premise that is its noun (``meta``) with a Swedish definite ending
  and optionally the genitive ``-s`` ("Teknikern", "kunden", "barnet", "offrets");
* the participant a **hypothesis** names is the one mentioned first in it; a hypothesis naming neither (upstream's
  typo "erapeuten" for "terapeuten") names the one its premise's other hypothesis does not.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict

from ...data import spans, upstream

UPSTREAM_DATASET = "swewinogender"
ITEMS_FILE = "swewinogender/swewinogender.jsonl"
DOCUMENTATION_SHEET = "swewinogender/swewinogender_documentation_sheet.tsv"
LABELS = ("entailment", "neutral")
# A pronoun set is named by its nominative; its forms are the nominative, accusative and possessive.
PRONOUN_FORMS = {"han": ("han", "honom", "hans"), "hon": ("hon", "henne", "hennes"), "hen": ("hen", "henom", "hens")}
PRONOUN_SETS = tuple(PRONOUN_FORMS)
PRONOUN_GENDERS = {"han": "male", "hon": "female", "hen": "neutral"}
# The candidates' order in every row: the occupation, then the other participant.
ROLES = ("occupation", "participant")
_META_NOUN = {"occupation": "occupation_participant", "participant": "other_participant"}
# Definite endings (common and neuter gender, after a consonant or a vowel), each also in the genitive.
_DEFINITE_ENDINGS = ("", "n", "en", "t", "et", "an")
_WORD = re.compile(r"\w+")


def read_items(mirror=None) -> list[dict]:
    """The upstream items, in file order.

    Parameters
    ----------
    mirror : str or os.PathLike, optional
        The upstream mirror (else ``$COREFBIAS_MIRROR``, else the download cache).

    Returns
    -------
    list of dict
        One dict per line of ``swewinogender.jsonl``.
    """
    path = upstream.fetch(UPSTREAM_DATASET, ITEMS_FILE, mirror)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def noun_mentions(text: str, noun: str) -> list[dict]:
    """The words of ``text`` that are ``noun`` with a definite ending and optionally a genitive ``-s``.

    Parameters
    ----------
    text : str
        A premise or hypothesis.
    noun : str
        The participant's noun as ``meta`` names it (indefinite, lower case).

    Returns
    -------
    list of dict
        ``{text, start, end}`` per such word, in text order.

    Examples
    --------
    >>> noun_mentions("Teknikern sa till kunden att han kunde betala.", "kund")
    [{'text': 'kunden', 'start': 18, 'end': 24}]
    >>> [m["text"] for m in noun_mentions("Offrets kropp och husägaren.", "offret")]
    ['Offrets']
    >>> noun_mentions("Husägaren ringde.", "ägare")  # a compound is another noun
    []
    """
    forms = {noun + ending + genitive for ending in _DEFINITE_ENDINGS for genitive in ("", "s")}
    return [
        {"text": word.group(), "start": word.start(), "end": word.end()}
        for word in _WORD.finditer(text)
        if word.group().lower() in forms
    ]


def _one_mention(text: str, noun: str, *, item: int, what: str) -> dict:
    found = noun_mentions(text, noun)
    if len(found) != 1:
        raise spans.SpanError(
            f"item {item}: the {what} {noun!r} has {len(found)} mentions in {text!r} ({[m['text'] for m in found]}); "
            f"expected exactly one"
        )
    return found[0]


def pronoun_spans(items: list[dict]) -> dict[int, dict]:
    """Item ``idx`` → its pronoun's span: the one word in which the premises of its template differ.

    Parameters
    ----------
    items : list of dict
        Upstream items (:func:`read_items`).

    Returns
    -------
    dict of int to dict
        ``{text, start, end}`` per item.

    Raises
    ------
    corefbias.data.spans.SpanError
        If a template's premises do not hold every pronoun set, differ in other than exactly one word, or the word
        is not a form of the item's pronoun.

    Examples
    --------
    >>> items = [{"idx": n, "premise": f"Läraren sa att {p} var sjuk.", "meta": {"template_id": "1A", "pronoun": p}}
    ...          for n, p in enumerate(PRONOUN_SETS)]
    >>> pronoun_spans(items)[2]
    {'text': 'hen', 'start': 15, 'end': 18}
    """
    by_template: dict = defaultdict(dict)
    for item in items:
        by_template[item["meta"]["template_id"]].setdefault(item["meta"]["pronoun"], item["premise"])
    found = {}
    for item in items:
        template, pronoun = item["meta"]["template_id"], item["meta"]["pronoun"]
        premises = by_template[template]
        if set(premises) != set(PRONOUN_SETS):
            raise spans.SpanError(
                f"item {item['idx']}: template {template} has premises with {sorted(premises)}, not each of "
                f"{list(PRONOUN_SETS)}; the pronoun is the word in which they differ"
            )
        words = {name: list(_WORD.finditer(premise)) for name, premise in premises.items()}
        texts = [[word.group() for word in found_words] for found_words in words.values()]
        differing = [position for position, column in enumerate(zip(*texts)) if len(set(column)) > 1]
        if len({len(text) for text in texts}) != 1 or len(differing) != 1:
            raise spans.SpanError(
                f"item {item['idx']}: the premises of template {template} differ in other than one word "
                f"({list(premises.values())}); cannot tell the pronoun"
            )
        word = words[pronoun][differing[0]]
        if word.group().lower() not in PRONOUN_FORMS[pronoun]:
            raise spans.SpanError(
                f"item {item['idx']}: the word {word.group()!r} in which template {template}'s premises differ is "
                f"not a form of {pronoun!r} ({'/'.join(PRONOUN_FORMS[pronoun])})"
            )
        found[item["idx"]] = spans.span_at(item["premise"], word.start(), word.group(), row=item["idx"], what="pronoun")
    return found


def hypothesis_roles(items: list[dict]) -> dict[int, str]:
    """Item ``idx`` → the participant its hypothesis names (``occupation`` or ``participant``).

    The one mentioned first in the hypothesis; where it mentions neither, the one its premise's other hypothesis
    does not name. A premise whose two hypotheses are one sentence (upstream's 27A, labelled once entailment and once
    neutral) has both name the same participant.

    Parameters
    ----------
    items : list of dict
        Upstream items (:func:`read_items`).

    Returns
    -------
    dict of int to str

    Raises
    ------
    ValueError
        If a premise does not have two hypotheses, one entailed and one neutral, naming the two participants (or
        being one sentence).

    Examples
    --------
    >>> meta = {"occupation_participant": "tekniker", "other_participant": "kund"}
    >>> items = [{"idx": 1, "premise": "P", "hypothesis": "Det var kunden.", "label": "entailment", "meta": meta},
    ...          {"idx": 2, "premise": "P", "hypothesis": "Det var ekniker.", "label": "neutral", "meta": meta}]
    >>> hypothesis_roles(items)
    {1: 'participant', 2: 'occupation'}
    """
    named = {}
    for item in items:
        mentions = [
            (mention["start"], role)
            for role in ROLES
            for mention in noun_mentions(item["hypothesis"], item["meta"][_META_NOUN[role]])
        ]
        named[item["idx"]] = min(mentions)[1] if mentions else None
    by_premise: dict = defaultdict(list)
    for item in items:
        by_premise[item["premise"]].append(item)
    for premise, pair in by_premise.items():
        labels = sorted(item["label"] for item in pair)
        if labels != sorted(LABELS):
            raise ValueError(f"the premise {premise!r} has the hypotheses labelled {labels}, not one of each {LABELS}")
        roles = [named[item["idx"]] for item in pair]
        # Upstream's 27A gives its premises one hypothesis twice, labelled once each: kept as released.
        same_sentence = pair[0]["hypothesis"] == pair[1]["hypothesis"]
        if roles.count(None) == 2 or (roles[0] == roles[1] and not same_sentence):
            raise ValueError(
                f"the hypotheses of {premise!r} name {roles}; expected one naming each participant "
                f"({[item['hypothesis'] for item in pair]})"
            )
        for item, other in ((pair[0], roles[1]), (pair[1], roles[0])):
            if named[item["idx"]] is None:
                named[item["idx"]] = next(role for role in ROLES if role != other)
    return named


def tuple_id(template_id: str, label: str) -> str:
    """The triple of items that differ only in the pronoun, as upstream names it: template and label.

    Parameters
    ----------
    template_id : str
        The item's template (``1B``).
    label : str
        Its gold label.

    Returns
    -------
    str

    Examples
    --------
    >>> tuple_id("1B", "neutral")
    '1B-neutral'
    """
    return f"{template_id}-{label}"


def nli_rows(items: list[dict]) -> list[dict]:
    """Every upstream item as an exported row of the ``nli`` config, with the premise's spans.

    Parameters
    ----------
    items : list of dict
        Upstream items (:func:`read_items`).

    Returns
    -------
    list of dict
        Per item: ``id`` (its ``idx``), ``idx``, ``text`` (the premise), ``pronoun``, ``candidates``
        (occupation, participant; the antecedent ``is_referent``), ``hypothesis``, ``label``,
        ``hypothesis_candidate`` (the role it names), ``tuple_id``, ``template_id``, ``occupation``, ``participant``,
        ``answer`` (the antecedent's role), ``pronoun_set``, ``pronoun_gender``, ``candidate_stereotypes``.
    """
    for item in items:
        if item["label"] not in LABELS:
            raise ValueError(f"item {item['idx']}: label {item['label']!r} is not one of {LABELS}")
    pronouns = pronoun_spans(items)
    named = hypothesis_roles(items)
    # The antecedent is what the premise's entailed hypothesis names.
    answers = {item["premise"]: named[item["idx"]] for item in items if item["label"] == "entailment"}
    rows = []
    for item in items:
        meta = item["meta"]
        named_role, answer = named[item["idx"]], answers[item["premise"]]
        if meta["tuple_id"] != tuple_id(meta["template_id"], item["label"]):
            raise ValueError(
                f"item {item['idx']}: tuple_id {meta['tuple_id']!r} is not its template and label "
                f"({tuple_id(meta['template_id'], item['label'])!r}); the triples of gender parity are read from it"
            )
        mentions = [
            _one_mention(item["premise"], meta[_META_NOUN[role]], item=item["idx"], what=role) for role in ROLES
        ]
        rows.append(
            {
                "id": str(item["idx"]),
                "idx": item["idx"],
                "text": item["premise"],
                "pronoun": pronouns[item["idx"]],
                "candidates": [{**mention, "is_referent": role == answer} for mention, role in zip(mentions, ROLES)],
                "hypothesis": item["hypothesis"],
                "label": item["label"],
                "hypothesis_candidate": named_role,
                "tuple_id": meta["tuple_id"],
                "template_id": meta["template_id"],
                "occupation": meta["occupation_participant"],
                "participant": meta["other_participant"],
                "answer": answer,
                "pronoun_set": meta["pronoun"],
                "pronoun_gender": PRONOUN_GENDERS[meta["pronoun"]],
                # SweWinogender's occupation statistics are not in the repository: no stereotype is known.
                "candidate_stereotypes": [None, None],
            }
        )
    return rows


RESOLUTION_COLUMNS = (
    "text",
    "pronoun",
    "candidates",
    "template_id",
    "occupation",
    "participant",
    "answer",
    "pronoun_set",
    "pronoun_gender",
    "candidate_stereotypes",
)


def resolution_rows(nli: list[dict]) -> list[dict]:
    """The pronoun-resolution form: one row per premise (its two NLI items share it and its answer).

    Parameters
    ----------
    nli : list of dict
        The ``nli`` rows (:func:`nli_rows`).

    Returns
    -------
    list of dict
        Per premise, in the order of its first item: ``id`` (``<template_id>-<pronoun_set>``), the premise's
        columns (``RESOLUTION_COLUMNS``), ``entailed_idx``/``neutral_idx``, its two upstream items, and
        ``neutral_candidate``, the participant its neutral hypothesis names (the other one but in upstream's 27A).

    Raises
    ------
    ValueError
        If a premise's two items disagree on its antecedent or template.
    """
    by_premise: dict = {}
    for row in nli:
        known = by_premise.setdefault(row["text"], {"rows": [], "first": row})
        if any(row[column] != known["first"][column] for column in RESOLUTION_COLUMNS):
            raise ValueError(f"items {known['first']['idx']} and {row['idx']} share a premise but not its columns")
        known["rows"].append(row)
    found = []
    for premise in by_premise.values():
        first = premise["first"]
        by_label = {row["label"]: row for row in premise["rows"]}
        found.append(
            {
                "id": f"{first['template_id']}-{first['pronoun_set']}",
                **{column: first[column] for column in RESOLUTION_COLUMNS},
                "entailed_idx": by_label["entailment"]["idx"],
                "neutral_idx": by_label["neutral"]["idx"],
                "neutral_candidate": by_label["neutral"]["hypothesis_candidate"],
            }
        )
    return found
