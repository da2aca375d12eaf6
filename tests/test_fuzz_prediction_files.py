"""Damaged and invalid prediction files at volume (issue 25): every reader answers a file it cannot read soundly
with a one-line ``PredictionFileError`` naming the file (and, for a bad value, its line, item or document), and
reads a still-valid file correctly; never another exception, never a silent parse of an invalid value.

Each property builds a valid file of its format (with non-ASCII tokens, so that a wrong encoding shows), then
damages it: truncated at any byte, bytes flipped, written as Latin-1, CP-1252 or UTF-16; or one value made invalid
(booleans, NaN, huge or negative numbers as token offsets, ``parsed`` not a boolean, empty ids, broken coreference
marks and flags); or changed harmlessly (CRLF line ends, blank lines, unknown keys, another key order, detection of
the format), which must give the very documents of the original. ``pytest --hypothesis-show-statistics`` shows
the damage drawn; the ``slow`` variants run thousands of files per reader.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from fuzz_settings import fuzz_settings
from hypothesis import event, given
from hypothesis import strategies as st

from corefbias.harness.prediction_files import Document, PredictionFileError, read

# Examples per property: the default run of this file stays within ~10 s; the slow variants draw new cases on every
# CI run, hundreds per reader (at 3 000 and 600 they took a sixth of the CI's test time).
EXAMPLES, VALUE_EXAMPLES, HARMLESS_EXAMPLES = 100, 15, 30
SLOW_EXAMPLES, SLOW_VALUE_EXAMPLES = 800, 150
NAN = float("nan")
WORDS = ["The", "cook", "said", "she", "left", ".", "café", "Søren", "naïve", "über", "Zoë"]


# --- Valid files --------------------------------------------------------------------------------------------------


@dataclass
class File:
    """A valid file: its records, how they are written, where each record is named, and the documents it holds."""

    format: str
    name: str
    records: list
    render: Callable[[list], str]
    location: Callable[[int], str]  # record index → how a message names where it is
    documents: list[Document]


@st.composite
def token_documents(draw, *, disjoint: bool = False):
    """Tokens and clusters of inclusive token spans; ``disjoint``: no two spans of a cluster share a token (what a
    CoNLL coreference column can write unambiguously)."""
    tokens = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8))
    clusters = []
    for _ in range(draw(st.integers(0, 3))):
        starts = sorted(draw(st.sets(st.integers(0, len(tokens) - 1), min_size=1, max_size=3)))
        ends = starts[1:] + [len(tokens)]
        spans = []
        for start, following in zip(starts, ends):
            last = following - 1 if disjoint else len(tokens) - 1
            spans.append([start, draw(st.integers(start, last))])
        clusters.append(spans)
    return tokens, clusters


def _lines(records: list) -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)


def _token_document(where: str, tokens: list, clusters: list, id: str | None = None) -> Document:
    return Document(
        where=where,
        id=id,
        tokens=tuple(tokens),
        clusters=tuple(tuple((start, end) for start, end in cluster) for cluster in clusters),
    )


@st.composite
def jsonlines_files(draw):
    records = []
    for index in range(draw(st.integers(1, 4))):
        tokens, clusters = draw(token_documents())
        split = draw(st.booleans())
        record = {"doc_key": f"doc {index}"}
        record.update({"sentences": [tokens]} if split else {"tokens": tokens})
        record[draw(st.sampled_from(["predicted_clusters", "clusters"]))] = clusters
        records.append(record)
    documents = [
        _token_document(
            "",
            record.get("tokens") or record["sentences"][0],
            record.get("predicted_clusters", record.get("clusters")),
            record["doc_key"],
        )
        for record in records
    ]
    return File("jsonlines", "out.jsonl", records, _lines, lambda index: f"line {index + 1}", documents)


@st.composite
def allennlp_files(draw):
    records = []
    for _ in range(draw(st.integers(1, 4))):
        tokens, clusters = draw(token_documents())
        records.append({"document": tokens, "clusters": clusters})
    documents = [_token_document("", record["document"], record["clusters"]) for record in records]
    if draw(st.booleans()):  # one JSON list, as the DaNLP predictions are published
        return File(
            "allennlp",
            "predictions.json",
            records,
            lambda records: json.dumps(records, ensure_ascii=False, indent=1),
            lambda index: f"item {index}",
            documents,
        )
    return File("allennlp", "predictions.jsonl", records, _lines, lambda index: f"line {index + 1}", documents)


@st.composite
def instances_files(draw):
    records, documents = [], []
    for index in range(draw(st.integers(1, 4))):
        record = {
            "id": draw(st.sampled_from([f"q{index}", index])),
            "decision": draw(st.lists(st.booleans(), min_size=1, max_size=3)),
        }
        if draw(st.booleans()):
            record["parsed"] = draw(st.booleans())
        if draw(st.booleans()):
            record["position"] = draw(st.integers(0, 3))
        clusters = None
        if draw(st.booleans()):
            start = st.integers(0, 40)
            clusters = [
                [[first, first + draw(st.integers(1, 9))] for first in draw(st.lists(start, min_size=1, max_size=3))]
                for _ in range(draw(st.integers(0, 2)))
            ]
            record["clusters"] = clusters
        records.append(record)
        documents.append(
            Document(
                where="",
                id=str(record["id"]),
                char_clusters=None if clusters is None else tuple(tuple(map(tuple, c)) for c in clusters),
                decisions=None if clusters is not None else tuple(record["decision"]),
                parsed=record.get("parsed", True),
                position=record.get("position"),
            )
        )
    return File("instances", "instances.jsonl", records, _lines, lambda index: f"line {index + 1}", documents)


def _tsv(records: list) -> str:
    columns = list(records[0])
    return "\t".join(columns) + "\n" + "".join("\t".join(row[c] for c in columns) + "\n" for row in records)


@st.composite
def gap_tsv_files(draw):
    flag = st.sampled_from(["TRUE", "FALSE"])
    records = [
        {
            "ID": f"test-{index}",
            "Text": " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))),
            "A-coref": draw(flag),
            "B-coref": draw(flag),
        }
        for index in range(draw(st.integers(1, 4)))
    ]
    documents = [
        Document(where="", id=row["ID"], decisions=(row["A-coref"] == "TRUE", row["B-coref"] == "TRUE"))
        for row in records
    ]
    return File("gap-tsv", "gap.tsv", records, _tsv, lambda index: f"line {index + 2}", documents)


def _conll(records: list) -> str:
    lines = []
    for name, tokens, clusters in records:
        lines.append(f"#begin document ({name}); part 000")
        marks: list[list[str]] = [[] for _ in tokens]
        for number, cluster in enumerate(clusters):
            for start, end in cluster:
                if start == end:
                    marks[start].append(f"({number})")
                else:
                    marks[start].append(f"({number}")
                    marks[end].append(f"{number})")
        lines += [f"{name} 0 {index} {token} * {'|'.join(marks[index]) or '-'}" for index, token in enumerate(tokens)]
        lines.append("#end document")
    return "\n".join(lines) + "\n"


def _conll_line(records: list, index: int) -> int:
    """The line of record ``index``'s header."""
    return 1 + sum(len(tokens) + 2 for _, tokens, _ in records[:index])


