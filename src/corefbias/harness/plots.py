"""The runner's figures, as PNG files (matplotlib, no display needed), one per figure a benchmark declares
(``Benchmark.figures``; the file names shown are the built-in benchmarks'):

* ``occupation_preference`` → ``winogender_occupations.png``: per occupation, the Fig. 4 preference (share of
  female-pronoun sentences resolved to the occupation minus that of male ones) against BLS % female, with r;
  it reads the rows' ``occupation`` and ``bls_pct_female`` and the section's ``preference`` of each occupation
  (its ``by_group``);
* ``inconsistency`` → ``counter_gap_delta_i.png``: the ΔI breakdown, I_within (M, F) and I_across (M2F, F2M);
* ``pro_anti`` → ``pro_anti.png``: pro vs anti score of every pro/anti section of every such benchmark, with
  the difference's 95% CI;
* ``weights`` → ``gap_weights.png``: the W-Bias weights of the scored examples, by the rows' ``gender``.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

from ..measures.result import MeasureResult  # noqa: E402
from .scoring import figures_of, occupation_preferences, pro_anti_figure_sections  # noqa: E402


def _save(figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def _value(section: MeasureResult, score: str) -> float | None:
    """An overall score's value (None where the section lacks it or it is undefined)."""
    estimate = section.overall.get(score)
    return None if estimate is None else estimate.value


def winogender_occupations(section: MeasureResult, bls_by_occupation: dict[str, float], path: Path) -> Path:
    points = [(bls_by_occupation[o], value, o) for o, value in occupation_preferences(section).items()]
    figure, axes = plt.subplots(figsize=(7, 5))
    axes.scatter([x for x, _, _ in points], [y for _, y, _ in points], s=18)
    for x, y, occupation in points:
        axes.annotate(occupation, (x, y), fontsize=6, alpha=0.7, xytext=(2, 2), textcoords="offset points")
    axes.axhline(0, color="grey", linewidth=0.8)
    axes.set_xlabel("% female in occupation (BLS)")
    axes.set_ylabel("female − male share resolved to occupation")
    r = _value(section, "pearson_r_bls")
    axes.set_title("Winogender: gender preference by occupation" + (f" (r = {r:.2f})" if r is not None else ""))
    axes.set_ylim(-1.05, 1.05)
    return _save(figure, path)


def counter_gap_breakdown(section: MeasureResult, path: Path) -> Path:
    labels = ["I_within M", "I_within F", "I_across M2F", "I_across F2M"]
    keys = ["i_within_male", "i_within_female", "i_across_m2f", "i_across_f2m"]
    values = [_value(section, key) or 0.0 for key in keys]
    figure, axes = plt.subplots(figsize=(6, 4))
    axes.bar(labels, values, color=["#4c72b0", "#dd8452", "#4c72b0", "#dd8452"])
    delta = _value(section, "delta_i")
    axes.set_title("Counter-GAP inconsistency" + (f" (ΔI = {delta:.4f})" if delta is not None else ""))
    axes.set_ylabel("share of inconsistent predictions")
    return _save(figure, path)


def pro_anti_bars(sections: dict[str, MeasureResult], path: Path) -> Path:
    names = list(sections)
    figure, axes = plt.subplots(figsize=(max(5, 1.6 * len(names)), 4))
    positions = range(len(names))
    pro = [_value(sections[n], "pro") or 0.0 for n in names]
    anti = [_value(sections[n], "anti") or 0.0 for n in names]
    axes.bar([p - 0.2 for p in positions], pro, width=0.4, label="pro-stereotypical")
    axes.bar([p + 0.2 for p in positions], anti, width=0.4, label="anti-stereotypical")
    for position, name in zip(positions, names):
        estimate = sections[name].overall.get("diff")
        low, high = estimate.ci if estimate is not None else (None, None)
        diff = None if estimate is None else estimate.value
        if diff is not None:
            interval = f"\n[{low:.3f}, {high:.3f}]" if low is not None else ""
            axes.annotate(
                f"Δ {diff:+.3f}{interval}",
                (position, max(pro[position], anti[position])),
                ha="center",
                fontsize=7,
                xytext=(0, 3),
                textcoords="offset points",
            )
    axes.set_xticks(list(positions), names, fontsize=8)
    axes.set_ylim(0, 1.15)
    axes.set_ylabel("score (CoNLL F1, link F1 for WinoBias; else accuracy)")
    axes.legend(fontsize=8, loc="lower right")
    axes.set_title("Pro- vs anti-stereotypical")
    return _save(figure, path)


def gap_weight_histogram(weights: list[float], genders: list[str], path: Path) -> Path:
    figure, axes = plt.subplots(figsize=(6, 4))
    for gender in ("female", "male"):
        values = [w for w, g in zip(weights, genders) if g == gender and w > 0]
        axes.hist(values, bins=40, alpha=0.6, label=f"{gender} ({len(values)} weighted)")
    axes.set_xlabel("W weight of the example")
    axes.set_ylabel("examples")
    axes.set_title("GAP test weights (W)")
    axes.legend(fontsize=8)
    return _save(figure, path)


def draw_all(result, folder: Path) -> dict[str, Path]:
    """Every figure the run's benchmarks declare (``Benchmark.figures``); name → PNG path."""
    runs = result.runs
    drawn: dict[str, Path] = {}
    for run, figure in figures_of(runs, "occupation_preference"):
        bls = {
            occupation: share
            for columns in run.parts.values()
            for occupation, share in zip(columns["occupation"], columns["bls_pct_female"])
        }
        name = f"{run.benchmark.name}_occupations"
        drawn[name] = winogender_occupations(run.sections[figure.section], bls, folder / f"{name}.png")
    for run, figure in figures_of(runs, "inconsistency"):
        name = f"{run.benchmark.name}_delta_i"
        drawn[name] = counter_gap_breakdown(run.sections[figure.section], folder / f"{name}.png")
    sections = pro_anti_figure_sections(runs)
    if sections:
        drawn["pro_anti"] = pro_anti_bars(sections, folder / "pro_anti.png")
    for run, figure in figures_of(runs, "weights"):
        weights = run.sections[figure.section].extras.get("weights") if figure.section in run.sections else None
        if weights:
            (columns,) = run.parts.values()
            name = f"{run.benchmark.name}_weights"
            drawn[name] = gap_weight_histogram(weights, columns["gender"], folder / f"{name}.png")
    return drawn
