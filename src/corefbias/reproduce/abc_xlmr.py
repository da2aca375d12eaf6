"""Rescore the published DaNLP XLM-R coreference predictions on the Danish ABC sentences.

``outputs/coref/xlm-r_coref_da.json`` of the DaDebias fork of the ABC repository holds one AllenNLP
prediction (whitespace tokens, clusters of inclusive token spans) per sentence of ABC's
``data/COREF_LM/coref_lm.da``, in file order: 4,560 triplets, 13,680 sentences.
``corefbias.benchmarks.abc.files`` reads the sentences (the pronoun's and the subject's character spans) and
gives each triplet its occupation's stereotype from ABC's Danish labour statistics; ten of the 60
occupations have no Danish figure and count in the overall rates only. (GenDa Lens's own
female/male lists were made for its own sentence files: they leave out a third of these
occupations and disagree with the Danish statistics on some, e.g. "lægen", "advokaten".)
"""

from __future__ import annotations

import json

from ..benchmarks.abc import files as abc_format
from ..data import upstream
from ..data.spans import token_clusters_to_char
from ..harness.cluster_links import link_decisions
from ..measures import abc_fpr_ratio

PREDICTIONS = ("abc_dadebias_fork", "outputs/coref/xlm-r_coref_da.json")
EXPECTED_PREDICTIONS = 13_680

# TPR and FPRs of these predictions as GenDa Lens's scorer counts them, at 3 decimals.
EXPECTED_ANY_CLUSTER = {"tpr_reflexive": 0.962, "fpr_male": 0.900, "fpr_female": 0.869}
# The report's decision modes: GenDa Lens's counting (any cluster at all) beside the strict reading.
MODES = ("cluster", "any_cluster")


def _predictions(mirror) -> list[dict]:
    with open(upstream.fetch(*PREDICTIONS, mirror), encoding="utf-8") as handle:
        predictions = json.load(handle)
    if len(predictions) != EXPECTED_PREDICTIONS:
        raise ValueError(f"expected {EXPECTED_PREDICTIONS} predictions, found {len(predictions)}")
    return predictions


def _char_span(span: dict) -> tuple[int, int]:
    return span["start"], span["end"]


def metric_inputs(mirror=None, mode: str = "any_cluster") -> dict:
    """Inputs of ``abc_fpr_ratio.fpr_ratio`` from the sentences and the published predictions, each triplet in its
    occupation's and its sentence frame's blocks, as the benchmark draws them."""
    triplets = list(abc_format.original_triplets(mirror))
    sentences = [
        (triplet_id, sentence, occupation["occupation_gender"])
        for triplet_id, (triplet, occupation) in enumerate(triplets)
        for sentence in triplet
    ]
    triplets = [triplet for triplet, _ in triplets]
    predictions = _predictions(mirror)
    if len(sentences) != len(predictions):
        raise ValueError(f"{len(sentences)} sentences but {len(predictions)} predictions")
    keys = ("predictions", "references", "pronoun_genders", "occupation_genders", "triplet_ids", "block_ids")
    inputs = {key: [] for key in keys}
    for index, ((triplet_id, sentence, occupation_gender), prediction) in enumerate(zip(sentences, predictions)):
        tokens = prediction["document"]
        # The token clusters index these tokens: a prediction for another sentence would score wrong spans.
        if tokens != sentence.text.split():
            raise ValueError(f"prediction {index} is for {' '.join(tokens)!r}, not for sentence {sentence.text!r}")
        clusters = token_clusters_to_char(prediction["clusters"], tokens, sentence.text)
        linked = link_decisions(_char_span(sentence.pronoun), [_char_span(sentence.subject)], clusters, mode)[0]
        inputs["predictions"].append(linked)
        inputs["references"].append(sentence.pronoun_type == "reflexive")
        inputs["pronoun_genders"].append(sentence.pronoun_gender)
        inputs["occupation_genders"].append(occupation_gender)
        inputs["triplet_ids"].append(str(triplet_id))
        inputs["block_ids"].append((sentence.subject["text"], abc_format.frame_of(triplets[triplet_id][0])))
    return inputs


def rescore(mirror=None, mode: str = "any_cluster", n_bootstrap: int = 1000, seed: int = 0) -> dict:
    """ABC scores of the XLM-R predictions, deciding "linked" by ``mode`` (see ``corefbias.harness.cluster_links``)."""
    return abc_fpr_ratio.abc_fpr_ratio(**metric_inputs(mirror, mode), n_bootstrap=n_bootstrap, seed=seed)


def report(mirror=None, n_bootstrap: int = 1000, seed: int = 0) -> str:
    """Both decision modes side by side with the expected any-cluster rates."""
    inputs = {mode: metric_inputs(mirror, mode) for mode in MODES}
    results = {mode: abc_fpr_ratio.abc_fpr_ratio(**inputs[mode], n_bootstrap=n_bootstrap, seed=seed) for mode in MODES}
    stereotyped = sum(gender is not None for gender in inputs["cluster"]["occupation_genders"]) // 3
    lines = [
        "ABC (Danish) coreference task: DaNLP XLM-R predictions published in DaDebias/ABC-dataset, rescored.",
        f"Bootstrap over occupations × sentence frames, drawn crossed ({n_bootstrap} resamples, seed {seed}). "
        "Occupation split by ABC's Danish share "
        f"of women (> 50 % female); {stereotyped} of {EXPECTED_PREDICTIONS // 3} triplets have a Danish figure.",
        "",
        "| score | expected (any_cluster, 3 dp) | " + " | ".join(MODES) + " |",
        "|---" * (2 + len(MODES)) + "|",
    ]
    for suffix in ("", "/female_occupations", "/male_occupations"):
        for score in ("tpr_reflexive", "fpr_male", "fpr_female", "fpr_ratio", "log2_fpr_ratio"):
            name = score + suffix
            expected = EXPECTED_ANY_CLUSTER.get(name)
            shown = "" if expected is None else f"{expected:.3f}"
            values = [f"{results[mode][name]:.4f}" for mode in MODES]
            lines.append(f"| {name} | {shown} | " + " | ".join(values) + " |")
    # GenDa Lens's own effect size: the two stereotype groups averaged, the unlabelled occupations left out.
    values = [f"{results[mode][abc_fpr_ratio.GENDA_LENS_GES]:.4f}" for mode in MODES]
    lines.append(f"| {abc_fpr_ratio.GENDA_LENS_GES} |  | " + " | ".join(values) + " |")
    matches = all(round(results["any_cluster"][name], 3) == value for name, value in EXPECTED_ANY_CLUSTER.items())
    linked = {mode: sum(inputs[mode]["predictions"]) for mode in MODES}
    lines += [
        "",
        f"any_cluster matches the expected TPR and FPRs at 3 decimals: {'yes' if matches else 'NO'}.",
        "log2_fpr_ratio p-value (two-sided vs 0) and 95% CI: "
        + "; ".join(
            f"{mode}: p = {results[mode]['log2_fpr_ratio_p_value']:.4f} "
            f"[{results[mode]['log2_fpr_ratio_ci_low']:.4f}, {results[mode]['log2_fpr_ratio_ci_high']:.4f}]"
            for mode in MODES
        ),
        "Linked sentences: "
        + ", ".join(f"{mode} {count}" for mode, count in linked.items())
        + " (any_cluster: GenDa Lens's test, the prediction has any cluster at all).",
    ]
    return "\n".join(lines)
