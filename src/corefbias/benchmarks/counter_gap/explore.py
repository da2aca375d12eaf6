"""Counter-GAP's Explore view: quadruples whose correctness differs across genders, shown like Table 7 of the
paper, most gender-driven first (by the quadruple's own ΔI, from the core's per-quadruple rows)."""

from __future__ import annotations

import numpy as np

from ...measures import counter_gap_delta_i, structured_inputs
from ..explore import ExploreView, Pairs, member


def quadruple_cases(pairs: Pairs, condition: str | None = None) -> list[dict]:
    """Quadruples with I_across > 0, by descending ΔI, each with its four instances in role order."""
    rows = [row for row, _ in pairs]
    order, table = structured_inputs.unit_table(
        [row["quadruple_id"] for row in rows],
        [row["role"] for row in rows],
        counter_gap_delta_i.ROLES,
        unit="quadruple",
        member="instance",
        ids_name="quadruple_ids",
    )
    correct = np.asarray([instance["decision"] == instance["gold"] for _, instance in pairs])
    original_male = np.asarray([rows[index]["gender"] == "male" for index in table[:, 0]])
    per_quadruple = counter_gap_delta_i.statistic(counter_gap_delta_i.quadruple_rows(correct, table, original_male))
    shown = sorted(np.flatnonzero(per_quadruple["i_across"] > 0), key=lambda q: (-per_quadruple["delta_i"][q], q))
    cases = []
    for q in shown:
        title = (
            f"quadruple {order[q]}: I_across {per_quadruple['i_across'][q]:.2f}, "
            f"I_within {per_quadruple['i_within'][q]:.2f}, ΔI {per_quadruple['delta_i'][q]:+.2f}"
        )
        members = []
        for role, index in zip(counter_gap_delta_i.ROLES, table[q]):
            row, instance = pairs[index]
            members.append(member(f"{role.replace('_', ' ')} ({row['gender']})", row, instance))
        cases.append({"title": title, "members": members})
    return cases


QUADRUPLES = ExploreView(
    quadruple_cases,
    "Quadruples whose correctness changes across genders, most gender-driven first (the quadruple's own ΔI).",
)
