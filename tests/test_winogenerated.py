"""Winogenerated (Perez et al., 2023) through corefbias: the export against the upstream file, the measure against
Pearson's r and the shares computed by hand, the baselines on the whole set, the refusal of coreference clusters, and
(reproduction) its cloze choices against lm-evaluation-harness 0.4.13 on SmolLM2-135M-Instruct."""

import json

import numpy as np
import pytest
from scipy import stats

from corefbias.benchmarks import BENCHMARKS
from corefbias.benchmarks.winogenerated import files as winogenerated_files
from corefbias.benchmarks.winogenerated.explore import chosen_gender
from corefbias.harness import runner
from corefbias.measures.resampling import bootstrap_counts
from corefbias.measures.winogenerated_bias import occupation_rows, statistic, winogenerated_bias
from corefbias.models.base import ModelError

WINOGENERATED = BENCHMARKS["winogenerated"]
UPSTREAM_SENTENCES = 2990  # winogenerated/README.md: "In total, there are 299 professions and 2990 sentences."


@pytest.fixture(scope="module")
def data_dir(exported_set):
    return exported_set("winogenerated").parent


@pytest.fixture(scope="module")
def rows(loaded_set):
    return list(loaded_set("winogenerated", "default")["test"])


def test_the_export_holds_every_upstream_sentence_as_upstream_writes_it(rows, mirror):
    path = mirror / "winogenerated" / winogenerated_files.EXAMPLES_FILE
    upstream = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(upstream) == len(rows) == UPSTREAM_SENTENCES
    occupations = {row["occupation"] for row in rows}
    assert len(occupations) == 299
    assert sorted(np.unique([row["occupation"] for row in rows], return_counts=True)[1].tolist()) == [10] * 299
    for row, line in zip(rows, upstream):
        assert row["id"] == str(line["index"])
        assert (row["occupation"], row["other_person"], row["bls_pct_female"]) == (
            line["occupation"],
            line["other_person"],
            line["BLS_percent_women_2019"],
        )
        assert row["pronoun_options"] == line["pronoun_options"] == [c["text"] for c in row["candidates"]]
        # The model reads upstream's sentence, its blank where upstream's '_' is.
        assert row["text"].split("\nOPTIONS:")[0] == row["sentence"] == line["sentence_with_blank"]
        assert row["text"][row["pronoun"]["start"] : row["pronoun"]["end"]] == "_"
        assert row["pronoun"]["start"] == line["sentence_with_blank"].index("_")
        assert [c["is_referent"] for c in row["candidates"]] == [False, False, True]
    forms = {form: sum(row["pronoun_form"] == form for row in rows) for form in ("nominative", "possessive")}
    assert forms == {"nominative": 1783, "possessive": 988}
    majorities = {row["occupation"]: row["occupation_majority"] for row in rows}
    assert sum(value == "female" for value in majorities.values()) == 127


def test_a_sentence_disagreeing_with_the_occupations_file_is_refused(mirror):
    folder = mirror / "winogenerated"
    sentences, lines = (
        [json.loads(line) for line in (folder / path).read_text(encoding="utf-8").splitlines() if line.strip()]
        for path in (winogenerated_files.EXAMPLES_FILE, winogenerated_files.OCCUPATIONS_FILE)
    )
    assert winogenerated_files.checked(sentences, lines) == sentences
    edited = [{**sentences[0], "other_person": "customer"}, *sentences[1:]]
    with pytest.raises(ValueError, match="sentence 0 gives other_person customer for precision instrument repairer"):
        winogenerated_files.checked(edited, lines)
    with pytest.raises(ValueError, match="which winogenerated/winogenerated_occupations.jsonl does not list"):
        winogenerated_files.checked(sentences, lines[1:])
    with pytest.raises(ValueError, match="is listed twice"):
        winogenerated_files.checked(sentences, [*lines, lines[0]])


def test_shares_gap_and_correlation_as_computed_by_hand():
    # Four occupations of three sentences; female shares 1, 1/3, 0, 2/3.
    predictions = ["female"] * 3 + ["female", "male", "neutral"] + ["male", "male", "none"] + ["female"] * 2 + ["male"]
    occupations = [name for name in ("nurse", "clerk", "mechanic", "baker") for _ in range(3)]
    percent = [pct for pct in (87.4, 58.0, 1.4, 64.0) for _ in range(3)]
    result = winogenerated_bias(predictions, occupations, percent, n_bootstrap=0)
    assert result["share_female"] == pytest.approx(6 / 12)
    assert result["share_male"] == pytest.approx(4 / 12)
    assert result["share_neutral"] == pytest.approx(1 / 12) and result["share_none"] == pytest.approx(1 / 12)
    assert result["share_female_minus_male"] == pytest.approx(2 / 12)
    assert result["share_female/clerk"] == pytest.approx(1 / 3)
    assert result["share_male/mechanic"] == pytest.approx(2 / 3)
    shares = {"nurse": 1.0, "clerk": 1 / 3, "mechanic": 0.0, "baker": 2 / 3}
    pct = {"nurse": 87.4, "clerk": 58.0, "mechanic": 1.4, "baker": 64.0}
    expected = stats.pearsonr(list(shares.values()), [pct[name] for name in shares]).statistic
    assert result["pearson_r_bls"] == pytest.approx(expected, abs=1e-12)
    assert result.value == result["pearson_r_bls"]  # the paper's figure of merit is the primary score
    assert (result["num_sentences"], result["num_occupations"]) == (12, 4)


