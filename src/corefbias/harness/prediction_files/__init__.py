"""Reading the predictions a coreference system already wrote, one small reader per format.

Every reader turns a file into ``Document``s: where it came from (for error messages), an id when
the format carries one, and either its tokens with clusters of inclusive token spans, or per-candidate
decisions (formats that hold links, not clusters). Each format is a ``FileFormat`` (``file_format``), and
``FILE_FORMATS`` the one registry of them: the package's own (each reader module's ``FORMAT``), those of
installed distributions (entry point group ``corefbias.formats``, each naming a ``FileFormat`` or a sequence
of them), then those registered (``register``; ``--include DIR``). ``matching`` pairs documents with a
benchmark's instances; ``scoring`` runs the benchmark's scoring on them (``corefbias score``).
"""

from __future__ import annotations

from pathlib import Path

from ...plugins.registry import Registry
from . import allennlp, conll, gap_tsv, instances, jsonlines, lm_eval_samples
from .document import Document, PredictionFileError, lines_of
from .file_format import FileFormat

ENTRY_POINT_GROUP = "corefbias.formats"
AUTO = "auto"


def _accept(declared, origin: str, name: str | None) -> list[FileFormat]:
    found = list(declared) if isinstance(declared, (list, tuple)) else [declared]
    for file_format in found:
        if not isinstance(file_format, FileFormat):
            raise ValueError(f"{origin} declares {file_format!r}, which is not a corefbias FileFormat")
    return found


def new_registry() -> Registry[FileFormat]:
    """A registry of the package's formats and the entry points', read on first use (``FILE_FORMATS`` is one).

    Examples
    --------
    >>> list(new_registry())
    ['conll', 'jsonlines', 'allennlp', 'gap-tsv', 'instances', 'lm-eval-samples']
    """
    return Registry(
        "file format",
        ENTRY_POINT_GROUP,
        lambda: (
            conll.FORMAT,
            jsonlines.FORMAT,
            allennlp.FORMAT,
            gap_tsv.FORMAT,
            instances.FORMAT,
            lm_eval_samples.FORMAT,
        ),
        _accept,
        reserved={AUTO: "which tells the format from a file's first line"},
    )


FILE_FORMATS = new_registry()


def register(file_format: FileFormat, origin: str = "registered") -> None:
    """Add a format declared outside corefbias; ``origin`` says where it came from (``corefbias list formats``).

    Examples
    --------
    >>> register(FILE_FORMATS["conll"])  # the same declaration: nothing changes
    >>> register(FileFormat("auto", conll.read, "Mine."))
    Traceback (most recent call last):
    ...
    ValueError: registered: a file format may not be called 'auto', which tells the format from a file's first line
    """
    FILE_FORMATS.register(file_format, origin)


# Said where ``auto`` cannot tell a file's format: the command line and the Space both name it there.
NAME_THE_FORMAT = "name its format (`--format` of `corefbias score`, the Format menu of the Space)"


def format_choices() -> tuple[str, ...]:
    """What ``--format`` takes: ``auto``, then every format's name.

    Examples
    --------
    >>> format_choices()[:3]
    ('auto', 'conll', 'jsonlines')
    """
    return (AUTO, *FILE_FORMATS)


def detect(path: Path) -> str:
    """The format of a file, from its first non-blank line: the one format that recognises it, else the one
    fallback format that does (``FileFormat.fallback``)."""
    first = next((line for line in lines_of(path) if line.strip()), None)
    if first is None:
        raise PredictionFileError(f"{path}: the file is empty (not one line with text in it)")
    recognising = [item for item in FILE_FORMATS.values() if item.recognises is not None and item.recognises(first)]
    for candidates in ([item for item in recognising if not item.fallback], recognising):
        if len(candidates) == 1:
            return candidates[0].name
        if len(candidates) > 1:
            raise PredictionFileError(
                f"{path}: its first line {first[:80]!r} fits the formats {', '.join(item.name for item in candidates)}"
                f"; {NAME_THE_FORMAT}"
            )
    raise PredictionFileError(
        f"{path}: cannot tell its format from the first line {first[:80]!r}; {NAME_THE_FORMAT} "
        f"({', '.join(FILE_FORMATS)})"
    )


def read(paths, format: str = AUTO) -> list[Document]:
    """Every document of the files, in order."""
    if format not in format_choices():
        raise ValueError(f"unknown predictions format {format!r}; choose one of {', '.join(format_choices())}")
    documents: list[Document] = []
    seen: dict[Path, Path] = {}
    for path in map(Path, paths):
        if path.is_dir():
            raise PredictionFileError(f"{path} is a folder; give the predictions files in it (e.g. {path}/*.jsonl)")
        if not path.is_file():
            raise FileNotFoundError(f"no predictions file {path}")
        if path.resolve() in seen:
            raise PredictionFileError(f"{path} is given twice (as {seen[path.resolve()]} too); give each file once")
        seen[path.resolve()] = path
        read_here = FILE_FORMATS[detect(path) if format == AUTO else format].read(path)
        if not read_here:
            raise PredictionFileError(f"{path}: not one document in it (is the file empty?)")
        documents += read_here
    return documents


__all__ = [
    "AUTO",
    "Document",
    "FILE_FORMATS",
    "FileFormat",
    "PredictionFileError",
    "detect",
    "format_choices",
    "read",
    "register",
]
