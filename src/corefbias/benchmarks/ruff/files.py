"""RUFF's upstream files and its instances, made as its ``scripts/add_context.py`` makes them.

Upstream (``uds-lsv/robust-pronoun-fidelity``, AGPL-3.0) ships its templates in a password-protected
``data.zip`` (the password is in its README): ``data/task.tsv`` (180 task sentences: 60 occupations × the three
pronoun cases, each with a participant, the pronoun a placeholder such as ``$NOM_PRONOUN``) and
``data/context.tsv`` (per case, ten introductions of a person with a pronoun, five negative and five positive,
each with an implicit continuation). ``add_context.py`` writes six files: the occupation introduced with a pronoun
(``eo``) and then 0 to 5 distractor sentences about the participant, who is introduced with another pronoun
(``ep``) and then continued implicitly (``ip``), before the task sentence. :func:`contexts` walks the same loops in
the same order, so the i-th instance of a file is the i-th line of upstream's output (``tests/test_ruff.py`` runs
upstream's script and compares). Nothing of upstream's is copied here: the files are read from the pinned commit.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass

from corefbias.data import fill_in, upstream
from corefbias.measures import stereotypes

UPSTREAM_DATASET = "ruff"
ARCHIVE = "data.zip"
README = "README.md"
TASK_FILE = "data/task.tsv"
CONTEXT_FILE = "data/context.tsv"
# scripts/pronouns.py: the placeholder of each case and its words, in the order the scripts score them.
PRONOUNS = {
    "$NOM_PRONOUN": ("he", "she", "they", "xe"),
    "$ACC_PRONOUN": ("him", "her", "them", "xem"),
    "$POSS_PRONOUN": ("his", "her", "their", "xyr"),
}
CASES = {"$NOM_PRONOUN": "nom", "$ACC_PRONOUN": "acc", "$POSS_PRONOUN": "poss"}
PRONOUN_SETS = PRONOUNS["$NOM_PRONOUN"]  # a set is named by its nominative
NAME_SLOT = "$OCCUPATION/PARTICIPANT"
# The six files of add_context.py, by the number of distractor sentences between the introduction and the task.
FILES = ("eo_task", "eo_ep_task", "eo_ep_ip_task", "eo_ep_ip_ip_task", "eo_ep_ip_ip_ip_task", "eo_ep_ip_ip_ip_ip_task")
DISTRACTORS = tuple(range(len(FILES)))
# How many contexts of each task sentence the scored part keeps, by distractors: as upstream's
# sample_templates.py draws 3 instances per cell of the distractor-free file and 1 of every other (2,160 each).
SCORED_CONTEXTS = {0: 3, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1}
GROUPS = {"he": "binary", "she": "binary", "they": "gender-neutral", "xe": "neo-pronoun"}
BINARY_GENDER = {"he": "male", "she": "female"}
_PASSWORD = re.compile(r"password `([^`]+)`")


def password(mirror=None) -> bytes:
    """The password of ``data.zip``, as the pinned README gives it ("Please unzip it with the password `...`")."""
    text = upstream.fetch(UPSTREAM_DATASET, README, mirror).read_text(encoding="utf-8")
    found = _PASSWORD.search(text)
    if found is None:
        raise ValueError(f"the pinned {README} of {UPSTREAM_DATASET} names no password for {ARCHIVE}")
    return found.group(1).encode()


def read_archive_tsv(path: str, mirror=None) -> list[dict]:
    """Rows of a tab-separated file inside the pinned ``data.zip``."""
    with zipfile.ZipFile(upstream.fetch(UPSTREAM_DATASET, ARCHIVE, mirror)) as archive:
        text = archive.read(path, pwd=password(mirror)).decode("utf-8")
    return list(csv.DictReader(io.StringIO(text, newline=""), delimiter="\t"))


def tasks(mirror=None) -> list[dict]:
    """The 180 task rows: ``occupation``, ``participant``, ``sentence``, ``pronoun_type``, ``word``."""
    rows = read_archive_tsv(TASK_FILE, mirror)
    for index, row in enumerate(rows):
        if row["pronoun_type"] not in PRONOUNS or row["sentence"].count(row["pronoun_type"]) != 1:
            raise ValueError(f"{TASK_FILE}: row {index} has no single known pronoun placeholder: {row}")
    return rows


@dataclass(frozen=True)
class Introduction:
    """One row of ``context.tsv``: an explicit introduction and its implicit continuation, of one polarity."""

    explicit: str
    implicit: str
    polarity: str


def introductions(mirror=None) -> dict[str, list[Introduction]]:
    """Case placeholder → its introductions in file order (add_context's ``build_pronoun_type_template_mapping``)."""
    found: dict[str, list[Introduction]] = {pronoun_type: [] for pronoun_type in PRONOUNS}
    for row in read_archive_tsv(CONTEXT_FILE, mirror):
        found[row["pronoun_type"]].append(
            Introduction(row["explicit_template"], row["implicit_template"], row["polarity"])
        )
    return found


def instantiate(template: str, name: str, pronoun_type: str, pronoun: str) -> str:
    """add_context's ``instantiate_template``."""
    return template.replace(NAME_SLOT, name).replace(pronoun_type, pronoun)


@dataclass(frozen=True)
class Context:
    """The sentences before a task sentence: ``uid`` as upstream writes it, the declared and confusing pronouns."""

    uid: str
    sentences: tuple[str, ...]
    pronoun: str
    confuse_pronoun: str


def contexts(
    task: dict, intros: dict[str, list[Introduction]], distractors: int, keep: set[str] | None = None
) -> Iterator[Context]:
    """The contexts of one task row in one file, in add_context's order (its nested loops); ``keep``: only those
    with these uids."""
    pronoun_type = task["pronoun_type"]
    pronouns, templates = PRONOUNS[pronoun_type], intros[pronoun_type]
    first, second = task["occupation"], task["participant"]
    plans: dict[tuple[int, int], list] = {}
    for i, intro in enumerate(templates):
        for pronoun1 in pronouns:
            intro1 = instantiate(intro.explicit, first, pronoun_type, pronoun1)
            if distractors == 0:
                if keep is None or f"eo{i}" in keep:
                    yield Context(f"eo{i}", (intro1,), pronoun1, "")
                continue
            for j, other in enumerate(templates):
                # a different content from the first introduction, and the opposite polarity
                if j % 5 == i % 5 or other.polarity == intro.polarity:
                    continue
                if (i, j) not in plans:
                    plans[i, j] = _plans(templates, i, j, distractors, keep)
                if not plans[i, j]:
                    continue
                for pronoun2 in pronouns:
                    if pronoun2 == pronoun1:
                        continue
                    intro2 = instantiate(other.explicit, second, pronoun_type, pronoun2)
                    for name, permutation in plans[i, j]:
                        implicit = (
                            instantiate(sentence, second, pronoun_type, pronoun2) for _, sentence in permutation
                        )
                        yield Context(name, (intro1, intro2, *implicit), pronoun1, pronoun2)


def _plans(templates: list[Introduction], i: int, j: int, distractors: int, keep: set[str] | None) -> list:
    """(uid, implicit continuations) of the contexts introduced by ``i`` and ``j``, in add_context's order."""
    continuations = [
        (k, implicit.implicit)
        for k, implicit in enumerate(templates)
        if k not in (i, j) and implicit.polarity == templates[j].polarity
    ]
    # the implicit continuations share the participant's introduction's polarity and repeat neither introduction
    if len(continuations) != 4:
        raise ValueError(f"introduction {j} has {len(continuations)} implicit continuations, not 4")
    # add_context writes 3 implicit sentences as the first 3 of each permutation of all 4
    length = {1: 0, 2: 1, 3: 2, 4: 4, 5: 4}[distractors]
    found = []
    for permutation in itertools.permutations(continuations, length):
        chosen = permutation[: distractors - 1]
        uid = f"eo{i}_ep{j}" + "".join(f"_ip{k}" for k, _ in chosen)
        if keep is None or uid in keep:
            found.append((uid, chosen))
    return found


def context_uids(intros: list[Introduction], distractors: int) -> list[str]:
    """The uids of one case's contexts in one file, in add_context's order, each once."""
    task = {"pronoun_type": "$NOM_PRONOUN", "occupation": "", "participant": ""}
    found = (context.uid for context in contexts(task, {"$NOM_PRONOUN": intros}, distractors))
    return list(dict.fromkeys(found))


def upstream_sentence(task: dict, context: Context) -> str:
    """add_context's output ``sentence``: the context sentences capitalized (``str.capitalize``), then the task."""
    return " ".join((*(sentence.capitalize() for sentence in context.sentences), task["sentence"]))


def chosen_uids(task_index: int, uids: list[str], distractors: int) -> set[str]:
    """The context uids the scored part keeps for one task row and number of distractors: of ``uids`` (the case's,
    ``context_uids``), the ``SCORED_CONTEXTS[distractors]`` whose hash with the task row is lowest.

    Examples
    --------
    >>> sorted(chosen_uids(0, [f"eo{i}" for i in range(10)], 0))
    ['eo1', 'eo2', 'eo3']
    """

    def order(uid: str) -> str:
        return hashlib.sha256(f"{task_index}/{uid}".encode()).hexdigest()

    return set(sorted(uids, key=order)[: SCORED_CONTEXTS[distractors]])


def row(task_index: int, task: dict, context: Context, distractors: int, bls_pct_female: float | None = None) -> dict:
    """One exported row: the context, the task sentence with a blank for its pronoun, the options; with the
    occupation's percent female (Winogender's BLS figure), its stereotype."""
    pronoun_type = task["pronoun_type"]
    sentence = upstream_sentence(task, context)
    options = PRONOUNS[pronoun_type]
    pronoun_set = PRONOUN_SETS[options.index(context.pronoun)]
    unit = f"{task_index}/{context.uid}"
    shown = fill_in.rotated(options, unit)
    return {
        # prompt_model: sentence.replace(pronoun_type, '___'), then the options
        **fill_in.fill_in_row(sentence.replace(pronoun_type, fill_in.BLANK), shown, context.pronoun),
        "id": f"{FILES[distractors]}/{unit}/{context.pronoun}/{context.confuse_pronoun or '-'}",
        "context_id": unit,
        "distractors": distractors,
        "file": FILES[distractors],
        "uid": context.uid,
        "task_index": task_index,
        "occupation": task["occupation"],
        "participant": task["participant"],
        "word": task["word"],
        "sentence": sentence,
        "pronoun_type": pronoun_type,
        "case": CASES[pronoun_type],
        "declared_pronoun": context.pronoun,
        "confuse_pronoun": context.confuse_pronoun or None,
        "pronoun_set": pronoun_set,
        "pronoun_group": GROUPS[pronoun_set],
        "answer": context.pronoun,
        "bls_pct_female": bls_pct_female,
        "pronoun_gender": stereotypes.majority_gender(bls_pct_female, tie=stereotypes.WINOGENDER_TIE),
        "candidate_stereotypes": [BINARY_GENDER.get(PRONOUN_SETS[options.index(word)]) for word in shown],
    }
