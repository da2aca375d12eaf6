"""MISGENDERED and RUFF through corefbias: their measures on hand-computed cases, what a run writes, the baselines'
calibration (a random model finds no pronoun-set gap in most seeds, the he/she-only one always does), the
refusal of coreference clusters, the whole designs built on request, and the Explore view by pronoun set."""

import datasets
import pytest

from corefbias import cli
from corefbias.benchmarks import BENCHMARKS
from corefbias.benchmarks.fill_in_sections import pronoun_set_cases
from corefbias.benchmarks.ruff import files as ruff_files
from corefbias.data import fill_in, hub_export
from corefbias.harness import executors, runner
from corefbias.harness.benchmark_data import load_part
from corefbias.harness.limits import limit_units
from corefbias.measures import resampling
from corefbias.measures.misgendered_accuracy import misgendered_accuracy
from corefbias.measures.ruff_accuracy import ruff_accuracy
from corefbias.models.base import ModelError
from corefbias.models.baselines import RandomBaseline, StereotypeBaseline

SETS = ("misgendered", "ruff")
DIFFS = ("binary_minus_gender_neutral", "binary_minus_neo_pronoun")  # each set's own section


def significant_diffs(sections: dict, name: str) -> list[str]:
    """The pronoun-set differences significant at α: each set's gap to he/she (Holm-adjusted across the sets) and
    the set's own binary − gender-neutral and binary − neo-pronoun gaps."""
    own, paired = sections[name], sections["pronoun_set_diff"]
    keys = [(own, diff) for diff in DIFFS] + [
        (paired, key) for key in paired if key.startswith("diff/") and "_" not in key
    ]
    return [key for section, key in keys if section[f"{key}_p_value"] < resampling.SIGNIFICANCE_LEVEL]


@pytest.fixture(scope="module")
def data_dir(exported_set):
    for name in SETS:
        exported_set(name)
    return exported_set("ruff").parent


@pytest.fixture(scope="module")
def quick(data_dir, mirror):
    """Each set's rows at --limit 5, as columns."""
    found = {}
    for name in SETS:
        benchmark = BENCHMARKS[name]
        parts = {part: load_part(benchmark, *part, data_dir, mirror) for part in benchmark.parts}
        found[name] = {part: data.to_dict() for part, data in limit_units(parts, benchmark, 5).items()}
    return found


def decisions_of(model, benchmark, rows):
    return {
        part: [
            [index == output["choice"] for index in range(len(candidates))]
            for output, candidates in zip(
                executors.ask(model, benchmark.task, [dict(zip(columns, values)) for values in zip(*columns.values())]),
                columns["candidates"],
            )
        ]
        for part, columns in rows.items()
    }


# 1. The measures on cases computed by hand.


def test_misgendered_accuracy_by_hand_with_gaps_paired_over_sentences():
    # Sentence s1 declares he, they and xe; s2 the same in the accusative. Right: he (s1, s2), they (s1), xe (none).
    result = misgendered_accuracy(
        ["he", "they", "he", "him", "him", None],
        ["he", "they", "xe", "him", "them", "xem"],
        ["he", "they", "xe"] * 2,
        ["nom"] * 3 + ["acc"] * 3,
        ["s1"] * 3 + ["s2"] * 3,
        pronoun_groups=["binary", "gender-neutral", "neo-pronoun"] * 2,
        declaration_kinds=["explicit"] * 3 + ["parenthetical"] * 3,
        n_bootstrap=0,
    )
    assert result["accuracy"] == pytest.approx(3 / 6)
    assert result["accuracy/pronoun_set/they"] == 0.5 and result["accuracy/form/acc"] == pytest.approx(1 / 3)
    assert result["binary_minus_gender_neutral"] == 0.5 and result["binary_minus_neo_pronoun"] == 1.0
    assert result["explicit_minus_parenthetical"] == pytest.approx(2 / 3 - 1 / 3)
    assert result["num_units"] == 2 and result["accuracy/pronoun_set/xe/form/acc"] == 0.0


