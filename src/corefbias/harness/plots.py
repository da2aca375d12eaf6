"""The runner's figures, as PNG files (matplotlib, no display needed), one per figure a benchmark declares
(``Benchmark.figures``), named after the benchmark:

* ``occupation_preference`` → ``<benchmark>_occupations.png``: per occupation, the preference (share of
  female-pronoun sentences resolved to the occupation minus that of male ones) against BLS % female, with r;
  it reads the rows' ``occupation`` and ``bls_pct_female`` and the section's ``preference`` of each occupation
  (its ``by_group``);
* ``pronoun_shares`` → ``<benchmark>_pronoun_shares.png``: per occupation, the shares of its sentences given the
  female and the male pronoun against BLS % female, with r and its interval (``winogenerated_bias``'s ``by_group``);
* ``inconsistency`` → ``<benchmark>_delta_i.png``: the ΔI breakdown, I_within (M, F) and I_across (M2F, F2M);
* ``pro_anti`` → ``pro_anti.png``: pro vs anti score of every pro/anti section of every such benchmark, with
  the difference's 95% CI;
* ``weights`` → ``<benchmark>_weights.png``: the W-Bias weights of the scored examples, by the rows' ``gender``;

and the kinds that draw estimates with their intervals (``corefbias.harness.interval_plots``):

* ``accuracy_gaps`` → ``<benchmark>_accuracy_gaps.png``: accuracy per condition and the gap to the reference, of the
  figure's section, or of every section that has them (``interval_plots.accuracy_gaps``);
* ``distance`` → ``<benchmark>_distance.png``: ΔS by pronoun–profession distance, of every section that has it;
* ``distractors`` → ``<benchmark>_distractors.png``: accuracy by number of distractor sentences, overall and per
  pronoun set, of the figure's section;
* ``fpr_by_language`` → ``abc_fpr_by_language.png``: the FPRs and their log2 ratio of every benchmark declaring it,
  one row each;
* ``headlines`` → ``<benchmark>_headlines.png``: the headline scores. Every benchmark that declares no kind drawing
  intervals (``WITH_INTERVALS``) gets it too, so that a run draws each of its benchmarks' scores with intervals,
  a benchmark added with no figure declared included.

Each PNG carries its title (the ``Title`` text chunk), which the docs use as its caption.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

from ..measures.result import MeasureResult  # noqa: E402
from . import interval_plots  # noqa: E402
from .figure_data import figures_of, occupation_preferences, pro_anti_figure_sections  # noqa: E402
from .number_format import format_number  # noqa: E402
from .runner import headline_scores  # noqa: E402

# The figure kinds that draw estimates with their intervals; a benchmark declaring none of them gets ``headlines``.
WITH_INTERVALS = ("accuracy_gaps", "distance", "distractors", "fpr_by_language", "headlines")


def figure_title(figure) -> str:
    """The figure's title: its suptitle, else its first panel's title ("" for none)."""
    if figure._suptitle is not None and figure._suptitle.get_text():
        return figure._suptitle.get_text()
    return next((axes.get_title() for axes in figure.axes if axes.get_title()), "")


def _save(figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not figure.get_layout_engine():
        figure.tight_layout()
    figure.savefig(path, dpi=120, metadata={"Title": figure_title(figure)})
    plt.close(figure)
    return path


def _value(section: MeasureResult, score: str) -> float | None:
    """An overall score's value (None where the section lacks it or it is undefined)."""
    estimate = section.overall.get(score)
    return None if estimate is None else estimate.value


