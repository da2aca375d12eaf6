"""``corefbias export-lm-eval --out DIR``: corefbias's benchmarks as lm-evaluation-harness tasks.

Every benchmark with a cloze template (``Benchmark.cloze``) becomes the task ``corefbias_<benchmark>`` (another
prompt of its set, ``--prompts``, ``corefbias_<benchmark>_<prompt>``), a folder holding

* ``<task>.yaml``: ``output_type: multiple_choice`` over the test split, ``doc_to_text``, ``doc_to_choice`` and
  ``doc_to_target`` from ``utils.py``, ``target_delimiter`` the template's delimiter, and ``process_results`` giving
  ``acc`` overall and per group (``acc_<column>_<value>`` for the benchmark's bias-axis and pro/anti columns), each
  averaged by lm-eval's ``mean``;
* ``data/test.parquet``: the benchmark's scored rows as corefbias exports them (every part in order, each row with its
  ``config`` and ``split``), plus each row's rendering by the template — ``cloze_context``, ``cloze_choices``,
  ``cloze_target`` (the right option, −1 where none is) and ``cloze_candidate_of`` (the candidate each option names,
  −1 for "someone else") — so the template's wording lives in corefbias alone and the task needs no corefbias to run;
* ``utils.py``: reads that file (``custom_dataset``) and hands lm-eval the rendered fields.

lm-eval's ``acc`` is then corefbias's decision (``--cloze-norm none``: the option of the highest summed
log-likelihood, the first of tied ones), so the per-document answers and per-group accuracies are the same as
``corefbias run --model hf:…``'s; what lm-eval cannot report (the bias measures and their significance) comes from
``corefbias score --format lm-eval-samples`` on the run's ``--log_samples`` output
(``corefbias.harness.prediction_files.lm_eval_samples``); the folder's README says so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..benchmarks import Benchmark, resolve, rows_of
from ..models.cloze_template import ClozeTemplate
from .benchmark_data import default_data_dir
from .prediction_files.lm_eval_samples import NONE_OPTION
from .prompt_sets import chosen_templates
from .runner import RunSettings, benchmark_parts

UTILS = '''"""corefbias's exported task: the docs, rendered by corefbias's cloze template (data/test.parquet)."""

from pathlib import Path

import datasets

DATA = Path(__file__).resolve().parent / "data" / "test.parquet"
GROUPS = {groups!r}


def load(**kwargs):
    return datasets.DatasetDict({{"test": datasets.Dataset.from_parquet(str(DATA), keep_in_memory=True)}})


def doc_to_text(doc):
    return doc["cloze_context"]


def doc_to_choice(doc):
    return list(doc["cloze_choices"])


def doc_to_target(doc):
    return doc["cloze_target"]


def process_results(doc, results):
    """acc overall and in the doc's group of each grouping column: the option of the highest log-likelihood (the
    first of tied ones, as numpy's argmax and lm-eval's acc) against the right one."""
    loglikelihoods = [loglikelihood for loglikelihood, _ in results]
    chosen = max(range(len(loglikelihoods)), key=lambda option: (loglikelihoods[option], -option))
    right = float(chosen == doc["cloze_target"])
    scores = {{"acc": right}}
    for column, values in GROUPS.items():
        if str(doc[column]) in values:
            scores[f"acc_{{column}}_{{values[str(doc[column])]}}"] = right
    return scores
'''


def task_name(benchmark: Benchmark, template: ClozeTemplate) -> str:
    """``corefbias_<benchmark>``, and ``_<prompt>`` for a prompt other than the main template.

    Examples
    --------
    >>> from corefbias.benchmarks import BENCHMARKS
    >>> gap = BENCHMARKS["gap"]
    >>> task_name(gap, gap.cloze), task_name(gap, gap.prompt_set[-1])
    ('corefbias_gap', 'corefbias_gap_someone_else')
    """
    suffix = "" if template is benchmark.cloze else "_" + template.name.replace("-", "_")
    return f"corefbias_{benchmark.name}{suffix}"


def _label(value) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", str(value)).strip("_").lower() or "none"


def grouping_columns(benchmark: Benchmark) -> list[str]:
    """The columns whose values the task reports ``acc`` per: the bias axis's, then the pro/anti column."""
    columns = [benchmark.bias_axis.column] if benchmark.bias_axis is not None else []
    if benchmark.condition_column is not None and benchmark.condition_column not in columns:
        columns.append(benchmark.condition_column)
    return columns


