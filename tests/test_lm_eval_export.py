"""``corefbias export-lm-eval`` run by lm-evaluation-harness 0.4.13, and ``corefbias score --format lm-eval-samples``
on its ``--log_samples`` output.

The fast tests run lm-eval's own evaluator (task loading from the exported folder, request building, our
``process_results``, its aggregation and its samples writer) with a stand-in language model whose log-likelihoods
are a fixed function of the context and continuation, so that corefbias's cloze model on the same function must
make the same decisions on every instance. The slow test runs lm-eval's ``hf`` model on SmolLM2 offline.
"""

import fnmatch
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import lm_eval_export, runner
from corefbias.harness.prediction_files import detect, lm_eval_samples, scoring
from corefbias.models.cloze import ClozeModel
from corefbias.models.registry import load_model

lm_eval = pytest.importorskip("lm_eval")


def stand_in(context: str, continuation: str) -> float:
    """A log-likelihood that depends on the whole request, with no ties to speak of."""
    digest = hashlib.sha256(f"{context}\0{continuation}".encode()).digest()
    return -1.0 - int.from_bytes(digest[:4], "big") / 2**32 * 10


class StandInBackend:
    identity = {"kind": "hash-stand-in"}

    def loglikelihoods(self, requests):
        return [[stand_in(r.context, continuation) for continuation in r.continuations] for r in requests]


class RecordingBackend(StandInBackend):
    """The stand-in backend, keeping the requests of its last call."""

    received: list = []

    def loglikelihoods(self, requests):
        self.received = list(requests)
        return super().loglikelihoods(requests)


class RecordingClozeModel(ClozeModel):
    """corefbias's cloze model on the stand-in; ``requests[benchmark, id]`` keeps each instance's (context,
    continuation) pairs as its backend received them, in option order."""

    def __init__(self):
        super().__init__("stand-in", RecordingBackend())
        self.requests: dict[tuple[str, str], list[tuple[str, str]]] = {}

    def choose_in_batches(self, instances, task):
        for positions, chosen in super().choose_in_batches(instances, task):
            # a backend without loglikelihoods_in_batches gets one call per batch, the instances' requests in order
            received = self.backend.received
            assert len(received) == len(instances)
            for position in positions:
                request = received[position]
                self.requests[task.name, str(instances[position]["id"])] = [
                    (request.context, continuation) for continuation in request.continuations
                ]
            yield positions, chosen


def stand_in_lm():
    """lm-eval's ``LM`` answering ``stand_in``; ``requests[task, doc id]`` keeps each document's (context,
    continuation) pairs as lm-eval built them, in option order (the doc's ``id``, corefbias's instance id, as text)."""
    from lm_eval.api.model import LM

    class StandInLM(LM):
        def __init__(self):
            super().__init__()
            self.requests: dict[tuple[str, str], list[tuple[str, str]]] = {}

        def loglikelihood(self, requests):
            for request in sorted(requests, key=lambda request: request.idx):
                self.requests.setdefault((request.task_name, str(request.doc["id"])), []).append(request.args)
            return [(stand_in(*request.args), False) for request in requests]

        def loglikelihood_rolling(self, requests):
            raise NotImplementedError

        def generate_until(self, requests):
            raise NotImplementedError

    return StandInLM()


def evaluate(tasks_dir: Path, tasks: list[str], out: Path, model=None) -> dict:
    """lm-eval's evaluator on the exported tasks (with ``model``, default a new ``stand_in_lm()``), its samples
    written by its own tracker as ``--log_samples`` does."""
    from lm_eval import evaluator
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    tracker = EvaluationTracker(output_path=str(out))
    results = evaluator.simple_evaluate(
        model=model or stand_in_lm(),
        tasks=tasks,
        task_manager=TaskManager(include_path=str(tasks_dir)),
        log_samples=True,
        evaluation_tracker=tracker,
        bootstrap_iters=0,
    )
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=samples[task])
    return results


def samples_file(out: Path, task: str) -> Path:
    # lm-eval names the file samples_<task>_<date>.jsonl: corefbias_abc must not find corefbias_abc_sv's.
    (found,) = [
        path
        for path in glob.glob(str(out / "**" / f"samples_{task}_*.jsonl"), recursive=True)
        if Path(path).name[len(f"samples_{task}_") :][:1].isdigit()
    ]
    return Path(found)


