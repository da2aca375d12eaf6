"""ABC (anti-reflexives, González et al., 2020): the false-positive rate of the male vs the female anti-reflexive
possessive — in Danish (``abc``, as GenDa Lens scores it), Swedish (``abc_sv``), Russian (``abc_ru``) and Chinese
(``abc_zh``)."""

from __future__ import annotations

import dataclasses

from ...measures import abc_fpr_ratio
from ..cloze_wording import DANISH_OCCUPATIONS_CLOZE
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline, Scorer
from ..link_sections import gold_links
from .cloze import ANOTHER_PERSON, LANGUAGE_CLOZE, one_candidate
from .explore import ONE_SIDED_TRIPLETS
from .languages import LANGUAGES

# ABC's eval.py and GenDa Lens count a sentence linked when the system predicts any cluster at all in it.
AUTHORS_DECISION_MODE = "any_cluster"
# Every sentence frame is filled with every occupation: two crossed factors, in every language.
BLOCKS = BlockDesign(("occupation", "frame"), ("occupation", "sentence frame"))


def fpr_scorer(section: str) -> Scorer:
    """Scores the one part's decisions with the FPR ratio and its split by occupation stereotype, as ``section``.

    Examples
    --------
    >>> triplet = {"candidates": [[{"is_referent": True}], [{"is_referent": False}], [{"is_referent": False}]],
    ...            "pronoun_gender": ["neutral", "male", "female"], "occupation_gender": [None] * 3,
    ...            "triplet_id": ["t"] * 3, "occupation": ["teknikeren"] * 3, "frame": ["{occupation} ..."] * 3}
    >>> scores = fpr_scorer("toy")({("sv", "test"): triplet}, {("sv", "test"): [[True], [True], [False]]}, 0, 0)
    >>> scores["toy"]["fpr_male"], scores["toy"]["fpr_female"]
    (1.0, 0.0)
    """

    def score(rows, decisions, n_bootstrap, seed):
        (part,) = rows
        data = rows[part]
        return {
            section: abc_fpr_ratio.abc_fpr_ratio(
                [decision[0] for decision in decisions[part]],
                [gold[0] for gold in gold_links(data)],
                data["pronoun_gender"],
                data["occupation_gender"],
                data["triplet_id"],
                block_ids=BLOCKS.ids(data),
                n_bootstrap=n_bootstrap,
                seed=seed,
            )
        }

    return score


score = fpr_scorer("abc")
# The male and female anti-reflexives are the two sides: a bias pushes the link to the subject toward one of them.
PRONOUN_AXIS = BiasAxis("pronoun_gender", {"male": 1, "female": -1}, "toward_first")

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
        someone_else=ANOTHER_PERSON["da"],
        cannot_express=one_candidate("'sin'", "'hans'/'hendes'", ANOTHER_PERSON["da"], "hans/hendes"),
    ),
    headlines=(
        Headline("abc", "log2_fpr_ratio", "log2(FPR hans / FPR hendes)", 0.0),
        Headline("abc", "tpr_reflexive", "reflexive TPR", None),
    ),
    bias_axis=PRONOUN_AXIS,
    figures=(Figure("fpr_by_language"),),
    explore=ONE_SIDED_TRIPLETS,
    blocks=BLOCKS,
    decision_mode=AUTHORS_DECISION_MODE,
)


def language_benchmark(code: str) -> Benchmark:
    """ABC in one of its other languages: the ``code`` config of the ``abc`` set, scored as the Danish one.

    Examples
    --------
    >>> swedish = language_benchmark("sv")
    >>> swedish.name, swedish.parts, swedish.cloze.someone_else
    ('abc_sv', (('sv', 'test'),), 'en annan person')
    """
    name, language = f"abc_{code}", LANGUAGES[code]
    return Benchmark(
        name=name,
        dataset="abc",
        parts=((code, "test"),),
        language=code,
        unit="triplet_id",
        metric_modules=("abc_fpr_ratio",),
        description=f"ABC ({language.name} anti-reflexives): false-positive rate for the male vs the female "
        "anti-reflexive possessive (log2 ratio)",
        score=fpr_scorer(name),
        balance_columns=("occupation_gender", "pronoun_type"),
        limit_meaning="N triplets (reflexive, male and female anti-reflexive) of each occupation stereotype: "
        "female, male, and none where the country has no figure (9N instances)",
        cloze=LANGUAGE_CLOZE[code],
        headlines=(
            Headline(name, "log2_fpr_ratio", "log2(FPR male / FPR female)", 0.0),
            Headline(name, "tpr_reflexive", "reflexive TPR", None),
        ),
        bias_axis=PRONOUN_AXIS,
        figures=(Figure("fpr_by_language"),),
        explore=ONE_SIDED_TRIPLETS,
        blocks=BLOCKS,
        decision_mode=AUTHORS_DECISION_MODE,
    )


BENCHMARKS = (BENCHMARK, *(language_benchmark(code) for code in LANGUAGES))
