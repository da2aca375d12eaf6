"""The instances behind a score: the units whose outcome changes with gender, shown like Table 7
of the Counter-GAP paper (the model's links highlighted, the pronoun bold and underlined, the gold
antecedent underlined).

Each benchmark declares its view (``Benchmark.explore``):

* ``quadruples`` (Counter-GAP): quadruples whose correctness differs across genders (per-quadruple
  I_across > 0), most gender-driven first (by the quadruple's own ΔI, from the core's per-quadruple rows);
* ``minimal_pairs`` (Winogender): minimal pairs whose female and male sentences are resolved differently;
* ``pro_anti_pairs`` (every pro/anti set): pairs where one version is resolved correctly and the other is
  not, stereotype-following errors (pro right, anti wrong) first; the pro/anti column is the declaration's
  ``condition_column``.

A *case* is plain JSON (stored with the run): a title and its member instances, each with its
text, pronoun span and candidate spans marked gold / linked. ``render`` turns cases into HTML,
escaping every text.
"""

from __future__ import annotations

import html
import re
from collections import defaultdict

import numpy as np

from ..harness.benchmarks import rows_of
from ..harness.benchmarks.winogender import winogender_answer
from ..measures import counter_gap, validation, winogender


def _rows_with_instances(run) -> list[tuple[dict, dict]]:
    """(data row, runner instance) pairs, in the runner's order (parts, then rows)."""
    rows = [row for columns in run.parts.values() for row in rows_of(columns)]
    return list(zip(rows, run.instances, strict=True))


def _member(label: str, row: dict, instance: dict) -> dict:
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


def counter_gap_cases(run) -> list[dict]:
    pairs = _rows_with_instances(run)
    rows = [row for row, _ in pairs]
    order, table = validation.unit_table(
        [row["quadruple_id"] for row in rows],
        [row["role"] for row in rows],
        counter_gap.ROLES,
        unit="quadruple",
        member="instance",
        ids_name="quadruple_ids",
    )
    correct = np.asarray([instance["decision"] == instance["gold"] for _, instance in pairs])
    original_male = np.asarray([rows[index]["gender"] == "male" for index in table[:, 0]])
    per_quadruple = counter_gap.statistic(counter_gap.quadruple_rows(correct, table, original_male))
    shown = sorted(np.flatnonzero(per_quadruple["i_across"] > 0), key=lambda q: (-per_quadruple["delta_i"][q], q))
    cases = []
    for q in shown:
        title = (
            f"quadruple {order[q]}: I_across {per_quadruple['i_across'][q]:.2f}, "
            f"I_within {per_quadruple['i_within'][q]:.2f}, ΔI {per_quadruple['delta_i'][q]:+.2f}"
        )
        members = []
        for role, index in zip(counter_gap.ROLES, table[q]):
            row, instance = pairs[index]
            members.append(_member(f"{role.replace('_', ' ')} ({row['gender']})", row, instance))
        cases.append({"title": title, "members": members})
    return cases


def winogender_cases(run) -> list[dict]:
    by_pair: dict = defaultdict(dict)
    for row, instance in _rows_with_instances(run):
        by_pair[row["pair_id"]][row["gender"]] = (row, instance)
    cases = []
    for pair_id, members in by_pair.items():
        answers = {gender: winogender_answer(instance["decision"]) for gender, (_, instance) in members.items()}
        if not winogender.resolved_differently(answers.get("female"), answers.get("male")):
            continue
        first = next(iter(members.values()))[0]
        title = (
            f"{first['occupation']} / {first['participant']} ({pair_id}; {first['bls_pct_female']:.0f}% of "
            f"{first['occupation']}s are women, BLS): female → {answers['female']}, male → {answers['male']}"
        )
        shown = [
            _member(f"{gender} pronoun → {answers[gender]}", *members[gender])
            for gender in winogender.GENDERS
            if gender in members
        ]
        cases.append({"title": title, "members": shown})
    return cases


def pro_anti_cases(run) -> list[dict]:
    condition = run.benchmark.condition_column
    by_pair: dict = defaultdict(list)
    for row, instance in _rows_with_instances(run):
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
                    "members": [_member(f"{row[condition]} ({row['id']})", row, instance) for row, instance in members],
                },
            )
        )
    return [case for _, case in sorted(found, key=lambda item: item[0])]


# Explore view (``Benchmark.explore``) → how its cases are found, and what the page says of them.
VIEWS = {
    "quadruples": (
        counter_gap_cases,
        "Quadruples whose correctness changes across genders, most gender-driven first (the quadruple's own ΔI).",
    ),
    "minimal_pairs": (winogender_cases, "Minimal pairs whose female and male sentences are resolved differently."),
    "pro_anti_pairs": (
        pro_anti_cases,
        "Pro/anti pairs resolved correctly in one version only; pro right and anti wrong first.",
    ),
}


def cases(result, max_cases: int = 200) -> dict[str, dict]:
    """Per explorable benchmark of a ``runner.RunResult``: ``{"total", "explained", "cases"}``, at most
    ``max_cases`` cases each."""
    found = {}
    for name, run in result.runs.items():
        if run.benchmark.explore is not None and run.sections:
            find, explained = VIEWS[run.benchmark.explore]
            every = find(run)
            found[name] = {"total": len(every), "explained": explained, "cases": every[:max_cases]}
    return found


def _highlighted(member: dict) -> str:
    """The text with the pronoun in bold and underlined, the gold antecedent underlined, linked candidates marked."""
    spans = [(member["pronoun"][0], member["pronoun"][1], None)]
    spans += [(candidate["start"], candidate["end"], candidate) for candidate in member["candidates"]]
    text, pieces, cursor = member["text"], [], 0
    for start, end, candidate in sorted(spans, key=lambda span: span[:2]):
        if start < cursor:  # overlapping spans: keep the first
            continue
        pieces.append(html.escape(text[cursor:start]))
        inner = html.escape(text[start:end])
        if candidate is None:
            pieces.append(f'<b class="pronoun"><u>{inner}</u></b>')
        else:
            inner = f"<u>{inner}</u>" if candidate["gold"] else inner
            pieces.append(
                f'<mark class="linked">{inner}</mark>'
                if candidate["linked"]
                else f'<span class="candidate">{inner}</span>'
            )
        cursor = end
    pieces.append(html.escape(text[cursor:]))
    return "".join(pieces)


_VERDICT = {True: '<span class="correct">✓ correct</span>', False: '<span class="incorrect">✗ incorrect</span>'}
LEGEND = (
    '<p class="legend"><mark class="linked">highlighted</mark>: linked to the pronoun by the model · '
    "<b><u>pronoun</u></b> · <u>gold antecedent</u> · ✓/✗: resolved to the gold antecedent and nothing else</p>"
)


def render(cases: list[dict]) -> str:
    parts = [LEGEND]
    for case in cases:
        rows = "".join(
            f'<tr><td class="role">{html.escape(member["label"])}<br>{_VERDICT[member["correct"]]}</td>'
            f'<td class="text">{_highlighted(member)}</td></tr>'
            for member in case["members"]
        )
        parts.append(f'<div class="case"><h4>{html.escape(case["title"])}</h4><table>{rows}</table></div>')
    return "\n".join(parts)
