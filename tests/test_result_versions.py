"""Run folders written before results.json held the measures' result objects (schema version 2, flat sections)
still load in ``compare``, the report's tables, ``summary.csv`` and the Space; and the current code writes the same
numbers for the same run.

The two folders under ``fixtures/results_v2`` are real runs of corefbias at schema version 2 (their README says how
they were made); the test makes the same runs again with the current code.
"""

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from corefbias.harness import comparison, result_schema, run_outputs, runner
from corefbias.measures.result_building import from_json
from corefbias.space.store import RunStore, score_column

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "results_v2"
MODELS = ("stereotype", "random")
BENCHMARKS = ["winogender", "dawinobias", "gap", "abc"]


# Reasons for an undefined score that the code words more precisely since the fixtures were written (main's
# measures/gap.ratio_reason says which of the ratio's conditions held); the numbers are what the test compares.


def _results(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def data_dir(exported_set):
    folders = {exported_set(name).parent for name in BENCHMARKS}
    assert len(folders) == 1
    return folders.pop()


@pytest.fixture(scope="module")
def rerun(data_dir, tmp_path_factory) -> dict[str, Path]:
    """The fixtures' runs made again by the current code, written as `corefbias run` writes them."""
    root = tmp_path_factory.mktemp("v3")
    folders = {}
    for model in MODELS:
        result = runner.run(
            f"baseline:{model}",
            BENCHMARKS,
            settings=runner.RunSettings(limit=3, n_bootstrap=200, seed=0, cache_mode="off"),
            data_dir=data_dir,
            progress=False,
        )
        run_outputs.write_outputs(result, root / model, plots=False)
        folders[model] = root / model
    return folders


def _summary_csv(results: dict) -> str:
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=[*run_outputs.SUMMARY_COLUMNS, "undefined"])
    writer.writeheader()
    writer.writerows(run_outputs.summary_rows(results))
    return out.getvalue()


# Since the fixtures were written, the significance of some scores changed, and is left out of the comparison:
# * a score resting on a single unit (a GAP W-Bias of one weighted example per gender at --limit 3) gets no p-value or
#   interval (``resampling.single_unit_reasons``), and says why: before, its resamples all repeated that unit, and
#   gave [1, 1] and p = 1;
# * scores that had no interval have one: accuracies and rates (with no p-value), and Pearson's r (Fisher's z).
SINGLE_UNIT = "needs at least two"
SIGNIFICANCE_FIELDS = ("ci_low", "ci_high", "p_value", "significant")


def _changed_significance(old: dict, new: dict) -> set[tuple[str, str, str]]:
    """(benchmark, section, score key) of every score whose significance the current run reports differently."""
    changed = set()
    for name, outcome in new["benchmarks"].items():
        for section, flat in outcome["sections"].items():
            current = from_json(flat)
            before = old["benchmarks"][name]["sections"][section]
            for key, reason in current.undefined.items():
                if key.endswith("_p_value") and SINGLE_UNIT in reason:
                    changed.add((name, section, key.removesuffix("_p_value")))
            for key in dict(current):
                if key.endswith("_ci_low") and key not in before:
                    changed.add((name, section, key.removesuffix("_ci_low")))
    return changed


def _changed_headlines(old: dict, new: dict) -> set[tuple[str, str]]:
    """(benchmark, label) of the headlines whose significance changed (``_changed_significance``): the rows of the
    summary and of ``compare``'s scores that name them."""
    changed = _changed_significance(old, new)
    return {
        (name, headline["label"])
        for name, outcome in new["benchmarks"].items()
        for headline in outcome["headlines"]
        if (name, headline["section"], headline["key"]) in changed
    }


def _numbers(flat, changed: set[str] = frozenset()) -> dict:
    """A flat result's scores and significance; why a score is undefined is left out, since later versions say it
    better (which condition held): that a score is undefined shows as its None. The significance of the scores in
    ``changed`` is left out."""
    left_out = {f"{key}_{field}" for key in changed for field in ("p_value", "ci_low", "ci_high")}
    return {key: value for key, value in dict(flat).items() if key != "undefined" and key not in left_out}


def _without_significance(row: dict) -> dict:
    return {field: value for field, value in row.items() if field not in SIGNIFICANCE_FIELDS}


def _headline_numbers(headlines: list[dict], changed: set[str] = frozenset()) -> list[dict]:
    return [
        {
            **(_without_significance(headline) if headline["key"] in changed else headline),
            "undefined": headline["undefined"] is not None,
        }
        for headline in headlines
    ]


_REASON = re.compile(r"— \([^|]*\)")
_UNDEFINED_SENTENCE = re.compile(r"is undefined: .*")


def _report_tables(report: str) -> tuple[list[str], dict[str, set[str]]]:
    """The summary table's lines, and per section the lines of its table and its undefined-score sentences, each
    with the undefined scores' reasons left out (see ``_numbers``)."""
    summary, sections, current = [], {}, None
    for line in report.splitlines():
        if line.startswith("### "):
            current = sections.setdefault(line[4:], set())
        elif line.startswith("## "):
            current = summary if line == "## Summary" else None
        elif current is summary and line.startswith("|"):
            summary.append(_REASON.sub("—", line))
        elif isinstance(current, set) and (line.startswith("|") or " is undefined: " in line):
            current.add(_UNDEFINED_SENTENCE.sub("is undefined", line))
    return summary, sections


