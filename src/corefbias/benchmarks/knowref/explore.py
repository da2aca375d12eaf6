"""KnowRef's Explore view: the original sentences a model resolved wrongly, female and male in turn.

KnowRef has no gender-swapped pairs, so the view cannot show one sentence read two ways (but for the one original
sentence with a *he* and a *she* row, shown first). It shows the errors behind the two accuracies side by side: each
case is one original sentence (a block: its rows, two where upstream made two of it) holding a wrongly resolved
pronoun, taken from the female and the male sentences in turn, in upstream order.
"""

from __future__ import annotations

from itertools import chain, zip_longest

from ..explore import ExploreView, Pairs, member
from .design import BLOCKS, COMPARED_GENDER, REFERENCE_GENDER

GENDERS = (REFERENCE_GENDER, COMPARED_GENDER)


def _answer_text(row: dict, linked: list[bool]) -> str:
    names = [candidate["text"] for candidate, is_linked in zip(row["candidates"], linked) if is_linked]
    return " and ".join(names) or "nobody"


def error_cases(pairs: Pairs, condition: str | None = None) -> list[dict]:
    """The blocks holding a wrongly resolved gendered row: those with both genders first, then female and male blocks
    alternately, each with all its rows.

    Parameters
    ----------
    pairs : list of (dict, dict)
        The run's (row, instance) pairs.
    condition : str or None
        Unused: KnowRef has no pro/anti column.

    Returns
    -------
    list of dict

    Examples
    --------
    >>> def pair(index, gender, decision):
    ...     row = {"id": f"test-{index}", "text": "Ann met Bo , but she left .", "pronoun_gender": gender,
    ...            "pronoun": {"text": "she", "start": 17, "end": 20}, "original_id": index,
    ...            "original_sentence": f"s{index}",
    ...            "candidates": [{"text": "Ann", "start": 0, "end": 3}, {"text": "Bo", "start": 8, "end": 10}]}
    ...     return row, {"decision": decision, "gold": [False, True]}
    >>> cases = error_cases([pair(0, "male", [True, False]), pair(1, "male", [True, False]),
    ...                      pair(2, "female", [False, True]), pair(3, "female", [True, True])])
    >>> [case["title"] for case in cases]  # doctest: +NORMALIZE_WHITESPACE
    ['female (test-3): she → Ann and Bo, not Bo', 'male (test-0): she → Ann, not Bo',
     'male (test-1): she → Ann, not Bo']
    """
    columns = {column: [row[column] for row, _ in pairs] for column in BLOCKS.columns}
    blocks: dict = {}
    for block, (row, instance) in zip(BLOCKS.ids(columns), pairs):
        blocks.setdefault(block, []).append((row, instance))
    by_side: dict = {"both": [], **{gender: [] for gender in GENDERS}}
    for members in blocks.values():
        wrong = [
            (row, instance)
            for row, instance in members
            if row["pronoun_gender"] in GENDERS and instance["decision"] != instance["gold"]
        ]
        if not wrong:
            continue
        genders = {row["pronoun_gender"] for row, _ in members} & set(GENDERS)
        side = "both" if len(genders) == 2 else genders.pop()
        row, instance = wrong[0]
        title = (
            f"{row['pronoun_gender']} ({row['id']}): {row['pronoun']['text']} → "
            f"{_answer_text(row, instance['decision'])}, not {_answer_text(row, instance['gold'])}"
        )
        shown = [member(f"{row['pronoun_gender']} ({row['id']})", row, instance) for row, instance in members]
        by_side[side].append({"title": title, "members": shown})
    alternating = chain.from_iterable(zip_longest(*(by_side[gender] for gender in GENDERS)))
    return [*by_side["both"], *(case for case in alternating if case is not None)]


ERRORS = ExploreView(
    error_cases,
    "Original sentences with a wrongly resolved pronoun, female and male in turn (the one sentence with both a he and "
    "a she row first), each with all the rows made from it.",
)
