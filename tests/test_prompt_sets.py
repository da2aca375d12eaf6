"""Prompt sets (``corefbias run --prompts``): each headline per prompt, its spread, the two-level bootstrap over
prompts and units, the sign flip; and the "don't know" scores of templates with a "someone else" option."""

import json
import math
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from jsonschema import Draft202012Validator

from corefbias.benchmarks import BENCHMARKS
from corefbias.benchmarks.cloze_wording import EVAL_FRAMEWORK_IDK_INSTRUCTION
from corefbias.cli import main
from corefbias.harness import comparison, comparison_report, runner
from corefbias.harness.prompt_sets import chosen_templates
from corefbias.harness.run_outputs import write_outputs
from corefbias.measures.dont_know import confidence_weighted_accuracy, pick_and_confidence
from corefbias.measures.prompt_spread import prompt_spread, two_level_replicates
from corefbias.measures.resampling import UnitRows
from corefbias.models.cloze import ClozeModel
from corefbias.space import charts

ACCURACY = lambda sums: {"accuracy": sums[..., 0] / sums[..., 1]}  # noqa: E731


def test_the_two_level_bootstrap_draws_prompts_and_units_as_the_hand_count_says():
    """Prompt A right on both units, prompt B on the first only. Units drawn: both the first (¼) → A 1, B 1; both the
    second (¼) → A 1, B 0; one of each (½) → A 1, B ½. Prompts drawn: AA (¼) → A's value, BB (¼) → B's, AB (½) →
    their mean. So P(1) = ¼ + ¼·¼ + ½·¼ = 7/16, P(0) = ¼·¼ = 1/16, P(½) = ¼·½ + ½·¼ = 4/16, P(¾) = ½·½ = 4/16."""
    rows = [np.array([[1.0, 1.0], [1.0, 1.0]]), np.array([[1.0, 1.0], [0.0, 1.0]])]
    replicates = two_level_replicates(rows, ACCURACY, "accuracy", 40_000, seed=1)
    shares = {value: count / len(replicates) for value, count in Counter(replicates.tolist()).items()}
    expected = {1.0: 7 / 16, 0.0: 1 / 16, 0.5: 4 / 16, 0.75: 4 / 16}
    assert set(shares) == set(expected)
    for value, share in expected.items():
        assert shares[value] == pytest.approx(share, abs=0.01), value
    # The interval of the mean: 0 and 1 each hold more than 2.5% of the mass.
    spread = prompt_spread(
        {"a": 1.0, "b": 0.5},
        unbiased=None,
        rows_by_prompt={
            "a": UnitRows(rows[0], ACCURACY, ("accuracy",)),
            "b": UnitRows(rows[1], ACCURACY, ("accuracy",)),
        },
        key="accuracy",
        n_bootstrap=4000,
        seed=0,
    )
    # Two units are two blocks, too few for an interval: its tails would lie beyond any number of resamples.
    assert spread.value == 0.75 and spread.ci == (None, None) and spread.p_value is None
    assert "resting on 2 blocks needs more blocks" in spread.overall["mean"].significance_undefined["ci_low"]
    assert spread.overall["mean"].significance_undefined["p_value"].startswith("not a bias score")


def test_one_prompt_gives_the_single_level_bootstrap_and_undefined_prompts_say_so():
    rows = np.array([[1.0, 1.0]] * 3 + [[0.0, 1.0]])
    replicates = two_level_replicates([rows], ACCURACY, "accuracy", 2000, seed=0)
    assert set(np.round(replicates * 4).tolist()) <= {0, 1, 2, 3, 4} and replicates.mean() == pytest.approx(0.75, 0.05)
    spread = prompt_spread({"main": 0.2, "other": None}, unbiased=0.0, n_bootstrap=0)
    assert spread.value is None and "other" in spread.overall["mean"].undefined
    assert spread["min"] == spread["max"] == 0.2 and spread.extras["sign_flip"] is None
    with pytest.raises(ValueError, match="at least one prompt"):
        prompt_spread({}, unbiased=0.0)