def test_the_bootstrap_resamples_sentences_so_a_gap_present_in_every_sentence_has_no_spread():
    # Every sentence: he right, xe wrong. Resampling sentences cannot move the gap; it is significant.
    result = misgendered_accuracy(
        ["he", "he"] * 30, ["he", "xe"] * 30, ["he", "xe"] * 30, ["nom"] * 60,
        [f"s{index // 2}" for index in range(60)], pronoun_groups=["binary", "neo-pronoun"] * 30,
        n_bootstrap=200, seed=1,
    )  # fmt: skip
    assert result.unit_rows.rows.shape[0] == 30  # one row per sentence
    assert result.primary == "binary_minus_neo_pronoun" and result.value == 1.0
    gap = result
    assert gap["binary_minus_neo_pronoun_ci_low"] == gap["binary_minus_neo_pronoun_ci_high"] == 1.0
    # No resample reaches 0: the smallest p-value of 200 resamples, 2 / 201, read through a t with 29 degrees of
    # freedom for the 30 sentences (resampling.expanded_p_value).
    assert gap["binary_minus_neo_pronoun_p_value"] == pytest.approx(resampling.expanded_p_value(1 / 201, 30))
    assert gap["accuracy_p_value"] is None and "no null value" in gap["undefined"]["accuracy_p_value"]


def test_ruff_accuracy_by_hand_and_undefined_gaps():
    result = ruff_accuracy(
        ["he", "they", "she", "xe"], ["he", "xe", "she", "xe"], ["he", "xe", "she", "xe"], [0, 0, 3, 3],
        ["c1", "c1", "c2", "c2"], cases=["nom", "nom", "poss", "poss"], n_bootstrap=0,
    )  # fmt: skip
    assert result["accuracy/distractors/0"] == 0.5 and result["accuracy/distractors/3"] == 1.0
    assert result["accuracy/case/poss"] == 1.0 and result["accuracy/pronoun_set/xe"] == 0.5
    assert result["no_distractors_minus_five"] is None
    assert result["undefined"]["no_distractors_minus_five"] == "no instance has distractors 0, or none has 5"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"forms": ["nom", "genitive"]}, r"unknown forms: 'genitive' at index 1"),
        ({"references": ["he", None]}, r"references\[1\] is empty"),
        ({"predictions": ["he", 3]}, r"predictions\[1\]"),
        ({"sentence_ids": ["s1"]}, r"one entry per instance|same length|lengths"),
        ({"pronoun_groups": ["binary", "nonbinary"]}, r"unknown pronoun_groups: 'nonbinary'"),
        ({"block_ids": ["t1"]}, r"one entry per instance"),
        ({"block_ids": ["t1", None]}, r"block_ids\[1\] is None"),
        ({"block_ids": [("t1", "d1"), "t1"]}, r"gives 1 id\(s\) for some instances and 2 for others"),
        ({"block_ids": ["t1", "t2"]}, r"unit 's1' lies in block 't1' and in block 't2'"),
    ],
)
def test_misgendered_accuracy_says_what_is_wrong_with_its_input(change, message):
    inputs = {
        "predictions": ["he", "xe"],
        "references": ["he", "xe"],
        "pronoun_sets": ["he", "xe"],
        "forms": ["nom", "nom"],
        "sentence_ids": ["s1", "s1"],
    }
    with pytest.raises(ValueError, match=message):
        misgendered_accuracy(**{**inputs, **change}, n_bootstrap=0)


def test_crossed_templates_and_declarations_are_drawn_as_the_pigeonhole_bootstrap_draws_them():
    # MISGENDERED fills every template under every declaration. A model that misses xe under half the declarations
    # (whatever the template) has a neo-pronoun gap carried by 6 declarations, not by 120 sentences: blocks by
    # template alone keep it tight, blocks by template × declaration (crossed factors) widen it to what the 6
    # declarations' spread allows; every instance of a sentence shares its (template, declaration).
    predictions, references, sets, sentences, blocks = [], [], [], [], []
    for template in range(20):
        for declaration in range(6):
            for name in ("he", "xe"):
                missed = name == "xe" and declaration % 2 == 0
                predictions.append("he" if missed else name)
                references.append(name)
                sets.append(name)
                sentences.append(f"{template}.{declaration}")
                blocks.append((f"template {template}", f"declaration {declaration}"))
    common = dict(pronoun_groups=["binary", "neo-pronoun"] * 120, n_bootstrap=2000, seed=4)
    inputs = (predictions, references, sets, ["nom"] * 240, sentences)
    by_sentence = misgendered_accuracy(*inputs, **common)
    by_template = misgendered_accuracy(*inputs, block_ids=[template for template, _ in blocks], **common)
    crossed = misgendered_accuracy(*inputs, block_ids=blocks, **common)
    key = "binary_minus_neo_pronoun"
    assert by_sentence[key] == by_template[key] == crossed[key] == 0.5
    assert crossed.unit_rows.blocks.sizes == (20, 6) and crossed.overall[key].n_blocks == 6
    assert by_template[key + "_ci_low"] == by_template[key + "_ci_high"] == 0.5  # every template holds the same gap
    assert crossed[key + "_ci_high"] - crossed[key + "_ci_low"] > 0.4
    assert crossed[key + "_p_value"] > by_sentence[key + "_p_value"]


