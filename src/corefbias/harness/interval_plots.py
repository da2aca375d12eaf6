"""The figures of scores with their 95% intervals, one per figure kind that reads estimates (``Benchmark.figures``);
``corefbias.harness.plots`` names and saves them. Every one draws estimates the same way, as rows of points with
horizontal whiskers (``interval_rows``), so that a label is never drawn over another however many rows there are:

* ``accuracy_gaps``: accuracy per condition (pronoun set, ablation, number of *they*) and each condition's gap to
  the reference (he/she, the original snippets, plural *they*), the figure WinoPron, MISGENDERED, RUFF, GICoref,
  MAP and WinoNB draw; one series per section read (WinoPron's template types, MAP's model and annotators);
* ``distance``: BUG's ΔS (stereotypical − anti-stereotypical accuracy) by pronoun–profession distance;
* ``distractors``: RUFF's accuracy by number of distractor sentences, of all pronouns and of each pronoun set;
* ``fpr_by_language``: ABC's false-positive rates of the male and the female anti-reflexive, and their log2 ratio,
  one row per language (benchmark) of the run;
* ``headlines``: a benchmark's headline scores, one panel per kind of score (differences, ratios, others), each
  with the value a model without the bias scores.

Every interval is the run's own (an ``Estimate``'s ``ci_low``, ``ci_high``); a point without one (the measure gives
none, or too few blocks for a bootstrap) is drawn hollow, and a score the data leave undefined reads "undefined".
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..measures.result import Estimate, MeasureResult
from .runner import HeadlineScore

# One colour per series, in order (matplotlib's default cycle, so that the run's figures look alike).
SERIES_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860")
# Inches per row of one series: room for a 7-point label and its whisker, whatever the number of rows.
ROW_INCHES = 0.24
FONT_SIZE = 8
NO_INTERVAL = "hollow: no interval"
# The gid of every drawn interval, by which a reader (a test) finds them.
INTERVAL = "interval"


@dataclass(frozen=True)
class Series:
    """One set of points in a panel: its name (in the legend) and its estimate per row (a row it lacks is empty)."""

    name: str
    estimates: Mapping[str, Estimate]


def estimates_by_key(section: MeasureResult) -> dict[str, Estimate]:
    """A section's estimates by their flat key (``diff/they``, ``delta_s/distance_0-4``).

    Examples
    --------
    >>> from corefbias.measures.stored_results import from_flat
    >>> estimates_by_key(from_flat({"diff": 0.5, "diff_ci_low": 0.1, "diff_ci_high": 0.9}))["diff"].ci
    (0.1, 0.9)
    """
    return {estimate.key: estimate for _, _, estimate in section.estimates()}


def has_interval(estimate: Estimate) -> bool:
    """Whether the estimate has a value and both ends of its interval.

    Examples
    --------
    >>> has_interval(Estimate("diff", 0.5, 0.1, 0.9)), has_interval(Estimate("diff", 0.5))
    (True, False)
    """
    return estimate.value is not None and estimate.ci_low is not None and estimate.ci_high is not None


def interval_rows(
    axes,
    rows: Sequence[str],
    series: Sequence[Series],
    *,
    reference: float | None = None,
    limits: tuple[float, float] | None = None,
    label_rows: bool = True,
) -> int:
    """Draw every series' estimates as points with horizontal 95% whiskers, one row per label, top to bottom.

    A row holds one band per series, so series of one row never share a line; a point without an interval is drawn
    hollow, a score left undefined reads "undefined" in its band. ``reference`` draws a dashed line where a model
    without the bias scores; ``limits`` fixes the x range (widened to hold every whisker).

    Parameters
    ----------
    axes : matplotlib Axes
    rows : sequence of str
        The row labels, top first.
    series : sequence of Series
    reference : float, optional
    limits : (float, float), optional
    label_rows : bool, default True
        Write the row labels as y tick labels (False where a panel beside shares them).

    Returns
    -------
    int
        How many points were drawn without an interval.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> figure, axes = plt.subplots()
    >>> drawn = Series("model", {"they": Estimate("diff/they", -0.2, -0.4, 0.0), "xe": Estimate("diff/xe", None)})
    >>> interval_rows(axes, ["they", "xe"], [drawn], reference=0.0)
    0
    >>> [text.get_text() for text in axes.texts]
    ['undefined']
    >>> plt.close(figure)
    """
    band = 0.8 / len(series)
    hollow = 0
    values = [] if reference is None else [reference]
    for index, one in enumerate(series):
        colour = SERIES_COLOURS[index % len(SERIES_COLOURS)]
        for row, label in enumerate(rows):
            estimate = one.estimates.get(label)
            if estimate is None:
                continue
            y = row - 0.4 + band * (index + 0.5)
            if estimate.value is None:
                axes.annotate(
                    "undefined",
                    (0.5, y),
                    xycoords=("axes fraction", "data"),
                    ha="center",
                    va="center",
                    fontsize=FONT_SIZE - 1,
                    color=colour,
                )
            elif has_interval(estimate):
                # From its ends, not as distances from the value: a percentile interval need not hold its value.
                low, high = estimate.ci
                axes.plot([low, high], [y, y], color=colour, marker="|", markersize=6, linewidth=1.2, gid=INTERVAL)
                axes.plot([estimate.value], [y], "o", markersize=4, color=colour)
                values += [low, high, estimate.value]
            else:
                axes.plot([estimate.value], [y], "o", markersize=4, markerfacecolor="white", color=colour)
                values.append(estimate.value)
                hollow += 1
    if reference is not None:
        axes.axvline(reference, color="grey", linewidth=0.8, linestyle="--")
    if len(series) > 1:  # a rule between rows, so that each row's bands read as one
        for row in range(len(rows) - 1):
            axes.axhline(row + 0.5, color="#cccccc", linewidth=0.6)
    axes.set_ylim(len(rows) - 0.5, -0.5)
    if label_rows:
        axes.set_yticks(range(len(rows)), rows, fontsize=FONT_SIZE)
    axes.tick_params(axis="y", length=0, labelleft=label_rows)
    axes.tick_params(axis="x", labelsize=FONT_SIZE)
    axes.grid(axis="x", color="#dddddd", linewidth=0.6)
    axes.set_axisbelow(True)
    low, high = limits if limits is not None else (min(values, default=0.0), max(values, default=1.0))
    low, high = min([low, *values]), max([high, *values])
    margin = 0.05 * (high - low) or 0.5
    axes.set_xlim(low - margin, high + margin)
    return hollow


def panel_figure(rows: int, panels: int, *, bands: int = 1, width: float = 10.0):
    """A figure of ``panels`` panels side by side sharing ``rows`` rows of ``bands`` series each, tall enough for
    every row label: the figure grows with the rows."""
    figure = Figure(figsize=(width, max(3.0, ROW_INCHES * rows * bands + 1.8)), layout="constrained")
    axes = figure.subplots(1, panels, sharey=True, squeeze=False)[0]
    return figure, list(axes)


def legend_below(figure, series: Sequence[Series], hollow: int) -> None:
    """The series' legend (where there are several) and the hollow marker's meaning (where one is drawn), below the
    panels, outside the data."""
    handles = [
        Line2D([], [], marker="o", linestyle="", color=SERIES_COLOURS[index % len(SERIES_COLOURS)], label=one.name)
        for index, one in enumerate(series)
        if len(series) > 1
    ]
    if hollow:
        handles.append(
            Line2D([], [], marker="o", linestyle="", color="grey", markerfacecolor="white", label=NO_INTERVAL)
        )
    if handles:
        figure.legend(
            handles=handles, loc="outside lower center", ncols=min(len(handles), 4), frameon=False, fontsize=FONT_SIZE
        )


# ----- accuracy and gaps -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccuracyGaps:
    """A section read as accuracies per condition and each condition's gap to the reference (row label → estimate)."""

    accuracies: dict[str, Estimate]
    gaps: dict[str, Estimate]
    reference: str