@st.composite
def conll_files(draw):
    records = []
    for index in range(draw(st.integers(1, 3))):
        tokens, clusters = draw(token_documents(disjoint=True))
        records.append((f"doc{index}", tokens, clusters))
    documents = [
        _token_document("", tokens, [sorted(cluster) for cluster in clusters], f"{name}; part 000")
        for name, tokens, clusters in records
    ]
    return File(
        "conll", "out.conll", records, _conll, lambda index: f"out.conll:{_conll_line(records, index)}", documents
    )


BUILDERS = {
    "conll": conll_files(),
    "jsonlines": jsonlines_files(),
    "allennlp": allennlp_files(),
    "gap-tsv": gap_tsv_files(),
    "instances": instances_files(),
}


# --- Reading, and what a read must give ---------------------------------------------------------------------------

_FOLDER = Path(tempfile.mkdtemp(prefix="corefbias-fuzz-"))


def _written(file: File, content: bytes) -> Path:
    path = _FOLDER / file.name
    path.write_bytes(content)
    return path


def _without_where(documents) -> list[Document]:
    return [dataclasses.replace(document, where="") for document in documents]


def _refusal(path: Path, file_format: str) -> str | None:
    """The message of the ``PredictionFileError`` reading the file raises (one line, naming the file), or None
    when it reads; any other exception fails the property."""
    try:
        read([path], file_format)
    except PredictionFileError as error:
        message = str(error)
        assert path.name in message and "\n" not in message, message
        return message
    return None


