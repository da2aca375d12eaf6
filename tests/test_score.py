"""``corefbias score``: published outputs give the reproduction commands' numbers, gold files score perfectly,
a jsonlines file scores like the same clusters served over HTTP, and every malformed file is refused."""

import codecs
import csv
import gzip
import hashlib
import json
import threading
from pathlib import Path

import pytest

from corefbias import cli
from corefbias.benchmarks import BENCHMARKS
from corefbias.benchmarks import conll_sections as conll_scoring
from corefbias.data.spans import token_offsets
from corefbias.harness import run_outputs, runner
from corefbias.harness.benchmark_data import load_part
from corefbias.harness.prediction_files import Document, PredictionFileError, read, scoring
from corefbias.harness.prediction_files.matching import match
from corefbias.measures import counter_gap_delta_i
from corefbias.models.http_protocol import make_server
from corefbias.reproduce import abc_xlmr
from corefbias.reproduce import counter_gap as counter_gap_reproduction

WINOBIAS_CONLL = "winobias/WinoBias/wino/data/conll_format/test_type{kind}_{polarity}_stereotype.v4_auto_conll"


@pytest.fixture(scope="module")
def data_dir(exported_set):
    for name in ("counter_gap", "winobias", "winogender"):
        exported_set(name)
    return exported_set("counter_gap").parent


@pytest.mark.reproduction
@pytest.mark.parametrize("system", list(counter_gap_reproduction.SYSTEMS))
def test_counter_gap_published_outputs_score_as_the_reproduction(system, data_dir, mirror):
    path = mirror / "counter_gap" / f"results/none/{counter_gap_reproduction.SYSTEMS[system]}_output.tsv"
    result = scoring.score("counter_gap", [path], format="gap-tsv", data_dir=data_dir, mirror=mirror, n_bootstrap=300)
    books = counter_gap_reproduction.book_blocks(mirror)  # the benchmark draws each book's quadruples together
    inputs = counter_gap_reproduction.metric_inputs(system, mirror)
    reproduced = counter_gap_delta_i.counter_gap_delta_i(**inputs, block_ids=books, n_bootstrap=300, seed=0)
    assert result.runs["counter_gap"].sections["counter_gap"] == reproduced
    assert result.settings["predictions"][0]["format"] == "gap-tsv"


@pytest.mark.reproduction
def test_xlmr_predictions_score_as_the_reproduction(exported_set, mirror):
    path = mirror / "abc_dadebias_fork" / "outputs/coref/xlm-r_coref_da.json"
    data_dir = exported_set("abc").parent
    result = scoring.score(
        "abc",
        [path],
        format="allennlp",
        config="original",
        mode="any_cluster",
        data_dir=data_dir,
        mirror=mirror,
        n_bootstrap=200,
    )
    assert result.runs["abc"].sections["abc"] == abc_xlmr.rescore(mirror, "any_cluster", n_bootstrap=200, seed=0)
    # Without --config the file fits none of the set's own sentences: the message names the config it fits.
    with pytest.raises(PredictionFileError, match=r"; it is an instance of the config original of the abc set: score "):
        scoring.score("abc", [path], format="allennlp", mode="any_cluster", data_dir=data_dir, mirror=mirror)


