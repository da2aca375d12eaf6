"""A benchmark's exported set on disk: where it is, building it on first use, and its fingerprint.

corefbias's own sets (and a declarer's builders) are exported once into the data folder from the upstream
mirror; a declaration with a ready ``export`` folder is read where it is.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import datasets
import pyarrow.parquet
from filelock import FileLock

from .. import __version__
from ..benchmarks import Benchmark
from ..data import hub_export, upstream


def default_data_dir() -> Path:
    """Where exported sets are kept: next to the prediction cache, per corefbias version."""
    from .prediction_cache import default_path

    return default_path().parent / "datasets" / __version__


def _complete(folder: Path, benchmark: Benchmark, parts: list[Path]) -> bool:
    """Whether an export holds every part the benchmark scores, each with the columns naming its blocks."""
    if not (folder / "README.md").is_file() or not all(part.is_file() for part in parts):
        return False
    needed = set(benchmark.blocks.columns) if benchmark.blocks is not None else set()
    return all(needed <= set(pyarrow.parquet.read_schema(part).names) for part in parts)


def export_lock(data_dir: Path, dataset: str) -> FileLock:
    """The lock held while a set is exported into a data folder, so that runs (and test workers) sharing the folder
    export it once: the others wait, then find the export.

    Parameters
    ----------
    data_dir : Path
        The folder of exported sets (made if missing).
    dataset : str
        The set's name.

    Returns
    -------
    filelock.FileLock

    Examples
    --------
    >>> import tempfile
    >>> export_lock(Path(tempfile.mkdtemp()), "gap").lock_file.endswith(".gap.lock")
    True
    """
    Path(data_dir).mkdir(parents=True, exist_ok=True)
    return FileLock(Path(data_dir) / f".{dataset}.lock")


def set_folder(benchmark: Benchmark, data_dir: Path, mirror=None) -> Path:
    """The folder of the benchmark's exported set, exporting it from the mirror first if needed: where it is
    missing, or lacks a part the benchmark scores or a column naming its blocks (an export made before its builder
    gained that config or column)."""
    if benchmark.export is not None:
        folder = Path(benchmark.export)
        if not (folder / "README.md").is_file():
            raise ValueError(
                f"benchmark {benchmark.name!r}: its export folder {folder} has no README.md; an export is a card "
                f"plus {hub_export.DATA_FILE.format(config='<config>', split='<split>')} files"
            )
        return folder
    folder = Path(data_dir) / benchmark.dataset
    parts = [folder / hub_export.DATA_FILE.format(config=config, split=split) for config, split in benchmark.parts]
    if not _complete(folder, benchmark, parts):
        # Runs started together on a fresh data folder: one exports, the others wait and find its export (a second
        # export would replace the folder while the first run reads it). An export lacking a config or a column a
        # benchmark reads (made before the builder had it) is made again.
        with export_lock(data_dir, benchmark.dataset):
            if not _complete(folder, benchmark, parts):
                hub_export.export_dataset(benchmark.dataset, data_dir, mirror, scripts_dir=benchmark.builders)
    return folder


def exported_parts(benchmark: Benchmark, data_dir: Path) -> dict[tuple[str, str], Path]:
    """Every part of the benchmark's set already exported (its declared parts and the set's other configs),
    building nothing: ``(config, split)`` → its Parquet file; empty where the set is not exported.

    Parameters
    ----------
    benchmark : Benchmark
        The benchmark whose set is looked for.
    data_dir : Path
        The folder of exported sets.

    Returns
    -------
    dict of (str, str) to Path

    Examples
    --------
    >>> from corefbias.benchmarks import BENCHMARKS
    >>> exported_parts(BENCHMARKS["bug"], Path("/nonexistent"))
    {}
    """
    folder = Path(benchmark.export) if benchmark.export is not None else Path(data_dir) / benchmark.dataset
    suffix = hub_export.DATA_FILE.format(config="", split="").rsplit("/", 1)[1]  # after the split's name
    return {
        (path.parent.name, path.name[: -len(suffix)]): path
        for path in sorted(folder.glob(hub_export.DATA_FILE.format(config="*", split="*")))
    }


def citation(benchmark: Benchmark) -> str:
    """The BibTeX to cite for a benchmark: its declaration's, else its builder's ``CITATION`` ("" for none)."""
    if benchmark.citation is not None:
        return benchmark.citation
    if benchmark.export is not None:
        return ""
    return getattr(hub_export.builder_class(benchmark.dataset, benchmark.builders), "CITATION", "")


def load_part(benchmark: Benchmark, config: str, split: str, data_dir: Path, mirror=None) -> datasets.Dataset:
    """One config/split of the benchmark's exported set."""
    return datasets.load_dataset(str(set_folder(benchmark, data_dir, mirror)), config, split=split)


def data_provenance(benchmark: Benchmark, data_dir: Path) -> dict:
    """The set a benchmark ran on: its upstream commit and the sha256 over the exported Parquet files it used."""
    try:
        source_commit = upstream.dataset_source(benchmark.dataset)["commit"]
    except upstream.UpstreamFileError:
        source_commit = None
    folder = set_folder(benchmark, data_dir)
    files = hashlib.sha256()
    for config, split in benchmark.parts:
        path = folder / hub_export.DATA_FILE.format(config=config, split=split)
        files.update(f"{config}/{split}\0{upstream.file_sha256(path)}\n".encode())
    return {"dataset": benchmark.dataset, "source_commit": source_commit, "fingerprint": files.hexdigest()}
