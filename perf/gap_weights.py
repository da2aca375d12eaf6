"""How fast are the GAP weights? Our class-level solver vs the paper's per-pair LP, and our solver as data grow.

    python perf/gap_weights.py --mirror ../shared/data [--per-pair-time-limit 600]

1. GAP test, variant ``w`` (1773 examples with a referent; N_k and D_k): our solver
   (``weighting.balance_weights``) against a direct implementation of the paper's LP
   (``weighting.per_pair_lp_weights``: one auxiliary variable per same-gender pair, ~785 000), both
   with HiGHS on this machine. The per-pair LP runs under a time limit; if it hits it, the ratio
   printed is a lower bound. Subsamples of GAP test show how the per-pair LP grows meanwhile.
2. Our solver on synthetic data of 2 000, 20 000 and 200 000 examples whose number of names
   (negative binomial) and rank of the referent (geometric, at most the number of names) follow
   GAP test's per-gender means and standard deviations; the LP's size follows the number of
   distinct (gender, names, rank) classes, not the number of examples.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from corefbias.benchmarks.gap import files as gap_files
from corefbias.measures import gap_properties, weighting

# GAP test, examples with a positive candidate: names per example (mean, sd) and referent rank mean.
GAP_LIKE = {"male": (5.42, 3.16, 1.86), "female": (6.20, 3.44, 2.32)}
UNMATCHED_SHARE = 0.005  # positive candidates that match no annotated name


def timed(function, *args, repeats: int = 1, **kwargs):
    """The result of the last call and the best wall-clock time over ``repeats`` calls."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        result = function(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return result, best


def gap_test_problem(mirror) -> tuple[list[str], dict[str, list]]:
    examples = gap_files.load_gap_test(mirror)
    properties = gap_properties.name_properties(examples, gap_files.load_name_spans(mirror))
    references = [example.references for example in examples]
    ranks = properties.correct_ranks(references)
    scored = [index for index, pair in enumerate(references) if any(pair)]
    genders = [examples[index].gender for index in scored]
    return genders, {
        "num_names": [int(properties.num_names[index]) for index in scored],
        "correct_rank": [ranks[index] for index in scored],
    }


def synthetic_problem(n: int, seed: int) -> tuple[list[str], dict[str, list]]:
    """``n`` examples, half per gender, with GAP-like numbers of names and referent ranks."""
    rng = np.random.default_rng(seed)
    genders, names, ranks = [], [], []
    for gender, (mean, sd, rank_mean) in GAP_LIKE.items():
        size = n // 2
        extra_mean = mean - 1  # every example has at least one name: 1 + negative binomial
        shape = extra_mean**2 / (sd**2 - extra_mean)
        count = 1 + rng.negative_binomial(shape, shape / (shape + extra_mean), size)
        rank = np.minimum(rng.geometric(1 / rank_mean, size), count)
        genders += [gender] * size
        names += count.tolist()
        ranks += [None if rng.random() < UNMATCHED_SHARE else int(r) for r in rank]
    return genders, {"num_names": names, "correct_rank": ranks}


def subsample(genders, properties, size: int, seed: int):
    index = np.random.default_rng(seed).choice(len(genders), size, replace=False)
    return [genders[i] for i in index], {name: [values[i] for i in index] for name, values in properties.items()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mirror", default=None, help="upstream data mirror (default $COREFBIAS_MIRROR, else download)"
    )
    parser.add_argument(
        "--per-pair-time-limit", type=float, default=600.0, help="seconds for the paper's LP on all of GAP test"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats of our solver (best is reported)")
    args = parser.parse_args(argv)

    genders, properties = gap_test_problem(args.mirror)
    ours, ours_seconds = timed(weighting.balance_weights, genders, properties, repeats=args.repeats)
    pairs = sum(count * (count - 1) // 2 for count in (genders.count("female"), genders.count("male")))
    print(
        f"GAP test, variant w: {len(genders)} examples, {ours.num_classes} classes, {ours.num_sets} sets, {pairs} "
        "same-gender pairs"
    )
    print(f"  our solver: {ours_seconds:.3f} s (best of {args.repeats}), objective {ours.objective:.6f}")

    print("  per-pair LP on random subsamples of GAP test (same machine):")
    for size in (100, 200, 400):
        small_genders, small_properties = subsample(genders, properties, size, seed=size)
        reference, reference_seconds = timed(weighting.per_pair_lp_weights, small_genders, small_properties)
        mine, mine_seconds = timed(weighting.balance_weights, small_genders, small_properties, repeats=args.repeats)
        print(
            f"    n={size}: per-pair {reference_seconds:.3f} s, ours {mine_seconds:.4f} s, ratio "
            f"{reference_seconds / mine_seconds:,.0f}x; "
            f"objectives {reference.objective:.6f} vs {mine.objective:.6f}"
        )

    try:
        reference, reference_seconds = timed(
            weighting.per_pair_lp_weights, genders, properties, time_limit=args.per_pair_time_limit
        )
        print(
            f"  per-pair LP, all of GAP test: {reference_seconds:.1f} s, objective {reference.objective:.6f}; "
            f"ratio {reference_seconds / ours_seconds:,.0f}x"
        )
    except TimeoutError:
        print(
            f"  per-pair LP, all of GAP test: not solved within the {args.per_pair_time_limit:.0f} s limit; "
            f"ratio > {args.per_pair_time_limit / ours_seconds:,.0f}x"
        )

    print("Our solver on synthetic GAP-like data:")
    baseline_seconds = None
    for n in (2_000, 20_000, 200_000):
        synthetic_genders, synthetic_properties = synthetic_problem(n, seed=n)
        result, seconds = timed(weighting.balance_weights, synthetic_genders, synthetic_properties, repeats=3)
        baseline_seconds = baseline_seconds or seconds
        residual = max(
            abs(value)
            for value in weighting.balance_residuals(result.weights, synthetic_genders, synthetic_properties).values()
        )
        print(
            f"  n={n:>7,}: {seconds:.3f} s ({seconds / baseline_seconds:.1f}x the 2 000-example time), "
            f"{result.num_classes} classes, max constraint residual {residual:.1e}"
        )


if __name__ == "__main__":
    main()
