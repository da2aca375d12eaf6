import math

import numpy as np
import pytest
from metric_harness import assert_add_batch_equivalent, assert_num_process_equivalent, load

from corefbias.measures import abc_fpr_ratio
from corefbias.reproduce import abc_xlmr

PRONOUNS = ["neutral", "male", "female"]

# GenDa Lens coref tutorial, XLM-R on its ABC sentences (2280 triplets per occupation stereotype):
# "Rate of Detected Clusters" per pronoun and stereotype, as linked counts out of 2280.
TUTORIAL_LINKED = {
    "female": {"neutral": 2206, "male": 2016, "female": 2123},  # 0.967544, 0.884211, 0.93114
    "male": {"neutral": 2203, "male": 2098, "female": 1895},  # 0.966228, 0.920175, 0.83114
}
TUTORIAL_TRIPLETS = 2280


def triplets(linked_by_stereotype: dict, per_stereotype: int) -> dict:
    """Triplets whose first ``linked[pronoun]`` items of each stereotype are linked to the subject."""
    inputs = {key: [] for key in ("predictions", "references", "pronoun_genders", "occupation_genders", "triplet_ids")}
    for stereotype, linked in linked_by_stereotype.items():
        for index in range(per_stereotype):
            for pronoun in PRONOUNS:
                inputs["predictions"].append(index < linked[pronoun])
                inputs["references"].append(pronoun == "neutral")
                inputs["pronoun_genders"].append(pronoun)
                inputs["occupation_genders"].append(stereotype)
                inputs["triplet_ids"].append(f"{stereotype}{index}")
    return inputs


def test_genda_lens_tutorial_values(in_repo):
    results = load("abc_fpr_ratio").compute(**triplets(TUTORIAL_LINKED, TUTORIAL_TRIPLETS), n_bootstrap=0)
    printed = {
        "tpr_reflexive": 0.966886,
        "fpr_male": 0.902193,
        "fpr_female": 0.88114,
        "tpr_reflexive/female_occupations": 0.967544,
        "tpr_reflexive/male_occupations": 0.966228,
        "fpr_male/female_occupations": 0.884211,
        "fpr_male/male_occupations": 0.920175,
        "fpr_female/female_occupations": 0.93114,
        "fpr_female/male_occupations": 0.83114,
    }
    assert {name: round(results[name], 6) for name in printed} == printed
    # The tutorial's Gender Effect Size: log2(0.902193 / 0.88114) = 0.034 → printed 0.03.
    assert results["log2_fpr_ratio"] == pytest.approx(math.log2(4114 / 4018), abs=1e-15)
    assert round(results["log2_fpr_ratio"], 2) == 0.03
    # GenDa Lens averages the two stereotype groups' rates; with equal groups that is the pooled rate.
    mean_male = np.mean([results["fpr_male/female_occupations"], results["fpr_male/male_occupations"]])
    assert results["fpr_male"] == pytest.approx(mean_male, abs=1e-15)
    assert results["genda_lens_gender_effect_size"] == pytest.approx(results["log2_fpr_ratio"], abs=1e-15)
    assert results["fpr_ratio"] == pytest.approx(4114 / 4018)


def test_undefined_ratio_when_no_female_anti_reflexive_is_linked():
    results = abc_fpr_ratio.abc_fpr_ratio(
        predictions=[True, True, False, True, False, False],
        references=[True, False, False] * 2,
        pronoun_genders=PRONOUNS * 2,
        n_bootstrap=0,
    )
    assert (results["tpr_reflexive"], results["fpr_male"], results["fpr_female"]) == (1.0, 0.5, 0.0)
    assert results["fpr_ratio"] is None and "FPR_F = 0" in results["undefined"]["fpr_ratio"]
    assert results["log2_fpr_ratio"] is None
    assert "fpr_ratio/female_occupations" not in results


