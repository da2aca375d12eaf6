"""WinoNB: the export (4,077 sentences per version, the README's counts), the spans of the pronoun and the two
entities, the label found broken in v1, the measure by hand and from clusters, the evaluate module and calibration."""

import csv
from collections import Counter

import numpy as np
import pytest
from dataset_harness import assert_export_layout, assert_spans_match, repeated_rows
from metric_harness import assert_add_batch_equivalent, assert_num_process_equivalent

from corefbias.benchmarks import BENCHMARKS, rows_of
from corefbias.benchmarks.winonb import files
from corefbias.harness import executors, run_outputs, runner
from corefbias.harness.benchmark_data import load_part
from corefbias.measures.winonb_accuracy import winonb_accuracy
from corefbias.models.baselines import RandomBaseline

# README, "How many instances are there in total": 4,077 templates, 120 from Winogender, 3,722 from WinoBias,
# 87 from WSC, 148 from DPR.
README_COUNTS = {"winogender": 120, "winobias": 3722, "wsc": 87, "dpr": 148}


@pytest.fixture(scope="module")
def v0(exported_set, mirror):
    benchmark = BENCHMARKS["winonb"]
    return load_part(benchmark, "v0", "test", exported_set("winonb").parent, mirror).to_dict()


def test_export_layout_and_the_readmes_counts(exported_set, loaded_set):
    assert_export_layout(exported_set("winonb"), {"v0": ["test"], "v1": ["test"]}, license_id="unknown", default="v0")
    for version in ("v0", "v1"):
        test = loaded_set("winonb", version)["test"]
        assert test.num_rows == 4077
        assert Counter(test["source"]) == README_COUNTS
        assert Counter(test["number"]) == {"singular": 2038, "plural": 2039}
        assert test["row"] == list(range(4077))
        assert_spans_match(loaded_set("winonb", version))
    card = (exported_set("winonb") / "README.md").read_text(encoding="utf-8")
    assert "no license" in card and "names version" in card


@pytest.mark.parametrize(("version", "repeats", "distinct"), [("v0", 451, 3626), ("v1", 450, 3627)])
def test_the_repeated_sentences_the_card_counts(loaded_set, version, repeats, distinct):
    test = loaded_set("winonb", version)["test"]
    where = {"id", "row", "sentid", "source", "winobias_type", "winobias_split"}
    repeated = repeated_rows(test, ignoring=where)
    assert (len(repeated), test.num_rows - sum(len(ids) - 1 for ids in repeated)) == (repeats, distinct)
    assert [f"{version}.0223", f"{version}.0449"] in repeated


def test_the_rows_are_upstreams_rows_in_order(v0, mirror):
    with open(mirror / "winonb" / files.VERSIONS["v0"], encoding="utf-8", newline="") as handle:
        upstream = list(csv.DictReader(handle, delimiter="\t"))
    assert [row["sentence"] for row in upstream] == v0["text"]
    assert [row["sentid"] for row in upstream] == v0["sentid"]
    labels = [files.NUMBERS[row["sentid"].split(".")[2]] for row in upstream]
    assert labels == v0["number"]


def test_spans_pick_the_pronoun_after_both_entities_and_the_entities_themselves(v0):
    rows = rows_of(v0)
    for row in rows:
        singular, plural = row["candidates"]
        assert singular["text"].lower() == "someone"
        assert plural["text"].lower() in {row["plural_noun"].lower(), f"the {row['plural_noun'].lower()}"}
        assert row["pronoun"]["text"].lower() in {"they", "them", "their", "theirs", "themselves", "themself"}
        assert [singular["is_referent"], plural["is_referent"]] == [
            row["number"] == "singular",
            row["number"] == "plural",
        ]
    # "gave them to someone , even though they were ...": them is the tickets; the pronoun is "they".
    fans = rows[198]
    assert fans["text"][fans["pronoun"]["start"] :].startswith("they were particularly eager")
    assert fans["candidates"][1]["text"] == "The fans"
    # DPR's "a the riders": the plural mention is "the riders".
    riders = next(row for row in rows if "a the riders" in row["text"])
    assert riders["candidates"][1]["text"] == "the riders"