def assert_sound(documents: list[Document]) -> None:
    """What a reader hands on is well-formed, whatever the file said."""
    for document in documents:
        assert document.where and (document.id is None or isinstance(document.id, str))
        if document.tokens is not None:
            assert all(isinstance(token, str) and token for token in document.tokens)
            for cluster in document.clusters:
                for start, end in cluster:
                    assert type(start) is int and type(end) is int and 0 <= start <= end < len(document.tokens)
        for cluster in document.char_clusters or ():
            for start, end in cluster:
                assert type(start) is int and type(end) is int and 0 <= start < end
        assert document.decisions is None or all(type(decision) is bool for decision in document.decisions)
        assert type(document.parsed) is bool
        assert document.position is None or (type(document.position) is int and document.position >= 0)


def _format(data, file: File) -> str:
    return data.draw(st.sampled_from([file.format, "auto"]), label="format given")


# --- Damaged bytes ------------------------------------------------------------------------------------------------


def _damaged(file_format: str, data) -> None:
    file = data.draw(BUILDERS[file_format], label="valid file")
    text = file.render(file.records)
    content = text.encode("utf-8")
    damage = data.draw(st.sampled_from(["truncated", "bytes flipped", "encoding"]), label="damage")
    event(damage)
    if damage == "truncated":
        cut = data.draw(st.integers(0, len(content) - 1), label="cut at byte")
        path = _written(file, content[:cut])
        fmt = file.format  # an emptied file has no first line to tell its format by
        if _refusal(path, fmt) is None:  # what a cut leaves readable is the documents before it
            documents = _without_where(read([path], fmt))
            assert documents == file.documents[: len(documents)]
            event("truncated file still read")
        return
    if damage == "bytes flipped":
        damaged = bytearray(content)
        for _ in range(data.draw(st.integers(1, 4), label="flips")):
            position = data.draw(st.integers(0, len(damaged) - 1), label="byte")
            damaged[position] ^= data.draw(st.integers(1, 255), label="xor")
        path = _written(file, bytes(damaged))
        fmt = _format(data, file)
        if _refusal(path, fmt) is None:
            assert_sound(read([path], fmt))
            event("flipped file still read")
        return
    encoding = data.draw(st.sampled_from(["latin-1", "cp1252", "utf-16", "utf-16-le"]), label="encoding")
    event(f"written as {encoding}")
    encoded = text.encode(encoding)
    path = _written(file, encoded)
    fmt = _format(data, file)
    if encoded == content:  # ASCII only: the same file
        assert _without_where(read([path], fmt)) == file.documents
    else:
        assert _refusal(path, fmt) is not None, f"a {encoding} file was read as UTF-8"


# --- Invalid values, and harmless changes -------------------------------------------------------------------------

SPAN_BAD = (True, False, -1, 10**30, 1.5, NAN, "1", None, [0])
TOKEN_BAD = (1, "", None, True, [], {"a": 1}, NAN)
CLUSTERS_BAD = ({}, "x", None, 7, [7], ["x"], [[1, 2]], [[[1, 2, 3]]], [[[1]]])
ID_BAD = (None, {}, [], True, False, 1.5, "", NAN)
DOC_KEY_BAD = ID_BAD[1:]  # a null doc_key is none at all
FLAG_BAD = ("no", "false", "true", 1, 0, NAN, None, [], {})
POSITION_BAD = (-1, True, 1.5, "0", 10**30, NAN, [0])
DECISION_BAD = ("yes", [1], ["true"], [None], [NAN], None, {}, [0])
CHAR_CLUSTERS_BAD = ("x", [[[4, 2]]], [[[0, True]]], [[[-1, 2]]], [[[1.5, 2]]], [[[0, 10**30]]], [[[3, 3]]])


def _spans_key(record: dict) -> str:
    return next(key for key in ("predicted_clusters", "clusters") if key in record)


# The invalid values tried in each format, each its own property so that every one runs on every reader.
BAD_VALUES = {
    "jsonlines": ("span index", "boolean index", "out-of-range span", "token", "clusters", "no clusters", "doc_key"),
    "allennlp": ("span index", "boolean index", "out-of-range span", "token", "clusters", "no clusters"),
    "instances": ("id", "parsed", "position", "decision", "clusters", "no id", "no decision"),
    "gap-tsv": ("ID", "A-coref", "B-coref"),
    "conll": ("mark", "columns", "no end", "second begin"),
}


