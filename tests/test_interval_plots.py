"""A run over every benchmark draws at least one plot of each, its scores with their intervals, and no text of a plot
is drawn over another, at the full sizes of the sets (eleven pronoun sets, 299 occupations, every distance bin)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import interval_plots, plots, runner
from corefbias.harness.runner import HeadlineScore
from corefbias.measures.result import Cell, Estimate, measure_result
from corefbias.measures.stored_results import from_flat

# The sets a run over every benchmark reads (ABC's languages are configs of one set).
DATASETS = sorted({benchmark.dataset for benchmark in BENCHMARKS.values()})


def drawn_texts(figure):
    """Every text the figure draws: tick labels of the ticks in view, titles, axis labels, annotations, legends."""
    texts = [figure._suptitle, *figure.texts]
    for legend in figure.legends:
        texts += legend.get_texts()
    for axes in figure.axes:
        texts += [axes.title, axes._left_title, axes._right_title, axes.xaxis.label, axes.yaxis.label, *axes.texts]
        if axes.get_legend() is not None:
            texts += axes.get_legend().get_texts()
        for axis in (axes.xaxis, axes.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks():
                if low - 1e-9 <= tick.get_loc() <= high + 1e-9:
                    texts += [tick.label1, tick.label2]
    drawn = {id(text): text for text in texts if text is not None and text.get_visible() and text.get_text().strip()}
    return list(drawn.values())  # the suptitle is also among the figure's texts


def overlapping_texts(figure) -> list[tuple[str, str]]:
    """The pairs of drawn texts whose rendered boxes overlap by more than a pixel each way."""
    FigureCanvasAgg(figure).draw()
    renderer = figure.canvas.get_renderer()
    texts = drawn_texts(figure)
    boxes = np.array([text.get_window_extent(renderer).extents for text in texts])  # x0, y0, x1, y1
    width = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    height = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    first, second = np.nonzero(np.triu((width > 1) & (height > 1), k=1))
    return [(texts[i].get_text(), texts[j].get_text()) for i, j in zip(first, second)]


def intervals_of(figure) -> list:
    """The whiskers the figure draws (``interval_plots.INTERVAL``), one per estimate with an interval."""
    return [line for axes in figure.axes for line in axes.get_lines() if line.get_gid() == interval_plots.INTERVAL]


@pytest.fixture
def built(monkeypatch):
    """The figures the run's plotting builds, by file name, kept open instead of rendered and saved."""
    figures = {}

    def keep(figure, path):
        figures[path.stem] = figure
        return path

    monkeypatch.setattr(plots, "_save", keep)
    return figures


def run_everything(exported_set, tmp_path, model, limit, n_bootstrap):
    # Exported once per session: the quick tier's run of every benchmark (test_limits.py) exports them all too.
    data_dir = {exported_set(name).parent for name in DATASETS}.pop()
    return runner.run(
        model,
        ["all"],
        settings=runner.RunSettings(limit=limit, n_bootstrap=n_bootstrap),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )


def without_intervals(figure) -> bool:
    """Whether the figure says why it draws no interval somewhere: hollow points (its legend explains them), or
    scores the data leave undefined."""
    legend = [text.get_text() for legend in figure.legends for text in legend.get_texts()]
    undefined = [text.get_text() for axes in figure.axes for text in axes.texts]
    return interval_plots.NO_INTERVAL in legend or "undefined" in undefined


def check_every_benchmark_plotted(result, drawings, figures, *, whole: bool) -> None:
    """Every benchmark has a plot of a kind drawing intervals; with the sets ``whole``, some whisker in it, else
    (too few blocks for an interval at a small limit) some whisker or what marks their absence."""
    plotted = {name: [d for d in drawings if name in d.benchmarks] for name in result.runs}
    assert [name for name, drawn in plotted.items() if not drawn] == []
    shown = {
        name: [
            d.name
            for d in drawn
            if d.kind in plots.WITH_INTERVALS
            and (intervals_of(figures[d.name]) or (not whole and without_intervals(figures[d.name])))
        ]
        for name, drawn in plotted.items()
    }
    assert [name for name, drawn in shown.items() if not drawn] == []


