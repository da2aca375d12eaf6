"""The ``corefbias`` command: one module per command family, dispatched here.

Errors a user can cause (a bad option value, a bad spec, a missing upstream file or builder, a failing model
endpoint, a damaged cache or run folder) print one line and exit with status 2; ``--debug`` shows the
traceback instead.
"""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from ..data.upstream import MIRROR_ENV
from ..harness.extensions import INCLUDE_ENV
from . import compare_command, data_commands, list_command, model_commands, publish_command, score_command
from .arguments import OneLineParser

FAMILIES = (model_commands, data_commands, publish_command, score_command, compare_command, list_command)


def _common_options(default) -> argparse.ArgumentParser:
    """Options every command takes, before or after its name (sub-commands must not reset them)."""
    common = OneLineParser(add_help=False)
    common.add_argument(
        "--mirror",
        metavar="DIR",
        default=default,
        help=f"local mirror of the upstream data laid out as <set>/<upstream path> (e.g. ../shared/data); "
        f"default ${MIRROR_ENV}, else download into the cache",
    )
    common.add_argument(
        "--include",
        action="append",
        metavar="DIR",
        default=default if default is argparse.SUPPRESS else [],
        help=f"a folder of benchmark, model kind and file format declarations to add (repeatable; also "
        f"${INCLUDE_ENV}); see docs/adding_a_benchmark.md, docs/adding_a_model.md and docs/adding_a_file_format.md",
    )
    common.add_argument(
        "--debug",
        action="store_true",
        default=default if default is argparse.SUPPRESS else False,
        help="show the full traceback of an error instead of its one-line message",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common_options(argparse.SUPPRESS)
    parser = OneLineParser(
        prog="corefbias",
        description="Gender-bias measures for coreference resolution: run models on the benchmarks, score files, "
        "compare runs, export the test sets.",
        parents=[_common_options(None)],
    )
    parser.add_argument("--version", action="version", version=f"corefbias {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for family in FAMILIES:
        family.add_commands(commands, common)
    return parser


def user_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean bad input or an unusable resource (a file, a folder, a full disk, a prediction cache
    that is no cache), not a bug in corefbias."""
    from ..data.hub_export import DatasetBuildError
    from ..data.upstream import UpstreamFileError
    from ..harness.prediction_cache import CacheError
    from ..hub.publish import PublishError
    from ..models.cluster_format import ModelError

    return ValueError, ModelError, UpstreamFileError, DatasetBuildError, PublishError, CacheError, OSError


def _include_declarations(argv: list[str] | None) -> None:
    """Register the ``--include`` folders' declarations before the parser lists benchmarks, model kinds
    (and their flags) and file formats."""
    from ..harness import extensions

    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--include", action="append", default=[])
    known, _ = early.parse_known_args(argv)
    extensions.include_from_environment()
    for folder in known.include:
        extensions.include(folder)


def main(argv: list[str] | None = None) -> int:
    debug = "--debug" in (sys.argv[1:] if argv is None else argv)
    try:
        _include_declarations(argv)
        args = build_parser().parse_args(argv)
        handler = next(family.COMMANDS[args.command] for family in FAMILIES if args.command in family.COMMANDS)
        return handler(args)
    except user_errors() as error:
        if debug:
            raise
        print(f"corefbias: {error}", file=sys.stderr)
        return 2
