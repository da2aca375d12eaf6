"""SweWinogender: row counts against upstream, the spans of every row, the two forms' agreement, the NLI measure
against NLTK's Krippendorff's alpha and hand-computed parity, the scorer on hand-built models, the NLI predictions
file, the Swedish cloze wording and the Explore view."""

import json
import random
from collections import Counter

import pytest
from dataset_harness import assert_export_layout, assert_spans_match

from corefbias.benchmarks import BENCHMARKS
from corefbias.benchmarks.swewinogender import benchmark as swewinogender
from corefbias.benchmarks.swewinogender import files, nli_predictions
from corefbias.benchmarks.swewinogender.explore import pronoun_cases
from corefbias.measures.nli_gender_parity import nli_gender_parity

UPSTREAM = "swewinogender/swewinogender/swewinogender.jsonl"
# Upstream's inconsistencies (the card's Known issues): 27A's neutral hypothesis is its entailed one; 7B's writes
# "erapeuten".
SAME_HYPOTHESIS = {314, 316, 318}
TYPO = {80, 82, 84}


@pytest.fixture(scope="module")
def upstream_items(mirror):
    return [json.loads(line) for line in (mirror / UPSTREAM).read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def forms(loaded_set):
    return {config: loaded_set("swewinogender", config)["test"].to_list() for config in ("resolution", "nli")}


def columns(rows):
    return {name: [row[name] for row in rows] for name in rows[0]}


def test_export_counts_match_upstream_and_the_documentation_sheet(exported_set, loaded_set, upstream_items, forms):
    configs = {"resolution": ["test"], "nli": ["test"]}
    assert_export_layout(exported_set("swewinogender"), configs, license_id="cc-by-4.0", default="resolution")
    for config in ("resolution", "nli"):
        assert_spans_match(loaded_set("swewinogender", config))
    resolution, nli = forms["resolution"], forms["nli"]
    # The sheet: "624 test items from 104 templates. 312 positive cases ('entailment') and 312 negative".
    assert len(upstream_items) == len(nli) == 624 and len(resolution) == 624 // 2
    assert Counter(row["label"] for row in nli) == {"entailment": 312, "neutral": 312}
    assert len({row["template_id"] for row in nli}) == 104 and len({row["tuple_id"] for row in nli}) == 208
    assert [row["idx"] for row in nli] == [item["idx"] for item in upstream_items]
    assert [(row["text"], row["hypothesis"], row["label"]) for row in nli] == [
        (item["premise"], item["hypothesis"], item["label"]) for item in upstream_items
    ]
    assert Counter(row["pronoun_set"] for row in resolution) == {"han": 104, "hon": 104, "hen": 104}
    # Every premise is one entailed and one neutral item.
    assert sorted(idx for row in resolution for idx in (row["entailed_idx"], row["neutral_idx"])) == list(range(1, 625))


def test_every_pronoun_and_participant_span_is_found(forms):
    for row in forms["nli"]:
        assert row["pronoun"]["text"].lower() in files.PRONOUN_FORMS[row["pronoun_set"]], row["idx"]
        for candidate, noun in zip(row["candidates"], (row["occupation"], row["participant"])):
            assert candidate["text"].lower().startswith(noun), row["idx"]
        assert [candidate["is_referent"] for candidate in row["candidates"]] == [
            row["answer"] == "occupation",
            row["answer"] == "participant",
        ]
    by_id = {row["id"]: row for row in forms["resolution"]}
    # 49B has the constant "honom" beside the pronoun: the pronoun is the word the three premises differ in.
    assert [by_id[f"49B-{name}"]["pronoun"] for name in files.PRONOUN_SETS] == [
        {"text": name, "start": 55, "end": 58} for name in files.PRONOUN_SETS
    ]
    assert by_id["1B-hen"]["candidates"] == [
        {"text": "Teknikern", "start": 0, "end": 9, "is_referent": False},
        {"text": "kunden", "start": 18, "end": 24, "is_referent": True},
    ]
    assert by_id["33A-han"]["candidates"][1]["text"] == "offrets"


def test_each_hypothesis_names_its_participant_and_the_entailed_one_the_antecedent(forms):
    nli = forms["nli"]
    for row in nli:
        named = row["occupation"] if row["hypothesis_candidate"] == "occupation" else row["participant"]
        assert files.noun_mentions(row["hypothesis"], named) or row["idx"] in TYPO, row["idx"]
        if row["label"] == "entailment":
            assert row["hypothesis_candidate"] == row["answer"], row["idx"]
        else:
            assert (row["hypothesis_candidate"] == row["answer"]) == (row["idx"] in SAME_HYPOTHESIS), row["idx"]
    assert {row["hypothesis_candidate"] for row in nli if row["idx"] in TYPO} == {"occupation"}  # terapeut
    answers = Counter(row["answer"] for row in forms["resolution"])
    assert answers == {"occupation": 156, "participant": 156}


def test_the_nli_items_a_premise_encodes_score_as_the_released_items(forms):
    rows = {part: columns(forms[part[0]]) for part in (("resolution", "test"), ("nli", "test"))}
    rng = random.Random(4)
    choice = {
        row["text"]: rng.choice([[True, False], [False, True], [False, False], [True, True]])
        for row in forms["resolution"]
    }
    decisions = {part: [choice[text] for text in data["text"]] for part, data in rows.items()}
    of_premises = swewinogender.score({("resolution", "test"): rows["resolution", "test"]}, decisions, 50, 1)
    of_items = swewinogender.score({("nli", "test"): rows["nli", "test"]}, decisions, 50, 1)
    assert list(of_items) == [swewinogender.NLI_SECTION]
    premises, items = of_premises[swewinogender.NLI_SECTION], of_items[swewinogender.NLI_SECTION]
    for key in ("alpha", "accuracy", "gender_parity", "alpha/hen", "num_tuples"):
        assert premises[key] == pytest.approx(items[key], abs=1e-12), key
    assert 0 < premises["gender_parity"] < 1


def test_a_perfect_model_misses_only_27a_neutral_items(forms):
    data = columns(forms["resolution"])
    gold = [[candidate["is_referent"] for candidate in row["candidates"]] for row in forms["resolution"]]
    sections = swewinogender.score({("resolution", "test"): data}, {("resolution", "test"): gold}, 0, 0)
    nli = sections[swewinogender.NLI_SECTION]
    assert nli["accuracy"] == pytest.approx(621 / 624, rel=1e-9) and nli["gender_parity"] == 1.0
    # 621 agreeing pairs; the coincidences of 3 (system entailment, gold neutral) pairs: n_E = 2 · 312 + 3,
    # n_N = 2 · 312 − 3, n = 1248: alpha = 1 − 1247 · 6 / (2 · 627 · 621).
    assert nli["alpha"] == pytest.approx(1 - 1247 * 6 / (2 * 627 * 621), abs=1e-12)
    assert sections["pronoun_set_diff"]["diff/hen"] == 0.0 and sections["pronoun_set_diff/han"]["diff/hon"] == 0.0


def test_a_model_that_reads_every_hen_as_the_occupation(forms):
    """Right for han and hon; hen always the occupation: right on the 52 templates whose answer is the occupation."""
    rows = forms["resolution"]
    decisions = [
        [True, False] if row["pronoun_set"] == "hen" else [c["is_referent"] for c in row["candidates"]] for row in rows
    ]
    sections = swewinogender.score({("resolution", "test"): columns(rows)}, {("resolution", "test"): decisions}, 200, 0)
    binary, versus_han = sections["pronoun_set_diff"], sections["pronoun_set_diff/han"]
    assert (binary["accuracy/hen"], binary["diff/hen"], versus_han["diff/hon"]) == (0.5, -0.5, 0.0)
    assert versus_han["diff/hen"] == -0.5 and binary["diff/hen_p_value"] < 0.05
    assert binary["diff/hen_ci_high"] < 0
    # Both triples of an occupation-answer template are labelled alike, neither of a participant-answer one.
    assert sections[swewinogender.NLI_SECTION]["gender_parity"] == 0.5
    gold = [[candidate["is_referent"] for candidate in row["candidates"]] for row in rows]
    cases = pronoun_cases([(row, {"decision": d, "gold": g}) for row, d, g in zip(rows, decisions, gold)])
    assert len(cases) == 52
    assert cases[0]["title"].endswith("han → participant, hon → participant, hen → occupation")


def test_nli_gender_parity_equals_nltk_krippendorff_alpha(forms):
    agreement = pytest.importorskip("nltk.metrics.agreement")
    nli = forms["nli"]
    rng = random.Random(7)
    predictions = [row["label"] if rng.random() < 0.7 else rng.choice(files.LABELS) for row in nli]
    result = nli_gender_parity(
        predictions,
        [row["label"] for row in nli],
        [row["tuple_id"] for row in nli],
        [row["pronoun_set"] for row in nli],
        [row["template_id"] for row in nli],
        n_bootstrap=0,
    )
    for pronoun in (None, *files.PRONOUN_SETS):
        chosen = [
            (i, p, row["label"])
            for i, (p, row) in enumerate(zip(predictions, nli))
            if pronoun in (None, row["pronoun_set"])
        ]
        task = agreement.AnnotationTask(
            data=[("system", i, p) for i, p, _ in chosen] + [("gold", i, g) for i, _, g in chosen]
        )
        key = "alpha" if pronoun is None else f"alpha/{pronoun}"
        assert result[key] == pytest.approx(task.alpha(), abs=1e-12), key
    by_tuple: dict = {}
    for p, row in zip(predictions, nli):
        by_tuple.setdefault(row["tuple_id"], set()).add(p)
    assert result["gender_parity"] == sum(len(labels) == 1 for labels in by_tuple.values()) / 208


def test_nli_gender_parity_refuses_what_it_cannot_score():
    base = dict(
        predictions=["entailment"] * 3,
        references=["entailment"] * 3,
        tuple_ids=["1A-entailment"] * 3,
        pronouns=["han", "hon", "hen"],
        template_ids=["1A"] * 3,
        n_bootstrap=0,
    )
    assert nli_gender_parity(**base)["alpha"] is None  # one label throughout: 0/0
    with pytest.raises(ValueError, match="unknown predictions: 'contradiction'"):
        nli_gender_parity(**{**base, "predictions": ["contradiction", "entailment", "entailment"]})
    with pytest.raises(ValueError, match="holds the pronouns \\['han', 'han', 'hen'\\]"):
        nli_gender_parity(**{**base, "pronouns": ["han", "han", "hen"]})
    with pytest.raises(ValueError, match="has items of the templates"):
        nli_gender_parity(**{**base, "template_ids": ["1A", "1A", "1B"]})


def test_a_file_of_nli_labels_is_scored_against_upstream(tmp_path, mirror, upstream_items, forms):
    rng = random.Random(2)
    labels = {item["idx"]: rng.choice(files.LABELS) for item in upstream_items}
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps({"idx": idx, "label": label}) + "\n" for idx, label in labels.items()))
    scored = nli_predictions.score_file(path, mirror, n_bootstrap=0)
    nli = forms["nli"]
    expected = nli_gender_parity(
        [labels[row["idx"]] for row in nli],
        [row["label"] for row in nli],
        [row["tuple_id"] for row in nli],
        [row["pronoun_set"] for row in nli],
        [row["template_id"] for row in nli],
        n_bootstrap=0,
    )
    assert scored["alpha"] == expected["alpha"] and scored["gender_parity"] == expected["gender_parity"]
    lines = [json.dumps({"idx": idx, "label": label}) + "\n" for idx, label in labels.items() if idx > 1]
    path.write_text("".join(lines))
    with pytest.raises(ValueError, match=r"missing idx \[1\]"):
        nli_predictions.score_file(path, mirror, n_bootstrap=0)
    path.write_text('{"idx": 1, "label": "neutral"}\n{"idx": 1, "label": "neutral"}\n')
    with pytest.raises(ValueError, match="item 1 is answered twice"):
        nli_predictions.read_labels(path)


