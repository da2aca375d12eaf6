"""``corefbias run``: a model on benchmarks → every bias score, with significance and the instances behind it.

For each benchmark the runner loads its exported set (building it from the upstream mirror on
first use), asks the model for the instances it has not answered yet (``datasets.Dataset.map``
in batches, each batch committed to the prediction cache before the next, so an interrupted run
resumes), turns outputs into per-candidate decisions and scores them with the core metrics.

A shard run (``shard=(index, count)``) only predicts its contiguous share of every set; after the
shards' caches are merged (``prediction_cache.merge``), a run over the merged cache asks the
model nothing and scores exactly what one run would have.

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
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import datasets

from .. import __version__
from ..data import hub_export, upstream
from ..models.base import Choice, ChoiceModel, ClusterModel, ModelError, Task
from ..models.identity import digest, library_versions
from ..models.registry import load_model
from . import cluster_links
from .benchmarks import Benchmark, resolve, rows_of
from .limits import limit_units
from .parse_rates import is_low, parse_rate, without_readable_answers
from .position_rates import results_fields as position_fields
from .prediction_cache import PredictionCache


def default_data_dir() -> Path:
    from .prediction_cache import default_path

    return default_path().parent / "datasets" / __version__


@dataclass
class BenchmarkRun:
    """One benchmark's outcome: scores per section, decisions per instance, bookkeeping."""

    benchmark: Benchmark
    parts: dict = field(default_factory=dict)  # (config, split) → the scored rows, as columns (name → list)
    sections: dict[str, dict] = field(default_factory=dict)
    instances: list[dict] = field(default_factory=list)  # id, config, split, decision, gold, parsed
    num_unparsed: int = 0
    num_predicted: int = 0  # instances the model answered in this run (the rest came from the cache)
    model_seconds: float = 0.0  # inside the model's calls
    predict_seconds: float = 0.0  # the prediction loop: the model plus the harness around it
    score_seconds: float = 0.0
    wall_seconds: float = 0.0  # everything, loading the set included


CACHE_MODES = ("use", "refresh", "off")


@dataclass
class RunResult:
    model: str
    runs: dict[str, BenchmarkRun]
    settings: dict
    provenance: dict = field(default_factory=dict)  # see ``provenance``

    def to_json(self) -> dict:
        return {
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
                    "sections": run.sections,
                }
                for name, run in self.runs.items()
            },
            "provenance": self.provenance,
        }


def model_identity(model, spec: str) -> dict:
    """The model's ``identity``; a ready-made model without one is known by its spec alone."""
    identity = getattr(model, "identity", None)
    return identity if identity is not None else {"kind": "unidentified", "spec": spec}


def cache_key(identity: dict) -> str:
    """The prediction cache's model key: the identity's kind and digest (see ``corefbias.models.identity``)."""
    return f"{identity['kind']}:{digest(identity)[:32]}"


def benchmark_identity(model, identity: dict, benchmark: Benchmark) -> dict:
    """The model's identity on one benchmark: a cloze model's answers depend on the benchmark's template too."""
    if getattr(model, "uses_cloze_template", False) and benchmark.cloze is not None:
        return {**identity, "cloze_template": benchmark.cloze.identity}
    return identity


def data_provenance(benchmark: Benchmark, data_dir: Path) -> dict:
    """The set a benchmark ran on: its upstream commit and the sha256 over the exported Parquet files it used."""
    try:
        source_commit = upstream.dataset_source(benchmark.dataset)["commit"]
    except upstream.UpstreamFileError:
        source_commit = None
    files = hashlib.sha256()
    for config, split in benchmark.parts:
        path = data_dir / benchmark.dataset / hub_export.DATA_FILE.format(config=config, split=split)
        files.update(f"{config}/{split}\0{upstream.file_sha256(path)}\n".encode())
    return {"dataset": benchmark.dataset, "source_commit": source_commit, "fingerprint": files.hexdigest()}


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


def load_part(dataset: str, config: str, split: str, data_dir: Path, mirror) -> datasets.Dataset:
    """One config/split of an exported set, exporting the set from the mirror first if needed."""
    folder = data_dir / dataset
    if not (folder / "README.md").is_file():
        hub_export.export_dataset(dataset, data_dir, mirror)
    return datasets.load_dataset(str(folder), config, split=split)