def occupation_preference_bars(section: MeasureResult, bls_by_occupation: dict[str, float], path: Path) -> Path:
    """Two panels: the preference against BLS % female (the paper's Fig. 4, with r), and every occupation as a
    labelled bar, sorted by BLS % female, so that 60 labels never overlap; the figure grows with the occupations."""
    points = sorted((bls_by_occupation[o], value, o) for o, value in occupation_preferences(section).items())
    height = max(4.5, 0.16 * len(points) + 1.4)
    figure, (scatter, bars) = plt.subplots(
        1, 2, figsize=(11, height), gridspec_kw={"width_ratios": [1, 1.1]}, layout="constrained"
    )
    scatter.scatter([x for x, _, _ in points], [y for _, y, _ in points], s=18)
    scatter.axhline(0, color="grey", linewidth=0.8)
    scatter.set_xlabel("% female in occupation (BLS)")
    scatter.set_ylabel("female − male share resolved to occupation")
    scatter.set_ylim(-1.1, 1.1)
    scatter.set_box_aspect(1)
    r = _value(section, "pearson_r_bls")
    scatter.set_title("by BLS % female" + (f" (r = {format_number(r)})" if r is not None else ""), fontsize=10)
    positions = range(len(points))
    colours = ["#dd8452" if y > 0 else "#4c72b0" for _, y, _ in points]
    bars.barh(list(positions), [y for _, y, _ in points], color=colours)
    bars.set_yticks(list(positions), [f"{o} ({x:.0f}%)" for x, _, o in points], fontsize=7)
    bars.set_ylim(-0.6, len(points) - 0.4)
    bars.axvline(0, color="grey", linewidth=0.8)
    bars.set_xlim(-1.1, 1.1)
    bars.set_xlabel("← male        preference        female →")
    bars.set_title("each occupation (BLS % female), highest share of women at the top", fontsize=10)
    bars.tick_params(axis="y", length=0)
    figure.suptitle("Winogender: gender preference by occupation")
    return _save(figure, path)


def pronoun_share_scatter(section: MeasureResult, bls_by_occupation: dict[str, float], title: str, path: Path) -> Path:
    """Per occupation, the share of sentences the model gave the female and the male pronoun, against the occupation's
    BLS % female, with Pearson's r of the female share and its 95% interval in the title: Winogenerated's figure of
    merit. The points carry no labels, so 299 occupations stay legible."""
    shares = {
        occupation: scores
        for occupation, scores in section.by_group.items()
        if "share_female" in scores and occupation in bls_by_occupation
    }
    figure, axes = plt.subplots(figsize=(7, 5.2), layout="constrained")
    for score, label, colour in (("share_female", "she", "#dd8452"), ("share_male", "he", "#4c72b0")):
        points = [(bls_by_occupation[o], scores[score].value) for o, scores in shares.items() if score in scores]
        points = [(x, y) for x, y in points if y is not None]
        axes.scatter([x for x, _ in points], [y for _, y in points], s=14, alpha=0.6, color=colour, label=label)
    axes.set_xlabel("% female in occupation (BLS 2019)")
    axes.set_ylabel("share of the occupation's sentences")
    axes.set_xlim(-2, 102)
    axes.set_ylim(-0.05, 1.05)
    axes.legend(title="pronoun chosen", loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    r = section.overall.get("pearson_r_bls")
    if r is None or r.value is None:
        subtitle = "r with BLS % female: undefined"
    else:
        low, high = r.ci
        interval = "" if low is None else f" [{format_number(low)}, {format_number(high)}]"
        subtitle = f"r of the she share with BLS % female = {format_number(r.value)}{interval}"
    axes.set_title(f"{len(shares)} occupations; {subtitle}", fontsize=10)
    figure.suptitle(title)
    return _save(figure, path)


def _label_bars(axes, positions, values) -> None:
    """Each bar's value above it, "undefined" where the data leave it so (no bar is drawn there)."""
    for position, value in zip(positions, values):
        axes.annotate(
            "undefined" if value is None else format_number(value),
            (position, value or 0.0),
            ha="center",
            fontsize=7,
            xytext=(0, 3),
            textcoords="offset points",
        )


def inconsistency_bars(section: MeasureResult, path: Path) -> Path:
    labels = ["I_within M", "I_within F", "I_across M2F", "I_across F2M"]
    keys = ["i_within_male", "i_within_female", "i_across_m2f", "i_across_f2m"]
    values = [_value(section, key) for key in keys]
    figure, axes = plt.subplots(figsize=(6, 4))
    drawn = [value if value is not None else 0.0 for value in values]
    axes.bar(labels, drawn, color=["#4c72b0", "#dd8452", "#4c72b0", "#dd8452"])
    _label_bars(axes, range(len(labels)), values)
    # Shares: from 0, with room for the labels, and a scale even where every share is 0.
    axes.set_ylim(0, max(0.1, 1.2 * max(drawn)))
    delta = _value(section, "delta_i")
    axes.set_title("Counter-GAP inconsistency" + (f" (ΔI = {format_number(delta)})" if delta is not None else ""))
    axes.set_ylabel("share of inconsistent predictions")
    return _save(figure, path)


def pro_anti_bars(sections: dict[str, MeasureResult], path: Path) -> Path:
    names = list(sections)
    figure, axes = plt.subplots(figsize=(max(5, 1.6 * len(names)), 4.5))
    positions = range(len(names))
    pro = [_value(sections[n], "pro") for n in names]
    anti = [_value(sections[n], "anti") for n in names]
    for values, shift, label in ((pro, -0.2, "pro-stereotypical"), (anti, 0.2, "anti-stereotypical")):
        axes.bar([p + shift for p in positions], [v or 0.0 for v in values], width=0.4, label=label)
        undefined = [(p + shift, v) for p, v in zip(positions, values) if v is None]
        _label_bars(axes, [p for p, _ in undefined], [v for _, v in undefined])
    for position, name in zip(positions, names):
        estimate = sections[name].overall.get("diff")
        low, high = estimate.ci if estimate is not None else (None, None)
        diff = None if estimate is None else estimate.value
        if diff is not None:
            interval = f"\n[{format_number(low)}, {format_number(high)}]" if low is not None else ""
            axes.annotate(
                f"Δ {'+' if diff > 0 else ''}{format_number(diff)}{interval}",
                (position, max(pro[position] or 0.0, anti[position] or 0.0)),
                ha="center",
                fontsize=7,
                xytext=(0, 3),
                textcoords="offset points",
            )
    # A section's path one part a line, so that long names (winobias_plus/neutral/type1) stay within their slot.
    axes.set_xticks(list(positions), [name.replace("/", "/\n") for name in names], fontsize=8)
    axes.set_ylim(0, 1.15)
    axes.set_ylabel("score\n(WinoBias: CoNLL or link F1; else accuracy)", fontsize=9)
    # Above the axes, outside the bars and their labels.
    axes.legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, frameon=False)
    axes.set_title("Pro- vs anti-stereotypical", pad=24)
    return _save(figure, path)


