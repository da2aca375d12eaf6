"""The run's tables and figures as pandas data frames, for Gradio's interactive plots.

Four of the kinds of figure of ``corefbias.harness.plots`` (which draws every kind as PNG files for the report,
and the Space shows them all in its gallery),
for the benchmarks that declare them (``Benchmark.figures``): the occupation scatter against BLS
(Winogender), the ΔI breakdown (Counter-GAP), pro vs anti bars, and the histogram of the W weights (GAP).
Every value is read from the runner's results.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..benchmarks import rows_of
from ..harness import run_outputs
from ..harness.figure_data import figures_of, occupation_preferences, pro_anti_figure_sections
from ..harness.number_format import format_number, format_p_value

# Each column's share of the table's width: fixed, so that a long reason wraps in its cell instead of widening it.
SUMMARY_COLUMN_WIDTHS = {
    "benchmark": "9%",
    "score": "13%",
    "value": "7%",
    "95% CI": "11%",
    "p": "6%",
    "significant": "8%",
    "unbiased value": "6%",
    "blocks": "9%",
    "across prompts": "7%",
    "parsed": "5%",
    "position": "6%",
    "undefined because": "13%",
}
SUMMARY_HEADERS = list(SUMMARY_COLUMN_WIDTHS)


def summary_frame(results: dict) -> pd.DataFrame:
    """``run_outputs.summary_rows`` formatted for the page; ``*`` marks p < ``measures.resampling.SIGNIFICANCE_LEVEL``,
    † a low parse rate, ‡ answers following the option order (the position column: the rate at the most frequent
    option position and its letter); blocks: how many templates, occupations or documents the interval rests on
    (the bootstrap draws them whole); across prompts: the min–max of a ``--prompts`` run's values, ± where the bias
    changes sign, — for a run of one template. A score the data leave undefined reads "undefined", its reason in
    the last column, so that a long reason does not push the other columns out of view.
    """
    rows = []
    for row in run_outputs.summary_rows(results):
        value = format_number(row["value"]) if row["value"] is not None else "undefined"
        interval = (
            "—" if row["ci_low"] is None else f"[{format_number(row['ci_low'])}, {format_number(row['ci_high'])}]"
        )
        rows.append(
            [
                row["benchmark"],
                row["score"],
                value,
                interval,
                format_p_value(row["p_value"]),
                "*" if row["significant"] else "",
                format_number(row["unbiased_value"]),
                run_outputs.format_blocks(row),
                run_outputs.format_spread(row),
                format_number(row["parse_rate"]) + (run_outputs.LOW_PARSE_MARK if row["low_parse_rate"] else ""),
                run_outputs.format_position(row["position_rate"], row["top_position"])
                + (run_outputs.POSITION_BIAS_MARK if row["position_bias"] else ""),
                row["undefined"] if row["value"] is None else "",
            ]
        )
    return pd.DataFrame(rows, columns=SUMMARY_HEADERS)


def occupation_preference_frame(result) -> pd.DataFrame | None:
    """Per occupation: BLS % female and the female − male share resolved to the occupation (Fig. 4), of the first
    benchmark declaring the ``occupation_preference`` figure."""
    drawn = figures_of(result.runs, "occupation_preference")
    if not drawn:
        return None
    run, figure = drawn[0]
    bls = {row["occupation"]: row["bls_pct_female"] for columns in run.parts.values() for row in rows_of(columns)}
    points = [
        (occupation, bls[occupation], preference)
        for occupation, preference in occupation_preferences(run.sections[figure.section]).items()
    ]
    return pd.DataFrame(points, columns=["occupation", "bls_pct_female", "preference"])


def inconsistency_frame(result) -> pd.DataFrame | None:
    """I_within by gender (M, F) and I_across by swap direction (M2F, F2M), of the first benchmark declaring the
    ``inconsistency`` figure."""
    drawn = figures_of(result.runs, "inconsistency")
    if not drawn:
        return None
    run, figure = drawn[0]
    section = run.sections[figure.section].overall
    bars = [
        ("I_within M", "i_within_male", "within genders"),
        ("I_within F", "i_within_female", "within genders"),
        ("I_across M2F", "i_across_m2f", "across genders"),
        ("I_across F2M", "i_across_f2m", "across genders"),
    ]
    return pd.DataFrame(
        [
            (label, section[key].value, kind)
            for label, key, kind in bars
            if key in section and section[key].value is not None
        ],
        columns=["measure", "inconsistency", "kind"],
    )


def pro_anti_frame(result) -> pd.DataFrame | None:
    """Pro and anti score of every pro/anti section (CoNLL F1 and link F1 for WinoBias, else accuracy)."""
    bars = [
        (f"{section} {condition}", condition, values.overall[condition].value)
        for section, values in pro_anti_figure_sections(result.runs).items()
        for condition in ("pro", "anti")
    ]
    return pd.DataFrame(bars, columns=["bar", "condition", "score"]) if bars else None


def gap_weights_frame(result, bins: int = 30) -> tuple[pd.DataFrame, float] | None:
    """Histogram of the positive W weights of the scored GAP examples by pronoun gender, and its bin width.

    One row per (bin centre, gender): a plot binning by the returned width puts each row in its own bin.
    """
    drawn = figures_of(result.runs, "weights")
    if not drawn:
        return None
    run, figure = drawn[0]
    weights = run.sections[figure.section].extras.get("weights") if figure.section in run.sections else None
    if not weights:
        return None
    (columns,) = run.parts.values()
    weights, genders = np.asarray(weights, dtype=float), np.asarray(columns["gender"])
    edges = np.histogram_bin_edges(weights[weights > 0], bins=bins)
    centres = (edges[:-1] + edges[1:]) / 2
    rows = []
    for gender in ("female", "male"):
        counts, _ = np.histogram(weights[(genders == gender) & (weights > 0)], bins=edges)
        rows += [(float(centre), int(count), gender) for centre, count in zip(centres, counts)]
    return pd.DataFrame(rows, columns=["weight", "examples", "gender"]), float(edges[1] - edges[0])
