"""``corefbias score --benchmark bug`` on the files coreference systems write on BUG's sentences: jsonlines as
e2e-coref and SpanBERT write it, and CoNLL-2012 as BUG's own converter (``src/converters/convert_to_conll.py``, run
as its README says) lays it out. A file scores as the benchmark scores the same links."""

import hashlib
import json
import re
import runpy
import sys
import zipfile

import pytest

from corefbias import cli
from corefbias.benchmarks import BENCHMARKS, rows_of
from corefbias.benchmarks.bug import evaluate_coref
from corefbias.data import spans, upstream
from corefbias.harness.benchmark_data import load_part
from corefbias.harness.prediction_files import PredictionFileError, detect
from corefbias.harness.prediction_files import scoring as file_scoring

BUG = BENCHMARKS["bug"]
CONVERTER = "src/converters/convert_to_conll.py"


def linked(instance: str) -> bool:
    """The system's decision: about three quarters of the pronouns linked to their profession, by a hash of the id."""
    return hashlib.sha256(instance.encode()).digest()[0] % 4 != 0


@pytest.fixture(scope="module")
def parts(exported_set):
    data_dir = exported_set("bug").parent
    return data_dir, {part: load_part(BUG, *part, data_dir).to_dict() for part in BUG.parts}


def expected_sections(rows: dict, n_bootstrap: int) -> dict:
    decisions = {part: [[linked(instance)] for instance in columns["id"]] for part, columns in rows.items()}
    return {name: dict(scored) for name, scored in BUG.score(rows, decisions, n_bootstrap, 0).items()}


def sections_of_links(result, configs=("gold", "balanced")) -> dict:
    """The run's sections of the links (``bug/<config>``); those of the clusters as BUG's evaluate_coref.py reads them
    (``bug/<config>/evaluate_coref``, held to the script in tests/test_bug_evaluate_coref.py) are checked to be there,
    one per config scored."""
    sections = {name: dict(section) for name, section in result.runs["bug"].sections.items()}
    read_as_upstream = {name for name in sections if name.endswith(f"/{evaluate_coref.SECTION}")}
    assert read_as_upstream == {f"bug/{config}/{evaluate_coref.SECTION}" for config in configs}
    return {name: section for name, section in sections.items() if name not in read_as_upstream}


def jsonlines_line(row: dict, *, with_key: bool) -> str:
    """One document as e2e-coref writes it: whitespace tokens, inclusive token spans."""
    tokens = row["text"].split()
    offsets = spans.token_offsets(tokens, row["text"])
    profession = next(i for i, (start, _) in enumerate(offsets) if start == row["candidates"][0]["start"])
    pronoun = next(i for i, (start, _) in enumerate(offsets) if start == row["pronoun"]["start"])
    clusters = [[[profession, profession], [pronoun, pronoun]]] if linked(row["id"]) else [[[profession, profession]]]
    record = {"sentences": [tokens], "predicted_clusters": clusters}
    return json.dumps({"doc_key": row["id"], **record} if with_key else record) + "\n"


@pytest.mark.parametrize("with_key", [True, pytest.param(False, marks=pytest.mark.slow)], ids=["by doc_key", "by text"])
def test_jsonlines_score_as_the_benchmark_scores_the_same_links(parts, tmp_path, with_key):
    data_dir, rows = parts
    path = tmp_path / "spanbert.jsonlines"
    path.write_text(
        "".join(jsonlines_line(row, with_key=with_key) for columns in rows.values() for row in rows_of(columns)),
        encoding="utf-8",
    )
    result = file_scoring.score("bug", [path], data_dir=data_dir, n_bootstrap=200, seed=0)
    assert sections_of_links(result) == expected_sections(rows, 200)


