"""The model-running commands of ``corefbias``: ``run``, ``serve`` and ``merge-predictions``."""

from __future__ import annotations

import argparse
import re

from ..benchmarks import BENCHMARKS
from ..harness import cluster_links
from ..harness.prediction_cache import CACHE_MODES
from ..models.registry import SERVER, ModelKind, ModelOption, kind_of
from ..models.registry import kinds as model_kinds
from ..models.registry import origin as kind_origin
from .arguments import number, whole_number

# The flags of ``run`` that are its own settings and that a kind may also take (``ModelOption.flag``).
SHARED_FLAGS = ("--batch-size",)


def _spec_help() -> str:
    """The ``--model`` help: an example of every kind, those of entry points and ``--include`` folders too."""
    return (
        "model spec: "
        + ", ".join(kind.example for kind in model_kinds().values())
        + ", baseline:oracle|random|nearest|dist-K, "
        "or the http(s):// URL of a server speaking corefbias's protocol (`corefbias serve`); `corefbias list models` "
        "says where each kind comes from"
    )


def _shard(value: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d+)/(\d+)", value)
    if not match or not int(match.group(1)) < int(match.group(2)):
        raise argparse.ArgumentTypeError(f"expected INDEX/COUNT with INDEX < COUNT (e.g. 0/4), got {value!r}")
    return int(match.group(1)), int(match.group(2))


def _model_arg(value: str) -> tuple[str, str]:
    key, sep, text = value.partition("=")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a Python name, got {value!r}")
    return key, text


def _every_kind() -> list[ModelKind]:
    return [*model_kinds().values(), SERVER]


def _flag_takers() -> dict[str, list[tuple[ModelKind, ModelOption]]]:
    """Every flag a model kind declares → the kinds declaring it, each with its option, in the kinds' order."""
    takers: dict[str, list[tuple[ModelKind, ModelOption]]] = {}
    for kind in _every_kind():
        for option in kind.options:
            if option.flag is not None:
                takers.setdefault(option.flag, []).append((kind, option))
    return takers


def _models(kinds) -> str:
    """``chat, completions and http(s)://``: kinds as ``--help`` names them."""
    names = list(dict.fromkeys(kind.prefix.removesuffix(":") for kind in kinds))
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _flag_help(takers: list[tuple[ModelKind, ModelOption]]) -> str:
    """``for hf and completions: <help>``, one clause per different help text."""
    helps: dict[str, list[ModelKind]] = {}
    for kind, option in takers:
        helps.setdefault(option.help, []).append(kind)
    return "; ".join(f"for {_models(kinds)} models: {text}" for text, kinds in helps.items())


def _model_arg_help() -> str:
    keys = "; ".join(f"{_models([kind])}: {', '.join(kind.model_args)}" for kind in _every_kind() if kind.model_args)
    return (
        "a further option for the model's loader (repeatable), read as the option's type: true/false, a number or "
        f"text; the keys each kind takes: {keys} (`corefbias list models`)"
    )


def _reading(option: ModelOption):
    """An argparse ``type`` reading a flag's value as ``option`` does, its error as argparse shows one."""

    def read(text: str):
        try:
            return option.parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return read


def add_model_options(parser: argparse.ArgumentParser, flags: tuple[str, ...] | None = None) -> None:
    """The model flags the kinds declare (all, or those of ``flags``) and ``--model-arg``, each for the kinds
    that take it; a flag of ``SHARED_FLAGS`` must be the parser's already, and reaches the kinds declaring it."""
    added = {}
    for flag, takers in _flag_takers().items():
        if flags is not None and flag not in flags:
            continue
        dest = flag[2:].replace("-", "_")
        if flag not in SHARED_FLAGS:
            # argparse checks (and --help shows) the choices where every kind declares the same ones.
            choices = {option.choices for _, option in takers}
            numbers = all(option.type in (int, float) for _, option in takers)
            # Likewise the value, where every kind reads it alike (a count of at least 1).
            readings = {(option.type, option.minimum, option.exclusive) for _, option in takers}
            try:
                parser.add_argument(
                    flag,
                    dest=dest,
                    type=_reading(takers[0][1]) if len(readings) == 1 and numbers else None,
                    choices=choices.pop() or None if len(choices) == 1 else None,
                    metavar="N" if numbers else None,
                    help=_flag_help(takers),
                )
            except argparse.ArgumentError:
                kind = takers[0][0]
                raise ValueError(
                    f"the model kind {kind.name!r} ({kind_origin(kind.name)}) declares the flag {flag}, which "
                    f"`corefbias {parser.prog.split()[-1]}` has for itself; declare another flag"
                ) from None
        added[flag] = dest
    parser.add_argument(
        "--model-arg", action="append", default=[], metavar="KEY=VALUE", type=_model_arg, help=_model_arg_help()
    )
    parser.set_defaults(model_flags=added)


