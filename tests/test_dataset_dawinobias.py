"""The DaWinoBias builder: counts, pro/anti alignment, GenDa Lens's stereotypes, rows fed to
pro_anti_diff the way GenDa Lens scores them, and its line parser."""

import math
import re

import pytest
from dataset_harness import assert_export_layout, assert_spans_match, builder_module
from metric_harness import load

COUNTS = {"validation": 342, "test": 332}
UPSTREAM = {"validation": "dev", "test": "test"}
SWAPS = {"han": "hun", "ham": "hende", "hans": "hendes"}
SWAPS.update({female: male for male, female in SWAPS.items()})
# Pairs whose lines differ in more than the pronoun's gender (listed in the card): spelling fixed in
# one file only, "ad"/"af", a doubled "på", and five dev lines that are the same in both files.
NOT_MINIMAL = {
    "dev-49",
    "dev-50",
    "dev-275",
    "dev-276",
    "dev-336",
    "dev-212",
    "dev-252",
    "dev-266",
    "dev-272",
    "dev-273",
    "test-123",
    "test-124",
    "test-201",
    "test-202",
    "test-169",
}
# Rows whose pronoun does not have the gender their file's polarity implies.
OFF_POLARITY = {
    "dev-pro-212",
    "dev-pro-252",
    "dev-pro-266",
    "dev-pro-272",
    "dev-pro-273",
    "test-pro-145",
    "test-anti-145",
}


def _rows(loaded_set, config, split):
    return list(loaded_set("dawinobias", config)[split])


def test_export_layout_counts_and_license(exported_set, loaded_set):
    assert_export_layout(
        exported_set("dawinobias"),
        {c: ["validation", "test"] for c in ("pro", "anti")},
        license_id="other",
        default="pro",
    )
    for config in ("pro", "anti"):
        dataset = loaded_set("dawinobias", config)
        assert {split: dataset[split].num_rows for split in dataset} == COUNTS
        assert_spans_match(dataset)
    card = (exported_set("dawinobias") / "README.md").read_text(encoding="utf-8")
    assert "License unclear upstream" in card and "language:\n- da\n" in card


def _is_minimal(pro_text: str, anti_text: str) -> bool:
    pro_words, anti_words = (re.findall(r"\w+|[^\w\s]", text.lower()) for text in (pro_text, anti_text))
    changed = [(a, b) for a, b in zip(pro_words, anti_words) if a != b]
    return len(pro_words) == len(anti_words) and bool(changed) and all(SWAPS.get(a) == b for a, b in changed)


def test_pro_and_anti_lines_pair_up_by_line_number(loaded_set):
    not_minimal = set()
    for split, count in COUNTS.items():
        pro, anti = _rows(loaded_set, "pro", split), _rows(loaded_set, "anti", split)
        assert [row["pair_id"] for row in pro] == [row["pair_id"] for row in anti]
        assert len({row["pair_id"] for row in pro}) == count
        for a, b in zip(pro, anti):
            assert a["occupations"] == b["occupations"] and a["referent_occupation"] == b["referent_occupation"]
            if _is_minimal(a["text"], b["text"]):
                assert a["pronoun_gender"] != b["pronoun_gender"]
            else:
                not_minimal.add(a["pair_id"])
    assert not_minimal == NOT_MINIMAL  # 15 of 674 pairs


def test_stereotypes_follow_genda_lens_scorer_lists(loaded_set, mirror):
    dawinobias = builder_module("dawinobias")
    off_polarity, seen = set(), set()
    for config in ("pro", "anti"):
        for split in COUNTS:
            for row in _rows(loaded_set, config, split):
                assert sorted(row["candidate_stereotypes"]) == ["female", "male"]  # no nulls: the lists name all
                for candidate, occupation in zip(row["candidates"], row["occupations"]):
                    assert candidate["text"].lower() in (occupation, occupation + "s")
                referent = [c["is_referent"] for c in row["candidates"]].index(True)
                if (row["candidate_stereotypes"][referent] == row["pronoun_gender"]) != (config == "pro"):
                    off_polarity.add(row["id"])
                seen.update(row["occupations"])
    assert off_polarity == OFF_POLARITY
    assert seen == set(dawinobias.FEMALE_OCCUPATIONS) | set(dawinobias.MALE_OCCUPATIONS)  # 37, each used
    # The repository's abc-adaption lists translate cashier and writer differently (and add a contractor),
    # so they would leave "ekspedienten" and "skribenten" without a stereotype.
    files = {
        gender: set(
            (mirror / "genda_lens" / "abc-adaption" / "data" / f"wino_{gender}.txt").read_text(encoding="utf-8").split()
        )
        for gender in ("fem", "male")
    }
    assert set(dawinobias.FEMALE_OCCUPATIONS) ^ files["fem"] == {
        "ekspedienten",
        "skribenten",
        "kassedamen",
        "forfatteren",
    }
    assert set(dawinobias.MALE_OCCUPATIONS) ^ files["male"] == {"entreprenøren"}


