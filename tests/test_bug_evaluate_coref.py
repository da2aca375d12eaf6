"""The ``bug`` benchmark against BUG's own scorer, ``src/evaluations/evaluate_coref.py``, on the same predictions.

The reference is the script itself, pinned in ``bug/upstream.json``, run from the mirror as its README says
(``python evaluate_coref.py --in=<predictions>.jsonl --out=<figure>.png``) with ``runpy``, nothing patched: its
module globals after the run hold ``acc``, ``delta_g``, ``delta_s`` and the per-bin lists it logs and plots. Its
input is one JSON line per sentence, ``{"row": <the upstream CSV row>, "pred": {"clusters": ...}}``, clusters of
inclusive word spans; ``is_correct_pred`` calls a sentence correct when one cluster covers the profession's and the
pronoun's words. The same decisions go through the benchmark's scoring (``BENCHMARK.score`` over the exported rows),
and every number must agree (the script in percent, ours as fractions).

The same cluster files go through ``corefbias score`` too (jsonlines of the text's tokens for us, word spans for
the script): its sections ``bug/<config>/evaluate_coref`` read them as the script reads them, at the upstream word
offsets, and must equal its numbers, beside our own sections, which read them where the words are.

On gold the script stops with ZeroDivisionError: its 50-54-word distance bin holds two stereotypical sentences
and no anti-stereotypical one, and ``get_acc`` divides by the bin's empty list. To compare every number there, it
runs from a temporary copy with the smallest guard (:data:`GUARD`: ``get_acc`` of no sentences is NaN instead of a
division by zero; nothing else changes), where our score of that bin is undefined (None) with its reason.
"""

import hashlib
import json
import math
import runpy
import sys
from pathlib import Path

import matplotlib
import pytest

from corefbias.benchmarks import BENCHMARKS, rows_of
from corefbias.benchmarks.bug import evaluate_coref
from corefbias.benchmarks.bug import files as bug_files
from corefbias.data import upstream
from corefbias.harness import cluster_links
from corefbias.harness.prediction_files import scoring as file_scoring
from corefbias.measures import bug_bias
from corefbias.models.baselines import StereotypeBaseline

pytestmark = pytest.mark.reproduction

SCRIPT = "src/evaluations/evaluate_coref.py"
BENCHMARK = BENCHMARKS["bug"]
# The one line the guarded copy changes: get_acc's division, which fails on a bin without anti-stereotypical sentences.
GUARD = (
    "    acc = (sum(vals) / len(vals)) * 100\n",
    '    acc = (sum(vals) / len(vals)) * 100 if vals else float("nan")\n',
)


def _hashed(instance: str, salt: str) -> int:
    return hashlib.sha256(f"{salt}/{instance}".encode()).digest()[0]


def stereotype_decisions(rows: list[dict]) -> list[bool]:
    """baseline:stereotype: the profession linked unless its majority gender contradicts the pronoun."""
    baseline = StereotypeBaseline()
    return [baseline.pick(row) == 0 for row in rows]


def mixed_decisions(rows: list[dict]) -> list[bool]:
    """About two thirds linked, by a hash of the id: scores away from 0 and 1 in every group."""
    return [_hashed(row["id"], "mixed") % 3 != 0 for row in rows]


def upstream_clusters(row: dict, linked: bool) -> list:
    """Clusters of inclusive word spans over upstream's offsets, varied so that ``find_cluster_ind`` is exercised:
    a linked sentence's profession mention sometimes takes the word before it ("the doctor"), an unlinked one gets
    two singleton clusters or none at all."""
    profession, pronoun = row["profession_first_index"], row["g_first_index"]
    # Never over the pronoun: the script counts a mention covering both words ("his assistant") as a link.
    widen = profession > 0 and profession - 1 != pronoun and _hashed(row["id"], "span") % 2
    start = profession - 1 if widen else profession
    if linked:
        return [[[start, profession], [pronoun, pronoun]]]
    return [[[start, profession]], [[pronoun, pronoun]]] if _hashed(row["id"], "none") % 2 else []


@pytest.fixture(scope="module")
def parts(exported_set, mirror):
    """(config) → the exported rows, and the upstream CSV rows by upstream_row."""
    import datasets

    folder = exported_set("bug")
    found = {}
    for config in ("gold", "balanced"):
        exported = datasets.load_dataset(str(folder), config, split="test").to_dict()
        table = {row["upstream_row"]: row for row in bug_files.read_table(config, mirror)}
        found[config] = (exported, table)
    return found


