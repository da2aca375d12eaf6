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
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

import datasets

from .. import __version__
from ..benchmarks import Benchmark, resolve
from ..models.base import ChoiceModel, ClusterModel, ModelError
from ..models.identity import digest, library_versions
from . import cluster_links, result_schema
from .benchmark_data import data_provenance, default_data_dir, load_part
from .executors import Executor, ExecutorSession, LocalExecutor, model_identity
from .limits import limit_units
from .prediction_cache import CACHE_MODES, PredictionCache
from .prompt_sets import chosen_templates, headline_spreads, prompts_record, with_template
from .result_schema import SCHEMA_VERSION, ResultsFile, resampling_record
from .scoring import BenchmarkRun, refusal_of_clusters, score_benchmark

# What each cache mode (prediction_cache.CACHE_MODES) takes from the cache: sound parsed answers, every sound
# answer, or nothing.
_REUSE = {"use": "parsed", "use-unparsed": "all", "refresh": "none", "off": "none"}
DEFAULT_BATCH_SIZE = 32  # instances per call of a model that does not batch itself


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
        the report, ``summary.csv``, the terminal and the Space read (``result_schema.upgrade`` gives a file's)."""
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
        return result_schema.to_json(self.record())


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
    [32, 8]
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