def group_accuracies(run, benchmark) -> dict[str, float]:
    """Per lm-eval metric name of the task, corefbias's own accuracy: the option chosen is the right one, i.e. the
    decision links exactly the referents (none where no candidate is one and the "someone else" option was chosen)."""
    rows = {row_id: row for columns in run.parts.values() for row_id, row in _rows(columns)}
    found: dict[str, list[float]] = {"acc": []}
    for instance in run.instances:
        right = float(instance["decision"] == instance["gold"])
        found["acc"].append(right)
        for column in lm_eval_export.grouping_columns(benchmark):
            key = f"acc_{column}_{lm_eval_export._label(rows[instance['id']][column])}"
            found.setdefault(key, []).append(right)
    return {key: sum(values) / len(values) for key, values in found.items()}


def _rows(columns):
    for values in zip(*columns.values()):
        row = dict(zip(columns, values))
        yield row["id"], row


@pytest.fixture(scope="module")
def data_dir(exported_set):
    for dataset in {benchmark.dataset for benchmark in BENCHMARKS.values()}:
        exported_set(dataset)
    return exported_set("winogender").parent


@pytest.mark.slow  # lm-eval loads every exported task
def test_the_exported_tasks_load_in_lm_eval_as_our_template_renders_them(data_dir, tmp_path):
    from lm_eval.tasks import TaskManager

    written = lm_eval_export.export(tmp_path, ["all"], prompts=("all",), limit=1, data_dir=data_dir)
    expected = {
        lm_eval_export.task_name(benchmark, template)
        for benchmark in BENCHMARKS.values()
        for template in benchmark.prompt_set
    }
    assert set(written) == expected
    loaded = TaskManager(include_path=str(tmp_path)).load(["corefbias_winogender_eval_framework_idk"])["tasks"]
    (loaded,) = loaded.values()
    docs = list(loaded.test_docs())
    template = BENCHMARKS["winogender"].prompt_set[-1]
    for doc in docs:
        request = template.render(doc)
        assert loaded.doc_to_text(doc) == request.context and loaded.doc_to_choice(doc) == list(request.choices)
        assert loaded.config.target_delimiter == request.delimiter == " "
    readme = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert "What lm-eval cannot report" in readme and "--format lm-eval-samples" in readme


@pytest.mark.slow  # lm-eval scores every exportable benchmark
def test_lm_eval_answers_as_corefbias_run_and_its_samples_score_as_the_run(data_dir, tmp_path):
    """Every exportable benchmark at --limit 2, Winogender whole: the same decision per instance, the same per-group
    accuracies, and `score --format lm-eval-samples` gives the run's sections exactly."""
    whole = ["winogender"]
    limited = [name for name, benchmark in BENCHMARKS.items() if benchmark.cloze is not None and name not in whole]
    tasks_dir = tmp_path / "tasks"
    lm_eval_export.export(tasks_dir, limited, limit=2, data_dir=data_dir)
    lm_eval_export.export(tasks_dir, whole, data_dir=data_dir)
    tasks = [f"corefbias_{name}" for name in [*limited, *whole]]
    results = evaluate(tasks_dir, tasks, tmp_path / "lm_eval")
    model = ClozeModel("stand-in", StandInBackend())
    for names, limit in ((limited, 2), (whole, None)):
        ours = runner.run(
            "stand-in",
            names,
            runner.RunSettings(limit=limit, n_bootstrap=200),
            data_dir=data_dir,
            cache_path=tmp_path / "cache.sqlite",
            progress=False,
            model=model,
        )
        for name in names:
            run = ours.runs[name]
            path = samples_file(tmp_path / "lm_eval", f"corefbias_{name}")
            assert detect(path) == "lm-eval-samples"
            documents = {document.id: document for document in lm_eval_samples.read(path)}
            assert len(documents) == len(run.instances)
            for instance in run.instances:
                document = documents[instance["id"]]
                assert list(document.decisions) == instance["decision"], (name, instance["id"])
                assert list(document.loglikelihoods) == pytest.approx(instance["loglikelihoods"], abs=1e-12)
            reported = results["results"][f"corefbias_{name}"]
            for key, value in group_accuracies(run, BENCHMARKS[name]).items():
                assert reported[f"{key},none"] == pytest.approx(value, abs=1e-12), (name, key)
            if limit is None:
                scored = scoring.score(name, [path], format="lm-eval-samples", data_dir=data_dir, n_bootstrap=200)
                sections = scored.runs[name].sections
                assert list(sections) == list(run.sections)
                for section in run.sections:
                    assert sections[section].to_json() == run.sections[section].to_json(), (name, section)