def guarded_script(mirror, tmp_path) -> Path:
    """A temporary copy of evaluate_coref.py with :data:`GUARD` applied, its only change."""
    source = upstream.fetch("bug", SCRIPT, mirror).read_text(encoding="utf-8")
    assert source.count(GUARD[0]) == 1
    copy = tmp_path / "guarded" / "evaluate_coref.py"
    copy.parent.mkdir(exist_ok=True)
    copy.write_text(source.replace(*GUARD), encoding="utf-8")
    return copy


def run_evaluate_coref(mirror, tmp_path, lines: list[dict], script: Path | None = None) -> dict:
    """evaluate_coref.py's module globals after running it on ``lines`` as its README says (``script``: a copy of it
    to run instead, :func:`guarded_script`)."""
    predictions = tmp_path / "coref_preds.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    script = upstream.fetch("bug", SCRIPT, mirror) if script is None else script
    matplotlib.use("Agg")
    argv = sys.argv
    sys.argv = [str(script), f"--in={predictions}", f"--out={tmp_path / 'delta_s_by_dist.png'}"]
    try:
        return runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.argv = argv


def script_lines(exported: dict, table: dict, decisions: list[bool]) -> list[dict]:
    lines = []
    for row, linked in zip(rows_of(exported), decisions):
        upstream_row = table[row["upstream_row"]]
        clusters = upstream_clusters({**upstream_row, "id": row["id"]}, linked)
        lines.append({"row": {key: upstream_row[key] for key in upstream_row if key}, "pred": {"clusters": clusters}})
    return lines


def ours(parts: dict, config: str, exported: dict, decisions: list[bool]) -> dict:
    """The benchmark's section of ``config`` for ``decisions`` on ``exported`` (the other config: all linked)."""
    rows, linked = {}, {}
    for part in BENCHMARK.parts:
        rows[part] = exported if part[0] == config else parts[part[0]][0]
        linked[part] = [[value] for value in decisions] if part[0] == config else [[True]] * len(rows[part]["id"])
    return BENCHMARK.score(rows, linked, 0, 0)[f"bug/{config}"]


def assert_same_percent(ours, theirs: float, what: str) -> None:
    """Our fraction is the script's percentage; undefined (None) where the guarded script's is NaN."""
    if math.isnan(theirs):
        assert ours is None, what
    else:
        assert ours * 100 == pytest.approx(theirs, abs=1e-9), what


def assert_same_scores(result: dict, script: dict) -> None:
    assert_same_percent(result["accuracy"], script["acc"], "accuracy")
    assert_same_percent(result["delta_g"], script["delta_g"], "delta_g")
    assert_same_percent(result["delta_s"], script["delta_s"], "delta_s")
    labels = [bug_bias.bin_label(entry[0]) for entry in script["delta_s_by_dist"]]
    for (_, delta, count), label, accuracy, stereotypical, anti in zip(
        script["delta_s_by_dist"], labels, script["acc_by_dist"], script["ste_by_dist"], script["ant_by_dist"]
    ):
        assert_same_percent(result[f"delta_s/distance_{label}"], delta, label)
        assert result[f"num_stereotyped/distance_{label}"] == count, label
        assert_same_percent(result[f"accuracy/distance_{label}"], accuracy, label)
        assert_same_percent(result[f"accuracy_stereotypical/distance_{label}"], stereotypical, label)
        assert_same_percent(result[f"accuracy_anti_stereotypical/distance_{label}"], anti, label)
    assert {key for key in result if key.startswith("accuracy/distance_")} == {
        f"accuracy/distance_{label}" for label in labels
    }


@pytest.mark.parametrize("decide", [stereotype_decisions, mixed_decisions])
def test_balanced_scores_are_evaluate_corefs(parts, mirror, tmp_path, decide):
    exported, table = parts["balanced"]
    decisions = decide(rows_of(exported))
    script = run_evaluate_coref(mirror, tmp_path, script_lines(exported, table, decisions))
    result = ours(parts, "balanced", exported, decisions)
    assert_same_scores(result, script)
    assert [entry[0] for entry in script["delta_s_by_dist"]] == [0, 1, 2, 3, 4]
    if decide is stereotype_decisions:  # right exactly where the stereotype agrees: ΔS = 100 points in every bin
        assert script["delta_s"] == 100.0 and all(entry[1] == 100.0 for entry in script["delta_s_by_dist"])


