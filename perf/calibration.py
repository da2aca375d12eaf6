"""Are the p-values p-values? False-positive rates and power of every headline test, by simulation.

    python perf/calibration.py --mirror ../shared/data [--benchmark NAME ...] [--runs 1000]
        [--comparison-runs 400] [--power-runs 200] [--bias 0.05] [--n-bootstrap 500] [--json FILE]

On each benchmark's real design (its units, groups and pairing, read from the exported set),
``corefbias.harness.calibration`` draws runs of models unbiased by construction and reports, per
headline test, the share called significant at α = 0.05 (the false-positive rate, which must lie in
[0.03, 0.07]); the same for the paired comparison (``corefbias compare``) of two models drawn with
the same bias; and the power at the benchmark's full size of the headline test against a model
biased by ``--bias`` (its link probability moved by that much along the benchmark's bias axis) and
of the comparison of that model with an unbiased one. Last, the cost of 10 000 resamples of
Counter-GAP's 1 002 quadruples: drawing the indices, the bootstrap test, the paired comparison.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from corefbias.harness import benchmark_data, calibration
from corefbias.measures import comparison, counter_gap, resampling

LIMITS = (0.03, 0.07)


def _interval(rate: calibration.Rate) -> str:
    if not rate.runs:
        return "—"
    half = 1.96 * math.sqrt(rate.rate * (1 - rate.rate) / rate.runs)
    return f"{rate.rate:.3f} ± {half:.3f}"


def _share(rate: calibration.Rate) -> str:
    return "—" if not rate.runs else f"{rate.rate:.2f}"


def _verdict(rate: calibration.Rate) -> str:
    return "—" if not rate.runs else "ok" if LIMITS[0] <= rate.rate <= LIMITS[1] else "OUT"


def timing(repeats: int = 3) -> dict[str, float]:
    """Best-of seconds for 10 000 resamples of 1 002 Counter-GAP-like quadruples."""
    rng = np.random.default_rng(0)
    table = np.arange(4 * 1002).reshape(1002, 4)
    original_male = rng.random(1002) < 0.5
    rows_a = counter_gap.quadruple_rows(rng.random(4 * 1002) < 0.8, table, original_male)
    rows_b = counter_gap.quadruple_rows(rng.random(4 * 1002) < 0.8, table, original_male)
    jobs = {
        "draw the indices": lambda: resampling.bootstrap_counts(1002, 10_000, rng),
        "bootstrap test (one run)": lambda: resampling.bootstrap_test(
            rows_a, counter_gap.statistic, counter_gap.SIGNIFICANCE_NULLS, n_bootstrap=10_000, seed=0
        ),
        "paired comparison (two runs)": lambda: comparison.paired_difference(
            rows_a, rows_b, counter_gap.statistic, list(counter_gap.SIGNIFICANCE_NULLS), n_resamples=10_000
        ),
    }
    best = {}
    for name, job in jobs.items():
        times = []
        for _ in range(repeats):
            started = time.perf_counter()
            job()
            times.append(time.perf_counter() - started)
        best[name] = min(times)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", help="upstream mirror (e.g. ../shared/data)")
    parser.add_argument("--data-dir", help="exported sets (default: the runner's)")
    parser.add_argument("--benchmark", action="append", choices=calibration.calibrated())
    parser.add_argument("--runs", type=int, default=1000, help="simulated runs per false-positive rate")
    parser.add_argument("--comparison-runs", type=int, default=400, help="simulated pairs per comparison rate")
    parser.add_argument("--power-runs", type=int, default=200, help="simulated runs per power")
    parser.add_argument("--bias", type=float, default=0.05, help="the biased model's shift of link probability")
    parser.add_argument("--n-bootstrap", type=int, default=500, help="resamples per simulated test")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    data_dir = Path(args.data_dir) if args.data_dir else benchmark_data.default_data_dir()
    figures: dict = {"settings": vars(args), "benchmarks": {}}
    print(
        f"α = {resampling.SIGNIFICANCE_LEVEL}; a rate is ok in [{LIMITS[0]}, {LIMITS[1]}]; "
        "± is the 95% binomial half-width."
    )
    print("| benchmark | headline | units | FPR (test) | | FPR (comparison) | | power (test) | power (comparison) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in args.benchmark or calibration.calibrated():
        started = time.perf_counter()
        design = calibration.load_design(name, data_dir, args.mirror)
        model = calibration.SectionRowsModel(design, np.random.default_rng(args.seed))
        common = {"seed": args.seed}
        null = calibration.headline_rates(model, bias=0.0, runs=args.runs, n_bootstrap=args.n_bootstrap, **common)
        paired = calibration.comparison_rates(
            model, bias=args.bias, runs=args.comparison_runs, n_resamples=args.n_bootstrap, **common
        )
        power = calibration.headline_rates(
            model, bias=args.bias, runs=args.power_runs, n_bootstrap=args.n_bootstrap, **common
        )
        paired_power = calibration.comparison_rates(
            model, bias=args.bias, bias_b=0.0, runs=args.power_runs, n_resamples=args.n_bootstrap, **common
        )
        figures["benchmarks"][name] = {
            "units": design.num_units,
            "seconds": time.perf_counter() - started,
            "linear_rows": model.linear,
            **{
                kind: {headline: vars(rate) | {"rate": rate.rate} for headline, rate in rates.items()}
                for kind, rates in (
                    ("fpr", null),
                    ("comparison_fpr", paired),
                    ("power", power),
                    ("comparison_power", paired_power),
                )
            },
        }
        for headline in null:
            print(
                f"| {name} | {headline} | {design.num_units} | {_interval(null[headline])} | "
                f"{_verdict(null[headline])} | {_interval(paired[headline])} | {_verdict(paired[headline])} | "
                f"{_share(power[headline])} | {_share(paired_power[headline])} |",
                flush=True,
            )
    figures["timing"] = timing()
    print()
    for job, seconds in figures["timing"].items():
        print(f"10 000 resamples of 1 002 quadruples, {job}: {seconds:.3f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
