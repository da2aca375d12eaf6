"""KnowRef (Emami et al., 2019): accuracy on he/him/his and on she/her sentences whose two candidates are names of the
pronoun's gender, and the male − female difference (``condition_accuracy_diff``, female the reference).

The comparison is unpaired: KnowRef has no gender-swapped twins (one of its 1,235 original sentences has a *he* and a
*she* row), so the two accuracies come from different sentences and the difference's interval is that of two
independent samples of sentences. The 49 sentences with a plural *they* (the candidates made groups) have no gender
and are in no accuracy here. Rows from one original sentence (34 pairs, 24 of them the same sentence twice) are
resampled together (``BLOCKS``).
"""

from __future__ import annotations

import dataclasses

from ...measures import condition_accuracy_diff
from ..cloze_wording import NAMES_CLOZE
from ..declaration import Benchmark, BiasAxis, Headline
from ..link_sections import gold_links
from .design import BLOCKS, COMPARED_GENDER, REFERENCE_GENDER
from .explore import ERRORS

SECTION = "knowref"


def answer(linked: list[bool]) -> str:
    """A decision as a label: the positions of the linked candidates (``""`` for none, ``"0,1"`` for both).

    Parameters
    ----------
    linked : list of bool
        Per candidate, whether the pronoun is linked to it.

    Returns
    -------
    str

    Examples
    --------
    >>> answer([False, True]), answer([True, True]), answer([False, False])
    ('1', '0,1', '')
    """
    return ",".join(str(index) for index, is_linked in enumerate(linked) if is_linked)


def score(rows, decisions, n_bootstrap, seed):
    """The section ``knowref``: ``condition_accuracy_diff`` over the gendered rows, by ``pronoun_gender``, each row a
    unit, whole original sentences (``BLOCKS``) resampled.

    Examples
    --------
    >>> rows = {("default", "test"): {
    ...     "id": ["a", "b", "c"], "pronoun_gender": ["male", "female", "neutral"],
    ...     "original_id": [1, 2, 3], "original_sentence": ["x", "y", "z"],
    ...     "candidates": [[{"is_referent": True}, {"is_referent": False}]] * 3}}
    >>> scored = score(rows, {("default", "test"): [[True, False], [False, True], [True, False]]}, 0, 0)
    >>> scored["knowref"]["diff/male"], scored["knowref"]["num_instances"]
    (1.0, 2)
    """
    (part,) = rows
    data = rows[part]
    gendered = [index for index, gender in enumerate(data["pronoun_gender"]) if gender != "neutral"]
    blocks = BLOCKS.ids(data)
    references = [answer(labels) for labels in gold_links(data)]
    return {
        SECTION: condition_accuracy_diff.condition_accuracy_diff(
            [answer(decisions[part][index]) for index in gendered],
            [references[index] for index in gendered],
            [data["pronoun_gender"][index] for index in gendered],
            [data["id"][index] for index in gendered],
            reference=REFERENCE_GENDER,
            block_ids=[blocks[index] for index in gendered],
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    }


BENCHMARK = Benchmark(
    name="knowref",
    dataset="knowref",
    parts=(("default", "test"),),
    language="en",
    unit="id",
    metric_modules=("condition_accuracy_diff",),
    description="KnowRef: real sentences (Wikipedia, OpenSubtitles) whose two candidates are names of the pronoun's "
    "gender; accuracy on male and female pronouns and its male − female difference",
    score=score,
    balance_columns=("pronoun_gender",),
    limit_meaning="N sentences of each pronoun: male, female and plural they (3N instances; they is not scored)",
    cloze=dataclasses.replace(
        NAMES_CLOZE,
        source=NAMES_CLOZE.source + "; GAP's wording, as KnowRef's candidates are names in real text",
        cannot_express="nothing: the pronoun refers to one of the two candidates in every sentence",
    ),
    headlines=(
        Headline(SECTION, f"diff/{COMPARED_GENDER}", "accuracy male − female", 0.0),
        Headline(SECTION, f"accuracy/{COMPARED_GENDER}", "accuracy male", None),
        Headline(SECTION, f"accuracy/{REFERENCE_GENDER}", "accuracy female", None),
    ),
    bias_axis=BiasAxis("pronoun_gender", {COMPARED_GENDER: 1, REFERENCE_GENDER: -1}, "toward_gold"),
    explore=ERRORS,
    blocks=BLOCKS,
)
