"""The ``corefbias`` command."""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

from . import __version__, cli_run
from .data.upstream import MIRROR_ENV, UpstreamFileError

# Published tables the toolkit recomputes: name → (module under corefbias.reproduce, what it is).
REPRODUCTIONS = {
    "counter-gap": ("counter_gap", "Counter-GAP Tables 2, 3 and 4 from the four published system outputs"),
    "gap-on-gap": ("gap_on_gap", "GAP on GAP Table 1 Ground-Truth rows, Sec. 3.3/3.5 figures, published-weight checks"),
    "abc-xlmr": ("abc_xlmr", "ABC FPRs of the published Danish XLM-R predictions, in both decision modes"),
}


def _common_options(default) -> argparse.ArgumentParser:
    """Options every command takes, before or after its name (sub-commands must not reset them)."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--mirror",
        metavar="DIR",
        default=default,
        help=f"local mirror of the upstream data laid out as <set>/<upstream path> (e.g. ../shared/data); "
        f"default ${MIRROR_ENV}, else download into the cache",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common_options(argparse.SUPPRESS)
    parser = argparse.ArgumentParser(prog="corefbias", description=__doc__, parents=[_common_options(None)])
    parser.add_argument("--version", action="version", version=f"corefbias {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    reproduce = commands.add_parser("reproduce", parents=[common], help="recompute a paper's published tables")
    reproduce.add_argument("table", choices=sorted(REPRODUCTIONS), help="; ".join(f"{k}: {v[1]}" for k, v in REPRODUCTIONS.items()))
    reproduce.add_argument("--n-bootstrap", type=int, default=10_000, help="bootstrap resamples for significance")
    reproduce.add_argument("--seed", type=int, default=0, help="seed of the resampling")
    export = commands.add_parser(
        "export-datasets",
        parents=[common],
        help="build test sets and write them in the Hub's script-free form (Parquet + dataset card)",
    )
    export.add_argument("names", nargs="*", metavar="NAME", help="sets to export (default: every set with a builder)")
    export.add_argument("--out", required=True, metavar="DIR", help="folder that receives one sub-folder per set")
    cli_run.add_commands(commands, common)
    _add_publish_command(commands, common)
    return parser


def _add_publish_command(commands, common) -> None:
    from .hub.publish import PARTS

    publish = commands.add_parser(
        "publish",
        parents=[common],
        help="create or update the Hub repositories (test sets, metric Spaces, main Space); token from $HF_TOKEN",
    )
    publish.add_argument("--namespace", required=True, metavar="ORG", help="Hub user or organisation owning the repositories")
    publish.add_argument(
        "--dry-run",
        metavar="DIR",
        help="write the exact folders that would be uploaded (DIR/datasets/<set>, DIR/spaces/<name>); upload nothing",
    )
    publish.add_argument("--only", action="append", choices=PARTS, help="publish only this part (repeatable; default: all)")


def _publish(args) -> int:
    from .data.hub_export import DatasetBuildError
    from .hub.publish import PARTS, PublishError, publish

    try:
        staging = publish(args.namespace, dry_run=args.dry_run, parts=tuple(args.only or PARTS), mirror=args.mirror)
    except (ValueError, PublishError, DatasetBuildError, UpstreamFileError) as error:
        print(f"corefbias: {error}", file=sys.stderr)
        return 2
    for message in staging.skipped:
        print(message, file=sys.stderr)
    for repo in staging.repos:
        print(f"{repo.repo_type} {repo.repo_id}: {repo.folder if args.dry_run else 'published'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command in cli_run.COMMANDS:
        return cli_run.handle(args)
    if args.command == "publish":
        return _publish(args)
    try:
        if args.command == "reproduce":
            module = import_module(f".reproduce.{REPRODUCTIONS[args.table][0]}", __package__)
            print(module.report(mirror=args.mirror, n_bootstrap=args.n_bootstrap, seed=args.seed))
        elif args.command == "export-datasets":
            from .data.hub_export import DatasetBuildError, export

            try:
                for folder in export(args.names or None, args.out, args.mirror):
                    print(folder)
            except DatasetBuildError as error:
                print(f"corefbias: {error}", file=sys.stderr)
                return 2
    except UpstreamFileError as error:
        print(f"corefbias: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
