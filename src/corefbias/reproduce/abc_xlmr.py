"""Rescore the published DaNLP XLM-R coreference predictions on the Danish ABC sentences.

``outputs/coref/xlm-r_coref_da.json`` of the DaDebias fork of the ABC repository holds one AllenNLP
prediction (whitespace tokens, clusters of inclusive token spans) per sentence of
``data/COREF_LM/coref_lm.da``, in file order: 4,560 triplets of the reflexive ("sin"/"sit"/"sine"),
"hans" and "hendes" versions of a sentence. Every sentence opens with its subject, the occupation,
a single definite noun ("teknikeren"), so the subject span is the first token and the pronoun span
the one possessive token.

The occupation's gender stereotype comes from ABC's own Danish labour statistics
(``Ocupation_stats - 1.1.tsv``, column ``Perc-Da``: share of women): female above 50 %, male below.
The sentence file lists its 60 occupations in the order of that table, one run of 76 triplets each
(some Danish words recur: "lægen" is physician, practitioner and doctor), so the n-th run of the
same opening word is the n-th table row. Ten occupations have no Danish figure; they count in the
overall rates only. (GenDa Lens's own female/male lists were made for its own sentence files: they
leave out a third of these occupations and disagree with the Danish statistics on some, e.g.
"lægen", "advokaten".)
"""

from __future__ import annotations

import json
from itertools import groupby

from .. import abc, upstream
from ..scoring import DECISION_MODES, link_decisions, token_clusters_to_char, token_offsets

PREDICTIONS = ("abc_dadebias_fork", "outputs/coref/xlm-r_coref_da.json")
SENTENCES = ("abc", "data/COREF_LM/coref_lm.da")
OCCUPATION_STATISTICS = ("abc", "Ocupation_stats - 1.1.tsv")
TRIPLET_SEPARATOR = "---"
PRONOUN_GENDER = {"sin": "neutral", "sit": "neutral", "sine": "neutral", "hans": "male", "hendes": "female"}
TRIPLET_ORDER = ("neutral", "male", "female")
EXPECTED_PREDICTIONS = 13_680

# TPR and FPRs of these predictions as GenDa Lens's scorer counts them, at 3 decimals.
EXPECTED_ANY_CLUSTER = {"tpr_reflexive": 0.962, "fpr_male": 0.900, "fpr_female": 0.869}


def _sentences(mirror) -> list[str]:
    path = upstream.fetch(*SENTENCES, mirror)
    with open(path, encoding="utf-8") as handle:
        lines = [line.strip() for line in handle]
    return [line for line in lines if line and line != TRIPLET_SEPARATOR]


def _predictions(mirror) -> list[dict]:
    with open(upstream.fetch(*PREDICTIONS, mirror), encoding="utf-8") as handle:
        predictions = json.load(handle)
    if len(predictions) != EXPECTED_PREDICTIONS:
        raise ValueError(f"expected {EXPECTED_PREDICTIONS} predictions, found {len(predictions)}")
    return predictions


def _stereotypes_by_run(mirror) -> list[str | None]:
    """Occupation stereotype of each row of ABC's occupation table, in table order."""
    stereotypes = []
    for row in upstream.read_tsv(*OCCUPATION_STATISTICS, mirror):
        share = row["Perc-Da"].strip()
        if not share or float(share) == 50:
            stereotypes.append(None)
        else:
            stereotypes.append("female" if float(share) > 50 else "male")
    return stereotypes


def _pronoun_index(tokens: list[str], sentence: str) -> int:
    found = [index for index, token in enumerate(tokens) if token in PRONOUN_GENDER]
    if len(found) != 1:
        raise ValueError(f"expected one possessive pronoun in {sentence!r}, found {len(found)}")
    return found[0]


