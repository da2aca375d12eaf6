"""ABC scored as GenDa Lens scores it, checked against GenDa Lens's own code run from the mirror.

``genda_lens/coref_tasks/abc_utils.py`` (MIT, mirrored at ``../shared/data/genda_lens``, never copied) is imported
with its progress bar stubbed (``progressbar`` is not installed; it draws nothing the scores depend on); spaCy, torch
and fairlearn, whose ``true_positive_rate`` and ``false_positive_rate`` it calls, are the real ones. Its
``run_abc_coref`` asks a stand-in model for every sentence of its own ABC files (GenDa Lens's ``genda`` config) and
gets clusters the test made: of the subject and the pronoun, of the pronoun and another word, without the pronoun, of
one mention (the subject, or the pronoun), with a mention holding the pronoun ("hans tegnebog"), or none.
``evaluate_coref_abc`` and ``eval_results`` score them; ``corefbias score --mode any_cluster`` scores the same clusters
as an AllenNLP file, and every rate and the Gender Effect Size are equal to 1e-9. On ABC's other languages, whose
stereotype groups differ in size and whose triplets are not all stereotyped, GenDa Lens's Gender Effect Size is
checked on the same decisions: it is ``genda_lens_gender_effect_size``, not the pooled ``log2_fpr_ratio``.
"""

import importlib.util
import json
import math
import random
import sys
import types

import numpy as np
import pytest

from corefbias.benchmarks import BENCHMARKS, rows_of
from corefbias.harness.benchmark_data import load_part
from corefbias.harness.prediction_files import scoring
from corefbias.measures import abc_fpr_ratio

pytestmark = pytest.mark.reproduction

KINDS = (
    "subject and pronoun",
    "pronoun and another word",
    "no pronoun",
    "the subject alone",
    "the pronoun alone",
    "a mention holding the pronoun",
    "no cluster",
)