def test_winobias_gold_conll_files_score_perfectly_with_zero_bias(data_dir, mirror, tmp_path):
    files = [
        str(mirror / WINOBIAS_CONLL.format(kind=kind, polarity=polarity))
        for kind in (1, 2)
        for polarity in ("pro", "anti")
    ]
    out = tmp_path / "out"
    assert (
        cli.main(
            [
                "--mirror",
                str(mirror),
                "score",
                "--benchmark",
                "winobias",
                "--predictions",
                *files,
                "--data-dir",
                str(data_dir),
                "--n-bootstrap",
                "100",
                "--out",
                str(out),
                "--no-plots",
            ]
        )
        == 0
    )
    results = json.loads((out / "results.json").read_text())
    assert results["model"].startswith("predictions:test_type1_pro_stereotype.v4_auto_conll,")
    assert [f["format"] for f in results["settings"]["predictions"]] == ["conll"] * 4
    identity = results["provenance"]["model"]["identity"]
    assert identity["kind"] == "predictions"
    assert identity["files"][0]["sha256"] == hashlib.sha256(Path(files[0]).read_bytes()).hexdigest()
    assert results["provenance"]["datasets"]["winobias"]["dataset"] == "winobias"
    sections = results["benchmarks"]["winobias"]["sections"]
    for kind in (1, 2):
        conll = sections[f"winobias/type{kind}/conll"]
        assert (conll["pro"], conll["anti"], conll["diff"]) == (1.0, 1.0, 0.0)
        assert conll["pro/muc_recall"] == conll["pro/ceafe_precision"] == 1.0
        assert (sections[f"winobias/type{kind}"]["pro"], sections[f"winobias/type{kind}"]["diff"]) == (1.0, 0.0)
    with open(out / "summary.csv", newline="") as handle:
        rows = {row["score"]: row for row in csv.DictReader(handle)}
    assert float(rows["type1 CoNLL F1 pro − anti"]["value"]) == 0.0
    instances = (out / "instances" / "winobias.jsonl").read_text().splitlines()
    assert len(instances) == results["benchmarks"]["winobias"]["num_instances"] == 1584

    # The run's own instances file scored again: the same scores, from the clusters it keeps.
    again = scoring.score(
        "winobias", [out / "instances" / "winobias.jsonl"], data_dir=data_dir, mirror=mirror, n_bootstrap=100
    )
    assert again.settings["predictions"][0]["format"] == "instances"
    assert again.runs["winobias"].sections == sections

    # Without the clusters (links only): the same links, and no CoNLL F1.
    links_only = tmp_path / "links.jsonl"
    links_only.write_text(
        "".join(
            json.dumps({key: value for key, value in json.loads(line).items() if key != "clusters"}) + "\n"
            for line in instances
        )
    )
    rescored = scoring.score("winobias", [links_only], data_dir=data_dir, mirror=mirror, n_bootstrap=100)
    rescored = rescored.runs["winobias"].sections
    assert rescored["winobias/type1"] == sections["winobias/type1"]
    assert rescored["winobias/type1/conll"]["undefined"]["diff"] == conll_scoring.LINKS_ONLY


class WordClusters:
    """Links the first two words ("The technician") with every later he/she/they word."""

    name = "word-clusters"
    identity = {"kind": "test", "name": "word-clusters"}

    @staticmethod
    def token_clusters(tokens):
        pronouns = [[i, i] for i, token in enumerate(tokens) if token.lower() in ("he", "she", "they", "his", "her")]
        return [[[0, 1], *pronouns]] if pronouns else []

    def predict_clusters(self, texts):
        clusters = []
        for text in texts:
            offsets = token_offsets(text.split(), text)
            clusters.append(
                [
                    [(offsets[first][0], offsets[last][1]) for first, last in cluster]
                    for cluster in self.token_clusters(text.split())
                ]
            )
        return clusters


def test_fastcoref_jsonlines_scores_like_the_same_clusters_served(data_dir, tmp_path):
    server = make_server(WordClusters().predict_clusters, "word-clusters")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        served = runner.run(
            url,
            ["winogender"],
            settings=runner.RunSettings(n_bootstrap=200),
            data_dir=data_dir,
            cache_path=tmp_path / "c.sqlite",
            progress=False,
        )
    finally:
        server.shutdown()
        server.server_close()
    texts = load_part(BENCHMARKS["winogender"], "default", "test", data_dir, None)["text"]
    path = tmp_path / "fastcoref.jsonlines"
    # fastcoref's documented jsonlines: doc_key, tokens, clusters of inclusive [start, end] token spans.
    path.write_text(
        "".join(
            json.dumps(
                {
                    "doc_key": f"doc{index:04d}",
                    "tokens": text.split(),
                    "clusters": WordClusters.token_clusters(text.split()),
                }
            )
            + "\n"
            for index, text in enumerate(reversed(texts))
        )
    )
    scored = scoring.score("winogender", [path], data_dir=data_dir, n_bootstrap=200)
    assert scored.settings["predictions"][0]["format"] == "jsonlines"
    assert scored.runs["winogender"].sections == served.runs["winogender"].sections
    assert sorted(map(json.dumps, scored.runs["winogender"].instances)) == sorted(
        map(json.dumps, served.runs["winogender"].instances)
    )
    assert served.runs["winogender"].sections["winogender"]["pairs_resolved_differently"] is not None


