"""The model-running commands of ``corefbias``: ``run``, ``serve`` and ``merge-predictions``."""

from __future__ import annotations

import argparse
import json
import re

from ..harness import cluster_links
from ..harness.benchmarks import BENCHMARKS
from ..models.chat import ANSWER_MODES, ORDER_MODES
from ..models.cloze import CLOZE_NORMS
from ..models.registry import kinds as model_kinds
from ..models.registry import parse_spec


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


def _model_arg(value: str) -> tuple[str, object]:
    key, sep, text = value.partition("=")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE with KEY a Python name, got {value!r}")
    try:
        return key, json.loads(text)
    except ValueError:
        return key, text


def model_options(args) -> dict:
    """The loader options of ``run``'s model flags, each checked against the kinds it is for."""
    kind = parse_spec(args.model)[0]
    flags = {
        "base_url": (args.base_url, ("chat", "completions")),
        "answer": (args.answer, ("chat",)),
        "orders": (args.orders, ("chat",)),
        "workers": (args.concurrency, ("chat", "completions", "http")),
        "dtype": (args.dtype, ("hf",)),
        "cloze_norm": (args.cloze_norm, ("hf", "completions")),
    }
    options = {"device": args.device} if args.device else {}
    for option, (value, kinds) in flags.items():
        if value is None:
            continue
        if kind not in kinds:
            flag = {"workers": "--concurrency"}.get(option, "--" + option.replace("_", "-"))
            raise ValueError(f"{flag} is for {', '.join(f'{k}:' for k in kinds)} models only")
        options[option] = value
    options.update(dict(args.model_arg))
    return options


def add_scoring_options(parser: argparse.ArgumentParser) -> None:
    """The options ``run`` and ``score`` share: where the results go and how answers are scored."""
    parser.add_argument(
        "--out", default="corefbias-results", metavar="DIR", help="output folder (default: %(default)s)"
    )
    parser.add_argument(
        "--data-dir", metavar="DIR", help="folder of exported sets (built there from the mirror when missing)"
    )
    parser.add_argument("--n-bootstrap", type=int, default=1000, help="bootstrap resamples (0: no significance)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling")
    parser.add_argument(
        "--mode", default="cluster", choices=cluster_links.DECISION_MODES, help="how clusters become links"
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
        type=int,
        metavar="N",
        help="a quick, balanced run: N whole units of every design cell of each benchmark, the same ones every time "
        "(" + "; ".join(f"{name}: {benchmark.limit_meaning}" for name, benchmark in BENCHMARKS.items()) + ")",
    )
    add_scoring_options(run)
    run.add_argument("--cache", metavar="FILE", help="prediction cache (default: $COREFBIAS_CACHE/predictions.sqlite)")
    run.add_argument(
        "--batch-size",
        type=int,
        help="instances per model call (default: 32; a local hf: model batches by tokens itself and is handed whole "
        "benchmarks up to 4096 instances: size its batches with --model-arg max_batch_tokens=N)",
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
    run.add_argument("--replicas", type=int, metavar="N", help="for ray: actors holding the model (default 2)")
    run.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="for ray: the cluster to join (auto, HOST:PORT, ray://HOST:10001); default: $RAY_ADDRESS, else a "
        "one-machine cluster on 127.0.0.1 for the run",
    )
    run.add_argument(
        "--replica-gpus",
        type=float,
        metavar="G",
        help="for ray: GPUs per replica (default: 1 when --device is cuda, or auto on a cluster with GPUs; else 0)",
    )
    run.add_argument(
        "--replica-cpus", type=float, metavar="C", help="for ray: CPUs per replica, torch's threads there (default 1)"
    )
    run.add_argument(
        "--base-url",
        help="for chat and completions: an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (chat's "
        "default: Hugging Face Inference; completions needs one)",
    )
    run.add_argument(
        "--answer",
        choices=ANSWER_MODES,
        help="for chat: read the answer from the first token's log-probabilities, from the reply's text, or "
        "auto (log-probabilities when the endpoint returns them; the default)",
    )
    run.add_argument(
        "--orders",
        choices=ORDER_MODES,
        help="for chat: ask each question in one rotation of its options (one, the default), or in every cyclic "
        "rotation and decide by each option's probability summed over them (all: m requests per question of m "
        "options, so m times the cost; needs --answer logprobs; undoes a preference for a letter)",
    )
    run.add_argument(
        "--concurrency",
        type=int,
        metavar="N",
        help="for chat, completions and http(s):// models: requests in flight at once, answers kept in order "
        "(default 4)",
    )
    run.add_argument(
        "--device", help="for library adapters and hf: torch device: cpu (default), cuda, cuda:N, mps or auto"
    )
    run.add_argument("--dtype", help="for hf: torch dtype of the weights, e.g. float32, bfloat16 (default: auto)")
    run.add_argument(
        "--cloze-norm",
        choices=CLOZE_NORMS,
        help="for hf and completions: pick the option with the highest summed log-likelihood (none, the default, "
        "lm-eval's acc) or per UTF-8 byte of the option (bytes, lm-eval's acc_norm)",
    )
    run.add_argument(
        "--model-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        type=_model_arg,
        help="a further option for the model's loader (repeatable; VALUE read as JSON where it parses, else as "
        "text), e.g. for hf: --model-arg attn_implementation=eager",
    )
    caching = run.add_mutually_exclusive_group()
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
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8808)
    serve.add_argument("--max-texts", type=int, default=64, help="most texts per request")
    serve.add_argument("--max-chars", type=int, default=20000, help="longest text accepted")
    serve.add_argument("--device", help="for library adapters: torch device such as cuda:0 (default cpu)")

    merge = commands.add_parser("merge-predictions", parents=[common], help="merge prediction caches of shard runs")
    merge.add_argument("sources", nargs="+", metavar="FILE")
    merge.add_argument("--into", required=True, metavar="FILE")


