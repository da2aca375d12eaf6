"""What each figure of a run draws: the runs that declare a figure of a kind, the pro and anti sections, the
occupation preferences; for the PNG figures (``plots``) and the Space's charts."""

from __future__ import annotations

from collections.abc import Mapping

from ..benchmarks import Figure
from ..measures.result import Estimate, MeasureResult
from .runner import BenchmarkRun


def figures_of(runs: Mapping[str, BenchmarkRun], kind: str) -> list[tuple[BenchmarkRun, Figure]]:
    """The scored runs whose benchmark declares a figure of ``kind``, each with that figure, in run order.

    Parameters
    ----------
    runs : mapping of str to BenchmarkRun
        A run's benchmarks.
    kind : str
        A figure kind (``FIGURE_KINDS``).

    Returns
    -------
    list of (BenchmarkRun, Figure)

    Examples
    --------
    >>> from corefbias.benchmarks import BENCHMARKS
    >>> from corefbias.measures.gap_w_bias import undefined_w_bias
    >>> run = BenchmarkRun(BENCHMARKS["gap"], sections={"gap/w": undefined_w_bias("none")})
    >>> [figure.section for _, figure in figures_of({"gap": run}, "weights")]
    ['gap/w']
    """
    return [
        (run, figure)
        for run in runs.values()
        if run.sections
        for figure in run.benchmark.figures
        if figure.kind == kind
    ]


_NO_SCORE = Estimate("", None)


def pro_anti_figure_sections(runs: Mapping[str, BenchmarkRun]) -> dict[str, MeasureResult]:
    """Every section with a pro and an anti score, of the runs that declare the ``pro_anti`` figure.

    Not breakdown sections (DaWinoBias's referent F1), nor scores a model cannot have (no CoNLL F1 without
    clusters).

    Parameters
    ----------
    runs : mapping of str to BenchmarkRun
        A run's benchmarks.

    Returns
    -------
    dict of str to MeasureResult

    Examples
    --------
    >>> from corefbias import pro_anti_diff
    >>> from corefbias.benchmarks import BENCHMARKS
    >>> scored = pro_anti_diff([True, False], [True, True], ["pro", "anti"], n_bootstrap=0)
    >>> run = BenchmarkRun(BENCHMARKS["sowinobias"], sections={"sowinobias": scored})
    >>> list(pro_anti_figure_sections({"sowinobias": run}))
    ['sowinobias']
    """
    return {
        section: values
        for run, _ in figures_of(runs, "pro_anti")
        for section, values in run.sections.items()
        if all(values.overall.get(condition, _NO_SCORE).value is not None for condition in ("pro", "anti"))
    }


def occupation_preferences(section: MeasureResult) -> dict[str, float]:
    """Occupation → its defined Fig. 4 preference, sorted by occupation.

    Parameters
    ----------
    section : MeasureResult
        A ``winogender_bias`` result.

    Returns
    -------
    dict of str to float

    Examples
    --------
    >>> from corefbias import winogender_bias
    >>> result = winogender_bias(["occupation", "participant"] * 2, ["occupation"] * 4, ["nurse"] * 2 + ["chef"] * 2,
    ...                          ["female", "male"] * 2, ["n.0", "n.0", "c.0", "c.0"], n_bootstrap=0)
    >>> occupation_preferences(result)
    {'chef': 1.0, 'nurse': 1.0}
    """
    found = {
        group: scores["preference"].value
        for group, scores in section.by_group.items()
        if "preference" in scores and scores["preference"].value is not None
    }
    return dict(sorted(found.items()))