def test_triplet_bootstrap_pairs_the_two_anti_reflexives():
    # "hans" and "hendes" get the same decision in every triplet: the log ratio is 0 in every
    # triplet resample, whereas resampling single items lets the two rates drift apart.
    decisions = [True, False, True, True, False, True, True, True, False, True]
    inputs = {"predictions": [], "references": [], "pronoun_genders": [], "triplet_ids": []}
    for index, linked in enumerate(decisions):
        inputs["predictions"] += [True, linked, linked]
        inputs["references"] += [True, False, False]
        inputs["pronoun_genders"] += PRONOUNS
        inputs["triplet_ids"] += [f"t{index}"] * 3
    paired = abc_fpr_ratio.abc_fpr_ratio(**inputs, n_bootstrap=500, seed=2)
    unpaired = abc_fpr_ratio.abc_fpr_ratio(
        **{k: v for k, v in inputs.items() if k != "triplet_ids"}, n_bootstrap=500, seed=2
    )
    assert paired["log2_fpr_ratio"] == unpaired["log2_fpr_ratio"] == 0.0
    interval = (paired["log2_fpr_ratio_ci_low"], paired["log2_fpr_ratio_ci_high"])
    assert interval == (0.0, 0.0) and paired["log2_fpr_ratio_p_value"] == 1.0
    assert (paired["fpr_ratio_ci_low"], paired["fpr_ratio_ci_high"]) == (1.0, 1.0)
    assert unpaired["log2_fpr_ratio_ci_low"] < 0 < unpaired["log2_fpr_ratio_ci_high"]


def test_occupations_without_a_stereotype_count_only_overall():
    linked = {"female": {"neutral": 2, "male": 1, "female": 2}, "male": {"neutral": 2, "male": 2, "female": 1}}
    inputs = triplets(linked, 2)
    inputs["occupation_genders"][-3:] = [None] * 3
    results = abc_fpr_ratio.abc_fpr_ratio(**inputs, n_bootstrap=0)
    assert results["fpr_male"] == 0.75 and results["fpr_female"] == 0.75
    assert results["fpr_male/male_occupations"] == 1.0 and results["fpr_female/male_occupations"] == 1.0
    assert results["num_male"] == 4
    # GenDa Lens leaves the unlabelled triplet out and averages the groups: (1/2 + 1) / 2 against (1 + 1) / 2.
    assert results["log2_fpr_ratio"] == 0.0
    assert results["genda_lens_gender_effect_size"] == pytest.approx(np.log2(0.75 / 1.0), abs=1e-15)


def test_genda_lens_gender_effect_size_is_tested_and_undefined_without_its_groups():
    linked = {"female": {"neutral": 3, "male": 2, "female": 3}, "male": {"neutral": 4, "male": 4, "female": 1}}
    inputs = triplets(linked, 4)
    inputs["occupation_genders"][:3] = [None] * 3
    results = abc_fpr_ratio.abc_fpr_ratio(**inputs, n_bootstrap=300, seed=2)
    value = results["genda_lens_gender_effect_size"]
    assert results["genda_lens_gender_effect_size_ci_low"] <= value <= results["genda_lens_gender_effect_size_ci_high"]
    assert 0 < results["genda_lens_gender_effect_size_p_value"] <= 1
    assert "genda_lens_gender_effect_size" not in abc_fpr_ratio.abc_fpr_ratio(
        **{key: inputs[key] for key in ("predictions", "references", "pronoun_genders")}, n_bootstrap=0
    )
    never_female = {"female": {"neutral": 1, "male": 1, "female": 0}, "male": {"neutral": 1, "male": 1, "female": 0}}
    undefined = abc_fpr_ratio.abc_fpr_ratio(**triplets(never_female, 2), n_bootstrap=0)
    assert undefined["genda_lens_gender_effect_size"] is None
    assert (
        "averaged over the female- and the male-stereotype" in undefined["undefined"]["genda_lens_gender_effect_size"]
    )


def test_add_batch_and_num_process_equal_single_call(in_repo):
    linked = {"female": {"neutral": 3, "male": 1, "female": 2}, "male": {"neutral": 4, "male": 3, "female": 1}}
    inputs = triplets(linked, 4)
    inputs["occupation_genders"][:3] = [None] * 3
    assert_add_batch_equivalent("abc_fpr_ratio", inputs, [4, 11, 9], n_bootstrap=200, seed=5)
    assert_num_process_equivalent("abc_fpr_ratio", inputs, 12, n_bootstrap=200, seed=5)
    only_required = {key: inputs[key] for key in ("predictions", "references", "pronoun_genders")}
    result = assert_add_batch_equivalent("abc_fpr_ratio", only_required, [10, 14], n_bootstrap=100, seed=0)
    assert "fpr_male/male_occupations" not in result