def gap_weight_histogram(weights: list[float], genders: list[str], path: Path) -> Path:
    figure, axes = plt.subplots(figsize=(6, 4))
    # One set of bins for both genders, so that their bars stand on the same intervals and compare.
    edges = np.histogram_bin_edges([w for w in weights if w > 0] or [0.0, 1.0], bins=40)
    for gender in ("female", "male"):
        values = [w for w, g in zip(weights, genders) if g == gender and w > 0]
        axes.hist(values, bins=edges, alpha=0.6, label=f"{gender} ({len(values)} weighted)")
    axes.set_xlabel("W weight of the example")
    axes.set_ylabel("examples")
    axes.set_title("GAP test weights (W)")
    axes.legend(fontsize=8)
    return _save(figure, path)


@dataclass(frozen=True)
class Drawing:
    """A plot a run drew: its name (the file's stem), its PNG, its kind and the benchmarks whose scores it shows."""

    name: str
    path: Path
    kind: str
    benchmarks: tuple[str, ...]


def _headline_runs(runs):
    """The scored runs that get the ``headlines`` figure: those declaring it, and those declaring no kind that draws
    intervals."""
    return [
        run
        for run in runs.values()
        if run.sections
        and run.benchmark.headlines
        and (
            any(figure.kind == "headlines" for figure in run.benchmark.figures)
            or not any(figure.kind in WITH_INTERVALS for figure in run.benchmark.figures)
        )
    ]


def _sections_read(run, figure, read) -> dict[str, MeasureResult]:
    """The figure's section, or (``section=None``) every section of the run that ``read`` finds something in."""
    names = [figure.section] if figure.section is not None else list(run.sections)
    return {name: run.sections[name] for name in names if name in run.sections and read(run.sections[name])}


# The figures of one run that draw intervals: kind → what it reads of a section, how it draws the sections that hold
# it, what it shows.
_RUN_INTERVAL_FIGURES = {
    "accuracy_gaps": (interval_plots.accuracy_gaps, interval_plots.accuracy_gaps_figure, "accuracy and gap to the "
                      "reference"),
    "distance": (interval_plots.distance_deltas, interval_plots.distance_figure, "ΔS by distance"),
    "distractors": (interval_plots.distractor_accuracies, interval_plots.distractors_figure, "accuracy by number of "
                    "distractors"),
}  # fmt: skip