def _decision(output, row: dict, mode: str) -> tuple[list[bool], bool]:
    """Per-candidate links of one instance, and whether the model's answer could be read."""
    candidates = row["candidates"]
    if isinstance(output, dict) and "decision" in output:  # a predictions file's links (corefbias score)
        return [bool(link) for link in output["decision"]], output["parsed"]
    if isinstance(output, dict) and "choice" in output:
        index = output["choice"]
        return [index == position for position in range(len(candidates))], output["parsed"]
    pronoun = (row["pronoun"]["start"], row["pronoun"]["end"])
    spans = [(candidate["start"], candidate["end"]) for candidate in candidates]
    return cluster_links.link_decisions(pronoun, spans, output, mode), True


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
        found = self.cache.get(self.key, ids) if self.cache is not None and self.reuse else {}
        missing = [index for index, instance in enumerate(ids) if instance not in found]
        if missing:
            started = time.perf_counter()
            outputs = self._ask([{column: batch[column][index] for column in batch} for index in missing])
            self.model_seconds += time.perf_counter() - started
            new = {ids[index]: output for index, output in zip(missing, outputs)}
            if self.cache is not None:
                self.cache.put(self.key, new)
            found.update(new)
            self.predicted += len(missing)
        self.advance(len(ids))
        # JSON text, because Arrow would fix the column type from the first batch (an empty cluster list).
        return {"output": [json.dumps(found[instance]) for instance in ids]}

    def _ask(self, rows: list[dict]) -> list:
        if isinstance(self.model, ChoiceModel):
            shown = rows if self.model.reads_gold else [_without_gold(row) for row in rows]
            choices = self.model.choose(shown, self.task)
            if len(choices) != len(rows) or not all(isinstance(choice, Choice) for choice in choices):
                raise ModelError(f"{self.model.name}: expected {len(rows)} choices, got {choices!r:.200}")
            return [choice_output(choice) for choice in choices]
        if isinstance(self.model, ClusterModel):
            clusters = self.model.predict_clusters([row["text"] for row in rows])
            return [[[list(span) for span in cluster] for cluster in text] for text in clusters]
        raise ModelError(f"{self.model!r} is neither a cluster model nor a choice model")


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

    ``limit``: N units per design cell (``harness.limits``; None: whole sets). ``mode``: how clusters become
    links (``cluster_links.DECISION_MODES``). ``shard``: ``(index, count)`` to predict one shard only.
    ``cache_mode``: ``"use"`` takes cached answers and stores new ones, ``"refresh"`` asks the model again and
    overwrites them, ``"off"`` asks again and writes nothing.
    """

    limit: int | None = None
    n_bootstrap: int = 1000
    seed: int = 0
    batch_size: int = 32
    shard: tuple[int, int] | None = None
    mode: str = "cluster"
    cache_mode: str = "use"

    def __post_init__(self):
        if self.shard is not None and not 0 <= self.shard[0] < self.shard[1]:
            raise ValueError(f"shard must be (index, count) with 0 <= index < count, got {self.shard}")
        if self.mode not in cluster_links.DECISION_MODES:
            raise ValueError(f"unknown decision mode {self.mode!r}; choose one of {cluster_links.DECISION_MODES}")
        if self.cache_mode not in CACHE_MODES:
            raise ValueError(f"unknown cache mode {self.cache_mode!r}; choose one of {CACHE_MODES}")

    def to_json(self, benchmarks: Sequence[Benchmark]) -> dict:
        return {
            "benchmarks": [benchmark.name for benchmark in benchmarks],
            "limit": self.limit,
            "n_bootstrap": self.n_bootstrap,
            "seed": self.seed,
            "shard": list(self.shard) if self.shard else None,
            "decision_mode": self.mode,
            "batch_size": self.batch_size,
            "cache_mode": self.cache_mode,
        }


def run_benchmark(
    model,
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
    shard, n_bootstrap, seed = settings.shard, settings.n_bootstrap, settings.seed
    parts = {
        (config, split): load_part(benchmark.dataset, config, split, data_dir, mirror)
        for config, split in benchmark.parts
    }
    parts = limit_units(parts, benchmark, settings.limit)
    if shard is not None:
        index, count = shard
        parts = {part: _shard(data, index, count) for part, data in parts.items()}
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

    result = BenchmarkRun(benchmark)
    outputs = {}
    predicting = time.perf_counter()
    try:
        advance(0)
        for (config, split), data in parts.items():
            key = (model_key, benchmark.dataset, config, split)
            predictor = _Predictor(model, benchmark.task, key, cache, advance, settings.cache_mode == "use")
            mapped = data.map(
                predictor,
                batched=True,
                batch_size=settings.batch_size,
                remove_columns=data.column_names,
                load_from_cache_file=False,
                keep_in_memory=True,
                new_fingerprint=hashlib.sha256(f"{model_key}/{config}/{split}".encode()).hexdigest()[:32],
            )
            # A part the limit emptied (pairs of another split or type) maps to no output column.
            outputs[config, split] = [json.loads(output) for output in mapped["output"]] if len(data) else []
            result.model_seconds += predictor.model_seconds
            result.num_predicted += predictor.predicted
    finally:
        if bar is not None:
            bar.close()
    result.predict_seconds = time.perf_counter() - predicting
    scoring_started = time.perf_counter()
    # Columns in bulk: a datasets.Dataset read row by row or column by column costs far more.
    result.parts = {part: data.to_dict() for part, data in parts.items()}
    decisions = {}
    for (config, split), columns in result.parts.items():
        decisions[config, split] = []
        for row, output in zip(rows_of(columns), outputs[config, split]):
            decision, parsed = _decision(output, row, settings.mode)
            decisions[config, split].append(decision)
            result.num_unparsed += not parsed
            instance = {
                "id": row["id"],
                "config": config,
                "split": split,
                "decision": decision,
                "gold": [c["is_referent"] for c in row["candidates"]],
                "parsed": parsed,
            }
            if isinstance(output, list):  # a cluster model's own clusters, for scores of clusters (CoNLL F1)
                instance["clusters"] = output
            elif isinstance(output, dict):  # a choice model's option position and cloze log-likelihoods
                instance.update({key: output[key] for key in ("position", "loglikelihoods") if key in output})
            result.instances.append(instance)
    if shard is None:
        result.sections = benchmark.score(result.parts, decisions, n_bootstrap, seed)
        if benchmark.score_outputs is not None:
            result.sections = {**benchmark.score_outputs(result.parts, outputs, n_bootstrap, seed), **result.sections}
        if result.instances and result.num_unparsed == len(result.instances):
            result.sections = without_readable_answers(result.sections, len(result.instances))
    result.score_seconds = time.perf_counter() - scoring_started
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
) -> RunResult:
    """Run one model on the named benchmarks under ``settings`` (default ``RunSettings()``); ``model`` may be
    given ready-made (its ``identity`` keys the cache).

    ``on_progress(benchmark, done, total)`` is called before a benchmark's predictions and after each
    batch; an exception it raises stops the run (the batches answered so far stay cached).
    """
    settings = settings if settings is not None else RunSettings()
    chosen = resolve(benchmarks)
    started = datetime.now(timezone.utc)
    model = model if model is not None else load_model(model_spec, **(model_options or {}))
    identity = model_identity(model, model_spec)
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    datasets.disable_progress_bars()
    with PredictionCache(cache_path) if settings.cache_mode != "off" else nullcontext() as cache:
        runs = {
            benchmark.name: run_benchmark(
                model,
                benchmark,
                settings,
                model_key=cache_key(benchmark_identity(model, identity, benchmark)),
                data_dir=data_dir,
                mirror=mirror,
                cache=cache,
                progress=progress,
                on_progress=on_progress,
            )
            for benchmark in chosen
        }
    result = RunResult(model_spec, runs, settings.to_json(chosen))
    result.provenance = provenance(result, model_spec, identity, data_dir, started)
    templates = {b.name: benchmark_identity(model, identity, b).get("cloze_template") for b in chosen}
    if any(templates.values()):
        result.provenance["model"]["cloze_templates"] = {name: t for name, t in templates.items() if t}
    return result
