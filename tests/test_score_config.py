"""``corefbias score --config``: the parts of a benchmark of several scored alone (BUG's gold, WinoBias's type 1,
DaWinoBias's test split, one of WinoPron's template types), each giving exactly the sections the whole benchmark
gives on those parts, and the messages of a file that answers some parts or another benchmark's instances, each
naming the real cause.

Before, ``--config`` was refused for every benchmark of several parts ("--config is for benchmarks of one part"), a
file of some parts was told its other instances may be beyond ``--limit``, and WinoPron's ids given to ``winonb``
were told to try ``--config (v1)``, a config that does not hold them either.
"""

import json

import pytest

from corefbias import cli
from corefbias.benchmarks import BENCHMARKS, rows_of
from corefbias.harness import runner
from corefbias.harness.benchmark_data import load_part
from corefbias.harness.limits import limit_units
from corefbias.harness.prediction_files import PredictionFileError
from corefbias.harness.prediction_files import scoring as file_scoring
from corefbias.harness.prediction_files.scoring import part_label, selected_parts

SEVERAL_PARTS = [name for name, benchmark in BENCHMARKS.items() if len(benchmark.parts) > 1]


def alone(benchmark) -> list[tuple]:
    """The smallest selections a benchmark scores: each group its sections pool, and each part in no group."""
    pooled = {part for group in benchmark.pooled_parts for part in group}
    return [*benchmark.pooled_parts, *((part,) for part in benchmark.parts if part not in pooled)]


SELECTIONS = [(name, parts) for name in SEVERAL_PARTS for parts in alone(BENCHMARKS[name])]


@pytest.fixture(scope="module")
def data_dir(exported_set):
    folders = {exported_set(BENCHMARKS[name].dataset).parent for name in [*SEVERAL_PARTS, "winonb"]}
    assert len(folders) == 1
    return folders.pop()


def decisions_of(rows: dict) -> dict:
    """Per part, the gold links with every third instance's flipped (by position): scores off 0 and 1."""
    return {
        part: [
            [candidate["is_referent"] != (index % 3 == 0) for candidate in candidates]
            for index, candidates in enumerate(columns["candidates"])
        ]
        for part, columns in rows.items()
    }


def clusters_of(rows: dict) -> dict:
    """Per part, each instance's pronoun in one cluster with its referents, as character spans: a cluster model's
    outputs, for the scores of outputs (WinoBias's CoNLL F1, BUG's evaluate_coref.py reading)."""
    return {
        part: [
            [
                [[row["pronoun"]["start"], row["pronoun"]["end"]]]
                + [
                    [candidate["start"], candidate["end"]]
                    for candidate in row["candidates"]
                    if candidate["is_referent"]
                ]
            ]
            for row in rows_of(columns)
        ]
        for part, columns in rows.items()
    }


@pytest.mark.parametrize("name, parts", SELECTIONS, ids=lambda value: str(value))
def test_a_selection_gives_the_sections_the_whole_benchmark_gives_on_its_parts(name, parts, data_dir):
    benchmark = BENCHMARKS[name]
    loaded = {part: load_part(benchmark, *part, data_dir) for part in benchmark.parts}
    rows = {part: data.to_dict() for part, data in limit_units(loaded, benchmark, 3).items()}
    whole = runner.scored_sections(benchmark, rows, decisions_of(rows), clusters_of(rows), 0, 0)
    assert selected_parts(benchmark, [part_label(benchmark, part) for part in parts]) == parts
    some = {part: rows[part] for part in parts}
    scored = runner.scored_sections(benchmark, some, decisions_of(some), clusters_of(some), 0, 0)
    assert scored, "a selection --config accepts scores nothing"
    assert scored == {section: whole[section] for section in scored}


@pytest.mark.parametrize(
    "name, names, message",
    [
        (
            "winobias",
            ["type1_pro"],
            "winobias scores type1_pro only together with type1_anti, as its sections pool them: give --config "
            "type1_pro type1_anti",
        ),
        (
            "dawinobias",
            ["pro"],
            "dawinobias scores pro/test only together with anti/test, as its sections pool them: give --config "
            "pro/test anti/test",
        ),
        (
            "dawinobias",
            ["pro/test", "anti/test", "pro/validation"],
            "dawinobias scores pro/validation only together with anti/validation, as its sections pool them: leave "
            "--config out",
        ),
        ("bug", ["full"], "bug has no part 'full'; --config takes gold, balanced"),
    ],
)
def test_a_part_its_sections_pool_with_others_is_refused_alone_saying_with_which(name, names, message):
    with pytest.raises(ValueError) as refused:
        selected_parts(BENCHMARKS[name], names)
    assert str(refused.value) == message


