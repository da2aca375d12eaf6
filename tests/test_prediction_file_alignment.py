"""A predictions file's tokens line up with the instance text exactly (matched by id or by text); GICoref's released
file reads as its builder reads it and scores perfectly; a GAP TSV is told by its header whatever its column order."""

import re

import pytest

from corefbias.benchmarks.gicoref import files as gicoref_files
from corefbias.data.spans import token_offsets
from corefbias.harness.prediction_files import Document, PredictionFileError, detect, read, scoring
from corefbias.harness.prediction_files.matching import match

SHE = "The technician told the customer that she could pay with cash."
HE_TOKENS = ("The", "technician", "told", "the", "customer", "that", "he", "could", "pay", "with", "cash", ".")
PART = {
    ("default", "test"): {
        "id": ["female"],
        "text": [SHE],
        "candidates": [[{"text": "the customer", "start": 20, "end": 32}]],
    }
}
HOW_TO_FIX = "the file's tokens must be the instance's text tokenized (every character of it but white space, in order)"


def test_exact_offsets_take_white_space_only_between_tokens():
    assert token_offsets(["Ann", "\n", "left", "."], "Ann\n  left.", exact=True) == [(0, 3), (3, 4), (6, 10), (10, 11)]
    # Found by searching on, "he" sat inside "she" (38 is where "she" starts).
    with pytest.raises(ValueError, match=r"^token 6 \('he'\) does not line up with the text at character 38, which "):
        token_offsets(HE_TOKENS, SHE, exact=True)


@pytest.mark.parametrize(
    "tokens, message",
    [
        # Another instance's tokens: the pronoun was [39, 41), "he" inside "she".
        (HE_TOKENS, r"token 6 \('he'\) does not line up with the text at character 38, which reads 'she could pay"),
        (HE_TOKENS[:5], r"token 4 \('customer'\) ends at character 32, and character 33 reads 'that she could"),
        (HE_TOKENS[:2] + HE_TOKENS[5:], r"token 2 \('that'\) does not line up with the text at character 15"),
    ],
    ids=["another-instance", "truncated", "tokens-dropped"],
)
def test_tokens_that_are_not_the_matched_instance_text_are_refused(tokens, message):
    document = Document("out.jsonl line 2 (doc_key female)", id="female", tokens=tokens, clusters=())
    with pytest.raises(PredictionFileError) as error:
        match([document], PART, "toy")
    assert str(error.value).startswith("out.jsonl line 2 (doc_key female) (")
    assert "its tokens do not line up with the text of instance female" in str(error.value)
    assert str(error.value).endswith(f"; {HOW_TO_FIX}")
    assert re.search(message, str(error.value)), str(error.value)


def test_a_document_matched_by_its_name_must_hold_the_whole_document():
    text = "Ze met hir friend . Ze left ."
    part = {
        ("default", "test"): {
            "id": ["doc/0", "doc/1"],
            "document": ["doc", "doc"],
            "text": [text, text],
            "candidates": [[], []],
        }
    }
    whole = Document("gic.conll document (doc)", id="doc", tokens=tuple(text.split()), clusters=(((0, 0), (5, 5)),))
    assert match([whole], part, "toy", document_column="document")[("default", "test")] == [[[[0, 2], [20, 22]]]] * 2
    cut = Document("gic.conll document (doc)", id="doc", tokens=tuple(text.split()[:4]), clusters=())
    with pytest.raises(
        PredictionFileError, match=r"^gic\.conll document \(doc\) .* instance doc/0 .*character 18 reads"
    ):
        match([cut], part, "toy", document_column="document")


GICOREF_LINES = [
    "#begin document Toy\n",
    "Ze\t(1)\n",
    "met\t-\n",
    "Jorge\t(2*)\n",
    "#\t-\n",
    "young\t(3*\n",
    "lady\t3*)(1*)\n",
    "\n",
    "hir\t(2)\n",
    "#end document Toy\n",
]


def test_gicoref_asterisk_marks_and_hash_tokens_read_as_the_builder_reads_them(tmp_path):
    path = tmp_path / "toy.conll"
    path.write_text("".join(GICOREF_LINES))
    (document,) = read([path], "conll")
    (built,) = gicoref_files.read_documents(GICOREF_LINES, source="toy")
    assert document.tokens == built.tokens == ("Ze", "met", "Jorge", "#", "young", "lady", "hir")
    assert document.clusters == (((0, 0), (5, 5)), ((2, 2), (6, 6)), ((4, 5),))
    assert sorted(document.clusters) == sorted(tuple((m.first, m.last) for m in c) for c in built.clusters())


def test_gicoref_released_file_scores_perfectly(exported_set, mirror):
    path = mirror / "gicoref" / gicoref_files.CONLL_FILE
    result = scoring.score(
        "gicoref", [path], format="conll", data_dir=exported_set("gicoref").parent, mirror=mirror, n_bootstrap=0
    )
    assert result.runs["gicoref"].sections["gicoref/conll"]["conll_f1"] == 1.0


def test_a_gap_tsv_with_a_coref_last_is_told_by_its_header(tmp_path):
    path = tmp_path / "swapped.tsv"
    path.write_text("ID\tB-coref\tA-coref\n0\tFALSE\tTRUE\n")
    assert detect(path) == "gap-tsv"
    (document,) = read([path], "auto")
    assert document.decisions == (True, False)
