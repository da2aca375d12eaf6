"""Checks every exported set must pass: its files, its card, and spans that match their text."""

import json
from collections import defaultdict
from pathlib import Path

import yaml

ROOT_FILES = ["README.md"]


def files_of(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def assert_export_layout(
    folder: Path, splits_by_config: dict[str, list[str]], *, license_id: str, default: str
) -> None:
    """One Parquet file per config and split, and a card whose YAML names each of them."""
    assert sorted(files_of(folder)) == ROOT_FILES + sorted(
        f"data/{config}/{split}-00000-of-00001.parquet"
        for config, splits in splits_by_config.items()
        for split in splits
    )
    card = (folder / "README.md").read_text(encoding="utf-8")
    metadata = yaml.safe_load(card.split("---\n")[1])
    assert metadata["license"] == license_id
    assert [entry["config_name"] for entry in metadata["configs"] if entry.get("default")] == [default]
    assert {
        entry["config_name"]: [(files["split"], files["path"]) for files in entry["data_files"]]
        for entry in metadata["configs"]
    } == {
        config: [(split, f"data/{config}/{split}-*.parquet") for split in splits]
        for config, splits in splits_by_config.items()
    }
    assert {
        info["config_name"]: [split["name"] for split in info["splits"]] for info in metadata["dataset_info"]
    } == splits_by_config
    for section in ("## Known issues", "## Citation", "## License", "## Source", "## Configurations"):
        assert section in card, section


def assert_spans_match(dataset_dict) -> None:
    """``text[start:end]`` is the span's text for the pronoun and every candidate of every row."""
    for split in dataset_dict.values():
        # One Arrow-to-Python conversion per split: iterating the Dataset decodes row by row, ~6x slower.
        for row in split.select_columns(["text", "pronoun", "candidates"]).to_list():
            for span in [row["pronoun"], *row["candidates"]]:
                assert row["text"][span["start"] : span["end"]] == span["text"], row


def builder_module(name: str):
    """The module of the set's builder (``corefbias/benchmarks/<name>/builder.py``), for testing its helpers."""
    import sys

    from corefbias.data import hub_export

    return sys.modules[hub_export.builder_class(name).__module__]


def repeated_rows(dataset, *, ignoring: set[str], key: str = "id") -> list[list[str]]:
    """The ``key`` of each group of rows that are equal in every column but ``ignoring``, groups of two or more."""
    groups = defaultdict(list)
    for row in dataset:
        same = json.dumps({column: value for column, value in row.items() if column not in ignoring}, sort_keys=True)
        groups[same].append(row[key])
    return [ids for ids in groups.values() if len(ids) > 1]