def write_decisions(path, benchmark, parts, data_dir, ids=None) -> None:
    """An instances file (id, decision) of the gold links of ``parts`` (``ids``: of these instance ids only)."""
    lines = []
    for part in parts:
        for row in rows_of(load_part(benchmark, *part, data_dir).to_dict()):
            if ids is None or row["id"] in ids:
                decision = [candidate["is_referent"] for candidate in row["candidates"]]
                lines.append(json.dumps({"id": row["id"], "decision": decision}) + "\n")
    path.write_text("".join(lines), encoding="utf-8")


@pytest.mark.parametrize(
    "name, parts, names",
    [
        ("winobias", (("type1_pro", "test"), ("type1_anti", "test")), "type1_pro type1_anti"),
        ("dawinobias", (("pro", "test"), ("anti", "test")), "pro/test anti/test"),
        ("winopron", (("double", "test"),), "double"),
    ],
)
def test_a_file_of_some_parts_is_told_the_config_that_scores_them_and_is_scored_with_it(
    name, parts, names, data_dir, tmp_path, capsys
):
    benchmark = BENCHMARKS[name]
    path = tmp_path / "some.jsonl"
    write_decisions(path, benchmark, parts, data_dir)
    command = ["score", "--benchmark", name, "--predictions", str(path), "--data-dir", str(data_dir), "--no-plots"]
    assert cli.main([*command, "--n-bootstrap", "0", "--out", str(tmp_path / "refused")]) == 2
    listed = " and ".join(names.split())
    advice = "it alone" if len(parts) == 1 else "them alone"
    error = capsys.readouterr().err
    assert error.rstrip().endswith(
        f"the documents answer every instance of {listed}, and none of the other parts: score {advice} with "
        f"--config {names}"
    )
    assert "--limit" not in error
    out = tmp_path / "out"
    assert cli.main([*command, "--n-bootstrap", "0", "--out", str(out), "--config", *names.split()]) == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    rows = {part: load_part(benchmark, *part, data_dir).to_dict() for part in parts}
    gold = {part: [[c["is_referent"] for c in candidates] for candidates in rows[part]["candidates"]] for part in rows}
    links = {part: [{"decision": decision, "parsed": True} for decision in gold[part]] for part in rows}
    expected = runner.scored_sections(benchmark, rows, gold, links, 0, 0)
    written = {
        section: {key: value for key, value in scores.items() if key != "measure_result"}
        for section, scores in results["benchmarks"][name]["sections"].items()
    }
    assert written == {section: json.loads(json.dumps(dict(scored))) for section, scored in expected.items()}
    assert results["settings"]["config"] == (names if len(parts) == 1 else names.split())


def test_a_file_of_another_benchmarks_ids_is_told_which_benchmark_not_a_config(data_dir, tmp_path):
    """WinoPron's ids given to winonb: before, 'the predictions of another config of its set are scored with --config
    (v1)', though v1 does not hold them either."""
    winopron = BENCHMARKS["winopron"]
    path = tmp_path / "winopron.jsonl"
    write_decisions(path, winopron, winopron.parts, data_dir)
    with pytest.raises(PredictionFileError) as refused:
        file_scoring.score("winonb", [path], data_dir=data_dir, n_bootstrap=0)
    assert str(refused.value) == (
        "winopron.jsonl line 1 (id double.000.he): id 'double.000.he' is not an instance of winonb (expected ids "
        "such as 'v0.0000'); it is an instance of winopron (double), not of winonb: score the file with "
        "--benchmark winopron"
    )


def test_a_file_of_another_config_of_a_one_part_set_is_told_that_config(data_dir, tmp_path):
    winonb = BENCHMARKS["winonb"]
    path = tmp_path / "v1.jsonl"
    write_decisions(path, winonb, [("v1", "test")], data_dir)
    with pytest.raises(PredictionFileError, match=r"; it is an instance of the config v1 of the winonb set: score it "):
        file_scoring.score("winonb", [path], data_dir=data_dir, n_bootstrap=0)
    scored = file_scoring.score("winonb", [path], config="v1", data_dir=data_dir, n_bootstrap=0)
    assert scored.settings["config"] == "v1"


def test_an_id_of_no_set_gets_no_hint(data_dir, tmp_path):
    path = tmp_path / "unknown.jsonl"
    path.write_text(json.dumps({"id": "no-such-instance", "decision": [True, False]}) + "\n", encoding="utf-8")
    with pytest.raises(PredictionFileError) as refused:
        file_scoring.score("winonb", [path], data_dir=data_dir, n_bootstrap=0)
    assert str(refused.value).endswith("is not an instance of winonb (expected ids such as 'v0.0000')")
