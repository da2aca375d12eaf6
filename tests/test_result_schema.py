"""results.json has a typed, versioned layout: what a run and ``corefbias score`` write validates against the
committed JSON Schema, a corrupted file does not, and files of an older corefbias are upgraded."""

import copy
import doctest
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator, ValidationError

from corefbias.benchmarks import Headline
from corefbias.harness import result_schema, result_versions, run_outputs, runner
from corefbias.harness.prediction_files import scoring
from corefbias.measures.stored_results import from_flat
from corefbias.reproduce import counter_gap as counter_gap_reproduction

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = ["winogender", "sowinobias"]


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads((REPO / "docs" / "results.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@pytest.fixture(scope="module")
def results(exported_set, mirror, tmp_path_factory) -> dict:
    """A stereotype baseline's results.json, as written to disk."""
    for name in BENCHMARKS:
        exported_set(name)
    result = runner.run(
        "baseline:stereotype",
        BENCHMARKS,
        runner.RunSettings(limit=2, n_bootstrap=50),
        mirror=mirror,
        data_dir=exported_set(BENCHMARKS[0]).parent,
        cache_path=tmp_path_factory.mktemp("cache") / "cache.sqlite",
        progress=False,
    )
    return json.loads(json.dumps(result.to_json()))


def test_a_run_validates_against_the_committed_schema(results, validator):
    validator.validate(results)
    assert results["schema_version"] == result_schema.SCHEMA_VERSION
    (headline,) = results["benchmarks"]["sowinobias"]["headlines"]
    # The stereotype baseline gets every pro instance right and every anti one wrong.
    assert (headline["label"], headline["value"], headline["unbiased_value"]) == ("accuracy pro − anti", 1.0, 0.0)


def test_a_run_says_what_its_significance_resampled_where_its_numbers_are(results, tmp_path):
    # SoWinoBias at --limit 2: 2 pairs of each adjective polarity, 4 pairs in all, in their blocks' levels.
    outcome = results["benchmarks"]["sowinobias"]
    resampling = outcome["resampling"]
    assert resampling["unit"] == "pair_id"
    assert resampling["block_columns"] == ["female_occupation", "male_occupation", "adjective"]
    drawn = resampling["sections"]["sowinobias"]
    assert drawn["units"] == 4 and len(drawn["blocks"]) == 3 and all(1 <= size <= 4 for size in drawn["blocks"])
    (headline,) = outcome["headlines"]
    assert headline["n_blocks"] == min(drawn["blocks"])
    # Winogender: 10 pairs in as many occupations as they came from; a score of pairs rests on them.
    winogender = results["benchmarks"]["winogender"]
    assert winogender["resampling"]["blocks"] == ["occupation"]
    share = next(h for h in winogender["headlines"] if h["key"] == "occupation_share_male_minus_female")
    assert share["n_blocks"] == winogender["resampling"]["sections"]["winogender"]["blocks"][0]
    # The report, summary.csv and the CLI say it beside the number.
    report = run_outputs.markdown_report(result_versions.upgrade(results), {})
    assert "| blocks |" in report and f"| {share['n_blocks']} occupation |" in report
    assert "Intervals and p-values draw whole blocks (occupation) of units (`pair_id`)" in report
    rows = run_outputs.summary_rows(result_versions.upgrade(results))
    assert {row["blocks"] for row in rows} == {"occupation", "female-stereotyped occupation × "
                                                "male-stereotyped occupation × adjective"}  # fmt: skip


def test_a_scored_predictions_file_validates_against_the_committed_schema(exported_set, mirror, validator):
    """``corefbias score`` writes settings of its own (the files, the config) and none of a model's."""
    path = mirror / "counter_gap" / f"results/none/{counter_gap_reproduction.SYSTEMS['BERT-base']}_output.tsv"
    data_dir = exported_set("counter_gap").parent
    result = scoring.score("counter_gap", [path], format="gap-tsv", data_dir=data_dir, mirror=mirror, n_bootstrap=50)
    validator.validate(json.loads(json.dumps(result.to_json())))


def _headline_value_as_text(results: dict) -> None:
    headline = results["benchmarks"]["sowinobias"]["headlines"][0]
    headline["value"] = str(headline["value"])


def _without_schema_version(results: dict) -> None:
    del results["schema_version"]


def _with_an_undeclared_key(results: dict) -> None:
    results["benchmarks"]["winogender"]["score"] = 0.5


@pytest.mark.parametrize("corrupt", [_headline_value_as_text, _without_schema_version, _with_an_undeclared_key])
def test_a_corrupted_results_file_is_rejected(results, validator, corrupt):
    corrupted = copy.deepcopy(results)
    corrupt(corrupted)
    with pytest.raises(ValidationError):
        validator.validate(corrupted)


def test_the_committed_schema_is_the_one_the_types_give():
    check = subprocess.run(
        [sys.executable, "scripts/results_schema.py", "--check"], cwd=REPO, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr


def test_headline_scores_read_value_interval_p_value_and_significance():
    section = {
        "diff": 0.25,
        "diff_p_value": 0.01,
        "diff_ci_low": 0.1,
        "diff_ci_high": 0.4,
        "log2_ratio": 0.1,
        "log2_ratio_p_value": 0.2,
        "log2_ratio_ci_low": -0.1,
        "log2_ratio_ci_high": 0.3,
        "accuracy": None,
        "accuracy_p_value": None,
        "accuracy_ci_low": None,
        "accuracy_ci_high": None,
        "undefined": {"accuracy": "no instances", "accuracy_p_value": "accuracy itself is undefined"},
    }
    headlines = [
        Headline("pro_anti", "diff", "pro − anti", 0.0),
        Headline("pro_anti", "log2_ratio", "log2(pro / anti)", 0.0),
        Headline("pro_anti", "accuracy", "accuracy", None),
        Headline("not_scored", "diff", "another section's diff", 0.0),
    ]
    scores = runner.headline_scores(headlines, {"pro_anti": from_flat(section)})
    assert [score.to_json() for score in scores] == [
        {
            "section": "pro_anti",
            "label": "pro − anti",
            "key": "diff",
            "value": 0.25,
            "undefined": None,
            "p_value": 0.01,
            "ci_low": 0.1,
            "ci_high": 0.4,
            "significance_undefined": {},
            # no n_blocks: a flat section (an evaluate module's dict) says nothing of its blocks
            "unbiased_value": 0.0,
            "significant": True,
        },
        {
            "section": "pro_anti",
            "label": "log2(pro / anti)",
            "key": "log2_ratio",
            "value": 0.1,
            "undefined": None,
            "p_value": 0.2,
            "ci_low": -0.1,
            "ci_high": 0.3,
            "significance_undefined": {},
            "unbiased_value": 0.0,
            "significant": False,
        },
        {
            "section": "pro_anti",
            "label": "accuracy",
            "key": "accuracy",
            "value": None,
            "undefined": "no instances",
            "p_value": None,
            "ci_low": None,
            "ci_high": None,
            "significance_undefined": {"p_value": "accuracy itself is undefined"},
            "significant": None,
        },
    ]
    # One record per score: the headline holds its section's estimate, with the benchmark's unbiased value.
    assert scores[0].estimate == replace(from_flat(section).overall["diff"], unbiased=0.0)


def test_a_results_file_of_an_older_corefbias_is_upgraded(results, validator):
    """Version 1: no schema version, no headlines, and each section the metric module's flat dict alone."""
    old = copy.deepcopy(results)
    del old["schema_version"]
    for outcome in old["benchmarks"].values():
        del outcome["headlines"], outcome["resampling"]
        for section in outcome["sections"].values():
            del section["measure_result"]
    upgraded = runner.to_json(result_versions.upgrade(old))
    validator.validate(upgraded)
    for name, outcome in upgraded["benchmarks"].items():
        # A version-1 file kept no blocks: the headlines are the same but for how many blocks they rest on.
        assert [
            {key: value for key, value in headline.items() if key != "n_blocks"}
            for headline in results["benchmarks"][name]["headlines"]
        ] == outcome["headlines"]
        for section, scores in outcome["sections"].items():
            # The flat items stay as they were; the structure a flat dict gives holds its scores under their keys.
            flat = old["benchmarks"][name]["sections"][section]
            assert {key: value for key, value in scores.items() if key != "measure_result"} == flat
            assert dict(result_versions.upgrade(old)["benchmarks"][name]["sections"][section]) == flat
    assert all("resampling" not in outcome for outcome in upgraded["benchmarks"].values())
    assert {key: value for key, value in upgraded.items() if key != "benchmarks"} == {
        key: value for key, value in results.items() if key != "benchmarks"
    }
    unknown = {"n_blocks": None, "blocks": None}  # what an older file cannot say
    rows = run_outputs.summary_rows(result_versions.upgrade(results))
    assert run_outputs.summary_rows(result_versions.upgrade(old)) == [{**row, **unknown} for row in rows]
    # A current file reads as it was written.
    assert runner.to_json(result_versions.upgrade(results)) == results


def test_a_results_file_of_a_newer_corefbias_is_refused(results):
    newer = {**results, "schema_version": result_schema.SCHEMA_VERSION + 1}
    with pytest.raises(ValueError, match="upgrade corefbias"):
        result_versions.upgrade(newer)


@pytest.mark.parametrize("module", [result_schema, run_outputs])
def test_the_docstring_examples_run(module):
    tried = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried.attempted and not tried.failed
