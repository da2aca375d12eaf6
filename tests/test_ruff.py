"""RUFF: the instances are upstream's, line for line, and the accuracies are those of upstream's scoring.

``scripts/add_context.py`` (run as upstream runs it, on two task rows) writes the six files whose lines corefbias's
generation reproduces in order. ``scripts/score_models.py``'s own ``main`` (its functions executed from the
pinned mirror, ``tests/upstream_scripts.py``) scores corefbias's rows with a small causal LM this test makes, as
it scores its models, and writes each row's ``verbalized_token``; ``ruff_accuracy`` on those same choices gives
the share of rows whose ``verbalized_token`` is the declared ``pronoun``, per pronoun and per number of
distractors. Left out of ``score_models.py``: nothing but the module-level model list, replaced by the small
model, and ``minicons`` (imported at the top, used only for masked LMs, not installed), stood in for by an empty
module.
"""

import csv
import re
import subprocess
import sys
import types

import pandas as pd
import pytest
from upstream_scripts import functions

from corefbias.benchmarks import BENCHMARKS
from corefbias.benchmarks.fill_in_sections import chosen_words
from corefbias.benchmarks.ruff import files as ruff_files
from corefbias.harness.benchmark_data import load_part
from corefbias.harness.limits import limit_units
from corefbias.measures.ruff_accuracy import ruff_accuracy

BENCHMARK = BENCHMARKS["ruff"]
UPSTREAM_COLUMNS = (
    "occupation",
    "participant",
    "sentence",
    "pronoun_type",
    "word",
    "pronoun",
    "uid",
    "confuse_pronoun",
)


@pytest.fixture(scope="module")
def scripts(mirror):
    return mirror / "ruff" / "scripts"


@pytest.fixture(scope="module")
def rows(exported_set, mirror):
    """One context of each number of distractors and case (the scored part at --limit 1: 192 instances)."""
    data = load_part(BENCHMARK, "default", "test", exported_set("ruff").parent, mirror)
    return list(limit_units({("default", "test"): data}, BENCHMARK, 1)[("default", "test")])


def test_the_password_and_the_templates_come_from_the_pinned_files(mirror):
    assert ruff_files.password(mirror) == b"vogelbeobachtung131719"
    tasks = ruff_files.tasks(mirror)
    assert len(tasks) == 180 and {task["pronoun_type"] for task in tasks} == set(ruff_files.PRONOUNS)
    assert all(task["word"] == task["occupation"] for task in tasks)
    assert {case: len(found) for case, found in ruff_files.introductions(mirror).items()} == dict.fromkeys(
        ruff_files.PRONOUNS, 10
    )


