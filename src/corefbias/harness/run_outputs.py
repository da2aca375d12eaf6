"""What a run leaves on disk: ``results.json``, ``report.md``, ``summary.csv``, the instances, the plots.

``summary_rows`` is the one table of headline scores (value, 95% CI, p-value, significance mark,
the benchmark's parse rate and its ``low_parse_rate`` flag, its option-position rate and its
``position_bias`` flag) that the report, the CSV, the Space and the leaderboard all show.

**A run folder is written as one unit** (``write_outputs``): every file goes into a temporary folder beside
the destination, ``manifest.json`` last (each file's sha256 and size), and that folder then takes the
destination's place in one step (Linux's ``renameat2`` exchange; elsewhere two renames under the lock), under
a lock on the destination's parent folder. A full disk or a crash leaves the previous run or the new one,
never a mix of both, and a failed write leaves no temporary folder; two processes writing one folder at
once leave one of their runs whole. Readers (``compare``, the Space) check a folder against its
manifest (``check_whole``, ``read_results``) and name a folder that is not a whole run as such.
"""

from __future__ import annotations

import contextlib
import csv
import ctypes
import errno
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from ..benchmarks import BENCHMARKS
from ..data.upstream import file_sha256
from ..measures.resampling import SIGNIFICANCE_LEVEL
from ..measures.result import Cell, Estimate, MeasureResult
from .cluster_links import DEFAULT_MODE
from .number_format import format_number, format_p_value
from .parse_rates import PARSE_RATE_THRESHOLD
from .position_rates import POSITION_RATE_THRESHOLD, position_letter
from .result_versions import upgrade
from .runner import to_json

SUMMARY_COLUMNS = (
    "benchmark",
    "score",
    "value",
    "ci_low",
    "ci_high",
    "p_value",
    "significant",
    "unbiased_value",
    "n_blocks",
    "blocks",
    "parse_rate",
    "low_parse_rate",
    "position_rate",
    "top_position",
    "position_bias",
)
# The columns a --prompts run adds: each headline across the prompts (``corefbias.harness.prompt_sets``).
PROMPT_COLUMNS = (
    "num_prompts",
    "prompt_min",
    "prompt_max",
    "prompt_mean",
    "prompt_ci_low",
    "prompt_ci_high",
    "prompt_sign_flip",
)
SIGN_FLIP_MARK = "±"
ESTIMATE_COLUMNS = ("value", "ci_low", "ci_high", "p_value", "significant")  # a headline's Estimate's fields
LOW_PARSE_MARK = "†"
POSITION_BIAS_MARK = "‡"


def summary_rows(results: Mapping) -> list[dict]:
    """One row per headline score of every benchmark in ``results`` (``runner.RunResult.record``, or a file read
    with ``result_versions.upgrade``).

    Examples
    --------
    >>> from corefbias.harness.result_versions import upgrade
    >>> headline = {"section": "s", "key": "diff", "label": "pro − anti", "value": 0.25, "ci_low": 0.1, "ci_high": 0.4,
    ...             "p_value": 0.01, "significant": True, "unbiased_value": 0.0, "undefined": None}
    >>> outcome = {"parse_rate": 1.0, "low_parse_rate": False, "headlines": [headline], "sections": {}}
    >>> (row,) = summary_rows(upgrade({"schema_version": 2, "benchmarks": {"my_pro_anti": outcome}}))
    >>> row["score"], row["value"], row["significant"], row["position_rate"], row["n_blocks"]
    ('pro − anti', 0.25, True, None, None)
    """
    rows = []
    for name, outcome in results["benchmarks"].items():
        resampling = outcome.get("resampling")
        spreads = {
            (spread["section"], spread["key"]): spread for spread in (outcome.get("prompts") or {}).get("headlines", [])
        }
        for headline in outcome["headlines"]:
            estimate = headline.estimate  # n_blocks: None in files before schema version 5, which drew units
            spread = spreads.get((headline.section, estimate.key))
            rows.append(
                {
                    "benchmark": name,
                    "score": headline.label,
                    **{field: getattr(estimate, field) for field in ESTIMATE_COLUMNS},
                    "unbiased_value": estimate.unbiased,
                    "n_blocks": estimate.n_blocks,
                    "blocks": None if resampling is None else " × ".join(resampling["blocks"]),
                    "parse_rate": outcome.get("parse_rate"),
                    "low_parse_rate": outcome.get("low_parse_rate", False),
                    # Runs written before position rates were reported have none.
                    "position_rate": outcome.get("position_rate"),
                    "top_position": outcome.get("top_position"),
                    "position_bias": outcome.get("position_bias", False),
                    "undefined": estimate.undefined,
                    # Across the prompts of a --prompts run only (PROMPT_COLUMNS).
                    **({} if spread is None else _across_prompts(spread)),
                }
            )
    return rows