def model_options(args) -> dict:
    """The loader options of the model flags and ``--model-arg``s of ``args``, each checked against the
    spec's kind: a flag it does not take, or a key it does not know, is refused naming what it takes."""
    kind = kind_of(args.model)[0]
    options = {}
    for flag, dest in args.model_flags.items():
        value = getattr(args, dest)
        option = kind.option_given_by(flag)
        if value is None or (option is None and flag in SHARED_FLAGS):
            continue
        if option is None:
            takers = [taker.prefix for taker, _ in _flag_takers()[flag]]
            raise ValueError(f"{flag} is for {', '.join(takers)} models only")
        options[option.name] = _parsed(option, value, flag)
    for key, text in args.model_arg:
        option = kind.option(key)
        if option is None or not option.command_line:
            known = f"its keys are {', '.join(kind.model_args)}" if kind.model_args else "it takes none"
            raise ValueError(f"--model-arg {key}: {_models([kind])} models take no such key; {known}")
        if option.flag is not None:
            raise ValueError(f"--model-arg {key}: give it as {option.flag}")
        options[key] = _parsed(option, text, f"--model-arg {key}")
    return options


def _parsed(option: ModelOption, value, given: str):
    try:
        return option.parse(value) if isinstance(value, str) else value
    except ValueError as error:
        raise ValueError(f"{given}: {error}") from None


def add_scoring_options(parser: argparse.ArgumentParser) -> None:
    """The options ``run`` and ``score`` share: where the results go and how answers are scored."""
    parser.add_argument(
        "--out", default="corefbias-results", metavar="DIR", help="output folder (default: %(default)s)"
    )
    parser.add_argument(
        "--data-dir", metavar="DIR", help="folder of exported sets (built there from the mirror when missing)"
    )
    parser.add_argument(
        "--n-bootstrap",
        type=whole_number(0),
        default=1000,
        help="bootstrap resamples (0: no significance; default: %(default)s)",
    )
    parser.add_argument("--seed", type=whole_number(0), default=0, help="seed of the resampling")
    parser.add_argument(
        "--mode",
        default=cluster_links.DEFAULT_MODE,
        choices=cluster_links.MODE_CHOICES,
        help="how a cluster model's clusters become links: default, each benchmark's own (its card names it: "
        + ", ".join(f"{name} {b.decision_mode}" for name, b in BENCHMARKS.items() if b.decision_mode != "cluster")
        + ", the others cluster); cluster, a candidate sharing a cluster with the pronoun; any_cluster, any cluster "
        "at all (GenDa Lens's ABC counting); first_mention, the first other mention of the pronoun's last cluster "
        "(WinoPron's converters) (default: %(default)s)",
    )
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")


