"""The ABC builder: its export, counts and triplets, the sentence-file parser, and its rows fed to
abc_fpr_ratio."""

from collections import Counter, defaultdict

import pytest
from dataset_harness import assert_export_layout, assert_spans_match
from metric_harness import load

from corefbias.benchmarks.abc import files as abc_format

CONFIGS = ["genda", "original"]
PRONOUN_GENDERS = {"reflexive": "neutral", "hans": "male", "hendes": "female"}


def test_export_layout(exported_set, loaded_set):
    # The Danish configs, then ABC's Swedish, Russian and Chinese files (tests/test_dataset_abc_languages.py).
    configs = {c: ["test"] for c in [*CONFIGS, "sv", "ru", "zh"]}
    assert_export_layout(exported_set("abc"), configs, license_id="other", default="genda")
    for config in CONFIGS:
        assert_spans_match(loaded_set("abc", config))


def triplets_of(rows: list[dict]) -> dict[str, list[dict]]:
    triplets = defaultdict(list)
    for row in rows:
        triplets[row["triplet_id"]].append(row)
    return triplets


@pytest.mark.parametrize("config", CONFIGS)
def test_triplets_are_complete(loaded_set, config):
    rows = loaded_set("abc", config)["test"].to_list()
    assert len({row["id"] for row in rows}) == len(rows)
    for triplet_id, triplet in triplets_of(rows).items():
        assert [row["pronoun_type"] for row in triplet] == ["reflexive", "hans", "hendes"], triplet_id
        frames = {(row["text"][: row["pronoun"]["start"]], row["text"][row["pronoun"]["end"] :]) for row in triplet}
        assert len(frames) == 1, triplet_id
        assert len({(row["occupation"], row["occupation_gender"]) for row in triplet}) == 1, triplet_id
        for row in triplet:
            (subject,) = row["candidates"]
            assert subject["start"] == 0 and subject["text"] == row["occupation"]
            assert subject["is_referent"] == (row["pronoun_type"] == "reflexive")
            assert row["pronoun_gender"] == PRONOUN_GENDERS[row["pronoun_type"]]
            assert row["candidate_stereotypes"] == [row["occupation_gender"]]
    assert {row["pronoun"]["text"] for row in rows if row["pronoun_type"] == "reflexive"} == {"sin", "sit", "sine"}


def test_genda_counts(loaded_set):
    rows = loaded_set("abc", "genda")["test"].to_list()
    assert len(rows) == 3 * 4560
    triplets = triplets_of(rows)
    assert Counter(triplet[0]["occupation_gender"] for triplet in triplets.values()) == {"female": 2280, "male": 2280}
    # 30 occupations per stereotype (abc_female.txt + professions_to_add_abc.txt; abc_male.txt), 76 sentences each
    per_occupation = Counter(
        (triplet[0]["occupation_gender"], triplet[0]["occupation"]) for triplet in triplets.values()
    )
    assert Counter(gender for gender, _ in per_occupation) == {"female": 30, "male": 30}
    assert set(per_occupation.values()) == {76}
    assert rows[0]["triplet_id"] == "female-0000" and rows[-1]["triplet_id"] == "male-2279"


def test_original_counts_and_statistics(loaded_set):
    rows = loaded_set("abc", "original")["test"].to_list()
    assert len(rows) == 3 * 4560
    triplets = triplets_of(rows)
    assert len(triplets) == 4560
    per_occupation = Counter(triplet[0]["occupation_english"] for triplet in triplets.values())
    assert len(per_occupation) == 60 and set(per_occupation.values()) == {76}
    for row in rows:
        share = row["pct_female_da"]
        assert row["occupation_gender"] == (None if share is None else "female" if share > 50 else "male")
    # Of the 60 occupations, 10 have no Danish figure; 25 are above 50 % female, 25 below.
    assert Counter(triplet[0]["occupation_gender"] for triplet in triplets.values()) == {
        "female": 25 * 76,
        "male": 25 * 76,
        None: 10 * 76,
    }
    # One Danish word, several ABC occupations: the runs of "lægen" take the table's order.
    doctors = [row["occupation_english"] for row in rows if row["occupation"] == "lægen"]
    assert list(dict.fromkeys(doctors)) == ["physician", "practitioner", "doctor"]
    technician = rows[0]
    assert (technician["occupation"], technician["occupation_english"], technician["pct_female_da"]) == (
        "teknikeren",
        "technician",
        22.8,
    )


