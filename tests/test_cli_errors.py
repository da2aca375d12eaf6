"""Every failure of the ``corefbias`` command is one line saying what to fix, and exit status 2: each documented
option of each command is given a bad value here, and none may end in a traceback.

``CASES`` holds the bad values, per command and option; ``test_every_option_of_every_command_has_a_bad_value``
fails when an option is added without one. Each case runs the command in this process, on loopback and local
files only.
"""

import argparse
import json
import shutil
import sqlite3
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from corefbias import cli
from corefbias.harness import run_outputs, runner

REPO = Path(__file__).resolve().parents[1]
# Options that take no value: nothing to get wrong.
FLAGS = {"--debug", "--no-plots", "--no-cache", "--refresh", "--wheel", "--json"}
COMMON = ("--mirror", "--include")

# A cluster model declared outside corefbias, so that `serve` gets as far as opening its socket.
TINY_MODEL = """
from corefbias.models.registry import ModelKind


class Tiny:
    name, identity = "tiny:model", {"kind": "tiny"}

    def predict_clusters(self, texts):
        return [[] for _ in texts]


def load(argument, *, kind):
    return Tiny()


TINY = ModelKind(name="tiny", load=load, example="tiny:model", loads_by_name=False)
"""


@pytest.fixture(scope="module")
def files(exported_set, mirror, tmp_path_factory):
    """Paths the cases name: good ones (data, a run, a predictions file) and bad ones (a plain file, a folder,
    a damaged cache, a damaged run)."""
    root = tmp_path_factory.mktemp("cli_errors")
    data = exported_set("winogender").parent
    result = runner.run(
        "baseline:oracle",
        ["winogender"],
        runner.RunSettings(n_bootstrap=0),  # every instance: what `score` needs
        data_dir=data,
        cache_path=root / "good.sqlite",
        progress=False,
    )
    run_outputs.write_outputs(result, root / "run", plots=False)
    shutil.copytree(root / "run", root / "run2")
    damaged = root / "damaged-run"
    shutil.copytree(root / "run", damaged)
    (damaged / "results.json").write_text('{"model": "baseline:oracle", "benchmarks": {')
    older = root / "older-damaged-run"  # as corefbias wrote run folders before they had a manifest
    shutil.copytree(damaged, older)
    (older / run_outputs.MANIFEST).unlink()
    (root / "a-file").write_text("not a folder, not a database\n" * 200)
    (root / "a-folder").mkdir()
    truncated = (root / "good.sqlite").read_bytes()
    (root / "truncated.sqlite").write_bytes(truncated[: len(truncated) // 2])
    (root / "tiny").mkdir()
    (root / "tiny" / "tiny_model.py").write_text(TINY_MODEL)
    return {
        "data": str(data),
        "mirror": str(mirror),
        "run": str(root / "run"),
        "run2": str(root / "run2"),
        "good": str(root / "good.sqlite"),
        "damaged-run": str(damaged),
        "older-damaged-run": str(older),
        "instances": str(root / "run" / "instances" / "winogender.jsonl"),
        "file": str(root / "a-file"),
        "folder": str(root / "a-folder"),
        "truncated": str(root / "truncated.sqlite"),
        "missing": str(root / "missing.sqlite"),
        "tiny": str(root / "tiny"),
        "out": str(root / "out"),
        "cache": str(root / "cache.sqlite"),
    }


def base(command: str) -> list[str]:
    """A command line that would succeed (placeholders in braces), which a case then spoils."""
    scoring = ["--data-dir", "{data}", "--out", "{out}", "--no-plots", "--n-bootstrap", "0"]
    return {
        "run": ["run", "--model", "baseline:oracle", "--benchmark", "winogender", "--limit", "1", "--cache", "{cache}"]
        + scoring,
        "serve": ["serve", "--include", "{tiny}", "--model", "tiny:model"],
        "merge-predictions": ["merge-predictions", "{good}", "--into", "{out}.sqlite"],
        "reproduce": ["reproduce", "counter-gap", "--mirror", "{mirror}", "--n-bootstrap", "0"],
        "export-datasets": ["export-datasets", "winogender", "--mirror", "{mirror}", "--out", "{out}"],
        "export-lm-eval": ["export-lm-eval", "--benchmark", "winogender", "--out", "{out}", "--data-dir", "{data}"],
        # --wheel: the Spaces carry a wheel, so PyPI is not asked whether this version is released.
        "publish": ["publish", "--namespace", "corefbias-test", "--dry-run", "{out}", "--repo", str(REPO), "--wheel"],
        "score": ["score", "--benchmark", "winogender", "--predictions", "{instances}", "--format", "instances"]
        + scoring,
        "compare": ["compare", "{run}", "{run2}", "--data-dir", "{data}", "--out", "{out}"],
        "list": ["list", "benchmarks"],
    }[command]


ARGUMENT = "argument {option}: "
CASES = {
    # command: {option: [(what replaces or joins the command line, what the one line must say)]}
    "run": {
        "--model": [(["--model", "nope:x"], "unknown model spec 'nope:x'")],
        "--benchmark": [(["--benchmark", "nope"], "nope")],
        "--limit": [(["--limit", "0"], ARGUMENT + "expected a whole number of at least 1, got '0'")],
        "--out": [(["--out", "{file}"], "a-file is a file; --out names the folder a run is written to")],
        "--prompts": [(["--prompts", "nope"], "winogender has no prompt 'nope'; its prompts are main, ")],
        "--data-dir": [(["--data-dir", "{file}"], "a-file")],
        "--n-bootstrap": [(["--n-bootstrap", "-1"], ARGUMENT + "expected a whole number of at least 0, got '-1'")],
        "--seed": [(["--seed", "-1"], ARGUMENT + "expected a whole number of at least 0, got '-1'")],
        "--mode": [(["--mode", "nope"], ARGUMENT + "invalid choice: 'nope'")],
        "--cache": [
            (["--cache", "{file}"], "a-file is not a usable prediction cache (file is not a database)"),
            (["--cache", "{truncated}"], "truncated.sqlite is not a usable prediction cache"),
            (["--cache", "{folder}"], "a-folder is a folder; the prediction cache is a file"),
        ],
        "--batch-size": [(["--batch-size", "0"], ARGUMENT + "expected a whole number of at least 1, got '0'")],
        "--shard": [(["--shard", "2/2"], ARGUMENT + "expected INDEX/COUNT with INDEX < COUNT")],
        "--executor": [(["--executor", "nope"], ARGUMENT + "invalid choice: 'nope'")],
        "--replicas": [
            (["--replicas", "0"], ARGUMENT + "expected a whole number of at least 1, got '0'"),
            (["--replicas", "2"], "--replicas is for --executor ray only"),
        ],
        "--ray-address": [(["--ray-address", "127.0.0.1:1"], "--ray-address is for --executor ray only")],
        "--replica-gpus": [(["--replica-gpus", "-1"], ARGUMENT + "expected a number of at least 0, got '-1'")],
        "--replica-cpus": [(["--replica-cpus", "0"], ARGUMENT + "expected a number above 0, got '0'")],
        "--base-url": [
            (["--base-url", "http://127.0.0.1:1/v1"], "--base-url is for chat:, completions: models only"),
            (
                ["--model", "chat:test/model", "--base-url", "http://127.0.0.1:1/v1", "--model-arg", "retries=0"],
                "http://127.0.0.1:1/v1/models did not answer",
            ),
        ],
        "--answer": [(["--answer", "nope"], ARGUMENT + "invalid choice: 'nope'")],
        "--orders": [(["--orders", "nope"], ARGUMENT + "invalid choice: 'nope'")],
        "--concurrency": [(["--concurrency", "0"], ARGUMENT + "expected a whole number of at least 1, got '0'")],
        "--device": [
            (
                ["--model", "chat:test/model", "--base-url", "http://127.0.0.1:1/v1", "--device", "cuda:99"],
                "--device is for fastcoref:, lingmess:, maverick:, spacy:, hf: models only",
            )
        ],
        "--dtype": [(["--dtype", "float99"], "--dtype is for hf: models only")],
        "--cloze-norm": [(["--cloze-norm", "nope"], ARGUMENT + "invalid choice: 'nope'")],
        "--model-arg": [
            (["--model-arg", "=x"], ARGUMENT + "expected KEY=VALUE with KEY a Python name, got '=x'"),
            (
                ["--model", "chat:test/model", "--base-url", "http://127.0.0.1:1/v1", "--model-arg", "timout=5"],
                "--model-arg timout: chat models take no such key; its keys are timeout, retries, backoff, max_tokens, "
                "token_env",
            ),
            (
                ["--model", "chat:test/model", "--base-url", "http://127.0.0.1:1/v1", "--model-arg", "timeout=soon"],
                "--model-arg timeout: expected a number, got 'soon'",
            ),
        ],
        "--cache-mode": [(["--cache-mode", "nope"], ARGUMENT + "invalid choice: 'nope'")],
    },
    "serve": {
        "--model": [(["--model", "nope:x"], "unknown model spec 'nope:x'")],
        "--host": [(["--host", "192.0.2.1"], "cannot serve on 192.0.2.1:8808")],
        "--port": [(["--port", "65536"], ARGUMENT + "expected a whole number from 0 to 65535, got '65536'")],
        "--max-texts": [(["--max-texts", "-1"], ARGUMENT + "expected a whole number of at least 1, got '-1'")],
        "--max-chars": [(["--max-chars", "0"], ARGUMENT + "expected a whole number of at least 1, got '0'")],
        "--device": [
            (["--device", "cuda:99"], "--device is for fastcoref:, lingmess:, maverick:, spacy:, hf: models only")
        ],
        "--model-arg": [(["--model-arg", "threads=2"], "--model-arg threads: tiny models take no such key")],
    },
    "merge-predictions": {
        "sources": [(["{missing}"], "missing.sqlite: no such prediction cache to merge")],
        "--into": [(["--into", "{folder}"], "a-folder is a folder; the prediction cache is a file")],
    },
    "reproduce": {
        "table": [(["nope"], ARGUMENT.format(option="table") + "invalid choice: 'nope'")],
        "--n-bootstrap": [(["--n-bootstrap", "-1"], ARGUMENT + "expected a whole number of at least 0, got '-1'")],
        "--seed": [(["--seed", "-1"], ARGUMENT + "expected a whole number of at least 0, got '-1'")],
    },
    "export-datasets": {
        "names": [(["nope"], "no builder for 'nope'")],
        "--out": [(["--out", "{file}"], "a-file")],
        "--config": [(["gap", "--config", "nope"], "no set of gap builds a config 'nope' on request")],
    },
    "export-lm-eval": {
        "--out": [(["--out", "{file}"], "a-file is a file; --out names the folder of task folders")],
        "--benchmark": [(["--benchmark", "nope"], "unknown benchmark 'nope'")],
        "--prompts": [(["--prompts", "nope"], "winogender has no prompt 'nope'")],
        "--limit": [(["--limit", "0"], ARGUMENT + "expected a whole number of at least 1, got '0'")],
        "--data-dir": [(["--data-dir", "{file}"], "a-file is a file; --data-dir names a folder")],
    },
    "publish": {
        "--namespace": [(["--namespace", "bad/name"], "namespace 'bad/name' gives an invalid repository id")],
        "--dry-run": [(["--dry-run", "{file}"], "a-file")],
        "--only": [(["--only", "nope"], ARGUMENT + "invalid choice: 'nope'")],
        "--repo": [(["--repo", "{folder}", "--only", "metrics"], "a-folder is not a corefbias repository checkout")],
    },
    "score": {
        "--benchmark": [
            (["--benchmark", "nope"], "unknown benchmark 'nope'; score takes one benchmark at a time: abc, abc_sv,"),
            # Before, an unknown name was told to choose from "all, english", which score then refused.
            (["--benchmark", "all"], "'all' names several benchmarks; score takes one benchmark at a time: abc,"),
        ],
        "--predictions": [(["--predictions", "{missing}"], "no predictions file")],
        "--format": [(["--format", "nope"], ARGUMENT + "invalid choice: 'nope'")],
        "--config": [(["--config", "nope"], "nope")],
        "--limit": [(["--limit", "0"], ARGUMENT + "expected a whole number of at least 1, got '0'")],
        "--out": [(["--out", "{file}"], "a-file is a file; --out names the folder a run is written to")],
        "--data-dir": [(["--data-dir", "{file}"], "a-file")],
        "--n-bootstrap": [(["--n-bootstrap", "-1"], ARGUMENT + "expected a whole number of at least 0, got '-1'")],
        "--seed": [(["--seed", "-1"], ARGUMENT + "expected a whole number of at least 0, got '-1'")],
        "--mode": [(["--mode", "nope"], ARGUMENT + "invalid choice: 'nope'")],
    },
    "compare": {
        "runs": [
            (["{damaged-run}"], "damaged-run is not a whole run: results.json is not the file its run wrote"),
            (["{older-damaged-run}"], "older-damaged-run/results.json cannot be read as a run's results"),
        ],
        "--reference": [(["--reference", "nope"], "matches 0 of the runs")],
        "--out": [(["--out", "{file}"], "a-file")],
        "--data-dir": [(["--data-dir", "{file}"], "a-file")],
        "--n-resamples": [(["--n-resamples", "0"], ARGUMENT + "expected a whole number of at least 1, got '0'")],
        "--seed": [(["--seed", "-1"], ARGUMENT + "expected a whole number of at least 0, got '-1'")],
    },
    "list": {
        "what": [(["nope"], ARGUMENT.format(option="what") + "invalid choice: 'nope'")],
    },
}
# The options every command takes, each given a bad value where a command reads it.
COMMON_CASES = {
    "--mirror": [("export-datasets", ["--mirror", "{file}"], "the mirror {file} is not a folder")],
    "--include": [("list", ["--include", "{missing}"], "--include {missing}: no such folder")],
}


def _options(parser: argparse.ArgumentParser) -> dict[str, list[str]]:
    commands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return {
        name: [
            action.option_strings[0] if action.option_strings else action.dest
            for action in subparser._actions
            if not isinstance(action, argparse._HelpAction)
        ]
        for name, subparser in commands.choices.items()
    }


def test_every_option_of_every_command_has_a_bad_value():
    for command, options in _options(cli.build_parser()).items():
        documented = {option for option in options if option not in FLAGS and option not in COMMON}
        assert documented == set(CASES[command]), command
        assert set(COMMON) <= set(options) and set(COMMON) == set(COMMON_CASES)


def _spoiled(command: str, change: list[str], files: dict) -> list[str]:
    """The command's good line with ``change``: a positional's value replaced, or options added last (argparse
    keeps an option's last value)."""
    line = base(command)
    if change and not change[0].startswith("-"):
        positionals = {
            "merge-predictions": 1,
            "reproduce": 1,
            "export-datasets": 1,
            "compare": 1,
            "list": 1,
        }
        position = positionals[command]
        line = line[:position] + change + line[position + 1 :]
    else:
        line = line + change
    return [part.format(**files) for part in line]


def _one_line_error(argv: list[str], capsys) -> str:
    """Run the command; it must fail with status 2, print no traceback, and end with one line saying why."""
    try:
        status = cli.main(argv)
    except SystemExit as exited:  # argparse's own refusal
        status = exited.code
    err = capsys.readouterr().err
    assert status == 2, (argv, err)
    assert "Traceback" not in err, err
    line = err.rstrip("\n").rsplit("\n", 1)[-1].rsplit("\r", 1)[-1]  # after any progress bar
    assert line.startswith("corefbias"), err
    return line


@pytest.mark.parametrize(
    ("command", "option", "change", "said"),
    [
        pytest.param(command, option, change, said, id=f"{command} {option} {' '.join(change)}")
        for command, options in CASES.items()
        for option, cases in options.items()
        for change, said in cases
    ],
)
def test_a_bad_value_is_one_line_with_exit_status_2(files, capsys, command, option, change, said):
    line = _one_line_error(_spoiled(command, change, files), capsys)
    assert said.format(option=option, **files) in line, line


@pytest.mark.parametrize(
    ("option", "command", "change", "said"), [(o, *case) for o, cases in COMMON_CASES.items() for case in cases]
)
def test_a_bad_value_of_a_common_option_is_one_line(files, capsys, option, command, change, said):
    line = _one_line_error(_spoiled(command, change, files), capsys)
    assert said.format(**files) in line, line


def test_merging_a_missing_cache_does_not_create_it(files, capsys):
    # Before, SQLite's ATTACH created the missing file (and merged nothing), with no error.
    _one_line_error(_spoiled("merge-predictions", ["{missing}"], files), capsys)
    assert not Path(files["missing"]).exists()


class _ClusterServer(ThreadingHTTPServer):
    """corefbias's cluster protocol answering ``clusters`` to every text, and ``max_texts`` in its info."""

    daemon_threads = True

    def __init__(self, clusters, max_texts=64):
        super().__init__(("127.0.0.1", 0), _ClusterHandler)
        self.clusters, self.max_texts = clusters, max_texts


class _ClusterHandler(BaseHTTPRequestHandler):
    def do_GET(self):
        info = {"protocol": "corefbias-coref/1", "model": "odd", "max_texts": self.server.max_texts, "max_chars": 99}
        self._send(info)

    def do_POST(self):
        texts = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["texts"]
        self._send({"clusters": [self.server.clusters for _ in texts]})

    def _send(self, payload):
        body = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002 — the base class's signature
        pass


@pytest.mark.parametrize(
    ("clusters", "max_texts", "said"),
    [
        ([None], 64, "text 0: a cluster must be a list of spans, got None"),
        ([[None]], 64, "text 0: span None is not a [start, end] pair of integers"),
        ([], -1, "/v1/info says max_texts -1; it must be a positive integer"),
    ],
    ids=["[[null]]", "[[[null]]]", "max_texts -1"],
)
def test_a_cluster_server_answering_nonsense_is_one_line(start_server, files, capsys, clusters, max_texts, said):
    # Before, [[null]] raised a TypeError deep in the clusters' check, and a negative max_texts a ValueError of
    # range(); both ended in a traceback.
    server = start_server(_ClusterServer(clusters, max_texts))
    url = f"http://127.0.0.1:{server.server_address[1]}"
    line = _one_line_error(_spoiled("run", ["--model", url, "--model-arg", "retries=0"], files), capsys)
    assert said in line and url in line, line


def test_a_damaged_cache_found_in_the_middle_of_a_run_is_one_line(files, capsys, tmp_path):
    # A database whose predictions table is not the cache's opens, then fails on the first read.
    cache = tmp_path / "cache.sqlite"
    with sqlite3.connect(cache) as connection:
        connection.execute("CREATE TABLE predictions (model TEXT)")
    connection.close()
    line = _one_line_error(_spoiled("run", ["--cache", str(cache)], files), capsys)
    assert f"{cache} is not a usable prediction cache (no such column" in line, line
