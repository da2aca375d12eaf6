"""What the fill-in sets (MISGENDERED, RUFF) share: a decision read as the word chosen for the blank, why
coreference clusters cannot answer them, and their Explore view by pronoun set.

Their rows are ``corefbias.data.fill_in`` rows: the candidates are the words a model may write in the blank,
so a decision linking exactly one candidate chose that word.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from .explore import ExploreView, Pairs, member

CLUSTERS_CANNOT_EXPRESS = (
    "it asks which pronoun a model writes for a person who declared theirs, and its candidates are the words "
    "offered for a blank, listed after the text; a coreference system resolves the pronouns a text has and "
    "writes none, so its clusters over such a text answer nothing."
)
# Pronoun sets whose answers the Explore view sets the others against.
BINARY_SETS = ("he", "she")
# What a decision that chose no single word answers, for measures that compare answers as words (never an option).
NO_WORD = "(no word)"


def chosen_word(decision: Sequence[bool], candidates: Sequence[dict]) -> str | None:
    """The word a decision chose: the one candidate it links, else None (none, or several: no single word).

    Examples
    --------
    >>> options = [{"text": "he"}, {"text": "xe"}]
    >>> chosen_word([False, True], options), chosen_word([True, True], options), chosen_word([False, False], options)
    ('xe', None, None)
    """
    linked = [candidate["text"] for candidate, link in zip(candidates, decision) if link]
    return linked[0] if len(linked) == 1 else None


def chosen_words(columns: dict, decisions: list) -> list[str | None]:
    """The word each instance's decision chose, for a part's rows given as columns."""
    return [chosen_word(decision, candidates) for decision, candidates in zip(decisions, columns["candidates"])]


def answers(words: list[str | None]) -> list[str]:
    """The chosen words as answers compared with the declared word: ``NO_WORD`` where none was chosen (wrong).

    Examples
    --------
    >>> answers(["xe", None])
    ['xe', '(no word)']
    """
    return [NO_WORD if word is None else word for word in words]


def pronoun_set_cases(pairs: Pairs, unit: str) -> list[dict]:
    """Units (one sentence with every declared pronoun set) whose pronoun sets are not all answered alike, those
    where the binary sets are right and another set wrong first; each with its instances in set order."""
    by_unit: dict = defaultdict(list)
    for row, instance in pairs:
        by_unit[row[unit]].append((row, instance))
    found = []
    for unit_id, members in by_unit.items():
        right = {row["pronoun_set"]: instance["decision"] == instance["gold"] for row, instance in members}
        if len(set(right.values())) < 2:
            continue
        binary_right = all(right.get(name, True) for name in BINARY_SETS)
        wrong = sorted(name for name, correct in right.items() if not correct)
        shown = []
        for row, instance in members:
            word = chosen_word(instance["decision"], row["candidates"])
            label = f"{row['pronoun_set']} declared → {word if word is not None else 'no word'}"
            shown.append(member(label, row, instance))
        title = f"{unit_id} ({members[0][0].get('form') or members[0][0].get('case')}): wrong for {', '.join(wrong)}"
        found.append((not binary_right, -len(wrong), str(unit_id), {"title": title, "members": shown}))
    return [case for *_, case in sorted(found, key=lambda item: item[:3])]


def pronoun_set_view(unit: str) -> ExploreView:
    """The Explore view of a fill-in set whose unit column is ``unit``."""
    return ExploreView(
        lambda pairs, condition: pronoun_set_cases(pairs, unit),
        "Sentences whose declared pronoun sets the model does not all answer alike, by pronoun set: those it gets "
        "right for he and she but wrong for another set first, most sets wrong first.",
    )