def test_a_quick_run_over_every_benchmark_draws_each_with_intervals(exported_set, tmp_path, built):
    result = run_everything(exported_set, tmp_path, "baseline:stereotype", limit=1, n_bootstrap=20)
    drawings = plots.drawings(result, tmp_path / "plots")
    assert set(result.runs) == set(BENCHMARKS)
    check_every_benchmark_plotted(result, drawings, built, whole=False)
    # The four ABC languages share one figure, one row each; WinoPron's three template types are three series.
    (abc,) = [d for d in drawings if d.kind == "fpr_by_language"]
    assert abc.benchmarks == ("abc", "abc_sv", "abc_ru", "abc_zh")
    rows = [label.get_text() for label in built[abc.name].axes[0].get_yticklabels()]
    assert rows == ["abc (da)", "abc_sv (sv)", "abc_ru (ru)", "abc_zh (zh)"]
    legend = [text.get_text() for text in built["winopron_accuracy_gaps"].legends[0].get_texts()]
    assert legend[:3] == ["double", "single", "old"]
    # A benchmark declaring only figures without intervals gets its headline figure; one drawing them does not.
    names = {d.name for d in drawings}
    assert {"winogender_headlines", "gap_headlines", "counter_gap_headlines", "winobias_headlines"} <= names
    assert "misgendered_headlines" not in names and "bug_headlines" not in names
    assert {"ruff_accuracy_gaps", "ruff_distractors", "bug_distance", "map_accuracy_gaps"} <= names


@pytest.mark.slow
def test_a_full_run_over_every_benchmark_draws_legible_plots_with_intervals(exported_set, tmp_path, built):
    """Every set whole: no text of any plot overlaps another (the full pronoun sets, occupations, ablations)."""
    result = run_everything(exported_set, tmp_path, "baseline:stereotype", limit=None, n_bootstrap=200)
    drawings = plots.drawings(result, tmp_path / "plots")
    check_every_benchmark_plotted(result, drawings, built, whole=True)
    assert {name: overlapping_texts(figure) for name, figure in built.items()} == dict.fromkeys(built, [])


def _interval(key: str, value: float, half: float = 0.1) -> Estimate:
    return Estimate(key, value, value - half, value + half, reported=("ci_low", "ci_high"))


def test_eleven_pronoun_sets_in_three_series_neither_overlap_nor_lose_an_interval():
    sets = ["he", "she", "they", "thon", "e", "ae", "co", "vi", "xe", "ey", "ze"]
    sections = {}
    for series, shift in (
        ("pronoun_set_diff/double", 0.0),
        ("pronoun_set_diff/single", 0.1),
        ("pronoun_set_diff/old", 0.2),
    ):
        scores = {f"accuracy/{name}": 0.3 + shift for name in sets} | {"accuracy/reference": 0.5 + shift}
        scores |= {f"diff/{name}": -0.2 - shift for name in sets[2:]}
        scores |= {f"{key}_ci_low": value - 0.1 for key, value in list(scores.items())}
        scores |= {f"{key[:-7]}_ci_high": scores[key] + 0.2 for key in list(scores) if key.endswith("_ci_low")}
        sections[series] = from_flat(scores, measure="pronoun_set_diff")
    figure = interval_plots.accuracy_gaps_figure("misgendered", sections)
    assert overlapping_texts(figure) == []
    rows = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert rows == ["he", "she", "he + she", *sets[2:]]
    # 12 accuracies and 9 gaps per series.
    assert len(intervals_of(figure)) == 3 * (12 + 9)


@pytest.mark.slow
def test_299_occupations_neither_overlap_nor_leave_the_image(tmp_path, monkeypatch):
    """Winogenerated's 299 occupations, each labelled once, the longest names among them."""
    figures = []
    monkeypatch.setattr(plots, "_save", lambda figure, path: figures.append(figure))
    names = [f"{'administrative assistant' if index % 2 else 'nurse'} {index}" for index in range(299)]
    scores = {f"preference/{name}": (-1) ** index * (index / 299) for index, name in enumerate(names)}
    cells = {f"preference/{name}": (Cell(group=name), "preference") for name in names}
    section = measure_result("winogender_bias", scores | {"pearson_r_bls": 0.5}, cells=cells)
    bls = {name: 100 * ((index * 37) % 299) / 299 for index, name in enumerate(names)}
    plots.occupation_preference_bars(section, bls, tmp_path / "occupations.png")
    (figure,) = figures
    assert overlapping_texts(figure) == []
    assert len([label for label in figure.axes[1].get_yticklabels() if label.get_text()]) == 299


def test_headlines_are_split_by_their_unbiased_value_and_undefined_ones_say_so():
    headlines = [
        HeadlineScore("s", "accuracy", Estimate("accuracy", 0.8)),
        HeadlineScore("s", "acc-Bias (F/M)", replace(_interval("acc_bias", 0.9), unbiased=1.0)),
        HeadlineScore("s", "W-Bias", Estimate("w_bias", None, undefined="no weights", unbiased=1.0)),
        *(
            HeadlineScore("s", f"{name} − he/she accuracy", replace(_interval(f"diff/{name}", -0.3), unbiased=0.0))
            for name in "abcdefghijk"
        ),
    ]
    figure = interval_plots.headlines_figure("toy", headlines)
    assert [axes.get_title(loc="left") for axes in figure.axes] == [
        "bias scores (no bias: 0)",
        "bias scores (no bias: 1)",
        "scores",
    ]
    assert [len(axes.get_yticks()) for axes in figure.axes] == [11, 2, 1]
    assert [text.get_text() for text in figure.axes[1].texts] == ["undefined"]
    assert len(intervals_of(figure)) == 12
    # The accuracy has no interval: drawn hollow, and the legend says what hollow means.
    assert [text.get_text() for text in figure.legends[0].get_texts()] == [interval_plots.NO_INTERVAL]
    assert overlapping_texts(figure) == []