def add_commands(commands, common: argparse.ArgumentParser) -> None:
    spec_help = _spec_help()
    run = commands.add_parser(
        "run", parents=[common], help="run a model on benchmarks: every bias score, a report and plots"
    )
    run.add_argument("--model", required=True, metavar="SPEC", help=spec_help)
    run.add_argument(
        "--benchmark",
        action="append",
        metavar="NAME",
        help=f"benchmark to run (repeatable): all, english, {', '.join(BENCHMARKS)} (default: all)",
    )
    run.add_argument(
        "--limit",
        type=whole_number(1),
        metavar="N",
        help="a quick, balanced run: N whole units of every design cell of each benchmark, the same ones every time "
        "(" + "; ".join(f"{name}: {benchmark.limit_meaning}" for name, benchmark in BENCHMARKS.items()) + ")",
    )
    add_scoring_options(run)
    run.add_argument(
        "--prompts",
        nargs="+",
        metavar="NAME",
        help="for models scored by log-likelihood: run each benchmark once per wording of its cloze template, all "
        "of its prompt set or those named, and report every headline per prompt, their spread (min–max), the mean "
        "with a prompt-and-instance bootstrap CI and a flag where the bias changes sign ("
        + "; ".join(f"{name}: {', '.join(t.name for t in b.prompt_set)}" for name, b in BENCHMARKS.items() if b.cloze)
        + "); default: the main template only",
    )
    run.add_argument("--cache", metavar="FILE", help="prediction cache (default: $COREFBIAS_CACHE/predictions.sqlite)")
    batch_takers = _flag_takers().get("--batch-size", [])
    run.add_argument(
        "--batch-size",
        type=whole_number(1),
        help="instances per model call (default: 32, or the model's own call size: the baselines take 1024 at once, a "
        "local hf: model batches by tokens and is handed whole benchmarks up to 4096 instances; size its batches "
        "with --model-arg max_batch_tokens=N)"
        + (f"; also the batch size of {_models(kind for kind, _ in batch_takers)} models" if batch_takers else ""),
    )
    run.add_argument(
        "--shard",
        type=_shard,
        metavar="I/N",
        help="only predict shard I of N (merge the caches, then run again to score): how a scheduler without Ray "
        "(Slurm array jobs, separate machines) spreads a run",
    )
    run.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="where the model answers: in this process (local, the default) or in --replicas Ray actors, each "
        "holding the model, with the answers cached, scored and written here (ray; pip install 'corefbias[ray]'); "
        "the results are the same",
    )
    run.add_argument(
        "--replicas", type=whole_number(1), metavar="N", help="for ray: actors holding the model (default 2)"
    )
    run.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="for ray: the cluster to join (auto, HOST:PORT, ray://HOST:10001); default: $RAY_ADDRESS, else a "
        "one-machine cluster on 127.0.0.1 for the run",
    )
    run.add_argument(
        "--replica-gpus",
        type=number(0),
        metavar="G",
        help="for ray: GPUs per replica (default: 1 when --device is cuda, or auto on a cluster with GPUs; else 0)",
    )
    run.add_argument(
        "--replica-cpus",
        type=number(0, inclusive=False),
        metavar="C",
        help="for ray: CPUs per replica, torch's threads there (default 1)",
    )
    add_model_options(run)
    caching = run.add_mutually_exclusive_group()
    caching.add_argument(
        "--cache-mode",
        dest="cache_mode",
        choices=CACHE_MODES,
        default="use",
        help="use (the default): take the cached answers, but ask those that could not be read again; use-unparsed: "
        "take those as they are too; refresh: --refresh; off: --no-cache",
    )
    caching.add_argument(
        "--no-cache",
        dest="cache_mode",
        action="store_const",
        const="off",
        default="use",
        help="predict every instance and write nothing to the prediction cache",
    )
    caching.add_argument(
        "--refresh",
        dest="cache_mode",
        action="store_const",
        const="refresh",
        help="predict every instance again and overwrite its cached answer",
    )

    serve = commands.add_parser("serve", parents=[common], help="serve a cluster model over corefbias's HTTP protocol")
    serve.add_argument("--model", required=True, metavar="SPEC", help=spec_help)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    serve.add_argument("--port", type=whole_number(0, 65535), default=8808, help="port (default: %(default)s)")
    serve.add_argument(
        "--max-texts", type=whole_number(1), default=64, help="most texts per request (default: %(default)s)"
    )
    serve.add_argument(
        "--max-chars",
        type=whole_number(1),
        default=20000,
        help="longest text accepted, in characters (default: %(default)s)",
    )
    add_model_options(serve, flags=("--device",))

    merge = commands.add_parser("merge-predictions", parents=[common], help="merge prediction caches of shard runs")
    merge.add_argument("sources", nargs="+", metavar="FILE")
    merge.add_argument("--into", required=True, metavar="FILE")


def print_written(result, written: dict, out) -> None:
    """The summary of a written result on the terminal: each headline (``*`` significant, † low parse rate,
    ‡ answers following the option order) with the blocks its interval rests on, which benchmarks rest on few
    readable answers or on the option order, and what was written where."""
    from ..harness import number_format, run_outputs
    from ..harness.position_rates import POSITION_RATE_THRESHOLD

    results = result.record()
    rows = run_outputs.summary_rows(results)
    # Columns as wide as this run's longest benchmark and score names (at least those of the built-in ones).
    benchmark_width = max([11, *(len(row["benchmark"]) for row in rows)])
    score_width = max([33, *(len(row["score"]) for row in rows)])
    for row in rows:
        value = "undefined" if row["value"] is None else number_format.format_number(row["value"])
        marks = ("*" if row["significant"] else "") + run_outputs.flag_marks(row)
        line = f"{row['benchmark']:{benchmark_width}}  {row['score']:{score_width}}  {value:>6}{marks}"
        if row["n_blocks"] is not None:  # what the interval rests on, in a column of its own
            line = f"{line:<{benchmark_width + score_width + 13}}({run_outputs.format_blocks(row)})"
        print(line)
    # Why a score is undefined, once per benchmark and reason, rather than a bare "undefined" to look up.
    reasons = dict.fromkeys((row["benchmark"], row["undefined"]) for row in rows if row["value"] is None)
    for benchmark, reason in reasons:
        print(f"undefined ({benchmark}): {reason}")
    for name, outcome in results["benchmarks"].items():
        if outcome["low_parse_rate"]:
            print(
                f"{run_outputs.LOW_PARSE_MARK} {name}: only {outcome['num_instances'] - outcome['num_unparsed']} of "
                f"{outcome['num_instances']} answers could be read "
                f"(parse rate {number_format.format_number(outcome['parse_rate'])})"
            )
        if outcome.get("position_bias"):
            print(
                f"{run_outputs.POSITION_BIAS_MARK} {name}: {outcome['position_note']} (position rate "
                f"{number_format.format_number(outcome['position_rate'])} > {POSITION_RATE_THRESHOLD}): the answers "
                "follow the option order, not the text; chat models: --answer logprobs --orders all"
            )
    for name, outcome in results["benchmarks"].items():
        for line in run_outputs.prompt_spread_lines(name, outcome.get("prompts")):
            print(line)
    folders = sorted({name.split("/", 1)[0] + "/" for name in written if "/" in name})
    print(f"wrote {', '.join(sorted(name for name in written if '/' not in name))} and {', '.join(folders)} to {out}")


