"""``corefbias list [benchmarks|models|formats]``: every entry the registries know, as text and as JSON."""

import json

import pytest

from corefbias.benchmarks import BENCHMARKS
from corefbias.cli import main
from corefbias.cli.list_command import plain_text
from corefbias.harness.prediction_files import FILE_FORMATS
from corefbias.models.registry import kinds, origin


def _listed(capsys, *argv):
    assert main(["list", *argv]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def _rows(text):
    """The text listing's lines after its header, split into columns at runs of two or more spaces."""
    header, *lines = text.splitlines()
    return header.split(), {line.split("  ")[0]: [cell.strip() for cell in line.split("  ") if cell] for line in lines}


def test_models_lists_every_kind_with_its_extra_example_origin_and_options(capsys):
    header, rows = _rows(_listed(capsys, "models"))
    assert header == ["KIND", "EXAMPLE", "EXTRA", "ORIGIN", "FLAGS", "MODEL", "ARGS"]
    assert list(rows) == list(kinds())
    for name, kind in kinds().items():
        flags = ", ".join(option.flag for option in kind.options if option.flag) or "-"
        assert rows[name] == [
            name,
            kind.example,
            kind.extra or "-",
            origin(name),
            flags,
            ", ".join(kind.model_args) or "-",
        ]
    assert rows["hf"][4] == "--device, --dtype, --cloze-norm" and rows["maverick"][5] == "-"
    assert (
        rows["chat"][5] == "timeout, retries, backoff, max_tokens, token_env"
    )  # not token, which only the Space gives


def test_benchmarks_lists_every_benchmark_with_its_language_unit_metrics_and_description(capsys):
    header, rows = _rows(_listed(capsys, "benchmarks"))
    assert header[:3] == ["NAME", "LANGUAGE", "UNIT"]
    assert list(rows) == list(BENCHMARKS)
    for name, benchmark in BENCHMARKS.items():
        assert rows[name][:3] == [name, benchmark.language, benchmark.unit]
        assert rows[name][-1] == benchmark.description
        assert ", ".join(benchmark.metric_modules) in rows[name]


def test_formats_lists_every_format_with_its_origin_and_description(capsys):
    header, rows = _rows(_listed(capsys, "formats"))
    assert header == ["FORMAT", "ORIGIN", "DESCRIPTION"]
    assert (
        list(rows)
        == list(FILE_FORMATS)
        == ["conll", "jsonlines", "allennlp", "gap-tsv", "instances", "lm-eval-samples"]
    )
    for name, file_format in FILE_FORMATS.items():
        assert rows[name] == [name, "built-in", plain_text(file_format.description)]
    assert rows["gap-tsv"][2].startswith("GAP TSV, the input of GAP's")  # its reader module's docstring
    # The readers' docstrings are reStructuredText; the terminal shows their literals in single backticks.
    assert all("``" not in row[2] for row in rows.values())
    assert "`gap_scorer.py`" in rows["gap-tsv"][2]


def test_list_alone_lists_all_three_in_turn(capsys):
    text = _listed(capsys)
    listings = text.rstrip("\n").split("\n\n")
    assert listings[0::2] == ["BENCHMARKS", "MODELS", "FORMATS"]
    for what, listing in zip(["benchmarks", "models", "formats"], listings[1::2]):
        assert listing == _listed(capsys, what).rstrip("\n")
    assert json.loads(_listed(capsys, "--json")) == {
        what: json.loads(_listed(capsys, what, "--json")) for what in ("benchmarks", "models", "formats")
    }


@pytest.mark.parametrize("what", ["benchmarks", "models", "formats"])
def test_json_is_a_list_of_objects_with_the_text_listings_entries(what, capsys):
    listed = json.loads(_listed(capsys, what, "--json"))
    assert isinstance(listed, list) and all(isinstance(row, dict) for row in listed)
    names = {"benchmarks": list(BENCHMARKS), "models": list(kinds()), "formats": list(FILE_FORMATS)}[what]
    key = {"benchmarks": "name", "models": "kind", "formats": "format"}[what]
    assert [row[key] for row in listed] == names


def test_json_models_and_benchmarks_carry_every_field(capsys):
    models = {row["kind"]: row for row in json.loads(_listed(capsys, "models", "--json"))}
    for name, kind in kinds().items():
        assert models[name] == {
            "kind": name,
            "example": kind.example,
            "extra": kind.extra,
            "origin": origin(name),
            "flags": [option.flag for option in kind.options if option.flag],
            "model_args": list(kind.model_args),
        }
    benchmarks = {row["name"]: row for row in json.loads(_listed(capsys, "benchmarks", "--json"))}
    for name, benchmark in BENCHMARKS.items():
        assert benchmarks[name] == {
            "name": name,
            "language": benchmark.language,
            "unit": benchmark.unit,
            "metric_modules": list(benchmark.metric_modules),
            "description": benchmark.description,
        }


def test_an_unknown_listing_is_refused(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["list", "metrics"])
    assert exited.value.code == 2
    assert "invalid choice: 'metrics'" in capsys.readouterr().err