@pytest.mark.reproduction
def test_a_prompt_tasks_samples_score_as_that_prompts_run_dont_know_included(data_dir, tmp_path):
    """Prompts with a "someone else" option, Winogender's eval-framework wording and GAP's: lm-eval's samples of each
    prompt task give that prompt's run of corefbias every section, the "don't know" one too."""
    # Before, score read every samples file with the main template: no "don't know" section.
    prompts = {"winogender": "eval-framework-idk", "gap": "someone-else"}
    tasks_dir = tmp_path / "tasks"
    tasks = []
    for name, prompt in prompts.items():
        exported = lm_eval_export.export(tasks_dir, [name], prompts=(prompt,), limit=2, data_dir=data_dir)
        tasks.append(lm_eval_export.task_name(BENCHMARKS[name], _prompt(name, prompt)))
        assert tasks[-1] in exported
    evaluate(tasks_dir, tasks, tmp_path / "lm_eval")
    for (name, prompt), task in zip(prompts.items(), tasks):
        ours = runner.run(
            "stand-in",
            [name],
            runner.RunSettings(limit=2, n_bootstrap=200, prompts=(prompt,)),
            data_dir=data_dir,
            cache_path=tmp_path / "cache.sqlite",
            progress=False,
            model=ClozeModel("stand-in", StandInBackend()),
        )
        run = ours.prompt_runs[name][prompt]
        assert f"{name}/dont_know" in run.sections
        path = samples_file(tmp_path / "lm_eval", task)
        scored = scoring.score(name, [path], format="lm-eval-samples", limit=2, data_dir=data_dir, n_bootstrap=200)
        assert scored.settings["prompt"] == prompt
        sections = scored.runs[name].sections
        assert list(sections) == list(run.sections)
        for section in run.sections:
            assert sections[section].to_json() == run.sections[section].to_json(), (name, section)
    # One prompt at a time; a prompt the benchmark does not have is another benchmark's.
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(
        samples_file(tmp_path / "lm_eval", tasks[0]).read_text().replace('"eval-framework-idk"', '"main"', 1)
    )
    with pytest.raises(
        ValueError, match=r"^the files hold answers to 2 prompts \(main, eval-framework-idk\); score one"
    ):
        scoring.score("winogender", [mixed], format="lm-eval-samples", limit=2, data_dir=data_dir, n_bootstrap=0)
    gaps = samples_file(tmp_path / "lm_eval", tasks[1])
    with pytest.raises(ValueError, match=r"prompt 'someone-else', which winobias does not have \(its prompts: main, "):
        scoring.score("winobias", [gaps], format="lm-eval-samples", limit=2, data_dir=data_dir, n_bootstrap=0)


def _prompt(benchmark: str, name: str):
    (template,) = [template for template in BENCHMARKS[benchmark].prompt_set if template.name == name]
    return template


# The sets built from templates and lists of fillers, whose 102,571 instances are 64% of all: CI scores them at
# `--limit 20`, every template in every cell of their designs (6,780 instances), and every other set whole (58,084,
# BUG's 27,220 real sentences among them). LM_EVAL_EVERY_INSTANCE=1 scores these whole too (docs/running/lm_eval.md).
TEMPLATED = ("abc", "abc_ru", "abc_sv", "abc_zh", "misgendered", "ruff", "sowinobias")
TEMPLATED_LIMIT = None if os.environ.get("LM_EVAL_EVERY_INSTANCE") == "1" else 20


