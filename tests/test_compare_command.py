"""``corefbias compare`` over real run folders: invariants, refusals, the CLI and its outputs."""

import json
import shutil

import numpy as np
import pytest

from corefbias import cli
from corefbias.harness import comparison, result_versions, run_outputs, runner
from corefbias.measures.blocks import Blocks
from corefbias.models.base import Choice

BENCHMARKS = ["winogender", "counter_gap"]
LIMIT = 80


@pytest.fixture(scope="module")
def runs(exported_set, tmp_path_factory):
    """Run folders of three baselines on the first LIMIT units, and the data folder they read."""
    data_dir = exported_set(BENCHMARKS[0]).parent
    for name in BENCHMARKS[1:]:
        exported_set(name)
    root = tmp_path_factory.mktemp("runs")
    folders = {}
    for name, limit in (("oracle", LIMIT), ("random", LIMIT), ("stereotype", LIMIT), ("short", LIMIT // 2)):
        spec = "baseline:oracle" if name == "short" else f"baseline:{name}"
        result = runner.run(
            spec,
            BENCHMARKS,
            settings=runner.RunSettings(limit=limit, n_bootstrap=100),
            data_dir=data_dir,
            cache_path=root / "cache.sqlite",
            progress=False,
        )
        run_outputs.write_outputs(result, root / name, plots=False)
        folders[name] = root / name
    return folders, data_dir


def _differences(result, index=0):
    return {(row["benchmark"], row["key"]): row for row in result["comparisons"][index]["differences"]}


def test_a_run_against_a_copy_of_itself_differs_by_nothing(runs, tmp_path):
    folders, data_dir = runs
    shutil.copytree(folders["random"], tmp_path / "again")
    result = comparison.compare_runs([folders["random"], tmp_path / "again"], data_dir=data_dir, n_resamples=500)
    assert [run["label"] for run in result["runs"]] == ["baseline:random (random)", "baseline:random (again)"]
    rows = _differences(result)
    assert set(rows) == {
        ("winogender", "pairs_resolved_differently"),
        ("winogender", "occupation_share_male_minus_female"),
        ("winogender", "accuracy_non_gotcha_minus_gotcha"),
        ("counter_gap", "delta_i"),
        ("counter_gap", "accuracy_diff"),
        ("counter_gap", "accuracy"),
    }
    for row in rows.values():
        assert row["difference"] == 0.0 and row["p_value"] == 1.0 and row["p_holm"] == 1.0
        assert row["significant"] is False
    assert result["comparisons"][0]["notes"] == [
        "winogender r with BLS % female: not a sum over pair_id units, so no paired test"
    ]


def test_differences_are_the_runs_own_scores_and_flip_with_the_order(runs):
    folders, data_dir = runs
    forward = comparison.compare_runs([folders["stereotype"], folders["random"]], data_dir=data_dir, n_resamples=500)
    backward = comparison.compare_runs([folders["random"], folders["stereotype"]], data_dir=data_dir, n_resamples=500)
    results = {name: json.loads((folders[name] / "results.json").read_text()) for name in ("stereotype", "random")}
    for (benchmark, key), row in _differences(forward).items():
        section = results["stereotype"]["benchmarks"][benchmark]["sections"][benchmark]
        assert row["value_a"] == pytest.approx(section[key])
        assert row["value_b"] == pytest.approx(results["random"]["benchmarks"][benchmark]["sections"][benchmark][key])
        assert row["difference"] == pytest.approx(row["value_a"] - row["value_b"])
        flipped = _differences(backward)[benchmark, key]
        assert flipped["difference"] == pytest.approx(-row["difference"]) and flipped["p_value"] == row["p_value"]
        assert row["p_value"] <= row["p_holm"] <= 1.0
        assert row["significant"] == (row["p_holm"] < 0.05)
    # The stereotype baseline resolves every Winogender pair differently; the random one far fewer.
    assert _differences(forward)["winogender", "pairs_resolved_differently"]["significant"] is True


def test_more_runs_give_every_pair_or_each_against_the_reference(runs):
    folders, data_dir = runs
    paths = [folders["oracle"], folders["random"], folders["stereotype"]]
    every = comparison.compare_runs(paths, data_dir=data_dir, n_resamples=200)
    assert [(item["a"], item["b"]) for item in every["comparisons"]] == [
        ("baseline:oracle", "baseline:random"),
        ("baseline:oracle", "baseline:stereotype"),
        ("baseline:random", "baseline:stereotype"),
    ]
    against = comparison.compare_runs(paths, reference="baseline:oracle", data_dir=data_dir, n_resamples=200)
    assert [(item["a"], item["b"]) for item in against["comparisons"]] == [
        ("baseline:random", "baseline:oracle"),
        ("baseline:stereotype", "baseline:oracle"),
    ]
    with pytest.raises(ValueError, match="matches 0 of the runs"):
        comparison.compare_runs(paths, reference="nobody", data_dir=data_dir)


def test_runs_on_different_items_or_data_are_refused(runs, tmp_path):
    folders, data_dir = runs
    with pytest.raises(ValueError, match=r"counter_gap|winogender: baseline:oracle \(oracle\) answered \d+ instances"):
        comparison.compare_runs([folders["oracle"], folders["short"]], data_dir=data_dir)

    fingerprinted = tmp_path / "fingerprinted"
    shutil.copytree(folders["random"], fingerprinted)
    results = json.loads((fingerprinted / "results.json").read_text())
    results["provenance"] = {"datasets": {"winogender": {"fingerprint": "other"}}}
    (fingerprinted / "results.json").write_text(json.dumps(results))
    # Folders as other corefbias versions wrote them, without a manifest of what their run wrote.
    (fingerprinted / run_outputs.MANIFEST).unlink()
    source = json.loads((folders["oracle"] / "results.json").read_text())
    source["provenance"] = {"datasets": {"winogender": {"fingerprint": "this"}}}
    oracle = tmp_path / "oracle"
    shutil.copytree(folders["oracle"], oracle)
    (oracle / "results.json").write_text(json.dumps(source))
    (oracle / run_outputs.MANIFEST).unlink()
    with pytest.raises(ValueError, match="different versions of the data set"):
        comparison.compare_runs([oracle, fingerprinted], data_dir=data_dir)

    regolded = tmp_path / "regolded"
    shutil.copytree(folders["random"], regolded)
    lines = (regolded / "instances" / "winogender.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["gold"] = [not value for value in first["gold"]]
    (regolded / "instances" / "winogender.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    (regolded / run_outputs.MANIFEST).unlink()
    with pytest.raises(ValueError, match="different gold answers"):
        comparison.compare_runs([folders["oracle"], regolded], data_dir=data_dir)

    with pytest.raises(ValueError, match="no results.json"):
        comparison.compare_runs([folders["oracle"], tmp_path], data_dir=data_dir)


def test_cli_writes_the_report_table_and_forest_plot(runs, tmp_path, capsys):
    folders, data_dir = runs
    out = tmp_path / "out"
    status = cli.main(
        [
            "compare",
            str(folders["stereotype"]),
            str(folders["oracle"]),
            "--data-dir",
            str(data_dir),
            "--n-resamples",
            "300",
            "--out",
            str(out),
        ]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "A = baseline:stereotype, B = baseline:oracle (p Holm-adjusted" in printed
    report = (out / "comparison.md").read_text()
    assert "Holm" in report and "| winogender | pairs resolved differently | 1.000 | 0.000 | 1.000* |" in report
    assert (out / "forest.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads((out / "comparison.json").read_text())
    assert saved["adjustment"] == "holm" and len(saved["scores"]) == 2
    assert cli.main(["compare", str(folders["oracle"]), "--data-dir", str(data_dir)]) == 2
    assert "at least two run folders" in capsys.readouterr().err


def test_benchmarks_one_run_did_not_run_are_left_out_and_named(runs, tmp_path, capsys):
    """A Winogender-only run against a Winogender and Counter-GAP run: Counter-GAP is neither tested nor drawn,
    and the console and comparison.md say so and why."""
    from corefbias.harness import comparison_report

    folders, data_dir = runs
    alone = runner.run(
        "baseline:oracle",
        ["winogender"],
        settings=runner.RunSettings(limit=LIMIT, n_bootstrap=100),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    run_outputs.write_outputs(alone, tmp_path / "alone", plots=False)
    out = tmp_path / "out"
    arguments = ["compare", str(tmp_path / "alone"), str(folders["stereotype"]), "--data-dir", str(data_dir)]
    assert cli.main([*arguments, "--n-resamples", "200", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "1 benchmark not run by both runs is left out (no paired test, not drawn): counter_gap" in printed
    assert "1 shared headline has no paired test" in printed  # r with BLS % female
    saved = json.loads((out / "comparison.json").read_text())
    assert saved["left_out"] == [{"benchmark": "counter_gap", "run_by": ["baseline:stereotype"]}]
    # Nothing checked the left-out Counter-GAP scores against the instances, so they are not reported either.
    assert {row["benchmark"] for rows in saved["scores"].values() for row in rows} == {"winogender"}
    assert {row["benchmark"] for row in saved["comparisons"][0]["differences"]} == {"winogender"}
    drawn = comparison_report.drawn_headlines(saved)
    assert drawn and {benchmark for benchmark, _ in drawn} == {"winogender"}
    assert "- counter_gap: run only by `baseline:stereotype`" in (out / "comparison.md").read_text()


class AbstainingOn:
    """Chooses the first candidate, and no candidate (an unlinked pronoun) in pairs whose id ends in ``digit``."""

    reads_gold = False

    def __init__(self, digit: str):
        self.name, self.digit = f"abstaining-{digit}", digit
        self.identity = {"kind": "test", "name": self.name}

    def choose(self, instances, task):
        return [Choice(None if instance["pair_id"].endswith(self.digit) else 0) for instance in instances]


def test_runs_leaving_out_different_unlinked_pairs_are_compared_over_every_pair_either_kept(
    exported_set, mirror, tmp_path
):
    data_dir = exported_set("dawinobias").parent
    folders, stored = {}, {}
    for digit in ("1", "2", "3"):
        result = runner.run(
            f"test:abstaining-{digit}",
            ["dawinobias"],
            settings=runner.RunSettings(n_bootstrap=0),
            data_dir=data_dir,
            mirror=mirror,
            cache_path=tmp_path / "cache.sqlite",
            progress=False,
            model=AbstainingOn(digit) if digit != "3" else AbstainingOn("1"),
        )
        folders[digit] = tmp_path / digit
        run_outputs.write_outputs(result, folders[digit], plots=False)
        stored[digit] = result.runs["dawinobias"].sections["dawinobias"]
    # The two models leave out as many pairs, but not the same ones: rows must line up by pair, not by count.
    assert stored["1"]["num_pairs"] == stored["2"]["num_pairs"] < 674

    def by_section(result):
        return {(row["section"], row["key"]): row for row in result["comparisons"][0]["differences"]}

    result = comparison.compare_runs([folders["1"], folders["2"]], data_dir=data_dir, n_resamples=500)
    rows = by_section(result)
    for key in ("log2_ratio", "diff"):
        row = rows["dawinobias", key]
        assert row["value_a"] == pytest.approx(stored["1"][key]) and row["value_b"] == pytest.approx(stored["2"][key])
        assert row["difference"] == pytest.approx(stored["1"][key] - stored["2"][key])
        assert row["num_units"] == 674  # no pair is left out by both
        assert row["ci_low"] <= row["difference"] <= row["ci_high"]
    assert not any("Gender Effect Size" in note for note in result["comparisons"][0]["notes"])

    same = by_section(comparison.compare_runs([folders["1"], folders["3"]], data_dir=data_dir, n_resamples=500))
    assert same["dawinobias", "log2_ratio"]["difference"] == 0.0 and same["dawinobias", "log2_ratio"]["p_value"] == 1.0
    assert same["dawinobias", "log2_ratio"]["num_units"] == stored["1"]["num_pairs"]


def test_unit_rows_line_up_by_unit_with_zeros_where_a_run_left_a_unit_out():
    unit_rows = comparison.resampling.UnitRows
    a = unit_rows(np.array([[1.0, 1.0], [0.0, 1.0]]), None, ("x",), np.array([0, 2]))
    b = unit_rows(np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 1.0]]), None, ("x",), np.array([1, 2, 3]))
    rows_a, rows_b, blocks = comparison.aligned_rows(a, b)
    assert rows_a.tolist() == [[1, 1], [0, 0], [0, 1], [0, 0]]
    assert rows_b.tolist() == [[0, 0], [1, 1], [1, 1], [0, 1]]
    assert blocks is None
    # With blocks, each unit keeps its block, from whichever run kept it: units 0 and 1 in one block, 2 and 3 in two.
    a_blocked = unit_rows(a.rows, None, ("x",), a.unit_positions, Blocks(np.array([[0], [1]])))
    b_blocked = unit_rows(b.rows, None, ("x",), b.unit_positions, Blocks(np.array([[0], [1], [2]])))
    assert comparison.aligned_rows(a_blocked, b_blocked)[2].levels.tolist() == [[0], [0], [1], [2]]
    unpositioned = unit_rows(np.ones((3, 2)), None, ("x",))
    assert comparison.aligned_rows(a, unpositioned) is None
    assert comparison.aligned_rows(unpositioned, unpositioned)[0].shape == (3, 2)


def _edited_copy(folder, destination, edit):
    """A copy of a run folder whose results.json ``edit`` changed, without the manifest that would refuse it (as a
    folder of a corefbias before manifests, or one whose manifest was deleted, is)."""
    shutil.copytree(folder, destination)
    results = json.loads((destination / "results.json").read_text())
    edit(results)
    (destination / "results.json").write_text(json.dumps(results))
    (destination / run_outputs.MANIFEST).unlink()
    return destination


def _headline(results, benchmark, key):
    return next(item for item in results["benchmarks"][benchmark]["headlines"] if item["key"] == key)


def _set_headline_value(benchmark, key, value):
    def edit(results):
        _headline(results, benchmark, key)["value"] = value

    return edit


def _set_section_value(benchmark, key, value):
    def edit(results):
        results["benchmarks"][benchmark]["sections"][benchmark][key] = value

    return edit


def _set_everywhere(benchmark, key, value):
    """The value in the headline, the flat section and its measure_result alike: consistent, but not the instances'."""

    def edit(results):
        _set_headline_value(benchmark, key, value)(results)
        _set_section_value(benchmark, key, value)(results)
        results["benchmarks"][benchmark]["sections"][benchmark]["measure_result"]["overall"][key]["value"] = value

    return edit


def _reverse_interval(benchmark, key):
    def edit(results):
        section = results["benchmarks"][benchmark]["sections"][benchmark]
        estimate = section["measure_result"]["overall"][key]
        for copy, low, high in (
            (_headline(results, benchmark, key), "ci_low", "ci_high"),
            (estimate, "ci_low", "ci_high"),
            (section, f"{key}_ci_low", f"{key}_ci_high"),
        ):
            copy[low], copy[high] = copy[high], copy[low]

    return edit


def _set_unbiased(benchmark, key, value):
    def edit(results):
        _headline(results, benchmark, key)["unbiased_value"] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # The headline compare reports and draws; before, only the section's measure_result was checked.
        (_set_headline_value("counter_gap", "delta_i", 0.5), r"gives ΔI as 0.5 in its headline, but its instances"),
        (_set_section_value("counter_gap", "delta_i", 0.5), r"gives ΔI as 0.5 in its counter_gap section's delta_i"),
        # Winogender's r is no sum over units, so no paired test: before, it was never checked at all.
        (_set_everywhere("winogender", "pearson_r_bls", 0.99), r"gives r with BLS % female as 0.99 in its headline"),
        (
            _reverse_interval("counter_gap", "delta_i"),
            r"gives ΔI's 95% CI as \[[-\d.]+, [-\d.]+\], which is not an interval",
        ),
        (_set_unbiased("counter_gap", "delta_i", 0.5), r"gives ΔI's unbiased value as 0.5, but counter_gap declares 0"),
    ],
)
def test_a_results_json_its_instances_do_not_give_is_refused_naming_the_score(runs, tmp_path, edit, expected):
    folders, data_dir = runs
    edited = _edited_copy(folders["random"], tmp_path / "edited", edit)
    with pytest.raises(ValueError, match=expected) as refused:
        comparison.compare_runs([edited, folders["stereotype"]], data_dir=data_dir, n_resamples=50)
    message = str(refused.value)
    # The way out is to run or score the folder again, not to delete the manifest that guards it.
    assert "corefbias score --benchmark" in message and "--format instances" in message and "manifest" not in message
    # Either order of the runs is refused alike.
    with pytest.raises(ValueError, match=expected):
        comparison.compare_runs([folders["stereotype"], edited], data_dir=data_dir, n_resamples=50)


def test_cli_refuses_an_edited_headline_in_one_line_and_writes_nothing(runs, tmp_path, capsys):
    folders, data_dir = runs
    edited = _edited_copy(folders["random"], tmp_path / "edited", _set_headline_value("counter_gap", "delta_i", 0.5))
    out = tmp_path / "out"
    arguments = [str(edited), str(folders["stereotype"]), "--data-dir", str(data_dir), "--out", str(out)]
    assert cli.main(["compare", *arguments, "--n-resamples", "50"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("corefbias: counter_gap: baseline:random's results.json") and error.count("\n") == 1
    assert "xerr" not in error and not out.exists()  # before: comparison.json with the edited 0.5, then matplotlib


def test_a_path_to_a_results_json_is_refused_naming_its_run_folder(runs):
    folders, data_dir = runs
    with pytest.raises(ValueError, match=r"results.json names a results file: give the run folder \(.*random\)"):
        comparison.compare_runs([folders["oracle"], folders["random"] / "results.json"], data_dir=data_dir)
    with pytest.raises(ValueError, match=r"summary.csv is a file, not a run folder"):
        comparison.compare_runs([folders["oracle"], folders["random"] / "summary.csv"], data_dir=data_dir)


def _one_headline_result(ci_low, value, ci_high):
    row = {"benchmark": "gap", "score": "acc-Bias (F/M)", "value": value, "ci_low": ci_low, "ci_high": ci_high}
    return {
        "runs": [{"label": "a", "path": "a"}],
        "n_resamples": 10,
        "significance_level": 0.05,
        "comparisons": [],
        "left_out": [],
        "scores": {"a": [{**row, "unbiased_value": 1.0}]},
    }


def test_forest_plot_draws_a_value_outside_its_percentile_interval(tmp_path):
    """A percentile interval of a skewed score need not hold the value; before, matplotlib refused the negative
    error bar ("'xerr' must not contain negative values")."""
    from corefbias.harness import comparison_report

    path = comparison_report.forest_plot(_one_headline_result(1.1, 1.0, 1.4), tmp_path / "forest.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_refuses_a_reversed_interval_before_writing_anything(tmp_path):
    from corefbias.harness import comparison_report

    with pytest.raises(ValueError, match=r"a's gap acc-Bias \(F/M\) has the 95% CI \[1.4, 1.1\], low above high"):
        comparison_report.write(_one_headline_result(1.4, 1.2, 1.1), tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_scores_of_another_config_are_compared_on_that_config(exported_set, mirror, tmp_path):
    # Before: "the runs answered 398 instances but the exported set has only 0 of them" (the set's own config read).
    from corefbias.harness.prediction_files import scoring

    published = mirror / "abc_dadebias_fork" / "outputs/coref/xlm-r_coref_da.json"
    data_dir = exported_set("abc").parent
    for mode in ("cluster", "any_cluster"):
        result = scoring.score(
            "abc", [published], config="original", mode=mode, data_dir=data_dir, mirror=mirror, n_bootstrap=50
        )
        run_outputs.write_outputs(result, tmp_path / mode, plots=False)
    result = comparison.compare_runs(
        [tmp_path / "cluster", tmp_path / "any_cluster"], data_dir=data_dir, n_resamples=200
    )
    rows = _differences(result)
    assert set(rows) == {("abc", "log2_fpr_ratio"), ("abc", "tpr_reflexive")}
    # XLM-R's clusters give the same links counted either way on these sentences: no difference at all.
    assert all(row["difference"] == 0.0 and row["ci_low"] == row["ci_high"] == 0.0 for row in rows.values())


def _old_names(results):
    """``results`` as a corefbias before the metrics' names wrote it: WinoPron's ``pronoun_set_diff/<config>`` sections
    named ``pronoun_gap/<config>`` (in the sections, the headlines and the resampling record), their measure
    ``pronoun_set_gap`` and their keys ``gap/<set>`` (``diff/<set>`` now), the metric module ``pronoun_set_gap``."""

    def old(name):
        return name.replace("pronoun_set_diff", "pronoun_gap", 1)

    def old_keys(section):
        text = json.dumps(section).replace('"diff/', '"gap/').replace('"occupation_diff/', '"occupation_gap/')
        return json.loads(text.replace('"measure": "pronoun_set_diff"', '"measure": "pronoun_set_gap"'))

    results["schema_version"] = result_versions.FIRST_VERSION_WITH_METRIC_NAMES - 1
    for outcome in results["benchmarks"].values():
        outcome["sections"] = {
            old(name): old_keys(section) if name != old(name) else section
            for name, section in outcome["sections"].items()
        }
        for headline in outcome["headlines"]:
            if headline["section"] != old(headline["section"]):
                headline["section"], headline["key"] = (
                    old(headline["section"]),
                    headline["key"].replace("diff/", "gap/"),
                )
        resampled = outcome["resampling"]["sections"]
        outcome["resampling"]["sections"] = {old(name): drawn for name, drawn in resampled.items()}
        outcome["metric_modules"] = [
            name.replace("pronoun_set_diff", "pronoun_set_gap") for name in outcome["metric_modules"]
        ]


def test_a_file_naming_sections_by_a_measures_old_name_loads_in_compare_under_the_metrics_name(exported_set, tmp_path):
    data_dir = exported_set("winopron").parent
    for name in ("stereotype", "random"):
        result = runner.run(
            f"baseline:{name}",
            ["winopron"],
            settings=runner.RunSettings(limit=1, n_bootstrap=50),
            data_dir=data_dir,
            cache_path=tmp_path / "cache.sqlite",
            progress=False,
        )
        run_outputs.write_outputs(result, tmp_path / name, plots=False)
    old = _edited_copy(tmp_path / "stereotype", tmp_path / "old", _old_names)
    stored = json.loads((old / "results.json").read_text())["benchmarks"]["winopron"]
    assert {"pronoun_gap/double", "pronoun_gap/single", "pronoun_gap/old"} <= set(stored["sections"])
    assert "gap/they" in stored["sections"]["pronoun_gap/double"] and "pronoun_set_gap" in stored["metric_modules"]

    read = run_outputs.read_results(old, check="results")["benchmarks"]["winopron"]
    current = run_outputs.read_results(tmp_path / "stereotype")["benchmarks"]["winopron"]
    assert {"pronoun_set_diff/double", "pronoun_set_diff/single", "pronoun_set_diff/old"} <= set(read["sections"])
    assert not any(name.startswith("pronoun_gap") for name in read["sections"])
    assert (
        read["sections"]["pronoun_set_diff/double"]["diff/they"]
        == current["sections"]["pronoun_set_diff/double"]["diff/they"]
    )
    for key in ("sections", "headlines", "resampling", "metric_modules"):
        assert read[key] == current[key], key

    from_old = comparison.compare_runs([old, tmp_path / "random"], data_dir=data_dir, n_resamples=200)
    from_current = comparison.compare_runs(
        [tmp_path / "stereotype", tmp_path / "random"], data_dir=data_dir, n_resamples=200
    )
    assert from_old["comparisons"][0]["differences"] == from_current["comparisons"][0]["differences"]
    sections = {row["section"] for row in from_old["comparisons"][0]["differences"]}
    assert {"pronoun_set_diff/double", "pronoun_set_diff/single"} <= sections