def _across_prompts(spread: Mapping) -> dict:
    fields = ("min", "max", "mean", "ci_low", "ci_high", "sign_flip")
    return {"num_prompts": len(spread["values"]), **{f"prompt_{field}": spread[field] for field in fields}}


def summary_columns(rows: list[dict]) -> list[str]:
    """The columns of ``summary.csv``: ``SUMMARY_COLUMNS``, ``PROMPT_COLUMNS`` where a row has them, ``undefined``."""
    prompts = any("num_prompts" in row for row in rows)
    return [*SUMMARY_COLUMNS, *(PROMPT_COLUMNS if prompts else ()), "undefined"]


def format_spread(row: dict) -> str:
    """A summary row's spread across prompts as tables show it: ``[min, max]``, ± where the bias changes sign, or —.

    Examples
    --------
    >>> format_spread({"prompt_min": -0.25, "prompt_max": 0.5, "prompt_sign_flip": True})
    '[-0.250, 0.500]±'
    >>> format_spread({"prompt_min": None, "prompt_max": None, "prompt_sign_flip": None})
    '—'
    """
    if row.get("prompt_min") is None:
        return "—"
    flip = SIGN_FLIP_MARK if row.get("prompt_sign_flip") else ""
    return f"[{format_number(row['prompt_min'])}, {format_number(row['prompt_max'])}]{flip}"


def prompt_spread_lines(benchmark: str, prompts: Mapping | None) -> list[str]:
    """The terminal's lines of a benchmark's ``prompts`` (``results.json``): per headline its value per prompt, the
    spread, the mean with its prompt-and-instance CI, and whether the bias changes sign; none without prompts."""
    if not prompts:
        return []
    lines = [f"{benchmark} across {len(prompts['names'])} prompts ({', '.join(prompts['names'])}):"]
    for spread in prompts["headlines"]:
        values = ", ".join(f"{name} {format_number(value)}" for name, value in spread["values"].items())
        interval = (
            f"[{format_number(spread['ci_low'])}, {format_number(spread['ci_high'])}] (prompt-and-instance 95% CI)"
            if spread["ci_low"] is not None
            else f"(no CI: {spread['undefined'].get('mean_ci_low', 'undefined')})"
        )
        flip = f" {SIGN_FLIP_MARK} the sign flips across prompts" if spread["sign_flip"] else ""
        lines.append(
            f"  {spread['label']}: {values}; spread {format_number(spread['min'])}–{format_number(spread['max'])}; "
            f"mean {format_number(spread['mean'])} {interval}{flip}"
        )
    return lines


def format_blocks(row: dict) -> str:
    """What a summary row's interval rests on, as tables show it: how many blocks, of what ("60 occupation"), or —.

    Examples
    --------
    >>> format_blocks({"n_blocks": 60, "blocks": "occupation"}), format_blocks({"n_blocks": None, "blocks": None})
    ('60 occupation', '—')
    """
    if row.get("n_blocks") is None:
        return "—"
    return f"{row['n_blocks']} {row['blocks']}" if row.get("blocks") else str(row["n_blocks"])


def resampling_sentence(outcome: Mapping) -> str:
    """How a benchmark's significance resampled, in words, for its part of the report (empty for a file before
    schema version 5).

    Examples
    --------
    >>> resampling_sentence({"resampling": {"unit": "pair_id", "blocks": ["occupation"], "block_columns":
    ...     ["occupation"], "sections": {"winogender": {"units": 240, "blocks": [60]}}}})
    'Intervals and p-values draw whole blocks (occupation) of units (`pair_id`): winogender 240 units in 60 blocks.'
    """
    resampling = outcome.get("resampling")
    if not resampling:
        return ""
    drawn = "; ".join(
        f"{section} {counts['units']} units in {' × '.join(map(str, counts['blocks']))} blocks"
        for section, counts in resampling["sections"].items()
    )
    return (
        f"Intervals and p-values draw whole blocks ({' × '.join(resampling['blocks'])}) of units "
        f"(`{resampling['unit']}`): {drawn or 'no section resamples'}."
    )