def test_gold_scores_are_evaluate_corefs_and_its_lone_bin_is_undefined_not_a_crash(parts, mirror, tmp_path):
    """Gold's farthest bin (distances 50-54) holds two stereotypical sentences and no anti-stereotypical one:
    the script divides by zero there, we say why it is undefined. Without that bin every number agrees."""
    exported, table = parts["gold"]
    decisions = mixed_decisions(rows_of(exported))
    with pytest.raises(ZeroDivisionError):
        run_evaluate_coref(mirror, tmp_path, script_lines(exported, table, decisions))
    result = ours(parts, "gold", exported, decisions)
    assert result["delta_s/distance_50-54"] is None
    assert "no stereotypical or no anti-stereotypical sentence" in result["undefined"]["delta_s/distance_50-54"]

    near = [index for index, distance in enumerate(exported["distance"]) if distance < 50]
    assert len(near) == len(exported["id"]) - 2
    kept = {column: [values[index] for index in near] for column, values in exported.items()}
    kept_decisions = [decisions[index] for index in near]
    script = run_evaluate_coref(mirror, tmp_path, script_lines(kept, table, kept_decisions))
    assert_same_scores(ours(parts, "gold", kept, kept_decisions), script)
    assert 0 < script["acc"] < 100 and script["delta_g"] != 0 and script["delta_s"] != 0


def test_gold_scores_are_the_guarded_evaluate_corefs_in_every_bin(parts, mirror, tmp_path):
    """Every gold row, the 50-54-word bin included: the guarded copy's NaN there is our undefined score, every other
    number is the script's."""
    exported, table = parts["gold"]
    decisions = mixed_decisions(rows_of(exported))
    lines = script_lines(exported, table, decisions)
    script = run_evaluate_coref(mirror, tmp_path, lines, guarded_script(mirror, tmp_path))
    assert_same_scores(ours(parts, "gold", exported, decisions), script)
    last, delta, count = script["delta_s_by_dist"][-1]
    assert (last, count) == (10, 2) and math.isnan(delta) and math.isnan(script["ant_by_dist"][-1])
    assert 0 < script["acc"] < 100 and not math.isnan(script["delta_s"])


def test_is_correct_pred_agrees_with_the_cluster_rule_where_the_offsets_are_right(parts, mirror):
    """On the rows whose spans sit at upstream's offsets, the script's ``is_correct_pred`` on word clusters and the
    project's cluster rule on the same clusters as character spans give the same decision (the pronoun a mention of
    its own, the profession covered by a mention)."""
    script = runpy.run_path(str(upstream.fetch("bug", SCRIPT, mirror)))
    exported, table = parts["gold"]
    checked = 0
    for row, linked in zip(rows_of(exported), mixed_decisions(rows_of(exported))):
        if row["located_by"] != "index":
            continue
        upstream_row = table[row["upstream_row"]]
        clusters = upstream_clusters({**upstream_row, "id": row["id"]}, linked)
        words = bug_files.words(row["text"])
        spans = [[(words[first].start, words[last].end) for first, last in cluster] for cluster in clusters]
        pronoun = (row["pronoun"]["start"], row["pronoun"]["end"])
        profession = (row["candidates"][0]["start"], row["candidates"][0]["end"])
        ours_decision = cluster_links.link_decisions(pronoun, [profession], spans)[0]
        theirs = bool(script["is_correct_pred"]({"row": upstream_row, "pred": {"clusters": clusters}}))
        assert ours_decision == theirs == linked, row["id"]
        checked += 1
    assert checked == 1689


def test_the_bins_are_the_scripts(mirror):
    assert runpy.run_path(str(upstream.fetch("bug", SCRIPT, mirror)))["BIN_SIZE"] == bug_bias.BIN_SIZE


def test_a_mention_covering_both_words_is_a_link_to_the_script_and_not_to_the_cluster_rule(mirror):
    """The one place the rules part (the card's "What counts as resolved"): "her assistant" as a single mention."""
    script = runpy.run_path(str(upstream.fetch("bug", SCRIPT, mirror)))
    row = {"profession_first_index": 1, "g_first_index": 0}
    assert script["is_correct_pred"]({"row": row, "pred": {"clusters": [[[0, 1]]]}})
    text = "Her assistant called ."
    assert cluster_links.link_decisions((0, 3), [(4, 13)], [[(0, 13)]]) == [False]
    assert text[0:3] == "Her" and text[4:13] == "assistant"


# ----- cluster files: corefbias score beside the script on the same clusters ------------------------------------


def _word_at(sentence: list, start: int) -> int:
    return next(index for index, word in enumerate(sentence) if word.start == start and word.text)


