"""Every run the Space has made, on disk, and the leaderboard over them.

A run is a folder ``<root>/runs/<run id>/`` holding what ``run_outputs.write_outputs`` writes
(``results.json``, ``report.md``, ``summary.csv``, plots, instances, the manifest) plus ``explore.json``,
the cases of the Explore tab. ``write_outputs`` writes it under a hidden temporary name and moves it into
place in one step, so a reader (or a crash) never sees half a run; the leaderboard is read from the
finished folders, so there is no index file for two runs to race on.

A stored run that cannot be read (damaged, or not a whole run) takes no one's page down: the leaderboard
shows it as ``unreadable`` with the reason, logs its name once, and picking it says what is wrong.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import tempfile
import time
from pathlib import Path

import pandas as pd

from ..harness import run_outputs

log = logging.getLogger(__name__)
UNREADABLE = "unreadable"

DOWNLOADS = ("results.json", "report.md", "summary.csv")
INFO_COLUMNS = ("model", "benchmarks", "limit", "n_bootstrap", "date", "run")
_RUN_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{8}")


def score_column(row: dict) -> str:
    """The leaderboard column of one ``run_outputs.summary_rows`` row."""
    return f"{row['benchmark']}: {row['score']}"


def _write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, path)


class RunStore:
    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.runs = self.root / "runs"
        self.runs.mkdir(parents=True, exist_ok=True)
        self._logged: set[str] = set()  # unreadable runs already logged

    def save(self, result, explore_cases: dict) -> str:
        """Write a ``runner.RunResult`` and its Explore cases as a new run; returns the run id."""
        run_id = time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(4)
        explore = json.dumps(explore_cases, ensure_ascii=False)
        run_outputs.write_outputs(result, self.runs / run_id, extra={"explore.json": explore})
        return run_id

    def run_ids(self) -> list[str]:
        """Finished runs, newest first."""
        found = [
            path.name
            for path in self.runs.iterdir()
            if _RUN_ID.fullmatch(path.name) and (path / "results.json").is_file()
        ]
        return sorted(found, reverse=True)

    def folder(self, run_id: str) -> Path:
        """The folder of a finished run; the id is checked, since it comes from the page."""
        if (
            not isinstance(run_id, str)
            or not _RUN_ID.fullmatch(run_id)
            or not (self.runs / run_id / "results.json").is_file()
        ):
            raise ValueError(f"no run {run_id!r}; pick one from the leaderboard")
        return self.runs / run_id

    def results(self, run_id: str) -> dict:
        """The run's ``results.json`` (checked against its manifest); a ``ValueError`` naming the run when it cannot
        be read."""
        return run_outputs.read_results(self.folder(run_id), check="results")

    def explore_cases(self, run_id: str) -> dict:
        folder = self.folder(run_id)
        run_outputs.check_whole(folder, ("explore.json",))
        try:
            return json.loads((folder / "explore.json").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise ValueError(f"run {run_id} is unreadable: its explore.json cannot be read ({error})") from None

    def downloads(self, run_id: str) -> list[Path]:
        folder = self.folder(run_id)
        return [folder / name for name in DOWNLOADS]

    def plots(self, run_id: str) -> list[Path]:
        """The run's plots (``plots/*.png``, as ``report.md`` shows them), by name."""
        return sorted((self.folder(run_id) / "plots").glob("*.png"))

    def describe(self, run_id: str) -> str:
        """A run as the dropdowns show it: model, benchmarks, id (``unreadable`` for a run that cannot be read)."""
        results = self._readable(run_id)
        if results is None:
            return f"{UNREADABLE} · {run_id}"
        return f"{results['model']} · {', '.join(results['benchmarks'])} · {run_id}"

    def _readable(self, run_id: str) -> dict | None:
        """The run's results, or None (its name logged, once) where they cannot be read."""
        try:
            return self.results(run_id)
        except (OSError, ValueError) as error:
            if run_id not in self._logged:
                self._logged.add(run_id)
                log.warning("stored run %s is unreadable and shown as such: %s", run_id, error)
            return None

    def leaderboard(self, sort_by: str | None = None, descending: bool = True) -> pd.DataFrame:
        """One row per run: its settings and every headline score (a number column per score); a run that cannot
        be read is a row of its id and ``unreadable``."""
        rows = []
        for run_id in self.run_ids():
            results = self._readable(run_id)
            if results is None:
                rows.append({"run": run_id, "model": UNREADABLE, "date": _date(run_id)})
                continue
            settings = results["settings"]
            row = {
                "run": run_id,
                "model": results["model"],
                "benchmarks": ", ".join(results["benchmarks"]),
                "limit": "all" if settings["limit"] is None else str(settings["limit"]),
                "n_bootstrap": settings["n_bootstrap"],
                "date": _date(run_id),
            }
            for summary in run_outputs.summary_rows(results):
                row[score_column(summary)] = summary["value"]
            for name, outcome in results["benchmarks"].items():
                if outcome.get("parse_rate") is not None:  # runs stored before parse rates were reported have none
                    row[f"{name}: parse rate"] = outcome["parse_rate"]
                if outcome.get("position_rate") is not None:  # models shown no order of options have none
                    row[f"{name}: position rate"] = outcome["position_rate"]
            rows.append(row)
        scores = sorted({key for row in rows for key in row} - set(INFO_COLUMNS))
        frame = pd.DataFrame(rows, columns=[*INFO_COLUMNS[:-1], *scores, INFO_COLUMNS[-1]])
        if sort_by:
            if sort_by not in frame.columns:
                raise ValueError(f"cannot sort by {sort_by!r}; choose one of the leaderboard's columns")
            frame = frame.sort_values(sort_by, ascending=not descending, na_position="last", kind="stable")
        return frame.reset_index(drop=True)

    def leaderboard_csv(self) -> Path:
        path = self.root / "leaderboard.csv"
        _write_atomically(path, self.leaderboard().to_csv(index=False))
        return path


def _date(run_id: str) -> str:
    return f"{run_id[:4]}-{run_id[4:6]}-{run_id[6:8]} {run_id[9:11]}:{run_id[11:13]} UTC"
