"""``corefbias run``: a model on benchmarks → every bias score, with significance and the instances behind it.

For each benchmark the runner loads its exported set (building it from the upstream mirror on
first use), asks the model for the instances it has not answered yet (``datasets.Dataset.map``
in batches, each batch committed to the prediction cache before the next, so an interrupted run
resumes), turns outputs into per-candidate decisions and scores them with the core metrics.

Where the model answers is the run's executor: ``LocalExecutor`` (the default: this process, batch
after batch) or ``ray_executor.RayExecutor`` (a pool of Ray actors, each holding the model; the
answers still come back to this process, which caches, scores and writes them). The executor
changes no answer, score or cache key; ``results.json`` records it in ``settings``.

A shard run (``shard=(index, count)``) only predicts its contiguous share of every set; after the
shards' caches are merged (``prediction_cache.merge``), a run over the merged cache asks the
model nothing and scores exactly what one run would have. Shards are how a scheduler without Ray
(Slurm array jobs, separate machines) spreads a run.

Cached answers are keyed by the model's identity (``corefbias.models.identity``), never by the spec
string: a changed model (another model behind the same URL, a retrained folder, a new prompt) is
asked again, and the same model resumes from its answers. ``cache_mode`` ``"refresh"`` asks again
and overwrites; ``"off"`` asks again and writes nothing. Every result carries its ``provenance``.
"""

from __future__ import annotations

import hashlib
import json
import platform
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Protocol

import datasets

from .. import __version__
from ..benchmarks import Benchmark, resolve
from ..models.base import Choice, ChoiceModel, ClusterModel, ModelError, Task
from ..models.identity import digest, library_versions
from ..models.registry import load_model
from . import cluster_links
from .benchmark_data import data_provenance, default_data_dir, load_part
from .limits import limit_units
from .parse_rates import is_low, parse_rate
from .position_rates import results_fields as position_fields
from .prediction_cache import PredictionCache
from .prompt_sets import chosen_templates, headline_spreads, prompts_json, with_template
from .result_schema import SCHEMA_VERSION, ResultsFile, headline_scores
from .scoring import BenchmarkRun, score_benchmark

CACHE_MODES = ("use", "refresh", "off")


@dataclass
class RunResult:
    model: str
    runs: dict[str, BenchmarkRun]
    settings: dict
    provenance: dict = field(default_factory=dict)  # see ``provenance``
    # ``--prompts``: benchmark → prompt name → its run (``runs`` holds the first), and its headlines across them.
    prompt_runs: dict[str, dict[str, BenchmarkRun]] = field(default_factory=dict)
    prompt_spreads: dict[str, list[dict]] = field(default_factory=dict)

    def to_json(self) -> ResultsFile:
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
                    "num_instances": len(run.instances),
                    "num_unparsed": run.num_unparsed,
                    "parse_rate": parse_rate(len(run.instances), run.num_unparsed),
                    "low_parse_rate": is_low(parse_rate(len(run.instances), run.num_unparsed)),
                    **position_fields(run.instances),
                    "num_predicted": run.num_predicted,
                    "model_seconds": run.model_seconds,
                    "predict_seconds": run.predict_seconds,
                    "score_seconds": run.score_seconds,
                    "wall_seconds": run.wall_seconds,
                    "headlines": headline_scores(run.benchmark.headlines, run.sections),
                    "sections": {section: scores.to_json() for section, scores in run.sections.items()},
                    **(
                        {"prompts": prompts_json(run.benchmark, self.prompt_runs[name], self.prompt_spreads[name])}
                        if name in self.prompt_spreads
                        else {}
                    ),
                }
                for name, run in self.runs.items()
            },
            "provenance": self.provenance,
        }


def model_identity(model) -> dict:
    """The model's ``identity`` (``corefbias.models.identity``), which keys its cached answers and its results.

    A model without one is refused: a name it was given says nothing about what it is.
    """
    identity = getattr(model, "identity", None)
    if not isinstance(identity, dict) or "kind" not in identity:
        raise ModelError(
            f"{getattr(model, 'name', model)!r} has no identity: a model must have an `identity` dict with at least "
            f"a 'kind' and what makes its answers its own (weights' digest, revision, prompt...); see "
            f"corefbias.models.identity"
        )
    return identity


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


