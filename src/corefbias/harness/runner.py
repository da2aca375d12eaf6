"""``corefbias run``: a model on benchmarks → every bias score, with significance and the instances behind it.

For each benchmark the runner loads its exported set (building it from the upstream mirror on
first use), asks the model for the instances it has not answered yet (``datasets.Dataset.map``
in calls of ``batch_size`` instances, each answer committed to the prediction cache as it comes back,
so an interrupted run resumes), turns outputs into per-candidate decisions and scores them with the
core metrics.

A model that batches instances itself (a local ``hf:`` model, which sizes its batches by tokens) says so
with a ``call_size``: without ``--batch-size`` the runner calls it with that many instances (whole
benchmarks but the largest) rather than 32, and commits each of its internal batches as the model yields
it (``choose_in_batches``), so a large call costs no more of a killed run than a small one.

Where the model answers is the run's executor (``executors.LocalExecutor``, ``ray_executor.RayExecutor``); the
executor changes no answer, score or cache key, and ``results.json`` records it in ``settings``.

A shard run (``shard=(index, count)``) only predicts its contiguous share of every set; after the
shards' caches are merged (``prediction_cache.merge``), a run over the merged cache asks the
model nothing and scores exactly what one run would have. Shards are how a scheduler without Ray
(Slurm array jobs, separate machines) spreads a run.

Cached answers are keyed by the model's identity (``corefbias.models.identity``), never by the spec
string: a changed model (another model behind the same URL, a retrained folder, a new prompt) is
asked again, and the same model resumes from its answers. A remote model (one with ``current_identity``:
``chat:``, ``completions:``, an ``http(s)://`` server) is asked who it is again after every batch: answers
given after its identity changed are dropped, never kept under the old one, and the run stops saying so.

Only sound answers are trusted: each output is checked against its instance (``output_checks``) when the
model gives it (a bad one is a ``ModelError``) and when the cache gives it back (a bad one is asked again).
An unparsed answer is cached but not final: ``cache_mode`` ``"use"`` asks it again, ``"use-unparsed"``
takes it as it is; ``"refresh"`` asks everything again and overwrites; ``"off"`` asks again and writes
nothing. Every result carries its ``provenance``.

Scoring is one pipeline (:func:`score_benchmark`): a benchmark's rows and the answers to them → every score and the
instances. ``corefbias run`` gets the answers from a model (or the prediction cache), ``corefbias score`` from a
predictions file (``prediction_files.scoring``), so a file and a model giving the same answers get the same numbers.
Answers (*outputs*) are, per instance, a cluster model's clusters, a choice model's ``choice_output`` dict, or a
predictions file's ``{"decision", "parsed"}`` links. ``compare`` and calibration rescore decisions with
:func:`scored_sections`, which keeps each section's unit rows. Each benchmark's headlines are its sections' estimates
(:class:`HeadlineScore`); the run holds its result objects until ``results.json`` is written (:func:`to_json`).
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

import datasets

from .. import __version__
from ..benchmarks import Benchmark, Headline, Part, resolve, rows_of
from ..measures.result import SIGNIFICANCE_SUFFIXES, Estimate, MeasureResult
from ..measures.stored_results import from_flat
from ..models.base import ChoiceModel, ClusterModel, ModelError
from ..models.identity import digest, library_versions
from . import cluster_links
from .benchmark_data import data_provenance, default_data_dir, load_part
from .dont_know_scores import dont_know_sections
from .executors import Executor, ExecutorSession, LocalExecutor, model_identity
from .limits import limit_units
from .parse_rates import is_low, parse_rate, without_readable_answers
from .position_rates import results_fields as position_fields
from .prediction_cache import CACHE_MODES, PredictionCache
from .prompt_sets import chosen_templates, headline_spreads, prompts_record, with_template
from .result_schema import SCHEMA_VERSION, HeadlineEntry, ResultsFile, resampling_record

# What each cache mode (prediction_cache.CACHE_MODES) takes from the cache: sound parsed answers, every sound
# answer, or nothing.
_REUSE = {"use": "parsed", "use-unparsed": "all", "refresh": "none", "off": "none"}
DEFAULT_BATCH_SIZE = 32  # instances per call of a model that does not batch itself


@dataclass(frozen=True)
class HeadlineScore:
    """A headline score of a benchmark as runs and readers hand it on: where it is read from, its name in tables, and
    its section's estimate with the unbiased value the benchmark declares (``results.json``: ``HeadlineEntry``).

    Attributes
    ----------
    section : str
        The section its score is read from (the estimate's ``key`` is its overall score there).
    label : str
        Its name in tables.
    estimate : Estimate
        The score, with ``unbiased`` set to what a model without the bias scores.

    Examples
    --------
    >>> estimate = Estimate("diff", 0.25, p_value=0.01, reported=("p_value",), unbiased=0.0)
    >>> score = HeadlineScore("pro_anti", "pro − anti", estimate)
    >>> score.to_json()  # doctest: +NORMALIZE_WHITESPACE
    {'section': 'pro_anti', 'label': 'pro − anti', 'key': 'diff', 'value': 0.25, 'undefined': None, 'p_value': 0.01,
     'significance_undefined': {}, 'unbiased_value': 0.0, 'significant': True}
    >>> HeadlineScore.from_json(score.to_json()) == score
    True
    """

    section: str
    label: str
    estimate: Estimate

    def to_json(self) -> HeadlineEntry:
        """The headline as ``results.json`` holds it.

        Returns
        -------
        HeadlineEntry
            Its section and label, its estimate's fields, and whether it is significant.
        """
        return {
            "section": self.section,
            "label": self.label,
            **self.estimate.to_json(),
            "significant": self.estimate.significant,
        }

    @classmethod
    def from_json(cls, data: Mapping) -> HeadlineScore:
        """The headline of a ``results.json`` of schema version 2 or later (those before 6 held the same fields).

        Parameters
        ----------
        data : mapping
            A ``HeadlineEntry``.

        Returns
        -------
        HeadlineScore
        """
        return cls(data["section"], data["label"], Estimate.from_json(data))


def headline_scores(headlines: Iterable[Headline], sections: Mapping[str, MeasureResult]) -> list[HeadlineScore]:
    """Each headline's estimate (value, interval, p-value, reasons, blocks, unbiased value), from its section.

    Parameters
    ----------
    headlines
        A benchmark's headlines (``Benchmark.headlines``); each names an overall score of its section.
    sections
        The benchmark's sections (``BenchmarkRun.sections``).

    Returns
    -------
    list of HeadlineScore
        One per headline whose section was scored (a shard run scores none), in the order of ``headlines``.

    Examples
    --------
    >>> from corefbias.measures.stored_results import from_flat
    >>> section = from_flat({"diff": 0.25, "diff_p_value": 0.01, "diff_ci_low": 0.1, "diff_ci_high": 0.4})
    >>> (score,) = headline_scores([Headline("pro_anti", "diff", "pro − anti", 0.0)], {"pro_anti": section})
    >>> score.estimate, score.estimate.unbiased, score.estimate.significant
    (Estimate('diff', 0.25, ci=(0.1, 0.4), p_value=0.01), 0.0, True)
    """
    scores = []
    for headline in headlines:
        section = sections.get(headline.section)
        if section is None:
            continue
        estimate = section.overall.get(headline.key) or Estimate(headline.key, None, reported=SIGNIFICANCE_SUFFIXES)
        scores.append(HeadlineScore(headline.section, headline.label, replace(estimate, unbiased=headline.unbiased)))
    return scores


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
        one) is read with ``measures.stored_results.from_flat``.

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


@dataclass
class RunResult:
    model: str
    runs: dict[str, BenchmarkRun]
    settings: dict
    provenance: dict = field(default_factory=dict)  # see ``provenance``
    # ``--prompts``: benchmark → prompt name → its run (``runs`` holds the first), and its headlines across them.
    prompt_runs: dict[str, dict[str, BenchmarkRun]] = field(default_factory=dict)
    prompt_spreads: dict[str, list[dict]] = field(default_factory=dict)

    def record(self) -> dict:
        """``results.json`` as the run holds it: sections as ``MeasureResult``, headlines as ``HeadlineScore``, which
        the report, ``summary.csv``, the terminal and the Space read (``result_versions.upgrade`` gives a file's)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "model": self.model,
            "corefbias_version": __version__,
            "settings": self.settings,
            "benchmarks": {
                name: {
                    "description": run.benchmark.description,
                    "metric_modules": list(run.benchmark.metric_modules),
                    "language": run.benchmark.language,
                    **run.record(),
                    "model_seconds": run.model_seconds,
                    "predict_seconds": run.predict_seconds,
                    "score_seconds": run.score_seconds,
                    "wall_seconds": run.wall_seconds,
                    "resampling": resampling_record(run.benchmark, run.sections),
                    **(
                        {"prompts": prompts_record(self.prompt_runs[name], self.prompt_spreads[name])}
                        if name in self.prompt_spreads
                        else {}
                    ),
                }
                for name, run in self.runs.items()
            },
            "provenance": self.provenance,
        }

    def to_json(self) -> ResultsFile:
        """``results.json``: :meth:`record` as JSON."""
        return to_json(self.record())


def to_json(results: Mapping) -> ResultsFile:
    """``results.json`` of a run's results as ``RunResult.record`` or ``result_versions.upgrade`` holds them: every
    section (``MeasureResult``) and headline (``HeadlineScore``) as JSON, the rest as it is.

    Parameters
    ----------
    results : mapping
        The run's record, or an upgraded file (or any part of either).

    Returns
    -------
    ResultsFile
        The same keys, every result object replaced by its ``to_json()``.

    Examples
    --------
    >>> from corefbias.harness.result_versions import upgrade
    >>> to_json(upgrade({"model": "m", "benchmarks": {}}))["schema_version"]
    6
    """
    if hasattr(results, "to_json"):
        return results.to_json()
    if isinstance(results, Mapping):
        return {key: to_json(value) for key, value in results.items()}
    return [to_json(item) for item in results] if isinstance(results, list) else results


def cache_key(identity: dict) -> str:
    """The prediction cache's model key: the identity's kind and digest (see ``corefbias.models.identity``)."""
    return f"{identity['kind']}:{digest(identity)[:32]}"


def benchmark_identity(model, identity: dict, benchmark: Benchmark) -> dict:
    """The model's identity on one benchmark: a cloze model's answers depend on the benchmark's template too."""
    if getattr(model, "uses_cloze_template", False) and benchmark.cloze is not None:
        return {**identity, "cloze_template": benchmark.cloze.identity}
    return identity


def provenance(result: RunResult, spec: str, identity: dict, data_dir: Path, started: datetime) -> dict:
    """Where a result comes from: versions, the model's identity, the data, the settings, the time, the cache."""
    return {
        "corefbias_version": __version__,
        "python": platform.python_version(),
        "libraries": library_versions("numpy", "scipy", "datasets", "evaluate"),
        "model": {"spec": spec, "identity": identity, "cache_key": cache_key(identity)},
        "datasets": {name: data_provenance(run.benchmark, data_dir) for name, run in result.runs.items()},
        "settings": result.settings,
        "started": started.isoformat(timespec="seconds"),
        "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "instances": {
            name: {"predicted": run.num_predicted, "from_cache": len(run.instances) - run.num_predicted}
            for name, run in result.runs.items()
        },
    }