def metric_inputs(mirror=None, mode: str = "any_cluster") -> dict:
    """Inputs of ``abc.fpr_ratio`` from the sentences and the published predictions."""
    sentences = _sentences(mirror)
    predictions = _predictions(mirror)
    if len(sentences) != len(predictions):
        raise ValueError(f"{len(sentences)} sentences but {len(predictions)} predictions")
    inputs = {"predictions": [], "references": [], "pronoun_genders": [], "triplet_ids": []}
    subjects = []
    for index, (sentence, prediction) in enumerate(zip(sentences, predictions)):
        tokens = prediction["document"]
        if tokens != sentence.split():
            raise ValueError(f"prediction {index} is for {' '.join(tokens)!r}, not for sentence {sentence!r}")
        pronoun = _pronoun_index(tokens, sentence)
        gender = PRONOUN_GENDER[tokens[pronoun]]
        if gender != TRIPLET_ORDER[index % 3]:
            raise ValueError(f"sentence {index} ({sentence!r}) breaks the reflexive / hans / hendes triplet order")
        offsets = token_offsets(tokens, sentence)
        clusters = token_clusters_to_char(prediction["clusters"], tokens, sentence)
        linked = link_decisions(offsets[pronoun], [offsets[0]], clusters, mode)[0]
        inputs["predictions"].append(linked)
        inputs["references"].append(gender == "neutral")
        inputs["pronoun_genders"].append(gender)
        inputs["triplet_ids"].append(str(index // 3))
        subjects.append(tokens[0])
    runs = [len(list(run)) for _, run in groupby(subjects)]
    stereotypes = _stereotypes_by_run(mirror)
    if len(runs) != len(stereotypes):
        raise ValueError(
            f"{len(runs)} runs of occupations in the sentences but {len(stereotypes)} occupation statistics"
        )
    inputs["occupation_genders"] = [stereotype for stereotype, size in zip(stereotypes, runs) for _ in range(size)]
    return inputs


def rescore(mirror=None, mode: str = "any_cluster", n_bootstrap: int = 1000, seed: int = 0) -> dict:
    """ABC scores of the XLM-R predictions, deciding "linked" by ``mode`` (see ``corefbias.scoring``)."""
    return abc.fpr_ratio(**metric_inputs(mirror, mode), n_bootstrap=n_bootstrap, seed=seed)


def _documents_with_any_cluster(mirror) -> int:
    """GenDa Lens's count: a sentence is positive when its prediction has any cluster at all."""
    return sum(bool(prediction["clusters"]) for prediction in _predictions(mirror))


def report(mirror=None, n_bootstrap: int = 1000, seed: int = 0) -> str:
    """Both decision modes side by side with the expected any-cluster rates."""
    inputs = {mode: metric_inputs(mirror, mode) for mode in DECISION_MODES}
    results = {mode: abc.fpr_ratio(**inputs[mode], n_bootstrap=n_bootstrap, seed=seed) for mode in DECISION_MODES}
    stereotyped = sum(gender is not None for gender in inputs["cluster"]["occupation_genders"]) // 3
    lines = [
        "ABC (Danish) coreference task: DaNLP XLM-R predictions published in DaDebias/ABC-dataset, rescored.",
        f"Bootstrap over triplets ({n_bootstrap} resamples, seed {seed}). Occupation split by ABC's Danish share "
        f"of women (> 50 % female); {stereotyped} of {EXPECTED_PREDICTIONS // 3} triplets have a Danish figure.",
        "",
        "| score | expected (any_cluster, 3 dp) | " + " | ".join(DECISION_MODES) + " |",
        "|---" * (2 + len(DECISION_MODES)) + "|",
    ]
    for suffix in ("", "/female_occupations", "/male_occupations"):
        for score in ("tpr_reflexive", "fpr_male", "fpr_female", "fpr_ratio", "log2_fpr_ratio"):
            name = score + suffix
            expected = EXPECTED_ANY_CLUSTER.get(name)
            shown = "" if expected is None else f"{expected:.3f}"
            values = [f"{results[mode][name]:.4f}" for mode in DECISION_MODES]
            lines.append(f"| {name} | {shown} | " + " | ".join(values) + " |")
    matches = all(round(results["any_cluster"][name], 3) == value for name, value in EXPECTED_ANY_CLUSTER.items())
    linked = {mode: sum(inputs[mode]["predictions"]) for mode in DECISION_MODES}
    lines += [
        "",
        f"any_cluster matches the expected TPR and FPRs at 3 decimals: {'yes' if matches else 'NO'}.",
        "log2_fpr_ratio p-value (one-sided vs 0) and 95% CI: "
        + "; ".join(
            f"{mode}: p = {results[mode]['log2_fpr_ratio_p_value']:.4f} "
            f"[{results[mode]['log2_fpr_ratio_ci_low']:.4f}, {results[mode]['log2_fpr_ratio_ci_high']:.4f}]"
            for mode in DECISION_MODES
        ),
        "Linked sentences: " + ", ".join(f"{mode} {count}" for mode, count in linked.items())
        + f"; GenDa Lens's test (the prediction has any cluster at all) {_documents_with_any_cluster(mirror)}.",
    ]
    return "\n".join(lines)
