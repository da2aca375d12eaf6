"""BibTeX of the papers and data sets corefbias implements, for metric modules, builders and cards.

Each entry lives beside the set it belongs to, in ``<set>/citation.bib`` (``corefbias.data.set_files``); a
builder, a declaration or a metric module cites entries by their BibTeX keys, so a paper that several sets
and measures cite is written once.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import set_files

_ENTRY = re.compile(r"^@\w+\{(?P<key>[^,\s]+),", re.MULTILINE)
_read: dict[tuple[Path, ...], dict[str, str]] = {}


def entries(text: str) -> dict[str, str]:
    """The entries of a BibTeX text by key, each from its ``@`` to its closing brace and newline.

    Examples
    --------
    >>> entries('@misc{a,\\n    title = "A",\\n}\\n\\n@misc{b,\\n}\\n')
    {'a': '@misc{a,\\n    title = "A",\\n}\\n', 'b': '@misc{b,\\n}\\n'}
    """
    starts = list(_ENTRY.finditer(text))
    ends = [match.start() for match in starts[1:]] + [len(text)]
    return {match["key"]: text[match.start() : end].rstrip() + "\n" for match, end in zip(starts, ends)}


def bibliography() -> dict[str, str]:
    """Every entry of every set's ``citation.bib``, by key; a key defined twice is an error."""
    folders = set_files.folders()
    if folders not in _read:
        found: dict[str, str] = {}
        for path in set_files.files("citation.bib"):
            for key, entry in entries(path.read_text(encoding="utf-8")).items():
                if key in found:
                    raise ValueError(f"the BibTeX key {key!r} of {path} is defined twice; cite the first by its key")
                found[key] = entry
        _read[folders] = found
    return _read[folders]


def cite(*keys: str) -> str:
    """The BibTeX entries of ``keys``, in that order, one after the other.

    Examples
    --------
    >>> print(cite("rudinger-etal-2018-gender").splitlines()[1])
        title = "Gender Bias in Coreference Resolution",
    >>> cite("nobody-2099")
    Traceback (most recent call last):
    ...
    ValueError: no BibTeX entry 'nobody-2099' in any set's citation.bib
    """
    known = bibliography()
    missing = [key for key in keys if key not in known]
    if missing:
        raise ValueError(f"no BibTeX entry {missing[0]!r} in any set's citation.bib")
    return "".join(known[key] for key in keys)
