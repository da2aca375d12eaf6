"""GICoref: its file read as the reference scorer reads it, its questions, and CoNLL F1 equal to ``scorer.pl``'s on the
gold file perturbed, through ``corefbias score`` and through ``corefbias run`` with a cluster model."""

import numpy as np
import pytest
from metric_harness import assert_add_batch_equivalent, load

from corefbias.benchmarks import BENCHMARKS
from corefbias.benchmarks.gicoref import files, mentions
from corefbias.harness import runner
from corefbias.harness.prediction_files.scoring import score
from corefbias.measures import conll_f1, conll_f1_by_mention_type
from corefbias.models.http_protocol import make_server

# What the reference scorer (conll/reference-coreference-scorers v8.01, `perl scorer.pl {muc,bcub,ceafe} KEY
# RESPONSE none`) prints for `perturbed_response` (seed 2020) against `conll_lines` of the gold clusters, both
# written by the functions below: (numerator, denominator) of recall and precision over all 91 documents.
REFERENCE_SCORER = {
    "muc_recall": (3530, 4296),
    "muc_precision": (3530, 3768),
    "bcubed_recall": (3459.97851450958, 5047),
    "bcubed_precision": (4036.03983457164, 4455),
    "ceafe_recall": (528.72259638357, 751),
    "ceafe_precision": (528.72259638357, 687),
}


def perturbed(clusters, num_tokens, rng):
    """Clusters of inclusive token spans with mentions dropped (15%), entities split (30%) and merged with another
    (20%), and a one-token mention no entity has added to some (20%): a response with every kind of error."""
    taken = {span for cluster in clusters for span in cluster}
    kept = [[span for span in cluster if rng.random() >= 0.15] for cluster in clusters]
    split = []
    for cluster in kept:
        if len(cluster) >= 2 and rng.random() < 0.3:
            cut = int(rng.integers(1, len(cluster)))
            order = rng.permutation(len(cluster))
            split += [[cluster[i] for i in order[:cut]], [cluster[i] for i in order[cut:]]]
        elif cluster:
            split.append(cluster)
    merged = []
    while split:
        cluster = split.pop(0)
        if split and rng.random() < 0.2:
            cluster = cluster + split.pop(int(rng.integers(0, len(split))))
        merged.append(cluster)
    for cluster in merged:
        if rng.random() < 0.2:
            token = int(rng.integers(0, num_tokens))
            if (token, token) not in taken:
                taken.add((token, token))
                cluster.append((token, token))
    return [sorted(cluster) for cluster in merged]


def conll_lines(name, tokens, clusters):
    """GICoref's two-column layout; longer mentions open first, so the scorer's stack closes the shorter first."""
    opening, single, closing = {}, {}, {}
    for entity, cluster in enumerate(clusters):
        for first, last in cluster:
            if first == last:
                single.setdefault(first, []).append(entity)
            else:
                opening.setdefault(first, []).append((last, entity))
                closing.setdefault(last, []).append(entity)
    lines = [f"#begin document {name}"]
    for index, token in enumerate(tokens):
        marks = [f"({entity}" for _, entity in sorted(opening.get(index, []), key=lambda item: -item[0])]
        marks += [f"({entity})" for entity in single.get(index, [])]
        marks += [f"{entity})" for entity in closing.get(index, [])]
        lines.append(f"{token}\t{''.join(marks) or '-'}")
    lines.append(f"#end document {name}")
    return lines


@pytest.fixture(scope="module")
def documents(mirror):
    return files.load_documents(mirror)


def gold_token_clusters(document):
    return [[(mention.first, mention.last) for mention in cluster] for cluster in document.clusters()]