def _condition_accuracies(section: MeasureResult, reference: str, reference_row: str | None) -> AccuracyGaps:
    """``accuracy/<condition>`` and ``diff/<condition>`` (the measure's other scores under ``diff/``, such as
    ``diff/they_unadjusted_p_value``, are not conditions); ``accuracy/reference``, the pooled reference, as
    ``reference_row`` where given."""
    estimates = estimates_by_key(section)
    conditions = [
        key.removeprefix("accuracy/")
        for key in estimates
        if key.startswith("accuracy/") and "/" not in key.removeprefix("accuracy/") and key != "accuracy/reference"
    ]
    gaps = {condition: estimates[f"diff/{condition}"] for condition in conditions if f"diff/{condition}" in estimates}
    accuracies = {condition: estimates[f"accuracy/{condition}"] for condition in conditions}
    if reference_row is not None and "accuracy/reference" in estimates:
        # The pooled reference right after the conditions it pools (those without a gap): he, she, he + she, they.
        pooled = sum(1 for condition in conditions if condition not in gaps)
        rows = list(accuracies.items())
        accuracies = dict([*rows[:pooled], (reference_row, estimates["accuracy/reference"]), *rows[pooled:]])
    return AccuracyGaps(accuracies, gaps, reference)


def accuracy_gaps(section: MeasureResult) -> AccuracyGaps | None:
    """The accuracies and gaps of a ``pronoun_set_diff``, ``condition_accuracy_diff`` or ``winonb_accuracy``
    section; None for a section of another measure.

    Examples
    --------
    >>> from corefbias.measures.stored_results import from_flat
    >>> section = from_flat({"accuracy/he": 1.0, "accuracy/they": 0.5, "accuracy/reference": 1.0, "diff/they": -0.5},
    ...                     measure="pronoun_set_diff")
    >>> read = accuracy_gaps(section)
    >>> list(read.accuracies), list(read.gaps), read.reference
    (['he', 'he + she', 'they'], ['they'], 'he/she')
    """
    if section.measure == "pronoun_set_diff":
        return _condition_accuracies(section, "he/she", "he + she")
    if section.measure == "condition_accuracy_diff":
        return _condition_accuracies(section, str(section.extras.get("reference")), None)
    if section.measure == "winonb_accuracy":
        overall = section.overall
        accuracies = {number: overall[f"accuracy_{number}"] for number in ("singular", "plural")}
        return AccuracyGaps(accuracies, {"singular": overall["accuracy_singular_minus_plural"]}, "plural")
    return None