@pytest.mark.slow  # lm-eval and corefbias on 64,864 instances: 94 s alone on 2 cores (all 160,655: 178 s)
def test_lm_eval_builds_corefbias_requests_and_answers_as_its_run_on_every_instance(data_dir, tmp_path):
    """Every instance of every exportable benchmark (the templated ones at ``TEMPLATED_LIMIT``): lm-eval builds each
    document's (context, continuation) strings exactly as corefbias's backend receives them, in the same option order;
    on the same log-likelihood function its samples give the run's decision and log-likelihoods on every instance,
    and it reports the run's per-group accuracies. (The token ids of every request: perf/lm_eval_parity.py.)"""
    names = [name for name, benchmark in BENCHMARKS.items() if benchmark.cloze is not None]
    assert set(TEMPLATED) <= set(names)
    tasks_dir = tmp_path / "tasks"
    model = RecordingClozeModel()
    runs = {}
    for limit, chosen in ((None, [name for name in names if name not in TEMPLATED]), (TEMPLATED_LIMIT, TEMPLATED)):
        lm_eval_export.export(tasks_dir, chosen, limit=limit, data_dir=data_dir)
        settings = runner.RunSettings(limit=limit, n_bootstrap=0, cache_mode="off")
        runs.update(runner.run("stand-in", chosen, settings, data_dir=data_dir, progress=False, model=model).runs)
    lm = stand_in_lm()
    results = evaluate(tasks_dir, [f"corefbias_{name}" for name in names], tmp_path / "lm_eval", model=lm)
    assert len(lm.requests) == len(model.requests) == sum(len(runs[name].instances) for name in names)
    different: dict[str, list[str]] = {}
    for name in names:
        run, task = runs[name], f"corefbias_{name}"
        documents = {
            document.id: document for document in lm_eval_samples.read(samples_file(tmp_path / "lm_eval", task))
        }
        assert len(documents) == len(run.instances), name
        for instance in run.instances:
            key = str(instance["id"])
            document = documents[key]
            if (
                lm.requests[task, key] != model.requests[name, key]
                or list(document.decisions) != instance["decision"]
                or list(document.loglikelihoods) != instance["loglikelihoods"]
            ):
                different.setdefault(name, []).append(key)
        reported = results["results"][task]
        for metric, value in group_accuracies(run, BENCHMARKS[name]).items():
            assert reported[f"{metric},none"] == pytest.approx(value, abs=1e-12), (name, metric)
    assert {name: keys[:5] for name, keys in different.items()} == {}


SMOLLM2 = Path.home() / ".cache" / "corefbias" / "llamacpp" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
SHARDS = 8  # the real-model test's sample: the first eighth of each part at --limit 1