def test_ruff_contexts_of_one_occupation_are_drawn_together():
    # Ten occupations, each with 8 contexts (0 to 5 distractors among them); the model keeps to xe only for the
    # first five occupations, whatever the context: drawn by occupation the binary − neo-pronoun gap rests on 10.
    predictions, references, sets, distractors, contexts, jobs = [], [], [], [], [], []
    for job in range(10):
        for context in range(8):
            for name in ("he", "xe"):
                predictions.append(name if name == "he" or job < 5 else "he")
                references.append(name)
                sets.append(name)
                distractors.append(context % 6)
                contexts.append(f"{job}/{context}")
                jobs.append(f"occupation {job}")
    inputs = (predictions, references, sets, distractors, contexts)
    common = dict(pronoun_groups=["binary", "neo-pronoun"] * 80, n_bootstrap=2000, seed=0)
    by_context = ruff_accuracy(*inputs, **common)
    by_job = ruff_accuracy(*inputs, block_ids=jobs, **common)
    assert by_context.value == by_job.value == 0.5
    assert (by_context.overall[by_job.primary].n_blocks, by_job.overall[by_job.primary].n_blocks) == (80, 10)
    width = {name: result["binary_minus_neo_pronoun_ci_high"] - result["binary_minus_neo_pronoun_ci_low"]
             for name, result in (("context", by_context), ("job", by_job))}  # fmt: skip
    assert width["job"] > 2 * width["context"]


def test_ruff_accuracy_refuses_distractor_counts_outside_zero_to_five():
    for bad, message in ((6, r"unknown distractors: 6"), (1.0, r"integer"), (True, r"integer")):
        with pytest.raises(ValueError, match=message):
            ruff_accuracy(["he"], ["he"], ["he"], [bad], ["c1"], n_bootstrap=0)


def test_a_fill_in_row_marks_the_blank_and_every_option():
    row = fill_in.fill_in_row("Kim said ___ left.", ["he", "she", "xe"], "xe")
    assert [row["text"][c["start"] : c["end"]] for c in row["candidates"]] == ["he", "she", "xe"]
    assert row["text"][row["pronoun"]["start"] : row["pronoun"]["end"]] == "___"
    for passage, options, answer in (("no blank", ["he"], "he"), ("___", ["he", "he"], "he"), ("___", ["he"], "xe")):
        with pytest.raises(ValueError):
            fill_in.fill_in_row(passage, options, answer)


def test_the_cloze_templates_read_each_papers_wording_without_the_options_list(quick):
    ruff_row = dict(
        zip(quick["ruff"]["default", "test"], [values[0] for values in quick["ruff"]["default", "test"].values()])
    )
    request = BENCHMARKS["ruff"].cloze.render(ruff_row)
    passage = ruff_row["text"].split("\nOPTIONS:\n")[0]
    # prompt.py: "{task}\n\nThe best pronoun to fill in the blank is", the task with '___' for its pronoun
    assert request.context == passage + "\n\nThe best pronoun to fill in the blank is"
    assert sorted(request.continuations) == sorted(f" {word}" for word in ruff_files.PRONOUNS[ruff_row["pronoun_type"]])
    row = {
        "text": "Kim's pronouns are xe/xem. Kim was very emotional. ___ cried loudly.\nOPTIONS:\n- He\n- Xe",
        "pronoun": {"text": "___", "start": 51, "end": 54},
        "candidates": [{"text": "He", "start": 81, "end": 83}, {"text": "Xe", "start": 86, "end": 88}],
    }
    request = BENCHMARKS["misgendered"].cloze.render(row)
    # the zero-shot sentence with its blank, then again up to the blank, continued by each option
    assert request.context == (
        "Kim's pronouns are xe/xem. Kim was very emotional. ___ cried loudly.\n\n"
        "Kim's pronouns are xe/xem. Kim was very emotional."
    )
    assert request.continuations == (" He", " Xe") and request.candidate_of == (0, 1)


