"""``corefbias score``: a predictions file scored on a benchmark exactly as ``corefbias run`` scores a model.

The file's documents are matched to the benchmark's instances, put into a throw-away prediction cache
under the files' identity (their names, SHA-256 and format), and the runner's ``run_benchmark`` then finds
every answer cached: the decisions, sections, instances, provenance and outputs are the runner's own.
"""

from __future__ import annotations

import dataclasses
import hashlib
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import datasets

from ...models.cluster_format import ModelError
from .. import runner
from ..benchmarks import resolve
from ..prediction_cache import PredictionCache
from . import detect, read
from .matching import match


class _AnsweredByFile:
    """Stands in for the model: every answer is already in the cache, so it is never asked."""

    def __init__(self, name: str):
        self.name = name

    def predict_clusters(self, texts):
        raise ModelError(f"{self.name}: asked for {len(texts)} texts that the predictions file did not answer")


def file_identity(paths, formats) -> tuple[str, dict]:
    """The predictions' name (what results call the model) and identity: each file's name, SHA-256 and format."""
    files = []
    combined = hashlib.sha256()
    for path, file_format in zip(map(Path, paths), formats):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        combined.update(digest.encode())
        files.append({"file": path.name, "sha256": digest, "format": file_format})
    names = ",".join(file["file"] for file in files)
    return f"predictions:{names}@sha256:{combined.hexdigest()[:16]}", {"kind": "predictions", "files": files}


def _benchmark(name: str, config: str | None):
    chosen = resolve([name])
    if len(chosen) != 1:
        raise ValueError(f"score one benchmark at a time, not {name!r}")
    (benchmark,) = chosen
    if config is None:
        return benchmark
    if len(benchmark.parts) != 1:
        raise ValueError(f"--config is for benchmarks of one part; {benchmark.name} has {len(benchmark.parts)}")
    ((_, split),) = benchmark.parts
    return dataclasses.replace(benchmark, parts=((config, split),))


def score(
    benchmark_name: str,
    paths,
    *,
    format: str = "auto",
    config: str | None = None,
    data_dir=None,
    mirror=None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    mode: str = "cluster",
    progress: bool = False,
) -> runner.RunResult:
    """Score the predictions in ``paths`` (one format) on one benchmark; ``config`` replaces the set's
    config for one-part benchmarks (e.g. ``abc`` with ``original``, the sentences ABC published)."""
    started = datetime.now(timezone.utc)
    benchmark = _benchmark(benchmark_name, config)
    paths = [Path(path) for path in paths]
    documents = read(paths, format)
    formats = [detect(path) if format == "auto" else format for path in paths]
    data_dir = Path(data_dir) if data_dir is not None else runner.default_data_dir()
    datasets.disable_progress_bars()
    parts = {
        (part_config, split): runner.load_part(benchmark.dataset, part_config, split, data_dir, mirror)
        .select_columns(["id", "text", "candidates"])
        .to_dict()
        for part_config, split in benchmark.parts
    }
    outputs = match(documents, parts, benchmark.name)
    spec, identity = file_identity(paths, formats)
    model_key = runner.cache_key(identity)
    with (
        tempfile.TemporaryDirectory(prefix="corefbias-score-") as folder,
        PredictionCache(Path(folder) / "predictions.sqlite") as cache,
    ):
        for (part_config, split), columns in parts.items():
            answers = dict(zip(columns["id"], outputs[part_config, split]))
            cache.put((model_key, benchmark.dataset, part_config, split), answers)
        run = runner.run_benchmark(
            _AnsweredByFile(spec),
            benchmark,
            runner.RunSettings(n_bootstrap=n_bootstrap, seed=seed, batch_size=1000, mode=mode),
            model_key=model_key,
            data_dir=data_dir,
            mirror=mirror,
            cache=cache,
            progress=progress,
        )
    settings = {
        "benchmarks": [benchmark.name],
        "limit": None,
        "n_bootstrap": n_bootstrap,
        "seed": seed,
        "shard": None,
        "decision_mode": mode,
        "config": config,
        "predictions": identity["files"],
    }
    result = runner.RunResult(spec, {benchmark.name: run}, settings)
    result.provenance = runner.provenance(result, spec, identity, data_dir, started)
    return result
