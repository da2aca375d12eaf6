"""The data commands of ``corefbias``: ``export-datasets`` and ``reproduce``."""

from __future__ import annotations

import re
from importlib import import_module

from .arguments import whole_number


def _summary(module_name: str) -> str:
    """The first sentence of a reproduction module's docstring: what it recomputes. A full stop followed by a digit
    or a lower-case letter ends no sentence ("Sec. 3.3", "e.g. the")."""
    text = " ".join((import_module(module_name).__doc__ or "").split())
    return re.split(r"\.\s+(?![0-9a-z])", text, maxsplit=1)[0].rstrip(".")


def add_commands(commands, common) -> None:
    from ..reproduce import reproductions

    tables = reproductions()
    reproduce = commands.add_parser("reproduce", parents=[common], help="recompute a paper's published tables")
    reproduce.add_argument(
        "table",
        choices=sorted(tables),
        help="; ".join(f"{name}: {_summary(module)}" for name, module in tables.items()),
    )
    reproduce.add_argument(
        "--n-bootstrap",
        type=whole_number(0),
        default=10_000,
        help="bootstrap resamples for significance (default: %(default)s)",
    )
    reproduce.add_argument("--seed", type=whole_number(0), default=0, help="seed of the resampling")
    export = commands.add_parser(
        "export-datasets",
        parents=[common],
        help="build test sets and write them in the Hub's script-free form (Parquet + dataset card)",
    )
    export.add_argument(
        "names", nargs="*", metavar="NAME", help="sets to export (default: every set a benchmark is declared on)"
    )
    export.add_argument("--out", required=True, metavar="DIR", help="folder that receives one sub-folder per set")
    export.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="NAME",
        help="also build this config of the named sets that a set builds only on request (misgendered's and "
        "ruff's whole designs: millions of rows); repeatable",
    )
    lm_eval = commands.add_parser(
        "export-lm-eval",
        parents=[common],
        help="write lm-evaluation-harness task folders (corefbias_<benchmark>) for every benchmark with a cloze "
        "template: lm_eval --include_path DIR --tasks corefbias_<benchmark>",
    )
    lm_eval.add_argument("--out", required=True, metavar="DIR", help="the folder lm_eval's --include_path names")
    lm_eval.add_argument(
        "--benchmark", action="append", metavar="NAME", help="benchmark to export (repeatable; default: all)"
    )
    lm_eval.add_argument(
        "--prompts",
        nargs="+",
        metavar="NAME",
        help="export these prompts of each set (all: every one): the main template as corefbias_<benchmark>, another "
        "as corefbias_<benchmark>_<prompt>; default: the "
        "main template only",
    )
    lm_eval.add_argument(
        "--limit", type=whole_number(1), metavar="N", help="the units `corefbias run --limit N` scores only"
    )
    lm_eval.add_argument("--data-dir", metavar="DIR", help="folder of exported sets (built there when missing)")


def _reproduce(args) -> int:
    from ..reproduce import reproductions

    module = import_module(reproductions()[args.table])
    print(module.report(mirror=args.mirror, n_bootstrap=args.n_bootstrap, seed=args.seed))
    return 0


def _export(args) -> int:
    from ..benchmarks import BENCHMARKS
    from ..data.hub_export import builder_class, export

    # Each set with a builder, once, with the builders folder of the benchmarks declared on it.
    builders = {benchmark.dataset: benchmark.builders for benchmark in BENCHMARKS.values() if benchmark.export is None}
    names = args.names or list(builders)
    requested = {}
    if args.config:
        offering = {
            name: set(getattr(builder_class(name, builders.get(name)), "ON_REQUEST_CONFIGS", ())) for name in names
        }
        for config in args.config:
            if not any(config in configs for configs in offering.values()):
                raise ValueError(f"no set of {', '.join(names)} builds a config {config!r} on request")
        requested = {name: [config for config in args.config if config in offering[name]] for name in names}
    for folder in export(names, args.out, args.mirror, scripts_dirs=builders, requested=requested):
        print(folder)
    return 0


def _export_lm_eval(args) -> int:
    from ..harness.lm_eval_export import export

    written = export(
        args.out,
        args.benchmark or ["all"],
        prompts=None if args.prompts is None else tuple(args.prompts),
        limit=args.limit,
        data_dir=args.data_dir,
        mirror=args.mirror,
    )
    for task, folder in written.items():
        print(f"{task}: {folder}")
    print(f"run with: lm_eval --include_path {args.out} --tasks {','.join(written)} (see {args.out}/README.md)")
    return 0


COMMANDS = {"reproduce": _reproduce, "export-datasets": _export, "export-lm-eval": _export_lm_eval}