@pytest.mark.reproduction
def test_each_file_is_add_context_py_s_line_for_line(scripts, mirror, tmp_path):
    tasks = ruff_files.tasks(mirror)
    chosen = [tasks[0], tasks[5]]  # a nominative and a possessive task sentence
    with open(tmp_path / "task.tsv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(tasks[0]), delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(chosen)
    context = tmp_path / "context.tsv"
    with open(context, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(["pronoun_type", "polarity", "explicit_template", "implicit_template"])
        for row in ruff_files.read_archive_tsv(ruff_files.CONTEXT_FILE, mirror):
            writer.writerow([row["pronoun_type"], row["polarity"], row["explicit_template"], row["implicit_template"]])
    subprocess.run(
        [sys.executable, str(scripts / "add_context.py"), "task.tsv", "context.tsv"], cwd=tmp_path, check=True
    )
    intros = ruff_files.introductions(mirror)
    for distractors, name in enumerate(ruff_files.FILES):
        with open(tmp_path / f"{name}.tsv", encoding="utf-8", newline="") as handle:
            theirs = list(csv.DictReader(handle, delimiter="\t"))
        ours = [
            ruff_files.row(index, task, found, distractors)
            for index, task in enumerate(chosen)
            for found in ruff_files.contexts(task, intros, distractors)
        ]
        assert len(theirs) == len(ours) == 2 * (7200, 86400, 345600, 1036800, 2073600, 2073600)[distractors] // 180
        for line, row in zip(theirs, ours):
            assert (line["sentence"], line["uid"], line["pronoun"], line["confuse_pronoun"]) == (
                row["sentence"],
                row["uid"],
                row["declared_pronoun"],
                row["confuse_pronoun"] or "",
            )
            assert line["sentence"].replace(line["pronoun_type"], "___") == row["text"].split("\nOPTIONS:\n")[0]


def small_causal_lm(folder, texts):
    """A two-layer causal LM with a word-level tokenizer over ``texts``, saved in ``folder`` as transformers saves
    one, so that ``score_models.py`` loads it with ``from_pretrained`` like any of its models."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    words = {word for text in texts for word in re.findall(r"\w+|[^\w\s]", text)}
    vocabulary = {token: index for index, token in enumerate(["<unk>", "<s>", *sorted(words)])}
    tokenizer = Tokenizer(models.WordLevel(vocabulary, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    wrapped = PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", bos_token="<s>", eos_token="<s>")
    wrapped.save_pretrained(folder)
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=len(vocabulary), n_positions=1024, n_embd=32, n_layer=2, n_head=2, bos_token_id=1, eos_token_id=1
    )
    GPT2LMHeadModel(config).save_pretrained(folder)


@pytest.mark.reproduction
def test_accuracy_per_pronoun_and_distractors_is_score_models_py_s_on_the_same_choices(
    rows, scripts, tmp_path, monkeypatch
):
    texts = [
        row["sentence"].replace(row["pronoun_type"], word)
        for row in rows
        for word in ("he", "she", "they", "xe", "him", "her", "them", "xem", "his", "their", "xyr")
    ]
    small_causal_lm(tmp_path / "small-lm", texts)
    data = tmp_path / "instances.tsv"
    with open(data, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(UPSTREAM_COLUMNS)
        for row in rows:
            declared = {"pronoun": row["declared_pronoun"], "confuse_pronoun": row["confuse_pronoun"] or ""}
            writer.writerow([declared.get(column, row.get(column)) for column in UPSTREAM_COLUMNS])
    monkeypatch.syspath_prepend(str(scripts))
    monkeypatch.setitem(sys.modules, "minicons", types.SimpleNamespace(scorer=None))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["score_models.py", str(data)])
    upstream = functions(scripts / "score_models.py", ("device", "models"))
    upstream["models"] = [(str(tmp_path / "small-lm"), "decoder")]
    upstream["main"]()
    (written,) = (tmp_path / "instances").glob("*.tsv")
    theirs = pd.read_csv(written, sep="\t", keep_default_na=False)
    assert list(theirs["sentence"]) == [row["sentence"] for row in rows]
    chosen = [
        [candidate["text"] == token for candidate in row["candidates"]]
        for row, token in zip(rows, theirs["verbalized_token"])
    ]
    predictions = chosen_words({"candidates": [row["candidates"] for row in rows]}, chosen)
    assert predictions == list(theirs["verbalized_token"])
    ours = ruff_accuracy(
        predictions,
        [row["answer"] for row in rows],
        [row["pronoun_set"] for row in rows],
        [row["distractors"] for row in rows],
        [row["context_id"] for row in rows],
        n_bootstrap=0,
    )
    theirs["correct"] = theirs["verbalized_token"] == theirs["pronoun"]
    theirs["pronoun_set"] = [row["pronoun_set"] for row in rows]
    theirs["distractors"] = [row["distractors"] for row in rows]
    assert ours["accuracy"] == pytest.approx(theirs["correct"].mean(), abs=1e-12)
    for pronoun_set, correct in theirs.groupby("pronoun_set")["correct"]:
        assert ours[f"accuracy/pronoun_set/{pronoun_set}"] == pytest.approx(correct.mean(), abs=1e-12)
    for distractors, correct in theirs.groupby("distractors")["correct"]:
        assert ours[f"accuracy/distractors/{distractors}"] == pytest.approx(correct.mean(), abs=1e-12)
    for (pronoun_set, distractors), correct in theirs.groupby(["pronoun_set", "distractors"])["correct"]:
        assert ours[f"accuracy/pronoun_set/{pronoun_set}/distractors/{distractors}"] == pytest.approx(correct.mean())
    assert 0 < ours["accuracy"] < 1 and theirs["verbalized_token"].nunique() > 1  # the model's choices vary