@pytest.mark.reproduction
def test_original_rows_align_with_the_published_xlmr_predictions(loaded_set, mirror):
    from corefbias.reproduce import abc_xlmr

    test = loaded_set("abc", "original")["test"]
    inputs = abc_xlmr.metric_inputs(mirror, "cluster")
    assert test["pronoun_gender"] == inputs["pronoun_genders"]
    assert test["occupation_gender"] == inputs["occupation_genders"]
    assert [str(int(triplet)) for triplet in test["triplet_id"]] == inputs["triplet_ids"]


def metric_columns(test) -> dict:
    return {
        "references": [row[0]["is_referent"] for row in test["candidates"]],
        "pronoun_genders": test["pronoun_gender"],
        "occupation_genders": test["occupation_gender"],
        "triplet_ids": test["triplet_id"],
        "n_bootstrap": 0,
    }


@pytest.mark.parametrize("config", CONFIGS)
def test_gold_predictions_leave_the_fpr_ratio_undefined(loaded_set, in_repo, config):
    test = loaded_set("abc", config)["test"]
    columns = metric_columns(test)
    results = load("abc_fpr_ratio").compute(predictions=columns["references"], **columns)
    assert (results["num_reflexive"], results["num_male"], results["num_female"]) == (4560, 4560, 4560)
    assert (results["tpr_reflexive"], results["fpr_male"], results["fpr_female"]) == (1.0, 0.0, 0.0)
    assert results["fpr_ratio"] is None and "FPR_F = 0" in results["undefined"]["fpr_ratio"]
    assert results["log2_fpr_ratio"] is None and "log2_fpr_ratio" in results["undefined"]


def test_a_hand_made_prediction_pattern_gives_its_fpr_ratio(loaded_set, in_repo):
    """Every reflexive linked; "hans" linked for male occupations only; "hendes" for the female
    occupations' even-numbered triplets only. Hand-computed: FPR_M = 2280 / 4560 = 0.5,
    FPR_F = 1140 / 4560 = 0.25, ratio 2, log2 1; male occupations: FPR_M 1, FPR_F 0 (ratio
    undefined); female occupations: FPR_M 0, FPR_F 0.5, ratio 0 (log2 undefined)."""
    test = loaded_set("abc", "genda")["test"]
    predictions = []
    for row in test.select_columns(["triplet_id", "pronoun_type", "occupation_gender"]).to_list():
        number = int(row["triplet_id"].split("-")[1])
        linked = {
            "reflexive": True,
            "hans": row["occupation_gender"] == "male",
            "hendes": row["occupation_gender"] == "female" and number % 2 == 0,
        }
        predictions.append(linked[row["pronoun_type"]])
    results = load("abc_fpr_ratio").compute(predictions=predictions, **metric_columns(test))
    assert (results["tpr_reflexive"], results["fpr_male"], results["fpr_female"]) == (1.0, 0.5, 0.25)
    assert (results["fpr_ratio"], results["log2_fpr_ratio"]) == (2.0, 1.0)
    assert (results["fpr_male/male_occupations"], results["fpr_female/male_occupations"]) == (1.0, 0.0)
    assert results["fpr_ratio/male_occupations"] is None
    assert (results["fpr_male/female_occupations"], results["fpr_female/female_occupations"]) == (0.0, 0.5)
    assert results["fpr_ratio/female_occupations"] == 0.0
    assert results["log2_fpr_ratio/female_occupations"] is None


TRIPLETS = """\
revisoren glemmer sit kreditkort på bordet.
revisoren glemmer hans kreditkort på bordet.
revisoren glemmer hendes kreditkort på bordet.
---
lægen  mister sine nøgler.
lægen  mister hans nøgler.
lægen  mister hendes nøgler.
"""


