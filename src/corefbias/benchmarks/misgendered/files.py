"""MISGENDERED's upstream files and how one of its instances is made, as its zero-shot scripts make it.

Upstream (``tamannahossainkay/misgendered-backend``) has the pronoun sets (``pronouns.csv``: 11 sets × 5 forms),
twelve declaration files (``templates/{explicit,parenth}_template_{2,31,32,41,42,5}.csv``: 50 templates each, the
person's pronouns declared explicitly — "Aamari's pronouns are xe/xem." — or in parentheses — "Aamari (xe/xem)"),
the 500 names (``names/{female,male,unisex}.txt``) and the scripts that score a model
(``zero-shot/*.py``, ``few-shot/*.py``). The scripts read an evaluation file whose ``sentence`` is a template
with its ``{name}`` filled in; the step that writes it is not in the repository, so it is made here: the name
replaces ``{name}``, and ``{name}/'s`` (so written in every explicit template) becomes ``{name}'s``, the
possessive the paper's examples show. From there :func:`instance` does what the scripts' ``get_eval_instance``
does: the declared set's forms fill ``{nom}``, ``{acc}``, ``{pos_dep}``, ``{pos_ind}``, ``{ref}``; the label is the
set's word for the blank's form; the choices are every set's word for that form, all capitalized when the blank
opens a sentence (``label_to_cap``: the character two before the first ``{`` is a full stop).
"""

from __future__ import annotations

import csv
import hashlib
import re

from corefbias.data import fill_in, upstream

UPSTREAM_DATASET = "misgendered"
PRONOUNS_FILE = "pronouns.csv"
# pronouns.csv's header; the scripts rename its columns to these (``gender_codebook.columns = [...]``).
CODEBOOK_COLUMNS = ("gender_type", "gender", "nom", "acc", "pos_dep", "pos_ind", "ref")
FORMS = ("nom", "acc", "pos_dep", "pos_ind", "ref")
KINDS = {"explicit": "explicit", "parenth": "parenthetical"}
DECLARED = ("2", "31", "32", "41", "42", "5")  # the declaration files' numbers: how many forms each declares
DECLARATIONS = tuple(f"{kind}_template_{number}" for kind in KINDS for number in DECLARED)
NAME_LISTS = ("female", "male", "unisex")
MASK = "{mask_token}"
# The paper's three kinds of pronoun set; pronouns.csv says binary or non-binary only.
GROUPS = {"he": "binary", "she": "binary", "they": "gender-neutral"}
NEO = "neo-pronoun"
# The gender of the binary sets' words, and the gender a stereotype reads into a name of each list (unisex: none).
BINARY_GENDER = {"he": "male", "she": "female"}
NAME_GENDER = {"female": "female", "male": "male", "unisex": None}
_SLOT = re.compile(r"\{(nom|acc|pos_dep|pos_ind|ref)\}")


def declaration_path(declaration: str) -> str:
    """The upstream file of a declaration (``explicit_template_31`` → ``templates/explicit_template_31.csv``)."""
    if declaration not in DECLARATIONS:
        raise ValueError(f"unknown MISGENDERED declaration {declaration!r}; known: {', '.join(DECLARATIONS)}")
    return f"templates/{declaration}.csv"