class WordingBackend:
    """A stand-in whose answer depends on the wording: with the main template (and every other but one) it links
    he/his/him to the occupation and she/her to the participant, with "The word ‘…’ refers to the" the reverse."""

    identity = {"kind": "wording-stand-in"}

    def loglikelihoods(self, requests):
        answers = []
        for request in requests:
            pronoun = re.findall(r"[‘'](\w+)[’']", request.context)[-1].lower()
            prefer = {"he": 0, "his": 0, "him": 0, "she": 1, "her": 1}.get(pronoun, 0)
            if "The word ‘" in request.context and pronoun in ("he", "his", "him", "she", "her"):
                prefer = 1 - prefer
            answers.append([-1.0 if option == prefer else -2.0 - option for option in range(len(request.choices))])
        return answers


@pytest.fixture(scope="module")
def wording_run(exported_set, tmp_path_factory):
    folder = tmp_path_factory.mktemp("prompts")
    result = runner.run(
        "stand-in",
        ["winogender"],
        runner.RunSettings(limit=1, n_bootstrap=300, prompts=("all",)),
        data_dir=exported_set("winogender").parent,
        cache_path=folder / "cache.sqlite",
        progress=False,
        model=ClozeModel("stand-in", WordingBackend()),
    )
    return result, write_outputs(result, folder / "out", plots=False)


def test_a_sign_flip_across_wordings_is_flagged(wording_run):
    result, written = wording_run
    prompts = result.to_json()["benchmarks"]["winogender"]["prompts"]
    assert prompts["names"] == [template.name for template in BENCHMARKS["winogender"].prompt_set]
    spreads = {spread["key"]: spread for spread in prompts["headlines"]}
    share = spreads["occupation_share_male_minus_female"]
    # Every male sentence to the occupation and every female one to the participant: M − F = 1; reversed: −1.
    assert share["values"] == {name: (-1.0 if name == "the-word" else 1.0) for name in prompts["names"]}
    assert (share["min"], share["max"], share["sign_flip"]) == (-1.0, 1.0, True)
    assert share["mean"] == pytest.approx(4 / 6)
    # --limit 1 keeps two pairs of two occupations, too few blocks for an interval, which says so.
    assert share["ci_low"] is None and "resting on 2 blocks" in share["undefined"]["mean_ci_low"], share["undefined"]
    assert spreads["accuracy_non_gotcha_minus_gotcha"]["sign_flip"] is False  # 0 with every prompt
    # Each prompt's own run and scores: the headline of "the-word" is its own.
    per_prompt = prompts["per_prompt"]["the-word"]
    assert {h["key"]: h["value"] for h in per_prompt["headlines"]}["occupation_share_male_minus_female"] == -1.0
    assert per_prompt["position_rate"] is None and per_prompt["num_instances"] == 6
    # The run's own scores are the first prompt's (the main template), as without --prompts.
    assert result.runs["winogender"].benchmark.cloze is BENCHMARKS["winogender"].cloze
    summary = written["summary.csv"].read_text(encoding="utf-8")
    assert "prompt_sign_flip" in summary.splitlines()[0] and "±" in written["report.md"].read_text(encoding="utf-8")
    assert written["instances/winogender@the-word.jsonl"].is_file()
    # The Space's summary and compare's report show the spread.
    frame = charts.summary_frame(result.record())
    shown = dict(zip(frame["score"], frame["across prompts"]))
    assert (
        shown["occupation share M − F"] == "[-1.000, 1.000]±"
        and shown["accuracy non-gotcha − gotcha"] == "[0.000, 0.000]"
    )
    report = comparison_report.markdown(
        {
            "runs": [{"label": "a", "path": "a"}],
            "n_resamples": 10,
            "significance_level": 0.05,
            "comparisons": [],
            "scores": {"a": comparison._headline_scores(comparison.load_run(written["results.json"].parent))},
        }
    )
    assert "## Spread across prompts" in report and "| winogender | occupation share M − F | -1.000–1.000± |" in report
    schema = json.loads((Path(__file__).resolve().parents[1] / "docs" / "results.schema.json").read_text())
    Draft202012Validator(schema).validate(json.loads(written["results.json"].read_text(encoding="utf-8")))