@pytest.fixture(scope="module")
def abc_utils(mirror):
    """GenDa Lens's ``coref_tasks/abc_utils.py`` from the mirror, its progress bar stubbed."""
    pytest.importorskip("fairlearn", reason="GenDa Lens's ABC scorer calls fairlearn (pip install -e '.[test]')")
    path = mirror / "genda_lens" / "genda_lens" / "coref_tasks" / "abc_utils.py"
    bar = types.SimpleNamespace(start=lambda: bar, update=lambda index: None, finish=lambda: None)
    saved = sys.modules.get("progressbar")
    sys.modules["progressbar"] = types.SimpleNamespace(ProgressBar=lambda maxval: bar)
    try:
        spec = importlib.util.spec_from_file_location("genda_lens_abc_utils", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # its data folder: Path(__file__).parents[1] / "data", mirrored
    finally:
        if saved is None:
            del sys.modules["progressbar"]
        else:
            sys.modules["progressbar"] = saved
    return module


@pytest.fixture(scope="module")
def data_dir(exported_set):
    return exported_set("abc").parent


def token_of(tokens: list[str], char: int) -> int:
    """The whitespace token holding character ``char`` of the tokens joined by single spaces."""
    start = 0
    for index, token in enumerate(tokens):
        if start <= char < start + len(token):
            return index
        start += len(token) + 1
    raise ValueError(f"no token at character {char}")


def clusters_of(kind: str, tokens: list[str], subject: int, pronoun: int) -> list:
    """One kind's clusters as AllenNLP writes them: inclusive ``[first, last]`` spans over the tokens."""
    other = len(tokens) - 1  # the sentence's last word ("huset.")
    return {
        "subject and pronoun": [[[subject, subject], [pronoun, pronoun]]],
        "pronoun and another word": [[[pronoun, pronoun], [other, other]]],
        "no pronoun": [[[subject, subject], [other, other]]],
        "the subject alone": [[[subject, subject]]],
        "the pronoun alone": [[[pronoun, pronoun]]],
        "a mention holding the pronoun": [[[subject, subject], [pronoun, pronoun + 1]]],
        "no cluster": [],
    }[kind]


@pytest.fixture(scope="module")
def predictions(data_dir, abc_utils):
    """Per sentence of GenDa Lens's files, in its order (female file, then male): the tokens it gives the model and
    the clusters drawn for it; the same as corefbias's ``genda`` rows, checked sentence by sentence."""
    benchmark = BENCHMARKS["abc"]
    (part,) = benchmark.parts
    columns = load_part(benchmark, *part, data_dir).to_dict()
    draw = random.Random(50)
    made = []
    for row in rows_of(columns):
        tokens = row["text"].split()
        assert " ".join(tokens) == row["text"]
        subject, pronoun = token_of(tokens, row["candidates"][0]["start"]), token_of(tokens, row["pronoun"]["start"])
        kind = draw.choice(KINDS)
        made.append({"document": tokens, "clusters": clusters_of(kind, tokens, subject, pronoun), "kind": kind})
    return made


@pytest.fixture(scope="module")
def genda(abc_utils, predictions):
    """GenDa Lens's own pipeline on the clusters: run_abc_coref with a stand-in model, evaluate_coref_abc,
    eval_results."""

    class StandIn:
        calls = 0

        def predict(self, line):
            expected = predictions[self.calls]
            assert line == [expected["document"]], self.calls  # GenDa Lens's sentence is corefbias's row
            self.calls += 1
            return {"clusters": expected["clusters"]}

    model = StandIn()
    fem_preds, male_preds = abc_utils.run_abc_coref(model)
    assert model.calls == len(predictions) == 2 * 3 * 2280
    fem, male, every = abc_utils.evaluate_coref_abc(fem_preds, male_preds)
    simple, _ = abc_utils.eval_results(fem, male, every, "stand-in")
    return {"female_occupations": fem, "male_occupations": male, "all": every, "simple": simple}


@pytest.fixture(scope="module")
def ours(predictions, data_dir, mirror, tmp_path_factory):
    path = tmp_path_factory.mktemp("abc_predictions") / "xlmr.json"
    path.write_text(json.dumps([{"document": p["document"], "clusters": p["clusters"]} for p in predictions]))
    return {
        mode: scoring.score(
            "abc", [path], format="allennlp", mode=mode, data_dir=data_dir, mirror=mirror, n_bootstrap=0
        )
        .runs["abc"]
        .sections["abc"]
        for mode in ("any_cluster", "cluster")
    }


def test_any_cluster_counts_every_rate_as_genda_lens_does(genda, ours):
    section = ours["any_cluster"]
    for bucket in ("all", "female_occupations", "male_occupations"):
        suffix = "" if bucket == "all" else f"/{bucket}"
        theirs = genda[bucket]
        assert section[f"tpr_reflexive{suffix}"] == pytest.approx(theirs["tpr_reflexive"], abs=1e-9)
        assert section[f"fpr_male{suffix}"] == pytest.approx(theirs["fpr_anti_reflexive_male"], abs=1e-9)
        assert section[f"fpr_female{suffix}"] == pytest.approx(theirs["fpr_anti_reflexive_female"], abs=1e-9)
    # The strict reading, a cluster of the pronoun and the subject, counts otherwise.
    assert ours["cluster"]["fpr_male"] < section["fpr_male"] - 0.3


def test_both_gender_effect_sizes_are_genda_lens_on_its_own_sentences(genda, ours):
    section = ours["any_cluster"]
    mean_female, mean_male, _ = genda["simple"].loc["Mean Rate of Detected Clusters"]
    printed = genda["simple"].loc["Gender Effect Size"].iloc[1]
    # Equal stereotype groups, every triplet stereotyped: GenDa Lens's average of the groups is the pooled rate.
    for name in ("genda_lens_gender_effect_size", "log2_fpr_ratio"):
        assert section[name] == pytest.approx(math.log2(mean_male / mean_female), abs=1e-9)
        assert round(section[name], 2) == printed


@pytest.mark.parametrize("name", ["abc_sv", "abc_ru", "abc_zh"])
def test_genda_lens_gender_effect_size_where_groups_differ_and_some_triplets_have_no_stereotype(
    name, abc_utils, data_dir
):
    benchmark = BENCHMARKS[name]
    (part,) = benchmark.parts
    columns = load_part(benchmark, *part, data_dir).to_dict()
    # Links that depend on the pronoun and the stereotype, drawn once: "hans" most often with male occupations.
    rates = {("neutral", None): 0.9, ("male", "male"): 0.8, ("male", "female"): 0.5, ("male", None): 0.7}
    rates.update({("female", "male"): 0.3, ("female", "female"): 0.6, ("female", None): 0.2})
    draw = np.random.default_rng(7)
    linked = [
        bool(draw.random() < rates.get((pronoun, stereotype), rates["neutral", None] if pronoun == "neutral" else 0))
        for pronoun, stereotype in zip(columns["pronoun_gender"], columns["occupation_gender"])
    ]
    section = benchmark.score({part: columns}, {part: [[link] for link in linked]}, 0, 0)[name]
    # GenDa Lens's files hold the female-stereotype triplets, then the male ones; the others are not in them.
    preds = {"female": [], "male": []}
    for link, stereotype in zip(linked, columns["occupation_gender"]):
        if stereotype is not None:
            preds[stereotype].append({"clusters": [[[0, 0], [1, 1]]] if link else []})
    fem, male, every = abc_utils.evaluate_coref_abc(preds["female"], preds["male"])
    simple, _ = abc_utils.eval_results(fem, male, every, name)
    mean_female, mean_male, _ = simple.loc["Mean Rate of Detected Clusters"]
    genda = math.log2(mean_male / mean_female)
    assert section[abc_fpr_ratio.GENDA_LENS_GES] == pytest.approx(genda, abs=1e-9)
    assert round(section[abc_fpr_ratio.GENDA_LENS_GES], 2) == simple.loc["Gender Effect Size"].iloc[1]
    # The pooled ratio counts the triplets without a stereotype and weighs the groups by their size: another number.
    assert abs(section["log2_fpr_ratio"] - genda) > 0.01
    for stereotype, theirs in (("female", fem), ("male", male)):
        assert section[f"fpr_male/{stereotype}_occupations"] == pytest.approx(theirs["fpr_anti_reflexive_male"])
