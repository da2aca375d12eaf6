"""The WinoBias builder: counts, pro/anti alignment, stereotypes from WinoBias's lists, every gold
cluster checked against the brackets, rows fed to pro_anti_diff, and the parsing helpers."""

import re

import pytest
from dataset_harness import assert_export_layout, assert_spans_match, builder_module
from metric_harness import load

from corefbias.data import wino_format

CONFIGS = [f"type{kind}_{polarity}" for kind in (1, 2) for polarity in ("pro", "anti")]
SPLITS = ("validation", "test")
GENDERED = {
    "he": "male",
    "him": "male",
    "his": "male",
    "himself": "male",
    "she": "female",
    "her": "female",
    "herself": "female",
}
# Pairs whose pro and anti lines differ in more than the pronouns' gender (listed in the card).
NOT_MINIMAL = {
    "dev-type1-92",
    "dev-type1-212",
    "dev-type2-90",
    "dev-type2-102",
    "dev-type2-119",
    "dev-type2-176",
    "dev-type2-207",
    "dev-type2-208",
    "dev-type2-209",
    "test-type1-157",
    "test-type1-255",
    "test-type1-279",
    "test-type1-289",
    "test-type1-296",
    "test-type2-92",
    "test-type2-103",
    "test-type2-307",
    "test-type2-382",
    "test-type2-384",
}


def _rows(loaded_set, config, split):
    return list(loaded_set("winobias", config)[split])


def test_export_layout_and_counts(exported_set, loaded_set):
    assert_export_layout(
        exported_set("winobias"), {c: list(SPLITS) for c in CONFIGS}, license_id="mit", default="type1_pro"
    )
    for config in CONFIGS:
        dataset = loaded_set("winobias", config)
        assert {split: dataset[split].num_rows for split in dataset} == {"validation": 396, "test": 396}
        assert_spans_match(dataset)
        for row in dataset["validation"]:
            assert [c["is_referent"] for c in row["candidates"]].count(True) == 1
            assert all(row["text"][s["start"] : s["end"]] == s["text"] for cluster in row["clusters"] for s in cluster)


def _is_minimal(pro_text: str, anti_text: str) -> bool:
    """The two sentences differ only in pronouns, each swapped for one of the other gender."""
    pro_words, anti_words = (re.findall(r"\w+|[^\w\s]", text.lower()) for text in (pro_text, anti_text))
    changed = [(a, b) for a, b in zip(pro_words, anti_words) if a != b]
    return (
        len(pro_words) == len(anti_words)
        and bool(changed)
        and all(a in GENDERED and b in GENDERED and GENDERED[a] != GENDERED[b] for a, b in changed)
    )


def test_pro_and_anti_lines_pair_up_by_line_number(loaded_set):
    not_minimal = set()
    for kind in (1, 2):
        for split in SPLITS:
            pro, anti = (_rows(loaded_set, f"type{kind}_{p}", split) for p in ("pro", "anti"))
            assert [row["pair_id"] for row in pro] == [row["pair_id"] for row in anti]
            for a, b in zip(pro, anti):
                referent = [c["is_referent"] for c in a["candidates"]]
                assert referent == [c["is_referent"] for c in b["candidates"]]  # the same role in both versions
                if _is_minimal(a["text"], b["text"]):
                    assert a["candidates"] == b["candidates"] and a["pronoun_gender"] != b["pronoun_gender"]
                else:
                    not_minimal.add(a["pair_id"])
    assert not_minimal == NOT_MINIMAL  # 19 of 1584 pairs


def test_stereotypes_come_from_winobias_occupation_lists(loaded_set, mirror):
    root = mirror / "winobias" / "WinoBias" / "wino" / "data"
    listed = {
        line.strip(): gender
        for gender in ("male", "female")
        for line in (root / f"{gender}_occupations.txt").read_text().splitlines()
        if line.strip()
    }
    assert len(listed) == 40
    seen = set()
    for config in CONFIGS:
        for split in SPLITS:
            for row in _rows(loaded_set, config, split):
                assert row["candidate_stereotypes"] == [listed[o] for o in row["occupations"]]
                assert sorted(row["candidate_stereotypes"]) == ["female", "male"]  # every frame pairs the two
                for candidate, occupation in zip(row["candidates"], row["occupations"]):
                    assert re.fullmatch(rf"(?i)(the|an?)\s+{occupation}", candidate["text"]), candidate
                referent = [c["is_referent"] for c in row["candidates"]].index(True)
                assert row["referent_occupation"] == row["occupations"][referent]
                fits = row["candidate_stereotypes"][referent] == row["pronoun_gender"]
                assert fits == (row["polarity"] == "pro"), row["id"]
                seen.update(row["occupations"])
    assert seen == set(listed)


