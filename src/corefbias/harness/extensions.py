"""Benchmarks, model kinds and prediction file formats from outside the package: a folder of declarations
(``--include DIR``).

Every ``*.py`` file of the folder is imported (in name order, once per file) and what it defines at
module level is registered: each ``Benchmark`` (``corefbias.benchmarks.register``), each ``ModelKind``
(``corefbias.models.registry.register``) and each ``FileFormat``
(``corefbias.harness.prediction_files.register``). Installed packages use entry points instead (groups
``corefbias.benchmarks``, ``corefbias.models`` and ``corefbias.formats``), which need no include. ``COREFBIAS_INCLUDE``
(folders separated by ``os.pathsep``) includes folders in every command and in the Space.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path

from ..benchmarks import Benchmark, register
from ..models import registry as model_registry
from . import prediction_files

INCLUDE_ENV = "COREFBIAS_INCLUDE"
_included: dict[Path, list[str]] = {}


def include(directory: str | os.PathLike) -> list[str]:
    """Import every ``*.py`` file of ``directory`` and register the benchmarks, model kinds and file formats they
    define.

    Returns what was registered, as ``"benchmark <name>"``, ``"model <kind>"`` and ``"format <name>"``; including
    a folder again registers nothing new.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> include(folder)
    []
    """
    folder = Path(directory).expanduser().resolve()
    if not folder.is_dir():
        raise ValueError(
            f"--include {directory}: no such folder; give a folder of benchmark, model or file format declarations"
        )
    added: list[str] = []
    for path in sorted(folder.glob("*.py")):
        if path in _included:
            continue
        module = _import(path)
        found = []
        for value in vars(module).values():
            if isinstance(value, Benchmark):
                register(value, origin=str(path))
                found.append(f"benchmark {value.name}")
            elif isinstance(value, model_registry.ModelKind):
                model_registry.register(value, origin=str(path))
                found.append(f"model {value.name}")
            elif isinstance(value, prediction_files.FileFormat):
                prediction_files.register(value, origin=str(path))
                found.append(f"format {value.name}")
        _included[path] = found
        added += found
    return added


def include_from_environment() -> list[str]:
    """Include every folder named in ``$COREFBIAS_INCLUDE``."""
    folders = [folder for folder in os.environ.get(INCLUDE_ENV, "").split(os.pathsep) if folder]
    return [item for folder in folders for item in include(folder)]


def _import(path: Path):
    """The module of one declaration file, under a name of its own (two folders may both hold ``toy.py``)."""
    name = f"corefbias_include_{hashlib.sha256(str(path).encode()).hexdigest()[:12]}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise ValueError(f"--include: {path} failed to import: {type(error).__name__}: {error}") from error
    return module
