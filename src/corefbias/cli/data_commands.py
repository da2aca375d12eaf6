"""The data commands of ``corefbias``: ``export-datasets`` and ``reproduce``."""

from __future__ import annotations

from importlib import import_module

from .arguments import whole_number

# Published tables the toolkit recomputes: name → (module under corefbias.reproduce, what it is).
REPRODUCTIONS = {
    "counter-gap": ("counter_gap", "Counter-GAP Tables 2, 3 and 4 from the four published system outputs"),
    "gap-on-gap": ("gap_on_gap", "GAP on GAP Table 1 Ground-Truth rows, Sec. 3.3/3.5 figures, published-weight checks"),
    "abc-xlmr": ("abc_xlmr", "ABC FPRs of the published Danish XLM-R predictions, in both decision modes"),
}


def add_commands(commands, common) -> None:
    reproduce = commands.add_parser("reproduce", parents=[common], help="recompute a paper's published tables")
    reproduce.add_argument(
        "table", choices=sorted(REPRODUCTIONS), help="; ".join(f"{k}: {v[1]}" for k, v in REPRODUCTIONS.items())
    )
    reproduce.add_argument(
        "--n-bootstrap", type=whole_number(0), default=10_000, help="bootstrap resamples for significance"
    )
    reproduce.add_argument("--seed", type=whole_number(0), default=0, help="seed of the resampling")
    export = commands.add_parser(
        "export-datasets",
        parents=[common],
        help="build test sets and write them in the Hub's script-free form (Parquet + dataset card)",
    )
    export.add_argument("names", nargs="*", metavar="NAME", help="sets to export (default: every set with a builder)")
    export.add_argument("--out", required=True, metavar="DIR", help="folder that receives one sub-folder per set")


def _reproduce(args) -> int:
    module = import_module(f"..reproduce.{REPRODUCTIONS[args.table][0]}", __package__)
    print(module.report(mirror=args.mirror, n_bootstrap=args.n_bootstrap, seed=args.seed))
    return 0


def _export(args) -> int:
    from ..data.hub_export import export

    for folder in export(args.names or None, args.out, args.mirror):
        print(folder)
    return 0


COMMANDS = {"reproduce": _reproduce, "export-datasets": _export}
