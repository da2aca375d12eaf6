"""KnowRef: the export against upstream's 1,269 rows (text, pronoun, candidates, answer, gender), the repairs and the
upstream fields that are not read, the candidates' spans, the blocks that make the comparison unpaired, and the
scores, by hand and from a file of clusters."""

import json
import re
from collections import Counter

import pytest
from dataset_harness import assert_export_layout, assert_spans_match

from corefbias.benchmarks import BENCHMARKS
from corefbias.benchmarks.knowref import benchmark, design, explore, files
from corefbias.harness.prediction_files import scoring as file_scoring

PART = ("default", "test")


@pytest.fixture(scope="module")
def rows(loaded_set):
    return loaded_set("knowref", "default")["test"].to_list()


@pytest.fixture(scope="module")
def released(mirror):
    return files.load_test(mirror)


def test_export_layout_and_spans(exported_set, loaded_set):
    assert_export_layout(exported_set("knowref"), {"default": ["test"]}, license_id="cc-by-sa-3.0", default="default")
    assert_spans_match(loaded_set("knowref", "default"))


def test_every_upstream_row_is_a_row_with_its_sentence_pronoun_candidates_and_answer(rows, released):
    assert len(rows) == len(released) == 1269
    repaired = {(repair.row, repair.field): repair.repaired for repair in files.REPAIRS}
    for row, record in zip(rows, released):
        index = row["upstream_row"]
        assert row["id"] == f"test-{index}"
        pronoun = row["pronoun"]
        bracketed = row["text"][: pronoun["start"]] + f"[{pronoun['text']}]" + row["text"][pronoun["end"] :]
        assert bracketed == repaired.get((index, "sentence_with_pronoun"), record["sentence_with_pronoun"])
        names = [repaired.get((index, field), record[field])[0] for field in ("candidate0", "candidate1")]
        assert [candidate["text"] for candidate in row["candidates"]] == names
        answer = repaired.get((index, "correct_candidate"), record["correct_candidate"])[0]
        assert [candidate["text"] == answer for candidate in row["candidates"]] == [
            candidate["is_referent"] for candidate in row["candidates"]
        ]
        assert sum(candidate["is_referent"] for candidate in row["candidates"]) == 1
        assert (row["original_id"], row["original_sentence"]) == (record["oiginal_id"], record["original_sentence"][0])
        assert (row["is_pronoun_male"], row["correct_candidate_idx"]) == (
            record["is_pronoun_male"],
            record["correct_candidate_idx"],
        )


def test_the_pronoun_gender_is_the_pronouns_own(rows):
    words = Counter((row["pronoun"]["text"], row["pronoun_gender"]) for row in rows)
    assert words == {
        ("she", "female"): 463,
        ("her", "female"): 115,
        ("he", "male"): 448,
        ("his", "male"): 107,
        ("him", "male"): 87,
        ("they", "neutral"): 38,
        ("them", "neutral"): 6,
        ("their", "neutral"): 5,
    }


def test_the_heuristic_upstream_fields_disagree_as_the_card_counts(rows):
    gendered = [row for row in rows if row["pronoun_gender"] != "neutral"]
    flagged = Counter((row["pronoun_gender"], row["is_pronoun_male"]) for row in gendered)
    assert (flagged["female", True], flagged["male", False]) == (154, 74)  # 228 of 1,220
    gold = [[candidate["is_referent"] for candidate in row["candidates"]].index(True) for row in rows]
    assert sum(index != row["correct_candidate_idx"] for index, row in zip(gold, rows)) == 299
    obi_wan = next(row for row in rows if row["text"].startswith("Obi-Wan visits Yoda"))
    assert (obi_wan["pronoun"]["text"], obi_wan["is_pronoun_male"]) == ("he", False)