def print_written(result, written: dict, out) -> None:
    """The summary of a written result on the terminal: each headline (``*`` significant, † low parse rate,
    ‡ answers following the option order), which benchmarks rest on few readable answers or on the option
    order, and what was written where."""
    from ..harness import run_outputs
    from ..harness.position_rates import POSITION_RATE_THRESHOLD

    results = result.to_json()
    for row in run_outputs.summary_rows(results):
        value = "undefined" if row["value"] is None else f"{row['value']:.4f}{'*' if row['significant'] else ''}"
        print(f"{row['benchmark']:12} {row['score']:34} {value}{run_outputs.flag_marks(row)}")
    for name, outcome in results["benchmarks"].items():
        if outcome["low_parse_rate"]:
            print(
                f"{run_outputs.LOW_PARSE_MARK} {name}: only {outcome['num_instances'] - outcome['num_unparsed']} of "
                f"{outcome['num_instances']} answers could be read (parse rate {outcome['parse_rate']:.2f})"
            )
        if outcome.get("position_bias"):
            print(
                f"{run_outputs.POSITION_BIAS_MARK} {name}: {outcome['position_note']} (position rate "
                f"{outcome['position_rate']:.2f} > {POSITION_RATE_THRESHOLD}): the answers follow the option order, "
                "not the text; chat models: --answer logprobs --orders all"
            )
    print(f"wrote {', '.join(sorted(name for name in written if '/' not in name))} and plots/, instances/ to {out}")


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
    counts = result.provenance["instances"].values()
    predicted, cached = sum(c["predicted"] for c in counts), sum(c["from_cache"] for c in counts)
    print(f"{predicted} instances predicted, {cached} from the cache")
    print_written(result, written, args.out)
    return 0


def _serve(args) -> int:
    from ..models.base import ClusterModel
    from ..models.http_protocol import make_server, serve_until_interrupted
    from ..models.identity import digest
    from ..models.registry import load_model

    not_served = f"{args.model} chooses among candidates; only cluster models can be served over corefbias's protocol"
    kind, argument = parse_spec(args.model)
    # Language models scored by log-likelihood: refused before any weights load, with what to do instead.
    if kind == "hf":
        repo, _, revision = argument.partition("@")
        vllm = f"vllm serve {repo}" + (f" --revision {revision}" if revision else "")
        raise ValueError(
            f"{not_served}: an hf: model is a choice model scored by log-likelihood. To evaluate it, run "
            f"`corefbias run --model {args.model}` directly; to share it over HTTP, serve it with vLLM "
            f"(`{vllm}`, an OpenAI-compatible server) and run `corefbias run --model completions:{repo} "
            "--base-url http://<host>:8000/v1` against it"
        )
    if kind == "completions":
        raise ValueError(
            f"{not_served}: a completions: model is a choice model scored by log-likelihood, already served by "
            f"its OpenAI-compatible server; run `corefbias run --model {args.model} --base-url <server>/v1` directly"
        )
    model = load_model(args.model, **({"device": args.device} if args.device else {}))
    if not isinstance(model, ClusterModel):
        raise ValueError(not_served)
    server = make_server(
        model.predict_clusters,
        args.model,
        args.host,
        args.port,
        args.max_texts,
        args.max_chars,
        revision=digest(model.identity),
    )
    serve_until_interrupted(server, args.model)
    return 0


def _merge(args) -> int:
    from ..harness.prediction_cache import merge

    print(f"{args.into}: {merge(args.sources, args.into)} predictions")
    return 0


COMMANDS = {"run": _run, "serve": _serve, "merge-predictions": _merge}