def _bad_token_value(data, record: dict, file_format: str, what: str) -> None:
    """Make one value of a record of token clusters (jsonlines, allennlp) invalid."""
    if file_format == "allennlp":
        tokens, clusters_key = record["document"], "clusters"
    else:
        tokens = record["tokens"] if "tokens" in record else record["sentences"][0]
        clusters_key = _spans_key(record)
    if not any(record[clusters_key]):  # a span to spoil
        record[clusters_key] = [[[0, 0]]]
    span = data.draw(st.sampled_from([span for cluster in record[clusters_key] for span in cluster]), label="span")
    if what == "span index":
        span[data.draw(st.integers(0, 1), label="end")] = data.draw(st.sampled_from(SPAN_BAD), label="bad")
    elif what == "boolean index":  # JSON's true and false, where they would pass for 1 and 0
        booleans = [[False, 0], [False, False]] + ([[0, True], [True, True]] if len(tokens) > 1 else [])
        span[:] = data.draw(st.sampled_from(booleans), label="bad")
    elif what == "out-of-range span":
        span[1] = len(tokens)
    elif what == "token":
        tokens[data.draw(st.integers(0, len(tokens) - 1), label="token")] = data.draw(st.sampled_from(TOKEN_BAD))
    elif what == "clusters":
        record[clusters_key] = data.draw(st.sampled_from(CLUSTERS_BAD), label="bad")
    elif what == "no clusters":
        del record[clusters_key]
    else:
        record["doc_key"] = data.draw(st.sampled_from(DOC_KEY_BAD), label="bad")


def _bad_record_value(data, record: dict, file_format: str, what: str) -> None:
    """Make one value of an instances record or a GAP TSV row invalid."""
    if file_format == "gap-tsv":
        record[what] = "" if what == "ID" else data.draw(st.sampled_from(["yes", "1", "", "T", "TRUE FALSE", "N/A"]))
    elif what.startswith("no "):
        del record[what.removeprefix("no ")]
    else:
        bad = {
            "id": ID_BAD,
            "parsed": FLAG_BAD,
            "position": POSITION_BAD,
            "decision": DECISION_BAD,
            "clusters": CHAR_CLUSTERS_BAD,
        }
        record[what] = data.draw(st.sampled_from(bad[what]), label="bad")


def _broken_conll(data, file: File, index: int, what: str) -> tuple[str, str]:
    """The file with one line of document ``index`` broken, and that line's location."""
    lines = file.render(file.records).splitlines(keepends=True)
    first = _conll_line(file.records, index)  # the header
    tokens = len(file.records[index][1])
    if what == "mark":
        line = data.draw(st.integers(first + 1, first + tokens), label="token line")
        bad = data.draw(st.sampled_from(["(true)", "(-1)", "(1.5)", "((1)", "9)", "(x)", "(1)(", "|", "()", "1"]))
        columns = lines[line - 1].split()
        columns[-1] = bad
        lines[line - 1] = " ".join(columns) + "\n"
        return "".join(lines), f"out.conll:{line}"
    if what == "columns":
        line = data.draw(st.integers(first + 1, first + tokens), label="token line")
        lines[line - 1] = " ".join(lines[line - 1].split()[:4]) + "\n"
        return "".join(lines), f"out.conll:{line}"
    if what == "no end":
        del lines[first + tokens]
        return "".join(lines), "out.conll"
    lines.insert(first + tokens, lines[first - 1])  # a second header where the document should end
    return "".join(lines), f"out.conll:{first + tokens + 1}"


def _invalid_value(file_format: str, what: str, data) -> None:
    file = data.draw(BUILDERS[file_format], label="valid file")
    index = data.draw(st.integers(0, len(file.records) - 1), label="record")
    if file_format == "conll":
        text, location = _broken_conll(data, file, index, what)
    else:
        records = json.loads(json.dumps(file.records))
        if file_format in ("jsonlines", "allennlp"):
            _bad_token_value(data, records[index], file_format, what)
        else:
            _bad_record_value(data, records[index], file_format, what)
        text, location = file.render(records), file.location(index)
    path = _written(file, text.encode("utf-8"))
    message = _refusal(path, file_format)
    assert message is not None, f"{what} was read: {text!r:.300}"
    assert location in message, f"{message!r} does not name {location}"