def choice_output(choice: Choice) -> dict:
    """A choice as the prediction cache and the instances file keep it (fields a model left unset omitted)."""
    output = {"choice": choice.index, "parsed": choice.parsed, "raw": choice.raw}
    if choice.position is not None:
        output["position"] = choice.position
    if choice.loglikelihoods is not None:
        output["loglikelihoods"] = list(choice.loglikelihoods)
    return output


def _without_gold(row: dict) -> dict:
    return {**row, "candidates": [{k: v for k, v in c.items() if k != "is_referent"} for c in row["candidates"]]}


def ask(model, task: Task, rows: list[dict]) -> list:
    """The model's outputs for ``rows`` (whole instance rows) as the prediction cache keeps them: a choice
    (``choice_output``) per row for a choice model, clusters of ``[start, end]`` spans for a cluster model.

    Gold labels are removed first unless the model ``reads_gold``. Every executor asks through this, so a
    model answers the same rows alike wherever it runs.

    Examples
    --------
    >>> from corefbias.models.baselines import NearestBaseline
    >>> ann, bo = {"start": 0, "end": 3, "is_referent": True}, {"start": 8, "end": 10, "is_referent": False}
    >>> row = {"id": "a", "text": "Ann met Bo; she left.", "pronoun": {"start": 12, "end": 15}, "candidates": [ann, bo]}
    >>> ask(NearestBaseline(), Task("t", "en", "id"), [row])
    [{'choice': 1, 'parsed': True, 'raw': ''}]
    """
    if isinstance(model, ChoiceModel):
        shown = rows if model.reads_gold else [_without_gold(row) for row in rows]
        choices = model.choose(shown, task)
        if len(choices) != len(rows) or not all(isinstance(choice, Choice) for choice in choices):
            raise ModelError(f"{model.name}: expected {len(rows)} choices, got {choices!r:.200}")
        return [choice_output(choice) for choice in choices]
    if isinstance(model, ClusterModel):
        clusters = model.predict_clusters([row["text"] for row in rows])
        return [[[list(span) for span in cluster] for cluster in text] for text in clusters]
    raise ModelError(f"{model!r} is neither a cluster model nor a choice model")


def cached_and_missing(
    batch: dict, key: tuple, cache: PredictionCache | None, reuse: bool
) -> tuple[dict, list[str], list[dict]]:
    """Split a batch into what the cache already answers and what the model must be asked; every executor
    (local, Ray) cuts its work with this, so that both ask about the same instances.

    Parameters
    ----------
    batch : dict
        column → values of a batch of instances, with an ``id`` column.
    key : tuple
        the cache key of the model, task and benchmark part.
    cache : PredictionCache or None
        where answers are kept; None: nothing is cached.
    reuse : bool
        False: ask about every instance, cached or not.

    Returns
    -------
    tuple of (dict, list of str, list of dict)
        the cached answers (id → output), then the ids and the rows (column → value) of the instances to ask.

    Examples
    --------
    >>> cached_and_missing({"id": ["a", "b"], "text": ["x", "y"]}, ("model",), None, reuse=True)
    ({}, ['a', 'b'], [{'id': 'a', 'text': 'x'}, {'id': 'b', 'text': 'y'}])
    """
    ids = batch["id"]
    found = cache.get(key, ids) if cache is not None and reuse else {}
    missing = [index for index, instance in enumerate(ids) if instance not in found]
    rows = [{column: batch[column][index] for column in batch} for index in missing]
    return found, [ids[index] for index in missing], rows


class _Predictor:
    """The ``Dataset.map`` function: cached outputs, and the model asked for the rest."""

    def __init__(
        self,
        model,
        task: Task,
        key: tuple,
        cache: PredictionCache | None,
        advance: Callable[[int], None],
        reuse: bool = True,
    ):
        self.model, self.task, self.key, self.cache, self.advance = model, task, key, cache, advance
        self.reuse = reuse  # False: ask the model about every instance, cached or not
        self.model_seconds = 0.0
        self.predicted = 0

    def __call__(self, batch: dict) -> dict:
        ids = batch["id"]
        found, missing_ids, rows = cached_and_missing(batch, self.key, self.cache, self.reuse)
        if rows:
            started = time.perf_counter()
            outputs = ask(self.model, self.task, rows)
            self.model_seconds += time.perf_counter() - started
            new = dict(zip(missing_ids, outputs))
            if self.cache is not None:
                self.cache.put(self.key, new)
            found.update(new)
            self.predicted += len(rows)
        self.advance(len(ids))
        # JSON text, because Arrow would fix the column type from the first batch (an empty cluster list).
        return {"output": [json.dumps(found[instance]) for instance in ids]}