def test_a_chat_model_is_asked_for_the_word_and_its_letter_reads_as_that_word(quick):
    from corefbias.models import chat

    columns = quick["ruff"]["default", "test"]
    row = dict(zip(columns, [values[7] for values in columns.values()]))
    options = chat.option_order(row, BENCHMARKS["ruff"].unit)
    (_, question) = chat.build_messages(row, options, "en")
    assert "*___*" in question["content"] and 'What does the pronoun "___"' in question["content"]
    letter = "ABCDE"[[text for _, text in options].index(row["answer"])]
    choice = chat.read_answer(letter, options)
    decision = [index == choice.index for index in range(len(row["candidates"]))]
    assert choice.position is not None  # the position rate applies to chat on these sets
    assert decision == [candidate["is_referent"] for candidate in row["candidates"]]


# 2. Runs: every headline with its interval and p-value; the baselines.


def test_a_quick_run_writes_every_headline_with_its_interval_and_p_value(data_dir, tmp_path):
    result = runner.run(
        "baseline:stereotype",
        list(SETS),
        settings=runner.RunSettings(limit=5, n_bootstrap=1000),  # Holm over 9 sets needs p below 0.05 / 9
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    written = result.to_json()["benchmarks"]
    assert {name: run["num_instances"] for name, run in written.items()} == {"misgendered": 550, "ruff": 960}
    for name, run in written.items():
        for headline in run["headlines"]:
            assert headline["ci_low"] is not None and headline["ci_high"] is not None, headline
            assert (headline["p_value"] is None) == (headline.get("unbiased_value") is None), headline
        # the stereotype baseline writes the pronoun of the name's or the occupation's stereotype, whatever was
        # declared: right for some he and she, wrong for every other set but by chance (for a unisex name it falls
        # back on the first listed word): every gap to he/she is negative
        diffs = [headline for headline in run["headlines"] if headline["key"].startswith("diff/")]
        assert len(diffs) == {"misgendered": 9, "ruff": 2}[name]
        assert all(headline["value"] < 0 for headline in diffs)
        # RUFF's 90 contexts lie in 49 occupations: both gaps significant after Holm. MISGENDERED's 50 sentences lie
        # in 12 declarations crossed with 36 templates: 1 000 resamples on 12 blocks give no p-value below 0.013,
        # which Holm's adjustment over 9 sets lifts above 0.05 (more resamples, or the whole set, lower it).
        blocks = {headline["n_blocks"] for headline in diffs}
        assert blocks == {"misgendered": {12}, "ruff": {49}}[name]
        if name == "ruff":
            assert all(headline["significant"] for headline in diffs)
        group_diffs = [headline for headline in run["headlines"] if headline["key"] in DIFFS]
        assert all(headline["value"] > 0 and headline["significant"] for headline in group_diffs)


def test_a_random_model_shows_no_pronoun_set_diff_in_most_seeds_and_the_stereotyped_one_does(quick):
    seeds = range(20)
    for name in SETS:
        benchmark, rows = BENCHMARKS[name], quick[name]
        significant = 0
        for seed in seeds:
            sections = benchmark.score(rows, decisions_of(RandomBaseline(seed), benchmark, rows), 1000, seed)
            significant += bool(significant_diffs(sections, name))
        # a family of Holm-adjusted gaps and two group gaps per seed, at α = 0.05: a seed in ten or so
        assert significant <= 5, (name, significant)
        stereotyped = benchmark.score(rows, decisions_of(StereotypeBaseline(), benchmark, rows), 1000, 0)
        sets = {row_set for row_set in rows[benchmark.parts[0]]["pronoun_set"]} - {"he", "she"}
        found = significant_diffs(stereotyped, name)
        if name == "ruff":
            assert len(found) >= len(DIFFS) + len(sets) - 1  # one may fall to chance
        else:  # 12 declarations: the group gap is significant, the Holm family of 9 sets is not (see above)
            assert "binary_minus_neo_pronoun" in found


# 3. Coreference clusters are refused, saying why.


class _ClusterModel:
    name = "clusters"
    identity = {"kind": "test", "name": "clusters"}

    def predict_clusters(self, texts):
        return [[] for _ in texts]


@pytest.mark.parametrize("name", SETS)
def test_a_cluster_model_and_a_file_of_clusters_are_refused_with_the_reason(name, data_dir, quick, tmp_path):
    with pytest.raises(ModelError, match=f"{name} cannot be scored on coreference clusters: it asks which pronoun"):
        runner.run("clusters", [name], data_dir=data_dir, model=_ClusterModel(), progress=False, cache_path=None)
    rows = quick[name]
    clusters = {part: [[] for _ in columns["id"]] for part, columns in rows.items()}
    with pytest.raises(ValueError, match="a coreference system resolves the pronouns a text has and writes none"):
        runner.score_benchmark(BENCHMARKS[name], rows, clusters, n_bootstrap=0)


def test_a_file_of_a_models_decisions_scores_as_its_run(data_dir, tmp_path):
    """``corefbias score`` on the instances file a run wrote (one decision per instance of the scored part)."""
    from corefbias.harness import run_outputs
    from corefbias.harness.prediction_files import scoring as file_scoring

    settings = runner.RunSettings(n_bootstrap=50, seed=4, cache_mode="off")
    run = runner.run("baseline:random", ["ruff"], settings=settings, data_dir=data_dir, cache_path=None, progress=False)
    written = run_outputs.write_outputs(run, tmp_path / "run", plots=False)
    scored = file_scoring.score("ruff", [written["instances/ruff.jsonl"]], data_dir=data_dir, n_bootstrap=50, seed=4)
    assert dict(scored.runs["ruff"].sections["ruff"]) == dict(run.runs["ruff"].sections["ruff"])
    assert dict(scored.runs["ruff"].sections["pronoun_set_diff"]) == dict(run.runs["ruff"].sections["pronoun_set_diff"])
    assert scored.runs["ruff"].sections["ruff"]["num_instances"] == 12960


# 4. The whole design, on request.


@pytest.mark.slow
def test_the_whole_design_is_built_only_on_request_and_named_configs_are_checked(tmp_path, mirror, capsys):
    builder = hub_export.builder_class("ruff")
    assert hub_export.exported_configs("ruff", builder) == ["default"]
    assert hub_export.exported_configs("ruff", builder, ["eo_task"]) == ["default", "eo_task"]
    with pytest.raises(hub_export.DatasetBuildError, match="ruff has no config 'full' built on request"):
        hub_export.exported_configs("ruff", builder, ["full"])
    assert (
        cli.main(["--mirror", str(mirror), "export-datasets", "ruff", "--config", "eo_task", "--out", str(tmp_path)])
        == 0
    )
    whole = datasets.load_dataset(str(tmp_path / "ruff"), "eo_task", split="test")
    assert len(whole) == 7200 and len(set(whole["id"])) == 7200  # upstream's eo_task.tsv, every line
    assert len(datasets.load_dataset(str(tmp_path / "ruff"), "default", split="test")) == 12960
    assert cli.main(["export-datasets", "ruff", "--config", "nothing", "--out", str(tmp_path)]) != 0
    assert "builds a config 'nothing' on request" in capsys.readouterr().err


# 5. The Explore view by pronoun set.


def test_the_explore_view_shows_sentences_right_for_he_and_she_first(quick):
    name = "misgendered"
    benchmark, rows = BENCHMARKS[name], quick[name]
    part = benchmark.parts[0]
    decisions = decisions_of(RandomBaseline(2), benchmark, rows)[part]
    columns = rows[part]
    pairs = [
        (dict(zip(columns, values)), {"decision": decision, "gold": [c["is_referent"] for c in values_candidates]})
        for values, decision, values_candidates in zip(zip(*columns.values()), decisions, columns["candidates"])
    ]
    cases = pronoun_set_cases(pairs, benchmark.unit)
    assert cases and all(len(case["members"]) == 11 for case in cases)
    first_binary_right = [
        all(member["correct"] for member in case["members"] if member["label"].split()[0] in ("he", "she"))
        for case in cases
    ]
    assert first_binary_right == sorted(first_binary_right, reverse=True)  # he and she right come first
    assert cases[0]["members"][0]["label"].startswith("he declared → ")
