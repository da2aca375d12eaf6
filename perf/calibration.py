"""Are the p-values p-values when a model's behaviour varies by template? False-positive rates and power of every
headline test and paired comparison, by simulation, before and after drawing whole blocks.

    python perf/calibration.py --mirror ../shared/data [--benchmark NAME ...] [--runs 400] [--power-runs 400]
        [--comparison-runs 400] [--bias 0.05] [--n-bootstrap 500] [--jobs 2] [--json FILE] [--markdown FILE]

On each benchmark's real design (its units, blocks, groups and pairing, read from the exported set),
``corefbias.harness.calibration`` draws models whose behaviour varies by block — the benchmark's templates,
occupations or documents — at a latent intra-block correlation near 0, moderate and strong
(``calibration.ICC_LEVELS``), and no side of the bias axis better in the population of blocks. Per headline test it
reports the share called significant at α = 0.05 with its 95% Monte-Carlo interval, run as every run did before blocks
(``units``: the units drawn one by one, the plain percentile p-value) and as a run does now (``blocks``: whole blocks
drawn, intervals and p-values expanded for how few they are); the power against a model biased by ``--bias`` (its
link probability moved by that much along the axis) at the moderate correlation; and the same for the paired
comparison (``corefbias compare``: before, the randomization test over units; now, the paired bootstrap by blocks) of
two models that vary by block each in their own way, at the strong correlation, and its power against an unbiased
model at the moderate one. A test is calibrated where its false-positive rate is at most 0.07.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from corefbias.harness import benchmark_data, calibration

CEILING = 0.07  # the acceptance bound on a false-positive rate at α = 0.05


def _rate(p_values: list) -> dict:
    rate = calibration._count(p_values)
    return {"rejections": rate.rejections, "runs": rate.runs, "undefined": rate.undefined, "rate": rate.rate,
            "half_width": rate.half_width}  # fmt: skip


def _rates(found: dict) -> dict:
    return {headline: {method: _rate(p_values) for method, p_values in by_method.items()}
            for headline, by_method in found.items()}  # fmt: skip


def study(name: str, args: argparse.Namespace) -> dict:
    """Every rate of one benchmark (run in a worker process)."""
    started = time.perf_counter()
    data_dir = Path(args.data_dir) if args.data_dir else benchmark_data.default_data_dir()
    design = calibration.load_design(name, data_dir, args.mirror)
    model = calibration.SectionRowsModel(design, np.random.default_rng(args.seed))
    common = {"n_bootstrap": args.n_bootstrap, "seed": args.seed}
    found = {
        "fpr": {
            level: _rates(calibration.headline_p_values(model, icc=icc, bias=0.0, runs=args.runs, **common))
            for level, icc in calibration.ICC_LEVELS.items()
        },
        "power": _rates(
            calibration.headline_p_values(
                model, icc=calibration.ICC_LEVELS["moderate"], bias=args.bias, runs=args.power_runs, **common
            )
        ),
        "comparison_fpr": _rates(
            calibration.comparison_p_values(
                model, icc=calibration.ICC_LEVELS["strong"], bias=0.0, runs=args.comparison_runs,
                n_resamples=args.n_bootstrap, seed=args.seed,
            )
        ),
        "comparison_power": _rates(
            calibration.comparison_p_values(
                model, icc=calibration.ICC_LEVELS["moderate"], bias=args.bias, bias_b=0.0, runs=args.comparison_runs,
                n_resamples=args.n_bootstrap, seed=args.seed,
            )
        ),
    }  # fmt: skip
    blocks = {
        section: [int(size) for size in unit.blocks.sizes] if unit.blocks is not None else [len(unit.rows)]
        for section, unit in model.gold_rows.items()
    }
    labels = {
        f"{section} {key}": label
        for section, key, label, _ in calibration.tested_headlines(design.benchmark, model.gold_rows)
    }
    return {
        "labels": labels,
        "blocks": blocks,
        "block_names": list(design.benchmark.blocks.names) if design.benchmark.blocks else [design.benchmark.unit],
        "units": design.num_units,
        "linear_rows": model.linear,
        "seconds": time.perf_counter() - started,
        **found,
    }


def _share(cell: dict, interval: bool = True) -> str:
    if cell["rate"] is None:
        return "—"
    return f"{cell['rate']:.3f} ± {cell['half_width']:.3f}" if interval else f"{cell['rate']:.2f}"


def _pair(cells: dict, interval: bool = True) -> str:
    return f"{_share(cells['units'], interval)} → {_share(cells['blocks'], interval)}"


def tables(figures: dict) -> str:
    """The Markdown tables of the figures: the tests, then the comparisons."""
    levels = list(calibration.ICC_LEVELS)
    lines = [
        "| benchmark | headline | blocks | "
        + " | ".join(f"FPR, ICC {calibration.ICC_LEVELS[level]}" for level in levels)
        + " | power (ICC 0.1) |",
        "|---|---|---|" + "---|" * len(levels) + "---|",
    ]
    compare = ["| benchmark | headline | FPR, ICC 0.3 | power (ICC 0.1) |", "|---|---|---|---|"]
    for name, found in figures["benchmarks"].items():
        names = " × ".join(found["block_names"])
        for headline in found["fpr"][levels[0]]:
            section = headline.split(" ", 1)[0]
            sizes = " × ".join(map(str, found["blocks"].get(section, [])))
            cells = [_pair(found["fpr"][level][headline]) for level in levels]
            label = found["labels"][headline]
            lines.append(f"| {name} | {label} | {sizes} {names} | " + " | ".join(cells)
                         + f" | {_pair(found['power'][headline], interval=False)} |")  # fmt: skip
            compare.append(f"| {name} | {label} | {_pair(found['comparison_fpr'][headline])} | "
                           f"{_pair(found['comparison_power'][headline], interval=False)} |")  # fmt: skip
    return "\n".join(lines) + "\n\n" + "\n".join(compare) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", help="upstream mirror (e.g. ../shared/data)")
    parser.add_argument("--data-dir", help="exported sets (default: the runner's)")
    parser.add_argument("--benchmark", action="append", choices=calibration.calibrated())
    parser.add_argument("--runs", type=int, default=400, help="simulated runs per false-positive rate (default 400)")
    parser.add_argument("--power-runs", type=int, default=400, help="simulated runs per power (default 400)")
    parser.add_argument("--comparison-runs", type=int, default=400, help="simulated pairs per comparison rate")
    parser.add_argument("--bias", type=float, default=0.05, help="the biased model's shift of link probability")
    parser.add_argument("--n-bootstrap", type=int, default=500, help="resamples per simulated test (default 500)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="benchmarks simulated at once, one process each")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--markdown", help="also write the tables to this file")
    args = parser.parse_args()
    names = args.benchmark or calibration.calibrated()
    figures: dict = {"settings": vars(args), "icc_levels": calibration.ICC_LEVELS, "benchmarks": {}}
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        running = {pool.submit(study, name, args): name for name in names}
        finished: dict = {}
        for done in as_completed(running):
            name, found = running[done], done.result()
            finished[name] = found
            figures["benchmarks"] = {name: finished[name] for name in names if name in finished}
            worst = max((cells["blocks"]["rate"] or 0.0) for by_level in found["fpr"].values()
                        for cells in by_level.values())  # fmt: skip
            verdict = "ok" if worst <= CEILING else "OVER"
            print(f"{name}: {found['seconds']:.0f} s; highest false-positive rate by blocks {worst:.3f} {verdict}",
                  flush=True)  # fmt: skip
            if args.json:  # after each benchmark, so that an interrupted study keeps what it found
                Path(args.json).write_text(json.dumps(figures, indent=1), encoding="utf-8")
    text = tables(figures)
    print(f"\nα = 0.05; each cell: before (units) → now (blocks); ± the 95% Monte-Carlo half-width.\n\n{text}")
    if args.markdown:
        Path(args.markdown).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
