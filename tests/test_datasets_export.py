"""The export machinery itself: idempotent re-export, build errors that name the row, the CLI, and
the card's source and license lines."""

import datasets
import pytest
import yaml
from dataset_harness import files_of

from corefbias.data import hub_export, spans, upstream


def test_every_builder_is_found():
    assert {"counter_gap", "gap", "winogender"} <= set(hub_export.available())


def test_reexport_writes_the_same_bytes(mirror, tmp_path):
    first = hub_export.export(["winogender"], tmp_path, mirror, progress=False)[0]
    before = files_of(first)
    hub_export.export(["winogender"], tmp_path, mirror, progress=False)
    assert files_of(first) == before
    assert [path.name for path in tmp_path.iterdir()] == ["winogender"]  # no staging left


def test_the_cards_features_read_back_as_the_builders(mirror, tmp_path):
    folder = hub_export.export(["winogender"], tmp_path, mirror, progress=False)[0]
    read_back = datasets.load_dataset_builder(str(folder), "default").info.features
    assert read_back == hub_export.builder_class("winogender").FEATURES
    assert read_back == datasets.load_dataset(str(folder), "default", split="test").features


def test_span_validation_names_the_row():
    with pytest.raises(spans.SpanError, match=r"row r1: candidates\[0\]"):
        spans.validate_row(
            {
                "text": "ab",
                "pronoun": {"text": "a", "start": 0, "end": 1},
                "candidates": [{"text": "a", "start": 1, "end": 2, "is_referent": True}],
            },
            row="r1",
        )


BROKEN_BUILDER = """
import datasets
from corefbias.data import features, spans


class Broken(datasets.GeneratorBasedBuilder):
    BUILDER_CONFIGS = [datasets.BuilderConfig(name="default"), datasets.BuilderConfig(name="raises")]

    def _info(self):
        return datasets.DatasetInfo(features=features.common_features(id=datasets.Value("string")))

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
    with pytest.raises(hub_export.DatasetBuildError, match=r"broken/default/test: row x1: pronoun 'won'"):
        hub_export.export_dataset("broken", out, scripts_dir=broken_scripts)
    assert list(out.iterdir()) == []  # nothing half-written


def test_an_error_inside_a_builder_is_reported_with_its_row(tmp_path, broken_scripts):
    builder = hub_export.builder_class("broken", broken_scripts)
    with pytest.raises(hub_export.DatasetBuildError, match=r"building broken/raises failed: row x2: A 'Ann'"):
        hub_export._build_config(builder, "broken", "raises", None, tmp_path / "cache")


def test_unknown_set_is_an_error():
    with pytest.raises(hub_export.DatasetBuildError, match="no builder for 'nope'"):
        hub_export.builder_class("nope")


def test_cli_exports_and_reports_unknown_sets(mirror, tmp_path, capsys):
    from corefbias import cli

    assert cli.main(["export-datasets", "winogender", "--out", str(tmp_path), "--mirror", str(mirror)]) == 0
    assert datasets.load_dataset(str(tmp_path / "winogender"), "default")["test"].num_rows == 720
    assert cli.main(["export-datasets", "winobias2", "--out", str(tmp_path)]) == 2
    assert "no builder for 'winobias2'" in capsys.readouterr().err


SOURCED_BUILDER = """
import datasets
from corefbias.data import builder_base, features


class Sourced(builder_base.UpstreamBuilder):
    UPSTREAM_DATASET = "sowinobias"  # generated: its registry entry has no commit
    CONFIG_SOURCES = {config_sources!r}
    DESCRIPTION = "A set with a generated config and configs built from GAP's files."
    FEATURES = features.common_features(id=datasets.Value("string"))
    CITATION = ""
    VERSION = datasets.Version("1.0.0")
    CONFIG_DESCRIPTIONS = dict.fromkeys({configs!r}, "")

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={{}})]

    def _generate_examples(self):
        pronoun = {{"text": "won", "start": 4, "end": 7}}
        yield 0, {{"text": "Ann won.", "pronoun": pronoun, "candidates": [], "id": "x1"}}