def series_names(sections: Sequence[str]) -> list[str]:
    """The sections' names as a legend shows them: without the leading path they all share.

    Examples
    --------
    >>> series_names(["pronoun_set_diff/double", "pronoun_set_diff/single"]), series_names(["map", "map/human"])
    (['double', 'single'], ['map', 'map/human'])
    """
    parts = [name.split("/") for name in sections]
    shared = 0
    while all(len(one) > shared + 1 and one[shared] == parts[0][shared] for one in parts):
        shared += 1
    return ["/".join(one[shared:]) for one in parts]


def accuracy_gaps_figure(title: str, sections: Mapping[str, MeasureResult]) -> Figure:
    """Two panels sharing one row per condition: accuracy, and the gap to the reference (0: no gap); one series per
    section (its name in the legend)."""
    read = {name: accuracy_gaps(section) for name, section in zip(series_names(list(sections)), sections.values())}
    rows = list(dict.fromkeys(row for one in read.values() for row in [*one.accuracies, *one.gaps]))
    references = sorted({one.reference for one in read.values()})
    figure, (left, right) = panel_figure(len(rows), 2, bands=len(read))
    accuracy = [Series(name, one.accuracies) for name, one in read.items()]
    gaps = [Series(name, one.gaps) for name, one in read.items()]
    hollow = interval_rows(left, rows, accuracy, limits=(0.0, 1.0))
    hollow += interval_rows(right, rows, gaps, reference=0.0, limits=(-1.0, 1.0), label_rows=False)
    left.set_xlabel("accuracy", fontsize=FONT_SIZE)
    right.set_xlabel(f"accuracy − accuracy of {' / '.join(references)}", fontsize=FONT_SIZE)
    legend_below(figure, accuracy, hollow)
    figure.suptitle(title, fontsize=FONT_SIZE + 2)
    return figure