def flag_marks(row: dict) -> str:
    """The marks of a summary row's benchmark-wide flags: † a low parse rate, ‡ answers following the option order."""
    return (LOW_PARSE_MARK if row["low_parse_rate"] else "") + (POSITION_BIAS_MARK if row["position_bias"] else "")


def format_position(rate: float | None, top_position: int | None) -> str:
    """A position rate as tables show it: the rate and its position's letter ("0.967 A"), or — for none."""
    return "—" if rate is None else f"{format_number(rate)} {position_letter(top_position)}"


def _mark(row: dict) -> str:
    return ("*" if row["significant"] else "") + flag_marks(row)


# Scores measured per occupation that the report leaves out (60 rows each): Winogender's preference, which a figure
# draws, and each pronoun set's gap per occupation (``occupation_diff/<set>``), which results.json keeps.
PER_OCCUPATION_NOT_TABLED = ("preference", "occupation_diff/")


def _by_cell(section: MeasureResult) -> list[tuple[Cell, str, Estimate]]:
    """A section's scores as ``results.json`` lists them: overall, by group, by condition, by both, cell by cell."""
    order = {cell: index for index, cell in enumerate(dict.fromkeys(cell for cell, _, _ in section.estimates()))}
    kind = {cell: 2 * (cell.condition is not None) + (cell.group is not None) for cell in order}
    return sorted(section.estimates(), key=lambda entry: (kind[entry[0]], order[entry[0]]))


def _breakdown(section: MeasureResult) -> list[Estimate]:
    """Every score of a section, with its CI and p-value, but the per-group scores a figure shows instead."""
    return [
        estimate
        for cell, score, estimate in _by_cell(section)
        if not (cell.group is not None and cell.condition is None and score.startswith(PER_OCCUPATION_NOT_TABLED))
    ]


