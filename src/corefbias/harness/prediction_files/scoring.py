"""``corefbias score``: a predictions file scored on a benchmark exactly as ``corefbias run`` scores a model.

The file's documents are matched to the benchmark's instances and the answers go through the same
pipeline as a model's (``corefbias.harness.scoring.score_benchmark``), under the files' identity (their
names, SHA-256 and format): the decisions, sections, instances, provenance and outputs are the runner's own.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from datetime import datetime, timezone
from pathlib import Path

import datasets

from ...benchmarks import BENCHMARKS
from ...benchmarks.registry import GROUPS
from ...data import hub_export
from .. import runner
from ..benchmark_data import default_data_dir, load_part
from ..cluster_links import DECISION_MODES
from ..limits import limit_units
from ..prompt_sets import with_template
from ..run_outputs import PREDICTIONS_KIND
from ..scoring import score_benchmark
from . import detect, read
from .document import PredictionFileError
from .matching import match


def file_identity(paths, formats) -> tuple[str, dict]:
    """The predictions' name (what results call the model) and identity: each file's name, SHA-256 and format."""
    files = []
    combined = hashlib.sha256()
    for path, file_format in zip(map(Path, paths), formats):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        combined.update(digest.encode())
        files.append({"file": path.name, "sha256": digest, "format": file_format})
    names = ",".join(file["file"] for file in files)
    return f"predictions:{names}@sha256:{combined.hexdigest()[:16]}", {"kind": PREDICTIONS_KIND, "files": files}


def _benchmark(name: str, config: str | None):
    if name not in BENCHMARKS:
        # A group (``all``, ``english``) names several: a file holds one benchmark's predictions.
        what = f"{name!r} names several benchmarks" if name in GROUPS else f"unknown benchmark {name!r}"
        raise ValueError(f"{what}; score takes one benchmark at a time: {', '.join(BENCHMARKS)}")
    benchmark = BENCHMARKS[name]
    if config is None:
        return benchmark
    if len(benchmark.parts) != 1:
        raise ValueError(f"--config is for benchmarks of one part; {benchmark.name} has {len(benchmark.parts)}")
    ((_, split),) = benchmark.parts
    if benchmark.export is None:
        configs = _set_configs(benchmark)
        if config not in configs:
            raise ValueError(f"{benchmark.dataset} has no config {config!r}; --config takes {', '.join(configs)}")
    return dataclasses.replace(benchmark, parts=((config, split),))


def _set_configs(benchmark) -> list[str]:
    """The configs of the set a benchmark built by our builders reads."""
    return list(hub_export.builder_class(benchmark.dataset, benchmark.builders).builder_configs)


def _elsewhere(benchmark, config: str | None, limit: int | None) -> str:
    """Where a document that is no instance of the scored ones may be one: beyond ``--limit``, or in another config
    of a one-part benchmark's set (ABC's own sentences, ``--config original``)."""
    if limit is not None:
        return f"; a file of more instances than `--limit {limit}` keeps is scored without --limit"
    if config is not None or len(benchmark.parts) != 1 or benchmark.export is not None:
        return ""
    ((own, _),) = benchmark.parts
    others = [name for name in _set_configs(benchmark) if name != own]
    return (
        f"; the predictions of another config of its set are scored with --config ({', '.join(others)})"
        if others
        else ""
    )


def _with_files_prompt(benchmark, documents) -> tuple:
    """The benchmark read with the prompt the files name (lm-eval samples of an ``export-lm-eval --prompts`` task), so
    that its "don't know" option is scored; and that prompt's name (None where the files name none)."""
    named = list(dict.fromkeys(document.template for document in documents if document.template is not None))
    if not named:
        return benchmark, None
    if len(named) > 1:
        raise PredictionFileError(
            f"the files hold answers to {len(named)} prompts ({', '.join(named)}); score one prompt's samples at a time"
        )
    prompts = {template.name: template for template in benchmark.prompt_set}
    if named[0] not in prompts:
        raise PredictionFileError(
            f"the files hold answers to the prompt {named[0]!r}, which {benchmark.name} does not have (its prompts: "
            f"{', '.join(prompts) or 'none'}); are they another benchmark's?"
        )
    return with_template(benchmark, prompts[named[0]]), named[0]


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
    limit: int | None = None,
) -> runner.RunResult:
    """Score the predictions in ``paths`` (one format) on one benchmark; ``config`` replaces the set's
    config for one-part benchmarks (e.g. ``abc`` with ``original``, the sentences ABC published); ``limit`` scores
    the instances ``corefbias run --limit`` answers (``harness.limits``), e.g. a quick run's instances file."""
    started = datetime.now(timezone.utc)
    clock = time.perf_counter()
    if mode not in DECISION_MODES:
        raise ValueError(f"unknown decision mode {mode!r}; choose one of {DECISION_MODES}")
    benchmark = _benchmark(benchmark_name, config)
    paths = [Path(path) for path in paths]
    documents = read(paths, format)
    benchmark, prompt = _with_files_prompt(benchmark, documents)
    formats = [detect(path) if format == "auto" else format for path in paths]
    if mode != DECISION_MODES[0] and not any(document.clusters or document.char_clusters for document in documents):
        raise ValueError(
            f"--mode {mode} says how clusters become links, and these files ({', '.join(dict.fromkeys(formats))}) "
            "hold links, not clusters; leave --mode out"
        )
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    datasets.disable_progress_bars()
    parts = limit_units(
        {part: load_part(benchmark, *part, data_dir, mirror) for part in benchmark.parts}, benchmark, limit
    )
    rows = {part: data.to_dict() for part, data in parts.items()}
    # Named with its limit, so that an id outside the limited instances is not said to be no instance at all.
    scope = benchmark.name if limit is None else f"{benchmark.name} at --limit {limit}"
    outputs = match(
        documents,
        rows,
        scope,
        document_column=benchmark.document_column,
        elsewhere=_elsewhere(benchmark, config, limit),
    )
    spec, identity = file_identity(paths, formats)
    run = score_benchmark(benchmark, rows, outputs, mode=mode, n_bootstrap=n_bootstrap, seed=seed)
    run.wall_seconds = time.perf_counter() - clock
    settings = {
        "benchmarks": [benchmark.name],
        "limit": limit,
        "n_bootstrap": n_bootstrap,
        "seed": seed,
        "shard": None,
        "decision_mode": mode,
        "config": config,
        "predictions": identity["files"],
        **({"prompt": prompt} if prompt is not None else {}),
    }
    result = runner.RunResult(spec, {benchmark.name: run}, settings)
    result.provenance = runner.provenance(result, spec, identity, data_dir, started)
    return result
