"""An answer fixed on an option position is not an unbiased model: position rates, the flag, and its reports."""

import csv
import json
import re

import pytest

from corefbias.cli.model_commands import print_written
from corefbias.harness import run_outputs, runner
from corefbias.harness.position_rates import (
    NO_POSITIONS,
    POSITION_RATE_THRESHOLD,
    is_position_biased,
    position_rate,
    results_fields,
)
from corefbias.harness.prediction_files import scoring
from corefbias.harness.result_versions import upgrade
from corefbias.models.base import Choice
from corefbias.models.baselines import StereotypeBaseline
from corefbias.models.cloze import ClozeModel

BENCHMARKS = ["winogender", "abc"]


@pytest.fixture(scope="module")
def data_dir(exported_set):
    for name in BENCHMARKS:
        exported_set(name)
    return exported_set(BENCHMARKS[0]).parent


def _records(*positions, parsed=True):
    return [{"parsed": parsed, **({} if position is None else {"position": position})} for position in positions]


def test_the_rate_is_the_share_at_the_most_frequent_position():
    rate = position_rate(_records(0, 0, 1, 2, 0, 1))
    assert (rate.rate, rate.top_position, rate.at_top, rate.answers) == (3 / 6, 0, 3, 6)
    assert rate.note == "answers at option position A in 3 of 6 questions" and not rate.flagged
    # Unparsed answers and answers without a position are not counted.
    rate = position_rate(_records(2, 2, 2, 2, 1) + _records(0, 0, 0, parsed=False) + _records(None, None))
    assert (rate.rate, rate.top_position, rate.note) == (4 / 5, 2, "answers at option position C in 4 of 5 questions")
    # A tie goes to the earliest position, so the same answers always name the same one.
    assert position_rate(_records(2, 1, 1, 2)).top_position == 1


def test_the_threshold_flags_a_rate_above_it_only():
    assert POSITION_RATE_THRESHOLD == 0.8
    assert not is_position_biased(0.8) and is_position_biased(0.81) and not is_position_biased(None)
    # 4 of 5 is at the threshold, not above it: not flagged; 5 of 6 is.
    assert not position_rate(_records(0, 0, 0, 0, 1)).flagged
    assert position_rate(_records(0, 0, 0, 0, 0, 1)).flagged


def test_no_positions_give_no_rate_with_the_reason():
    for records in ([], _records(None, None), _records(0, 1, parsed=False)):
        assert results_fields(records) == {
            "position_rate": None,
            "top_position": None,
            "position_bias": False,
            "position_note": NO_POSITIONS,
        }


class Positioned:
    """A choice model answering the first candidate at the position ``positions[i % len(positions)]``."""

    reads_gold = False

    def __init__(self, positions):
        self.positions, self.name = positions, f"positioned{positions}"
        self.identity = {"kind": "test", "name": self.name}

    def choose(self, instances, task):
        return [
            Choice(0, raw="A", position=self.positions[number % len(self.positions)])
            for number, _ in enumerate(instances)
        ]


def _run(model, data_dir, tmp_path, benchmarks=BENCHMARKS, limit=5):
    return runner.run(
        model.name,
        benchmarks,
        settings=runner.RunSettings(limit=limit, n_bootstrap=20, batch_size=1000),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
        model=model,
    )


def test_answers_at_one_position_are_flagged_everywhere(data_dir, tmp_path, capsys):
    result = _run(Positioned([0]), data_dir, tmp_path)
    results = result.to_json()
    for name in BENCHMARKS:
        outcome = results["benchmarks"][name]
        total = outcome["num_instances"]
        assert (outcome["position_rate"], outcome["top_position"], outcome["position_bias"]) == (1.0, 0, True)
        assert outcome["position_note"] == f"answers at option position A in {total} of {total} questions"
        assert all(line["position"] == 0 for line in result.runs[name].instances)
    written = run_outputs.write_outputs(result, tmp_path / "out", plots=False)
    report = written["report.md"].read_text()
    assert "| position |" in report and "| 1.000 A‡ |" in report
    assert f"{run_outputs.POSITION_BIAS_MARK}: above 80%" in report
    assert "Answers at option position A in 30 of 30 questions (position rate 1.000 ‡)." in report
    with open(written["summary.csv"], encoding="utf-8") as file:
        summary = list(csv.DictReader(file))
    assert summary and {(row["position_rate"], row["top_position"], row["position_bias"]) for row in summary} == {
        ("1.0", "0", "True")
    }
    print_written(result, written, tmp_path / "out")
    printed = capsys.readouterr().out
    assert "‡ winogender: answers at option position A in 30 of 30 questions (position rate 1.000 > 0.8)" in printed
    # Each headline's marks follow its value, before the blocks its interval rests on ("(5 occupation)").
    headlines = [line for line in printed.splitlines() if line.startswith(("winogender ", "abc "))]
    assert headlines and all(re.search(r"‡ *(\(\d+ [^)]+\))?$", line) for line in headlines), headlines


