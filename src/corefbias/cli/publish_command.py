"""``corefbias publish``: the Hub repositories of the test sets, the metric Spaces and the main Space."""

from __future__ import annotations

import sys


def add_commands(commands, common) -> None:
    from ..hub.publish import PARTS

    publish = commands.add_parser(
        "publish",
        parents=[common],
        help="create or update the Hub repositories (test sets, metric Spaces, main Space); token from $HF_TOKEN",
    )
    publish.add_argument(
        "--namespace", required=True, metavar="ORG", help="Hub user or organisation owning the repositories"
    )
    publish.add_argument(
        "--dry-run",
        metavar="DIR",
        help="write the exact folders that would be uploaded (DIR/datasets/<set>, DIR/spaces/<name>); upload nothing",
    )
    publish.add_argument(
        "--only", action="append", choices=PARTS, help="publish only this part (repeatable; default: all)"
    )
    publish.add_argument(
        "--repo",
        metavar="DIR",
        default=".",
        help="the corefbias repository checkout holding metrics/ and spaces/corefbias (default: the current folder)",
    )
    publish.add_argument(
        "--wheel",
        action="store_true",
        default=None,
        help="ship a wheel built from --repo in each Space even if this version is on PyPI "
        "(default: name corefbias==VERSION when PyPI has it, else ship the wheel)",
    )


def _publish(args) -> int:
    from ..hub.publish import PARTS, publish

    staging = publish(
        args.namespace,
        repo=args.repo,
        dry_run=args.dry_run,
        parts=tuple(args.only or PARTS),
        mirror=args.mirror,
        use_wheel=args.wheel,
    )
    for message in staging.skipped:
        print(message, file=sys.stderr)
    for repo in staging.repos:
        print(f"{repo.repo_type} {repo.repo_id}: {repo.folder if args.dry_run else 'published'}")
    return 0


COMMANDS = {"publish": _publish}