def instances_per_call(model, settings: RunSettings) -> int:
    """How many instances each model call gets: ``--batch-size`` if given, else the model's own ``call_size`` (a
    model that batches itself), else ``DEFAULT_BATCH_SIZE``.

    Examples
    --------
    >>> from corefbias.models.baselines import NearestBaseline
    >>> [instances_per_call(NearestBaseline(), RunSettings(batch_size=size)) for size in (None, 8)]
    [1024, 8]
    >>> instances_per_call(object(), RunSettings())
    32
    """
    return settings.batch_size or getattr(model, "call_size", None) or DEFAULT_BATCH_SIZE


def _shard(data: datasets.Dataset, index: int, count: int) -> datasets.Dataset:
    """Contiguous shard ``index`` of ``count``, cut as ``Dataset.shard`` cuts it, but empty (not an error)
    where a small ``--limit`` subset has fewer rows than shards."""
    size, extra = divmod(len(data), count)
    start = index * size + min(index, extra)
    stop = start + size + (index < extra)
    return data.select(range(start, stop)) if stop > start else data.select([])


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """How a run predicts and scores, the same for every benchmark of the run (``results.json["settings"]``).

    Parameters
    ----------
    limit : int or None, default None
        N units per design cell (``corefbias.harness.limits``); None scores whole sets.
    n_bootstrap : int, default 1000
        Bootstrap resamples of every score's significance; 0 switches significance off.
    seed : int, default 0
        Seed of the resampling.
    batch_size : int or None, default None
        Instances per model call; None: the model's own ``call_size`` where it batches itself (a local ``hf:``
        model), else ``DEFAULT_BATCH_SIZE`` (``instances_per_call``). ``run`` records the number it used.
    shard : tuple of (int, int) or None, default None
        ``(index, count)``: predict that contiguous shard of every set only, and score nothing.
    mode : str, default "default"
        How clusters become links (``cluster_links.MODE_CHOICES``): ``"default"`` scores each benchmark in its own
        mode (``Benchmark.decision_mode``), another mode every benchmark in that one.
    cache_mode : str, default "use"
        ``"use"`` takes cached answers (but asks unparsed ones again) and stores new ones, ``"use-unparsed"``
        takes unparsed ones too, ``"refresh"`` asks the model again and overwrites them, ``"off"`` asks again
        and writes nothing.
    prompts : tuple of str or None, default None
        Run each benchmark once per prompt of its prompt set named (``("all",)``: every one), for models that read
        the benchmark's cloze template (``corefbias.harness.prompt_sets``); None: its main template only.

    Raises
    ------
    ValueError
        For a shard outside ``0 <= index < count``, an unknown decision mode or an unknown cache mode.

    Examples
    --------
    >>> RunSettings(limit=5, n_bootstrap=0).to_json([])["limit"]
    5
    >>> RunSettings(mode="nearest")
    Traceback (most recent call last):
    ...
    ValueError: unknown decision mode 'nearest'; choose one of ...
    """

    limit: int | None = None
    n_bootstrap: int = 1000
    seed: int = 0
    batch_size: int | None = None
    shard: tuple[int, int] | None = None
    mode: str = cluster_links.DEFAULT_MODE
    cache_mode: str = "use"
    prompts: tuple[str, ...] | None = None

    def __post_init__(self):
        if self.shard is not None and not 0 <= self.shard[0] < self.shard[1]:
            raise ValueError(f"shard must be (index, count) with 0 <= index < count, got {self.shard}")
        cluster_links.check_mode(self.mode)
        if self.cache_mode not in CACHE_MODES:
            raise ValueError(f"unknown cache mode {self.cache_mode!r}; choose one of {CACHE_MODES}")
        if self.batch_size is not None and self.batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {self.batch_size}")

    def to_json(self, benchmarks: Sequence[Benchmark]) -> dict:
        """The settings as ``results.json`` records them.

        Parameters
        ----------
        benchmarks : sequence of Benchmark
            The run's benchmarks.

        Returns
        -------
        dict
        """
        return {
            "benchmarks": [benchmark.name for benchmark in benchmarks],
            "limit": self.limit,
            "n_bootstrap": self.n_bootstrap,
            "seed": self.seed,
            "shard": list(self.shard) if self.shard else None,
            "decision_mode": self.mode,
            "batch_size": self.batch_size,
            "cache_mode": self.cache_mode,
            **({"prompts": list(self.prompts)} if self.prompts is not None else {}),
        }