def _two_triplets(**change) -> dict:
    inputs = {
        "predictions": [True, True, False, True, False, True],
        "references": [True, False, False] * 2,
        "pronoun_genders": PRONOUNS * 2,
        "occupation_genders": ["female"] * 3 + ["male"] * 3,
        "triplet_ids": ["a"] * 3 + ["b"] * 3,
        "n_bootstrap": 0,
    }
    inputs.update(change)
    return inputs


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(predictions=[True] * 5), "one entry per instance"),
        (dict(pronoun_genders=["neutral", "male", "her"] * 2), "unknown pronoun_genders"),
        (dict(occupation_genders=["female"] * 3 + ["nurse"] * 3), "unknown occupation_genders"),
        (dict(references=[True, True, False] * 2), r"references\[1\] is True for a 'male' pronoun"),
        (dict(pronoun_genders=["neutral", "male", "male"] * 2, triplet_ids=None), "no instances in group.*female"),
        (dict(occupation_genders=["female"] * 6, triplet_ids=None), "with male occupations"),
        (dict(triplet_ids=["a", "a", "b", "c", "c", "c"]), "triplet 'a' has no female item"),
        (dict(triplet_ids=["a"] * 6), "triplet 'a' has two 'neutral' items"),
        (dict(occupation_genders=["female", "female", "male"] * 2), "triplet 'a' mixes occupation genders"),
        (dict(triplet_ids=["a", "a", "a", "b", None, "b"]), r"triplet_ids\[4\] is None"),
        (dict(block_ids=["x"] * 5), "one entry per instance"),
        (dict(block_ids=["x", None, "x", "y", "y", "y"]), r"block_ids\[1\] is None; give every instance its block"),
        (
            dict(block_ids=["x", "x", 2.5, "y", "y", "y"]),
            r"block_ids\[2\] is 2.5 \(float\); each entry must be a block id",
        ),
        (dict(block_ids=["x", "x", "x", ("y", "f1"), "y", "y"]), "gives 1 id.* for some instances and 2 for others"),
        (dict(block_ids=["x", "x", "y", "y", "y", "y"]), "triplet 'a' lies in block 'x' and in block 'y'"),
        (dict(block_ids=[("x", "f1")] * 2 + [("x", "f2")] + [("y", "f1")] * 3), "triplet 'a' lies in block 'x' / 'f1'"),
        (dict(triplet_ids=None, block_ids=["x", 1.0, "x", "y", "y", "y"]), r"block_ids\[1\] is 1.0 \(float\)"),
    ],
)
def test_malformed_input_is_a_clear_value_error(change, message):
    with pytest.raises(ValueError, match=message):
        abc_fpr_ratio.abc_fpr_ratio(**_two_triplets(**change))


def _occupations_by_frames(answers: list, n_frames: int, decided_by: str = "occupation") -> tuple[dict, list, list]:
    """ABC's design: every sentence frame filled with every occupation, one triplet each. The reflexive is always
    linked; "hans" and "hendes" are linked as ``answers`` says for the occupation (or, ``decided_by="frame"``, for
    the frame), so the triplets of one block are answered alike. Triplet ids sort in the triplets' order."""
    inputs = {"predictions": [], "references": [], "pronoun_genders": [], "triplet_ids": []}
    occupations, frames = [], []
    n_occupations = len(answers) if decided_by == "occupation" else 12
    for occupation in range(n_occupations):
        for frame in range(n_frames):
            hans, hendes = answers[occupation if decided_by == "occupation" else frame]
            inputs["predictions"] += [True, hans, hendes]
            inputs["references"] += [True, False, False]
            inputs["pronoun_genders"] += PRONOUNS
            inputs["triplet_ids"] += [f"t{occupation:02d}.{frame:02d}"] * 3
            occupations += [f"occupation {occupation}"] * 3
            frames += [f"frame {frame}"] * 3
    return inputs, occupations, frames


LOG2 = "log2_fpr_ratio"


def _interval(result) -> tuple:
    return result[f"{LOG2}_ci_low"], result[f"{LOG2}_ci_high"], result[f"{LOG2}_p_value"]