def write_conll(path, documents, clusters_of):
    lines = [
        line for document in documents for line in conll_lines(document.name, document.tokens, clusters_of(document))
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def data_dir(exported_set):
    return exported_set("gicoref").parent


def test_the_file_reads_as_the_reference_scorer_counts_it(documents):
    # scorer.pl on the gold file against itself: 5,047 mentions, 4,296 MUC links, 751 entities (the denominators above).
    assert len(documents) == 91 and len({document.text_id for document in documents}) == 87
    assert sum(len(document.mentions) for document in documents) == REFERENCE_SCORER["bcubed_recall"][1]
    assert sum(len(document.clusters()) for document in documents) == REFERENCE_SCORER["ceafe_recall"][1]
    links = sum(len(cluster) - 1 for document in documents for cluster in document.clusters())
    assert links == REFERENCE_SCORER["muc_recall"][1]
    assert sum(len(document.tokens) for document in documents) == 62_150
    assert sum(mention.misgendering for document in documents for mention in document.mentions) == 28
    assert {document.source for document in documents} == set(files.SOURCES)


def test_a_malformed_line_names_its_place():
    with pytest.raises(ValueError, match=r"toy:2: entity 4 closes a mention it never opened"):
        files.read_documents(["#begin document d", "word\t4)", "#end document d"], source="toy")
    with pytest.raises(ValueError, match=r"toy:2: '\(x\)' is not a sequence of marks"):
        files.read_documents(["#begin document d", "word\t(x)", "#end document d"], source="toy")
    with pytest.raises(ValueError, match="still open"):
        files.read_documents(["#begin document d", "word\t(4", "#end document d"], source="toy")


def test_every_document_asks_questions_whose_referent_is_a_candidate(documents):
    asked = {document.name: mentions.questions(document) for document in documents}
    assert all(asked.values())
    kinds = [question.pronoun_type for found in asked.values() for question in found]
    assert (len(kinds), kinds.count("binary_pronoun"), kinds.count("they"), kinds.count("neopronoun")) == (
        1348,
        587,
        579,
        182,
    )
    for document in documents:
        for question in asked[document.name]:
            entities = [candidate.entity for candidate in question.candidates]
            assert entities.count(question.pronoun.entity) == 1 and len(set(entities)) == len(entities)
            assert all(candidate.last < question.pronoun.first for candidate in question.candidates)


def test_the_exported_rows_hold_their_document_and_a_passage_with_the_question(data_dir, mirror):
    from corefbias.harness.benchmark_data import load_part

    rows = load_part(BENCHMARKS["gicoref"], "default", "test", data_dir, mirror)
    assert len(rows) == 1348
    by_document = {}
    for row in rows:
        by_document.setdefault(row["document"], row)
        first = by_document[row["document"]]
        assert row["text"] == first["text"] and row["clusters"] == first["clusters"]
        start = row["excerpt_start"]
        assert row["text"][start : start + len(row["excerpt"])] == row["excerpt"]
        for span in (row["pronoun"], *row["candidates"]):
            assert start <= span["start"] and span["end"] <= start + len(row["excerpt"])
    assert len(by_document) == 91


@pytest.mark.reproduction
def test_conll_f1_equals_the_reference_scorers_on_the_gold_file_perturbed(documents, data_dir, mirror, tmp_path):
    rng = np.random.default_rng(2020)
    responses = {
        document.name: perturbed(gold_token_clusters(document), len(document.tokens), rng) for document in documents
    }
    path = write_conll(tmp_path / "response.conll", documents, lambda document: responses[document.name])
    result = score("gicoref", [path], data_dir=data_dir, mirror=mirror, n_bootstrap=0)
    section = result.runs["gicoref"].sections["gicoref/conll"]
    for key, (numerator, denominator) in REFERENCE_SCORER.items():
        assert section[key] == pytest.approx(numerator / denominator, rel=1e-12), key
    assert section["num_documents"] == 91
    f1s = [section[f"{metric}_f1"] for metric in conll_f1.METRICS]
    assert section["conll_f1"] == pytest.approx(sum(f1s) / 3)
    # B³ by mention type is B³ split: the types' numerators add up to the reference scorer's.
    recall = sum(section[f"bcubed_recall/{kind}"] * section[f"mentions/{kind}"] for kind in mentions.MENTION_TYPES)
    assert recall == pytest.approx(REFERENCE_SCORER["bcubed_recall"][0], rel=1e-12)
    assert sum(section[f"mentions/{kind}"] for kind in mentions.MENTION_TYPES) == 5047
    # The gold file itself scores 1 everywhere; its questions are all answered right.
    gold = score("gicoref", [write_conll(tmp_path / "gold.conll", documents, gold_token_clusters)], data_dir=data_dir,
                 mirror=mirror, n_bootstrap=0)  # fmt: skip
    sections = gold.runs["gicoref"].sections
    conll = sections["gicoref/conll"]
    assert conll["conll_f1"] == 1.0 and conll["bcubed_f1_diff/neopronoun"] == 0.0
    assert sections["gicoref"]["accuracy/neopronoun"] == sections["gicoref"]["accuracy/binary_pronoun"] == 1.0


def test_a_served_cluster_model_reads_each_document_once_and_is_scored_on_whole_documents(
    data_dir, mirror, tmp_path, start_server
):
    rows = {}
    from corefbias.harness.benchmark_data import load_part

    for row in load_part(BENCHMARKS["gicoref"], "default", "test", data_dir, mirror):
        rows[row["text"]] = [[(span["start"], span["end"]) for span in cluster] for cluster in row["clusters"]]
    read = []

    def gold_clusters(texts):
        read.extend(texts)
        return [rows[text] for text in texts]

    server = start_server(make_server(gold_clusters, "gold-clusters"))
    host, port = server.server_address
    result = runner.run(
        f"http://{host}:{port}",
        ["gicoref"],
        settings=runner.RunSettings(limit=1, n_bootstrap=50),
        data_dir=data_dir,
        mirror=mirror,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    run = result.runs["gicoref"]
    documents = {instance["id"].rsplit("/", 1)[0] for instance in run.instances}
    # Each text once per batch of 32 questions: far fewer reads than questions.
    assert len(set(read)) == len(documents) and len(read) <= sum(1 + n // 32 for n in per_text(run).values())
    conll = run.sections["gicoref/conll"]
    assert conll["conll_f1"] == 1.0 and conll["num_documents"] == len(documents)
    questions = run.sections["gicoref"]
    assert [questions[f"accuracy/{kind}"] for kind in questions.extras["diff_unadjusted_p_value"]] == [1.0] * len(
        questions.extras["diff_unadjusted_p_value"]
    )


def per_text(run):
    counts = {}
    for instance in run.instances:
        document = instance["id"].rsplit("/", 1)[0]
        counts[document] = counts.get(document, 0) + 1
    return counts


def test_b3_by_type_refuses_a_span_of_two_types_and_a_missing_reference():
    with pytest.raises(ValueError, match=r"span \[0, 2\] is of type 'neopronoun' in the key and 'name' in"):
        conll_f1_by_mention_type.conll_f1_by_mention_type(
            [[[(0, 2)]]], [[[(0, 2)]]], [[["neopronoun"]]], [[["name"]]], reference_type="neopronoun", n_bootstrap=0
        )
    with pytest.raises(ValueError, match="no key mention is of the reference type 'binary_pronoun'"):
        conll_f1_by_mention_type.conll_f1_by_mention_type(
            [[[(0, 2)]]], [[]], [[["neopronoun"]]], [[]], reference_type="binary_pronoun", n_bootstrap=0
        )
    with pytest.raises(ValueError, match=r"key_types\[0\]\[0\] must hold one type per mention"):
        conll_f1_by_mention_type.conll_f1_by_mention_type(
            [[[(0, 2), (4, 6)]]], [[]], [[["neopronoun"]]], [[]], reference_type="neopronoun", n_bootstrap=0
        )


ANA, ZE, BO, HE = (0, 3), (10, 12), (20, 22), (30, 32)
TYPED_KEY = [[ANA, ZE], [BO, HE]]
KEY_TYPES = [["name", "neopronoun"], ["name", "binary_pronoun"]]
ZE_WITH_BO = [[ANA], [BO, ZE, HE]]
ZE_WITH_BO_TYPES = [["name"], ["name", "neopronoun", "binary_pronoun"]]


def _annotated_texts(right: list, per_text: int = 3) -> dict:
    """Texts each annotated ``per_text`` times, answered alike: every document of a text resolved as gold where
    ``right`` says so, with *ze* put with Bo otherwise. Text ids sort in the texts' order (``unit_blocks`` numbers
    blocks in sorted order; so drawn, blocks of one unit each draw exactly as the units do)."""
    documents = [(text, ok) for text, ok in enumerate(right) for _ in range(per_text)]
    return {
        "keys": [TYPED_KEY] * len(documents),
        "responses": [TYPED_KEY if ok else ZE_WITH_BO for _, ok in documents],
        "key_types": [KEY_TYPES] * len(documents),
        "response_types": [KEY_TYPES if ok else ZE_WITH_BO_TYPES for _, ok in documents],
        "texts": [f"text {text:02d}" for text, _ in documents],
    }


def _significance(result, key: str) -> tuple:
    return result[f"{key}_ci_low"], result[f"{key}_ci_high"], result.get(f"{key}_p_value")


def test_b3_by_type_blocks_draw_the_documents_of_a_text_together():
    # Twelve texts, three documents each, answered alike within a text: drawn document by document the 36 documents
    # look like a tight interval; drawn by text, it rests on 12 blocks and is wider, with a larger p-value.
    inputs = _annotated_texts([True, False, True, True, False, True] * 2)
    texts = inputs.pop("texts")
    options = dict(reference_type="binary_pronoun", compared_types=["neopronoun"], seed=3)
    by_document = conll_f1_by_mention_type.conll_f1_by_mention_type(**inputs, **options)
    by_text = conll_f1_by_mention_type.conll_f1_by_mention_type(**inputs, block_ids=texts, **options)
    gap = "bcubed_f1_diff/neopronoun"
    assert by_document["conll_f1"] == by_text["conll_f1"] and by_document[gap] == by_text[gap] < 0
    assert by_document.overall["conll_f1"].n_blocks == 36 and by_text.overall["conll_f1"].n_blocks == 12
    assert by_text.overall[gap].n_blocks == 12 and by_text.unit_rows.blocks.sizes == (12,)
    for key in ("conll_f1", gap):
        document_low, document_high, _ = _significance(by_document, key)
        text_low, text_high, _ = _significance(by_text, key)
        assert text_high - text_low > 1.5 * (document_high - document_low)
    assert by_text[f"{gap}_p_value"] > by_document[f"{gap}_p_value"]
    # A block of its own per document is no block at all: the same draws as without block_ids.
    alone = conll_f1_by_mention_type.conll_f1_by_mention_type(
        **inputs, block_ids=[f"d{index:02d}" for index in range(36)], **options
    )
    for key in ("conll_f1", gap):
        assert _significance(alone, key) == _significance(by_document, key)
    # Texts given as the units draw the same texts whole: the same draws as blocks of one unit each.
    as_units = conll_f1_by_mention_type.conll_f1_by_mention_type(**inputs, units=texts, **options)
    as_unit_blocks = conll_f1_by_mention_type.conll_f1_by_mention_type(
        **inputs, units=texts, block_ids=texts, **options
    )
    assert as_units.overall["conll_f1"].n_blocks == as_unit_blocks.overall["conll_f1"].n_blocks == 12
    assert _significance(as_unit_blocks, gap) == _significance(as_units, gap)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(block_ids=["a", "a", "b"]), "one entry per instance"),
        (dict(block_ids=["a", None, "b", "b"]), r"block_ids\[1\] is None; give every instance its block"),
        (dict(block_ids=["a", 2.5, "b", "b"]), r"block_ids\[1\] is 2.5 \(float\); each entry must be a block id"),
        (dict(block_ids=["a", ("a", "x"), "b", "b"]), "gives 1 id.* for some instances and 2 for others"),
        (dict(units=["t1", "t1", "t2", "t2"], block_ids=["a", "b", "c", "c"]), "unit 't1' lies in block 'a' and in"),
    ],
)
def test_b3_by_type_malformed_block_ids_are_a_clear_value_error(change, message):
    inputs = _annotated_texts([True, False], per_text=2)
    inputs.pop("texts")
    with pytest.raises(ValueError, match=message):
        conll_f1_by_mention_type.conll_f1_by_mention_type(
            **inputs, **change, reference_type="binary_pronoun", n_bootstrap=0
        )


