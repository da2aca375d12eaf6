"""Dataset builders and their export to Parquet + card, loaded back with ``datasets.load_dataset``."""

import sys
from collections import Counter, defaultdict
from pathlib import Path

import datasets
import pytest

from corefbias import datasets_export, spans
from metric_harness import load

ROLES = ["original", "gender_controlled", "gender_swapped_1", "gender_swapped_2"]
EXPECTED_CONFIGS = {"counter_gap": ["default", "withdot"], "gap": ["default"], "winogender": ["default"]}
SPLITS = {"gap": ["train", "validation", "test"]}


@pytest.fixture(scope="module")
def exported(mirror, tmp_path_factory):
    out = tmp_path_factory.mktemp("export")
    datasets_export.export(list(EXPECTED_CONFIGS), out, mirror, progress=False)
    return out


@pytest.fixture(scope="module")
def loaded(exported, tmp_path_factory):
    """Every config as ``load_dataset(<export>/<name>, <config>)`` returns it."""
    cache = tmp_path_factory.mktemp("hf_cache")
    return {
        (name, config): datasets.load_dataset(str(exported / name), config, cache_dir=str(cache))
        for name, configs in EXPECTED_CONFIGS.items()
        for config in configs
    }


def _files(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def test_export_layout_and_card(exported):
    assert datasets_export.available() == sorted(EXPECTED_CONFIGS)
    for name, configs in EXPECTED_CONFIGS.items():
        files = sorted(_files(exported / name))
        splits = SPLITS.get(name, ["test"])
        assert files == ["README.md"] + sorted(
            f"data/{config}/{split}-00000-of-00001.parquet" for config in configs for split in splits
        )
        card = (exported / name / "README.md").read_text(encoding="utf-8")
        header = card.split("---\n")[1]
        for needed in ("license: " + ("apache-2.0" if name == "gap" else "mit"), "configs:", "dataset_info:", "default: true", "num_examples:"):
            assert needed in header, (name, needed)
        for config in configs:
            for split in splits:
                assert f"path: data/{config}/{split}-*" in header
        for section in ("## Known issues", "## Citation", "## License", "## Source"):
            assert section in card


def test_reexport_writes_the_same_bytes(exported, mirror):
    before = {name: _files(exported / name) for name in EXPECTED_CONFIGS}
    datasets_export.export(["winogender"], exported, mirror, progress=False)
    assert _files(exported / "winogender") == before["winogender"]
    assert _files(exported / "counter_gap") == before["counter_gap"]
    assert not [path for path in exported.iterdir() if path.name.startswith(".")]  # no staging left


def test_every_span_matches_its_text(loaded):
    for (name, config), dataset_dict in loaded.items():
        assert list(dataset_dict) == SPLITS.get(name, ["test"])
        for split in dataset_dict.values():
            for row in split:
                for span in [row["pronoun"], *row["candidates"]]:
                    assert row["text"][span["start"] : span["end"]] == span["text"], (name, config, row)


@pytest.mark.parametrize("config", EXPECTED_CONFIGS["counter_gap"])
def test_counter_gap_counts(loaded, config):
    test = loaded[("counter_gap", config)]["test"]
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


def test_counter_gap_configs_differ_only_in_title_dots(loaded):
    dotless = loaded[("counter_gap", "default")]["test"]
    withdot = loaded[("counter_gap", "withdot")]["test"]
    assert dotless["id"] == withdot["id"]
    differing = [(a, b) for a, b in zip(dotless["text"], withdot["text"]) if a != b]
    assert differing and all(len(b) > len(a) and b.count(".") > a.count(".") for a, b in differing)


def test_counter_gap_rows_feed_delta_i(loaded, in_repo):
    test = loaded[("counter_gap", "default")]["test"]
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


def test_gap_counts(loaded):
    gap = loaded[("gap", "default")]
    for split, rows, neither in (("train", 2000, 201), ("validation", 454, 62), ("test", 2000, 227)):
        assert gap[split].num_rows == rows
        assert Counter(gap[split]["gender"]) == {"female": rows // 2, "male": rows // 2}
        labels = Counter(tuple(c["is_referent"] for c in row) for row in gap[split]["candidates"])
        assert labels[(False, False)] == neither and labels[(True, True)] == 0
        assert all(row_id.startswith(("development-", "validation-", "test-")) for row_id in gap[split]["id"])


def test_gap_rows_feed_gap_acc_bias(loaded, in_repo):
    if not (in_repo / "metrics" / "gap_acc_bias" / "gap_acc_bias.py").is_file():
        pytest.skip("no metrics/gap_acc_bias module")
    test = loaded[("gap", "default")]["test"]
    references = [[candidate["is_referent"] for candidate in row] for row in test["candidates"]]
    results = load("gap_acc_bias").compute(
        predictions=references, references=references, genders=test["gender"], n_bootstrap=0
    )
    assert results["num_examples"] == 2000
    assert results["f1_male"] == results["f1_female"] == results["f1_bias"] == 1.0


def test_winogender_counts(loaded):
    test = loaded[("winogender", "default")]["test"]
    assert test.num_rows == 720
    assert Counter(test["gender"]) == {"female": 240, "male": 240, "neutral": 240}
    assert len(set(test["pair_id"])) == 240
    assert len(set(test["occupation"])) == 60
    assert Counter(test["answer"]) == {"occupation": 360, "participant": 360}
    for row in test:
        occupation, participant = row["candidates"]
        assert occupation["text"].lower() == f"the {row['occupation']}"
        assert participant["text"].lower() in {f"the {row['participant']}", f"a {row['participant']}", "someone"}
        assert [occupation["is_referent"], participant["is_referent"]] == [
            row["answer"] == "occupation",
            row["answer"] == "participant",
        ]
        assert (row["gotcha"] is None) == (row["gender"] == "neutral")


def test_winogender_rows_feed_winogender_bias(loaded, in_repo):
    test = loaded[("winogender", "default")]["test"]
    results = load("winogender_bias").compute(
        predictions=test["answer"],
        references=test["answer"],
        occupations=test["occupation"],
        genders=test["gender"],
        pair_ids=test["pair_id"],
        bls_pct_female=test["bls_pct_female"],
        bergsma_pct_female=test["bergsma_pct_female"],
        n_bootstrap=0,
    )
    assert results["num_pairs"] == 240
    assert results["accuracy"] == 1.0
    assert results["accuracy_gotcha"] == 1.0
    assert results["pairs_resolved_differently"] == 0.0


def _builder_module(name):
    return sys.modules[datasets_export.builder_class(name).__module__]


def test_an_offset_that_misses_its_text_is_an_error_naming_the_row():
    counter_gap = _builder_module("counter_gap")
    row = {
        "ID": "7-swap-1", "Text": "Ann told Bea that she won.", "Pronoun": "she", "Pronoun-offset": "18",
        "A": "Ann", "A-offset": "0", "A-coref": "TRUE", "B": "Bea", "B-offset": "9", "B-coref": "FALSE",
        "Book": "vendetta.epub",
    }
    ok = counter_gap.example(row)
    assert ok["candidates"][1] == {"text": "Bea", "start": 9, "end": 12, "is_referent": False}
    assert (ok["quadruple_id"], ok["role"], ok["gender"], ok["source"]) == ("7", "gender_swapped_1", "female", "BookCorpus")
    with pytest.raises(spans.SpanError, match=r"row 7-swap-1: B 'Bea' is not at offset 10"):
        counter_gap.example({**row, "B-offset": "10"})
    with pytest.raises(spans.SpanError, match=r"row r1: candidates\[0\]"):
        spans.validate_row(
            {"text": "ab", "pronoun": {"text": "a", "start": 0, "end": 1},
             "candidates": [{"text": "a", "start": 1, "end": 2, "is_referent": True}]},
            row="r1",
        )


def test_counter_gap_source_from_book_column():
    counter_gap = _builder_module("counter_gap")
    assert counter_gap.source_of("vendetta.epub", "1") == "BookCorpus"
    assert counter_gap.source_of("pg17314 Five Children and It (by E. Nesbit)", "1") == "Gutenberg"
    assert counter_gap.source_of("74-0 The Adventures of Tom Sawyer (by Mark Twain (Samuel Clemens))", "1") == "Gutenberg"
    with pytest.raises(ValueError, match="row 9"):
        counter_gap.source_of("some book", "9")


def test_winogender_template_instantiation():
    winogender = _builder_module("winogender")
    text, found = winogender.instantiate(
        "The $PARTICIPANT asked the $OCCUPATION if $NOM_PRONOUN was free.", "nurse", "someone", "neutral"
    )
    assert text == "Someone asked the nurse if they were free."
    assert found == {
        "participant": {"text": "Someone", "start": 0, "end": 7},
        "occupation": {"text": "the nurse", "start": 14, "end": 23},
        "pronoun": {"text": "they", "start": 27, "end": 31},
    }


BROKEN_BUILDER = """
import datasets
from corefbias import spans


class Broken(datasets.GeneratorBasedBuilder):
    BUILDER_CONFIGS = [datasets.BuilderConfig(name="default"), datasets.BuilderConfig(name="raises")]

    def _info(self):
        return datasets.DatasetInfo(features=spans.common_features(id=datasets.Value("string")))

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={})]

    def _generate_examples(self):
        if self.config.name == "raises":
            spans.span_at("Ann won.", 1, "Ann", row="x2", what="A")
        yield 0, {"text": "Ann won.", "pronoun": {"text": "won", "start": 3, "end": 6}, "candidates": [], "id": "x1"}
"""


@pytest.fixture
def broken_scripts(tmp_path):
    (tmp_path / "scripts" / "broken").mkdir(parents=True)
    (tmp_path / "scripts" / "broken" / "broken.py").write_text(BROKEN_BUILDER)
    return tmp_path / "scripts"


def test_a_span_that_misses_its_text_fails_the_export_naming_the_row(tmp_path, broken_scripts):
    out = tmp_path / "out"
    with pytest.raises(datasets_export.DatasetBuildError, match=r"broken/default/test: row x1: pronoun 'won'"):
        datasets_export.export_dataset("broken", out, scripts_dir=broken_scripts)
    assert list(out.iterdir()) == []  # nothing half-written


def test_an_error_inside_a_builder_is_reported_with_its_row(tmp_path, broken_scripts):
    builder = datasets_export.builder_class("broken", broken_scripts)
    with pytest.raises(datasets_export.DatasetBuildError, match=r"building broken/raises failed: row x2: A 'Ann'"):
        datasets_export._build_config(builder, "broken", "raises", None, tmp_path / "cache")


def test_unknown_set_is_an_error():
    with pytest.raises(datasets_export.DatasetBuildError, match="no builder for 'nope'"):
        datasets_export.builder_class("nope")


def test_cli_exports_and_reports_unknown_sets(mirror, tmp_path, capsys):
    from corefbias import cli

    assert cli.main(["export-datasets", "winogender", "--out", str(tmp_path), "--mirror", str(mirror)]) == 0
    assert datasets.load_dataset(str(tmp_path / "winogender"), "default")["test"].num_rows == 720
    assert cli.main(["export-datasets", "winobias2", "--out", str(tmp_path)]) == 2
    assert "no builder for 'winobias2'" in capsys.readouterr().err