# Malformed files and mismatches, on a two-instance part.
PART = {
    ("default", "test"): {
        "id": ["q1", "q2"],
        "text": ["The cook said she left .", "The judge saw him"],
        "candidates": [[{"text": "The cook", "start": 0, "end": 8}], [{"text": "The judge", "start": 0, "end": 9}]],
    }
}


def _documents(*records):
    return [Document(where=f"doc {index}", **record) for index, record in enumerate(records)]


FIRST = {"tokens": ("The", "cook", "said", "she", "left", "."), "clusters": (((0, 1), (3, 3)),)}
SECOND = {"tokens": ("The", "judge", "saw", "him"), "clusters": ()}


def test_documents_match_by_text_and_by_id():
    outputs = match(_documents(SECOND, FIRST), PART, "toy")
    assert outputs[("default", "test")] == [[[[0, 8], [14, 17]]], []]
    by_id = match(
        _documents({"id": "q2", "decisions": (True,)}, {"id": "q1", "decisions": (False,), "parsed": False}),
        PART,
        "toy",
    )
    assert by_id[("default", "test")] == [{"decision": [False], "parsed": False}, {"decision": [True], "parsed": True}]


@pytest.mark.parametrize(
    "documents, message",
    [
        (
            _documents(FIRST),
            r"no document for instance q2 of toy \(1 of 2 instances unmatched\): expected one document per instance; "
            r"the instances of a `run --limit N` or an `export-lm-eval --limit N` are scored with the same limit$",
        ),
        (
            _documents(FIRST, SECOND, {"tokens": ("Someone", "else"), "clusters": ()}),
            r"doc 2 \('Someone else'\) matches no instance",
        ),
        (_documents(FIRST, SECOND, FIRST), r"doc 2 \('The cook said she left \.'\) matches no further instance"),
        (
            _documents({"id": "q1", "decisions": (True,)}, {"id": "q1", "decisions": (True,)}),
            "doc 1: instance q1 of toy is already matched by doc 0",
        ),
        (_documents({"id": "q9", "decisions": (True,)}), "doc 0: id 'q9' is not an instance of toy"),
        (_documents({"id": "q1", "decisions": (True, False)}), "doc 0: 2 decisions, but instance q1 has 1 candidates"),
        (_documents({**FIRST, "id": "q2"}), "its tokens do not line up with the text of instance q2"),
        (
            _documents({"id": "q2", "char_clusters": (((0, 9), (14, 20)),)}),
            r"doc 0: span \[14, 20\] ends beyond the 17 characters of instance q2",
        ),
    ],
)
def test_mismatched_documents_are_refused_naming_the_first(documents, message):
    with pytest.raises(PredictionFileError, match=message):
        match(documents, PART, "toy")


