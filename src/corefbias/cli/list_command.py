"""``corefbias list``: what this installation knows: its benchmarks, model kinds and prediction file formats
(``corefbias list`` alone: all three, one after the other).

Each listing is one row per entry, as aligned text or, with ``--json``, a JSON list of objects with the same
fields, so scripts can read it.
"""

from __future__ import annotations

import argparse
import json
import re


def add_commands(commands, common: argparse.ArgumentParser) -> None:
    listing = commands.add_parser(
        "list",
        parents=[common],
        help="list the benchmarks, model kinds or prediction file formats this installation knows",
    )
    listing.add_argument(
        "what",
        nargs="?",
        choices=list(ROWS),
        help="benchmarks (language, unit, metric modules), models (the spec kinds, their pip extra, an example, "
        "where each comes from and the options it takes) or formats (what `corefbias score --format` reads); "
        "default: all three",
    )
    listing.add_argument("--json", action="store_true", help="print a JSON list of objects instead of aligned text")


def benchmark_rows() -> list[dict]:
    """One row per benchmark: name, language, unit, metric modules, description.

    Examples
    --------
    >>> next(row for row in benchmark_rows() if row["name"] == "gap")["unit"]
    'id'
    """
    from ..benchmarks import BENCHMARKS

    return [
        {
            "name": benchmark.name,
            "language": benchmark.language,
            "unit": benchmark.unit,
            "metric_modules": list(benchmark.metric_modules),
            "description": benchmark.description,
        }
        for benchmark in BENCHMARKS.values()
    ]


def model_rows() -> list[dict]:
    """One row per model kind: its name, an example spec, its pip extra (None: nothing to install), its origin,
    and the flags of ``corefbias run`` and the ``--model-arg`` keys it takes.

    Examples
    --------
    >>> row = model_rows()[0]
    >>> row["kind"], row["example"], row["extra"], row["origin"], row["flags"], row["model_args"]
    ('baseline', 'baseline:stereotype', None, 'built-in', [], ['seed'])
    """
    from ..models.registry import kinds, origin

    return [
        {
            "kind": name,
            "example": kind.example,
            "extra": kind.extra,
            "origin": origin(name),
            "flags": [option.flag for option in kind.options if option.flag is not None],
            "model_args": list(kind.model_args),
        }
        for name, kind in kinds().items()
    ]


def format_rows() -> list[dict]:
    """One row per prediction file format: its ``--format`` name, its origin and its description.

    Examples
    --------
    >>> [row["format"] for row in format_rows()][:2]
    ['conll', 'jsonlines']
    """
    from ..harness.prediction_files import FILE_FORMATS

    return [
        {"format": name, "origin": FILE_FORMATS.origin(name), "description": plain_text(file_format.description)}
        for name, file_format in FILE_FORMATS.items()
    ]


def plain_text(docstring: str) -> str:
    """A docstring as one line of terminal text, its reStructuredText literals (````x````) in single backticks.

    Examples
    --------
    >>> plain_text("GAP TSV, the input of   ``gap_scorer.py``: a header")
    'GAP TSV, the input of `gap_scorer.py`: a header'
    """
    return re.sub(r"``(.+?)``", r"`\1`", " ".join(docstring.split()))


ROWS = {"benchmarks": benchmark_rows, "models": model_rows, "formats": format_rows}


def _cell(value) -> str:
    if value is None or value == []:
        return "-"
    if isinstance(value, list):
        return ", ".join(value)
    return str(value)


def aligned(rows: list[dict]) -> str:
    """The rows as text: a header of their field names, then one line per row, each column padded to its widest
    cell but the last, which is left as long as it is (a description).

    Examples
    --------
    >>> print(aligned([{"kind": "hf", "extra": "hf"}, {"kind": "chat", "extra": None}]))
    KIND  EXTRA
    hf    hf
    chat  -
    """
    fields = list(rows[0])
    table = [[field.upper().replace("_", " ") for field in fields]]
    table += [[_cell(row[field]) for field in fields] for row in rows]
    widths = [max(len(line[column]) for line in table) for column in range(len(fields) - 1)]
    return "\n".join(
        "  ".join([*(cell.ljust(width) for cell, width in zip(line, widths)), line[-1]]).rstrip() for line in table
    )


def _list(args) -> int:
    if args.what is None:
        listings = {what: rows() for what, rows in ROWS.items()}
        if args.json:
            print(json.dumps(listings, indent=2, ensure_ascii=False))
        else:
            print("\n\n".join(f"{what.upper()}\n\n{aligned(rows)}" for what, rows in listings.items() if rows))
        return 0
    rows = ROWS[args.what]()
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    elif rows:
        print(aligned(rows))
    return 0


COMMANDS = {"list": _list}
