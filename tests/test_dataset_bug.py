"""The BUG builder: its export, counts, spans and labels, the rows it leaves out, and the full config's download path
tested on a stand-in table (the real ``full_BUG.zip`` is not in the mirror)."""

import io
import json
import shutil
import zipfile
from collections import Counter

import datasets
import pytest
from dataset_harness import assert_export_layout, assert_spans_match, repeated_rows

from corefbias import cli
from corefbias.benchmarks.bug import builder, files
from corefbias.data import hub_export, upstream
from corefbias.measures import bug_bias

FULL_URL = "https://raw.githubusercontent.com/SLAB-NLP/BUG/f55704f9e3ad190e851961dd4e98422b2fc5866d/full_BUG.zip"


def test_export_layout(exported_set, loaded_set):
    assert_export_layout(
        exported_set("bug"), {"gold": ["test"], "balanced": ["test"]}, license_id="mit", default="gold"
    )
    for config in ("gold", "balanced"):
        assert_spans_match(loaded_set("bug", config))


def test_gold_and_balanced_counts(loaded_set):
    gold, balanced = loaded_set("bug", "gold")["test"], loaded_set("bug", "balanced")["test"]
    assert (gold.num_rows, balanced.num_rows) == (1716, 25504)
    assert Counter(gold["stereotype_label"]) == {"stereotypical": 863, "anti-stereotypical": 420, "neutral": 433}
    assert Counter(zip(balanced["pronoun_gender"], balanced["stereotype_label"])) == {
        (gender, label): 6376 for gender in ("female", "male") for label in ("stereotypical", "anti-stereotypical")
    }
    assert Counter(gold["located_by"]) == {"index": 1689, "nearest": 27}
    assert Counter(balanced["located_by"]) == {"index": 25481, "nearest": 23}
    assert max(balanced["distance"]) == 20  # Analyze.py keeps distances up to 20 in the full set it samples


def test_the_nine_gold_rows_the_card_names_as_repeats(loaded_set):
    repeated = repeated_rows(loaded_set("bug", "gold")["test"], ignoring={"id", "upstream_row"}, key="upstream_row")
    pairs = [(31, 405), (136, 1344), (202, 1302), (355, 1437), (597, 920), (692, 872), (780, 817), (823, 1226)]
    assert sorted(tuple(rows) for rows in repeated) == [*pairs, (1535, 1640)]


def test_four_gold_rows_whose_text_lacks_its_words_are_left_out(mirror, loaded_set):
    gold = loaded_set("bug", "gold")["test"]
    table = files.read_table("gold", mirror)
    assert len(table) == 1720
    missing = sorted(set(range(1720)) - set(gold["upstream_row"]))
    assert missing == [20, 645, 1228, 1643]
    assert table[645]["sentence_text"] == ""
    assert table[20]["sentence_text"] == "Only one patient had a QTc "  # cut off before its "he"
    assert all(files.locate(table[row]) is None for row in missing)
    assert set(loaded_set("bug", "balanced")["test"]["upstream_row"]) == set(range(25504))


@pytest.mark.parametrize("config", ["gold", "balanced"])
def test_spans_are_the_rows_profession_and_pronoun_and_the_labels_agree(loaded_set, config):
    data = loaded_set("bug", config)["test"].to_list()
    for row in data:
        (profession,) = row["candidates"]
        assert profession["is_referent"] and profession["text"].lower() == row["profession"]
        assert row["pronoun"]["text"].lower() in files.MALE_PRONOUNS + files.FEMALE_PRONOUNS
        assert row["id"] == f"{config}-{row['upstream_row']}"
        assert row["distance_bin"] == bug_bias.distance_bin(row["distance"])
        assert row["stereotype_label"] == files.STEREOTYPE_LABELS[row["stereotype"]]
        (majority,) = row["candidate_stereotypes"]
        assert (row["stereotype_label"] == "stereotypical") == (majority == row["pronoun_gender"]), row["id"]
        assert (row["stereotype_label"] == "neutral") == (majority is None), row["id"]
        assert row["profession_phrase"] == f"the {row['profession']}"
        if row["located_by"] == "index":
            words = files.words(row["text"])
            assert words[row["profession_first_index"]].start == profession["start"]
            assert words[row["g_first_index"]].start == row["pronoun"]["start"]


