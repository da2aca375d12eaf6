"""The Compare tab's paired comparison of stored runs: ``corefbias.harness.comparison`` on their folders."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd

from ..harness import comparison, comparison_report
from ..harness.number_format import format_number, format_p_value
from .settings import SpaceSettings
from .store import RunStore

N_RESAMPLES = 10_000
DIFFERENCE_HEADERS = ["A", "B", "benchmark", "score", "A value", "B value", "A − B", "95% CI", "p", "p (Holm)"]


def differences_frame(result: dict) -> pd.DataFrame:
    """One row per headline difference of every comparison; ``*`` follows the Holm-adjusted p."""
    rows = []
    for item in result["comparisons"]:
        for row in item["differences"]:
            difference = (
                "—"
                if row["difference"] is None
                else format_number(row["difference"]) + ("*" if row["significant"] else "")
            )
            rows.append(
                [
                    item["a"],
                    item["b"],
                    row["benchmark"],
                    row["score"],
                    format_number(row["value_a"]),
                    format_number(row["value_b"]),
                    difference,
                    f"[{format_number(row['ci_low'])}, {format_number(row['ci_high'])}]",
                    format_p_value(row["p_value"]),
                    format_p_value(row["p_holm"]),
                ]
            )
    return pd.DataFrame(rows, columns=DIFFERENCE_HEADERS)


def compare_stored(
    store: RunStore, settings: SpaceSettings, run_ids: list[str]
) -> tuple[str, pd.DataFrame, Path, list[Path]]:
    """Compare two or more stored runs: a note, the differences, the forest plot and the files to download."""
    run_ids = list(dict.fromkeys(run_ids or []))
    if len(run_ids) < 2:
        raise ValueError("pick at least two runs to compare")
    folders = [store.folder(run_id) for run_id in run_ids]  # checks each id
    result = comparison.compare_runs(
        folders, data_dir=settings.exports, mirror=settings.mirror, n_resamples=N_RESAMPLES
    )
    name = hashlib.sha256("\n".join(run_ids).encode()).hexdigest()[:16]
    written = comparison_report.write(result, store.root / "comparisons" / name)
    notes = sorted({note for item in result["comparisons"] for note in item["notes"]})
    note = (
        f"{len(result['comparisons'])} comparison(s) of {len(run_ids)} runs. A − B on the units both runs answered; "
        f"95% CI and p from a paired bootstrap drawing whole blocks of units ({N_RESAMPLES} resamples); "
        f"p (Holm): adjusted over each comparison's headlines, `*`: adjusted p < {result['significance_level']}."
        + "".join(f" {text}." for text in notes)
    )
    return note, differences_frame(result), written["forest.png"], list(written.values())
