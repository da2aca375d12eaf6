"""The one scoring pipeline: a benchmark's rows and the answers to them → every score, and the instances.

``corefbias run`` gets the answers from a model (or the prediction cache), ``corefbias score`` from a
predictions file; both hand them to :func:`score_benchmark`, so a file and a model giving the same answers
get the same numbers. Answers (*outputs*) are, per instance, a cluster model's clusters, a choice
model's ``choice_output`` dict, or a predictions file's ``{"decision", "parsed"}`` links. ``compare`` and
calibration rescore decisions with :func:`scored_sections`, which keeps each section's unit rows.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..benchmarks import Benchmark, Figure, Part, rows_of
from ..measures.result import Estimate, MeasureResult, from_flat
from . import cluster_links
from .dont_know_scores import dont_know_sections
from .parse_rates import is_low, parse_rate, without_readable_answers
from .position_rates import results_fields as position_fields
from .result_schema import headline_scores


@dataclass
class BenchmarkRun:
    """One benchmark's outcome: scores per section, decisions per instance, bookkeeping.

    Attributes
    ----------
    benchmark : Benchmark
        The benchmark.
    parts : dict
        (config, split) → the scored rows, as columns.
    sections : dict of str to MeasureResult
        Section name → its measure's result.
    instances : list of dict
        Per instance: ``id``, ``config``, ``split``, ``decision``, ``gold``, ``parsed`` (and the model's clusters or
        option position, where it gave them).
    num_unparsed, num_predicted : int
        Answers that could not be read; instances the model answered in this run (the rest came from the cache).
    model_seconds, predict_seconds, score_seconds, wall_seconds : float
        Time inside the model's calls, in the prediction loop, scoring, and in all.

    Examples
    --------
    >>> from corefbias.benchmarks import BENCHMARKS
    >>> BenchmarkRun(BENCHMARKS["sowinobias"]).sections
    {}
    """

    benchmark: Benchmark
    parts: dict = field(default_factory=dict)  # (config, split) → the scored rows, as columns (name → list)
    sections: dict[str, MeasureResult] = field(default_factory=dict)
    instances: list[dict] = field(default_factory=list)  # id, config, split, decision, gold, parsed
    num_unparsed: int = 0
    num_predicted: int = 0  # instances the model answered in this run (the rest came from the cache)
    model_seconds: float = 0.0  # inside the model's calls
    predict_seconds: float = 0.0  # the prediction loop: the model plus the harness around it
    score_seconds: float = 0.0
    wall_seconds: float = 0.0  # everything, loading the set included

    def record(self) -> dict:
        """What ``results.json`` records of the run (``result_schema.PromptRun``'s fields but the template).

        Returns
        -------
        dict
            Its counts, parse and position rates, headlines (``HeadlineScore``) and sections (``MeasureResult``).
        """
        rate = parse_rate(len(self.instances), self.num_unparsed)
        return {
            "num_instances": len(self.instances),
            "num_unparsed": self.num_unparsed,
            "parse_rate": rate,
            "low_parse_rate": is_low(rate),
            **position_fields(self.instances),
            "num_predicted": self.num_predicted,
            "headlines": headline_scores(self.benchmark.headlines, self.sections),
            "sections": self.sections,
        }


def decision_of(output, row: dict, mode: str) -> tuple[list[bool], bool]:
    """Per-candidate links of one instance, and whether the answer could be read.

    Parameters
    ----------
    output : list or dict
        The model's answer: a cluster model's clusters, a choice model's ``choice_output`` dict, or a predictions
        file's ``{"decision", "parsed"}``.
    row : dict
        The instance's row (``candidates``, ``pronoun``).
    mode : str
        How clusters become links (one of ``cluster_links.DECISION_MODES``).

    Returns
    -------
    tuple of (list of bool, bool)

    Examples
    --------
    >>> row = {"candidates": [{}, {}], "pronoun": {"start": 0, "end": 3}}
    >>> decision_of({"choice": 1, "parsed": True}, row, "cluster")
    ([False, True], True)
    """
    candidates = row["candidates"]
    if isinstance(output, dict) and "decision" in output:
        return [bool(link) for link in output["decision"]], output["parsed"]
    if isinstance(output, dict) and "choice" in output:
        index = output["choice"]
        return [index == position for position in range(len(candidates))], output["parsed"]
    pronoun = (row["pronoun"]["start"], row["pronoun"]["end"])
    spans = [(candidate["start"], candidate["end"]) for candidate in candidates]
    return cluster_links.link_decisions(pronoun, spans, output, mode), True


def refusal_of_clusters(benchmark: Benchmark) -> str:
    """Why a benchmark scores no coreference clusters (its ``clusters_cannot_express``), as ``run`` and ``score`` say.

    Parameters
    ----------
    benchmark : Benchmark
        A benchmark whose ``clusters_cannot_express`` is set.

    Returns
    -------
    str
        The message: the benchmark, its reason, and what to run instead.

    Examples
    --------
    >>> from corefbias.benchmarks import BENCHMARKS
    >>> refusal_of_clusters(BENCHMARKS["ruff"]).startswith("ruff cannot be scored on coreference clusters: ")
    True
    """
    return (
        f"{benchmark.name} cannot be scored on coreference clusters: {benchmark.clusters_cannot_express} "
        f"Run it with a choice model (a baseline, hf:, completions:, chat:) or score a file of its decisions."
    )


def scored_sections(
    benchmark: Benchmark,
    rows: Mapping[Part, dict],
    decisions: Mapping[Part, list],
    outputs: Mapping[Part, list] | None,
    n_bootstrap: int,
    seed: int,
) -> dict[str, MeasureResult]:
    """Every section of the benchmark: its scores of the decisions, and of the outputs where it scores those
    (``outputs=None``: not scored), each a ``MeasureResult`` with the unit rows it resampled (``unit_rows``, None
    where it hands over none).

    Parameters
    ----------
    benchmark : Benchmark
        The benchmark whose scorers (``score``, ``score_outputs``) run.
    rows : mapping of (config, split) to columns
        Each scored part's rows, as columns.
    decisions : mapping of (config, split) to list
        Per part and instance, one boolean per candidate: is the pronoun linked to it?
    outputs : mapping of (config, split) to list, or None
        The model's own outputs (clusters) per part, for ``score_outputs``; None: not scored.
    n_bootstrap, seed : int
        The bootstrap's resamples (0: significance off) and seed.

    Returns
    -------
    dict of str to MeasureResult
        Section name → its result; a scorer's flat dict of scores (a declaration outside the package may return
        one) is read with ``measures.result.from_flat``.

    Examples
    --------
    >>> from corefbias.benchmarks import BENCHMARKS
    >>> rows = {("default", "test"): {
    ...     "id": ["a", "b"], "condition": ["pro", "anti"], "pair_id": ["p", "p"], "polarity": ["+", "+"],
    ...     "female_occupation": ["nurse"] * 2, "male_occupation": ["chef"] * 2, "adjective": ["lovely"] * 2,
    ...     "candidates": [[{"is_referent": True}, {"is_referent": False}]] * 2}}
    >>> linked = {("default", "test"): [[True, False], [False, True]]}  # the pro pronoun right, the anti one wrong
    >>> sections = scored_sections(BENCHMARKS["sowinobias"], rows, linked, None, n_bootstrap=0, seed=0)
    >>> sections["sowinobias"].value  # accuracy pro − anti
    1.0
    >>> sections["sowinobias"].unit_rows.rows.shape  # one pair; (all, polarity "+") × (pro, anti) × (TP, FP, FN, TN)
    (1, 16)
    """
    sections = dict(benchmark.score(rows, decisions, n_bootstrap, seed))
    if outputs is not None and benchmark.score_outputs is not None:
        sections = {**benchmark.score_outputs(rows, outputs, n_bootstrap, seed), **sections}
    return {name: value if isinstance(value, MeasureResult) else from_flat(value) for name, value in sections.items()}


def score_benchmark(
    benchmark: Benchmark,
    rows: dict[Part, dict],
    outputs: dict[Part, list],
    *,
    mode: str = cluster_links.DEFAULT_MODE,
    n_bootstrap: int = 1000,
    seed: int = 0,
    scored: bool = True,
) -> BenchmarkRun:
    """A ``BenchmarkRun`` of the answers ``outputs`` (per part, in row order) to ``rows`` (per part, as columns).

    Parameters
    ----------
    benchmark : Benchmark
        The benchmark scored.
    rows : dict of (config, split) to dict
        Each part's rows as columns.
    outputs : dict of (config, split) to list
        Each part's answers, in row order (see :func:`decision_of`).
    mode : str, default "default"
        How clusters become links (``cluster_links.MODE_CHOICES``): ``"default"`` is the benchmark's own
        (``Benchmark.decision_mode``).
    n_bootstrap : int, default 1000
        Bootstrap resamples of every score's significance; 0 switches significance off.
    seed : int, default 0
        Seed of the resampling.
    scored : bool, default True
        False (a shard's run) keeps the instances and leaves the sections empty.

    Returns
    -------
    BenchmarkRun

    Examples
    --------
    >>> from corefbias.benchmarks import BENCHMARKS
    >>> rows = {("default", "test"): {
    ...     "id": ["a", "b"], "condition": ["pro", "anti"], "pair_id": ["p", "p"], "polarity": ["+", "+"],
    ...     "female_occupation": ["nurse"] * 2, "male_occupation": ["chef"] * 2, "adjective": ["lovely"] * 2,
    ...     "pronoun": [{"start": 0, "end": 1}] * 2,
    ...     "candidates": [[{"start": 2, "end": 3, "is_referent": True},
    ...                     {"start": 4, "end": 5, "is_referent": False}]] * 2}}
    >>> outputs = {("default", "test"): [{"choice": 0, "parsed": True}, {"choice": 1, "parsed": True}]}
    >>> run = score_benchmark(BENCHMARKS["sowinobias"], rows, outputs, n_bootstrap=0)
    >>> run.sections["sowinobias"]["diff"], [instance["decision"] for instance in run.instances]
    (1.0, [[True, False], [False, True]])
    """
    started = time.perf_counter()
    if benchmark.clusters_cannot_express is not None and any(
        isinstance(output, list) for part in outputs.values() for output in part
    ):
        raise ValueError(refusal_of_clusters(benchmark))
    mode = cluster_links.resolved_mode(mode, benchmark.decision_mode, f"benchmark {benchmark.name!r}")
    result = BenchmarkRun(benchmark, parts=dict(rows))
    decisions = {}
    for (config, split), columns in rows.items():
        decisions[config, split] = []
        for row, output in zip(rows_of(columns), outputs[config, split], strict=True):
            decision, parsed = decision_of(output, row, mode)
            decisions[config, split].append(decision)
            result.num_unparsed += not parsed
            instance = {
                "id": row["id"],
                "config": config,
                "split": split,
                "decision": decision,
                "gold": [candidate["is_referent"] for candidate in row["candidates"]],
                "parsed": parsed,
            }
            if isinstance(output, list):  # a cluster model's own clusters, for scores of clusters (CoNLL F1)
                instance["clusters"] = output
            elif isinstance(output, dict):  # a choice model's option position and cloze log-likelihoods
                instance.update({key: output[key] for key in ("position", "loglikelihoods") if key in output})
            result.instances.append(instance)
    if scored:
        sections = scored_sections(benchmark, rows, decisions, outputs, n_bootstrap, seed)
        result.sections = {**sections, **dont_know_sections(benchmark, rows, outputs, n_bootstrap, seed)}
        if result.instances and result.num_unparsed == len(result.instances):
            result.sections = without_readable_answers(result.sections, len(result.instances))
    result.score_seconds = time.perf_counter() - started
    return result


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