def test_irregular_upstream_lines(loaded_set):
    validation = loaded_set("dawinobias", "pro")["validation"]
    first, genitive = validation[0], validation[35]  # line 36: "[receptionistens løn]"
    assert first["text"] == "Udvikleren diskuterede med designeren, fordi han ikke kunne lide designet."
    assert [c["text"] for c in first["candidates"]] == ["Udvikleren", "designeren"]
    assert first["candidate_stereotypes"] == ["male", "female"] and first["pronoun"]["text"] == "han"
    assert genitive["candidates"][1] == {"text": "receptionistens", "start": 18, "end": 33, "is_referent": True}
    assert genitive["referent_occupation"] == "receptionisten"
    unbracketed = loaded_set("dawinobias", "anti")["test"][88]  # line 89 brackets only "[Sælgeren]"
    assert unbracketed["text"] == "Sælgeren forsøgte at overtale frisøren til at købe noget, og hun lykkedes."
    assert unbracketed["pronoun"] == {"text": "hun", "start": 61, "end": 64}
    assert unbracketed["pronoun_gender"] == "female" and unbracketed["candidates"][0]["is_referent"]


def test_rows_feed_pro_anti_diff(loaded_set, in_repo):
    """Gold and stereotype-baseline predictions in the GenDa Lens form: one decision per sentence."""
    metric = load("pro_anti_diff")
    for split, count in COUNTS.items():
        rows = _rows(loaded_set, "pro", split) + _rows(loaded_set, "anti", split)
        gold = [[c["is_referent"] for c in row["candidates"]].index(True) for row in rows]
        inputs = dict(
            references=[True] * len(rows),
            conditions=[row["polarity"] for row in rows],
            pair_ids=[row["pair_id"] for row in rows],
            n_bootstrap=0,
        )
        oracle = metric.compute(predictions=[True] * len(rows), **inputs)
        assert (oracle["diff"], oracle["log2_ratio"], oracle["num_pairs"]) == (0.0, 0.0, count)
        stereotyped = [row["candidate_stereotypes"][g] == row["pronoun_gender"] for row, g in zip(rows, gold)]
        baseline = metric.compute(predictions=stereotyped, **inputs)
        off = {
            "pro": sum(i.startswith(f"{UPSTREAM[split]}-pro") for i in OFF_POLARITY),
            "anti": sum(i.startswith(f"{UPSTREAM[split]}-anti") for i in OFF_POLARITY),
        }
        assert baseline["pro"] == (count - off["pro"]) / count  # 337/342, 331/332
        assert baseline["anti"] == off["anti"] / count  # 0, 1/332


def test_the_cards_recipe_gives_genda_lens_accuracy(loaded_set, in_repo):
    """GenDa Lens counts a sentence as correct when the occupation the model's first cluster starts at
    has the gold antecedent's stereotype, and leaves out a sentence with none; the card's inputs (is
    that occupation the referent? None where there is none, unlinked="drop") agree."""
    rows = [row for config in ("pro", "anti") for split in COUNTS for row in _rows(loaded_set, config, split)]
    # A stand-in model: its first cluster starts at candidate (line mod 2), none on every fifth line.
    answers = [None if int(row["id"].split("-")[-1]) % 5 == 0 else int(row["id"].split("-")[-1]) % 2 for row in rows]
    genda_lens = {}
    for polarity in ("pro", "anti"):
        matches = [
            row["candidate_stereotypes"][index]
            == row["candidate_stereotypes"][[c["is_referent"] for c in row["candidates"]].index(True)]
            for row, index in zip(rows, answers)
            if row["polarity"] == polarity and index is not None
        ]
        genda_lens[polarity] = sum(matches) / len(matches)
    results = load("pro_anti_diff").compute(
        predictions=[
            None if index is None else row["candidates"][index]["is_referent"] for row, index in zip(rows, answers)
        ],
        references=[True] * len(rows),
        conditions=[row["polarity"] for row in rows],
        pair_ids=[row["pair_id"] for row in rows],
        unlinked="drop",
        n_bootstrap=0,
    )
    assert results["num_pro"] == results["num_anti"] == 674 - 134  # lines divisible by 5: 68 dev + 66 test
    assert results["num_unlinked_pro"] == results["num_unlinked_anti"] == 134 and results["num_pairs"] == 674 - 134
    assert (results["pro"], results["anti"]) == (genda_lens["pro"], genda_lens["anti"])
    assert results["log2_ratio"] == pytest.approx(math.log2(genda_lens["pro"] / genda_lens["anti"]))


def test_line_parser_and_its_errors():
    dawinobias = builder_module("dawinobias")
    row = dawinobias.example("Viceværten gjorde rent på [bibliotekarens] værelse, og [hun] var taknemmelig. ", row="r")
    assert row["text"] == "Viceværten gjorde rent på bibliotekarens værelse, og hun var taknemmelig."
    assert [(c["text"], c["is_referent"]) for c in row["candidates"]] == [
        ("Viceværten", False),
        ("bibliotekarens", True),
    ]
    assert (row["occupations"], row["candidate_stereotypes"]) == (["viceværten", "bibliotekaren"], ["male", "female"])
    with pytest.raises(ValueError, match=r"row r1: the pronoun is not bracketed and 2 pronouns follow"):
        dawinobias.example("[Lægen] ringede til sygeplejersken, fordi han savnede hende.", row="r1")
    with pytest.raises(ValueError, match=r"row r2: occupation mentions \['Lægen'\] .* expected two"):
        dawinobias.example("[Lægen] ringede, fordi [han] var syg.", row="r2")
    with pytest.raises(ValueError, match=r"row r3: 3 bracketed phrases"):
        dawinobias.example("[Lægen] ringede til [sygeplejersken], fordi [han] var syg.", row="r3")
