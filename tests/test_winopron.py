"""WinoPron: the export against upstream's own scripts (verification.py, prep_old_templates.py), the scores against
upstream's Scorer (compute_performance.py) and its tests (test_metrics.py), the benchmark's runs, calibration and
Explore view."""

import csv
import importlib.util
import io
import subprocess
import sys
import zipfile
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from dataset_harness import assert_export_layout, assert_spans_match
from metric_harness import assert_add_batch_equivalent, assert_num_process_equivalent, load

from corefbias.benchmarks import BENCHMARKS, rows_of
from corefbias.benchmarks.winopron import files
from corefbias.benchmarks.winopron.decisions import winopron_answer
from corefbias.harness import executors, runner
from corefbias.harness.benchmark_data import load_part
from corefbias.measures import comparison
from corefbias.measures.winopron_accuracy import CASES, FILTERS, PAIRINGS, winopron_accuracy
from corefbias.models.baselines import NearestBaseline, RandomBaseline, StereotypeBaseline

CONFIGS = ("double", "single", "old")
UPSTREAM_FILES = {"double": "double.tsv", "single": "single.tsv", "old": "double_old.tsv"}
NOUN = {"occupation": "occupation", "participant": "participant"}
# Upstream's scorer divides 0 by 0 for a filter its test cases leave empty; the NaN is compared, the warning not.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in scalar divide:RuntimeWarning")


@pytest.fixture(scope="module")
def upstream_dir(mirror):
    return mirror / "winopron"