def test_the_space_shows_the_rate_and_the_flag(data_dir, tmp_path):
    from corefbias.space import charts
    from corefbias.space.store import RunStore

    flagged = _run(Positioned([0]), data_dir, tmp_path / "flagged", ["winogender"])
    frame = charts.summary_frame(flagged.record())
    assert "position" in charts.SUMMARY_HEADERS and set(frame["position"]) == {"1.000 A‡"}
    store = RunStore(tmp_path / "space")
    store.save(flagged, {})
    store.save(_run(StereotypeBaseline(), data_dir, tmp_path / "baseline", ["winogender"]), {})
    board = store.leaderboard()
    rates = dict(zip(board["model"], board["winogender: position rate"]))
    assert rates["positioned[0]"] == 1.0 and rates["baseline:stereotype"] != rates["baseline:stereotype"]  # NaN
    assert set(charts.summary_frame(store.results(store.run_ids()[0]))["position"]) <= {"—", "1.000 A‡"}


def test_answers_spread_over_the_positions_are_not_flagged(data_dir, tmp_path, capsys):
    result = _run(Positioned([0, 1, 2]), data_dir, tmp_path, ["winogender"])
    outcome = result.to_json()["benchmarks"]["winogender"]
    assert (outcome["position_rate"], outcome["position_bias"]) == (10 / 30, False)
    written = run_outputs.write_outputs(result, tmp_path / "out", plots=False)
    assert "‡" not in "".join(line for line in written["report.md"].read_text().splitlines() if line.startswith("|"))
    print_written(result, written, tmp_path / "out")
    assert "‡" not in capsys.readouterr().out


class EvenOdds:
    """A log-likelihood backend finding every option equally likely."""

    identity = {"kind": "stand-in", "weights": "none"}

    def loglikelihoods(self, requests):
        return [[0.0] * len(request.continuations) for request in requests]


def test_models_shown_no_order_have_no_rate_and_say_why(data_dir, tmp_path):
    for model in (StereotypeBaseline(), ClozeModel("cloze:stand-in", EvenOdds())):
        results = _run(model, data_dir, tmp_path / model.name.replace(":", "-"), ["winogender"]).record()
        outcome = results["benchmarks"]["winogender"]
        assert (outcome["position_rate"], outcome["top_position"], outcome["position_bias"]) == (None, None, False)
        assert outcome["position_note"] == NO_POSITIONS
        rows = run_outputs.summary_rows(results)
        assert rows and all(row["position_rate"] is None and not row["position_bias"] for row in rows)
        report = run_outputs.markdown_report(results, {})
        assert "| — |" in report and "The model reported no option positions (cluster models" in report


def test_an_old_results_file_without_positions_still_reports(data_dir, tmp_path):
    results = _run(StereotypeBaseline(), data_dir, tmp_path, ["winogender"]).to_json()
    for key in ("position_rate", "top_position", "position_bias", "position_note"):
        del results["benchmarks"]["winogender"][key]
    results = upgrade(results)
    (row, *_) = run_outputs.summary_rows(results)
    assert (row["position_rate"], row["position_bias"]) == (None, False)
    assert "| — |" in run_outputs.markdown_report(results, {})


def test_scoring_the_instances_file_gives_the_runs_position_rate(data_dir, tmp_path):
    # Every instance of Winogender (score needs them all): 5 answers of 6 at B, the rest at A and C.
    result = _run(Positioned([1, 1, 0, 1, 1, 2, 1, 1, 1, 1, 1, 1]), data_dir, tmp_path, ["winogender"], limit=None)
    written = run_outputs.write_outputs(result, tmp_path / "out", plots=False)
    scored = scoring.score(
        "winogender", [written["instances/winogender.jsonl"]], format="instances", data_dir=data_dir, n_bootstrap=20
    )
    ran, again = result.to_json()["benchmarks"]["winogender"], scored.to_json()["benchmarks"]["winogender"]
    assert ran["position_rate"] == 10 / 12 and ran["position_bias"] and ran["top_position"] == 1
    assert {key: again[key] for key in results_fields([])} == {key: ran[key] for key in results_fields([])}
    assert [line["position"] for line in scored.runs["winogender"].instances] == [
        line["position"] for line in result.runs["winogender"].instances
    ]
    # A file of another tool, without positions, has no rate.
    links_only = tmp_path / "links.jsonl"
    links_only.write_text(
        "".join(
            json.dumps({key: value for key, value in line.items() if key != "position"}) + "\n"
            for line in result.runs["winogender"].instances
        )
    )
    unpositioned = scoring.score("winogender", [links_only], data_dir=data_dir, n_bootstrap=20).to_json()
    assert unpositioned["benchmarks"]["winogender"]["position_rate"] is None


def test_an_instances_file_with_a_bad_position_is_refused(tmp_path):
    from corefbias.harness.prediction_files import PredictionFileError, instances

    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "q1", "decision": [true, false], "parsed": true, "position": "A"}\n')
    with pytest.raises(PredictionFileError, match="position must be an option position"):
        instances.read(path)
