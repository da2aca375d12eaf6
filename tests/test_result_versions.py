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

from corefbias.harness import comparison, result_schema, result_versions, run_outputs, runner
from corefbias.space.store import RunStore, score_column

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "results_v2"
MODELS = ("stereotype", "random")
BENCHMARKS = ["winogender", "dawinobias", "gap", "abc"]


# Reasons for an undefined score that the code words more precisely since the fixtures were written (main's
# measures/gap_rows.ratio_reason says which of the ratio's conditions held); the numbers are what the test compares.


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
    writer.writerows(run_outputs.summary_rows(result_versions.upgrade(results)))
    return out.getvalue()


# Since the fixtures were written, every interval and p-value changed: from schema version 5 the bootstrap draws whole
# blocks (occupations, templates, documents) and expands its intervals for how few they are (``measures.blocks``,
# ``resampling.expanded_tail``). The values, and why a value is undefined, are what must not change: the significance
# fields are left out of every comparison below.
SIGNIFICANCE_SUFFIXES = ("_p_value", "_ci_low", "_ci_high")
SIGNIFICANCE_FIELDS = ("ci_low", "ci_high", "p_value", "significant", "n_blocks", "blocks", "significance_undefined")


# Stored floats are compared within this relative tolerance: the fixtures were written with older numpy and scipy,
# whose Pearson r differs from today's in its last two digits (0.2714395023761494 against 0.27143950237614933).
TOLERANCE = 1e-9
# Scores a section gained since version 2, each in the CHANGELOG: every value it had stays as it was.
ADDED_SINCE = {"abc": {"genda_lens_gender_effect_size"}}  # GenDa Lens's ABC figure beside ours (issue 50)


def approx(value):
    """``value`` (a number, or lists and dicts holding numbers, strings and None) as it compares within
    ``TOLERANCE``: its floats as ``pytest.approx``, the rest as it is."""
    if isinstance(value, float):
        return pytest.approx(value, rel=TOLERANCE, abs=TOLERANCE)
    if isinstance(value, dict):
        return {key: approx(item) for key, item in value.items()}
    if isinstance(value, list):
        return [approx(item) for item in value]
    return value


def _is_significance(key: str) -> bool:
    return key.endswith(SIGNIFICANCE_SUFFIXES)


def _numbers(flat) -> dict:
    """A flat result's values; why a score is undefined is left out, since later versions say it better (which
    condition held): that a score is undefined shows as its None."""
    return {key: value for key, value in dict(flat).items() if key != "undefined" and not _is_significance(key)}


def _without_significance(row: dict) -> dict:
    return {field: value for field, value in row.items() if field not in SIGNIFICANCE_FIELDS}


def _headline_numbers(headlines: list[dict]) -> list[dict]:
    return [
        {**_without_significance(headline), "undefined": headline["undefined"] is not None} for headline in headlines
    ]


_REASON = re.compile(r"— \([^|]*\)")
_UNDEFINED_SENTENCE = re.compile(r"is undefined: .*")


def _value_cells(line: str, columns: int) -> str:
    """A table row's first ``columns`` cells (the names and the value, before the interval and p-value), without the
    significance mark."""
    return "|".join(line.split("|")[: columns + 1]).replace("*", "")


def _report_tables(report: str) -> tuple[list[str], dict[str, set[str]]]:
    """The summary table's lines, and per section the lines of its table and its undefined-score sentences, each
    cut to its names and value, the undefined scores' reasons left out (see ``_numbers``)."""
    summary, sections, current = [], {}, None
    for line in report.splitlines():
        if line.startswith("### "):
            current = sections.setdefault(line[4:], set())
        elif line.startswith("## "):
            current = summary if line == "## Summary" else None
        elif current is summary and line.startswith("|"):
            summary.append(_value_cells(_REASON.sub("—", line), 3))
        elif isinstance(current, set) and line.startswith("|"):
            current.add(_value_cells(line, 2))
        elif isinstance(current, set) and " is undefined: " in line and "_p_value" not in line and "_ci_" not in line:
            current.add(_UNDEFINED_SENTENCE.sub("is undefined", line))
    return summary, sections


