"""The ``bug`` benchmark against BUG's own scorer, ``src/evaluations/evaluate_coref.py``, on the same predictions.

The reference is the script itself, pinned in ``bug/upstream.json``, run from the mirror as its README says
(``python evaluate_coref.py --in=<predictions>.jsonl --out=<figure>.png``) with ``runpy``, nothing patched: its
module globals after the run hold ``acc``, ``delta_g``, ``delta_s`` and the per-bin lists it logs and plots. Its
input is one JSON line per sentence, ``{"row": <the upstream CSV row>, "pred": {"clusters": ...}}``, clusters of
inclusive word spans; ``is_correct_pred`` calls a sentence correct when one cluster covers the profession's and the
pronoun's words. The same decisions go through the benchmark's scoring (``BENCHMARK.score`` over the exported rows),
and every number must agree (the script in percent, ours as fractions).
"""

import hashlib
import json
import runpy
import sys

import matplotlib
import pytest

from corefbias.benchmarks import BENCHMARKS, rows_of
from corefbias.benchmarks.bug import files as bug_files
from corefbias.data import upstream
from corefbias.harness import cluster_links
from corefbias.measures import bug
from corefbias.models.baselines import StereotypeBaseline

SCRIPT = "src/evaluations/evaluate_coref.py"
BENCHMARK = BENCHMARKS["bug"]


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


def run_evaluate_coref(mirror, tmp_path, lines: list[dict]) -> dict:
    """evaluate_coref.py's module globals after running it on ``lines`` as its README says."""
    predictions = tmp_path / "coref_preds.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    script = upstream.fetch("bug", SCRIPT, mirror)
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


def assert_same_scores(result: dict, script: dict) -> None:
    assert result["accuracy"] * 100 == pytest.approx(script["acc"], abs=1e-9)
    assert result["delta_g"] * 100 == pytest.approx(script["delta_g"], abs=1e-9)
    assert result["delta_s"] * 100 == pytest.approx(script["delta_s"], abs=1e-9)
    labels = [bug.bin_label(entry[0]) for entry in script["delta_s_by_dist"]]
    for (_, delta, count), label, accuracy, stereotypical, anti in zip(
        script["delta_s_by_dist"], labels, script["acc_by_dist"], script["ste_by_dist"], script["ant_by_dist"]
    ):
        assert result[f"delta_s/distance_{label}"] * 100 == pytest.approx(delta, abs=1e-9), label
        assert result[f"num_stereotyped/distance_{label}"] == count, label
        assert result[f"accuracy/distance_{label}"] * 100 == pytest.approx(accuracy, abs=1e-9), label
        assert result[f"accuracy_stereotypical/distance_{label}"] * 100 == pytest.approx(stereotypical, abs=1e-9)
        assert result[f"accuracy_anti_stereotypical/distance_{label}"] * 100 == pytest.approx(anti, abs=1e-9)
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
    assert runpy.run_path(str(upstream.fetch("bug", SCRIPT, mirror)))["BIN_SIZE"] == bug.BIN_SIZE


def test_a_mention_covering_both_words_is_a_link_to_the_script_and_not_to_the_cluster_rule(mirror):
    """The one place the rules part (the card's "What counts as resolved"): "her assistant" as a single mention."""
    script = runpy.run_path(str(upstream.fetch("bug", SCRIPT, mirror)))
    row = {"profession_first_index": 1, "g_first_index": 0}
    assert script["is_correct_pred"]({"row": row, "pred": {"clusters": [[[0, 1]]]}})
    text = "Her assistant called ."
    assert cluster_links.link_decisions((0, 3), [(4, 13)], [[(0, 13)]]) == [False]
    assert text[0:3] == "Her" and text[4:13] == "assistant"