def test_gold_alone_is_scored_with_config_gold_as_within_both(parts, tmp_path):
    """Before, ``--config`` was refused for a benchmark of two parts ("--config is for benchmarks of one part; bug has
    2"), and a file of the gold sentences alone was told that the rest may be beyond a ``--limit``."""
    data_dir, rows = parts
    path = tmp_path / "gold.jsonlines"
    path.write_text(
        "".join(jsonlines_line(row, with_key=True) for row in rows_of(rows["gold", "test"])), encoding="utf-8"
    )
    with pytest.raises(PredictionFileError) as missing:
        file_scoring.score("bug", [path], data_dir=data_dir, n_bootstrap=0)
    assert str(missing.value).endswith(
        "(25504 of 27220 instances unmatched): expected one document per instance; the documents answer every "
        "instance of gold, and none of the other parts: score it alone with --config gold"
    )
    out = tmp_path / "out"
    command = ["score", "--benchmark", "bug", "--config", "gold", "--predictions", str(path), "--data-dir"]
    assert cli.main([*command, str(data_dir), "--n-bootstrap", "200", "--no-plots", "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["settings"]["config"] == "gold"
    assert [headline["label"] for headline in results["benchmarks"]["bug"]["headlines"]] == [
        "gold ΔS stereotypical − anti",
        "gold ΔG male − female",
        "gold accuracy",
    ]
    alone = file_scoring.score("bug", [path], config=["gold"], data_dir=data_dir, n_bootstrap=200)
    assert sections_of_links(alone, ["gold"]) == {"bug/gold": expected_sections(rows, 200)["bug/gold"]}
    written = results["benchmarks"]["bug"]["sections"]["bug/gold"]
    assert written["delta_s"] == alone.runs["bug"].sections["bug/gold"]["delta_s"]


def run_converter(mirror, config: str, tmp_path):
    """BUG's converter on a config's upstream CSV, as its README runs it; the CoNLL file it writes."""
    archive = zipfile.ZipFile(upstream.fetch("bug", f"{config}_BUG.zip", mirror))
    (name,) = archive.namelist()
    table = tmp_path / name
    table.write_bytes(archive.read(name))
    out = tmp_path / f"{config}_bug.conll"
    argv = sys.argv
    sys.argv = [CONVERTER, f"--in={table}", f"--out={out}"]
    try:
        runpy.run_path(str(upstream.fetch("bug", CONVERTER, mirror)), run_name="__main__")
    finally:
        sys.argv = argv
    return out


def system_output(conll: str, rows: dict) -> tuple[str, set[str]]:
    """The converter's gold file as a system's output: the pronoun's mark dropped where ``linked`` says no. The
    documents are named ``nw/<file>/<upstream row>``; the ids of the instances they hold."""
    by_row = {
        (config, upstream_row): (instance, pronoun_index)
        for (config, _), columns in rows.items()
        for instance, upstream_row, pronoun_index in zip(
            columns["id"], columns["upstream_row"], columns["g_first_index"]
        )
    }
    documents, covered = [], set()
    for match in re.finditer(r"#begin document \(nw/(\w+)_bug/(\d+)\); part 000\n(.*?)#end document\n", conll, re.S):
        instance, pronoun_index = by_row[match[1], int(match[2])]
        covered.add(instance)
        lines = match[3].split("\n")
        if not linked(instance):
            lines[pronoun_index] = lines[pronoun_index].rsplit("\t", 1)[0] + "\t-"
        documents.append(f"#begin document (nw/{match[1]}_bug/{match[2]}); part 000\n" + "\n".join(lines))
    return "#end document\n".join(documents) + "#end document\n", covered


@pytest.mark.reproduction
def test_conll_from_bugs_converter_is_read_and_scored(parts, mirror, tmp_path):
    data_dir, rows = parts
    converted = {
        config: run_converter(mirror, config, tmp_path).read_text(encoding="utf-8") for config in ("gold", "balanced")
    }
    output, covered = system_output("".join(converted.values()), rows)
    predictions = tmp_path / "system.conll"
    predictions.write_text(output, encoding="utf-8")
    assert detect(predictions) == "conll"
    # The converter leaves out the rows its validate_row refuses (word offsets that miss their word, whitespace
    # words) and two balanced rows it lists; score needs a document for every instance, and says which is missing.
    everything = {instance for columns in rows.values() for instance in columns["id"]}
    refused = everything - covered
    assert len([i for i in refused if i.startswith("gold")]) == 28
    assert len([i for i in refused if i.startswith("balanced")]) == 146
    with pytest.raises(PredictionFileError, match=r"no document for instance .* \(174 of 27220 instances unmatched\)"):
        file_scoring.score("bug", [predictions], data_dir=data_dir, n_bootstrap=0)
    # The rest from a second file (any format): together, every instance once, scored as the same links.
    rest = tmp_path / "rest.jsonlines"
    rest.write_text(
        "".join(
            jsonlines_line(row, with_key=True)
            for columns in rows.values()
            for row in rows_of(columns)
            if row["id"] in refused
        ),
        encoding="utf-8",
    )
    result = file_scoring.score("bug", [predictions, rest], data_dir=data_dir, n_bootstrap=0)
    assert sections_of_links(result) == expected_sections(rows, 0)
    assert [file["format"] for file in result.settings["predictions"]] == ["conll", "jsonlines"]
