"""What a prediction file format declares: its name, its reader, how its first line is told apart, what it is.

The package's formats are declared by their reader modules (each one's ``FORMAT``); installed packages add
formats through the entry point group ``corefbias.formats``, and ``--include DIR`` adds those a folder declares
(``corefbias.harness.extensions``). ``corefbias.harness.prediction_files.FILE_FORMATS`` is their registry.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .document import Document

_NAME = re.compile(r"[a-z][a-z0-9]*([-_][a-z0-9]+)*")


@dataclass(frozen=True)
class FileFormat:
    """One format of prediction files ``corefbias score --format NAME`` reads.

    Parameters
    ----------
    name : str
        What ``--format`` calls it: lower-case words joined by ``-`` or ``_`` (``"gap-tsv"``).
    read : callable
        ``read(path) -> list[Document]``: every document of the file, in order; a ``PredictionFileError``
        naming where and what a right file holds for anything it cannot make sense of.
    description : str
        What the format is and which systems write it, for ``corefbias list formats`` (white space is
        collapsed, so a module's docstring serves).
    recognises : callable or None
        ``recognises(first_line) -> bool``: whether a file whose first non-blank line is ``first_line`` is of this
        format, so that ``--format auto`` finds it; None: users name it.
    fallback : bool, default False
        Whether it recognises lines more specific formats claim too (jsonlines: every JSON object): it is chosen
        only where no other format recognises the line.

    Examples
    --------
    >>> def read(path):
    ...     return []
    >>> tsv = FileFormat("my-tsv", read, "Tab-separated   decisions.", lambda line: line.startswith("id\\t"))
    >>> tsv.description, tsv.recognises("id\\tA\\tB")
    ('Tab-separated decisions.', True)
    >>> FileFormat("My Format", read, "Mine.")
    Traceback (most recent call last):
    ...
    ValueError: a file format's name must be lower-case words joined by - or _, got 'My Format'
    """

    name: str
    read: Callable[[Path], list[Document]]
    description: str
    recognises: Callable[[str], bool] | None = None
    fallback: bool = False

    def __post_init__(self):
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise ValueError(f"a file format's name must be lower-case words joined by - or _, got {self.name!r}")
        if not callable(self.read) or not (self.recognises is None or callable(self.recognises)):
            raise ValueError(f"file format {self.name!r}: read and recognises must be callable")
        if not isinstance(self.description, str) or not self.description.strip():
            raise ValueError(f"file format {self.name!r}: say what it is in its description")
        # The one write to the frozen instance: the description as one line.
        object.__setattr__(self, "description", " ".join(self.description.split()))
