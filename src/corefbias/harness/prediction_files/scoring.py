"""``corefbias score``: a predictions file scored on a benchmark exactly as ``corefbias run`` scores a model.

The file's documents are matched to the benchmark's instances and the answers go through the same
pipeline as a model's (``corefbias.harness.runner.score_benchmark``), under the files' identity (their
names, SHA-256 and format): the decisions, sections, instances, provenance and outputs are the runner's own.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path

import datasets
import pyarrow.parquet

from ...benchmarks import BENCHMARKS
from ...benchmarks.registry import GROUPS
from ...data import hub_export
from .. import runner
from ..benchmark_data import default_data_dir, exported_parts, load_part
from ..cluster_links import DEFAULT_MODE, check_mode
from ..limits import limit_units
from ..prompt_sets import with_template
from ..run_outputs import PREDICTIONS_KIND
from ..runner import score_benchmark
from . import detect, read
from .document import Document, PredictionFileError
from .matching import answers, match


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


def part_label(benchmark, part: tuple[str, str]) -> str:
    """How ``--config`` names a part of a benchmark: its config, or ``config/split`` where the benchmark reads the
    config in several splits.

    Parameters
    ----------
    benchmark : Benchmark
        The benchmark.
    part : (str, str)
        One of its ``(config, split)`` parts.

    Returns
    -------
    str

    Examples
    --------
    >>> part_label(BENCHMARKS["bug"], ("gold", "test")), part_label(BENCHMARKS["dawinobias"], ("pro", "test"))
    ('gold', 'pro/test')
    """
    config, split = part
    return config if [own for own, _ in benchmark.parts].count(config) == 1 else f"{config}/{split}"


def selected_parts(benchmark, names: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The parts of a benchmark of several that ``--config`` names score alone (each name a config, or
    ``config/split``), in the benchmark's order; a part some sections pool with others
    (``Benchmark.pooled_parts``) only with all of them.

    Parameters
    ----------
    benchmark : Benchmark
        A benchmark of several parts.
    names : sequence of str
        What ``--config`` was given.

    Returns
    -------
    tuple of (str, str)

    Raises
    ------
    ValueError
        For a name that is no part, or a part whose sections need parts left out (saying which).

    Examples
    --------
    >>> selected_parts(BENCHMARKS["bug"], ["gold"])
    (('gold', 'test'),)
    >>> selected_parts(BENCHMARKS["winobias"], ["type1_pro"])
    Traceback (most recent call last):
    ...
    ValueError: winobias scores type1_pro only together with type1_anti, as its sections pool them: give --config \
type1_pro type1_anti
    """
    named = {part: {part[0], f"{part[0]}/{part[1]}"} for part in benchmark.parts}
    unknown = [name for name in names if not any(name in labels for labels in named.values())]
    if unknown:
        listing = ", ".join(part_label(benchmark, part) for part in benchmark.parts)
        raise ValueError(f"{benchmark.name} has no part {unknown[0]!r}; --config takes {listing}")
    selected = tuple(part for part in benchmark.parts if named[part] & set(names))
    for part in selected:
        groups = [group for group in benchmark.pooled_parts if part in group]
        if groups and not any(set(group) <= set(selected) for group in groups):
            group = min(groups, key=len)
            left_out = [part_label(benchmark, other) for other in group if other not in selected]
            remedy = (
                "leave --config out"
                if set(group) == set(benchmark.parts)
                else f"give --config {' '.join(part_label(benchmark, other) for other in group)}"
            )
            raise ValueError(
                f"{benchmark.name} scores {part_label(benchmark, part)} only together with {', '.join(left_out)}, "
                f"as its sections pool them: {remedy}"
            )
    return selected


def _config_names(config: str | Sequence[str] | None) -> list[str]:
    return [] if config is None else [config] if isinstance(config, str) else list(config)


def _benchmark(name: str, configs: list[str]):
    if name not in BENCHMARKS:
        # A group (``all``, ``english``) names several: a file holds one benchmark's predictions.
        what = f"{name!r} names several benchmarks" if name in GROUPS else f"unknown benchmark {name!r}"
        raise ValueError(f"{what}; score takes one benchmark at a time: {', '.join(BENCHMARKS)}")
    benchmark = BENCHMARKS[name]
    if not configs:
        return benchmark
    if len(benchmark.parts) != 1:
        selected = selected_parts(benchmark, configs)
        pooled = tuple(group for group in benchmark.pooled_parts if set(group) <= set(selected))
        return dataclasses.replace(benchmark, parts=selected, pooled_parts=pooled)
    ((own, split),) = benchmark.parts
    if len(configs) != 1:
        raise ValueError(
            f"{benchmark.name} is scored on one config ({own}, or another of its set's that --config names); "
            f"--config got {len(configs)}: {' '.join(configs)}"
        )
    (config,) = configs
    if benchmark.export is None:
        configs = _set_configs(benchmark)
        if config not in configs:
            raise ValueError(f"{benchmark.dataset} has no config {config!r}; --config takes {', '.join(configs)}")
    return dataclasses.replace(benchmark, parts=((config, split),))


def _set_configs(benchmark) -> list[str]:
    """The configs of the set a benchmark built by our builders reads."""
    return list(hub_export.builder_class(benchmark.dataset, benchmark.builders).builder_configs)