def rendered_rows(benchmark: Benchmark, template: ClozeTemplate, parts: dict) -> list[dict]:
    """The rows of every part, in order, each with its ``config``, ``split`` and rendering by ``template``."""
    rows = []
    for (config, split), data in parts.items():
        for row in rows_of(data.to_dict()) if len(data) else []:
            request = template.render(row)
            referents = [candidate["is_referent"] for candidate in row["candidates"]]
            right = [
                option
                for option, candidate in enumerate(request.candidate_of)
                if (not any(referents) if candidate is None else referents[candidate])
            ]
            rows.append(
                {
                    **row,
                    "config": config,
                    "split": split,
                    "cloze_context": request.context,
                    "cloze_choices": list(request.choices),
                    "cloze_target": right[0] if right else NONE_OPTION,
                    "cloze_candidate_of": [NONE_OPTION if c is None else c for c in request.candidate_of],
                    "cloze_template": template.name,
                }
            )
    return rows


def _yaml(task: str, template: ClozeTemplate, metrics: list[str]) -> str:
    metric_list = "".join(
        f"  - metric: {metric}\n    aggregation: mean\n    higher_is_better: true\n" for metric in metrics
    )
    return (
        f"task: {task}\n"
        "custom_dataset: !function utils.load\n"
        "output_type: multiple_choice\n"
        "test_split: test\n"
        "doc_to_text: !function utils.doc_to_text\n"
        "doc_to_choice: !function utils.doc_to_choice\n"
        "doc_to_target: !function utils.doc_to_target\n"
        f"target_delimiter: {json.dumps(template.delimiter)}\n"
        "process_results: !function utils.process_results\n"
        f"metric_list:\n{metric_list}"
        "metadata:\n"
        "  version: 1.0\n"
    )


def export_task(benchmark: Benchmark, template: ClozeTemplate, parts: dict, out: Path) -> Path:
    """Write one task folder under ``out``; returns it."""
    task = task_name(benchmark, template)
    folder = out / task
    (folder / "data").mkdir(parents=True, exist_ok=True)
    rows = rendered_rows(benchmark, template, parts)
    groups = {
        column: {str(value): _label(value) for value in dict.fromkeys(row[column] for row in rows)}
        for column in grouping_columns(benchmark)
    }
    pq.write_table(pa.Table.from_pylist(rows), folder / "data" / "test.parquet")
    (folder / "utils.py").write_text(UTILS.format(groups=groups), encoding="utf-8")
    metrics = ["acc", *(f"acc_{column}_{label}" for column, values in groups.items() for label in values.values())]
    (folder / f"{task}.yaml").write_text(_yaml(task, template, metrics), encoding="utf-8")
    return folder


def export(
    out: str | Path,
    benchmarks=("all",),
    *,
    prompts: tuple[str, ...] | None = None,
    limit: int | None = None,
    data_dir=None,
    mirror=None,
) -> dict[str, Path]:
    """Write lm-eval task folders for every benchmark named that has a cloze template, and the README.

    Parameters
    ----------
    out : str or Path
        The folder (``lm_eval --include_path OUT``).
    benchmarks : sequence of str, default ("all",)
        Benchmark names, ``all`` or ``english``; those without a cloze template are left out.
    prompts : tuple of str, optional
        The prompts of each set to export (``("all",)``: every one); None: the main template only.
    limit : int, optional
        ``--limit N``: the units ``corefbias run --limit N`` scores, for quick checks.
    data_dir, mirror
        Where the exported sets are (built from the mirror on first use).

    Returns
    -------
    dict of str to Path
        Task name → its folder.
    """
    out = Path(out)
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    for folder, option in ((out, "--out names the folder of task folders"), (data_dir, "--data-dir names a folder")):
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"{folder} is a file; {option}")
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    chosen = [benchmark for benchmark in resolve(benchmarks) if benchmark.cloze is not None]
    if not chosen:
        raise ValueError(f"none of {', '.join(benchmarks)} has a cloze template, so none can be an lm-eval task")
    for benchmark in chosen:
        parts = benchmark_parts(benchmark, RunSettings(limit=limit), data_dir, mirror)
        templates = (benchmark.cloze,) if prompts is None else chosen_templates(benchmark, prompts)
        for template in templates:
            written[task_name(benchmark, template)] = export_task(benchmark, template, parts, out)
    (out / "README.md").write_text(readme(written, limit, chosen[0].name), encoding="utf-8")
    return written


