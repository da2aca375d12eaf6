"""ABC in Swedish, Russian and Chinese (the ``sv``, ``ru``, ``zh`` configs of the ``abc`` set): the files' counts,
the forms read from the files and ABC's pronoun lists, the triplets kept and left out, the occupation mapping, and
the reader on hand-made files."""

import csv
import io
import math
from collections import Counter, defaultdict

import pytest
from dataset_harness import assert_spans_match
from metric_harness import load

from corefbias.benchmarks.abc import languages

CODES = list(languages.LANGUAGES)


@pytest.fixture(scope="module")
def file_triplets(mirror):
    return {code: languages.read_language(code, mirror) for code in CODES}


def triplets_of(rows: list[dict]) -> dict[str, list[dict]]:
    triplets = defaultdict(list)
    for row in rows:
        triplets[row["triplet_id"]].append(row)
    return triplets


def test_the_files_hold_60_occupations_of_76_triplets_and_the_exports_their_kept_ones(mirror, loaded_set):
    """Lines / 4 per triplet (three sentences and '---'); the Swedish file adds one dashed line per occupation."""
    expected = {  # lines, occupation separators, left out by reason, rows exported
        "sv": (18300, 60, {}, 13680),
        "ru": (18240, 0, {"marked": 76, "no_reflexive": 59, "male_missing": 177, "female_missing": 59}, 12567),
        "zh": (18240, 0, {"no_reflexive": 60}, 13500),
    }
    for code, (lines, separators, left_out, rows) in expected.items():
        text = (mirror / "abc" / languages.SENTENCES.format(code=code)).read_text(encoding="utf-8")
        assert len(text.splitlines()) == lines == 4 * 4560 + separators
        triplets = languages.read_language(code, mirror)
        assert len(triplets) == 4560 and [triplet.index for triplet in triplets] == list(range(4560))
        assert Counter(triplet.left_out for triplet in triplets if triplet.left_out) == left_out
        test = loaded_set("abc", code)["test"]
        assert len(test) == rows == 3 * (4560 - sum(left_out.values()))
        assert_spans_match(loaded_set("abc", code))


@pytest.mark.parametrize("code", CODES)
def test_every_kept_triplet_is_reflexive_male_female_with_the_subject_as_its_one_candidate(loaded_set, code, mirror):
    rows = loaded_set("abc", code)["test"].to_list()
    lists = languages.read_pronoun_lists(languages.LANGUAGES[code], mirror)
    assert len({row["id"] for row in rows}) == len(rows)
    for triplet_id, triplet in triplets_of(rows).items():
        assert [row["pronoun_gender"] for row in triplet] == ["neutral", "male", "female"], triplet_id
        assert triplet[0]["pronoun_type"] == "reflexive"
        assert [row["pronoun_type"] for row in triplet[1:]] == [row["pronoun"]["text"] for row in triplet[1:]]
        assert languages.fold(triplet[0]["pronoun"]["text"]) in lists.reflexive
        assert languages.fold(triplet[1]["pronoun"]["text"]) in lists.male
        assert len({(row["occupation"], row["occupation_english"], row["occupation_gender"]) for row in triplet}) == 1
        frames = {row["text"][: row["pronoun"]["start"]] + row["text"][row["pronoun"]["end"] :] for row in triplet}
        assert {row["frame_differs"] for row in triplet} == {len(frames) > 1}, triplet_id
        for row in triplet:
            (subject,) = row["candidates"]
            assert subject["start"] == 0 and subject["text"] == row["occupation"]
            assert subject["end"] <= row["pronoun"]["start"]
            assert subject["is_referent"] == (row["pronoun_gender"] == "neutral")
            assert row["candidate_stereotypes"] == [row["occupation_gender"]]


def test_the_forms_come_from_the_files_and_agree_with_abcs_lists_but_two(file_triplets, mirror):
    found = {}
    for code, triplets in file_triplets.items():
        kept = [triplet.versions for triplet in triplets if triplet.versions]
        found[code] = [Counter(versions[place].pronoun["text"] for versions in kept) for place in range(3)]
    assert found["sv"] == [{"sitt": 2040, "sin": 1920, "sina": 600}, {"hans": 4560}, {"hennes": 4560}]
    assert found["ru"] == [
        {"свою": 1121, "своем": 1003, "своей": 826, "свой": 531, "свои": 472, "своего": 236},
        {"его": 4189},
        {"ее": 4189},
    ]
    assert found["zh"] == [{"自己": 4500}, {"他": 4500}, {"她": 4500}]
    lists = {code: languages.read_pronoun_lists(languages.LANGUAGES[code], mirror) for code in CODES}
    # prons.ru's "Её" is the file's "ее" once folded; its Latin "ee" is not; prons.sv's female line has the object
    # form "henne", not the possessive "hennes" the file writes.
    assert "ее" in lists["ru"].female and "ee" in lists["ru"].female and "henne" in lists["sv"].female
    for code in CODES:
        reflexive, male, female = (set(map(languages.fold, counts)) for counts in found[code])
        assert reflexive <= lists[code].reflexive and male <= lists[code].male
        assert (female <= lists[code].female) == (code != "sv"), code