def test_shares_of_women_are_the_labour_statistics(mirror, loaded_set):
    statistics = files.profession_statistics(mirror)
    # inc_occ_gender.csv: "Registered nurses": 278 men, 2104 women; "Physicians and surgeons": 457 and 283.
    assert statistics["nurse"] == {"pct_female": pytest.approx(100 * 2104 / 2382), "majority": "female"}
    assert statistics["surgeon"] == {"pct_female": pytest.approx(100 * 283 / 740), "majority": "male"}
    # Two rows list "counselor": credit counselors (146 men, 166 women) and counselors (184, 451); both female.
    assert statistics["counselor"] == {"pct_female": pytest.approx(100 * 617 / 947), "majority": "female"}
    assert statistics["hunter"] == {"pct_female": None, "majority": "neutral"}  # the table counts no hunters
    gold = loaded_set("bug", "gold")["test"]
    shares = {p: s for p, s in zip(gold["profession"], gold["profession_pct_female"])}
    assert shares["nurse"] == pytest.approx(statistics["nurse"]["pct_female"])


def test_locate_takes_the_nearest_occurrence_with_one_shift_for_both():
    # gold row 42: both offsets one word late
    row = {
        "sentence_text": "Farrell , army agent , had his place fired before he knew anything about it himself .",
        "profession": "agent",
        "g": "his",
        "profession_first_index": 4,
        "g_first_index": 7,
    }
    profession, pronoun, how = files.locate(row)
    assert (profession.text, pronoun.text, how) == ("agent", "his", "nearest")
    assert row["sentence_text"][profession.start : profession.end] == "agent"
    # three spaces where SPIKE had a whitespace token: the pronoun's offset counts it, the split counts two
    spaced = {**row, "sentence_text": "a student at her right   and a woman at her left", "profession": "student"}
    spaced.update(g="her", profession_first_index=1, g_first_index=10)
    profession, pronoun, how = files.locate(spaced)
    assert (profession.start, pronoun.start, how) == (2, 40, "nearest")  # the second "her", one word on
    assert files.locate({**row, "profession_first_index": 12}) is None  # no "agent" within 3 words of 12


def test_a_label_that_contradicts_the_statistics_stops_the_build(mirror):
    statistics = files.profession_statistics(mirror)
    row = dict(files.read_table("gold", mirror)[2])
    assert builder.example(row, "gold", statistics)["stereotype_label"] == "anti-stereotypical"  # her … doctor
    with pytest.raises(ValueError, match="stereotype is 1, but 'doctor' has a male majority"):
        builder.example({**row, "stereotype": 1}, "gold", statistics)


# The full config. Its table is not mirrored; the stand-in has the layout Analyze.py writes (``new_data.to_csv``
# after ``clean_columns``: the index, then sentence_text … data_index), which balanced_BUG.csv repeats after its
# own index.

FULL_HEADER = (
    ",sentence_text,profession,g,profession_first_index,g_first_index,predicted gender,stereotype,distance,"
    "num_of_pronouns,corpus,data_index\n"
)
FULL_ROWS = [
    "0,The nurse said she was tired .,nurse,she,1,3,female,1,2,1,wikipedia,1\n",
    "1,The nurse said he was tired .,nurse,he,1,3,male,-1,2,1,wikipedia,1\n",
    "2,His surgeon wrote that he agreed .,surgeon,he,1,4,male,1,3,2,pubmed,4\n",
    '3,"When the hunter came back , she was gone .",hunter,she,2,6,female,0,4,1,wikipedia,2\n',
]


