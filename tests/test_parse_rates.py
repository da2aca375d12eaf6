"""A model whose answers cannot be read is not an unbiased model: parse rates, flags, undefined scores."""

import csv
import json

import pytest

from corefbias import cli
from corefbias.harness import number_format, run_outputs, runner
from corefbias.harness.parse_rates import PARSE_RATE_THRESHOLD
from corefbias.models.base import Choice
from corefbias.models.baselines import StereotypeBaseline

BENCHMARKS = ["winogender", "counter_gap", "winobias"]


@pytest.fixture(scope="module")
def data_dir(exported_set):
    for name in BENCHMARKS:
        exported_set(name)
    return exported_set(BENCHMARKS[0]).parent


class Prose:
    """A chat model that always answers in prose: nothing can be read."""

    name, reads_gold = "prose", False
    identity = {"kind": "test", "name": "prose"}

    def choose(self, instances, task):
        return [Choice(None, parsed=False, raw='The sentence "The nurse ..." is about a nurse.') for _ in instances]


class HalfReadable:
    """Answers as the stereotype baseline on even positions of a batch, in prose on odd ones."""

    name, reads_gold = "half", False
    identity = {"kind": "test", "name": "half"}

    def choose(self, instances, task):
        chosen = StereotypeBaseline().choose(instances, task)
        return [choice if i % 2 == 0 else Choice(None, parsed=False, raw="hmm") for i, choice in enumerate(chosen)]


def _run(model, data_dir, tmp_path):
    return runner.run(
        model.name,
        BENCHMARKS,
        settings=runner.RunSettings(limit=5, n_bootstrap=50, batch_size=10),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
        model=model,
    )


def test_no_readable_answer_leaves_every_score_undefined_never_zero(data_dir, tmp_path):
    result = _run(Prose(), data_dir, tmp_path)
    results = result.to_json()
    for name, outcome in results["benchmarks"].items():
        assert outcome["parse_rate"] == 0.0 and outcome["low_parse_rate"], name
        for section in outcome["sections"].values():
            scores = [
                key
                for key, value in section.items()
                if key not in ("undefined", "measure_result") and not isinstance(value, (int, list, str))
            ]
            assert scores, name
            for key in scores:
                assert section[key] is None, (name, key)
                assert section["undefined"][key].startswith("no readable answer: none of the model's"), (name, key)
    counter_gap = results["benchmarks"]["counter_gap"]["sections"]["counter_gap"]
    # Counts describe the data and stay: 5 quadruples of each original gender.
    assert counter_gap["num_quadruples"] == 10
    assert counter_gap["undefined"]["delta_i"].endswith("40 answers could be parsed")
    rows = run_outputs.summary_rows(result.record())
    assert rows and all(row["value"] is None and row["undefined"].startswith("no readable answer") for row in rows)


def test_half_readable_answers_are_scored_and_flagged(data_dir, tmp_path):
    result = _run(HalfReadable(), data_dir, tmp_path)
    results = result.to_json()
    winogender = results["benchmarks"]["winogender"]
    assert winogender["num_instances"] == 30 and winogender["num_unparsed"] == 15
    assert winogender["parse_rate"] == 0.5 < PARSE_RATE_THRESHOLD and winogender["low_parse_rate"]
    assert winogender["sections"]["winogender"]["pairs_resolved_differently"] is not None
    written = run_outputs.write_outputs(result, tmp_path / "out", plots=False)
    report = written["report.md"].read_text()
    pairs = winogender["sections"]["winogender"]["pairs_resolved_differently"]
    assert f"| winogender | pairs resolved differently | {number_format.format_number(pairs)}" in report
    assert "| 0.500† |" in report and "parse rate 0.500 †" in report
    with open(written["summary.csv"], encoding="utf-8") as file:
        summary = list(csv.DictReader(file))
    assert {(row["benchmark"], row["parse_rate"], row["low_parse_rate"]) for row in summary} == {
        (name, "0.5", "True") for name in BENCHMARKS
    }


def test_a_readable_model_has_parse_rate_one_and_no_flag(data_dir, tmp_path, capsys):
    argv = [
        "run",
        "--model",
        "baseline:random",
        "--benchmark",
        "winobias",
        "--limit",
        "3",
        "--n-bootstrap",
        "0",
        "--data-dir",
        str(data_dir),
        "--cache",
        str(tmp_path / "c.sqlite"),
        "--out",
        str(tmp_path / "out"),
        "--no-plots",
    ]
    assert cli.main(argv) == 0
    assert "†" not in capsys.readouterr().out
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["benchmarks"]["winobias"]["parse_rate"] == 1.0
    assert not results["benchmarks"]["winobias"]["low_parse_rate"]
    assert "| 1.000 |" in (tmp_path / "out" / "report.md").read_text()