def _exported_rows(benchmark, data_dir: Path) -> dict:
    """(config, split) → ``id``, ``text`` (and the document column) of every part of the benchmark's set exported
    in ``data_dir``, building nothing."""
    found = {}
    for part, path in exported_parts(benchmark, data_dir).items():
        names = pyarrow.parquet.read_schema(path).names
        wanted = [name for name in ("id", "text", benchmark.document_column) if name is not None and name in names]
        found[part] = pyarrow.parquet.read_table(path, columns=wanted).to_pydict()
    return found


def _where_else(scored, configs: list[str], limit: int | None, unlimited: dict, data_dir: Path):
    """``elsewhere`` of :func:`matching.match`: where a document that is no instance of the scored ones is one,
    looked up (on the error only) in the instances ``--limit`` left out, the parts ``--config`` left out, the parts
    of every other benchmark whose set is exported in ``data_dir``, and the other configs of a one-part benchmark's
    set; "" where it is none of them."""
    declared = BENCHMARKS[scored.name]
    column = scored.document_column

    def hint(document: Document) -> str:
        if limit is not None and any(answers(document, data.to_dict(), column) for data in unlimited.values()):
            return (
                f"; it is an instance beyond the limit; a file of more instances than `--limit {limit}` keeps is "
                f"scored without --limit"
            )
        own = _exported_rows(declared, data_dir)
        for part in declared.parts:
            if part not in scored.parts and part in own and answers(document, own[part], column):
                return (
                    f"; it is an instance of {part_label(declared, part)} of {declared.name}, which "
                    f"--config {' '.join(configs)} leaves out"
                )
        for other in BENCHMARKS.values():
            if other.name == declared.name:
                continue
            rows = _exported_rows(other, data_dir)
            for part in other.parts:
                if part in rows and answers(document, rows[part], other.document_column):
                    return (
                        f"; it is an instance of {other.name} ({part_label(other, part)}), not of {declared.name}: "
                        f"score the file with --benchmark {other.name}"
                    )
        if len(declared.parts) == 1:  # where --config replaces the set's config
            for part, rows in own.items():
                if part not in scored.parts and answers(document, rows, column):
                    return (
                        f"; it is an instance of the config {part[0]} of the {declared.dataset} set: score it with "
                        f"--config {part[0]}"
                    )
        return ""

    return hint


def _only_parts(scored) -> Callable[[list], str]:
    """``only_parts`` of :func:`matching.match`: the documents answer some parts whole and no other, so the hint
    is ``--config`` with those parts, or why they cannot be scored alone."""
    declared = BENCHMARKS[scored.name]

    def hint(whole: list) -> str:
        names = [part_label(declared, part) for part in whole]
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        answered = f"; the documents answer every instance of {listed}, and none of the other parts"
        try:
            selected_parts(declared, names)
        except ValueError as refusal:
            return f"{answered} ({refusal})"
        return f"{answered}: score {'it' if len(names) == 1 else 'them'} alone with --config {' '.join(names)}"

    return hint


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
    config: str | Sequence[str] | None = None,
    data_dir=None,
    mirror=None,
    n_bootstrap: int = 1000,
    seed: int = 0,
    mode: str = DEFAULT_MODE,
    limit: int | None = None,
) -> runner.RunResult:
    """Score the predictions in ``paths`` (one format) on one benchmark; ``config`` names the parts scored of a
    benchmark of several (:func:`selected_parts`: ``bug`` with ``gold``), and replaces the set's config of a one-part
    benchmark (``abc`` with ``original``, the sentences ABC published); ``limit`` scores
    the instances ``corefbias run --limit`` answers (``harness.limits``), e.g. a quick run's instances file; ``mode``
    says how the files' clusters become links (``harness.cluster_links.MODE_CHOICES``; ``default``: the benchmark's
    own, as its card names it)."""
    started = datetime.now(timezone.utc)
    clock = time.perf_counter()
    check_mode(mode)
    configs = _config_names(config)
    benchmark = _benchmark(benchmark_name, configs)
    paths = [Path(path) for path in paths]
    documents = read(paths, format)
    benchmark, prompt = _with_files_prompt(benchmark, documents)
    formats = [detect(path) if format == "auto" else format for path in paths]
    if mode != DEFAULT_MODE and not any(document.clusters or document.char_clusters for document in documents):
        raise ValueError(
            f"--mode {mode} says how clusters become links, and these files ({', '.join(dict.fromkeys(formats))}) "
            "hold links, not clusters; leave --mode out"
        )
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    datasets.disable_progress_bars()
    loaded = {part: load_part(benchmark, *part, data_dir, mirror) for part in benchmark.parts}
    parts = limit_units(loaded, benchmark, limit)
    rows = {part: data.to_dict() for part, data in parts.items()}
    # Named with its limit, so that an id outside the limited instances is not said to be no instance at all.
    scope = benchmark.name if limit is None else f"{benchmark.name} at --limit {limit}"
    outputs = match(
        documents,
        rows,
        scope,
        document_column=benchmark.document_column,
        elsewhere=_where_else(benchmark, configs, limit, loaded, data_dir),
        only_parts=_only_parts(benchmark),
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
        "config": configs[0] if len(configs) == 1 else configs or None,
        "predictions": identity["files"],
        **({"prompt": prompt} if prompt is not None else {}),
    }
    result = runner.RunResult(spec, {benchmark.name: run}, settings)
    result.provenance = runner.provenance(result, spec, identity, data_dir, started)
    return result