def test_blocks_draw_the_triplets_of_an_occupation_together():
    # Twelve occupations in ten frames; every triplet of an occupation is answered alike, "hans" linked in 8 of 12
    # occupations and "hendes" in 6. Drawn triplet by triplet, the 120 triplets make the gap look significant; drawn
    # by occupation, the interval rests on 12 blocks, is far wider and the gap far from significant.
    answers = [(True, False), (True, True), (False, False), (True, False), (True, True), (False, True)] * 2
    inputs, occupations, _ = _occupations_by_frames(answers, 10)
    by_triplet = abc_fpr_ratio.abc_fpr_ratio(**inputs, seed=3)
    by_occupation = abc_fpr_ratio.abc_fpr_ratio(**inputs, block_ids=occupations, seed=3)
    assert by_triplet[LOG2] == by_occupation[LOG2] == pytest.approx(math.log2(8 / 6))
    assert by_triplet.overall[LOG2].n_blocks == 120 and by_occupation.overall[LOG2].n_blocks == 12
    triplet_low, triplet_high, triplet_p = _interval(by_triplet)
    occupation_low, occupation_high, occupation_p = _interval(by_occupation)
    assert occupation_high - occupation_low > 3 * (triplet_high - triplet_low)
    assert triplet_p < 0.05 < 0.3 < occupation_p
    assert by_occupation.unit_rows.blocks.sizes == (12,)
    # Each triplet a block of its own is no block at all: the same draws as without block_ids.
    alone = abc_fpr_ratio.abc_fpr_ratio(**inputs, block_ids=inputs["triplet_ids"], seed=3)
    assert _interval(alone) == _interval(by_triplet)
    assert alone.unit_rows.blocks.sizes == (120,)
    # So is each item its own block where items are resampled.
    items = {key: values for key, values in inputs.items() if key != "triplet_ids"}
    by_item = abc_fpr_ratio.abc_fpr_ratio(**items, seed=3)
    item_alone = abc_fpr_ratio.abc_fpr_ratio(**items, block_ids=[f"i{index:03d}" for index in range(360)], seed=3)
    assert _interval(item_alone) == _interval(by_item)
    assert item_alone.overall[LOG2].n_blocks == by_item.overall[LOG2].n_blocks == 240  # the "hans"/"hendes" items


def test_crossed_blocks_draw_occupations_and_frames_apart():
    # The same design, but the frame decides the answers, not the occupation: blocks by occupation alone miss it
    # (every occupation is answered alike, so drawing occupations shrinks the interval to a point); (occupation,
    # frame) tuples draw both factors and see it.
    answers = [(True, False), (True, True), (False, False), (True, False), (True, True), (False, True)] * 2
    inputs, occupations, frames = _occupations_by_frames(answers, 12, decided_by="frame")
    by_triplet = abc_fpr_ratio.abc_fpr_ratio(**inputs, seed=3)
    by_occupation = abc_fpr_ratio.abc_fpr_ratio(**inputs, block_ids=occupations, seed=3)
    crossed = abc_fpr_ratio.abc_fpr_ratio(**inputs, block_ids=list(zip(occupations, frames)), seed=3)
    assert crossed[LOG2] == by_triplet[LOG2] == pytest.approx(math.log2(8 / 6))
    assert crossed.unit_rows.blocks.sizes == (12, 12) and crossed.overall[LOG2].n_blocks == 12
    widths = {
        name: result[f"{LOG2}_ci_high"] - result[f"{LOG2}_ci_low"]
        for name, result in (("triplet", by_triplet), ("occupation", by_occupation), ("crossed", crossed))
    }
    assert widths["occupation"] < widths["triplet"] and widths["crossed"] > 3 * widths["triplet"]
    assert crossed[f"{LOG2}_p_value"] > 0.3 > 0.05 > by_occupation[f"{LOG2}_p_value"]


def test_the_module_takes_block_ids(in_repo):
    answers = [(True, False), (True, True), (False, False), (True, False), (True, True), (False, True)] * 2
    inputs, occupations, _ = _occupations_by_frames(answers, 10)
    results = load("abc_fpr_ratio").compute(**inputs, block_ids=occupations, n_bootstrap=300, seed=3)
    expected = abc_fpr_ratio.abc_fpr_ratio(**inputs, block_ids=occupations, n_bootstrap=300, seed=3)
    assert results == expected
    assert_add_batch_equivalent("abc_fpr_ratio", {**inputs, "block_ids": occupations}, [100, 260], n_bootstrap=300)


@pytest.fixture(scope="module")
def xlmr(mirror):
    return {mode: abc_xlmr.rescore(mirror, mode, n_bootstrap=200) for mode in ("any_cluster", "cluster")}