def benchmark_parts(benchmark: Benchmark, settings: RunSettings, data_dir: Path, mirror) -> dict:
    """The parts a run answers: (config, split) → ``datasets.Dataset``, limited and sharded as ``settings`` say."""
    parts = {part: load_part(benchmark, *part, data_dir, mirror) for part in benchmark.parts}
    parts = limit_units(parts, benchmark, settings.limit)
    if settings.shard is not None:
        index, count = settings.shard
        parts = {part: _shard(data, index, count) for part, data in parts.items()}
    return parts


def run_benchmark(
    session: ExecutorSession,
    benchmark: Benchmark,
    settings: RunSettings,
    *,
    model_key: str,
    data_dir: Path,
    mirror,
    cache: PredictionCache | None,
    progress: bool,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> BenchmarkRun:
    started = time.perf_counter()
    parts = benchmark_parts(benchmark, settings, data_dir, mirror)
    total = sum(len(data) for data in parts.values())
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, desc=benchmark.name, unit="instance")
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        if bar is not None:
            bar.update(count)
        if on_progress is not None:
            on_progress(benchmark.name, done, total)

    predicting = time.perf_counter()
    try:
        advance(0)
        predicted = session.predict(
            parts,
            {(config, split): (model_key, benchmark.dataset, config, split) for config, split in parts},
            benchmark.task,
            cache,
            reuse=_REUSE[settings.cache_mode],
            batch_size=settings.batch_size,
            advance=advance,
        )
    finally:
        if bar is not None:
            bar.close()
    predict_seconds = time.perf_counter() - predicting
    result = score_benchmark(
        benchmark,
        # Columns in bulk: a datasets.Dataset read row by row or column by column costs far more.
        {part: data.to_dict() for part, data in parts.items()},
        predicted.outputs,
        mode=settings.mode,
        n_bootstrap=settings.n_bootstrap,
        seed=settings.seed,
        scored=settings.shard is None,
    )
    result.model_seconds, result.num_predicted = predicted.model_seconds, predicted.predicted
    result.predict_seconds = predict_seconds
    result.wall_seconds = time.perf_counter() - started
    return result