def _validate(results: dict) -> None:
    schema = json.loads((REPO / "docs" / "results.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator(schema).validate(results)


@pytest.mark.parametrize("model", MODELS)
def test_a_version_2_file_upgrades_to_a_valid_current_one_with_its_flat_sections_unchanged(model):
    old = _results(FIXTURES / model)
    assert old["schema_version"] == 2
    upgraded = result_versions.upgrade(old)
    written = runner.to_json(upgraded)
    _validate(written)
    for name, outcome in old["benchmarks"].items():
        headlines = written["benchmarks"][name]["headlines"]
        # Each field version 2 held, as it held it; version 6 adds why a significance field is null.
        assert [
            {key: item.get(key) for key in old_item} for item, old_item in zip(headlines, outcome["headlines"])
        ] == (outcome["headlines"])
        for section, flat in outcome["sections"].items():
            stored = written["benchmarks"][name]["sections"][section]
            assert {key: value for key, value in stored.items() if key != "measure_result"} == flat
            assert dict(upgraded["benchmarks"][name]["sections"][section]) == flat
    assert run_outputs.summary_rows(result_versions.upgrade(written)) == run_outputs.summary_rows(upgraded)


@pytest.mark.parametrize("model", MODELS)
def test_the_current_code_writes_the_same_values_as_the_version_2_run(model, rerun):
    old, new = _results(FIXTURES / model), _results(rerun[model])
    assert new["schema_version"] == result_schema.SCHEMA_VERSION == 6
    read = result_versions.upgrade(new)
    for name, outcome in old["benchmarks"].items():
        for section, flat in outcome["sections"].items():
            current = read["benchmarks"][name]["sections"][section]
            numbers, stored = _numbers(current), _numbers(flat)
            assert set(numbers) - set(stored) <= ADDED_SINCE.get(section, set()), section
            assert {key: numbers[key] for key in stored} == approx(stored), section
            values_undefined = {key for key in current.undefined if not _is_significance(key)}
            assert values_undefined == {key for key in flat["undefined"] if not _is_significance(key)}, section
        headlines = new["benchmarks"][name]["headlines"]
        upgraded = runner.to_json(result_versions.upgrade(old))["benchmarks"][name]["headlines"]
        assert _headline_numbers(headlines) == approx(_headline_numbers(upgraded))
        # What the current run drew: the benchmark's blocks, each headline's count of them.
        assert new["benchmarks"][name]["resampling"]["unit"] == {
            "winogender": "pair_id", "dawinobias": "pair_id", "gap": "id", "abc": "triplet_id"
        }[name]  # fmt: skip

    # summary.csv: the same values; the report: the same rows in every table, cut to their values.
    def summary_values(results):
        columns = [column for column in run_outputs.SUMMARY_COLUMNS if column not in SIGNIFICANCE_FIELDS]
        rows = run_outputs.summary_rows(result_versions.upgrade(results))
        return [{column: row[column] for column in columns} for row in rows]

    assert summary_values(new) == approx(summary_values(old))
    # The fixture's summary.csv is what its results.json gives, in the columns it has.
    stored = list(csv.DictReader(io.StringIO((FIXTURES / model / "summary.csv").read_text())))
    written = list(csv.DictReader(io.StringIO(_summary_csv(old))))
    assert [{column: row[column] for column in stored[0]} for row in written] == stored
    old_tables, new_tables = (
        _report_tables((folder / "report.md").read_text()) for folder in (FIXTURES / model, rerun[model])
    )
    assert new_tables[0] == old_tables[0]
    assert new_tables[1].keys() == old_tables[1].keys()
    for section, lines in new_tables[1].items():
        assert lines >= old_tables[1][section], section
        added = {line.split("|")[1].strip() for line in lines - old_tables[1][section]}
        assert added <= ADDED_SINCE.get(section, set()), section
    assert sum(len(rows) for rows in new_tables[1].values()) > 100


def test_compare_reads_version_2_folders_as_it_reads_current_ones(rerun, data_dir):
    old = comparison.compare_runs([FIXTURES / model for model in MODELS], data_dir=data_dir, n_resamples=200)
    new = comparison.compare_runs([rerun[model] for model in MODELS], data_dir=data_dir, n_resamples=200)
    assert old["comparisons"] == new["comparisons"]  # both rescored from their instances by the current code
    # The runs' own headline scores, but their significance, which version 5 draws by blocks.
    for label, rows in new["scores"].items():
        assert [_without_significance(row) for row in rows] == approx(
            [_without_significance(row) for row in old["scores"][label]]
        )
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
    summary = run_outputs.summary_rows(result_versions.upgrade(_results(FIXTURES / "stereotype")))
    defined = [row for row in summary if row["value"] is not None]
    assert len(defined) >= 8
    for row in defined:
        assert board[score_column(row)].tolist() == [row["value"]] * 2, score_column(row)


FIXTURES_V5 = Path(__file__).resolve().parent / "fixtures" / "results_v5" / "stereotype"
BENCHMARKS_V5 = ["winopron", "winogender"]


@pytest.fixture(scope="module")
def rerun_v5(exported_set, tmp_path_factory) -> dict[str, Path]:
    """The version-5 fixture's run, and the random baseline's, made by the current code."""
    folders = {exported_set(name).parent for name in BENCHMARKS_V5}
    assert len(folders) == 1
    data_dir = folders.pop()
    root = tmp_path_factory.mktemp("v6")
    for model in MODELS:
        result = runner.run(
            f"baseline:{model}",
            BENCHMARKS_V5,
            settings=runner.RunSettings(limit=1, n_bootstrap=50, seed=0, cache_mode="off"),
            data_dir=data_dir,
            progress=False,
        )
        run_outputs.write_outputs(result, root / model, plots=False)
    return {"data_dir": data_dir, **{model: root / model for model in MODELS}}


def test_a_version_5_file_reads_as_the_same_run_written_now(rerun_v5):
    """Every section, value, interval and p-value the version-5 run wrote is what the current code writes; only the
    headlines' layout changed (version 6: the section's estimate, with the reasons its significance is null)."""
    old, new = _results(FIXTURES_V5), _results(rerun_v5["stereotype"])
    assert (old["schema_version"], new["schema_version"]) == (5, 6)

    # Version 5 named WinoPron's pronoun-set sections and keys by their old names (pronoun_gap/<config>, gap/<set>),
    # and an undefined correlation's reason called the difference a gap.
    def reworded(results):
        return json.loads(json.dumps(results).replace(" gap nor bls_pct_female", " difference nor bls_pct_female"))

    upgraded = reworded(runner.to_json(result_versions.upgrade(old)))
    _validate(upgraded)
    renamed = reworded(result_versions.metric_names(old))
    assert renamed != old and "pronoun_set_diff/double" in renamed["benchmarks"]["winopron"]["sections"]
    for name, outcome in renamed["benchmarks"].items():
        current = new["benchmarks"][name]
        assert current["sections"] == outcome["sections"] == upgraded["benchmarks"][name]["sections"], name
        assert current["resampling"] == outcome["resampling"], name
        # Every field of a version-5 headline, the same in the run now and in the file read now (a field version 6
        # leaves out, where the score reports no significance or is no bias score, was null).
        for headlines in (current["headlines"], upgraded["benchmarks"][name]["headlines"]):
            assert len(headlines) == len(outcome["headlines"])
            for item, old_item in zip(headlines, outcome["headlines"]):
                assert {key: item.get(key) for key in old_item} == old_item, name
    # summary.csv: the file the version-5 run wrote, from the file read now and from the run made now.
    stored = list(csv.DictReader(io.StringIO((FIXTURES_V5 / "summary.csv").read_text())))
    for results in (old, new):
        assert list(csv.DictReader(io.StringIO(_summary_csv(results)))) == stored


def test_compare_and_the_space_read_a_version_5_folder_as_a_current_one(rerun_v5, tmp_path):
    pair = [FIXTURES_V5, rerun_v5["random"]]
    old = comparison.compare_runs(pair, data_dir=rerun_v5["data_dir"], n_resamples=50)
    new = comparison.compare_runs(
        [rerun_v5["stereotype"], rerun_v5["random"]], data_dir=rerun_v5["data_dir"], n_resamples=50
    )
    assert old["comparisons"] == new["comparisons"] and old["scores"] == new["scores"]
    store = RunStore(tmp_path)
    shutil.copytree(FIXTURES_V5, store.runs / "20250101-000000-0000000a")
    shutil.copytree(rerun_v5["stereotype"], store.runs / "20260101-000000-0000000b")
    board = store.leaderboard()
    summary = run_outputs.summary_rows(result_versions.upgrade(_results(FIXTURES_V5)))
    defined = [row for row in summary if row["value"] is not None]
    assert len(defined) >= 6
    for row in defined:
        assert board[score_column(row)].tolist() == [row["value"]] * 2, score_column(row)
