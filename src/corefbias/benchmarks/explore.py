"""What the Space's Explore tab shows behind a benchmark's score: the units whose outcome changes with gender.

A benchmark declares its view (``Benchmark.explore``): an :class:`ExploreView`, which finds the *cases* in a
run's (row, instance) pairs. A case is plain JSON, stored with the run: a title and its member instances, each
with its text, pronoun span and candidate spans marked gold / linked (``member``). The views several sets share
are here (``PRO_ANTI_PAIRS``); a set's own view lives in its folder (``<set>/explore.py``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

# (data row, runner instance) pairs, in the runner's order; the benchmark's declaration.
Pairs = list[tuple[dict, dict]]


@dataclass(frozen=True)
class ExploreView:
    """How the instances behind a benchmark's score are found and what the page says of them.

    Parameters
    ----------
    find : callable
        ``find(pairs, condition_column)`` returns the cases, most telling first, from the run's
        ``(row, instance)`` pairs; ``condition_column`` is the declaration's (None for sets without one).
    explained : str
        One sentence saying which cases are shown, in what order.
    needs_condition : bool, default False
        Whether ``find`` reads the pro/anti column (the declaration must then name one).

    Examples
    --------
    >>> every = ExploreView(lambda pairs, condition: [{"title": str(len(pairs)), "members": []}], "Everything.")
    >>> every.find([], None)
    [{'title': '0', 'members': []}]
    """

    find: Callable[[Pairs, str | None], list[dict]]
    explained: str
    needs_condition: bool = False


def member(label: str, row: dict, instance: dict) -> dict:
    """One instance of a case: its label, whether it was resolved right, its text and marked spans.

    Parameters
    ----------
    label : str
        What the case calls the instance.
    row : dict
        Its data row (``text``, ``pronoun``, ``candidates``).
    instance : dict
        The run's instance (``decision``, ``gold``).

    Returns
    -------
    dict
        ``label``, ``correct``, ``text``, ``pronoun`` and ``candidates`` (each marked ``gold`` and ``linked``).

    Examples
    --------
    >>> row = {"text": "Ann met Bo; she left.", "pronoun": {"start": 12, "end": 15},
    ...        "candidates": [{"start": 0, "end": 3}, {"start": 8, "end": 10}]}
    >>> member("female", row, {"decision": [True, False], "gold": [True, False]})["correct"]
    True
    """
    return {
        "label": label,
        "correct": instance["decision"] == instance["gold"],
        "text": row["text"],
        "pronoun": [row["pronoun"]["start"], row["pronoun"]["end"]],
        "candidates": [
            {"start": candidate["start"], "end": candidate["end"], "gold": gold, "linked": linked}
            for candidate, gold, linked in zip(row["candidates"], instance["gold"], instance["decision"])
        ],
    }


def pro_anti_cases(pairs: Pairs, condition: str | None) -> list[dict]:
    """Pro/anti pairs resolved correctly in one version only, stereotype-following errors (pro right) first.

    Parameters
    ----------
    pairs : list of (dict, dict)
        The run's (data row, instance) pairs; rows hold ``pair_id`` and the condition column.
    condition : str or None
        The column holding ``pro`` or ``anti``.

    Returns
    -------
    list of dict
        The cases: a title and their members (:func:`member`).

    Examples
    --------
    >>> row = {"text": "A met B; she left.", "pronoun": {"start": 9, "end": 12}, "pair_id": "p1",
    ...        "candidates": [{"start": 0, "end": 1}, {"start": 6, "end": 7}], "pronoun_gender": "female"}
    >>> right = {"decision": [True, False], "gold": [True, False]}
    >>> wrong = {"decision": [True, False], "gold": [False, True]}
    >>> pairs = [({**row, "c": "pro", "id": "1"}, {"config": "pro", **right}),
    ...          ({**row, "c": "anti", "id": "2"}, {"config": "anti", **wrong})]
    >>> [case["title"] for case in pro_anti_cases(pairs, "c")]
    ['pair p1 (female pronoun): pro ✓, anti ✗']
    """
    by_pair: dict = defaultdict(list)
    for row, instance in pairs:
        # WinoBias keeps pro and anti in configs type1_pro / type1_anti: pair ids are unique per type.
        family = re.sub(r"_?(pro|anti)$", "", instance["config"])
        by_pair[family, row["pair_id"]].append((row, instance))
    found = []
    for (_, pair_id), members in by_pair.items():
        correct = {row[condition]: instance["decision"] == instance["gold"] for row, instance in members}
        if len(correct) != 2 or correct["pro"] == correct["anti"]:
            continue
        gender = members[0][0].get("pronoun_gender")
        verdict = "pro ✓, anti ✗" if correct["pro"] else "pro ✗, anti ✓"
        found.append(
            (
                not correct["pro"],
                {
                    "title": f"pair {pair_id} ({gender} pronoun): {verdict}",
                    "members": [member(f"{row[condition]} ({row['id']})", row, instance) for row, instance in members],
                },
            )
        )
    return [case for _, case in sorted(found, key=lambda item: item[0])]


PRO_ANTI_PAIRS = ExploreView(
    pro_anti_cases,
    "Pro/anti pairs resolved correctly in one version only; pro right and anti wrong first.",
    needs_condition=True,
)