def run(
    model_spec: str,
    benchmarks: Sequence[str] = ("all",),
    settings: RunSettings | None = None,
    *,
    data_dir: str | Path | None = None,
    mirror=None,
    cache_path: str | Path | None = None,
    progress: bool = True,
    model=None,
    model_options: dict | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
    executor: Executor | None = None,
) -> RunResult:
    """Run one model on benchmarks: every score with its significance, the instances behind it, provenance.

    Parameters
    ----------
    model_spec : str
        The model (``<kind>:<argument>`` or an ``http(s)://`` URL; ``corefbias list models``). With ``model``
        given, only its name in the results.
    benchmarks : sequence of str, default ("all",)
        Benchmark names, ``all`` or ``english`` (``corefbias list benchmarks``).
    settings : RunSettings, optional
        How to predict and score (default ``RunSettings()``).
    data_dir : str or Path, optional
        Where the exported sets are kept (built there from the mirror on first use; default
        ``benchmark_data.default_data_dir()``).
    mirror : str or Path, optional
        The local mirror of the upstream files (else ``$COREFBIAS_MIRROR``, else downloads).
    cache_path : str or Path, optional
        The prediction cache (default ``$COREFBIAS_CACHE/predictions.sqlite``).
    progress : bool, default True
        Show a progress bar per benchmark.
    model : ClusterModel or ChoiceModel, optional
        A model ready-made; its ``identity`` keys the cache.
    model_options : dict, optional
        Options for the adapter's ``load`` (``--model-arg``).
    on_progress : callable, optional
        ``on_progress(benchmark, done, total)``, called before a benchmark's predictions and after each batch;
        an exception it raises stops the run (the batches answered so far stay cached).
    executor : Executor, optional
        Where the model answers: ``LocalExecutor()`` (the default) or e.g.
        ``ray_executor.RayExecutor(replicas=4)``; the results are the same either way.

    Returns
    -------
    RunResult
        Per benchmark a ``BenchmarkRun`` (sections, instances, timings); ``to_json()`` is ``results.json``
        (``corefbias.harness.result_schema.ResultsFile``).

    Raises
    ------
    ValueError
        For an unknown benchmark or model spec, or options the model kind does not take.
    ModelError
        For a model that cannot be loaded, has no identity or fails while answering.

    Examples
    --------
    The stereotype baseline on one SoWinoBias pair of each adjective polarity: right on the pro sentences, wrong on
    the anti ones (the set is generated, so it needs no upstream file):

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> result = run("baseline:stereotype", ["sowinobias"], RunSettings(limit=1, n_bootstrap=0), data_dir=folder,
    ...              cache_path=f"{folder}/cache.sqlite", progress=False)
    >>> len(result.runs["sowinobias"].instances), result.runs["sowinobias"].sections["sowinobias"].value
    (4, 1.0)
    >>> result.to_json()["benchmarks"]["sowinobias"]["headlines"][0]["label"]
    'accuracy pro − anti'
    """
    settings = settings if settings is not None else RunSettings()
    executor = executor if executor is not None else LocalExecutor()
    chosen = resolve(benchmarks)
    started = datetime.now(timezone.utc)
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    datasets.disable_progress_bars()
    # Each benchmark as each prompt chosen reads it (None: the benchmark as declared), checked before any loading.
    variants = {
        benchmark.name: [benchmark]
        if settings.prompts is None
        else [with_template(benchmark, template) for template in chosen_templates(benchmark, settings.prompts)]
        for benchmark in chosen
    }
    prompt_runs: dict[str, dict[str, BenchmarkRun]] = {}
    with executor.open(model_spec, model_options or {}, model) as session:
        model = session.model
        identity = model_identity(model)
        settings = replace(settings, batch_size=instances_per_call(model, settings))
        if isinstance(model, ClusterModel) and not isinstance(model, ChoiceModel):
            refused = [benchmark for benchmark in chosen if benchmark.clusters_cannot_express is not None]
            if refused:
                raise ModelError(f"{model.name}: {refusal_of_clusters(refused[0])}")
        if settings.prompts is not None and not getattr(model, "uses_cloze_template", False):
            raise ValueError(
                f"--prompts rewords the benchmarks' cloze templates, which {model_spec} does not read; use a model "
                "scored by log-likelihood (hf:, completions:)"
            )
        with PredictionCache(cache_path) if settings.cache_mode != "off" else nullcontext() as cache:
            for name, readings in variants.items():
                prompt_runs[name] = {
                    variant.cloze.name if settings.prompts is not None else "": run_benchmark(
                        session,
                        variant,
                        settings,
                        model_key=cache_key(benchmark_identity(model, identity, variant)),
                        data_dir=data_dir,
                        mirror=mirror,
                        cache=cache,
                        progress=progress,
                        on_progress=on_progress,
                    )
                    for variant in readings
                }
    runs = {name: next(iter(by_prompt.values())) for name, by_prompt in prompt_runs.items()}
    result = RunResult(model_spec, runs, {**settings.to_json(chosen), **executor.settings()})
    if settings.prompts is not None:
        result.prompt_runs = prompt_runs
        if settings.shard is None:
            result.prompt_spreads = {
                benchmark.name: headline_spreads(
                    benchmark, prompt_runs[benchmark.name], settings.n_bootstrap, settings.seed
                )
                for benchmark in chosen
            }
    result.provenance = provenance(result, model_spec, identity, data_dir, started)
    templates = {b.name: benchmark_identity(model, identity, b).get("cloze_template") for b in chosen}
    if any(templates.values()):
        result.provenance["model"]["cloze_templates"] = {name: t for name, t in templates.items() if t}
    return result