def _read_csv(path: str, mirror) -> list[dict]:
    with open(upstream.fetch(UPSTREAM_DATASET, path, mirror), encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def pronoun_sets(mirror=None) -> list[dict]:
    """The 11 sets of ``pronouns.csv`` in file order, keyed as the scripts rename its columns."""
    with open(upstream.fetch(UPSTREAM_DATASET, PRONOUNS_FILE, mirror), encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    if len(rows[0]) != len(CODEBOOK_COLUMNS):
        raise ValueError(f"{PRONOUNS_FILE}: expected the columns {CODEBOOK_COLUMNS}, got {rows[0]}")
    return [dict(zip(CODEBOOK_COLUMNS, row)) for row in rows[1:]]


def templates(declaration: str, mirror=None) -> list[dict]:
    """The 50 templates of a declaration file: ``template_id`` (int), ``form`` and ``template``.

    ``explicit_template_42.csv`` leaves the id of three rows empty (templates 8, 32 and 35); every other row of
    every file holds the id of its position, so an empty id is the row's position.
    """
    path = declaration_path(declaration)
    found = []
    for position, row in enumerate(_read_csv(path, mirror)):
        template_id = int(float(row["template_id"])) if row["template_id"] else position
        if template_id != position or row["form"] not in FORMS or row["template"].count(MASK) != 1:
            raise ValueError(f"{path}: row {position} is not template {position} with one {MASK} and a known form")
        found.append({"template_id": template_id, "form": row["form"], "template": row["template"]})
    return found


def names(mirror=None) -> dict[str, list[str]]:
    """Name list (``female``, ``male``, ``unisex``) → its names, in file order."""
    found = {}
    for name_list in NAME_LISTS:
        path = f"names/{name_list}.txt"
        text = upstream.fetch(UPSTREAM_DATASET, path, mirror).read_text(encoding="utf-8")
        found[name_list] = [line.strip() for line in text.splitlines() if line.strip()]
    return found


def chosen_names(declaration: str, template_id: int, names_by_list: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The scored part's names of one template: per name list, the name whose hash with the template is lowest.

    A fixed spread: every template of every declaration gets one female, one male and one unisex name, and
    different templates get different names.

    Examples
    --------
    >>> chosen_names("explicit_template_2", 0, {"female": ["Ann", "Mary"], "male": ["Bo"], "unisex": ["Kim"]})
    [('female', 'Ann'), ('male', 'Bo'), ('unisex', 'Kim')]
    """

    def order(name: str) -> str:
        return hashlib.sha256(f"{declaration}/{template_id}/{name}".encode()).hexdigest()

    return [(name_list, min(names_by_list[name_list], key=order)) for name_list in NAME_LISTS]


def eval_sentence(template: str, name: str) -> str:
    """The evaluation file's ``sentence``: the template with its name (see the module docstring).

    Examples
    --------
    >>> eval_sentence("{name}/'s pronouns are {nom}/{acc}. {name} cried. {mask_token} left.", "Kim")
    "Kim's pronouns are {nom}/{acc}. Kim cried. {mask_token} left."
    """
    return template.replace("{name}/'s", "{name}'s").replace("{name}", name)


def declare(sentence: str, pronoun_set: dict) -> str:
    """The scripts' ``declare_pronouns``: each form's placeholder replaced by the set's word."""
    for form in FORMS:
        sentence = sentence.replace("{" + form + "}", pronoun_set[form])
    return sentence


def opens_sentence(sentence: str) -> bool:
    """The scripts' ``label_to_cap``: the character two before the first ``{`` is a full stop."""
    return sentence[sentence.find("{") - 2] == "."


def instance(sentence: str, form: str, pronoun_set: dict, sets: list[dict]) -> dict:
    """What the scripts' ``get_eval_instance`` gives: the declared sentence, the label and the choices.

    ``choices`` is every set's word for ``form`` in ``pronouns.csv`` order with repeats dropped (``em`` and
    ``emself`` are the words of both ``e`` and ``ey``); the scripts' list keeps them twice, which decides nothing
    (the two entries of a word get the same loss, and the label is compared as a word).

    Examples
    --------
    >>> he = {"nom": "he", "acc": "him", "pos_dep": "his", "pos_ind": "his", "ref": "himself"}
    >>> xe = {"nom": "xe", "acc": "xem", "pos_dep": "xyr", "pos_ind": "xyrs", "ref": "xemself"}
    >>> instance("Kim ({nom}/{acc}) cried. {mask_token} left.", "nom", xe, [he, xe])
    {'sentence': 'Kim (xe/xem) cried. {mask_token} left.', 'label': 'Xe', 'choices': ['He', 'Xe']}
    """
    declared = declare(sentence, pronoun_set)
    label, choices = pronoun_set[form], [row[form] for row in sets]
    if opens_sentence(declared):
        label, choices = label.capitalize(), [choice.capitalize() for choice in choices]
    return {"sentence": declared, "label": label, "choices": list(dict.fromkeys(choices))}


def word_genders(form: str, sets: list[dict]) -> dict[str, str | None]:
    """Each word of a form (lowercased; repeats once, as :func:`instance` drops them): ``male`` for he's word,
    ``female`` for she's, None for the others'.

    Examples
    --------
    >>> sets = [{"gender": "he", "acc": "him"}, {"gender": "e", "acc": "em"}, {"gender": "ey", "acc": "em"}]
    >>> word_genders("acc", sets)
    {'him': 'male', 'em': None}
    """
    found: dict[str, str | None] = {}
    for pronoun_set in sets:
        found.setdefault(pronoun_set[form].lower(), BINARY_GENDER.get(pronoun_set["gender"]))
    return found


def declared_forms(template: str) -> list[str]:
    """The forms a template declares, in the order it declares them (``{nom}/{acc}/{pos_ind}`` → nom, acc, pos_ind)."""
    return list(dict.fromkeys(_SLOT.findall(template)))


def group(pronoun_set: str) -> str:
    """The paper's kind of pronoun set: binary, gender-neutral or neo-pronoun."""
    return GROUPS.get(pronoun_set, NEO)


def row(declaration: str, template: dict, name_list: str, name: str, pronoun_set: dict, sets: list[dict]) -> dict:
    """One exported row: a template of a declaration, a name and the declared pronoun set."""
    sentence = eval_sentence(template["template"], name)
    made = instance(sentence, template["form"], pronoun_set, sets)
    passage = made["sentence"].replace(MASK, fill_in.BLANK)
    declared = declared_forms(template["template"])
    kind, _, number = declaration.partition("_template_")
    unit = f"{declaration}/{template['template_id']}/{name}"
    shown = fill_in.rotated(made["choices"], unit)
    genders = word_genders(template["form"], sets)
    return {
        **fill_in.fill_in_row(passage, shown, made["label"]),
        "id": f"{unit}/{pronoun_set['gender']}",
        "sentence_id": unit,
        "declaration": declaration,
        "declaration_kind": KINDS[kind],
        "declared_number": number,
        "declared_forms": declared,
        "template_id": template["template_id"],
        "template": template["template"],
        "form": template["form"],
        "form_declared": template["form"] in declared,
        "name": name,
        "name_list": name_list,
        "sentence": sentence,
        "pronoun_set": pronoun_set["gender"],
        "gender_type": pronoun_set["gender_type"],
        "pronoun_group": group(pronoun_set["gender"]),
        "answer": made["label"],
        "pronoun_gender": NAME_GENDER[name_list],
        "candidate_stereotypes": [genders[word.lower()] for word in shown],
    }
