"""What ``corefbias compare`` writes: ``comparison.json``, ``comparison.md`` and ``forest.png``."""

from __future__ import annotations

import json
from pathlib import Path

from .number_format import format_number, format_p_value


def markdown(result: dict) -> str:
    level = result["significance_level"]
    lines = [
        "# Model comparison",
        "",
        "Runs: " + ", ".join(f"`{run['label']}` ({run['path']})" for run in result["runs"]) + ".",
        "",
        f"Each difference is A − B on the units both runs answered (quadruples, pairs, triplets or examples). "
        f"95% CI and p: a paired bootstrap ({result['n_resamples']} resamples, both runs resampled with the same "
        f"units, drawn in whole blocks: the templates, occupations or documents each benchmark declares; blocks: "
        f"how many an interval rests on), its interval expanded for how few blocks it rests on, p two-sided against "
        f"a difference of 0. **p (Holm)**: p-values adjusted with Holm's method over the headline differences "
        f"of one comparison; `*` marks Holm-adjusted p < {level}.",
    ]
    for item in result["comparisons"]:
        lines += [
            "",
            f"## A = `{item['a']}`, B = `{item['b']}`",
            "",
            "| benchmark | score | A | B | A − B | 95% CI | p | p (Holm) | blocks | unbiased |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for row in item["differences"]:
            mark = "*" if row["significant"] else ""
            difference = (
                format_number(row["difference"]) + mark if row["difference"] is not None else f"— ({row['undefined']})"
            )
            lines.append(
                f"| {row['benchmark']} | {row['score']} | {format_number(row['value_a'])} | "
                f"{format_number(row['value_b'])} | {difference} | [{format_number(row['ci_low'])}, "
                f"{format_number(row['ci_high'])}] | {format_p_value(row['p_value'])} | "
                f"{format_p_value(row['p_holm'])} | {'—' if row.get('n_blocks') is None else row['n_blocks']} "
                f"| {format_number(row['unbiased_value'])} |"
            )
        lines += [f"\n{note}." for note in item["notes"]]
    lines += _spread_table(result)
    if result.get("left_out"):
        lines += ["", "## Left out", "", left_out_sentence(result["left_out"], len(result["runs"])) + ":", ""]
        lines += [
            f"- {item['benchmark']}: run only by {', '.join(f'`{label}`' for label in item['run_by'])}"
            for item in result["left_out"]
        ]
    lines += ["", "![forest plot](forest.png)"]
    return "\n".join(lines) + "\n"


def _spread_table(result: dict) -> list[str]:
    """The headlines' spread across the prompts of the runs made with ``--prompts`` (none where no run was)."""
    spread = {
        label: {(row["benchmark"], row["score"]): row for row in rows if row.get("prompt_min") is not None}
        for label, rows in result["scores"].items()
    }
    labels = [label for label, rows in spread.items() if rows]
    if not labels:
        return []
    lines = [
        "",
        "## Spread across prompts",
        "",
        "The min–max of each headline over the prompts of the runs made with `--prompts` (± where the bias changes "
        "sign across them); the differences above compare the runs' first prompts.",
        "",
        "| benchmark | score | " + " | ".join(f"`{label}`" for label in labels) + " |",
        "|---|---|" + "---|" * len(labels),
    ]
    for benchmark, score in dict.fromkeys(key for label in labels for key in spread[label]):
        cells = []
        for label in labels:
            row = spread[label].get((benchmark, score))
            cells.append(
                "—"
                if row is None
                else f"{format_number(row['prompt_min'])}–{format_number(row['prompt_max'])}"
                + ("±" if row.get("prompt_sign_flip") else "")
            )
        lines.append(f"| {benchmark} | {score} | " + " | ".join(cells) + " |")
    return lines


def left_out_sentence(left_out: list[dict], n_runs: int) -> str:
    """Why the benchmarks only some runs ran are missing from the comparison.

    Examples
    --------
    >>> left_out_sentence([{"benchmark": "gap", "run_by": ["A"]}], 2)
    '1 benchmark not run by both runs is left out (no paired test, not drawn)'
    """
    every = "both runs" if n_runs == 2 else f"all {n_runs} runs"
    noun = "benchmark" if len(left_out) == 1 else "benchmarks"
    tested = "no paired test, not drawn" if n_runs == 2 else "tested only between runs that ran it, not drawn"
    verb = "is" if len(left_out) == 1 else "are"
    return f"{len(left_out)} {noun} not run by {every} {verb} left out ({tested})"


def untested_sentence(comparison: dict) -> str | None:
    """How many shared headlines of one comparison got no p-value: those no paired test fits (its ``notes``) and those
    undefined for a run (a difference without p); None when every one was tested.

    Examples
    --------
    >>> untested_sentence({"notes": ["winogender r: not a sum"], "differences": [{"p_value": None}, {"p_value": 0.2}]})
    '2 shared headlines have no paired test; comparison.md says why'
    >>> untested_sentence({"notes": [], "differences": [{"p_value": 0.2}]}) is None
    True
    """
    count = len(comparison["notes"]) + sum(row["p_value"] is None for row in comparison["differences"])
    if not count:
        return None
    return f"{count} shared headline{'s have' if count > 1 else ' has'} no paired test; comparison.md says why"


def _tick_label(label: str, width: int = 48) -> str:
    # A predictions run's label names every file and a digest; the full labels are in comparison.md.
    return label if len(label) <= width else f"{label[: width - 18]}…{label[-17:]}"


def drawn_headlines(result: dict) -> list[tuple[str, str]]:
    """The (benchmark, score) panels of the forest plot: the headlines of the benchmarks every run measured."""
    skipped = {item["benchmark"] for item in result.get("left_out", [])}
    return list(
        dict.fromkeys(
            (row["benchmark"], row["score"])
            for rows in result["scores"].values()
            for row in rows
            if row["benchmark"] not in skipped
        )
    )


def _check_intervals(result: dict) -> None:
    """Refuse a run's interval whose low end is above its high end (``comparison.check_scores`` refuses such a run, so
    only a result changed after ``compare_runs`` has one), before anything is written.

    Examples
    --------
    >>> _check_intervals({"scores": {"a": [{"benchmark": "gap", "score": "W-Bias", "ci_low": 0.2, "ci_high": 0.1}]}})
    Traceback (most recent call last):
    ...
    ValueError: a's gap W-Bias has the 95% CI [0.2, 0.1], low above high; ...
    """
    for label, rows in result["scores"].items():
        for row in rows:
            if row["ci_low"] is not None and row["ci_high"] is not None and row["ci_low"] > row["ci_high"]:
                raise ValueError(
                    f"{label}'s {row['benchmark']} {row['score']} has the 95% CI [{row['ci_low']}, {row['ci_high']}], "
                    f"low above high; draw what comparison.compare_runs returns, which checks each run's intervals"
                )


def forest_plot(result: dict, path: Path) -> Path:
    """One panel per headline score: each run's value with its 95% CI (and, for a ``--prompts`` run, the range of its
    values across the prompts as a grey band), the unbiased value dashed.

    The interval is drawn from its ends, not as distances from the value: a percentile bootstrap interval need not
    contain its value (a skewed score), and such a run is drawn as it is rather than refused by matplotlib.
    """
    from .plots import _save, plt

    labels = [run["label"] for run in result["runs"]]
    headlines = drawn_headlines(result)
    values = {(label, row["benchmark"], row["score"]): row for label, rows in result["scores"].items() for row in rows}
    figure, axes_list = plt.subplots(
        len(headlines), 1, figsize=(7, 0.35 * len(labels) * len(headlines) + 0.9 * len(headlines)), squeeze=False
    )
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for axes, (benchmark, score) in zip(axes_list[:, 0], headlines):
        unbiased = None
        for position, label in enumerate(labels):
            row = values.get((label, benchmark, score))
            if row is None or row["value"] is None:
                axes.text(0.01, position, "undefined", transform=axes.get_yaxis_transform(), va="center", fontsize=7)
                continue
            unbiased = row["unbiased_value"]
            colour = colours[position % len(colours)]
            if row.get("prompt_min") is not None:  # a --prompts run: its values' range across the prompts, shaded
                axes.hlines(position, row["prompt_min"], row["prompt_max"], colors="grey", alpha=0.35, linewidth=6)
            if row["ci_low"] is not None and row["ci_high"] is not None:
                ends = [row["ci_low"], row["ci_high"]]
                axes.plot(ends, [position, position], color=colour, marker="|", markersize=7, linewidth=1.2)
            axes.plot(row["value"], position, "o", color=colour)
        if unbiased is not None:
            axes.axvline(unbiased, color="grey", linestyle="--", linewidth=1)
        axes.set_yticks(range(len(labels)), [_tick_label(label) for label in labels], fontsize=7)
        axes.set_ylim(-0.6, len(labels) - 0.4)
        axes.invert_yaxis()
        axes.set_title(
            f"{benchmark}: {score}" + ("" if unbiased is None else f" (unbiased = {unbiased:g}, dashed)"), fontsize=8
        )
        axes.tick_params(axis="x", labelsize=7)
    return _save(figure, path)


def write(result: dict, out_dir: str | Path) -> dict[str, Path]:
    _check_intervals(result)  # before writing anything, so a refused result leaves no half of its files
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = {"comparison.json": out / "comparison.json", "comparison.md": out / "comparison.md"}
    written["comparison.json"].write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    written["comparison.md"].write_text(markdown(result), encoding="utf-8")
    written["forest.png"] = forest_plot(result, out / "forest.png")
    return written