def test_each_repair_holds_upstreams_value_and_fixes_a_row_that_contradicts_itself(released):
    for repair in files.REPAIRS:
        assert released[repair.row][repair.field] == repair.upstream
    christina = released[237]
    assert christina["candidate0"] == christina["candidate1"] == ["Christina"]
    assert released[476]["sentence_with_pronoun"].count("[") == 2
    for row in (645, 646, 1084):
        record = released[row]
        missing = [field for field in files.CANDIDATE_FIELDS if record[field][0] not in record["sentence_with_pronoun"]]
        assert len(missing) == 1, row
    with pytest.raises(ValueError, match="row 476: sentence_with_pronoun is"):
        files.repaired([*released[:476], {**released[476], "sentence_with_pronoun": "x [he] ."}, *released[477:]])


def test_a_candidate_is_its_first_whole_word_occurrence_outside_the_other_candidate(rows):
    by_id = {row["id"]: row for row in rows}
    rose = by_id["test-733"]  # "Rose 's former fiance Julie Wilmot arrives to see Rose": the second Rose
    assert [(c["text"], c["start"]) for c in rose["candidates"]] == [
        ("Rose", 50),
        ("Rose 's former fiance Julie Wilmot", 0),
    ]
    dolly = by_id["test-6"]  # "Dolly was named after performer Dolly Parton": the second Dolly is the other's
    assert [(c["start"], c["end"]) for c in dolly["candidates"]] == [(0, 5), (22, 44)]
    assert dolly["candidate_occurrences"] == [1, 1]
    jad = by_id["test-90"]  # "Dietrich missed Jad , but Jad did not miss Dietrich": the first of each
    assert ([c["start"] for c in jad["candidates"]], jad["candidate_occurrences"]) == ([0, 16], [2, 2])
    marcus = by_id["test-453"]  # "one of Marcus' subordinates": a whole word before the apostrophe
    assert [(c["text"], c["start"]) for c in marcus["candidates"]] == [("Azuth", 0), ("Marcus", 16)]
    repeated = Counter(tuple(row["candidate_occurrences"]) for row in rows)
    assert repeated == {(1, 1): 1255, (1, 2): 11, (2, 1): 2, (2, 2): 1}
    for row in rows:
        for candidate, count in zip(row["candidates"], row["candidate_occurrences"]):
            pattern = r"(?<!\w)" + re.escape(candidate["text"]) + r"(?!\w)"
            first = re.search(pattern, row["text"])
            assert count >= 1 and (candidate["start"] == first.start() or row["id"] == "test-733"), row["id"]


def test_original_sentences_are_the_blocks_and_only_one_holds_both_genders(rows):
    columns = {name: [row[name] for row in rows] for name in ("original_id", "original_sentence")}
    blocks = design.BLOCKS.ids(columns)
    sizes = Counter(Counter(blocks).values())
    assert sizes == {1: 1201, 2: 34}  # 1,235 original sentences; 34 of them give two rows
    assert sum(count - 1 for count in Counter(row["text"] for row in rows).values()) == 24
    genders = {}
    for block, row in zip(blocks, rows):
        genders.setdefault(block, set()).add(row["pronoun_gender"])
    assert [block for block, found in genders.items() if {"male", "female"} <= found] == [39820]
    # The same sentence under two ids is one block (the 'linked' design): 3 such sentences.
    ids_of = {}
    for row in rows:
        ids_of.setdefault(row["original_sentence"], set()).add(row["original_id"])
    assert sum(len(ids) > 1 for ids in ids_of.values()) == 3


def _rows(genders, gold):
    return {
        PART: {
            "id": [f"r{index}" for index in range(len(genders))],
            "pronoun_gender": genders,
            "original_id": list(range(len(genders))),
            "original_sentence": [f"s{index}" for index in range(len(genders))],
            "candidates": [[{"is_referent": index == answer} for index in range(2)] for answer in gold],
        }
    }


