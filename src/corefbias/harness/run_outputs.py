"""What a run leaves on disk: ``results.json``, ``report.md``, ``summary.csv``, the instances, the plots.

``summary_rows`` is the one table of headline scores (value, 95% CI, p-value, significance mark,
the benchmark's parse rate and its ``low_parse_rate`` flag, its option-position rate and its
``position_bias`` flag) that the report, the CSV, the Space and the leaderboard all show.
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from ..measures.resampling import SIGNIFICANCE_LEVEL
from ..measures.result import Estimate, MeasureResult
from .number_format import format_number, format_p_value
from .parse_rates import PARSE_RATE_THRESHOLD
from .position_rates import POSITION_RATE_THRESHOLD, position_letter
from .result_schema import sections_of, upgrade

SUMMARY_COLUMNS = (
    "benchmark",
    "score",
    "value",
    "ci_low",
    "ci_high",
    "p_value",
    "significant",
    "unbiased_value",
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
LOW_PARSE_MARK = "†"
POSITION_BIAS_MARK = "‡"


def summary_rows(results: Mapping) -> list[dict]:
    """One row per headline score of every benchmark in ``results`` (a ``results.json`` dict of any version).

    Examples
    --------
    >>> headline = {"label": "pro − anti", "value": 0.25, "ci_low": 0.1, "ci_high": 0.4, "p_value": 0.01,
    ...             "significant": True, "unbiased_value": 0.0, "undefined": None}
    >>> outcome = {"parse_rate": 1.0, "low_parse_rate": False, "headlines": [headline], "sections": {}}
    >>> (row,) = summary_rows({"schema_version": 2, "benchmarks": {"my_pro_anti": outcome}})
    >>> row["score"], row["value"], row["significant"], row["position_rate"]
    ('pro − anti', 0.25, True, None)
    """
    rows = []
    for name, outcome in upgrade(results)["benchmarks"].items():
        spreads = {
            (spread["section"], spread["key"]): spread for spread in (outcome.get("prompts") or {}).get("headlines", [])
        }
        for headline in outcome["headlines"]:
            spread = spreads.get((headline.get("section"), headline.get("key"))) if spreads else None
            rows.append(
                {
                    "benchmark": name,
                    "score": headline["label"],
                    "value": headline["value"],
                    "ci_low": headline["ci_low"],
                    "ci_high": headline["ci_high"],
                    "p_value": headline["p_value"],
                    "significant": headline["significant"],
                    "unbiased_value": headline["unbiased_value"],
                    "parse_rate": outcome.get("parse_rate"),
                    "low_parse_rate": outcome.get("low_parse_rate", False),
                    # Runs written before position rates were reported have none.
                    "position_rate": outcome.get("position_rate"),
                    "top_position": outcome.get("top_position"),
                    "position_bias": outcome.get("position_bias", False),
                    "undefined": headline["undefined"],
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


def flag_marks(row: dict) -> str:
    """The marks of a summary row's benchmark-wide flags: † a low parse rate, ‡ answers following the option order."""
    return (LOW_PARSE_MARK if row["low_parse_rate"] else "") + (POSITION_BIAS_MARK if row["position_bias"] else "")


def format_position(rate: float | None, top_position: int | None) -> str:
    """A position rate as tables show it: the rate and its position's letter ("0.967 A"), or — for none."""
    return "—" if rate is None else f"{format_number(rate)} {position_letter(top_position)}"


def _mark(row: dict) -> str:
    return ("*" if row["significant"] else "") + flag_marks(row)


# Scores measured per group that the report leaves to a figure: Winogender's per-occupation preference (60 rows).
DRAWN_NOT_TABLED = ("preference",)


def _breakdown(section: MeasureResult) -> list[Estimate]:
    """Every score of a section, with its CI and p-value, but the per-group scores a figure shows instead."""
    return [
        estimate
        for cell, score, estimate in section.estimates()
        if not (cell.group is not None and cell.condition is None and score in DRAWN_NOT_TABLED)
    ]