@dataclass
class Predictions:
    """One benchmark's answers from an executor: outputs per part (JSON values, in the part's row order), the
    seconds spent inside the model's calls (summed over replicas) and how many instances it was asked about."""

    outputs: dict[tuple[str, str], list]
    model_seconds: float = 0.0
    predicted: int = 0


class ExecutorSession(Protocol):
    """A started executor: ``model`` is what this process knows of the model (at least its ``identity``), and
    ``predict`` answers one benchmark's parts, taking cached answers (when ``reuse``), asking the model for the
    rest in batches of ``batch_size`` consecutive rows, committing each batch to ``cache`` as it comes back and
    calling ``advance(rows)`` after it."""

    model: object

    def predict(
        self,
        parts: dict[tuple[str, str], datasets.Dataset],
        keys: dict[tuple[str, str], tuple],
        task: Task,
        cache: PredictionCache | None,
        *,
        reuse: bool,
        batch_size: int,
        advance: Callable[[int], None],
    ) -> Predictions: ...


class Executor(Protocol):
    """Where a run's model answers (``LocalExecutor``, ``ray_executor.RayExecutor``)."""

    def settings(self) -> dict:
        """What ``results.json["settings"]`` records of it (nothing a score or the cache key depends on)."""

    def open(self, model_spec: str, model_options: dict, model=None) -> AbstractContextManager[ExecutorSession]:
        """The model of ``model_spec`` (or ``model``, ready-made) ready to answer, until the context closes."""


class _LocalSession:
    def __init__(self, model):
        self.model = model

    def predict(self, parts, keys, task, cache, *, reuse, batch_size, advance) -> Predictions:
        found = Predictions({})
        for part, data in parts.items():
            key = keys[part]
            predictor = _Predictor(self.model, task, key, cache, advance, reuse)
            mapped = data.map(
                predictor,
                batched=True,
                batch_size=batch_size,
                remove_columns=data.column_names,
                load_from_cache_file=False,
                keep_in_memory=True,
                new_fingerprint=hashlib.sha256(f"{key[0]}/{key[2]}/{key[3]}".encode()).hexdigest()[:32],
            )
            # A part the limit emptied (pairs of another split or type) maps to no output column.
            found.outputs[part] = [json.loads(output) for output in mapped["output"]] if len(data) else []
            found.model_seconds += predictor.model_seconds
            found.predicted += predictor.predicted
        return found


class LocalExecutor:
    """The model answers in this process, batch after batch (``datasets.Dataset.map``), each batch committed to
    the prediction cache before the next.

    Examples
    --------
    >>> with LocalExecutor().open("baseline:nearest", {}) as session:
    ...     session.model.name
    'baseline:nearest'
    >>> LocalExecutor().settings()
    {'executor': 'local'}
    """

    def settings(self) -> dict:
        return {"executor": "local"}

    @contextmanager
    def open(self, model_spec: str, model_options: dict, model=None) -> Iterator[_LocalSession]:
        yield _LocalSession(model if model is not None else load_model(model_spec, **model_options))


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
    batch_size : int, default 32
        Instances per model call (and per prediction-cache commit).
    shard : tuple of (int, int) or None, default None
        ``(index, count)``: predict that contiguous shard of every set only, and score nothing.
    mode : str, default "cluster"
        How clusters become links (``cluster_links.DECISION_MODES``).
    cache_mode : str, default "use"
        ``"use"`` takes cached answers and stores new ones, ``"refresh"`` asks the model again and overwrites
        them, ``"off"`` asks again and writes nothing.
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
    batch_size: int = 32
    shard: tuple[int, int] | None = None
    mode: str = "cluster"
    cache_mode: str = "use"
    prompts: tuple[str, ...] | None = None

    def __post_init__(self):
        if self.shard is not None and not 0 <= self.shard[0] < self.shard[1]:
            raise ValueError(f"shard must be (index, count) with 0 <= index < count, got {self.shard}")
        if self.mode not in cluster_links.DECISION_MODES:
            raise ValueError(f"unknown decision mode {self.mode!r}; choose one of {cluster_links.DECISION_MODES}")
        if self.cache_mode not in CACHE_MODES:
            raise ValueError(f"unknown cache mode {self.cache_mode!r}; choose one of {CACHE_MODES}")

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
            reuse=settings.cache_mode == "use",
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