def executor(args):
    """The executor ``run``'s flags ask for: None (the local one) or a ``RayExecutor``.

    Ray's flags without ``--executor ray`` are refused, not ignored."""
    flags = {
        "--replicas": ("replicas", args.replicas),
        "--ray-address": ("address", args.ray_address),
        "--replica-gpus": ("replica_gpus", args.replica_gpus),
        "--replica-cpus": ("replica_cpus", args.replica_cpus),
    }
    given = {flag: option for flag, option in flags.items() if option[1] is not None}
    if args.executor != "ray":
        if given:
            raise ValueError(f"{next(iter(given))} is for --executor ray only")
        return None
    from ..harness.ray_executor import RayExecutor

    return RayExecutor(**dict(given.values()), include=tuple(args.include))


def _run(args) -> int:
    from ..harness import run_outputs, runner

    options = model_options(args)
    result = runner.run(
        args.model,
        args.benchmark or ["all"],
        settings=runner.RunSettings(
            limit=args.limit,
            n_bootstrap=args.n_bootstrap,
            seed=args.seed,
            batch_size=args.batch_size,
            shard=args.shard,
            mode=args.mode,
            cache_mode=args.cache_mode,
            prompts=None if args.prompts is None else tuple(args.prompts),
        ),
        data_dir=args.data_dir,
        mirror=args.mirror,
        cache_path=args.cache,
        model_options=options,
        executor=executor(args),
    )
    if args.shard is not None:
        predicted = sum(run.num_predicted for run in result.runs.values())
        print(
            f"shard {args.shard[0]}/{args.shard[1]}: {predicted} new predictions cached; merge the caches and run "
            "again to score"
        )
        return 0
    written = run_outputs.write_outputs(result, args.out, plots=not args.no_plots)
    # Every prompt's run of a --prompts run, else the one run of each benchmark.
    runs = [run for name, run in result.runs.items() for run in (result.prompt_runs.get(name) or {name: run}).values()]
    predicted = sum(run.num_predicted for run in runs)
    cached = sum(len(run.instances) for run in runs) - predicted
    print(f"{predicted} instances predicted, {cached} from the cache")
    print_written(result, written, args.out)
    return 0


def _serve(args) -> int:
    from ..models.base import ClusterModel
    from ..models.http_protocol import make_server, serve_until_interrupted
    from ..models.identity import digest
    from ..models.registry import load_model

    not_served = f"{args.model} chooses among candidates; only cluster models can be served over corefbias's protocol"
    kind = kind_of(args.model)[0]
    # Language models scored by log-likelihood: refused before any weights load, with what to do instead.
    if kind.not_served is not None:
        raise ValueError(f"{not_served}: {kind.not_served(args.model.strip())}")
    model = load_model(args.model, **model_options(args))
    if not isinstance(model, ClusterModel):
        raise ValueError(not_served)
    try:
        server = make_server(
            model.predict_clusters,
            args.model,
            args.host,
            args.port,
            args.max_texts,
            args.max_chars,
            revision=digest(model.identity),
        )
    except OSError as error:  # a host this machine does not have, a port taken
        raise ValueError(f"cannot serve on {args.host}:{args.port}: {error}") from None
    serve_until_interrupted(server, args.model)
    return 0


def _merge(args) -> int:
    from ..harness.prediction_cache import merge

    print(f"{args.into}: {merge(args.sources, args.into)} predictions")
    return 0


COMMANDS = {"run": _run, "serve": _serve, "merge-predictions": _merge}