def stand_in_zip(path) -> str:
    """A ``full_BUG.zip`` holding ``full_BUG.csv`` with four rows; returns its git blob id."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("full_BUG.csv", FULL_HEADER + "".join(FULL_ROWS))
    path.write_bytes(buffer.getvalue())
    return upstream.git_blob_id(path)


@pytest.fixture
def mirror_with_stand_in(mirror, tmp_path):
    """A mirror holding BUG's mirrored files and a stand-in full_BUG.zip; the stand-in's git blob id."""
    root = tmp_path / "mirror"
    shutil.copytree(mirror / "bug", root / "bug")
    return root, stand_in_zip(root / "bug" / "full_BUG.zip")


def test_the_full_config_is_pinned_at_the_data_commit_by_its_git_blob():
    spec = upstream.describe("bug", "full_BUG.zip")
    assert spec.url == FULL_URL
    assert (spec.git_blob, spec.sha256) == ("eb27a0b98a77ebe65df2a95e8b77777fa5dd470f", None)
    assert upstream.describe("bug", "src/converters/convert_to_conll.py").commit.startswith("6b5314d")


def test_the_full_config_is_built_only_on_request(exported_set):
    assert not (exported_set("bug") / "data" / "full").exists()
    builder_class = hub_export.builder_class("bug")
    assert hub_export.exported_configs("bug", builder_class) == ["gold", "balanced"]
    assert hub_export.exported_configs("bug", builder_class, ["full"]) == ["gold", "balanced", "full"]
    with pytest.raises(hub_export.DatasetBuildError, match="bug has no config 'fulll' built on request; it has full"):
        hub_export.exported_configs("bug", builder_class, ["fulll"])


def test_offline_the_full_config_names_the_url_and_the_mirror(mirror, tmp_path, monkeypatch, capsys):
    def offline(url, timeout):
        raise OSError("network is unreachable")

    monkeypatch.setenv(upstream.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr("urllib.request.urlopen", offline)
    argv = ["--mirror", str(mirror), "export-datasets", "bug", "--config", "full", "--out", str(tmp_path / "out")]
    assert cli.main(argv) == 2
    error = capsys.readouterr().err
    assert f"mirror {mirror} has no bug/full_BUG.zip" in error and FULL_URL in error


@pytest.mark.slow
def test_a_mirror_given_through_a_link_is_named_as_given(mirror, tmp_path, monkeypatch, capsys):
    # A mirror reached through a symbolic link (../shared linked elsewhere) is named as the user gave it.
    monkeypatch.setenv(upstream.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr("urllib.request.urlopen", lambda url, timeout: (_ for _ in ()).throw(OSError("offline")))
    link = tmp_path / "linked"
    link.symlink_to(mirror.resolve(), target_is_directory=True)
    argv = ["--mirror", str(link), "export-datasets", "bug", "--config", "full", "--out", str(tmp_path / "out")]
    assert cli.main(argv) == 2
    assert f"mirror {link} has no bug/full_BUG.zip" in capsys.readouterr().err


@pytest.mark.slow
def test_a_stand_in_that_is_not_the_pinned_file_is_refused(mirror_with_stand_in, tmp_path):
    root, _ = mirror_with_stand_in
    with pytest.raises(hub_export.DatasetBuildError, match="expected git blob id eb27a0b98a77ebe65df2a95e8b77777fa5dd"):
        hub_export.export_dataset("bug", tmp_path / "out", root, requested=["full"])


@pytest.fixture
def stand_in_pinned(mirror_with_stand_in, monkeypatch):
    """The pin of full_BUG.zip replaced by the stand-in's git blob id, for this test only."""
    root, blob = mirror_with_stand_in
    monkeypatch.setitem(upstream._registry()["bug"]["files"], "full_BUG.zip", {"git_blob": blob})
    return root


@pytest.mark.slow
def test_the_full_config_builds_from_a_table_in_the_mirror(stand_in_pinned, tmp_path):
    folder = hub_export.export_dataset("bug", tmp_path / "out", stand_in_pinned, requested=["full"])
    full = datasets.load_dataset(str(folder), "full", split="test")
    assert full["id"] == ["full-0", "full-1", "full-2", "full-3"]
    assert full["stereotype_label"] == ["stereotypical", "anti-stereotypical", "stereotypical", "neutral"]
    assert [row["candidates"][0]["text"] for row in full] == ["nurse", "nurse", "surgeon", "hunter"]
    assert full[2]["pronoun"] == {"text": "he", "start": 23, "end": 25}
    assert "config_name: full" in (folder / "README.md").read_text()
    assert datasets.load_dataset(str(folder), "gold", split="test").num_rows == 1716  # built beside it


@pytest.mark.slow
def test_the_full_config_downloads_its_table_from_the_pinned_url(stand_in_pinned, tmp_path, monkeypatch):
    """Online: the mirror lacks the table, which is fetched from the pinned commit into the cache, checked."""
    table = stand_in_pinned / "bug" / "full_BUG.zip"
    served = table.read_bytes()
    table.unlink()
    requested = []

    def fake_urlopen(url, timeout):
        requested.append(url)
        return io.BytesIO(served)

    monkeypatch.setenv(upstream.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr("urllib.request.urlopen", fake_urlopen)
    folder = hub_export.export_dataset("bug", tmp_path / "out", stand_in_pinned, requested=["full"])
    assert requested == [FULL_URL]
    assert (tmp_path / "cache" / "bug" / "full_BUG.zip").read_bytes() == served
    assert datasets.load_dataset(str(folder), "full", split="test").num_rows == 4
    card = json.dumps((folder / "README.md").read_text())
    assert "f55704f9e3ad190e851961dd4e98422b2fc5866d" in card