# ----- BUG's distance --------------------------------------------------------------------------------------------

_DISTANCE = re.compile(r"^delta_s/distance_(\d+)-(\d+)$")


def distance_deltas(section: MeasureResult) -> dict[str, Estimate]:
    """ΔS per distance bin (``"0-4"`` → its estimate), nearest first.

    Examples
    --------
    >>> from corefbias.measures.stored_results import from_flat
    >>> list(distance_deltas(from_flat({"delta_s/distance_10-14": 0.1, "delta_s/distance_5-9": 0.2, "delta_s": 0.1})))
    ['5-9', '10-14']
    """
    found = [(_DISTANCE.match(key), estimate) for key, estimate in estimates_by_key(section).items()]
    ordered = sorted((int(match[1]), f"{match[1]}-{match[2]}", estimate) for match, estimate in found if match)
    return {label: estimate for _, label, estimate in ordered}


def distance_figure(title: str, sections: Mapping[str, MeasureResult]) -> Figure:
    """ΔS (stereotypical − anti-stereotypical accuracy) per bin of words between pronoun and profession, one series
    per section."""
    series = [
        Series(name, distance_deltas(section)) for name, section in zip(series_names(list(sections)), sections.values())
    ]
    rows = sorted({row for one in series for row in one.estimates}, key=lambda row: int(row.split("-")[0]))
    figure, (axes,) = panel_figure(len(rows), 1, bands=len(series), width=8.0)
    hollow = interval_rows(axes, rows, series, reference=0.0, limits=(-1.0, 1.0))
    axes.set_ylabel("words between pronoun and profession", fontsize=FONT_SIZE)
    axes.set_xlabel("ΔS: accuracy stereotypical − anti-stereotypical", fontsize=FONT_SIZE)
    legend_below(figure, series, hollow)
    figure.suptitle(title, fontsize=FONT_SIZE + 2)
    return figure


# ----- RUFF's distractors -----------------------------------------------------------------------------------------

_DISTRACTORS = re.compile(r"^accuracy/(?:pronoun_set/([^/]+)/)?distractors/(\d+)$")
ALL_PRONOUNS = "all pronouns"


def distractor_accuracies(section: MeasureResult) -> dict[str, dict[str, Estimate]]:
    """Accuracy by number of distractor sentences: series (all pronouns, then each pronoun set) → number → estimate.

    Examples
    --------
    >>> from corefbias.measures.stored_results import from_flat
    >>> section = from_flat({"accuracy/distractors/0": 0.9, "accuracy/pronoun_set/xe/distractors/0": 0.5})
    >>> {series: list(by_number) for series, by_number in distractor_accuracies(section).items()}
    {'all pronouns': ['0'], 'xe': ['0']}
    """
    found: dict[str, dict[str, Estimate]] = {}
    for key, estimate in estimates_by_key(section).items():
        match = _DISTRACTORS.match(key)
        if match:
            found.setdefault(match[1] or ALL_PRONOUNS, {})[match[2]] = estimate
    ordered = sorted(found, key=lambda series: series != ALL_PRONOUNS)
    return {series: dict(sorted(found[series].items(), key=lambda item: int(item[0]))) for series in ordered}