@pytest.mark.parametrize("model", MODELS)
def test_a_version_2_file_upgrades_to_a_valid_current_one_with_its_flat_sections_unchanged(model):
    old = _results(FIXTURES / model)
    assert old["schema_version"] == 2
    upgraded = result_schema.upgrade(old)
    schema = json.loads((REPO / "docs" / "results.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator(schema).validate(upgraded)
    for name, outcome in old["benchmarks"].items():
        assert upgraded["benchmarks"][name]["headlines"] == outcome["headlines"]
        for section, flat in outcome["sections"].items():
            stored = upgraded["benchmarks"][name]["sections"][section]
            assert {key: value for key, value in stored.items() if key != "measure_result"} == flat
            assert dict(from_json(stored)) == flat
    assert run_outputs.summary_rows(old) == run_outputs.summary_rows(upgraded)


@pytest.mark.parametrize("model", MODELS)
def test_the_current_code_writes_the_same_numbers_as_the_version_2_run(model, rerun):
    old, new = _results(FIXTURES / model), _results(rerun[model])
    assert new["schema_version"] == result_schema.SCHEMA_VERSION == 4
    changed = _changed_significance(old, new)
    # The stereotype run's W-Bias and Wt-Bias, the random run's DaWinoBias ratios within each pronoun gender (one
    # unit); the rates and r that have an interval now.
    rested_on_one = (
        {("gap", "w_bias")}
        if model == "stereotype"
        else {("dawinobias", "log2_ratio/female"), ("dawinobias", "log2_ratio/male")}
    )
    intervals_since = {("abc", f"tpr_reflexive{suffix}") for suffix in ("", "/female_occupations", "/male_occupations")}
    intervals_since |= {("winogender", "pearson_r_bls"), ("winogender", "pearson_r_bergsma")}
    assert {(name, key) for name, _, key in changed} == rested_on_one | intervals_since
    for name, outcome in old["benchmarks"].items():
        for section, flat in outcome["sections"].items():
            here = {key for benchmark, where, key in changed if (benchmark, where) == (name, section)}
            current = from_json(new["benchmarks"][name]["sections"][section])
            assert _numbers(current, here) == _numbers(flat, here), section
            significance = {f"{key}_{field}" for key in here for field in ("p_value", "ci_low", "ci_high")}
            assert set(current.undefined) - significance == set(flat["undefined"]) - significance, section
        in_headlines = {key for benchmark, _, key in changed if benchmark == name}
        headlines = new["benchmarks"][name]["headlines"]
        assert _headline_numbers(headlines, in_headlines) == _headline_numbers(outcome["headlines"], in_headlines)
    # summary.csv: the same numbers; the report: the same rows in every table.
    labels = _changed_headlines(old, new)

    def summary_numbers(results):
        return [
            _without_significance(numbers) if (row["benchmark"], row["score"]) in labels else numbers
            for row in run_outputs.summary_rows(results)
            for numbers in [{key: row[key] for key in run_outputs.SUMMARY_COLUMNS}]
        ]

    assert summary_numbers(new) == summary_numbers(old)
    assert _summary_csv(old).splitlines() == (FIXTURES / model / "summary.csv").read_text().splitlines()
    tables = [_report_tables((folder / "report.md").read_text()) for folder in (FIXTURES / model, rerun[model])]
    (old_summary, old_sections), (new_summary, new_sections) = (
        (
            [line for line in summary if not any(line.startswith(f"| {name} | {label} |") for name, label in labels)],
            {
                section: {
                    line
                    for line in rows
                    if not any(line.startswith(f"| {key} |") for _, where, key in changed if where == section)
                }
                for section, rows in sections.items()
            },
        )
        for summary, sections in tables
    )
    assert new_summary == old_summary and new_sections == old_sections
    assert sum(len(rows) for rows in new_sections.values()) > 100


def test_compare_reads_version_2_folders_as_it_reads_current_ones(rerun, data_dir):
    old = comparison.compare_runs([FIXTURES / model for model in MODELS], data_dir=data_dir, n_resamples=200)
    new = comparison.compare_runs([rerun[model] for model in MODELS], data_dir=data_dir, n_resamples=200)
    assert old["comparisons"] == new["comparisons"]
    # The runs' own headline scores, but the significance that changed since (see _changed_significance).
    labels = set().union(*(_changed_headlines(_results(FIXTURES / model), _results(rerun[model])) for model in MODELS))
    for label, rows in new["scores"].items():
        assert [_without_significance(row) if (row["benchmark"], row["score"]) in labels else row for row in rows] == [
            _without_significance(row) if (row["benchmark"], row["score"]) in labels else row
            for row in old["scores"][label]
        ]
    differences = {(row["benchmark"], row["key"]): row for row in old["comparisons"][0]["differences"]}
    assert ("dawinobias", "log2_ratio") in differences and ("gap", "acc_bias") in differences
    stored = _results(FIXTURES / "stereotype")["benchmarks"]["dawinobias"]["sections"]["dawinobias"]
    assert differences["dawinobias", "log2_ratio"]["value_a"] == pytest.approx(stored["log2_ratio"])


def test_the_space_leaderboard_shows_a_version_2_run_beside_a_current_one(rerun, tmp_path):
    store = RunStore(tmp_path)
    shutil.copytree(FIXTURES / "stereotype", store.runs / "20250101-000000-0000000a")
    shutil.copytree(rerun["stereotype"], store.runs / "20260101-000000-0000000b")
    board = store.leaderboard()
    assert board["run"].tolist() == ["20260101-000000-0000000b", "20250101-000000-0000000a"]
    summary = run_outputs.summary_rows(_results(FIXTURES / "stereotype"))
    defined = [row for row in summary if row["value"] is not None]
    assert len(defined) >= 8
    for row in defined:
        assert board[score_column(row)].tolist() == [row["value"]] * 2, score_column(row)