def test_accuracy_by_gender_and_the_difference_by_hand():
    # Ten times: male rows right, right, wrong (both linked); female right, wrong (none linked); they not scored.
    rows = _rows(["male", "male", "male", "female", "female", "neutral"] * 10, [0, 1, 0, 1, 0, 0] * 10)
    decisions = [[True, False], [False, True], [True, True], [False, True], [False, False], [False, True]] * 10
    scored = benchmark.score(rows, {PART: decisions}, 500, 0)["knowref"]
    assert scored["accuracy/male"] == pytest.approx(2 / 3)
    assert scored["accuracy/female"] == 0.5
    assert scored["diff/male"] == pytest.approx(2 / 3 - 1 / 2)
    assert (scored["num_instances"], scored["count/male"], scored["count/female"]) == (50, 30, 20)
    assert scored["diff/male_ci_low"] <= scored["diff/male"] <= scored["diff/male_ci_high"]
    assert 0 < scored["diff/male_p_value"] <= 1


def test_a_file_of_clusters_scores_as_its_links(rows, exported_set, tmp_path):
    """Gold clusters on female rows, the other candidate on male rows: female accuracy 1, male 0 (the doc_key is the
    id: 24 sentences occur twice, so texts could not tell them apart)."""

    def token(row, span):
        return len(row["text"][: span["start"]].split())

    lines = []
    for row in rows:
        tokens = row["text"].split()
        wanted = row["pronoun_gender"] == "female"
        (candidate,) = [c for c in row["candidates"] if c["is_referent"] == wanted]
        first, last = token(row, candidate), len(row["text"][: candidate["end"]].split()) - 1
        pronoun = token(row, row["pronoun"])
        lines.append(json.dumps({"doc_key": row["id"], "tokens": tokens, "clusters": [[[first, last], [pronoun] * 2]]}))
    path = tmp_path / "clusters.jsonlines"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    scored = file_scoring.score("knowref", [path], data_dir=exported_set("knowref").parent, n_bootstrap=0)
    section = scored.runs["knowref"].sections["knowref"]
    assert (section["accuracy/female"], section["accuracy/male"], section["diff/male"]) == (1.0, 0.0, -1.0)


def test_the_declaration_names_the_male_minus_female_difference_and_a_cloze_with_nothing_lost():
    declared = BENCHMARKS["knowref"]
    assert [(h.key, h.unbiased) for h in declared.headlines] == [
        ("diff/male", 0.0),
        ("accuracy/male", None),
        ("accuracy/female", None),
    ]
    request = declared.cloze.render(
        {
            "text": "Ann met Bo , but she left .",
            "pronoun": {"text": "she"},
            "candidates": [{"text": "Ann"}, {"text": "Bo"}],
        }
    )
    assert (request.context, request.continuations) == ("Ann met Bo , but she left . ‘She’ refers to", (" Ann", " Bo"))


def test_the_explore_view_shows_the_sentence_with_both_genders_first_then_female_and_male_errors_in_turn(rows):
    # A model always linking the second candidate: wrong wherever the first is the answer.
    pairs = [(row, {"decision": [False, True], "gold": [c["is_referent"] for c in row["candidates"]]}) for row in rows]
    cases = explore.error_cases(pairs)
    both = cases[0]  # original_id 39820: "Sean thought Elizabeth ..." and "Olivia thought Elizabeth ..."
    assert both["title"] == "male (test-844): he → Elizabeth, not Sean"
    assert [member["label"] for member in both["members"]] == ["male (test-844)", "female (test-849)"]
    sides = [case["title"].split(" ", 1)[0] for case in cases[1:]]
    assert sides[:6] == ["female", "male"] * 3
    shown = {member["label"].split("(")[1].rstrip(")") for case in cases for member in case["members"]}
    wrong = {row["id"] for row, instance in pairs if row["pronoun_gender"] != "neutral" and instance["gold"][0]}
    assert len(wrong) == 318 + 283 and wrong <= shown