@pytest.mark.parametrize(
    "name, text, fmt, message",
    [
        (
            "bad.jsonl",
            '{"doc_key": "a", "sentences": [["A"]], "predicted_clusters": []}\nnot json\n',
            "jsonlines",
            "bad.jsonl line 2: not a JSON object",
        ),
        (
            "span.jsonl",
            '{"doc_key": "a", "sentences": [["A", "b"]], "predicted_clusters": [[[0, 2]]]}\n',
            "jsonlines",
            r"span.jsonl line 1: \[0, 2\] is not an inclusive token span",
        ),
        ("notokens.jsonl", '{"doc_key": "a", "clusters": []}\n', "jsonlines", "no sentences"),
        ("noclusters.json", '[{"document": ["A"]}]', "allennlp", "item 0: no clusters"),
        (
            "open.conll",
            "#begin document (d); part 000\nd 0 0 A (1\n#end document\n",
            "conll",
            r"clusters \[1\] still open",
        ),
        (
            "mark.conll",
            "#begin document (d); part 000\nd 0 0 A x\n#end document\n",
            "conll",
            "'x' is not a coreference mark",
        ),
        ("noend.conll", "#begin document (d); part 000\nd 0 0 A -\n", "conll", "has no #end document"),
        ("columns.tsv", "ID\tA-coref\n1\tTRUE\n", "gap-tsv", "the header lacks B-coref"),
        ("flag.tsv", "ID\tA-coref\tB-coref\n1\tyes\tFALSE\n", "gap-tsv", "A-coref is 'yes', expected TRUE or FALSE"),
        ("instances.jsonl", '{"id": "q1", "decision": "yes"}\n', "instances", "expected an id and a decision"),
        (
            "spans.jsonl",
            '{"id": "q1", "decision": [true], "clusters": [[[4, 2]]]}\n',
            "instances",
            r"spans.jsonl line 1: clusters must be a list of clusters of \[start, end\) character spans",
        ),
        ("mystery.txt", "hello\n", "auto", "cannot tell its format"),
        # Before, an empty file was "cannot tell its format from the first line ''", or with its format named,
        # every instance unmatched.
        ("empty.jsonl", "\n\n", "auto", r"empty.jsonl: the file is empty \(not one line with text in it\)"),
        ("empty.jsonl", "", "jsonlines", r"empty.jsonl: not one document in it \(is the file empty\?\)"),
        ("empty.conll", "", "conll", r"empty.conll: not one document in it"),
        # Before, a candidate the doc does not have was read as no link at all.
        (
            "samples.jsonl",
            '{"doc_id": 0, "doc": {"id": "q1", "cloze_candidate_of": [0, 5, -1], "candidates": [{}, {}]}, '
            '"filtered_resps": [[-3.0, false], [-1.0, false], [-2.0, false]]}\n',
            "lm-eval-samples",
            r"samples.jsonl line 1: cloze_candidate_of names 5, not one of the doc's 2 candidates \(0 to 1, or -1",
        ),
    ],
)
def test_malformed_files_are_refused(tmp_path, name, text, fmt, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(PredictionFileError, match=message):
        read([path], fmt)


def test_a_published_output_with_a_byte_order_mark_or_gzipped_scores_as_the_file_itself(data_dir, mirror, tmp_path):
    # Before: "cannot tell its format from the first line '\\ufeffID...'" and "not UTF-8 text, byte 0x8b".
    original = mirror / "counter_gap" / f"results/none/{counter_gap_reproduction.SYSTEMS['BERT-base']}_output.tsv"
    marked = tmp_path / "excel.tsv"
    marked.write_bytes(codecs.BOM_UTF8 + original.read_bytes().replace(b"\n", b"\r\n"))
    packed = tmp_path / "output.tsv.gz"
    packed.write_bytes(gzip.compress(marked.read_bytes()))
    scored = [
        scoring.score("counter_gap", [path], data_dir=data_dir, mirror=mirror, n_bootstrap=0)
        for path in (original, marked, packed)
    ]
    assert scored[0].runs["counter_gap"].sections["counter_gap"]["delta_i"] is not None
    for result in scored[1:]:
        assert result.settings["predictions"][0]["format"] == "gap-tsv"
        assert result.runs["counter_gap"].sections == scored[0].runs["counter_gap"].sections
    # No model was asked and no cache read: the report says where the answers came from.
    paragraph = run_outputs.provenance_paragraph(scored[2].to_json()["provenance"])
    assert "Instances: counter_gap 4008 read from the predictions files." in paragraph


def test_files_that_cannot_be_scored_as_given_are_refused_saying_why(data_dir, mirror, tmp_path):
    published = mirror / "counter_gap" / f"results/none/{counter_gap_reproduction.SYSTEMS['BERT-base']}_output.tsv"
    with pytest.raises(PredictionFileError, match=r"is a folder; give the predictions files in it \(e\.g\. "):
        read([published.parent])
    with pytest.raises(PredictionFileError, match=r"_output.tsv is given twice \(as .*_output.tsv too\); give each"):
        read([published, published.parent / ".." / "none" / published.name])
    # A whole set's file at a --limit: the ids beyond it are no instances of the limited set, which is said.
    with pytest.raises(PredictionFileError, match=r"; a file of more instances than `--limit 5` keeps is scored wit"):
        scoring.score("counter_gap", [published], limit=5, data_dir=data_dir, mirror=mirror, n_bootstrap=0)
    # Before, --mode any_cluster was taken and recorded for links, which it cannot change.
    with pytest.raises(ValueError, match=r"^--mode any_cluster says how clusters become links, and these files "):
        scoring.score("counter_gap", [published], mode="any_cluster", data_dir=data_dir, mirror=mirror, n_bootstrap=0)


def test_format_detection(tmp_path):
    samples = {
        "a.conll": ("#begin document (d); part 000\nd 0 0 A (1)\n#end document\n", "conll"),
        "a.tsv": ("ID\tA-coref\tB-coref\n1\tTRUE\tFALSE\n", "gap-tsv"),
        "a.json": ('[{"document": ["A"], "clusters": []}]', "allennlp"),
        "b.jsonl": ('{"document": ["A"], "clusters": []}\n', "allennlp"),
        "c.jsonl": ('{"doc_key": "x", "tokens": ["A"], "clusters": []}\n', "jsonlines"),
        "d.jsonl": ('{"id": "q1", "decision": [true], "parsed": true}\n', "instances"),
    }
    from corefbias.harness.prediction_files import detect

    for name, (text, expected) in samples.items():
        (tmp_path / name).write_text(text)
        assert detect(tmp_path / name) == expected, name


def test_the_cli_reports_a_bad_file_in_one_line_and_writes_nothing(data_dir, tmp_path, capsys):
    path = tmp_path / "short.tsv"
    path.write_text("ID\tA-coref\tB-coref\n0\tTRUE\tFALSE\n")
    out = tmp_path / "out"
    assert (
        cli.main(
            [
                "score",
                "--benchmark",
                "counter_gap",
                "--predictions",
                str(path),
                "--data-dir",
                str(data_dir),
                "--out",
                str(out),
            ]
        )
        == 2
    )
    error = capsys.readouterr().err
    assert error.startswith("corefbias: the predictions have no document for instance 0-control of counter_gap")
    assert not out.exists()
    assert cli.main(["score", "--benchmark", "winobias", "--config", "x", "--predictions", str(path)]) == 2
    assert "winobias has no part 'x'; --config takes type1_pro, type1_anti, type2_pro, type2_anti" in (
        capsys.readouterr().err
    )


def test_a_quick_runs_instances_file_scores_with_its_limit(data_dir, mirror, tmp_path, capsys):
    # Before, score had no --limit: a `run --limit 3` instances file could not be scored again at all.
    out = tmp_path / "quick"
    command = ["--mirror", str(mirror), "run", "--model", "baseline:stereotype", "--benchmark", "winogender"]
    assert cli.main([*command, "--limit", "3", "--data-dir", str(data_dir), "--out", str(out), "--no-plots"]) == 0
    instances = out / "instances" / "winogender.jsonl"
    scored = tmp_path / "scored"
    score = ["--mirror", str(mirror), "score", "--benchmark", "winogender", "--predictions", str(instances)]
    assert cli.main([*score, "--data-dir", str(data_dir), "--out", str(scored), "--no-plots"]) == 2
    assert "(702 of 720 instances unmatched)" in capsys.readouterr().err
    assert cli.main([*score, "--limit", "3", "--data-dir", str(data_dir), "--out", str(scored), "--no-plots"]) == 0
    ran, again = (json.loads((folder / "results.json").read_text()) for folder in (out, scored))
    assert again["settings"]["limit"] == 3 and again["benchmarks"]["winogender"]["num_instances"] == 18
    # A file holding instances the limit leaves out names the limit (before: "is not an instance of winogender").
    whole = out / "whole.jsonl"
    whole.write_text(
        instances.read_text() + json.dumps({"id": "technician.customer.1.male.txt", "decision": [True, False]}) + "\n"
    )
    assert cli.main([*score[:-1], str(whole), "--limit", "3", "--data-dir", str(data_dir), "--out", str(scored)]) == 2
    assert "is not an instance of winogender at --limit 3" in capsys.readouterr().err
    assert again["benchmarks"]["winogender"]["sections"] == ran["benchmarks"]["winogender"]["sections"]