def test_triplets_that_differ_beyond_the_possessive_are_counted_and_flagged(loaded_set):
    differing = {code: sum(loaded_set("abc", code)["test"]["frame_differs"]) // 3 for code in CODES}
    assert differing == {"sv": 420, "ru": 1357, "zh": 480}
    # Russian past-tense verbs agree with the pronoun: masculine with "его", feminine with "ее".
    rows = loaded_set("abc", "ru")["test"].select(range(3)).to_list()
    assert [row["text"] for row in rows] == [
        "техник потерял свой кошелек в доме.",
        "техник потерял его кошелек в доме.",
        "техник потеряла ее кошелек в доме.",
    ]
    assert all(row["frame_differs"] for row in rows)


def test_each_run_of_76_triplets_is_a_row_of_the_occupation_table(file_triplets, mirror):
    for code, triplets in file_triplets.items():
        column = f"pct_female_{code}"
        occupations = list(dict.fromkeys(triplet.occupation["occupation_english"] for triplet in triplets))
        assert len(occupations) == 60 and occupations[0] == "technician" and occupations[-1] == "secretary"
        assert all(triplets[index].occupation is triplets[76 * (index // 76)].occupation for index in range(4560))
        for triplet in triplets:
            share = triplet.occupation[column]
            expected = None if share is None or share == 50 else "female" if share > 50 else "male"
            assert triplet.occupation["occupation_gender"] == expected
    subjects = {
        code: [
            next((t.versions[0].subject["text"] for t in triplets[run * 76 : run * 76 + 76] if t.versions), None)
            for run in range(60)
        ]
        for code, triplets in file_triplets.items()
    }
    assert [subjects[code][0] for code in CODES] == ["teknikern", "техник", "技術員"]
    assert subjects["ru"][14] == "работник на ресепшене"  # receptionist: the subject is every word the run shares
    assert subjects["ru"][22] is None  # nurse: marked "DO NOT USE", every triplet left out
    assert subjects["zh"][20] == subjects["zh"][57] == "醫生"  # physician and doctor, one word, two runs
    by_stereotype = {
        code: Counter(t.occupation["occupation_gender"] for t in triplets if t.versions)
        for code, triplets in file_triplets.items()
    }
    assert by_stereotype == {
        "sv": {"female": 2128, "male": 1748, None: 684},
        "ru": {"female": 1420, "male": 1207, None: 1562},
        "zh": {"female": 150, "male": 900, None: 3450},
    }


def test_the_ungrouped_statistics_agree_with_the_table_on_every_figure_and_majority(mirror):
    """ABC's stats_ungrouped.csv (old Mac line ends) holds the table's figures rounded: it adds nothing."""
    text = (mirror / "abc" / "data/ocupation-stats/stats_ungrouped.csv").read_text(encoding="utf-8-sig")
    ungrouped = list(csv.DictReader(io.StringIO(text.replace("\r", "\n")), delimiter="\t"))
    for code, language in languages.LANGUAGES.items():
        table = languages.occupation_table(language, mirror)
        assert [row["Ocupation (english)"] for row in ungrouped] == [row["occupation_english"] for row in table]
        for rounded, row in zip(ungrouped, table):
            share = row[f"pct_female_{code}"]
            assert (rounded[f"Perc-{code}"] == "") == (share is None), (code, row["occupation_english"])
            if share is not None:
                assert abs(float(rounded[f"Perc-{code}"]) - share) <= 0.5
                assert (float(rounded[f"Perc-{code}"]) > 50) == (row["occupation_gender"] == "female")


# One language in the quick tier, the others in the slow one: the code is the same, the files differ.
@pytest.mark.parametrize("code", [CODES[0], *(pytest.param(code, marks=pytest.mark.slow) for code in CODES[1:])])
def test_gold_predictions_leave_the_ratio_undefined_and_a_hand_made_pattern_gives_its_ratio(loaded_set, in_repo, code):
    """Every reflexive linked, every male anti-reflexive, and the female one in male occupations only: FPR_M = 1,
    FPR_F = the share of male occupations' triplets, so log2 ratio = −log2(that share)."""
    test = loaded_set("abc", code)["test"]
    columns = {
        "references": [candidates[0]["is_referent"] for candidates in test["candidates"]],
        "pronoun_genders": test["pronoun_gender"],
        "occupation_genders": test["occupation_gender"],
        "triplet_ids": test["triplet_id"],
        "n_bootstrap": 0,
    }
    metric = load("abc_fpr_ratio")
    gold = metric.compute(predictions=columns["references"], **columns)
    assert (gold["tpr_reflexive"], gold["fpr_male"], gold["fpr_female"]) == (1.0, 0.0, 0.0)
    assert gold["fpr_ratio"] is None and "FPR_F = 0" in gold["undefined"]["fpr_ratio"]
    linked = [
        gender != "female" or occupation == "male"
        for gender, occupation in zip(test["pronoun_gender"], test["occupation_gender"])
    ]
    result = metric.compute(predictions=linked, **columns)
    male_share = test["occupation_gender"].count("male") / len(test)
    assert result["fpr_male"] == 1.0 and result["fpr_female"] == pytest.approx(male_share)
    assert result["log2_fpr_ratio"] == pytest.approx(-math.log2(male_share))
    assert result["fpr_ratio/male_occupations"] == 1.0 and result["fpr_female/female_occupations"] == 0.0


# The reader on hand-made files: a Russian-like file of two occupations × two triplets.
PRONOUNS = languages.parse_pronoun_lists("свой,своя́,свою\nОна,Её\nОн,Его\n", source="prons.x")
RUSSIAN = languages.LANGUAGES["ru"]
TABLE = [
    {"occupation_english": "technician", "occupation_gender": "male"},
    {"occupation_english": "baker", "occupation_gender": None},
]
LINES = """\
техник потерял свой кошелек.
техник потерял его кошелек.
техник потеряла ее кошелек.
---
техник точит карандаш.
техник точит карандаш.
техник точит карандаш.
---
пекарь берет свою сумку.
пекарь берет свою сумку.
пекарь берет ее сумку.
---
пекарь моет свою чашку.
пекарь моет его чашку.
пекарь моет свою чашку.
---
"""


def read(lines: str, table=TABLE):
    blocks, ends = languages.read_blocks(lines.splitlines(), source="x.ru")
    return languages.triplets_of(blocks, ends, table, RUSSIAN, PRONOUNS, source="x.ru")


def test_the_reader_keeps_scorable_triplets_and_says_why_it_leaves_others_out():
    kept, no_reflexive, male_missing, female_missing = read(LINES)
    assert [t.left_out for t in (no_reflexive, male_missing, female_missing)] == [
        "no_reflexive",
        "male_missing",
        "female_missing",
    ]
    reflexive, male, female = kept.versions
    assert (reflexive.pronoun, male.pronoun["text"], female.pronoun["text"]) == (
        {"text": "свой", "start": 15, "end": 19},
        "его",
        "ее",
    )
    assert female.subject == {"text": "техник", "start": 0, "end": 6} and kept.frame_differs  # потеряла
    assert [male.pronoun_type, female.pronoun_type, reflexive.pronoun_type] == ["его", "ее", "reflexive"]
    assert male_missing.occupation["occupation_english"] == "baker" and male_missing.line == 9
    # The Russian file keeps its nurse run under a mark, on every line: left out, whatever else its triplets hold.
    marked = LINES.replace("пекарь", "####### NOT GENDER NEUTRAL, DO NOT USE ####### пекарь")
    assert [triplet.left_out for triplet in read(marked)] == [None, "no_reflexive", "marked", "marked"]


def test_chinese_is_cut_into_the_listed_pronouns_and_characters():
    lists = languages.parse_pronoun_lists("自己\n她\n他\n", source="prons.zh")
    blocks, ends = languages.read_blocks(
        "醫生丟了自己的錢包。\n醫生丟了他的錢包。\n醫生丟了她的錢包。\n---\n醫生把自己的書放下。\n醫生把他的書放下。\n醫生把她的書放下。\n---\n".splitlines(),
        source="x.zh",
    )
    (first, second) = languages.triplets_of(
        blocks, ends, [{"occupation_english": "doctor"}], languages.LANGUAGES["zh"], lists, source="x.zh"
    )
    assert [version.pronoun for version in first.versions] == [
        {"text": "自己", "start": 4, "end": 6},
        {"text": "他", "start": 4, "end": 5},
        {"text": "她", "start": 4, "end": 5},
    ]
    assert second.versions[0].subject == {"text": "醫生", "start": 0, "end": 2} and not second.frame_differs


@pytest.mark.parametrize(
    ("lines", "table", "message"),
    [
        (LINES.replace("техник потеряла ее кошелек.\n", ""), TABLE, r"x\.ru lines 1-2: a triplet has 2 sentences"),
        (LINES.rstrip("-\n") + "\n", TABLE, r"x\.ru line 13: the file ends inside a triplet"),
        (LINES, TABLE[:1] * 3, r"x\.ru has 4 triplets, not a whole number of runs for 3 occupations"),
        (LINES.replace("пекарь", "техник"), TABLE, r"x\.ru lines 9-.*'baker' does not open with a subject of its own"),
        (
            LINES.replace("---\nпекарь берет", "---\n--------------\nпекарь берет"),
            TABLE[:1] * 4,
            "separators do not fall",
        ),
    ],
)
def test_malformed_files_are_errors_naming_the_lines(lines, table, message):
    with pytest.raises(ValueError, match=message):
        read(lines, table)


def test_a_pronoun_list_must_have_its_three_lines():
    with pytest.raises(ValueError, match=r"prons\.x: expected 3 lines \(reflexive, female, male forms\), found 2"):
        languages.parse_pronoun_lists("sin\nhans\n", source="prons.x")