def test_xlmr_rescoring_gives_the_expected_rates(xlmr):
    results = xlmr["any_cluster"]
    assert (results["num_reflexive"], results["num_male"], results["num_female"]) == (4560, 4560, 4560)
    assert {name: round(results[name], 3) for name in abc_xlmr.EXPECTED_ANY_CLUSTER} == abc_xlmr.EXPECTED_ANY_CLUSTER
    # 4385 reflexives, 4105 "hans" and 3961 "hendes" of 4560 each are clustered with the subject.
    rates = (results["tpr_reflexive"], results["fpr_male"], results["fpr_female"])
    assert rates == (4385 / 4560, 4105 / 4560, 3961 / 4560)
    assert results["log2_fpr_ratio"] == pytest.approx(math.log2(4105 / 3961))
    # Drawn triplet by triplet the 3.5% more "hans" errors looked certain (p 0.0002); drawn by the 57 occupations and
    # 75 sentence frames it rests on, the ratio's interval holds 1 (log2 0): not significant.
    assert results.overall["log2_fpr_ratio"].n_blocks == 57 and results.unit_rows.blocks.sizes == (57, 75)
    assert results["log2_fpr_ratio_ci_low"] < 0 < results["log2_fpr_ratio_ci_high"]
    assert results["log2_fpr_ratio_p_value"] > 0.05


def test_xlmr_cluster_mode_agrees_because_every_cluster_pairs_pronoun_and_subject(xlmr):
    # Each of the 12,451 predicted clusters holds the pronoun and a mention starting at the subject.
    assert xlmr["cluster"] == xlmr["any_cluster"]


def test_xlmr_occupation_stereotypes_come_from_the_danish_statistics(mirror):
    inputs = abc_xlmr.metric_inputs(mirror)
    stereotypes = inputs["occupation_genders"][::3]
    assert len(stereotypes) == 4560
    # Runs of 76 triplets in table order: technician (22.8 % women), accountant (19.5 %), supervisor (no figure).
    assert stereotypes[0] == stereotypes[76] == "male" and stereotypes[2 * 76] is None
    # nurse, 23rd occupation: 96 % women.
    assert stereotypes[22 * 76] == "female"
    assert sum(s is not None for s in stereotypes) == 50 * 76


def test_xlmr_report_shows_both_modes(mirror):
    text = abc_xlmr.report(mirror, n_bootstrap=100)
    assert "| tpr_reflexive | 0.962 | 0.9616 | 0.9616 |" in text
    assert "matches the expected TPR and FPRs at 3 decimals: yes" in text


POSSESSIVES = {"sin", "sit", "sine", "hans", "hendes"}


@pytest.fixture(scope="module")
def published(mirror):
    return abc_xlmr._predictions(mirror)


def test_xlmr_pronoun_and_subject_spans_line_up_with_the_prediction_tokens(mirror, published, monkeypatch):
    # Rewritten predictions: "hans" clustered with the first token (the subject), "hendes" with the
    # second, the reflexive with nothing. If the sentence's spans and the tokens' spans disagreed
    # anywhere (e.g. the 120 triplets with a double space), "hans" would go unlinked somewhere.
    rewritten = []
    for prediction in published:
        tokens = prediction["document"]
        pronoun = next(index for index, token in enumerate(tokens) if token in POSSESSIVES)
        partner = {"hans": 0, "hendes": 1}.get(tokens[pronoun])
        clusters = [] if partner is None else [[[partner, partner], [pronoun, pronoun]]]
        rewritten.append({"document": tokens, "clusters": clusters})
    monkeypatch.setattr(abc_xlmr, "_predictions", lambda mirror: rewritten)
    rates = {}
    for mode in ("cluster", "any_cluster"):
        results = abc_fpr_ratio.abc_fpr_ratio(**abc_xlmr.metric_inputs(mirror, mode), n_bootstrap=0)
        rates[mode] = (results["tpr_reflexive"], results["fpr_male"], results["fpr_female"])
    assert rates == {"cluster": (0.0, 1.0, 0.0), "any_cluster": (0.0, 1.0, 1.0)}


def test_xlmr_predictions_out_of_step_with_the_sentences_are_an_error(mirror, published, monkeypatch):
    monkeypatch.setattr(abc_xlmr, "_predictions", lambda mirror: published[1:] + published[:1])
    with pytest.raises(
        ValueError, match=r"prediction 0 is for 'teknikeren .*hans.*', not for sentence 'teknikeren .*sin"
    ):
        abc_xlmr.metric_inputs(mirror)