@pytest.fixture(scope="module")
def scorer_class(upstream_dir):
    """Upstream's Scorer, executed from the mirror (runs unpatched on pandas 3)."""
    spec = importlib.util.spec_from_file_location(
        "winopron_compute_performance", upstream_dir / "scripts/compute_performance.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Scorer


@pytest.fixture(scope="module")
def upstream_rows(upstream_dir, tmp_path_factory, mirror):
    """double.tsv, single.tsv and double_old.tsv as upstream's own scripts write them from the unzipped templates."""
    work = tmp_path_factory.mktemp("winopron_upstream")
    with zipfile.ZipFile(upstream_dir / "data.zip") as archive:
        archive.extractall(work, pwd=files.password(mirror))
    for script, templates in (("verification.py", "new_templates.tsv"), ("prep_old_templates.py", "old_templates.tsv")):
        subprocess.run([sys.executable, str(upstream_dir / "scripts" / script), templates], cwd=work, check=True)
    return {
        config: list(csv.DictReader(io.StringIO((work / name).read_text(encoding="utf-8")), delimiter="\t"))
        for config, name in UPSTREAM_FILES.items()
    }


@pytest.fixture(scope="module")
def parts(exported_set, mirror):
    data_dir = exported_set("winopron").parent
    benchmark = BENCHMARKS["winopron"]
    return {part: load_part(benchmark, *part, data_dir, mirror).to_dict() for part in benchmark.parts}


def noun_of(answer: str, occupation: str, participant: str) -> str:
    return {"occupation": occupation, "participant": participant}.get(answer, "")


def upstream_scores(scorer_class, columns: dict, answers: list[str]) -> dict:
    """Every score upstream's compute_performance.py prints, for these answers, by our key names."""
    frame = pd.DataFrame(
        {
            "occupation": columns["occupation"],
            "participant": columns["participant"],
            "pronoun": [pronoun["text"] for pronoun in columns["pronoun"]],
            "pronoun_type": columns["pronoun_type"],
            "answer": [noun_of(*row) for row in zip(columns["answer"], columns["occupation"], columns["participant"])],
            "generation": [noun_of(*row) for row in zip(answers, columns["occupation"], columns["participant"])],
        }
    )
    scorer = scorer_class(frame)
    found = {}
    for pairing in PAIRINGS:
        scorer.pairing = pairing
        for kept in FILTERS:
            scorer.filtering = kept
            prefix = "" if pairing is None else f"paired_{pairing}/"
            suffix = "" if kept is None else f"/{kept}"
            found[f"{prefix}precision{suffix}"] = scorer.get_precision()
            found[f"{prefix}recall{suffix}"] = scorer.get_recall()
            found[f"{prefix}f1{suffix}"] = scorer.get_f1()
            found[f"{prefix}accuracy{suffix}"] = scorer.get_accuracy()
    return found


def our_scores(columns: dict, answers: list[str]) -> dict:
    return winopron_accuracy(
        answers,
        columns["answer"],
        columns["occupation"],
        columns["participant"],
        columns["pronoun_set"],
        columns["case"],
        n_bootstrap=0,
    )


def baseline_answers(model, columns: dict, task) -> list[str]:
    decisions = [executors.choice_output(choice) for choice in model.choose(rows_of(columns), task)]
    links = [
        [choice["choice"] == index for index in range(len(row))]
        for choice, row in zip(decisions, columns["candidates"])
    ]
    return [winopron_answer(decision, gold) for decision, gold in zip(links, columns["answer"])]


# The export.


def test_export_layout_and_the_upstream_row_counts(exported_set, loaded_set):
    assert_export_layout(
        exported_set("winopron"), {config: ["test"] for config in CONFIGS}, license_id="agpl-3.0", default="double"
    )
    counts = {config: loaded_set("winopron", config)["test"].num_rows for config in CONFIGS}
    assert counts == {"double": 1440, "single": 1440, "old": 480}
    double = loaded_set("winopron", "double")["test"]
    assert len(set(double["template_row"])) == 360 and len(set(double["schema_id"])) == 180
    assert Counter(double["pronoun_set"]) == dict.fromkeys(files.PRONOUN_SETS, 360)
    assert Counter(zip(double["case"], double["answer"])) == {
        (case, answer): 240 for case in ("nom", "acc", "poss") for answer in ("occupation", "participant")
    }
    assert len(set(double["occupation"])) == 60
    for config in CONFIGS:
        assert_spans_match(loaded_set("winopron", config))


@pytest.mark.reproduction
def test_every_sentence_is_the_one_upstreams_own_scripts_write(parts, upstream_rows):
    for config in CONFIGS:
        ours, theirs = parts[config, "test"], upstream_rows[config]
        assert len(ours["id"]) == len(theirs)
        for index, row in enumerate(theirs):
            assert ours["text"][index] == row["sentence"], (config, index)
            assert ours["pronoun"][index]["text"] == row["pronoun"], (config, index)
            assert ours["pronoun_type"][index] == row["pronoun_type"], (config, index)
            assert (ours["occupation"][index], ours["participant"][index]) == (row["occupation"], row["participant"])
            answer = noun_of(ours["answer"][index], ours["occupation"][index], ours["participant"][index])
            assert answer == row["answer"], (config, index)


def test_candidates_are_the_mentions_and_single_entity_rows_name_only_the_referent(parts):
    for config in CONFIGS:
        columns = parts[config, "test"]
        for row in rows_of(columns):
            nouns = [candidate["text"].split()[-1] for candidate in row["candidates"]]
            if config == "single":
                assert nouns == [row[row["answer"]]] and row["candidates"][0]["is_referent"], row["id"]
            else:
                assert nouns == [row["occupation"], row["participant"]], row["id"]
                assert [c["is_referent"] for c in row["candidates"]] == [
                    row["answer"] == "occupation",
                    row["answer"] == "participant",
                ]


# The scores against upstream's Scorer.


@pytest.mark.reproduction
def test_upstreams_own_metric_tests_pass_and_our_scores_equal_its_scorer_on_their_cases(upstream_dir, monkeypatch):
    monkeypatch.syspath_prepend(str(upstream_dir))
    spec = importlib.util.spec_from_file_location("winopron_test_metrics", upstream_dir / "test_metrics.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cases = [name for name in dir(module) if name.startswith("test_")]
    assert len(cases) == 9
    frames = []
    real_scorer = module.Scorer

    def recording(frame):
        frames.append(frame.copy())
        return real_scorer(frame)

    monkeypatch.setattr(module, "Scorer", recording)
    for name in cases:
        getattr(module, name)()  # upstream's own asserts
    assert len(frames) == 9
    for frame in frames:
        rows = list(frame.itertuples())
        roles = [{row.occupation: "occupation", row.participant: "participant"} for row in rows]
        answers = [role.get(str(row.generation), "neither") for role, row in zip(roles, rows)]
        columns = {
            "occupation": list(frame["occupation"]),
            "participant": list(frame["participant"]),
            "pronoun": [{"text": pronoun} for pronoun in frame["pronoun"]],
            "pronoun_type": list(frame["pronoun_type"]),
            "answer": [role[row.answer] for role, row in zip(roles, rows)],
            "pronoun_set": [{"his": "he", "him": "he", "her": "she"}.get(p, p) for p in frame["pronoun"]],
            "case": [files.CASES[kind] for kind in frame["pronoun_type"]],
        }
        ours = our_scores(columns, answers)
        upstream = upstream_scores(real_scorer, columns, answers)
        for key, value in upstream.items():
            # A filter with no instance: upstream divides 0 by 0, or (precision) calls it fully precise; we leave it
            # undefined.
            if np.isnan(value) or np.isnan(upstream[key.replace("precision", "recall")]):
                assert ours[key] is None and key in ours["undefined"]
            else:
                assert ours[key] == pytest.approx(value, abs=1e-12), key


@pytest.mark.reproduction
@pytest.mark.parametrize("config", CONFIGS)
def test_scores_equal_upstreams_scorer_on_every_filter_and_pairing(config, parts, scorer_class):
    columns = parts[config, "test"]
    task = BENCHMARKS["winopron"].task
    rng = np.random.default_rng(5)
    answer_sets = {
        "random answers": list(rng.choice(["occupation", "participant", "neither"], size=len(columns["id"]))),
        "stereotype": baseline_answers(StereotypeBaseline(), columns, task),
        "nearest": baseline_answers(NearestBaseline(), columns, task),
        "gold": list(columns["answer"]),
    }
    for label, answers in answer_sets.items():
        ours = our_scores(columns, answers)
        theirs = upstream_scores(scorer_class, columns, answers)
        assert len(theirs) == 96
        mismatched = {key: (ours[key], value) for key, value in theirs.items() if ours[key] != pytest.approx(value)}
        assert mismatched == {}, label


def test_the_metric_module_is_the_measure(in_repo, parts):
    columns = parts["old", "test"]
    rng = np.random.default_rng(3)
    inputs = {
        "predictions": list(rng.choice(["occupation", "participant", "neither"], size=len(columns["id"]))),
        "references": columns["answer"],
        "occupations": columns["occupation"],
        "participants": columns["participant"],
        "pronoun_sets": columns["pronoun_set"],
        "cases": columns["case"],
    }
    single = assert_add_batch_equivalent("winopron_accuracy", inputs, [100, 250, 130], n_bootstrap=50, seed=2)
    assert single == winopron_accuracy(**inputs, n_bootstrap=50, seed=2)
    assert_num_process_equivalent("winopron_accuracy", inputs, 200, n_bootstrap=50, seed=2)
    with pytest.raises(ValueError, match="unknown pronoun_sets: 'ze'"):
        load("winopron_accuracy").compute(**{**inputs, "pronoun_sets": ["ze"] * len(inputs["references"])})


def test_bad_input_is_refused_saying_what_to_fix():
    base = dict(
        predictions=["occupation"],
        references=["occupation"],
        occupations=["nurse"],
        participants=["patient"],
        pronoun_sets=["xe"],
        cases=["nom"],
        n_bootstrap=0,
    )
    with pytest.raises(ValueError, match="the two entities must differ"):
        winopron_accuracy(**{**base, "participants": ["nurse"]})
    with pytest.raises(ValueError, match="unknown cases: 'dative'"):
        winopron_accuracy(**{**base, "cases": ["dative"]})
    with pytest.raises(ValueError, match="one entry per instance"):
        winopron_accuracy(**{**base, "predictions": ["occupation", "occupation"]})
    with pytest.raises(ValueError, match=r"block_ids\[0\] is None; give every instance its block"):
        winopron_accuracy(**{**base, "block_ids": [None]})
    two = {name: value * 2 if isinstance(value, list) else value for name, value in base.items()}
    with pytest.raises(ValueError, match=r"group '\(nurse, patient, nom\)' lies in block 'a' and in block 'b'"):
        winopron_accuracy(**{**two, "pronoun_sets": ["he", "xe"], "block_ids": ["a", "b"]})


def test_an_occupation_s_schemas_are_drawn_together():
    # 12 occupations, three cases each; the system gets every case of the first six right and none of the rest:
    # drawn by (occupation, participant, case) group the accuracy's interval rests on 36 groups, by occupation on 12.
    rows = [(job, case, name) for job in range(12) for case in CASES for name in ("he", "she", "they", "xe")]
    inputs = dict(
        predictions=["occupation" if job < 6 else "participant" for job, _, _ in rows],
        references=["occupation"] * len(rows),
        occupations=[f"job{job}" for job, _, _ in rows],
        participants=["customer"] * len(rows),
        pronoun_sets=[name for _, _, name in rows],
        cases=[case for _, case, _ in rows],
        n_bootstrap=2000,
    )
    by_group = winopron_accuracy(**inputs)
    by_job = winopron_accuracy(**inputs, block_ids=inputs["occupations"])
    assert by_group["accuracy"] == by_job["accuracy"] == 0.5
    assert (by_group.overall["accuracy"].n_blocks, by_job.overall["accuracy"].n_blocks) == (36, 12)
    assert by_job["accuracy_ci_high"] - by_job["accuracy_ci_low"] > 1.3 * (
        by_group["accuracy_ci_high"] - by_group["accuracy_ci_low"]
    )


# The benchmark.


@pytest.mark.slow
def test_random_answers_show_no_significant_pronoun_set_diff_in_most_seeds(parts):
    # baseline:random picks a candidate per instance from a hash of its id: the pronoun sets of a template are
    # answered independently and alike, so no gap is real. Measured: 0 of 20 seeds significant on any of the six
    # Holm-adjusted gap headlines.
    benchmark = BENCHMARKS["winopron"]
    significant = 0
    for seed in range(20):
        model = RandomBaseline(seed)
        outputs = {
            part: [executors.choice_output(choice) for choice in model.choose(rows_of(columns), benchmark.task)]
            for part, columns in parts.items()
        }
        run = runner.score_benchmark(benchmark, parts, outputs, n_bootstrap=500, seed=seed)
        p_values = [run.sections[h.section][f"{h.key}_p_value"] for h in benchmark.headlines]
        significant += min(p_values) < 0.05
    assert significant <= 3, significant


def test_a_cluster_model_linking_they_to_a_mention_is_read_as_that_answer(parts):
    # A cluster holding the pronoun and the bare noun (no determiner) links the mention that contains it.
    benchmark = BENCHMARKS["winopron"]
    columns = parts["double", "test"]
    rows = {("double", "test"): {key: values[:8] for key, values in columns.items()}}
    outputs = []
    for row in rows_of(rows["double", "test"]):
        pronoun = (row["pronoun"]["start"], row["pronoun"]["end"])
        occupation = row["candidates"][0]
        noun_start = occupation["end"] - len(row["occupation"])
        outputs.append([[pronoun, (noun_start, occupation["end"])]])
    run = runner.score_benchmark(benchmark, rows, {("double", "test"): outputs}, n_bootstrap=0)
    answers = [winopron_answer(instance["decision"], "x") for instance in run.instances]
    assert answers == ["occupation"] * 8
    expected = np.mean([answer == "occupation" for answer in rows["double", "test"]["answer"]])
    assert run.sections["winopron/double"]["accuracy"] == expected


def test_the_explore_view_shows_templates_whose_answer_changes_with_the_pronoun_set(parts):
    benchmark = BENCHMARKS["winopron"]
    columns = parts["double", "test"]
    decisions = []
    for row in rows_of(columns):
        gold = [candidate["is_referent"] for candidate in row["candidates"]]
        decisions.append([not link for link in gold] if row["pronoun_set"] == "xe" else gold)
    instances = [
        {"decision": decision, "gold": [c["is_referent"] for c in row["candidates"]]}
        for decision, row in zip(decisions, rows_of(columns))
    ]
    cases = benchmark.explore.find(list(zip(rows_of(columns), instances)), None)
    assert len(cases) == 360
    assert cases[0]["title"].endswith("wrong for xe")
    assert [member["label"].split(" →")[0] for member in cases[0]["members"]] == list(files.PRONOUN_SETS)
    assert [member["correct"] for member in cases[0]["members"]] == [True, True, True, False]


def test_compare_pairs_two_models_gaps_over_the_same_schemas(parts):
    benchmark = BENCHMARKS["winopron"]

    def section_rows(model):
        outputs = {
            part: [executors.choice_output(choice) for choice in model.choose(rows_of(columns), benchmark.task)]
            for part, columns in parts.items()
        }
        run = runner.score_benchmark(benchmark, parts, outputs, n_bootstrap=0)
        decisions = {part: [] for part in parts}
        for instance in run.instances:
            decisions[instance["config"], instance["split"]].append(instance["decision"])
        return runner.scored_sections(benchmark, parts, decisions, None, 0, 0)

    a, b = section_rows(StereotypeBaseline()), section_rows(RandomBaseline(1))
    rows_a, rows_b = a["pronoun_set_diff/single"].unit_rows, b["pronoun_set_diff/single"].unit_rows
    result = comparison.paired_difference(rows_a.rows, rows_b.rows, rows_a.statistic, ["diff/they"], n_resamples=500)
    assert result["diff/they"].difference == pytest.approx(a["pronoun_set_diff/single"]["diff/they"] - 0.0)
    assert result["diff/they"].p_value < 0.05


def test_a_pronoun_set_without_instances_has_no_precision():
    # Upstream's "precision 1.0 when nothing is predicted" gave 1.0 for a set with no instance at all.
    result = winopron_accuracy(
        ["occupation", "participant"],
        ["occupation", "occupation"],
        ["nurse", "nurse"],
        ["patient", "patient"],
        ["he", "she"],
        ["nom", "nom"],
        n_bootstrap=0,
    )
    assert result["precision/xe"] is None and result["undefined"]["precision/xe"] == "no instance with xe was given"
    assert result["precision/acc"] is None
    assert result["precision/he"] == 1.0