def test_the_mention_type_module_takes_block_ids(in_repo):
    inputs = _annotated_texts([True, False, True, True, False, True] * 2)
    texts = inputs.pop("texts")
    module_inputs = {
        "references": inputs["keys"],
        "predictions": inputs["responses"],
        "reference_types": inputs["key_types"],
        "prediction_types": inputs["response_types"],
    }
    options = dict(reference_type="binary_pronoun", n_bootstrap=200, seed=3)
    results = load("conll_f1_by_mention_type").compute(**module_inputs, block_ids=texts, **options)
    expected = conll_f1_by_mention_type.conll_f1_by_mention_type(**inputs, block_ids=texts, **options)
    assert results == dict(expected) and results["conll_f1_ci_low"] is not None
    assert_add_batch_equivalent("conll_f1_by_mention_type", {**module_inputs, "block_ids": texts}, [10, 26], **options)


def test_choice_models_answer_the_questions_and_have_no_conll_f1(data_dir, mirror, tmp_path):
    result = runner.run(
        "baseline:oracle",
        ["gicoref"],
        settings=runner.RunSettings(n_bootstrap=0),
        data_dir=data_dir,
        mirror=mirror,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    sections = result.runs["gicoref"].sections
    assert sections["gicoref/conll"]["conll_f1"] is None
    assert "predicts no clusters" in sections["gicoref/conll"]["undefined"]["conll_f1"]
    assert sections["gicoref"]["accuracy/neopronoun"] == 1.0 and sections["gicoref"]["diff/they"] == 0.0
