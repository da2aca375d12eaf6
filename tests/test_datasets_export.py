"""The export machinery itself: idempotent re-export, build errors that name the row, the CLI."""

import datasets
import pytest

from corefbias import datasets_export, spans
from dataset_harness import files_of


def test_every_builder_is_found():
    assert {"counter_gap", "gap", "winogender"} <= set(datasets_export.available())


def test_reexport_writes_the_same_bytes(mirror, tmp_path):
    first = datasets_export.export(["winogender"], tmp_path, mirror, progress=False)[0]
    before = files_of(first)
    datasets_export.export(["winogender"], tmp_path, mirror, progress=False)
    assert files_of(first) == before
    assert [path.name for path in tmp_path.iterdir()] == ["winogender"]  # no staging left


def test_span_validation_names_the_row():
    with pytest.raises(spans.SpanError, match=r"row r1: candidates\[0\]"):
        spans.validate_row(
            {"text": "ab", "pronoun": {"text": "a", "start": 0, "end": 1},
             "candidates": [{"text": "a", "start": 1, "end": 2, "is_referent": True}]},
            row="r1",
        )


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
