"""MISGENDERED: the instances are the upstream scripts' instances, and the accuracies are theirs.

Upstream's scripts (``zero-shot/gpt2.py``, ``few-shot/opt.py`` at the pinned commit) are run for their own
functions (``tests/upstream_scripts.py``): ``get_eval_instance`` on the evaluation file corefbias makes gives each
row's declared sentence, label and options, and ``evaluate`` marks each instance correct. Only what their module
level does on import is left out — parse arguments, load a model onto a GPU — and the model their ``evaluate``
calls is a stand-in whose loss is 0 for the sentence filled with the word corefbias's model chose and 1 for the
others, so upstream's ranking (``sort_values`` on the losses, ``top_1 == label``) decides on the same predictions.
"""

import re

import pandas as pd
import pytest
from upstream_scripts import functions

from corefbias.benchmarks import BENCHMARKS
from corefbias.benchmarks.fill_in_sections import chosen_words
from corefbias.benchmarks.misgendered import files as misgendered_files
from corefbias.data.fill_in import rotated
from corefbias.harness import executors
from corefbias.harness.benchmark_data import load_part
from corefbias.harness.limits import limit_units
from corefbias.measures.misgendered_accuracy import misgendered_accuracy
from corefbias.models.baselines import RandomBaseline, StereotypeBaseline

BENCHMARK = BENCHMARKS["misgendered"]


@pytest.fixture(scope="module")
def upstream(mirror):
    return mirror / "misgendered"


@pytest.fixture(scope="module")
def rows(exported_set, mirror):
    """Two sentences of each declaration kind and form, each with the 11 sets (the scored part at --limit 2)."""
    data = load_part(BENCHMARK, "default", "test", exported_set("misgendered").parent, mirror)
    return list(limit_units({("default", "test"): data}, BENCHMARK, 2)[("default", "test")])


def script(upstream, path, monkeypatch, **injected):
    monkeypatch.chdir(upstream)  # the scripts read pronouns.csv from where they run
    return functions(upstream / path, ("gender_codebook",), **injected)


class _Ids:
    def __init__(self, text):
        self.text = text

    def to(self, device):
        return self.text


class _Loss:
    def __init__(self, value):
        self.value = value

    def detach(self):
        return self

    def item(self):
        return self.value


def stand_in_model(chosen_sentences: set[str]):
    """The tokenizer and model ``evaluate`` calls: loss 0 for a sentence ending as one filled with the chosen word."""

    def tokenizer(text, return_tensors=None):
        return {"input_ids": _Ids(text)}

    def model(input_ids, labels=None):
        return {"loss": _Loss(0.0 if any(input_ids.endswith(sentence) for sentence in chosen_sentences) else 1.0)}

    return tokenizer, model


def eval_file(rows, path):
    """The evaluation file upstream's scripts read (``sentence``, ``form``, ``template_id``, ``name``), one row per
    sentence, in the rows' order."""
    sentences = {row["sentence_id"]: row for row in rows}
    frame = pd.DataFrame(
        [{key: row[key] for key in ("sentence", "form", "template_id", "name")} for row in sentences.values()]
    )
    frame.to_csv(path, index=False)
    return list(sentences)


def test_every_row_is_what_get_eval_instance_makes_of_its_evaluation_file_row(rows, upstream, monkeypatch):
    get_eval_instance = script(upstream, "zero-shot/gpt2.py", monkeypatch)["get_eval_instance"]
    for row in rows:
        sentence, label, constraints = get_eval_instance(row["sentence"], row["pronoun_set"], row["form"])
        passage = row["text"].split("\nOPTIONS:\n")[0]
        assert passage == sentence.replace("{mask_token}", "___"), row["id"]
        assert row["answer"] == label
        # the scripts' choices, each word once, listed in the row's rotation
        assert [candidate["text"] for candidate in row["candidates"]] == rotated(
            list(dict.fromkeys(constraints)), row["sentence_id"]
        )
        assert [c["text"] for c in row["candidates"] if c["is_referent"]] == [label]
    forms = {(row["form"], row["answer"][0].isupper()) for row in rows}
    assert ("nom", True) in forms and ("acc", False) in forms  # capitalized and not


def test_the_pronoun_sets_and_the_repeated_words_are_upstreams(upstream, monkeypatch):
    codebook = script(upstream, "zero-shot/gpt2.py", monkeypatch)["gender_codebook"]
    sets = misgendered_files.pronoun_sets(upstream.parent)
    assert [row["gender"] for row in sets] == list(codebook["gender"])
    assert all(list(codebook[form]) == [row[form] for row in sets] for form in misgendered_files.FORMS)
    # e and ey share two words, which upstream's option list holds twice and corefbias's once
    assert [form for form in misgendered_files.FORMS if codebook[form].duplicated().any()] == ["acc", "ref"]