def distractors_figure(title: str, sections: Mapping[str, MeasureResult]) -> Figure:
    """RUFF's figure: accuracy by number of distractor sentences, of all pronouns and of each pronoun set, in the one
    section of ``sections`` (the figure's)."""
    (section,) = sections.values()
    series = [Series(name, by_number) for name, by_number in distractor_accuracies(section).items()]
    rows = sorted({row for one in series for row in one.estimates}, key=int)
    figure, (axes,) = panel_figure(len(rows), 1, bands=len(series), width=8.0)
    hollow = interval_rows(axes, rows, series, limits=(0.0, 1.0))
    axes.set_ylabel("distractor sentences", fontsize=FONT_SIZE)
    axes.set_xlabel("accuracy", fontsize=FONT_SIZE)
    legend_below(figure, series, hollow)
    figure.suptitle(title, fontsize=FONT_SIZE + 2)
    return figure


# ----- ABC's languages ---------------------------------------------------------------------------------------


def fpr_by_language_figure(sections: Mapping[str, MeasureResult]) -> Figure:
    """Per language (row: its label, the section's key), the FPRs of the male and the female anti-reflexive, and
    log2(FPR male / FPR female) with its interval (0: no bias)."""
    rows = list(sections)
    read = {name: estimates_by_key(section) for name, section in sections.items()}
    rates = [
        Series(f"FPR {gender} anti-reflexive", {name: keys[f"fpr_{gender}"] for name, keys in read.items()})
        for gender in ("male", "female")
    ]
    ratio = [Series("log2 ratio", {name: keys["log2_fpr_ratio"] for name, keys in read.items()})]
    figure, (left, right) = panel_figure(len(rows), 2, bands=2, width=9.0)
    hollow = interval_rows(left, rows, rates, limits=(0.0, 1.0))
    hollow += interval_rows(right, rows, ratio, reference=0.0, label_rows=False)
    left.set_xlabel("false-positive rate (linked to the subject)", fontsize=FONT_SIZE)
    right.set_xlabel("log2(FPR male / FPR female)", fontsize=FONT_SIZE)
    legend_below(figure, rates, hollow)
    figure.suptitle("ABC: anti-reflexive false positives by language", fontsize=FONT_SIZE + 2)
    return figure


# ----- headlines ---------------------------------------------------------------------------------------------


def _panel_name(unbiased: float | None) -> str:
    if unbiased is None:
        return "scores"
    return f"bias scores (no bias: {unbiased:g})"


def headlines_figure(title: str, headlines: Sequence[HeadlineScore]) -> Figure:
    """A benchmark's headline scores with their intervals: one panel per value a model without the bias scores
    (0 for differences, 1 for ratios) and one for the other scores, each on its own scale, one row per headline."""
    panels: dict[float | None, list[HeadlineScore]] = {}
    for headline in headlines:
        panels.setdefault(headline.estimate.unbiased, []).append(headline)
    order = sorted(panels, key=lambda unbiased: math.inf if unbiased is None else unbiased)
    sizes = [len(panels[unbiased]) for unbiased in order]
    figure = Figure(figsize=(9.0, ROW_INCHES * sum(sizes) + 1.4 + 0.7 * len(order)), layout="constrained")
    axes_list = figure.subplots(len(order), 1, squeeze=False, gridspec_kw={"height_ratios": sizes})[:, 0]
    hollow = 0
    for axes, unbiased in zip(axes_list, order):
        scores = panels[unbiased]
        series = Series(title, {score.label: score.estimate for score in scores})
        hollow += interval_rows(axes, [score.label for score in scores], [series], reference=unbiased)
        axes.set_title(_panel_name(unbiased), fontsize=FONT_SIZE, loc="left")
    legend_below(figure, [Series(title, {})], hollow)
    figure.suptitle(f"{title}: headline scores with 95% intervals", fontsize=FONT_SIZE + 2)
    return figure