def test_an_interval_is_drawn_from_its_ends_even_when_it_leaves_out_its_value():
    """A percentile bootstrap interval need not hold its value (a skewed score): drawn as it is, not clipped."""
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots()
    skewed = Estimate("delta_s/distance_0-4", 1.0, 0.2, 0.8)
    interval_plots.interval_rows(axes, ["0-4"], [interval_plots.Series("gold", {"0-4": skewed})])
    (whisker,) = intervals_of(figure)
    assert list(whisker.get_xdata()) == [0.2, 0.8]
    plt.close(figure)


@pytest.mark.parametrize("names", [["map", "map/human"], ["bug/gold", "bug/balanced"]])
def test_series_names_drop_only_a_shared_leading_path(names):
    expected = {"map": ["map", "map/human"], "bug/gold": ["gold", "balanced"]}[names[0]]
    assert interval_plots.series_names(names) == expected


def test_every_kind_a_benchmark_may_declare_is_drawn():
    """A kind added to the declarations without a drawing would leave its benchmarks without their figure."""
    from corefbias.benchmarks import FIGURE_KINDS

    assert set(FIGURE_KINDS) == set(plots.WITH_INTERVALS) | {
        "occupation_preference",
        "pronoun_shares",
        "inconsistency",
        "pro_anti",
        "weights",
    }


def test_the_space_shows_a_stored_runs_plots_by_name(tmp_path):
    from corefbias.space.store import RunStore

    store = RunStore(tmp_path)
    folder = store.runs / "20261207-120000-0123abcd"
    (folder / "plots").mkdir(parents=True)
    (folder / "results.json").write_text("{}", encoding="utf-8")
    for name in ("winopron_accuracy_gaps.png", "abc_fpr_by_language.png", "notes.txt"):
        (folder / "plots" / name).write_bytes(b"")
    assert [path.name for path in store.plots(folder.name)] == ["abc_fpr_by_language.png", "winopron_accuracy_gaps.png"]
    with pytest.raises(ValueError, match="no run"):
        store.plots("../elsewhere")


def test_ruffs_distractors_are_rows_in_number_order_with_all_pronouns_first():
    scores = {}
    for number in range(6):
        scores[f"accuracy/distractors/{number}"] = 0.9 - 0.1 * number
        scores[f"accuracy/distractors/{number}_ci_low"] = 0.8 - 0.1 * number
        scores[f"accuracy/distractors/{number}_ci_high"] = 1.0 - 0.1 * number
        for name in ("he", "she", "they", "xe"):
            scores[f"accuracy/pronoun_set/{name}/distractors/{number}"] = 0.5
    section = from_flat(scores, measure="ruff_accuracy")
    figure = interval_plots.distractors_figure("ruff", {"ruff": section})
    assert [label.get_text() for label in figure.axes[0].get_yticklabels()] == ["0", "1", "2", "3", "4", "5"]
    legend = [text.get_text() for text in figure.legends[0].get_texts()]
    assert legend == ["all pronouns", "he", "she", "they", "xe", interval_plots.NO_INTERVAL]
    assert [list(whisker.get_xdata()) for whisker in intervals_of(figure)][0] == [0.8, 1.0]
    assert len(intervals_of(figure)) == 6  # the pronoun sets' accuracies by distractors have no interval
    assert overlapping_texts(figure) == []


def test_the_pro_anti_bars_of_a_dozen_long_section_names_do_not_overlap(monkeypatch, tmp_path):
    """More benchmarks declaring ``pro_anti`` (WinoBias+ beside WinoBias, SoWinoBias, DaWinoBias) share one figure."""
    figures = []
    monkeypatch.setattr(plots, "_save", lambda figure, path: figures.append(figure))
    names = [f"winobias_plus/{kind}/type{number}" for kind in ("gendered", "neutral", "conll") for number in (1, 2)]
    names += ["winobias/type1", "winobias/type2", "sowinobias", "dawinobias", "dawinobias/strict"]
    scores = {"pro": 1.0, "anti": 0.98, "diff": 0.02, "diff_ci_low": -0.012, "diff_ci_high": 0.05}
    plots.pro_anti_bars({name: from_flat(scores) for name in names}, tmp_path / "pro_anti.png")
    (figure,) = figures
    assert overlapping_texts(figure) == []
    ticks = [label.get_text() for label in figure.axes[0].get_xticklabels()]
    assert ticks[0] == "winobias_plus/\ngendered/\ntype1" and ticks[-3] == "sowinobias"
