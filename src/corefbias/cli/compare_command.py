"""``corefbias compare``: paired tests of the differences between finished runs' headline scores."""

from __future__ import annotations

import argparse

from .arguments import whole_number


def add_commands(commands, common: argparse.ArgumentParser) -> None:
    compare = commands.add_parser(
        "compare",
        parents=[common],
        help="are two runs' bias scores different? paired tests on the same instances, Holm-adjusted, forest plot",
    )
    compare.add_argument(
        "runs",
        nargs="+",
        metavar="RUN_DIR",
        help="folders written by `corefbias run` or `corefbias score` (two or more; folders, not their results.json)",
    )
    compare.add_argument(
        "--reference", metavar="RUN", help="compare each run with this one (folder or model name) instead of every pair"
    )
    compare.add_argument(
        "--out", default="corefbias-comparison", metavar="DIR", help="output folder (default: %(default)s)"
    )
    compare.add_argument(
        "--data-dir", metavar="DIR", help="folder of exported sets (built there from the mirror when missing)"
    )
    compare.add_argument(
        "--n-resamples",
        type=whole_number(1),
        default=10_000,
        help="bootstrap resamples and random swaps (default: %(default)s)",
    )
    compare.add_argument("--seed", type=whole_number(0), default=0, help="seed of the resampling")


def _compare(args) -> int:
    from ..harness import comparison, comparison_report
    from ..harness.number_format import format_number, format_p_value

    result = comparison.compare_runs(
        args.runs,
        reference=args.reference,
        data_dir=args.data_dir,
        mirror=args.mirror,
        n_resamples=args.n_resamples,
        seed=args.seed,
    )
    for item in result["comparisons"]:
        print(f"A = {item['a']}, B = {item['b']} (p Holm-adjusted; * = adjusted p < {result['significance_level']})")
        for row in item["differences"]:
            mark = "*" if row["significant"] else ""
            print(
                f"  {row['benchmark']:11} {row['score']:32} A − B {format_number(row['difference']):>7}{mark:1} "
                f"[{format_number(row['ci_low'])}, {format_number(row['ci_high'])}]  p {format_p_value(row['p_value'])}"
                f"  p(Holm) {format_p_value(row['p_holm'])}"
                + ("" if row.get("n_blocks") is None else f"  ({row['n_blocks']} blocks)")
            )
        untested = comparison_report.untested_sentence(item)
        if untested:
            print(f"  {untested}")
    if result["left_out"]:
        names = ", ".join(entry["benchmark"] for entry in result["left_out"])
        print(f"{comparison_report.left_out_sentence(result['left_out'], len(result['runs']))}: {names}")
    written = comparison_report.write(result, args.out)
    print(f"wrote {', '.join(written)} to {args.out}")
    return 0


COMMANDS = {"compare": _compare}