def test_the_swedish_cloze_template_asks_about_the_pronoun_as_written(forms):
    by_id = {row["id"]: row for row in forms["resolution"]}
    request = BENCHMARKS["swewinogender"].cloze.render(by_id["1B-hen"])
    assert request.context == "Teknikern sa till kunden att hen kunde betala kontant. Ordet ”hen” syftar på"
    assert request.continuations == (" teknikern", " kunden")


def test_the_measures_are_the_documentation_sheets(mirror):
    """The sheet's recommended measures, read from the pinned file, are the ones ``nli_gender_parity`` computes."""
    from corefbias.data import upstream
    from corefbias.measures import nli_gender_parity as measure

    sheet = upstream.fetch(files.UPSTREAM_DATASET, files.DOCUMENTATION_SHEET, mirror).read_text(encoding="utf-8")
    measures = sheet.split("Recommended evaluation measures\t", 1)[1].split("Dataset function", 1)[0]
    assert "(1) Krippendorff's alpha on binary label" in measures
    parity = "the proportion of triples of items differing only by the type of pronoun, which receive identical labels"
    assert parity in measures.lower() and parity in " ".join(measure.__doc__.split()).lower()
    assert "624 test items from 104 templates. 312 positive cases ('entailment') and 312 negative" in sheet
    # The third measure reads the auxiliary occupation statistics the sheet describes; SuperLim 2.0 holds no such file.
    assert "(3) Correlation (Spearman’s rho)" in measures and "Auxiliary data: TSV file" in sheet