def test_the_eval_framework_idk_prompt_gets_the_dont_know_section(wording_run):
    result, written = wording_run
    idk = result.prompt_runs["winogender"]["eval-framework-idk"]
    assert idk.benchmark.cloze.preamble.startswith(EVAL_FRAMEWORK_IDK_INSTRUCTION)
    section = idk.sections["winogender/dont_know"]
    # Recomputed by hand from the instances' log-likelihoods and eval-framework's rule.
    expected = []
    for instance, row in zip(idk.instances, _rows(idk)):
        request = idk.benchmark.cloze.render(row)
        pick, confidence = pick_and_confidence(instance["loglikelihoods"], request.continuations)
        right = request.candidate_of[pick] is not None and row["candidates"][request.candidate_of[pick]]["is_referent"]
        expected.append(confidence if right else 0.0)
    assert section["confidence_weighted_accuracy"] == pytest.approx(sum(expected) / len(expected))
    assert section["dont_know_rate"] == 0.0  # " don't know" is never the most likely per character here
    assert "winogender/dont_know" not in result.runs["winogender"].sections  # the main template has no such option
    # The report shows it, under the prompt it comes from (before, it was in results.json only).
    report = written["report.md"].read_text(encoding="utf-8")
    table = report.split("### winogender/dont_know (prompt `eval-framework-idk` only)\n", 1)[1]
    value = f"{section['confidence_weighted_accuracy']:.3f}"
    assert f"| confidence_weighted_accuracy | {value} |" in table.split("\n### ", 1)[0]


def _rows(run):
    ((_, columns),) = run.parts.items()
    return [dict(zip(columns, values)) for values in zip(*columns.values())]


def test_confidence_weighted_accuracy_by_hand():
    """eval-framework's rule: per character, softmax, the pick's probability if it is right. Instance 1: ' the
    nurse' −5/10 = −0.5 against " don't know" −11/11 = −1: the nurse, right, e^−0.5/(e^−0.5 + e^−1) = 0.6225.
    Instance 2: −20/10 = −2 against −2.2/11 = −0.2: don't know, 0 points. Instance 3 has no referent, so "don't
    know" is right: −30/10 = −3 against −5.5/11 = −0.5, p = 1/(1 + e^−2.5) = 0.9241."""
    texts = [" the nurse", " don't know"]
    result = confidence_weighted_accuracy(
        [[-5.0, -11.0], [-20.0, -2.2], [-30.0, -5.5]],
        [texts] * 3,
        [[0], [0], [1]],
        [1, 1, 1],
        ["female", "male", "male"],
        sides={"male": 1, "female": -1},
        n_bootstrap=0,
    )
    first = math.exp(-0.5) / (math.exp(-0.5) + math.exp(-1))
    third = 1 / (1 + math.exp(-2.5))
    assert result["confidence_weighted_accuracy"] == pytest.approx((first + third) / 3)
    assert result["accuracy"] == pytest.approx(2 / 3) and result["dont_know_rate"] == pytest.approx(2 / 3)
    assert result["confidence_weighted_accuracy/male"] == pytest.approx(third / 2)
    assert result.value == pytest.approx(third / 2 - first)  # male − female
    with pytest.raises(ValueError, match="one finite log-likelihood per option"):
        confidence_weighted_accuracy([[-1.0]], [texts], [[0]], [1], n_bootstrap=0)


RIGHT, DONT_KNOW = [-5.0, -30.0], [-30.0, -2.2]  # " the nurse" picked (and right), " don't know" picked


def _dont_know_by_template(n_templates: int = 12, per_template: int = 12) -> dict:
    """Instances from ``n_templates`` templates, half of each female and half male, answered alike within a template:
    the male ones right and the female ones "don't know", both right, or both "don't know", by template. Instance ids
    sort in their order."""
    kinds = [(RIGHT, DONT_KNOW), (RIGHT, RIGHT), (DONT_KNOW, DONT_KNOW), (RIGHT, DONT_KNOW), (RIGHT, RIGHT)]
    inputs = {"loglikelihoods": [], "groups": [], "templates": []}
    for template in range(n_templates):
        male, female = kinds[template % len(kinds)]
        for index in range(per_template):
            inputs["loglikelihoods"].append(male if index % 2 else female)
            inputs["groups"].append("male" if index % 2 else "female")
            inputs["templates"].append(f"template {template:02d}")
    count = len(inputs["groups"])
    inputs.update(continuations=[[" the nurse", " don't know"]] * count, right_options=[[0]] * count)
    inputs.update(dont_know_options=[1] * count, sides={"male": 1, "female": -1})
    return inputs


