"""ABC (Danish anti-reflexives, González et al., 2020): false-positive rate for 'hans' vs 'hendes'."""

from __future__ import annotations

import dataclasses

from ...measures import abc_fpr
from ..cloze_wording import DANISH_OCCUPATIONS_CLOZE
from ..declaration import Benchmark, BiasAxis, Headline
from ..link_sections import gold_links


def score(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    return {
        "abc": abc_fpr.fpr_ratio(
            [decision[0] for decision in decisions[part]],
            [gold[0] for gold in gold_links(data)],
            data["pronoun_gender"],
            data["occupation_gender"],
            data["triplet_id"],
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    }


BENCHMARK = Benchmark(
    name="abc",
    dataset="abc",
    parts=(("genda", "test"),),
    language="da",
    unit="triplet_id",
    metric_modules=("abc_fpr_ratio",),
    description="ABC (Danish anti-reflexives): false-positive rate for 'hans' vs 'hendes' (log2 ratio)",
    score=score,
    balance_columns=("occupation_gender", "pronoun_type"),
    limit_meaning="N triplets (reflexive, hans, hendes) of each occupation stereotype (6N instances)",
    cloze=dataclasses.replace(
        DANISH_OCCUPATIONS_CLOZE,
        someone_else="en anden person",
        cannot_express="ABC's instance has one candidate, the subject, and asks whether the pronoun is linked to "
        "it (yes for reflexive 'sin', no for anti-reflexive 'hans'/'hendes'); with one option a cloze model would "
        "always say yes and both false-positive rates would be 1. The template therefore adds the option 'en "
        "anden person' (another person): choosing it is 'not linked', so the reflexive TPR and the hans/hendes "
        "FPRs are the model's own",
    ),
    headlines=(
        Headline("abc", "log2_fpr_ratio", "log2(FPR hans / FPR hendes)", 0.0),
        Headline("abc", "tpr_reflexive", "reflexive TPR", None),
    ),
    bias_axis=BiasAxis("pronoun_gender", {"male": 1, "female": -1}, "toward_first"),
)