def test_the_gold_cluster_holds_pronoun_antecedent_and_further_pronouns(loaded_set):
    row = loaded_set("winobias", "type1_anti")["validation"][26]  # line 27: "[she] needed to cut [her] hair"
    assert row["text"] == "The developer visited the hairdresser because she needed to cut her hair."
    assert row["tokens"][-3:] == ["her", "hair", "."]
    assert [[s["text"] for s in cluster] for cluster in row["clusters"]] == [["The developer", "she", "her"]]
    assert row["pronoun"] == {"text": "she", "start": 46, "end": 49}
    three_mentions = sum(
        len(row["clusters"][0]) == 3
        for config in CONFIGS
        for split in SPLITS
        for row in _rows(loaded_set, config, split)
    )
    assert three_mentions == 87 and all(len(r["clusters"]) == 1 for r in _rows(loaded_set, "type2_anti", "test"))
    reflexive = loaded_set("winobias", "type1_pro")["test"][278]  # "... by [himself] every day"
    assert [s["text"] for s in reflexive["clusters"][0]] == ["The chief", "he", "himself"]
    assert reflexive["pronoun"]["text"] == "he"


def test_rows_feed_pro_anti_diff(loaded_set, in_repo):
    rows = _rows(loaded_set, "type1_pro", "test") + _rows(loaded_set, "type1_anti", "test")
    gold = [c["is_referent"] for row in rows for c in row["candidates"]]
    # The stereotype baseline links the candidate whose stereotype is the pronoun's gender.
    stereotyped = [s == row["pronoun_gender"] for row in rows for s in row["candidate_stereotypes"]]
    inputs = dict(
        references=gold,
        conditions=[row["polarity"] for row in rows for _ in row["candidates"]],
        pair_ids=[row["pair_id"] for row in rows for _ in row["candidates"]],
        score="f1",
        n_bootstrap=0,
    )
    metric = load("pro_anti_diff")
    oracle = metric.compute(predictions=gold, **inputs)
    assert (oracle["pro"], oracle["anti"], oracle["diff"], oracle["log2_ratio"], oracle["num_pairs"]) == (
        1.0,
        1.0,
        0.0,
        0.0,
        396,
    )
    baseline = metric.compute(predictions=stereotyped, **inputs)
    assert (baseline["pro"], baseline["anti"], baseline["diff"]) == (1.0, 0.0, 1.0)  # every row fits its polarity


def test_parse_bracketed_and_its_errors():
    text, brackets = wino_format.parse_bracketed(" The teacher asked the [ physician] and believed [him]. ", row="r1")
    assert text == "The teacher asked the  physician and believed him."
    assert brackets == [{"text": "physician", "start": 23, "end": 32}, {"text": "him", "start": 46, "end": 49}]
    for line, problem in [
        ("[The [developer]] left", "unbalanced"),
        ("The developer] left", "unbalanced"),
        ("The developer left", "no bracketed phrase"),
        ("[ ] left", "empty brackets"),
    ]:
        with pytest.raises(ValueError, match=rf"row r2: {problem}"):
            wino_format.parse_bracketed(line, row="r2")


def test_occupation_mentions_are_whole_names_with_their_article():
    stereotypes = wino_format.stereotype_map(["cook", "worker"], ["construction worker", "CEO"])
    text = "The construction worker asked the ceo to cook for a cook."
    mentions = wino_format.occupation_mentions(text, stereotypes, articles=("the", "a", "an"))
    assert [(m.span["text"], m.span["start"], m.occupation) for m in mentions] == [
        ("The construction worker", 0, "construction worker"),
        ("the ceo", 30, "CEO"),
        ("a cook", 50, "cook"),
    ]
    with pytest.raises(ValueError, match="no occupations to look for"):
        wino_format.occupation_mentions(text, {})
    with pytest.raises(ValueError, match=r"both the female and the male list: \['cook'\]"):
        wino_format.stereotype_map(["cook"], ["cook"])