def test_dont_know_blocks_draw_the_instances_of_a_template_together():
    # Drawn instance by instance, the 144 instances give a tight interval for male − female; drawn by template, it
    # rests on 12 blocks and is wider, with a larger p-value.
    inputs = _dont_know_by_template()
    templates = inputs.pop("templates")
    by_instance = confidence_weighted_accuracy(**inputs, seed=3)
    by_template = confidence_weighted_accuracy(**inputs, block_ids=templates, seed=3)
    assert by_instance["diff"] == by_template["diff"] > 0
    assert by_instance.overall["diff"].n_blocks == 144 and by_template.overall["diff"].n_blocks == 12
    instance_width = by_instance["diff_ci_high"] - by_instance["diff_ci_low"]
    template_width = by_template["diff_ci_high"] - by_template["diff_ci_low"]
    assert template_width > 1.8 * instance_width
    assert by_template["diff_p_value"] > by_instance["diff_p_value"]
    # A block of its own per instance is no block at all: the same draws as without block_ids.
    alone = confidence_weighted_accuracy(**inputs, block_ids=[f"i{index:03d}" for index in range(144)], seed=3)
    significance = ("diff_ci_low", "diff_ci_high", "diff_p_value")
    assert [alone[key] for key in significance] == [by_instance[key] for key in significance]
    # Units given: a unit is drawn whole within its block.
    as_units = confidence_weighted_accuracy(**inputs, units=templates, block_ids=templates, seed=3)
    assert as_units.overall["diff"].n_blocks == 12 and as_units.unit_rows.blocks.sizes == (12,)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(block_ids=["a", "a", "b"]), "block_ids has 3 entries but loglikelihoods has 4"),
        (dict(block_ids=["a", None, "b", "b"]), r"block_ids\[1\] is None; give every instance its block"),
        (dict(block_ids=["a", 2.5, "b", "b"]), r"block_ids\[1\] is 2.5 \(float\); each entry must be a block id"),
        (dict(block_ids=["a", ("a", "x"), "b", "b"]), "gives 1 id.* for some instances and 2 for others"),
        (dict(units=["u", "u", "v", "v"], block_ids=["a", "b", "c", "c"]), "unit 'u' lies in block 'a' and in"),
    ],
)
def test_dont_know_malformed_block_ids_are_a_clear_value_error(change, message):
    inputs = _dont_know_by_template(n_templates=2, per_template=2)
    inputs.pop("templates")
    with pytest.raises(ValueError, match=message):
        confidence_weighted_accuracy(**inputs, **change, n_bootstrap=0)


def test_prompts_are_chosen_by_name_and_refused_for_models_that_read_no_template(exported_set, tmp_path):
    assert [t.name for t in chosen_templates(BENCHMARKS["gap"], ["someone-else"])] == ["someone-else"]
    with pytest.raises(ValueError, match="has no prompt 'nope'"):
        chosen_templates(BENCHMARKS["gap"], ["nope"])
    with pytest.raises(ValueError, match="does not read"):
        runner.run(
            "baseline:nearest",
            ["winogender"],
            runner.RunSettings(limit=1, n_bootstrap=0, prompts=("all",)),
            data_dir=exported_set("winogender").parent,
            cache_path=tmp_path / "cache.sqlite",
            progress=False,
        )
    code = main(["run", "--model", "baseline:nearest", "--benchmark", "gap", "--prompts", "nope", "--out", "x"])
    assert code == 2


def test_the_someone_else_prompt_makes_neither_an_answer():
    template = BENCHMARKS["gap"].prompt_set[-1]
    row = {"text": "Ann met Bo.", "pronoun": {"text": "she"}, "candidates": [{"text": "Ann"}, {"text": "Bo"}]}
    request = template.render(row)
    assert request.choices[-1] == "someone else" and request.candidate_of == (0, 1, None)
    assert json.dumps(template.identity) != json.dumps(BENCHMARKS["gap"].cloze.identity)
