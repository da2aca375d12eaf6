"""The run's figures are legible: no label drawn over another, no legend over the data, every label inside the image."""

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from corefbias.harness import plots
from corefbias.measures.result import Cell, measure_result
from corefbias.measures.stored_results import from_flat


@pytest.fixture
def drawn(monkeypatch):
    """The figures the plotting functions save, drawn, so the extents of their texts can be measured."""
    figures = []
    save = plots._save

    def keep(figure, path):
        written = save(figure, path)
        FigureCanvasAgg(figure).draw()  # closing the figure took its canvas: lay it out again as it was saved
        figures.append(figure)
        return written

    monkeypatch.setattr(plots, "_save", keep)
    return figures


def _inside(box, figure) -> bool:
    whole = figure.bbox
    return box.x0 >= whole.x0 - 1 and box.x1 <= whole.x1 + 1 and box.y0 >= whole.y0 - 1 and box.y1 <= whole.y1 + 1


def test_sixty_occupation_labels_neither_overlap_nor_leave_the_image(drawn, tmp_path):
    """Winogender's 60 occupations, the longest names among them, each labelled once, in order of BLS % female."""
    names = [f"{'administrative-assistant' if index % 2 else 'nurse'}-{index}" for index in range(60)]
    scores = {f"preference/{name}": (-1) ** index * (index / 60) for index, name in enumerate(names)}
    scores["pearson_r_bls"] = 0.5
    cells = {f"preference/{name}": (Cell(group=name), "preference") for name in names}
    section = measure_result("winogender_bias", scores, cells=cells)
    bls = {name: 100 * ((index * 37) % 60) / 60 for index, name in enumerate(names)}
    plots.occupation_preference_bars(section, bls, tmp_path / "occupations.png")
    (figure,) = drawn
    renderer = figure.canvas.get_renderer()
    bars = figure.axes[1]
    labels = [label for label in bars.get_yticklabels() if label.get_text()]
    assert len(labels) == 60
    assert [label.get_text().rsplit(" (", 1)[0] for label in labels] == sorted(names, key=bls.get)
    boxes = sorted((label.get_window_extent(renderer) for label in labels), key=lambda box: box.y0)
    assert all(lower.y1 <= upper.y0 + 0.5 for lower, upper in zip(boxes, boxes[1:]))
    assert all(_inside(box, figure) for box in boxes)


def test_the_pro_anti_legend_is_outside_the_bars(drawn, tmp_path):
    sections = {
        name: from_flat({"pro": 1.0, "anti": 0.98, "diff": 0.02, "diff_ci_low": -0.01, "diff_ci_high": 0.05})
        for name in ("winobias/type1", "winobias/type2", "sowinobias", "dawinobias", "dawinobias/strict")
    }
    plots.pro_anti_bars(sections, tmp_path / "pro_anti.png")
    (figure,) = drawn
    renderer = figure.canvas.get_renderer()
    axes = figure.axes[0]
    legend = axes.get_legend().get_window_extent(renderer)
    assert legend.y0 >= axes.get_window_extent(renderer).y1 - 0.5  # above the plotting area, not on a bar
    texts = [axes.title, axes.yaxis.label, *axes.texts]
    assert all(_inside(text.get_window_extent(renderer), figure) for text in texts)


def test_delta_i_bars_start_at_zero_and_say_each_value_even_when_all_are_zero(drawn, tmp_path):
    # Before, shares all 0 drew empty axes from -0.04 to 0.04, and an undefined share as a bar of 0.
    shares = {"i_within_male": 0.0, "i_within_female": 0.0, "i_across_m2f": 0.0, "delta_i": 0.0}
    plots.inconsistency_bars(from_flat(shares), tmp_path / "delta_i.png")
    (figure,) = drawn
    axes = figure.axes[0]
    assert axes.get_ylim()[0] == 0.0 and axes.get_ylim()[1] > 0.0
    assert [text.get_text() for text in axes.texts] == ["0.000", "0.000", "0.000", "undefined"]


def test_both_genders_weights_share_their_histogram_bins(drawn, tmp_path):
    # Before, each gender had 40 bins of its own range: bars of different widths at different places.
    weights = [0.5, 0.6, 0.7, 3.0, 0.0, 1.0, 1.1, 1.2]
    genders = ["female"] * 4 + ["male"] * 4
    plots.gap_weight_histogram(weights, genders, tmp_path / "weights.png")
    (figure,) = drawn
    female, male = figure.axes[0].containers
    assert [bar.get_x() for bar in female] == [bar.get_x() for bar in male]
    assert {round(bar.get_width(), 9) for bar in [*female, *male]} == {round((3.0 - 0.5) / 40, 9)}


def test_the_pronoun_share_scatter_places_each_occupation_at_its_shares_and_titles_r_with_its_interval(drawn, tmp_path):
    """Three occupations, ten sentences each: one point per occupation and pronoun at (BLS % female, share chosen)."""
    from corefbias import winogenerated_bias

    bls = {"nurse": 88.0, "mechanic": 2.0, "teacher": 70.0}
    choices = {
        "nurse": ["female"] * 7 + ["male"] * 3,
        "mechanic": ["male"] * 9 + ["neutral"],
        "teacher": ["female"] * 10,
    }
    occupations = [name for name, chosen in choices.items() for _ in chosen]
    section = winogenerated_bias(
        [choice for chosen in choices.values() for choice in chosen],
        occupations,
        [bls[name] for name in occupations],
        n_bootstrap=0,
    )
    plots.pronoun_share_scatter(section, bls, "toy", tmp_path / "shares.png")
    (figure,) = drawn
    (axes,) = [axes for axes in figure.axes if axes.collections]
    she, he = (sorted(map(tuple, collection.get_offsets().tolist())) for collection in axes.collections)
    assert she == [(2.0, 0.0), (70.0, 1.0), (88.0, 0.7)]
    assert he == [(2.0, 0.9), (70.0, 0.0), (88.0, 0.3)]
    r = section.overall["pearson_r_bls"].value
    assert r == pytest.approx(0.87931, abs=1e-5)  # numpy.corrcoef([0, 1, 0.7], [2, 70, 88])[0, 1]
    assert axes.get_title() == f"3 occupations; r of the she share with BLS % female = {plots.format_number(r)}"