def test_wino_columns_name_the_row_when_the_antecedent_or_pronoun_does_not_fit():
    text = "The developer argued with the designer because he did not like the design."
    stereotypes = {"developer": "male", "designer": "female"}
    winobias = builder_module("winobias")
    kwargs = dict(
        text=text,
        pronoun={"text": "he", "start": 47, "end": 49},
        mentions=wino_format.occupation_mentions(text, stereotypes, articles=("the",)),
        stereotypes=stereotypes,
        pronoun_genders=winobias.PRONOUN_GENDERS,
    )
    columns = wino_format.wino_columns(row="r", antecedent={"text": "developer", "start": 4, "end": 13}, **kwargs)
    assert columns["candidates"] == [
        {"text": "The developer", "start": 0, "end": 13, "is_referent": True},
        {"text": "the designer", "start": 26, "end": 38, "is_referent": False},
    ]
    assert (columns["pronoun_gender"], columns["referent_occupation"]) == ("male", "developer")
    with pytest.raises(ValueError, match=r"row r3: the antecedent 'argued' overlaps 0 of the candidates"):
        wino_format.wino_columns(row="r3", antecedent={"text": "argued", "start": 14, "end": 20}, **kwargs)
    with pytest.raises(ValueError, match=r"row r4: 'did' is not one of the pronouns"):
        wino_format.wino_columns(
            row="r4",
            antecedent={"text": "developer", "start": 4, "end": 13},
            **{**kwargs, "pronoun": {"text": "did", "start": 50, "end": 53}},
        )


CONLL = [
    "#begin document (nw/dev_type1/stereotype//0); part 000",
    *[
        f"nw/dev_type1/stereotype//0\t0\t{i}\t{token}\t-\t-\t-\t-\t-\tSpeaker#1\t*\t{mark}"
        for i, (token, mark) in enumerate(
            [
                ("The", "(1"),
                ("developer", "1)"),
                ("met", "-"),
                ("the", "(2"),
                ("designer", "2)"),
                ("because", "-"),
                ("he", "(1)|(3"),
                ("left", "3)"),
                (".", "-"),
            ]
        )
    ],
    "",
    "#end document",
]


def test_conll_documents_keep_every_cluster_and_must_match_the_brackets():
    winobias = builder_module("winobias")
    document = winobias.read_conll(CONLL, source="x")[0]
    assert document == (
        "The developer met the designer because he left .".split(),
        [[(0, 1), (6, 6)], [(3, 4)], [(6, 7)]],
    )
    stereotypes = {"developer": "male", "designer": "female"}
    row = winobias.example(
        "1 [The developer] met the designer because [he] left.", document, number=1, row="r", stereotypes=stereotypes
    )
    assert row["text"] == "The developer met the designer because he left."  # the bracketed file's spacing
    assert [[(s["text"], s["start"]) for s in cluster] for cluster in row["clusters"]] == [
        [("The developer", 0), ("he", 39)],
        [("the designer", 18)],
        [("he left", 39)],
    ]
    assert [c["is_referent"] for c in row["candidates"]] == [True, False] and row["pronoun"]["start"] == 39
    with pytest.raises(ValueError, match=r"row r5: the gold cluster \['The developer', 'he'\] .* brackets \['he'\]"):
        winobias.example(
            "1 The developer met the designer because [he] left.", document, number=1, row="r5", stereotypes=stereotypes
        )
    with pytest.raises(ValueError, match=r"row r6: expected line 2 to start with its number"):
        winobias.example(
            "1 [The developer] met the designer because [he] left.",
            document,
            number=2,
            row="r6",
            stereotypes=stereotypes,
        )
    with pytest.raises(ValueError, match=r"x:2: '\(x' is not a coreference mark"):
        winobias.read_conll([CONLL[0], CONLL[1].replace("(1", "(x"), *CONLL[2:]], source="x")
    with pytest.raises(
        ValueError, match=r"x:12: document \(nw/dev_type1/stereotype//0; part 000\) ends with clusters \[1\] still open"
    ):
        winobias.read_conll([*CONLL[:2], CONLL[2].replace("1)", "-"), *CONLL[3:]], source="x")