"""


def sourced_scripts(tmp_path, configs: list[str], config_sources: dict[str, str]):
    folder = tmp_path / "scripts" / "sourced"
    folder.mkdir(parents=True)
    (folder / "sourced.py").write_text(SOURCED_BUILDER.format(configs=configs, config_sources=config_sources))
    return tmp_path / "scripts"


def card_of(folder) -> tuple[dict, dict[str, str]]:
    """The card's YAML metadata and its sections by title."""
    _, header, body = (folder / "README.md").read_text(encoding="utf-8").split("---\n", 2)
    sections = {}
    for part in body.split("\n## ")[1:]:
        title, _, text = part.partition("\n")
        sections[title] = text.strip()
    return yaml.safe_load(header), sections


def test_the_card_of_a_generated_set_claims_no_upstream_file_and_no_license(tmp_path):
    scripts = sourced_scripts(tmp_path, ["made"], {})
    metadata, sections = card_of(hub_export.export_dataset("sourced", tmp_path / "out", scripts_dir=scripts))
    assert metadata["license"] == "unknown" and "license_name" not in metadata
    assert sections["Source"].startswith(
        "Generated by `corefbias`, no upstream file read; https://github.com/hillary-dawkins/SoWinoBias, the "
        "original set's home, is named for reference only.\n"
    )
    assert "sha256" not in sections["Source"] and "commit" not in sections["Source"]
    assert sections["License"] == (
        "Unknown: the license of the original data (https://github.com/hillary-dawkins/SoWinoBias) could not be "
        "determined, so whether and how this set may be reused is unclear."
    )


def test_the_card_names_each_configs_own_source(tmp_path):
    scripts = sourced_scripts(tmp_path, ["made", "copied", "recopied"], {"copied": "gap", "recopied": "gap"})
    metadata, sections = card_of(hub_export.export_dataset("sourced", tmp_path / "out", scripts_dir=scripts))
    gap = "https://github.com/google-research-datasets/gap-coreference"
    commit = upstream.dataset_source("gap")["commit"]
    assert sections["Source"].split("\n\n")[:2] == [
        "Per configuration:",
        "- `made`: generated by `corefbias`, no upstream file read; https://github.com/hillary-dawkins/SoWinoBias, "
        "the original set's home, is named for reference only.\n"
        f"- `copied`, `recopied`: built by `corefbias` from the files of {gap} at commit `{commit}`, every file "
        "checked against its sha256.",
    ]
    assert sections["License"].split("\n")[-1] == (
        f"- `copied`, `recopied`: as stated for the upstream data ({gap}): Apache License 2.0."
    )
    # An unknown license and Apache 2.0 have no one Hub identifier, nor one link.
    assert (metadata["license"], metadata["license_name"]) == ("other", "sourced")
    assert "license_link" not in metadata
    builder = hub_export.builder_class("sourced", scripts)
    assert builder(config_name="copied", cache_dir=str(tmp_path / "cache")).info.license == "Apache License 2.0"


def test_config_sources_for_a_config_the_builder_lacks_is_an_error(tmp_path):
    scripts = sourced_scripts(tmp_path, ["made"], {"made": "gap", "genda": "genda_lens"})
    with pytest.raises(hub_export.DatasetBuildError, match=r"sourced: CONFIG_SOURCES names \['genda'\], which"):
        hub_export.export_dataset("sourced", tmp_path / "out", scripts_dir=scripts)
    assert not (tmp_path / "out").exists()  # checked before anything is built


def test_a_card_that_explains_its_license_keeps_it_under_the_one_license_section(tmp_path):
    scripts = sourced_scripts(tmp_path, ["made"], {})
    (scripts / "sourced" / "card.md").write_text(
        "## What it measures\n\nNames.\n\n## License\n\nNo license file upstream.\n\n## Known issues\n\n- None.\n"
    )
    folder = hub_export.export_dataset("sourced", tmp_path / "out", scripts_dir=scripts)
    _, sections = card_of(folder)
    assert (folder / "README.md").read_text(encoding="utf-8").count("\n## License\n") == 1
    assert sections["License"] == (
        "Unknown: the license of the original data (https://github.com/hillary-dawkins/SoWinoBias) could not be "
        "determined, so whether and how this set may be reused is unclear.\n\nNo license file upstream."
    )
    assert (sections["What it measures"], sections["Known issues"]) == ("Names.", "- None.")