def _plain(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, list):
        return ", ".join(_plain(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


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
    counts = "; ".join(
        f"{name} {count['predicted']} predicted, {count['from_cache']} from the cache"
        for name, count in provenance["instances"].items()
    )
    return (
        f"**Provenance.** corefbias {provenance['corefbias_version']} on Python {provenance['python']} ({libraries}). "
        f"Model `{model['spec']}`, identified as {identity} (cache key `{model['cache_key']}`). Data: {data}. "
        f"Settings: {settings}. Run from {provenance['started']} to {provenance['finished']} (UTC). "
        f"Instances: {counts}."
    )


def markdown_report(results: dict, plots: dict[str, str]) -> str:
    results = upgrade(results)
    rows = summary_rows(results)
    prompts = any("num_prompts" in row for row in rows)
    settings = results["settings"]
    scope = "all" if settings["limit"] is None else f"{settings['limit']} units per design cell (`--limit`)"
    lines = [
        f"# Gender-bias report: `{results['model']}`",
        "",
        f"corefbias {results['corefbias_version']}; bootstrap resamples: {settings['n_bootstrap']} (seed "
        f"{settings['seed']}); instances per benchmark: {scope}; "
        f"decision mode: `{settings['decision_mode']}`. `*`: two-sided bootstrap p < {SIGNIFICANCE_LEVEL}. "
        "CIs are 95% percentile intervals. Rates are fractions. parsed: the share of instances whose answer "
        f"could be read; {LOW_PARSE_MARK}: below {PARSE_RATE_THRESHOLD:.0%}, so the score rests on few real answers "
        "(unreadable ones count as no link). position: the share of the parsed answers given at the most frequent "
        f"option position, and that position's letter (— where the model was shown no order of options); "
        f"{POSITION_BIAS_MARK}: above {POSITION_RATE_THRESHOLD:.0%}, so most answers follow the option order, not "
        "the text, and scores comparing variants shown the same order say nothing of the model's bias.",
        "",
        *([provenance_paragraph(results["provenance"]), ""] if results.get("provenance") else []),
        "## Summary",
        "",
        "| benchmark | score | value | 95% CI | p | unbiased | parsed | position |"
        + (" across prompts |" if prompts else ""),
        "|---|---|---|---|---|---|---|---|" + ("---|" if prompts else ""),
    ]
    for row in rows:
        value = format_number(row["value"]) + _mark(row) if row["value"] is not None else f"— ({row['undefined']})"
        lines.append(
            f"| {row['benchmark']} | {row['score']} | {value} | [{format_number(row['ci_low'])}, "
            f"{format_number(row['ci_high'])}] "
            f"| {format_p_value(row['p_value'])} | {format_number(row['unbiased_value'])} "
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
        for section_name, section in sections_of(outcome).items():
            lines += ["", f"### {section_name}", "", "| score | value | 95% CI | p |", "|---|---|---|---|"]
            for estimate in _breakdown(section):
                lines.append(
                    f"| {estimate.key} | {format_number(estimate.value)} | [{format_number(estimate.ci_low)}, "
                    f"{format_number(estimate.ci_high)}] | {format_p_value(estimate.p_value)} |"
                )
            for _, _, estimate in section.estimates():
                if estimate.value is None and estimate.undefined is not None:
                    lines.append(f"\n`{estimate.key}` is undefined: {estimate.undefined}.")
    if plots:
        lines += ["", "## Plots"]
        lines += [line for plot_name, path in plots.items() for line in ("", f"![{plot_name}]({path})")]
    return "\n".join(lines) + "\n"


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


def _write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, path)


def write_outputs(result, out_dir: str | os.PathLike, *, plots: bool = True) -> dict[str, Path]:
    """Write every output of a ``runner.RunResult`` into ``out_dir``; returns name → path."""
    out = Path(out_dir)
    (out / "instances").mkdir(parents=True, exist_ok=True)
    results = result.to_json()
    written = {"results.json": out / "results.json", "report.md": out / "report.md", "summary.csv": out / "summary.csv"}
    plot_paths: dict[str, str] = {}
    if plots:
        from . import plots as plotting

        for name, path in plotting.draw_all(result, out / "plots").items():
            plot_paths[name] = str(path.relative_to(out))
            written[f"plots/{path.name}"] = path
    _write_atomically(written["results.json"], json.dumps(results, indent=1, ensure_ascii=False))
    _write_atomically(written["report.md"], markdown_report(results, plot_paths))
    with open(written["summary.csv"], "w", newline="", encoding="utf-8") as file:
        rows = summary_rows(results)
        writer = csv.DictWriter(file, fieldnames=summary_columns(rows), restval="")
        writer.writeheader()
        writer.writerows(rows)
    for name, run in result.runs.items():
        path = out / "instances" / f"{name}.jsonl"
        _write_atomically(path, "".join(json.dumps(instance) + "\n" for instance in run.instances))
        written[f"instances/{name}.jsonl"] = path
        # The other prompts of a --prompts run: instances/<benchmark>@<prompt>.jsonl.
        for prompt, prompt_run in list(result.prompt_runs.get(name, {}).items())[1:]:
            path = out / "instances" / f"{name}@{prompt}.jsonl"
            _write_atomically(path, "".join(json.dumps(instance) + "\n" for instance in prompt_run.instances))
            written[f"instances/{name}@{prompt}.jsonl"] = path
    return written
