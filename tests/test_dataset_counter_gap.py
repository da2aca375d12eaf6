"""The Counter-GAP builder: its export, counts and quadruples, and its rows fed to ΔI."""

from collections import Counter, defaultdict

import pytest
from dataset_harness import assert_export_layout, assert_spans_match, builder_module, repeated_rows
from metric_harness import load

from corefbias.data import spans

ROLES = ["original", "gender_controlled", "gender_swapped_1", "gender_swapped_2"]
CONFIGS = ["default", "withdot"]


def test_export_layout(exported_set, loaded_set):
    assert_export_layout(
        exported_set("counter_gap"), {c: ["test"] for c in CONFIGS}, license_id="mit", default="default"
    )
    for config in CONFIGS:
        assert_spans_match(loaded_set("counter_gap", config))


@pytest.mark.parametrize("config", CONFIGS)
def test_counter_gap_counts(loaded_set, config):
    test = loaded_set("counter_gap", config)["test"]
    assert test.num_rows == 4008
    roles = defaultdict(dict)
    for quadruple, role, gender, source in zip(test["quadruple_id"], test["role"], test["gender"], test["source"]):
        roles[quadruple][role] = (gender, source)
    assert len(roles) == 1002
    assert all(sorted(by_role) == sorted(ROLES) for by_role in roles.values())
    assert Counter(by_role["original"][0] for by_role in roles.values()) == {"female": 501, "male": 501}
    assert all(len({source for _, source in by_role.values()}) == 1 for by_role in roles.values())
    assert Counter(test["source"]) == {"Gutenberg": 2292, "BookCorpus": 1716}
    assert all(len(candidates) == 2 for candidates in test["candidates"])


def test_the_cards_neither_rows_and_repeated_quadruples(loaded_set):
    test = loaded_set("counter_gap", "default")["test"]
    neither = {row["quadruple_id"] for row in test if not any(c["is_referent"] for c in row["candidates"])}
    assert len(neither) == 32 and {"189", "243", "246"} <= neither
    assert sum(quadruple in neither for quadruple in test["quadruple_id"]) == 128
    repeated = repeated_rows(test, ignoring={"id", "quadruple_id", "book"})
    assert sorted(repeated) == [
        ["834", "866"],
        ["834-control", "866-control"],
        ["834-swap-1", "866-swap-1"],
        ["834-swap-2", "866-swap-2"],
    ]


def test_counter_gap_configs_differ_only_in_title_dots(loaded_set):
    dotless = loaded_set("counter_gap", "default")["test"]
    withdot = loaded_set("counter_gap", "withdot")["test"]
    assert dotless["id"] == withdot["id"]
    differing = [(a, b) for a, b in zip(dotless["text"], withdot["text"]) if a != b]
    assert differing and all(len(b) > len(a) and b.count(".") > a.count(".") for a, b in differing)


def test_counter_gap_rows_feed_delta_i(loaded_set, in_repo):
    test = loaded_set("counter_gap", "default")["test"]
    references = [[candidate["is_referent"] for candidate in row] for row in test["candidates"]]
    results = load("counter_gap_delta_i").compute(
        predictions=references,
        references=references,
        quadruple_ids=test["quadruple_id"],
        roles=test["role"],
        genders=test["gender"],
        n_bootstrap=0,
    )
    assert results["num_quadruples"] == 1002
    assert results["accuracy"] == 1.0
    assert results["delta_i"] == 0.0


def test_an_offset_that_misses_its_text_is_an_error_naming_the_row():
    counter_gap = builder_module("counter_gap")
    row = {
        "ID": "7-swap-1",
        "Text": "Ann told Bea that she won.",
        "Pronoun": "she",
        "Pronoun-offset": "18",
        "A": "Ann",
        "A-offset": "0",
        "A-coref": "TRUE",
        "B": "Bea",
        "B-offset": "9",
        "B-coref": "FALSE",
        "Book": "vendetta.epub",
    }
    ok = counter_gap.example(row)
    assert ok["candidates"][1] == {"text": "Bea", "start": 9, "end": 12, "is_referent": False}
    assert (ok["quadruple_id"], ok["role"], ok["gender"], ok["source"]) == (
        "7",
        "gender_swapped_1",
        "female",
        "BookCorpus",
    )
    with pytest.raises(spans.SpanError, match=r"row 7-swap-1: B 'Bea' is not at offset 10"):
        counter_gap.example({**row, "B-offset": "10"})


def test_counter_gap_source_from_book_column():
    counter_gap = builder_module("counter_gap")
    assert counter_gap.source_of("vendetta.epub", "1") == "BookCorpus"
    assert counter_gap.source_of("pg17314 Five Children and It (by E. Nesbit)", "1") == "Gutenberg"
    assert (
        counter_gap.source_of("74-0 The Adventures of Tom Sawyer (by Mark Twain (Samuel Clemens))", "1") == "Gutenberg"
    )
    with pytest.raises(ValueError, match="row 9"):
        counter_gap.source_of("some book", "9")
