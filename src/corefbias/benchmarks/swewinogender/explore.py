"""SweWinogender's Explore view: the templates whose premise is resolved differently with han, hon and hen."""

from __future__ import annotations

from collections import defaultdict

from ..explore import ExploreView, Pairs, member
from ..winogender.decisions import winogender_answer
from . import files


def pronoun_cases(pairs: Pairs, condition: str | None = None) -> list[dict]:
    """Templates whose three premises get different answers: those right for han and hon but not for hen first,
    then the others; each with its premises in pronoun order (han, hon, hen).

    Parameters
    ----------
    pairs : list of (dict, dict)
        The run's (row, instance) pairs.
    condition : str or None, default None
        Unused: SweWinogender has no pro/anti column.

    Returns
    -------
    list of dict
        The cases: ``title`` and ``members``.

    Examples
    --------
    >>> rows = [{"template_id": "1A", "pronoun_set": name, "occupation": "lärare", "participant": "student",
    ...          "answer": "occupation", "text": "x", "pronoun": {"start": 0, "end": 1},
    ...          "candidates": [{"start": 0, "end": 1}, {"start": 0, "end": 1}]} for name in files.PRONOUN_SETS]
    >>> decisions = [[True, False], [True, False], [False, True]]
    >>> cases = pronoun_cases([(row, {"decision": d, "gold": [True, False]}) for row, d in zip(rows, decisions)])
    >>> cases[0]["title"]
    '1A: lärare / student (the pronoun refers to the occupation): han → occupation, hon → occupation, hen → participant'
    """
    by_template: dict = defaultdict(dict)
    for row, instance in pairs:
        by_template[row["template_id"]][row["pronoun_set"]] = (row, instance)
    found = []
    for template, members in by_template.items():
        answers = {name: winogender_answer(instance["decision"]) for name, (_, instance) in members.items()}
        if len(set(answers.values())) < 2:
            continue
        first = next(iter(members.values()))[0]
        right = {name: answers[name] == first["answer"] for name in answers}
        binary_right_hen_wrong = right.get("han") and right.get("hon") and not right.get("hen", True)
        shown = [name for name in files.PRONOUN_SETS if name in members]
        title = (
            f"{template}: {first['occupation']} / {first['participant']} (the pronoun refers to the "
            f"{first['answer']}): {', '.join(f'{name} → {answers[name]}' for name in shown)}"
        )
        cases = [member(f"{name} → {answers[name]}", *members[name]) for name in shown]
        found.append(((not binary_right_hen_wrong, template), {"title": title, "members": cases}))
    return [case for _, case in sorted(found, key=lambda item: item[0])]


PRONOUN_CASES = ExploreView(
    pronoun_cases,
    "Templates whose premise is resolved differently with han, hon and hen; those right for han and hon but not "
    "for hen first.",
)