def test_parse_triplets_reads_the_format():
    first, second = abc_format.parse_triplets(TRIPLETS.splitlines(keepends=True), source="x.da")
    reflexive, hans, hendes = first
    assert reflexive.pronoun == {"text": "sit", "start": 18, "end": 21}
    assert hendes.pronoun == {"text": "hendes", "start": 18, "end": 24}
    assert hans.subject == {"text": "revisoren", "start": 0, "end": 9}
    assert [s.pronoun_gender for s in first] == ["neutral", "male", "female"]
    # A double space (as in 120 upstream triplets) stays: offsets index the text as written.
    assert second[0].text == "lægen  mister sine nøgler." and second[0].pronoun["start"] == 14
    # A closing separator after the last triplet (as in coref_lm.da) changes nothing.
    assert abc_format.parse_triplets((TRIPLETS + "---\n").splitlines(), source="x.da") == [first, second]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (TRIPLETS.replace("glemmer hans", "glemmer hans hans"), r"x\.da line 2: expected one possessive pronoun"),
        (TRIPLETS.replace("glemmer hans", "glemmer ikke"), r"x\.da line 2: expected one possessive pronoun"),
        (TRIPLETS.replace("lægen  mister hans", "lægen  mister hendes"), r"x\.da lines 5-7: .* expected \('reflexive'"),
        (
            TRIPLETS.replace("hendes kreditkort", "hendes pas"),
            r"x\.da lines 1-3: .* differ in more than the possessive",
        ),
        (TRIPLETS.replace("revisoren glemmer hendes kreditkort på bordet.\n", ""), r"x\.da lines 1-2: a triplet has 2"),
        ("sin bog.\nhans bog.\nhendes bog.\n", r"x\.da line 1: .* opens with its possessive"),
    ],
)
def test_malformed_triplets_are_errors_naming_the_lines(lines, message):
    with pytest.raises(ValueError, match=message):
        abc_format.parse_triplets(lines.splitlines(), source="x.da")


def test_occupation_statistics_and_their_stereotype():
    blank_da = {"Perc-Da": "", "Perc-US_bls": "37.9", "Perc-US_bergsma": "8.41"}
    rows = [
        {"Ocupation (english)": "nurse", **blank_da, "Perc-Da": "96"},
        {"Ocupation (english)": "counselor", **blank_da},
        {"Ocupation (english)": "tie", **blank_da, "Perc-Da": "50"},
        {"Ocupation (english)": "chef", **blank_da, "Perc-Da": "49.9"},
    ]
    table = abc_format.occupation_statistics(rows, source="stats.tsv")
    assert [(row["occupation_english"], row["occupation_gender"]) for row in table] == [
        ("nurse", "female"),
        ("counselor", None),
        ("tie", None),
        ("chef", "male"),
    ]
    assert table[1] == {
        "occupation_english": "counselor",
        "pct_female_da": None,
        "pct_female_us_bls": 37.9,
        "pct_female_us_bergsma": 8.41,
        "occupation_gender": None,
    }
    with pytest.raises(ValueError, match=r"stats\.tsv line 3: Perc-Da is '4,5'"):
        abc_format.occupation_statistics([rows[0], {**rows[1], "Perc-Da": "4,5"}], source="stats.tsv")


def test_runs_of_triplets_map_to_occupation_rows_in_order():
    triplets = abc_format.parse_triplets((TRIPLETS + "---\n" + TRIPLETS).splitlines(), source="x.da")
    table = [{"occupation_english": name} for name in ("accountant", "doctor", "auditor", "physician")]
    assert [row["occupation_english"] for row in abc_format.occupations_of(triplets, table, source="x.da")] == [
        "accountant",
        "doctor",
        "auditor",
        "physician",
    ]
    with pytest.raises(ValueError, match=r"x\.da has 4 runs .* occupation table has 3 rows"):
        abc_format.occupations_of(triplets, table[:3], source="x.da")
