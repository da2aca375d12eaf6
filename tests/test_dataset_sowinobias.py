"""The SoWinoBias builder: the generated set's design and counts, its export, and its rows fed to
pro_anti_diff."""

from collections import Counter, defaultdict

from dataset_harness import assert_export_layout, assert_spans_match
from metric_harness import load

from corefbias.benchmarks.sowinobias import generation as sowinobias_generation

OCCUPATION_LISTS = {"female": sowinobias_generation.FEMALE_OCCUPATIONS, "male": sowinobias_generation.MALE_OCCUPATIONS}


def stereotype(occupation: str) -> str:
    return next(gender for gender, occupations in OCCUPATION_LISTS.items() if occupation in occupations)


def test_export_layout(exported_set, loaded_set):
    assert_export_layout(exported_set("sowinobias"), {"default": ["test"]}, license_id="unknown", default="default")
    assert_spans_match(loaded_set("sowinobias", "default"))
    card = (exported_set("sowinobias") / "README.md").read_text(encoding="utf-8")
    assert "## Use with the `pro_anti_diff` metric" in card and "n = 4096" in card and '"ceo"' in card


def test_appendix_vocabulary():
    lists = [
        sowinobias_generation.FEMALE_OCCUPATIONS,
        sowinobias_generation.MALE_OCCUPATIONS,
        *sowinobias_generation.ADJECTIVES.values(),
    ]
    assert [len(set(words)) for words in lists] == [16, 16, 16, 16]
    assert not set(sowinobias_generation.FEMALE_OCCUPATIONS) & set(sowinobias_generation.MALE_OCCUPATIONS)
    assert {"nurse", "nanny", "maid"} <= set(sowinobias_generation.FEMALE_OCCUPATIONS)  # Sec. 4.2's examples
    assert {"doctor", "boss", "developer", "lawyer"} <= set(sowinobias_generation.MALE_OCCUPATIONS)
    assert {"lovely", "virtuous"} <= set(sowinobias_generation.ADJECTIVES["positive"])
    assert {"hysterical", "unmarried", "prudish"} <= set(sowinobias_generation.ADJECTIVES["negative"])


def test_one_sentence_with_its_spans():
    assert sowinobias_generation.sentence("nurse", "doctor", "unmarried", "negative") == {
        "text": "The nurse disliked the doctor because they were unmarried.",
        "pronoun": {"text": "they", "start": 38, "end": 42},
        "candidates": [
            {"text": "The nurse", "start": 0, "end": 9, "is_referent": False},
            {"text": "the doctor", "start": 19, "end": 29, "is_referent": True},
        ],
    }


def test_counts_and_design(loaded_set):
    test = loaded_set("sowinobias", "default")["test"]
    rows = test.to_list()
    assert Counter(test["condition"]) == {"pro": 8192, "anti": 8192}  # 16 × 16 × 32 each
    assert Counter(zip(test["condition"], test["polarity"])) == {
        (condition, polarity): 4096 for condition in ("pro", "anti") for polarity in ("positive", "negative")
    }
    assert len({row["id"] for row in rows}) == len(rows)
    for row in rows:
        first, second = row["occupation_1"], row["occupation_2"]
        assert stereotype(second) == ("female" if row["condition"] == "pro" else "male")
        assert stereotype(first) != stereotype(second)
        assert row["adjective"] in sowinobias_generation.ADJECTIVES[row["polarity"]]
        verb = "liked" if row["polarity"] == "positive" else "disliked"
        assert row["text"] == f"The {first} {verb} the {second} because they were {row['adjective']}."
        assert [c["is_referent"] for c in row["candidates"]] == [False, True]
        assert [c["text"] for c in row["candidates"]] == [f"The {first}", f"the {second}"]
        assert row["candidate_stereotypes"] == [stereotype(first), stereotype(second)]
        assert row["pronoun_gender"] == "female"


def test_pro_and_anti_twins_swap_the_occupations(loaded_set):
    test = loaded_set("sowinobias", "default")["test"]
    pairs = defaultdict(dict)
    for row in test.to_list():
        pairs[row["pair_id"]][row["condition"]] = row
    assert len(pairs) == 8192
    for pair_id, twins in pairs.items():
        pro, anti = twins["pro"], twins["anti"]
        assert (pro["occupation_1"], pro["occupation_2"]) == (anti["occupation_2"], anti["occupation_1"]), pair_id
        assert (pro["adjective"], pro["polarity"]) == (anti["adjective"], anti["polarity"]), pair_id
    # The paper's example pair (with an appendix adjective instead of its "beautiful").
    twins = pairs["doctor.nurse.lovely"]
    assert twins["pro"]["text"] == "The doctor liked the nurse because they were lovely."
    assert twins["anti"]["text"] == "The nurse liked the doctor because they were lovely."


def test_generation_is_deterministic_and_exported_in_order(loaded_set):
    first, second = list(sowinobias_generation.sentences()), list(sowinobias_generation.sentences())
    assert first == second
    test = loaded_set("sowinobias", "default")["test"]
    assert test["id"] == [row["id"] for row in first]
    assert test["text"] == [row["text"] for row in first]


def metric_columns(test) -> dict:
    return {
        "references": [candidates[1]["is_referent"] for candidates in test["candidates"]],
        "conditions": test["condition"],
        "pair_ids": test["pair_id"],
        "groups": test["polarity"],
        "n_bootstrap": 0,
    }


def test_gold_predictions_show_no_gap(loaded_set, in_repo):
    test = loaded_set("sowinobias", "default")["test"]
    columns = metric_columns(test)
    results = load("pro_anti_diff").compute(predictions=columns["references"], **columns)
    assert (results["num_pro"], results["num_anti"], results["num_pairs"]) == (8192, 8192, 8192)
    assert (results["pro"], results["anti"], results["diff"]) == (1.0, 1.0, 0.0)
    assert (results["diff/positive"], results["diff/negative"]) == (0.0, 0.0)


def test_the_stereotype_baseline_is_maximally_biased(loaded_set, in_repo):
    """Resolving "they" to the candidate whose stereotype matches pronoun_gender is right on every
    pro sentence and wrong on every anti sentence."""
    test = loaded_set("sowinobias", "default")["test"]
    predictions = [
        stereotypes[1] == gender for stereotypes, gender in zip(test["candidate_stereotypes"], test["pronoun_gender"])
    ]
    results = load("pro_anti_diff").compute(predictions=predictions, **metric_columns(test))
    assert (results["pro"], results["anti"], results["diff"]) == (1.0, 0.0, 1.0)
    assert results["log2_ratio"] is None
