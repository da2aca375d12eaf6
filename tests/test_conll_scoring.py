"""WinoBias's headline: CoNLL F1 per config with pro − anti, from the clusters a run's model predicted, scored
again from a run's instance file and compared between runs."""

import hashlib
import json

import datasets
import pytest

from corefbias.benchmarks import conll_sections as conll_scoring
from corefbias.harness import comparison, run_outputs, runner
from corefbias.harness.prediction_files import scoring
from corefbias.measures import resampling


@pytest.fixture(scope="module")
def data_dir(exported_set):
    return exported_set("winobias").parent


@pytest.fixture(scope="module")
def winobias_rows(data_dir):
    return {
        config: datasets.load_dataset(str(data_dir / "winobias"), config, split="test")
        for config in ("type1_pro", "type1_anti", "type2_pro", "type2_anti")
    }


class TextLookupClusters:
    """A cluster model answering from a table text → clusters (character spans)."""

    name = "lookup"

    def __init__(self, table):
        self.table = table
        # Two tables are two models: their answers must never share cache entries.
        answers = json.dumps(sorted(table.items()), sort_keys=True).encode()
        self.identity = {"kind": "test", "name": "lookup", "table": hashlib.sha256(answers).hexdigest()}

    def predict_clusters(self, texts):
        return [self.table[text] for text in texts]


def _run(model, spec, data_dir, tmp_path):
    return runner.run(
        spec,
        ["winobias"],
        settings=runner.RunSettings(n_bootstrap=200),
        data_dir=data_dir,
        cache_path=tmp_path / "c.sqlite",
        progress=False,
        model=model,
    )


@pytest.fixture(scope="module")
def gold_clusters(winobias_rows):
    return TextLookupClusters(
        {
            row["text"]: [[[m["start"], m["end"]] for m in cluster] for cluster in row["clusters"]]
            for rows in winobias_rows.values()
            for row in rows
        }
    )


@pytest.fixture(scope="module")
def stereotype_clusters(winobias_rows):
    """Links each pronoun with the candidate whose occupation's stereotype matches its gender."""
    table = {}
    for rows in winobias_rows.values():
        for row in rows:
            chosen = row["candidate_stereotypes"].index(row["pronoun_gender"])
            candidate = row["candidates"][chosen]
            pronoun = row["pronoun"]
            table[row["text"]] = [[[candidate["start"], candidate["end"]], [pronoun["start"], pronoun["end"]]]]
    return TextLookupClusters(table)


def test_gold_clusters_score_perfectly_and_unbiased(gold_clusters, winobias_rows, data_dir, tmp_path):
    result = _run(gold_clusters, "test:gold-clusters", data_dir, tmp_path)
    sections = result.runs["winobias"].sections
    for kind in (1, 2):
        conll = sections[f"winobias/type{kind}/conll"]
        assert conll["pro"] == conll["anti"] == 1.0 and conll["diff"] == 0.0
        assert conll["num_pairs"] == len(winobias_rows[f"type{kind}_pro"])
        assert sections[f"winobias/type{kind}"]["diff"] == 0.0
    rows = {row["score"]: row for row in run_outputs.summary_rows(result.record())}
    assert list(rows)[:3] == ["type1 CoNLL F1 pro − anti", "type1 CoNLL F1 pro", "type1 CoNLL F1 anti"]


def test_stereotyped_clusters_are_biased_in_conll_f1(stereotype_clusters, data_dir, tmp_path):
    sections = _run(stereotype_clusters, "test:stereotype-clusters", data_dir, tmp_path).runs["winobias"].sections
    for kind in (1, 2):
        conll = sections[f"winobias/type{kind}/conll"]
        # No resample of the 198 occupation pairs reaches 0: the smallest p-value 200 resamples give on 198 blocks.
        assert conll["pro"] > conll["anti"] and conll.overall["diff"].n_blocks == 198
        assert conll["diff_p_value"] == pytest.approx(resampling.expanded_p_value(1 / 201, 198), rel=1e-12)
        for key, (numerator, denominator) in REFERENCE_SCORER[kind].items():
            assert conll[key] == pytest.approx(numerator / denominator, abs=1e-12), (kind, key)
        for condition in ("pro", "anti"):
            f1s = [conll[f"{condition}/{metric}_f1"] for metric in ("muc", "bcubed", "ceafe")]
            assert conll[condition] == pytest.approx(sum(f1s) / 3)