def test_v1s_winobias_labels_mark_where_someone_stands_not_what_they_refers_to(mirror):
    # Why v0 is the version scored: in v1 a WinoBias row is labelled singular exactly when the sentence opens with
    # "Someone" (1,849 of its 1,861 singular labels, none of its plural ones), whatever they refers to. In v0 the
    # labels follow the sentences: in type 2, where the pronoun is the object of the second clause and refers to the
    # other clause's object, the label is singular when "someone" is that object in 2,096 of 2,100 rows.
    def read(version):
        with open(mirror / "winonb" / files.VERSIONS[version], encoding="utf-8", newline="") as handle:
            return [row for row in csv.DictReader(handle, delimiter="\t") if row["source"] == "winobias"]

    v1 = Counter((r["sentid"].split(".")[2], r["sentence"].lower().startswith("someone")) for r in read("v1"))
    assert v1 == {("1", True): 1849, ("1", False): 12, ("0", False): 1861}
    type2 = [r for r in read("v0") if r["sentid"].split(".")[3] == "2"]
    follows = sum((r["sentid"].split(".")[2] == "1") != r["sentence"].lower().startswith("someone") for r in type2)
    assert (follows, len(type2)) == (2096, 2100)


def test_hand_computed_scores_per_label_and_source():
    result = winonb_accuracy(
        ["singular", "plural", "plural", "neither", "plural", "singular"],
        ["singular", "singular", "plural", "plural", "plural", "plural"],
        ["wsc", "wsc", "wsc", "dpr", "dpr", "dpr"],
        n_bootstrap=0,
    )
    assert (result["accuracy_singular"], result["accuracy_plural"]) == (0.5, 0.5)
    assert result["accuracy_singular_minus_plural"] == 0.0 and result["accuracy"] == 0.5
    assert result["singular_read_as_plural"] == 0.5 and result["plural_read_as_singular"] == 0.25
    assert result["no_reading"] == pytest.approx(1 / 6)
    assert (result["accuracy_singular/wsc"], result["accuracy_plural/wsc"]) == (0.5, 1.0)
    assert (
        result["accuracy_singular/dpr"] is None
        and "no sentence of source dpr" in result["undefined"]["accuracy_singular/dpr"]
    )
    assert result["accuracy_plural/dpr"] == pytest.approx(1 / 3)
    assert (result["num_singular"], result["num_plural"]) == (2, 4)


GAP = "accuracy_singular_minus_plural"
# Per plural noun: how its singular and its plural sentences are read (a system answers a noun's sentences alike).
NOUN_READINGS = [
    ("plural", "plural"),
    ("singular", "plural"),
    ("plural", "plural"),
    ("singular", "singular"),
    ("plural", "neither"),
    ("singular", "plural"),
] * 2