def readme(tasks: dict[str, Path], limit: int | None, benchmark: str) -> str:
    """The exported folder's README: how to run the tasks, what lm-eval cannot report, and how to get it; its
    commands are those of ``benchmark`` (the first exported: a prompt task's name is no benchmark's)."""
    listed = "\n".join(f"- `{task}`" for task in tasks)
    first = f"corefbias_{benchmark}"
    runnable = next(iter(tasks))
    scope = (
        "every instance" if limit is None else f"`--limit {limit}` (the units `corefbias run --limit {limit}` scores)"
    )
    limit_option = "" if limit is None else f" --limit {limit}"
    return f"""# corefbias benchmarks as lm-evaluation-harness tasks

Written by `corefbias export-lm-eval` ({scope}). Each folder is one task: a YAML, `utils.py` and
`data/test.parquet`, corefbias's exported rows with each row's rendering by corefbias's cloze template (the
context, the options, the right option). No download and no corefbias are needed to run them:

```bash
HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 lm_eval --model hf --model_args pretrained=MODEL \\
  --include_path THIS_FOLDER --tasks {runnable} --log_samples --output_path OUT
```

Tasks:

{listed}

lm-eval reports `acc` (the option of the highest summed log-likelihood, corefbias's `--cloze-norm none`
decision) overall and per group of the benchmark's bias axis and pro/anti columns (`acc_<column>_<value>`).

## What lm-eval cannot report

- **The bias measures**: Winogender's pairs resolved differently and occupation share, WinoBias's pro − anti F1
  gaps, GAP's acc-Bias and W-Bias, Counter-GAP's ΔI, DaWinoBias's Gender Effect Size, ABC's FPR ratio: each needs
  the answers of whole minimal pairs, quadruples or triplets, which lm-eval's per-document metrics cannot see.
- **Their significance**: corefbias's bootstrap over the benchmark's units (pairs, quadruples, triplets) gives
  each score a 95% interval and a p-value against its unbiased value; lm-eval's standard errors treat documents
  as independent.
- **The "don't know" scores** (eval-framework's confidence-weighted accuracy) of a prompt with a "someone else"
  option: lm-eval's `acc` counts a "someone else" pick as any other; `corefbias score` on that prompt task's
  samples adds them (below).

## How to get them from the run you made

`--log_samples` writes `samples_<task>_<time>.jsonl`; corefbias reads it (the format `lm-eval-samples`) and scores
its answers exactly as `corefbias run` scores a model's (`[0-9]*`: the time, so that a prompt task's file,
`samples_{first}_<prompt>_<time>.jsonl`, is not read with it):

```bash
corefbias score --benchmark {benchmark} --format lm-eval-samples{limit_option} \\
  --predictions OUT/*/samples_{first}_[0-9]*.jsonl --out scores
```

`scores/report.md` then holds every bias score with its interval and p-value (`corefbias score` needs the
benchmark's data, exported by corefbias from its upstream files). A prompt task's samples (`export-lm-eval
--prompts`) score the same way, one prompt at a time: corefbias reads the prompt from them, and a prompt with a
"someone else" option adds its "don't know" scores (`<benchmark>/dont_know`). PROMPT is the task's suffix:

```bash
corefbias score --benchmark {benchmark} --format lm-eval-samples{limit_option} \\
  --predictions OUT/*/samples_{first}_PROMPT_[0-9]*.jsonl --out scores-PROMPT
```
"""