def _harmless(file_format: str, data) -> None:
    """The file written another valid way reads as the same documents."""
    file = data.draw(BUILDERS[file_format], label="valid file")
    records = file.records if file_format == "conll" else json.loads(json.dumps(file.records))
    changes = data.draw(st.sets(st.sampled_from(["crlf", "blank lines", "unknown keys", "key order"]), min_size=1))
    event("harmless: " + ", ".join(sorted(changes)))
    if file_format in ("jsonlines", "instances", "allennlp"):
        for record in records:
            if "unknown keys" in changes:
                record["meta"] = {"model": "x", "score": 0.5}
            if "key order" in changes:
                items = list(record.items())
                record.clear()
                record.update(reversed(items))
    if file_format == "gap-tsv" and "unknown keys" in changes:
        for row in records:
            row["Pronoun"] = "she"
    text = file.render(records)
    # A TSV's blank lines would be rows, and a JSON list has no lines to leave blank.
    if "blank lines" in changes and file_format != "gap-tsv" and not text.startswith("["):
        text = "\n" + text.replace("\n", "\n\n")
    if "crlf" in changes:
        text = text.replace("\n", "\r\n")
    path = _written(file, text.encode("utf-8"))
    assert _without_where(read([path], _format(data, file))) == file.documents


READERS = sorted(BUILDERS)
VALUES = [
    pytest.param(file_format, what, id=f"{file_format}-{what}")
    for file_format in READERS
    for what in BAD_VALUES[file_format]
]


@pytest.mark.parametrize("file_format", READERS)
@fuzz_settings(EXAMPLES)
@given(data=st.data())
def test_damaged_files_are_refused_by_name_or_read_soundly(file_format, data):
    _damaged(file_format, data)


@pytest.mark.parametrize(("file_format", "what"), VALUES)
@fuzz_settings(VALUE_EXAMPLES)
@given(data=st.data())
def test_invalid_values_are_refused_where_they_stand(file_format, what, data):
    _invalid_value(file_format, what, data)


@pytest.mark.parametrize("file_format", READERS)
@fuzz_settings(HARMLESS_EXAMPLES)
@given(data=st.data())
def test_harmless_changes_read_as_the_same_documents(file_format, data):
    _harmless(file_format, data)


@pytest.mark.slow
@pytest.mark.parametrize("file_format", READERS)
@fuzz_settings(SLOW_EXAMPLES, explore=True)
@given(data=st.data())
def test_damaged_files_are_refused_by_name_or_read_soundly_at_volume(file_format, data):
    _damaged(file_format, data)


@pytest.mark.slow
@pytest.mark.parametrize(("file_format", "what"), VALUES)
@fuzz_settings(SLOW_VALUE_EXAMPLES, explore=True)
@given(data=st.data())
def test_invalid_values_are_refused_where_they_stand_at_volume(file_format, what, data):
    _invalid_value(file_format, what, data)


@pytest.mark.slow
@pytest.mark.parametrize("file_format", READERS)
@fuzz_settings(SLOW_EXAMPLES, explore=True)
@given(data=st.data())
def test_harmless_changes_read_as_the_same_documents_at_volume(file_format, data):
    _harmless(file_format, data)


def test_a_boolean_is_no_token_index_and_parsed_must_be_a_boolean(tmp_path):
    spans = tmp_path / "spans.jsonl"
    spans.write_text('{"doc_key": "a", "tokens": ["A", "b"], "clusters": [[[0, true]]]}\n')
    with pytest.raises(PredictionFileError, match=r"spans.jsonl line 1: \[0, True\] is not an inclusive token span"):
        read([spans], "jsonlines")
    parsed = tmp_path / "parsed.jsonl"
    parsed.write_text('{"id": "q1", "decision": [true], "parsed": "no"}\n')
    with pytest.raises(PredictionFileError, match="parsed.jsonl line 1: parsed must be true or false"):
        read([parsed], "instances")
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes('{"doc_key": "a", "tokens": ["café"], "clusters": []}\n'.encode("latin-1"))
    with pytest.raises(PredictionFileError, match="latin.jsonl line 1: not UTF-8 text, byte 0xe9"):
        read([latin], "auto")