def lm_eval_on_smollm2(include_path: Path, tasks: list[str], out: Path, samples: dict | None = None) -> None:
    """``lm_eval`` 0.4.13's command line, its ``hf`` model on SmolLM2's GGUF (through transformers' ``gguf_file``),
    offline, on ``tasks`` found under ``include_path`` (``samples``: per task the doc indices to score), its samples
    logged under ``out``."""
    environment = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    chosen = ["--samples", json.dumps(samples)] if samples is not None else []
    subprocess.run(
        [sys.executable, "-m", "lm_eval", "--model", "hf", "--model_args",
         f"pretrained={SMOLLM2.parent},gguf_file={SMOLLM2.name}", "--tasks", ",".join(tasks), *chosen,
         "--include_path", str(include_path), "--device", "cpu", "--batch_size", "8", "--log_samples",
         "--output_path", str(out)],
        check=True, env=environment,
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.reproduction
def test_lm_eval_on_smollm2_answers_as_corefbias_hf(data_dir, tmp_path):
    """lm-eval 0.4.13's `hf` model on SmolLM2 (the GGUF through transformers' gguf_file), offline, in one run, on a
    sample of every exportable benchmark, against `corefbias run --model hf:…` on the same instances: the same
    decision on every instance and the same per-group accuracies. The sample is `corefbias run --limit 1`'s first
    shard of ``SHARDS`` (the first eighth of each part; every benchmark keeps at least one instance): 83 instances,
    349 requests. Winogenerated, whose lm-eval `acc` is a score of ours, runs whole at `--limit 1` (2 occupations, one
    of each BLS majority: 20 sentences, 60 requests): lm-eval's `acc` is the run's share of they, and `score --format
    lm-eval-samples` on lm-eval's samples gives the run's section exactly. (The whole of Winogender, 720 of 720
    decisions, and of Winogenerated, 2,990 of 2,990, are measured in docs/running/lm_eval.md; the stand-in test
    checks the requests of every instance but the templated sets', which it checks at `--limit 20`.)"""
    if not SMOLLM2.is_file():
        pytest.skip(f"no {SMOLLM2}: run `bash services/llamacpp/setup.sh` to fetch it")
    spec = f"hf:{SMOLLM2}"
    model = load_model(spec)
    names = [name for name, benchmark in BENCHMARKS.items() if benchmark.cloze is not None]
    settings = runner.RunSettings(limit=1, shard=(0, SHARDS), n_bootstrap=0, cache_mode="off")
    ours = runner.run(spec, names, settings, data_dir=data_dir, progress=False, model=model)
    whole = runner.RunSettings(limit=1, n_bootstrap=200, cache_mode="off")
    ours.runs["winogenerated"] = runner.run(
        spec, ["winogenerated"], whole, data_dir=data_dir, progress=False, model=model
    ).runs["winogenerated"]
    tasks_dir = tmp_path / "tasks"
    lm_eval_export.export(tasks_dir, names, limit=1, data_dir=data_dir)
    # lm-eval scores the docs of the runs' instances (--samples: per task the doc indices), in the --limit 1 export
    chosen = {}
    for name in names:
        ids = {str(instance["id"]) for instance in ours.runs[name].instances}
        table = pq.read_table(tasks_dir / f"corefbias_{name}" / "data" / "test.parquet", columns=["id"])
        chosen[f"corefbias_{name}"] = [
            doc for doc, row_id in enumerate(table.column("id").to_pylist()) if str(row_id) in ids
        ]
        assert len(chosen[f"corefbias_{name}"]) == len(ids) > 0, name
    lm_eval_on_smollm2(tasks_dir, list(chosen), tmp_path / "lm_eval", samples=chosen)
    (results_path,) = glob.glob(str(tmp_path / "lm_eval" / "**" / "results_*.json"), recursive=True)
    reported = json.loads(Path(results_path).read_text())["results"]
    for name in names:
        run = ours.runs[name]
        path = samples_file(tmp_path / "lm_eval", f"corefbias_{name}")
        documents = {document.id: document for document in lm_eval_samples.read(path)}
        assert len(documents) == len(run.instances), name
        decisions = [documents[str(i["id"])].decisions for i in run.instances]
        assert decisions == [tuple(i["decision"]) for i in run.instances], name
        for key, value in group_accuracies(run, BENCHMARKS[name]).items():
            assert reported[f"corefbias_{name}"][f"{key},none"] == pytest.approx(value, abs=1e-12), (name, key)
    assert len(ours.runs["winogenerated"].instances) == 20
    section = ours.runs["winogenerated"].sections["winogenerated_bias"]
    acc = reported["corefbias_winogenerated"]["acc,none"]
    assert acc == pytest.approx(section["share_neutral"], abs=1e-12)
    scored = scoring.score(
        "winogenerated",
        [samples_file(tmp_path / "lm_eval", "corefbias_winogenerated")],
        format="lm-eval-samples",
        limit=1,
        data_dir=data_dir,
        n_bootstrap=200,
    )
    assert scored.runs["winogenerated"].sections["winogenerated_bias"].to_json() == section.to_json()


@pytest.mark.parametrize("limit", [None, 1])
def test_the_readmes_score_command_scores_what_the_export_holds(limit):
    # Before: no --limit (a --limit export's samples: 714 of 720 instances unmatched), and a file pattern that read a
    # prompt task's samples too ("already matched").
    tasks = {name: Path(name) for name in ("corefbias_winogender", "corefbias_winogender_eval_framework_idk")}
    main, prompt = re.findall(r"corefbias score .*\n.*", lm_eval_export.readme(tasks, limit, "winogender"))
    assert ("--limit 1" in main) is (limit == 1) and ("--limit 1" in prompt) is (limit == 1)
    main_pattern, prompt_pattern = (re.search(r"--predictions OUT/\*/(\S+)", command)[1] for command in (main, prompt))
    main_file = "samples_corefbias_winogender_2026-11-29T13-00-00.123.jsonl"
    prompt_file = "samples_corefbias_winogender_eval_framework_idk_2026-11-29T13-00-00.jsonl"
    assert fnmatch.fnmatch(main_file, main_pattern) and not fnmatch.fnmatch(prompt_file, main_pattern)
    prompt_pattern = prompt_pattern.replace("PROMPT", "eval_framework_idk")
    assert fnmatch.fnmatch(prompt_file, prompt_pattern) and not fnmatch.fnmatch(main_file, prompt_pattern)
    # Before, an export of a prompt alone took its task's name for the benchmark's: `--benchmark
    # winogender_eval_framework_idk`, and a samples pattern no file has.
    alone = lm_eval_export.readme({"corefbias_winogender_eval_framework_idk": Path("x")}, limit, "winogender")
    assert "--tasks corefbias_winogender_eval_framework_idk " in alone
    assert re.findall(r"corefbias score --benchmark (\S+)", alone) == ["winogender", "winogender"]
    assert "samples_corefbias_winogender_PROMPT_[0-9]*.jsonl" in alone