def system_clusters(row: dict, *, varied: bool = True) -> list:
    """Clusters of inclusive word spans (indices of ``files.words``) a system could give, on the profession and the
    pronoun where the words are (``files.locate``). ``varied`` mixes, by a hash of the id: linked (the profession's
    mention sometimes with the word before), apart, none, one mention over both words ("her assistant"), the
    pronoun's nested mention in the profession's cluster beside a singleton of the pronoun ("his mother"), and a
    cluster without the pronoun; otherwise every sentence is linked, as the gold annotation links it."""
    sentence = bug_files.words(row["text"])
    profession = _word_at(sentence, row["candidates"][0]["start"])
    pronoun = _word_at(sentence, row["pronoun"]["start"])

    def is_word(index: int) -> bool:
        return 0 <= index < len(sentence) and sentence[index].text != ""

    kind = _hashed(row["id"], "kind") % 6 if varied else 0
    other = next((i for i in range(len(sentence)) if is_word(i) and i not in (profession, pronoun)), None)
    if kind == 1:
        return [[[profession, profession]], [[pronoun, pronoun]]]
    if kind == 2:
        return []
    if kind == 3:
        first, last = sorted((profession, pronoun))
        return [[[first, last]]]
    if kind == 4 and is_word(pronoun + 1) and pronoun + 1 != profession:
        return [[[profession, profession], [pronoun, pronoun + 1]], [[pronoun, pronoun]]]
    if kind == 5 and other is not None:
        return [[[profession, profession], [other, other]]]
    widen = varied and is_word(profession - 1) and profession - 1 != pronoun and _hashed(row["id"], "span") % 2
    return [[[profession - 1 if widen else profession, profession], [pronoun, pronoun]]]


def jsonlines_document(row: dict, clusters: list) -> dict:
    """The clusters as e2e-coref writes them: the text's tokens (its words, without the empty ones a run of spaces
    leaves), inclusive token spans."""
    tokens, token_of = [], {}
    for index, word in enumerate(bug_files.words(row["text"])):
        if word.text:
            token_of[index] = len(tokens)
            tokens.append(word.text)
    spans = [[[token_of[first], token_of[last]] for first, last in cluster] for cluster in clusters]
    return {"doc_key": row["id"], "sentences": [tokens], "predicted_clusters": spans}


def score_both(parts, exported_set, mirror, tmp_path, config: str, *, varied: bool) -> tuple[dict, dict, list]:
    """The same clusters scored by ``corefbias score --config <config>`` (its sections) and by evaluate_coref.py (its
    globals; the guarded copy on gold), and the exported rows."""
    exported, table = parts[config]
    rows = rows_of(exported)
    clusters = [system_clusters(row, varied=varied) for row in rows]
    path = tmp_path / "system.jsonlines"
    path.write_text(
        "".join(json.dumps(jsonlines_document(row, found)) + "\n" for row, found in zip(rows, clusters)),
        encoding="utf-8",
    )
    result = file_scoring.score("bug", [path], config=config, data_dir=exported_set("bug").parent, n_bootstrap=0)
    lines = []
    for row, found in zip(rows, clusters):
        upstream_row = table[row["upstream_row"]]
        lines.append({"row": {key: upstream_row[key] for key in upstream_row if key}, "pred": {"clusters": found}})
    script = run_evaluate_coref(mirror, tmp_path, lines, guarded_script(mirror, tmp_path) if config == "gold" else None)
    return result.runs["bug"].sections, script, rows


@pytest.mark.parametrize("config", ["gold", "balanced"])
def test_cluster_files_score_as_evaluate_coref_reads_them(parts, exported_set, mirror, tmp_path, config):
    sections, script, _ = score_both(parts, exported_set, mirror, tmp_path, config, varied=True)
    assert list(sections) == [f"bug/{config}/{evaluate_coref.SECTION}", f"bug/{config}"]
    assert_same_scores(sections[f"bug/{config}/{evaluate_coref.SECTION}"], script)
    assert 0 < script["acc"] < 100
    # Our own reading of the same clusters (where the words are, the pronoun a mention of its own) is the other figure.
    assert sections[f"bug/{config}"]["accuracy"] < sections[f"bug/{config}/{evaluate_coref.SECTION}"]["accuracy"]


@pytest.mark.parametrize("config, offsets_off", [("gold", 27), ("balanced", 23)])
def test_the_gold_links_are_perfect_where_the_words_are_and_not_at_the_offsets(
    parts, exported_set, mirror, tmp_path, config, offsets_off
):
    """A system linking every pronoun to its profession where the two words are: perfect and unbiased in our
    reading; in the script's, wrong on every row whose offsets miss their words (the card's two figures)."""
    sections, script, rows = score_both(parts, exported_set, mirror, tmp_path, config, varied=False)
    ours_ = sections[f"bug/{config}"]
    assert (ours_["accuracy"], ours_["delta_g"], ours_["delta_s"]) == (1.0, 0.0, 0.0)
    assert sum(row["located_by"] == "nearest" for row in rows) == offsets_off
    assert script["acc"] == pytest.approx(100 * (len(rows) - offsets_off) / len(rows), abs=1e-9)
    assert_same_scores(sections[f"bug/{config}/{evaluate_coref.SECTION}"], script)