def chosen_by(model, rows) -> list:
    """The word the model chose for each row, asked as a run asks it (gold labels removed)."""
    outputs = executors.ask(model, BENCHMARK.task, rows)
    decisions = [
        [index == output["choice"] for index in range(len(row["candidates"]))] for row, output in zip(rows, outputs)
    ]
    return chosen_words({"candidates": [row["candidates"] for row in rows]}, decisions)


def passage(row) -> str:
    """The declared sentence of a row, as upstream's ``get_eval_instance`` returns it (``{mask_token}`` open)."""
    return row["text"].split("\nOPTIONS:\n")[0].replace("___", "{mask_token}")


def upstream_marks(evaluate, rows, path) -> pd.DataFrame:
    """Upstream's ``evaluate`` over the evaluation file of ``rows``, once per declared set (one output file each)."""
    sentence_ids = eval_file(rows, path)
    frames = []
    for pronoun_set in dict.fromkeys(row["pronoun_set"] for row in rows):
        frame = evaluate(str(path), pronoun_set)
        frames.append(frame.assign(pronoun_set=pronoun_set, sentence_id=sentence_ids))
    return pd.concat(frames)


def assert_same_accuracies(ours: dict, theirs: pd.DataFrame) -> None:
    assert ours["num_instances"] == len(theirs)
    assert ours["accuracy"] == pytest.approx(theirs["correct"].mean(), abs=1e-12)
    for pronoun_set, correct in theirs.groupby("pronoun_set")["correct"]:
        assert ours[f"accuracy/pronoun_set/{pronoun_set}"] == pytest.approx(correct.mean(), abs=1e-12), pronoun_set
    for form, correct in theirs.groupby("form")["correct"]:
        assert ours[f"accuracy/form/{form}"] == pytest.approx(correct.mean(), abs=1e-12), form
    for (pronoun_set, form), correct in theirs.groupby(["pronoun_set", "form"])["correct"]:
        assert ours[f"accuracy/pronoun_set/{pronoun_set}/form/{form}"] == pytest.approx(correct.mean(), abs=1e-12)


def ours_on(rows, predictions) -> dict:
    return misgendered_accuracy(
        predictions,
        [row["answer"] for row in rows],
        [row["pronoun_set"] for row in rows],
        [row["form"] for row in rows],
        [row["sentence_id"] for row in rows],
        n_bootstrap=0,
    )


@pytest.mark.reproduction
@pytest.mark.parametrize("model", [RandomBaseline(seed=3), StereotypeBaseline()], ids=["random", "stereotype"])
def test_accuracy_per_set_and_form_is_the_zero_shot_scripts_on_the_same_predictions(
    model, rows, upstream, monkeypatch, tmp_path
):
    predictions = chosen_by(model, rows)
    filled = {re.sub("{mask_token}", word, passage(row)) for row, word in zip(rows, predictions)}
    tokenizer, stand_in = stand_in_model(filled)
    evaluate = script(upstream, "zero-shot/gpt2.py", monkeypatch, tokenizer=tokenizer, model=stand_in)["evaluate"]
    theirs = upstream_marks(evaluate, rows, tmp_path / "eval.csv")
    ours = ours_on(rows, predictions)
    assert_same_accuracies(ours, theirs)
    # not a trivial agreement: the sets score differently, and neither everything nor nothing is right
    per_set = {ours[f"accuracy/pronoun_set/{name}"] for name in theirs["pronoun_set"].unique()}
    assert len(per_set) > 1 and 0 < ours["accuracy"] < 1


@pytest.mark.reproduction
def test_the_few_shot_scripts_score_nominative_blanks_alike(exported_set, mirror, upstream, monkeypatch, tmp_path):
    """few-shot/opt.py prepends a demonstration drawn from templates 0-8 of the instance's form with another name:
    those exist for nominative blanks only (templates 0-9 are the nominative ones), so one declaration's nominative
    sentences (10 templates × 3 names) are scored."""
    data = load_part(BENCHMARK, "default", "test", exported_set("misgendered").parent, mirror)
    nominative = list(data.filter(lambda row: row["form"] == "nom" and row["declaration"] == "parenth_template_31"))
    assert len(nominative) == 10 * 3 * 11
    predictions = chosen_by(RandomBaseline(seed=5), nominative)
    filled = {re.sub("{mask_token}", word, passage(row)) for row, word in zip(nominative, predictions)}
    tokenizer, stand_in = stand_in_model(filled)
    path = tmp_path / "eval.csv"
    namespace = script(
        upstream, "few-shot/opt.py", monkeypatch, tokenizer=tokenizer, model=stand_in, eval_file=str(path)
    )
    random = namespace["random"]
    random.seed(0)
    theirs = upstream_marks(namespace["evaluate"], nominative, path)
    assert_same_accuracies(ours_on(nominative, predictions), theirs)
    assert theirs["sentence"].str.contains(" \n ").all()  # each with its demonstration before it