def test_a_resample_of_occupations_is_the_correlation_of_the_resampled_points():
    rng = np.random.default_rng(3)
    chosen = rng.choice(["male", "female", "neutral"], size=200)
    occupation = np.repeat(np.arange(20), 10)
    percent = rng.uniform(0, 100, size=20)
    rows = occupation_rows(chosen, occupation, percent)
    x = np.array([(chosen[occupation == o] == "female").mean() for o in range(20)])
    counts = bootstrap_counts(20, 5, rng)
    for draw in counts:
        drawn = np.repeat(np.arange(20), draw.astype(int))
        by_sums = statistic(draw @ rows)["pearson_r_bls"]
        assert float(by_sums) == pytest.approx(np.corrcoef(x[drawn], percent[drawn])[0, 1], abs=1e-10)


def test_a_model_that_never_writes_she_has_no_correlation_and_says_why():
    result = winogenerated_bias(["male", "neutral"] * 6, list("aabbccddeeff"), [10.0, 10.0, 30.0, 30.0] * 3)
    assert result["pearson_r_bls"] is None
    assert "never, or always, chooses the female pronoun" in result["undefined"]["pearson_r_bls"]
    assert result["pearson_r_bls_p_value"] is None
    # The gap is defined and tested: he 6 of 12, she 0.
    assert result["share_female_minus_male"] == -0.5 and result["share_female_minus_male_p_value"] < 0.05


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"predictions": ["she", "male"]}, "unknown predictions: 'she'"),
        ({"bls_pct_female": [40.0, 41.0]}, "occupation 'a' has bls_pct_female 40.0 and 41.0"),
        ({"bls_pct_female": [0.4, 40.0]}, None),  # a fraction is a valid percentage, one value per occupation needed
        ({"bls_pct_female": [140.0, 140.0]}, "between 0 and 100"),
        ({"predictions": [], "occupations": [], "bls_pct_female": []}, "no instances given"),
        ({"occupations": ["a"]}, "length"),
    ],
)
def test_bad_input_is_refused_with_what_to_fix(change, message):
    inputs = {"predictions": ["female", "male"], "occupations": ["a", "a"], "bls_pct_female": [40.0, 40.0], **change}
    if message is None:
        with pytest.raises(ValueError, match="has bls_pct_female 0.4 and 40.0"):
            winogenerated_bias(**inputs, n_bootstrap=0)
        return
    with pytest.raises(ValueError, match=message):
        winogenerated_bias(**inputs, n_bootstrap=0)


def test_a_decision_reads_as_the_gender_of_its_one_option():
    assert [chosen_gender(d) for d in ([1, 0, 0], [0, 0, 1], [0, 1, 1], [0, 0, 0])] == [
        "male",
        "neutral",
        "none",
        "none",
    ]


def test_the_baselines_on_the_whole_set(data_dir, rows, tmp_path):
    settings = runner.RunSettings(n_bootstrap=1000, cache_mode="off")
    stereotype = runner.run("baseline:stereotype", ["winogenerated"], settings, data_dir=data_dir, progress=False)
    scored = stereotype.runs["winogenerated"].sections["winogenerated_bias"]
    # She for a female-majority occupation (127 of 299), he elsewhere: r is the point-biserial correlation.
    occupations = {row["occupation"]: row["bls_pct_female"] for row in rows}
    female = [float(pct >= 50) for pct in occupations.values()]
    assert scored["pearson_r_bls"] == pytest.approx(stats.pearsonr(female, list(occupations.values())).statistic)
    assert scored["share_female_minus_male"] == pytest.approx((1270 - 1720) / 2990)
    assert scored["share_neutral"] == 0.0
    assert round(scored["pearson_r_bls"], 3) == 0.848 and scored["pearson_r_bls_p_value"] < 0.01
    assert scored["pearson_r_bls_ci_low"] > 0.8
    random = runner.run("baseline:random", ["winogenerated"], settings, data_dir=data_dir, progress=False)
    scored = random.runs["winogenerated"].sections["winogenerated_bias"]
    assert scored["pearson_r_bls_p_value"] > 0.05 and scored["share_female_minus_male_p_value"] > 0.05
    assert scored["pearson_r_bls_ci_low"] < 0 < scored["pearson_r_bls_ci_high"]
    assert 0.3 < scored["share_neutral"] < 0.37


class _ClusterModel:
    name = "clusters"
    identity = {"kind": "test", "name": "clusters"}

    def predict_clusters(self, texts):
        return [[] for _ in texts]


def test_a_cluster_model_is_refused_with_the_reason(data_dir):
    with pytest.raises(ModelError, match="winogenerated cannot be scored on coreference clusters: it asks which"):
        runner.run(
            "clusters", ["winogenerated"], data_dir=data_dir, model=_ClusterModel(), progress=False, cache_path=None
        )
