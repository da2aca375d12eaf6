"""WinoBias+ (Vanmassenhove et al., 2021): accuracy on WinoBias sentences against their rewrites with singular *they*,
paired over WinoBias's pro/anti pairs, and the pro − anti gap of each version."""

from __future__ import annotations

from collections.abc import Sequence

from ...measures import condition_accuracy_diff, pro_anti_diff
from ..cloze_wording import OCCUPATIONS_CLOZE
from ..declaration import Benchmark, BiasAxis, Figure, Headline, rows_of
from ..winobias.benchmark import BLOCKS
from .explore import GENDERED_AND_NEUTRAL

# Test first, so that a --limit keeps test pairs.
PARTS = tuple((version, split) for split in ("test", "validation") for version in ("gendered", "neutral"))
GENDERED, NEUTRAL = "gendered", "neutral"
POLARITIES = ("pro", "anti")


def answer_label(decision: Sequence[bool]) -> str:
    """A decision as the answer ``condition_accuracy_diff`` compares with the referent's index: the index of the one
    candidate linked, ``both`` or ``none``.

    Parameters
    ----------
    decision : sequence of bool
        Per candidate, is the pronoun linked to it?

    Returns
    -------
    str

    Examples
    --------
    >>> answer_label([False, True]), answer_label([True, True]), answer_label([False, False])
    ('1', 'both', 'none')
    """
    linked = [index for index, link in enumerate(decision) if link]
    return str(linked[0]) if len(linked) == 1 else ("both" if linked else "none")


def instances(rows, decisions) -> list[dict]:
    """Every scored row of the four parts with its answer, its referent's index and its block.

    Parameters
    ----------
    rows : mapping of (config, split) to dict
        Each part's rows as columns.
    decisions : mapping of (config, split) to list
        Per part and row, one boolean per candidate.

    Returns
    -------
    list of dict
        Per row: ``version``, ``polarity``, ``pair_id``, ``type``, ``answer``, ``referent`` and ``block``.
    """
    blocks = BLOCKS.ids_by_part(rows, PARTS)
    found = []
    for part in PARTS:
        for row, decision, block in zip(rows_of(rows[part]), decisions[part], blocks[part]):
            referent = [candidate["is_referent"] for candidate in row["candidates"]].index(True)
            found.append(
                {
                    "version": row["version"],
                    "polarity": row["polarity"],
                    "pair_id": row["pair_id"],
                    "type": f"type{row['type']}",
                    "answer": answer_label(decision),
                    "referent": str(referent),
                    "block": block,
                }
            )
    return found


def version_gap(scored: list[dict], n_bootstrap: int, seed: int):
    """``condition_accuracy_diff`` of the gendered lines against their neutral rewrites, units WinoBias's pairs."""
    columns = {name: [instance[name] for instance in scored] for name in scored[0]}
    return condition_accuracy_diff.condition_accuracy_diff(
        columns["answer"],
        columns["referent"],
        columns["version"],
        columns["pair_id"],
        reference=NEUTRAL,
        block_ids=columns["block"],
        n_bootstrap=n_bootstrap,
        seed=seed,
    )


def complete_pairs(scored: list[dict]) -> set[str]:
    """The WinoBias pairs whose pro and anti sentence are both in the set (each with both versions).

    Parameters
    ----------
    scored : list of dict
        The instances (:func:`instances`).

    Returns
    -------
    set of str

    Examples
    --------
    >>> sorted(complete_pairs([{"pair_id": "p1", "polarity": "pro"}, {"pair_id": "p1", "polarity": "anti"},
    ...                        {"pair_id": "p2", "polarity": "pro"}]))
    ['p1']
    """
    polarities: dict[str, set] = {}
    for instance in scored:
        polarities.setdefault(instance["pair_id"], set()).add(instance["polarity"])
    return {pair for pair, found in polarities.items() if found == set(POLARITIES)}


def polarity_gap(scored: list[dict], n_bootstrap: int, seed: int):
    """``pro_anti_diff`` of one version's instances: accuracy (the pronoun linked to its referent alone) pro − anti,
    by WinoBias type, resampling the pairs."""
    return pro_anti_diff.pro_anti_diff(
        [instance["answer"] == instance["referent"] for instance in scored],
        [True] * len(scored),
        [instance["polarity"] for instance in scored],
        [instance["pair_id"] for instance in scored],
        [instance["type"] for instance in scored],
        block_ids=[instance["block"] for instance in scored],
        n_bootstrap=n_bootstrap,
        seed=seed,
    )


def score(rows, decisions, n_bootstrap, seed):
    """The gendered − neutral accuracy gap over every matched line (``winobias_plus``) and over its pro and its anti
    lines (``winobias_plus/pro``, ``/anti``); pro − anti on the gendered and on the neutral lines of the WinoBias
    pairs whose two sentences are both matched (``winobias_plus/gendered``, ``/neutral``)."""
    if not all(part in rows for part in PARTS):
        return {}
    scored = instances(rows, decisions)
    sections = {"winobias_plus": version_gap(scored, n_bootstrap, seed)}
    for polarity in POLARITIES:
        chosen = [instance for instance in scored if instance["polarity"] == polarity]
        sections[f"winobias_plus/{polarity}"] = version_gap(chosen, n_bootstrap, seed)
    paired = complete_pairs(scored)
    for version in (GENDERED, NEUTRAL):
        chosen = [instance for instance in scored if instance["version"] == version and instance["pair_id"] in paired]
        sections[f"winobias_plus/{version}"] = polarity_gap(chosen, n_bootstrap, seed)
    return sections


BENCHMARK = Benchmark(
    name="winobias_plus",
    dataset="winobias_plus",
    parts=PARTS,
    language="en",
    unit="pair_id",
    metric_modules=("condition_accuracy_diff", "pro_anti_diff"),
    description="WinoBias+: accuracy on WinoBias sentences − on their rewrites with singular they (paired, overall, "
    "pro and anti), and pro − anti on each version",
    score=score,
    headlines=(
        Headline("winobias_plus", "diff/gendered", "accuracy gendered − neutral", 0.0),
        *(
            Headline(f"winobias_plus/{polarity}", "diff/gendered", f"{polarity}: accuracy gendered − neutral", 0.0)
            for polarity in POLARITIES
        ),
        *(
            Headline(f"winobias_plus/{version}", "diff", f"{version}: accuracy pro − anti", 0.0)
            for version in (GENDERED, NEUTRAL)
        ),
    ),
    condition_column="polarity",
    balance_columns=("polarity", "source_pronoun_gender"),
    limit_meaning="per split, N WinoBias pairs with a female and N with a male pro-stereotypical pronoun whose two "
    "sentences are labelled, each sentence gendered and rewritten (16N instances), plus up to N pairs of each "
    "polarity and pronoun gender with one sentence labelled (2 instances each) and up to 2 test pairs whose pronoun "
    "is male in both",
    cloze=OCCUPATIONS_CLOZE,
    bias_axis=BiasAxis("version", {GENDERED: 1, NEUTRAL: -1}, "toward_gold"),
    figures=(Figure("pro_anti"),),
    explore=GENDERED_AND_NEUTRAL,
    blocks=BLOCKS,
    pooled_parts=(PARTS,),
)
