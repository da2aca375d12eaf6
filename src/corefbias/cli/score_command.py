"""``corefbias score``: the bias scores of predictions a coreference system already wrote."""

from __future__ import annotations

import argparse

from ..benchmarks import BENCHMARKS
from ..harness.prediction_files import format_choices
from .arguments import whole_number
from .model_commands import add_scoring_options


def add_commands(commands, common: argparse.ArgumentParser) -> None:
    score = commands.add_parser(
        "score",
        parents=[common],
        help="score a predictions file (CoNLL-2012, jsonlines, AllenNLP, GAP TSV, instances, lm-eval --log_samples) "
        "on a benchmark",
    )
    score.add_argument("--benchmark", required=True, metavar="NAME", help=f"one of {', '.join(BENCHMARKS)}")
    score.add_argument(
        "--predictions",
        required=True,
        nargs="+",
        metavar="FILE",
        help="predictions files, together one document per instance of the benchmark",
    )
    score.add_argument(
        "--format", default="auto", choices=format_choices(), help="file format (default: told from the first line)"
    )
    score.add_argument(
        "--config",
        nargs="+",
        metavar="NAME",
        help="the parts scored of a benchmark of several, each a config or config/split (e.g. bug: gold; winobias: "
        "type1_pro type1_anti; dawinobias: pro/test anti/test), parts its sections pool together; or another config "
        "of a one-part benchmark's set (e.g. abc: original, ABC's own sentences)",
    )
    score.add_argument(
        "--limit",
        type=whole_number(1),
        metavar="N",
        help="score the instances `corefbias run --limit N` answers only (e.g. a quick run's instances file)",
    )
    add_scoring_options(score)


def _score(args) -> int:
    from ..harness import run_outputs
    from ..harness.prediction_files import scoring
    from .model_commands import print_written

    result = scoring.score(
        args.benchmark,
        args.predictions,
        format=args.format,
        config=args.config,
        data_dir=args.data_dir,
        mirror=args.mirror,
        n_bootstrap=args.n_bootstrap,
        seed=args.seed,
        mode=args.mode,
        limit=args.limit,
    )
    written = run_outputs.write_outputs(result, args.out, plots=not args.no_plots)
    print_written(result, written, args.out)
    return 0


COMMANDS = {"score": _score}