def _by_noun(per_noun: int = 8) -> tuple[dict, list]:
    """Sentences of twelve plural nouns, half singular and half plural, read as ``NOUN_READINGS`` says."""
    predictions = [read for pair in NOUN_READINGS for read in pair * (per_noun // 2)]
    references = ["singular", "plural"] * (len(NOUN_READINGS) * per_noun // 2)
    nouns = [f"noun {noun:02d}" for noun in range(len(NOUN_READINGS)) for _ in range(per_noun)]
    return {"predictions": predictions, "references": references}, nouns


def _significance(result) -> tuple:
    return result[f"{GAP}_ci_low"], result[f"{GAP}_ci_high"], result[f"{GAP}_p_value"]


def test_blocks_draw_the_sentences_of_a_plural_noun_together():
    # Every sentence of a noun is read alike: drawn sentence by sentence, the 96 sentences look like a tight interval;
    # drawn by noun, it rests on 12 blocks and is wider, with a larger p-value.
    inputs, nouns = _by_noun()
    by_sentence = winonb_accuracy(**inputs, seed=3)
    by_noun = winonb_accuracy(**inputs, block_ids=nouns, seed=3)
    assert by_sentence[GAP] == by_noun[GAP] < 0
    assert by_sentence.overall[GAP].n_blocks == 96 and by_noun.overall[GAP].n_blocks == 12
    sentence_low, sentence_high, sentence_p = _significance(by_sentence)
    noun_low, noun_high, noun_p = _significance(by_noun)
    assert noun_high - noun_low > 1.5 * (sentence_high - sentence_low)
    assert noun_p > sentence_p
    assert by_noun.unit_rows.blocks.sizes == (12,)
    # A block of its own per sentence is no block at all: the same draws as without block_ids.
    alone = winonb_accuracy(**inputs, block_ids=[f"s{index:02d}" for index in range(96)], seed=3)
    assert _significance(alone) == _significance(by_sentence)


@pytest.mark.parametrize(
    ("block_ids", "message"),
    [
        (["a", "a", "b"], "one entry per instance"),
        (["a", None, "b", "b"], r"block_ids\[1\] is None; give every instance its block"),
        (["a", 2.5, "b", "b"], r"block_ids\[1\] is 2.5 \(float\); each entry must be a block id"),
        (["a", ("a", "x"), "b", "b"], "gives 1 id.* for some instances and 2 for others"),
        (["a", [], "b", "b"], r"block_ids\[1\] is .*; each entry must be a block id"),
    ],
)
def test_malformed_block_ids_are_a_clear_value_error(block_ids, message):
    # A sentence is its own unit: no unit can lie in two blocks.
    with pytest.raises(ValueError, match=message):
        winonb_accuracy(["singular", "plural"] * 2, ["singular", "plural"] * 2, block_ids=block_ids, n_bootstrap=0)


def test_a_system_that_links_they_to_the_plural_mention_reads_it_as_plural(v0):
    benchmark = BENCHMARKS["winonb"]
    rows = {("v0", "test"): {key: values[:6] for key, values in v0.items()}}
    outputs = []
    for row in rows_of(rows["v0", "test"]):
        pronoun = (row["pronoun"]["start"], row["pronoun"]["end"])
        plural = row["candidates"][1]
        noun = (plural["end"] - len(row["plural_noun"]), plural["end"])  # without "the": containment links it
        outputs.append([[noun, pronoun]])
    run = runner.score_benchmark(benchmark, rows, {("v0", "test"): outputs}, n_bootstrap=0)
    section = run.sections["winonb"]
    assert section["accuracy_plural"] == 1.0 and section["accuracy_singular"] == 0.0
    assert section["singular_read_as_plural"] == 1.0
    both = [
        [[(row["candidates"][0]["start"], row["candidates"][0]["end"]), out[0][0], out[0][1]]]
        for row, out in zip(rows_of(rows["v0", "test"]), outputs)
    ]
    unread = runner.score_benchmark(benchmark, rows, {("v0", "test"): both}, n_bootstrap=0).sections["winonb"]
    assert unread["no_reading"] == 1.0 and unread["accuracy"] == 0.0


@pytest.mark.slow
def test_random_answers_show_no_significant_singular_plural_gap_in_most_seeds(v0):
    # Measured: 1 of 20 seeds (seed 8, p = 0.03) significant at 0.05, as a calibrated test should be about once.
    benchmark = BENCHMARKS["winonb"]
    parts = {("v0", "test"): v0}
    significant = 0
    for seed in range(20):
        model = RandomBaseline(seed)
        outputs = {("v0", "test"): [executors.choice_output(c) for c in model.choose(rows_of(v0), benchmark.task)]}
        run = runner.score_benchmark(benchmark, parts, outputs, n_bootstrap=500, seed=seed)
        significant += run.sections["winonb"]["accuracy_singular_minus_plural_p_value"] < 0.05
    assert significant <= 3, significant


def test_the_metric_module_is_the_measure(in_repo, v0):
    rng = np.random.default_rng(1)
    inputs = {
        "predictions": list(rng.choice(["singular", "plural", "neither"], size=300)),
        "references": v0["number"][:300],
        "sources": v0["source"][:300],
    }
    single = assert_add_batch_equivalent("winonb_accuracy", inputs, [100, 111, 89], n_bootstrap=50, seed=4)
    assert single == winonb_accuracy(**inputs, n_bootstrap=50, seed=4)
    assert_num_process_equivalent("winonb_accuracy", inputs, 150, n_bootstrap=50, seed=4)
    with pytest.raises(ValueError, match="unknown predictions: 'they'"):
        winonb_accuracy(["they"], ["singular"], n_bootstrap=0)


def test_the_metric_module_takes_the_plural_nouns_as_blocks(in_repo, v0):
    rng = np.random.default_rng(1)
    inputs = {
        "predictions": list(rng.choice(["singular", "plural", "neither"], size=300)),
        "references": v0["number"][:300],
        "block_ids": v0["plural_noun"][:300],
    }
    single = assert_add_batch_equivalent("winonb_accuracy", inputs, [100, 200], n_bootstrap=200, seed=4)
    expected = winonb_accuracy(**inputs, n_bootstrap=200, seed=4)
    assert single == expected
    assert expected.overall[GAP].n_blocks == len(set(inputs["block_ids"])) < 300


def test_a_quick_run_of_both_sets_writes_every_headline_with_its_interval_and_p_value(exported_set, tmp_path):
    data_dir = exported_set("winopron").parent
    exported_set("winonb")
    result = runner.run(
        "baseline:stereotype",
        ["winopron", "winonb"],
        settings=runner.RunSettings(limit=5),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    rows = run_outputs.summary_rows(result.record())
    expected = {(name, headline.label) for name in ("winopron", "winonb") for headline in BENCHMARKS[name].headlines}
    assert {(row["benchmark"], row["score"]) for row in rows} == expected and len(rows) == 7
    for row in rows:
        assert None not in (row["value"], row["ci_low"], row["ci_high"], row["p_value"]), row
    # The stereotype baseline links he and she by the occupation's BLS majority and they/xe to the nearer mention: in
    # single-entity sentences a pronoun whose gender contradicts the one occupation is left unlinked, which never
    # happens to they or xe, so they and xe beat he/she by the share of he/she sentences contradicting a stereotype.
    single = result.runs["winopron"].sections["pronoun_set_diff/single"]
    assert single["diff/they"] == single["diff/xe"] > 0 and single["diff/they_p_value"] < 0.05


def test_a_jsonlines_file_of_token_clusters_is_scored_as_the_run_scores_its_clusters(
    v0, exported_set, mirror, tmp_path, capsys
):
    # A system's jsonlines output (tokens, inclusive token spans) that puts every they with the plural noun.
    import json
    import re

    from corefbias import cli

    path = tmp_path / "plural.jsonlines"
    with open(path, "w", encoding="utf-8") as out:
        for row in rows_of(v0):
            tokens = list(re.finditer(r"\w+|[^\w\s]", row["text"]))
            at = {token.start(): index for index, token in enumerate(tokens)}
            ends = {token.end(): index for index, token in enumerate(tokens)}
            noun_end = row["candidates"][1]["end"]
            cluster = [
                [at[noun_end - len(row["plural_noun"])], ends[noun_end]],
                [at[row["pronoun"]["start"]], ends[row["pronoun"]["end"]]],
            ]
            document = {
                "doc_key": row["id"],
                "sentences": [[t.group() for t in tokens]],
                "predicted_clusters": [cluster],
            }
            out.write(json.dumps(document) + "\n")
    out_dir = tmp_path / "scored"
    data_dir = exported_set("winonb").parent
    command = ["--mirror", str(mirror), "score", "--benchmark", "winonb", "--predictions", str(path)]
    assert (
        cli.main([*command, "--data-dir", str(data_dir), "--out", str(out_dir), "--no-plots", "--n-bootstrap", "0"])
        == 0
    )
    section = json.loads((out_dir / "results.json").read_text())["benchmarks"]["winonb"]["sections"]["winonb"]
    assert (section["accuracy_singular"], section["accuracy_plural"], section["no_reading"]) == (0.0, 1.0, 0.0)
    assert section["num_singular"] + section["num_plural"] == 4077
    # Before, "and plots/, instances/" though --no-plots wrote no plots/ (nor does WinoNB declare a figure).
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == f"wrote manifest.json, report.md, results.json, summary.csv and instances/ to {out_dir}"
    assert not (out_dir / "plots").exists()