def _plain(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, list):
        return ", ".join(_plain(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


# The identity kind of ``corefbias score``'s files (``prediction_files.scoring.file_identity``).
PREDICTIONS_KIND = "predictions"


def provenance_paragraph(provenance: dict) -> str:
    """``results.json``'s provenance block as one paragraph of the report ("" for a result without one)."""
    if not provenance:
        return ""
    libraries = ", ".join(f"{name} {version}" for name, version in provenance["libraries"].items())
    model = provenance["model"]
    identity = ", ".join(f"{key} `{_plain(value)}`" for key, value in model["identity"].items())
    data = "; ".join(
        f"{name} on `{source['dataset']}` (upstream commit {source['source_commit'] or 'none pinned'}, "
        f"export sha256 `{source['fingerprint'][:16]}…`)"
        for name, source in provenance["datasets"].items()
    )
    settings = "; ".join(f"{key} {_plain(value)}" for key, value in provenance["settings"].items())
    scored_files = model["identity"].get("kind") == PREDICTIONS_KIND  # no model, no cache
    counts = "; ".join(
        f"{name} {count['from_cache']} read from the predictions files"
        if scored_files
        else f"{name} {count['predicted']} predicted, {count['from_cache']} from the cache"
        for name, count in provenance["instances"].items()
    )
    return (
        f"**Provenance.** corefbias {provenance['corefbias_version']} on Python {provenance['python']} ({libraries}). "
        f"Model `{model['spec']}`, identified as {identity} (cache key `{model['cache_key']}`). Data: {data}. "
        f"Settings: {settings}. Run from {provenance['started']} to {provenance['finished']} (UTC). "
        f"Instances: {counts}."
    )


def decision_modes(results: Mapping) -> str:
    """How the run's clusters became links, in words: its mode, and with ``default`` each benchmark's own (its
    declaration's ``decision_mode``).

    Parameters
    ----------
    results : mapping
        A ``results.json``: its ``settings.decision_mode`` and its benchmarks.

    Returns
    -------
    str

    Examples
    --------
    >>> decision_modes({"settings": {"decision_mode": "cluster"}, "benchmarks": {"winopron": {}}})
    '`cluster`'
    >>> decision_modes({"settings": {"decision_mode": "default"}, "benchmarks": dict.fromkeys(["gap", "winopron"])})
    "`default`, each benchmark's own: `first_mention` for winopron; `cluster` for the others"
    """
    mode = results["settings"]["decision_mode"]
    declared = {name: BENCHMARKS[name].decision_mode for name in results["benchmarks"] if name in BENCHMARKS}
    if mode != DEFAULT_MODE or not declared:
        return f"`{mode}`"
    by_mode: dict[str, list[str]] = {}
    for name, own in declared.items():
        by_mode.setdefault(own, []).append(name)
    common = max(by_mode, key=lambda own: len(by_mode[own]))
    others = [f"`{own}` for {', '.join(names)}" for own, names in by_mode.items() if own != common]
    if not others:
        return f"`{mode}`, each benchmark's own: `{common}`"
    return f"`{mode}`, each benchmark's own: {'; '.join(others)}; `{common}` for the others"


def markdown_report(results: dict, plots: dict[str, str]) -> str:
    """``report.md`` of ``results`` (``runner.RunResult.record``, or a file read with ``result_versions.upgrade``)."""
    rows = summary_rows(results)
    prompts = any("num_prompts" in row for row in rows)
    settings = results["settings"]
    scope = "all" if settings["limit"] is None else f"{settings['limit']} units per design cell (`--limit`)"
    lines = [
        f"# Gender-bias report: `{results['model']}`",
        "",
        f"corefbias {results['corefbias_version']}; bootstrap resamples: {settings['n_bootstrap']} (seed "
        f"{settings['seed']}); instances per benchmark: {scope}; "
        f"decision mode: {decision_modes(results)}. `*`: two-sided bootstrap p < {SIGNIFICANCE_LEVEL}. "
        "CIs are 95% percentile intervals, expanded for the blocks they rest on (blocks: how many templates, "
        "occupations or documents the bootstrap drew whole). Rates are fractions. parsed: the share of instances "
        f"whose answer could be read; {LOW_PARSE_MARK}: below {PARSE_RATE_THRESHOLD:.0%}, so the score rests on few "
        "real answers (unreadable ones count as no link). position: the share of the parsed answers given at the "
        f"most frequent option position, and that position's letter (— where the model was shown no order of options); "
        f"{POSITION_BIAS_MARK}: above {POSITION_RATE_THRESHOLD:.0%}, so most answers follow the option order, not "
        "the text, and scores comparing variants shown the same order say nothing of the model's bias.",
        "",
        *([provenance_paragraph(results["provenance"]), ""] if results.get("provenance") else []),
        "## Summary",
        "",
        "| benchmark | score | value | 95% CI | p | unbiased | blocks | parsed | position |"
        + (" across prompts |" if prompts else ""),
        "|---|---|---|---|---|---|---|---|---|" + ("---|" if prompts else ""),
    ]
    for row in rows:
        value = format_number(row["value"]) + _mark(row) if row["value"] is not None else f"— ({row['undefined']})"
        lines.append(
            f"| {row['benchmark']} | {row['score']} | {value} | [{format_number(row['ci_low'])}, "
            f"{format_number(row['ci_high'])}] "
            f"| {format_p_value(row['p_value'])} | {format_number(row['unbiased_value'])} | {format_blocks(row)} "
            f"| {format_number(row['parse_rate'])}{LOW_PARSE_MARK if row['low_parse_rate'] else ''} "
            f"| {format_position(row['position_rate'], row['top_position'])}"
            f"{POSITION_BIAS_MARK if row['position_bias'] else ''} |" + (f" {format_spread(row)} |" if prompts else "")
        )
    for name, outcome in results["benchmarks"].items():
        lines += [
            "",
            f"## {name}",
            "",
            outcome["description"]
            + f" (metric modules: {', '.join(f'`{name}`' for name in outcome['metric_modules'])}).",
            "",
        ]
        low = f" {LOW_PARSE_MARK}" if outcome.get("low_parse_rate") else ""
        lines.append(
            f"{outcome['num_instances']} instances; {outcome['num_unparsed']} unparseable answers (counted as no link; "
            f"parse rate {format_number(outcome.get('parse_rate'))}{low}); "
            f"model time {outcome['model_seconds']:.1f} s of {outcome['wall_seconds']:.1f} s."
        )
        if resampling_sentence(outcome):
            lines.append(f"\n{resampling_sentence(outcome)}")
        if outcome.get("position_note"):
            rate = outcome.get("position_rate")
            flagged = f" {POSITION_BIAS_MARK}" if outcome.get("position_bias") else ""
            note = outcome["position_note"]
            lines.append(
                f"\n{note[:1].upper()}{note[1:]}"
                + ("" if rate is None else f" (position rate {format_number(rate)}{flagged})")
                + "."
            )
        lines += _prompt_table(outcome.get("prompts"))
        for section_name, section in outcome["sections"].items():
            lines += _section_table(section_name, section)
        for prompt, section_name, section in _sections_of_other_prompts(outcome):
            lines += _section_table(f"{section_name} (prompt `{prompt}` only)", section)
    if plots:
        lines += ["", "## Plots"]
        lines += [line for plot_name, path in plots.items() for line in ("", f"![{plot_name}]({path})")]
    return "\n".join(lines) + "\n"


def _section_table(title: str, section: MeasureResult) -> list[str]:
    """A section's scores with CI and p, and why each undefined one is."""
    lines = ["", f"### {title}", "", "| score | value | 95% CI | p |", "|---|---|---|---|"]
    for estimate in _breakdown(section):
        lines.append(
            f"| {estimate.key} | {format_number(estimate.value)} | [{format_number(estimate.ci_low)}, "
            f"{format_number(estimate.ci_high)}] | {format_p_value(estimate.p_value)} |"
        )
    for _, _, estimate in _by_cell(section):
        if estimate.value is None and estimate.undefined is not None:
            lines.append(f"\n`{estimate.key}` is undefined: {estimate.undefined}.")
    return lines


def _sections_of_other_prompts(outcome: Mapping) -> list[tuple[str, str, MeasureResult]]:
    """(prompt, section name, section) of the sections only a later prompt of a --prompts run has (a prompt with a
    "don't know" option scores ``dont_know``), which the benchmark's own sections, the first prompt's, lack."""
    prompts = outcome.get("prompts") or {}
    return [
        (prompt, name, section)
        for prompt, run in (prompts.get("per_prompt") or {}).items()
        for name, section in run["sections"].items()
        if name not in outcome["sections"]
    ]


def _prompt_table(prompts: Mapping | None) -> list[str]:
    """The report's table of a benchmark's headlines per prompt, with spread, mean, CI and sign flips."""
    if not prompts:
        return []
    names = prompts["names"]
    lines = [
        "",
        f"Across {len(names)} prompts (the scores above are those of `{names[0]}`; each prompt's template, parse rate "
        f"and position rate are in results.json under `prompts`). Mean: over the prompts, with a 95% two-level "
        f"bootstrap CI that resamples the prompts and the units; {SIGN_FLIP_MARK}: the prompts put the bias on both "
        "sides of its unbiased value.",
        "",
        "| score | " + " | ".join(f"`{name}`" for name in names) + " | min–max | mean [95% CI] | p |",
        "|---|" + "---|" * len(names) + "---|---|---|",
    ]
    for spread in prompts["headlines"]:
        values = " | ".join(format_number(spread["values"][name]) for name in names)
        lines.append(
            f"| {spread['label']} | {values} | {format_number(spread['min'])}–{format_number(spread['max'])}"
            f"{SIGN_FLIP_MARK if spread['sign_flip'] else ''} | {format_number(spread['mean'])} "
            f"[{format_number(spread['ci_low'])}, {format_number(spread['ci_high'])}] | "
            f"{format_p_value(spread['p_value'])} |"
        )
    return lines


MANIFEST = "manifest.json"
# Everything a run folder holds: write_outputs replaces a folder holding nothing else (besides the extra files it
# is given), and refuses one that holds other things rather than delete them.
RUN_ENTRIES = frozenset({"results.json", "report.md", "summary.csv", "plots", "instances", MANIFEST})


class RunFolderError(ValueError):
    """A folder a run cannot be written to (a file, a folder of other things, a full disk), or one that is not a
    whole run."""


def _manifest(folder: Path) -> dict:
    files = sorted(path for path in folder.rglob("*") if path.is_file())
    return {
        "files": {
            path.relative_to(folder).as_posix(): {"sha256": file_sha256(path), "bytes": path.stat().st_size}
            for path in files
        }
    }


def check_whole(folder: str | os.PathLike, files: tuple[str, ...] | None = None) -> None:
    """Refuse a run folder that is not whole: one whose ``manifest.json`` lists a file that is missing or differs
    from what its run wrote (a folder left half-written, or holding files of two runs).

    Parameters
    ----------
    folder : str or PathLike
        A run folder (``write_outputs``).
    files : tuple of str, optional
        Check only these of its files (paths relative to the folder); default every file of the manifest.
        A folder written before runs had a manifest passes: there is nothing to check it against.

    Raises
    ------
    RunFolderError
        Naming the folder and the first file found wrong.
    """
    folder = Path(folder)
    path = folder / MANIFEST
    if not path.is_file():
        return
    try:
        listed = json.loads(path.read_text(encoding="utf-8"))["files"]
        wanted = listed if files is None else {name: listed[name] for name in files}
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        raise _not_whole(folder, f"its {MANIFEST} cannot be read ({type(error).__name__}: {error})") from None
    for name, entry in wanted.items():
        member = folder / name
        if not member.is_file():
            raise _not_whole(folder, f"{name} is missing")
        if member.stat().st_size != entry["bytes"] or file_sha256(member) != entry["sha256"]:
            raise _not_whole(folder, f"{name} is not the file its run wrote (it differs from {MANIFEST})")


def _not_whole(folder: Path, problem: str) -> RunFolderError:
    return RunFolderError(
        f"{folder} is not a whole run: {problem}; it was left by a run interrupted while writing it, holds files of "
        f"two runs, or was edited by hand: run it again, or score its instances again (`corefbias score --format "
        f"instances`); without its {MANIFEST} it is read as it is (compare still checks its scores against its "
        "instances)"
    )


def read_results(folder: str | os.PathLike, *, check: str = "all") -> dict:
    """The ``results.json`` of a run folder, in the current layout, its sections and headlines as objects
    (``result_versions.upgrade``).

    Parameters
    ----------
    folder : str or PathLike
        A run folder.
    check : {"all", "results"}
        Check every file of the folder against its manifest (``"all"``, for readers of its instances), or
        ``results.json`` alone (what a leaderboard shows).

    Raises
    ------
    RunFolderError
        When the folder has no ``results.json``, is not a whole run, or its ``results.json`` is not a results
        file (damaged, or of a newer corefbias); the message names the file.
    """
    folder = Path(folder)
    path = folder / "results.json"
    if not path.is_file():
        raise RunFolderError(
            f"{folder} is not a finished run folder: it has no results.json (run `corefbias run` first)"
        )
    check_whole(folder, None if check == "all" else ("results.json",))
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(results, dict) or not isinstance(results.get("benchmarks"), dict):
            raise ValueError("it holds no benchmarks")
        return upgrade(results)
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as error:
        problem = error if isinstance(error, ValueError) else f"{type(error).__name__} {error}"
        raise RunFolderError(f"{path} cannot be read as a run's results: {problem}") from None


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` (the run folder's parent) against other processes and threads."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): a lock file beside the run folders
        from filelock import FileLock

        with FileLock(folder / ".corefbias-outputs.lock"):
            yield
        return
    handle = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the handle closes
        yield
    finally:
        os.close(handle)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths in one step (Linux's ``renameat2(RENAME_EXCHANGE)``); False where the system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    at_cwd, exchange = -100, 2
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(at_cwd, os.fsencode(first), at_cwd, os.fsencode(second), exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # a file system or kernel without the exchange
        return False
    raise OSError(code, os.strerror(code), str(second))


def _put_in_place(new: Path, target: Path) -> None:
    """Move the folder ``new`` to ``target`` in one step; a folder that was at ``target`` ends up at ``new``."""
    if not target.exists():
        new.rename(target)
    elif not _exchange(new, target):
        aside = new.with_name(new.name + "-previous")
        target.rename(aside)
        new.rename(target)
        aside.rename(new)


def _check_replaceable(out: Path, extra: Mapping[str, str]) -> None:
    if out.is_symlink():
        raise RunFolderError(f"{out} is a link; a run replaces its whole folder, so --out names a folder of its own")
    if out.exists() and not out.is_dir():
        raise RunFolderError(f"{out} is a file; --out names the folder a run is written to")
    if Path.cwd().resolve().is_relative_to(out.resolve()):
        raise RunFolderError(
            f"{out} holds the current folder; a run replaces its whole folder, so give it one of its own"
        )
    if out.is_dir():
        others = sorted(entry.name for entry in out.iterdir() if entry.name not in RUN_ENTRIES | set(extra))
        if others:
            raise RunFolderError(
                f"{out} holds {', '.join(others[:5])}{' …' if len(others) > 5 else ''} besides a run's files; a run "
                "replaces its whole folder, so write it to a new or empty folder"
            )


def write_outputs(
    result, out_dir: str | os.PathLike, *, plots: bool = True, extra: Mapping[str, str] | None = None
) -> dict[str, Path]:
    """Write every output of a ``runner.RunResult`` as the folder ``out_dir``, in one step (see the module
    docstring); returns name → path of every file written.

    Parameters
    ----------
    result : runner.RunResult
        The run.
    out_dir : str or PathLike
        The run's folder: a new one, or one holding a run (which the new run replaces as a whole).
    plots : bool, default True
        Draw the PNG plots.
    extra : mapping of str to str, optional
        Further files of the folder (name → text), e.g. the Space's ``explore.json``; the manifest covers them.

    Raises
    ------
    RunFolderError
        When ``out_dir`` is a file or holds other things than a run, or the run could not be written (a full disk):
        then ``out_dir`` is as it was.
    """
    out = Path(out_dir)
    extra = dict(extra or {})
    _check_replaceable(out, extra)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.writing-", dir=out.parent))
    except OSError as error:
        raise RunFolderError(f"cannot write the run to {out}: {error}") from None
    try:
        try:
            os.chmod(staging, 0o755)  # mkdtemp makes it private; a run folder is an ordinary folder
            names = _write_files(result, staging, plots, extra)
            (staging / MANIFEST).write_text(json.dumps(_manifest(staging), indent=1), encoding="utf-8")
            with _locked(out.parent):
                _check_replaceable(out, extra)  # again: another process may have put something there meanwhile
                _put_in_place(staging, out)
        except OSError as error:
            kept = "the run it held before" if out.is_dir() else "nothing"
            raise RunFolderError(f"cannot write the run to {out}: {error.strerror or error}; it keeps {kept}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # the previous run, or what a failed write left
    return {name: out / name for name in [*names, MANIFEST]}


def _write_files(result, folder: Path, plots: bool, extra: Mapping[str, str]) -> list[str]:
    """Every file of the run into ``folder``; their names, relative to it."""
    (folder / "instances").mkdir()
    record = result.record()
    names = ["results.json", "report.md", "summary.csv"]
    plot_paths: dict[str, str] = {}
    if plots:
        from . import plots as plotting

        for name, path in plotting.draw_all(result, folder / "plots").items():
            plot_paths[name] = str(path.relative_to(folder))
            names.append(f"plots/{path.name}")
    results = json.dumps(to_json(record), indent=1, ensure_ascii=False)
    (folder / "results.json").write_text(results, encoding="utf-8")
    (folder / "report.md").write_text(markdown_report(record, plot_paths), encoding="utf-8")
    with open(folder / "summary.csv", "w", newline="", encoding="utf-8") as file:
        rows = summary_rows(record)
        writer = csv.DictWriter(file, fieldnames=summary_columns(rows), restval="")
        writer.writeheader()
        writer.writerows(rows)
    for name, run in result.runs.items():
        # The other prompts of a --prompts run: instances/<benchmark>@<prompt>.jsonl.
        others = list(result.prompt_runs.get(name, {}).items())[1:]
        for stem, instances in [(name, run.instances), *((f"{name}@{p}", r.instances) for p, r in others)]:
            path = f"instances/{stem}.jsonl"
            (folder / path).write_text("".join(json.dumps(instance) + "\n" for instance in instances), encoding="utf-8")
            names.append(path)
    for name, text in extra.items():
        (folder / name).write_text(text, encoding="utf-8")
        names.append(name)
    return names