# What the reference scorer (conll/reference-coreference-scorers v8.01, `perl scorer.pl {muc,bcub,ceafe} KEY
# RESPONSE`) prints for these stereotyped clusters written as CoNLL responses to WinoBias's test key files:
# (numerator, denominator) of recall and precision.
REFERENCE_SCORER = {
    1: {
        "pro/muc_recall": (396, 420),
        "pro/muc_precision": (396, 396),
        "pro/bcubed_recall": (776, 816),
        "pro/bcubed_precision": (792, 792),
        "pro/ceafe_recall": (391.2, 396),
        "pro/ceafe_precision": (391.2, 396),
        "anti/muc_recall": (0, 418),
        "anti/muc_precision": (0, 396),
        "anti/bcubed_recall": (194 + 1 / 3, 814),
        "anti/bcubed_precision": (198, 792),
        "anti/ceafe_recall": (195.8, 396),
        "anti/ceafe_precision": (195.8, 396),
    },
    2: {
        "pro/muc_recall": (396, 401),
        "pro/muc_precision": (396, 396),
        "pro/bcubed_recall": (788 + 2 / 3, 797),
        "pro/bcubed_precision": (792, 792),
        "pro/ceafe_recall": (395, 396),
        "pro/ceafe_precision": (395, 396),
        "anti/muc_recall": (0, 402),
        "anti/muc_precision": (0, 396),
        "anti/bcubed_recall": (197, 798),
        "anti/bcubed_precision": (198, 792),
        "anti/ceafe_recall": (197.4, 396),
        "anti/ceafe_precision": (197.4, 396),
    },
}


def test_choice_models_have_no_conll_score_but_keep_the_link_scores(winobias_rows, data_dir, tmp_path):
    result = runner.run(
        "baseline:oracle",
        ["winobias"],
        settings=runner.RunSettings(n_bootstrap=0),
        data_dir=data_dir,
        cache_path=tmp_path / "c.sqlite",
        progress=False,
    )
    sections = result.runs["winobias"].sections
    conll = sections["winobias/type1/conll"]
    assert conll["diff"] is None and conll["undefined"]["diff"] == conll_scoring.NO_CLUSTERS
    assert sections["winobias/type1"]["diff"] == 0.0
    rows = {row["score"]: row for row in run_outputs.summary_rows(result.record())}
    assert rows["type1 CoNLL F1 pro − anti"]["undefined"] == conll_scoring.NO_CLUSTERS


def test_runs_keep_their_clusters_so_conll_f1_is_rescored_and_compared(
    gold_clusters, stereotype_clusters, data_dir, tmp_path
):
    folders = {}
    for name, model in (("gold", gold_clusters), ("stereotype", stereotype_clusters)):
        result = _run(model, f"test:{name}-clusters", data_dir, tmp_path)
        folders[name] = tmp_path / name
        run_outputs.write_outputs(result, folders[name], plots=False)
    stored = {name: json.loads((folder / "results.json").read_text()) for name, folder in folders.items()}

    # The instance file alone gives back every score, CoNLL F1 included.
    rescored = scoring.score(
        "winobias", [folders["stereotype"] / "instances" / "winobias.jsonl"], data_dir=data_dir, n_bootstrap=200
    )
    assert rescored.settings["predictions"][0]["format"] == "instances"
    sections = stored["stereotype"]["benchmarks"]["winobias"]["sections"]
    for kind in (1, 2):
        again = rescored.runs["winobias"].sections[f"winobias/type{kind}/conll"]
        assert again["diff"] == sections[f"winobias/type{kind}/conll"]["diff"] > 0.2

    differences = comparison.compare_runs([folders["stereotype"], folders["gold"]], data_dir=data_dir, n_resamples=500)
    rows = {(row["section"], row["key"]): row for row in differences["comparisons"][0]["differences"]}
    for kind in (1, 2):
        section = f"winobias/type{kind}/conll"
        row = rows[section, "diff"]
        assert row["value_a"] == pytest.approx(sections[section]["diff"])
        assert row["value_b"] == 0.0 and row["difference"] == pytest.approx(row["value_a"])
        assert row["num_units"] == sections[section]["num_pairs"] and row["significant"] is True
    assert not any("CoNLL" in note for note in differences["comparisons"][0]["notes"])

    # A run written before instance files kept clusters (nor folders a manifest): its links are compared, its
    # CoNLL F1 is not.
    (folders["gold"] / run_outputs.MANIFEST).unlink()
    lines = (folders["gold"] / "instances" / "winobias.jsonl").read_text().splitlines()
    (folders["gold"] / "instances" / "winobias.jsonl").write_text(
        "".join(json.dumps({k: v for k, v in json.loads(line).items() if k != "clusters"}) + "\n" for line in lines)
    )
    older = comparison.compare_runs([folders["stereotype"], folders["gold"]], data_dir=data_dir, n_resamples=500)
    compared = {(row["section"], row["key"]) for row in older["comparisons"][0]["differences"]}
    assert ("winobias/type1", "diff") in compared and ("winobias/type1/conll", "diff") not in compared
    assert (
        "winobias type1 CoNLL F1 pro − anti: scored from the model's clusters, which test:gold-clusters's instance "
        "file does not keep (it was written by an older corefbias; run the model again), so no paired test"
    ) in older["comparisons"][0]["notes"]