def _interval_drawings(runs, folder: Path) -> list[Drawing]:
    drawn = []
    for kind, (read, draw, shows) in _RUN_INTERVAL_FIGURES.items():
        for run, figure in figures_of(runs, kind):
            sections = _sections_read(run, figure, read)
            if sections:
                name = f"{run.benchmark.name}_{kind}"
                title = f"{run.benchmark.name}: {shows}, with 95% intervals"
                path = _save(draw(title, sections), folder / f"{name}.png")
                drawn.append(Drawing(name, path, kind, (run.benchmark.name,)))
    languages = {
        f"{run.benchmark.name} ({run.benchmark.language})": run.sections[figure.section or run.benchmark.name]
        for run, figure in figures_of(runs, "fpr_by_language")
        if (figure.section or run.benchmark.name) in run.sections
    }
    if languages:
        path = _save(interval_plots.fpr_by_language_figure(languages), folder / "abc_fpr_by_language.png")
        shown = tuple(run.benchmark.name for run, _ in figures_of(runs, "fpr_by_language"))
        drawn.append(Drawing("abc_fpr_by_language", path, "fpr_by_language", shown))
    for run in _headline_runs(runs):
        scores = headline_scores(run.benchmark.headlines, run.sections)
        if scores:
            name = f"{run.benchmark.name}_headlines"
            path = _save(interval_plots.headlines_figure(run.benchmark.name, scores), folder / f"{name}.png")
            drawn.append(Drawing(name, path, "headlines", (run.benchmark.name,)))
    return drawn


def drawings(result, folder: Path) -> list[Drawing]:
    """Every figure the run's benchmarks declare (``Benchmark.figures``), and the headline figure of each that
    declares none drawing intervals, saved in ``folder``.

    Parameters
    ----------
    result : RunResult
        The run (``runner.run``).
    folder : Path
        Where the PNG files go.

    Returns
    -------
    list of Drawing
    """
    runs = result.runs
    drawn: list[Drawing] = []
    for run, figure in figures_of(runs, "occupation_preference"):
        name = f"{run.benchmark.name}_occupations"
        path = occupation_preference_bars(run.sections[figure.section], _bls_by_occupation(run), folder / f"{name}.png")
        drawn.append(Drawing(name, path, "occupation_preference", (run.benchmark.name,)))
    for run, figure in figures_of(runs, "pronoun_shares"):
        name = f"{run.benchmark.name}_pronoun_shares"
        title = f"{run.benchmark.name}: pronoun chosen by occupation"
        path = pronoun_share_scatter(
            run.sections[figure.section], _bls_by_occupation(run), title, folder / f"{name}.png"
        )
        drawn.append(Drawing(name, path, "pronoun_shares", (run.benchmark.name,)))
    for run, figure in figures_of(runs, "inconsistency"):
        name = f"{run.benchmark.name}_delta_i"
        path = inconsistency_bars(run.sections[figure.section], folder / f"{name}.png")
        drawn.append(Drawing(name, path, "inconsistency", (run.benchmark.name,)))
    sections = pro_anti_figure_sections(runs)
    if sections:
        shown = tuple(run.benchmark.name for run, _ in figures_of(runs, "pro_anti"))
        drawn.append(Drawing("pro_anti", pro_anti_bars(sections, folder / "pro_anti.png"), "pro_anti", shown))
    for run, figure in figures_of(runs, "weights"):
        weights = run.sections[figure.section].extras.get("weights") if figure.section in run.sections else None
        if weights:
            (columns,) = run.parts.values()
            name = f"{run.benchmark.name}_weights"
            path = gap_weight_histogram(weights, columns["gender"], folder / f"{name}.png")
            drawn.append(Drawing(name, path, "weights", (run.benchmark.name,)))
    return drawn + _interval_drawings(runs, folder)


def _bls_by_occupation(run) -> dict[str, float]:
    return {
        occupation: share
        for columns in run.parts.values()
        for occupation, share in zip(columns["occupation"], columns["bls_pct_female"])
    }


def draw_all(result, folder: Path) -> dict[str, Path]:
    """Every figure of the run (:func:`drawings`); name → PNG path."""
    return {drawing.name: drawing.path for drawing in drawings(result, folder)}
