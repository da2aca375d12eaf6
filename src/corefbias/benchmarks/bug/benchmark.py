"""BUG (Levy et al., 2021): accuracy, ΔG and ΔS, also by pronoun–profession distance, on real sentences."""

from __future__ import annotations

from ...measures import bug_bias
from ...models.cloze_template import ClozeTemplate
from ..cloze_wording import ENGLISH_SOURCE
from ..declaration import Benchmark, BiasAxis, BlockDesign, Figure, Headline, rows_of
from . import evaluate_coref
from .explore import SENTENCES

PARTS = (("gold", "test"), ("balanced", "test"))


# A sentence holding two professions is two rows; the corpora's sentences are otherwise independent.
BLOCKS = BlockDesign(("text",), ("sentence",))


def _bug_bias(data: dict, linked: list[bool], n_bootstrap: int, seed: int):
    return bug_bias.bug_bias(
        linked,
        data["pronoun_gender"],
        data["stereotype_label"],
        data["distance"],
        data["profession"],
        data["profession_pct_female"],
        block_ids=BLOCKS.ids(data),
        n_bootstrap=n_bootstrap,
        seed=seed,
    )


def score(rows, decisions, n_bootstrap, seed):
    """One section per config scored, ``bug/<config>``: ``bug_bias`` of whether each pronoun is linked to its
    profession (where ``files.locate`` found the two words)."""
    return {
        f"bug/{config}": _bug_bias(data, [decision[0] for decision in decisions[config, split]], n_bootstrap, seed)
        for (config, split), data in rows.items()
    }


def score_clusters(rows, outputs, n_bootstrap, seed):
    """Of a cluster model's clusters, one section per config scored, ``bug/<config>/evaluate_coref``: ``bug_bias``
    of whether each pronoun is linked to its profession as BUG's evaluate_coref.py reads the clusters, at the
    upstream word offsets (``evaluate_coref.linked_at_offsets``); none for answers that are no clusters."""
    sections = {}
    for (config, split), data in rows.items():
        answers = outputs[config, split]
        if not all(isinstance(answer, list) for answer in answers):
            continue
        linked = [evaluate_coref.linked_at_offsets(row, answer) for row, answer in zip(rows_of(data), answers)]
        sections[f"bug/{config}/{evaluate_coref.SECTION}"] = _bug_bias(data, linked, n_bootstrap, seed)
    return sections


BENCHMARK = Benchmark(
    name="bug",
    dataset="bug",
    parts=PARTS,
    language="en",
    unit="id",
    metric_modules=("bug_bias",),
    description="BUG: real sentences linking a profession to a gendered pronoun; accuracy, ΔG (male − female), "
    "ΔS (stereotypical − anti-stereotypical) and ΔS by distance, on gold and balanced BUG",
    score=score,
    score_outputs=score_clusters,
    balance_columns=("pronoun_gender", "stereotype_label"),
    limit_meaning="N sentences of each pronoun gender and stereotype label in each config (6N gold: female/male × "
    "stereotypical/anti-stereotypical/neutral; 4N balanced, which has no neutral sentences)",
    cloze=ClozeTemplate(
        version=1,
        suffix=" ‘{Pronoun}’ refers to",
        choice_columns=("profession_phrase",),
        someone_else="someone else",
        source=ENGLISH_SOURCE + "; BUG's paper has no prompt of its own. The option is the profession as BUG names "
        "it, with the article ('the doctor': the column profession_phrase), and 'someone else' as ABC's template adds "
        "'en anden person'",
        cannot_express="BUG's instance has one candidate, the profession, and the pronoun always refers to it; with "
        "one option a cloze model would always be right. The template therefore adds the option 'someone else': "
        "choosing it leaves the pronoun unlinked to the profession, a wrong answer, as a coreference system that "
        "does not cluster the two",
    ),
    headlines=(
        Headline("bug/gold", "delta_s", "gold ΔS stereotypical − anti", 0.0),
        Headline("bug/gold", "delta_g", "gold ΔG male − female", 0.0),
        Headline("bug/balanced", "delta_s", "balanced ΔS stereotypical − anti", 0.0),
        Headline("bug/balanced", "delta_g", "balanced ΔG male − female", 0.0),
        Headline("bug/gold", "accuracy", "gold accuracy", None),
    ),
    bias_axis=BiasAxis("stereotype_label", {"stereotypical": 1, "anti-stereotypical": -1}, "toward_gold"),
    figures=(Figure("distance"),),
    explore=SENTENCES,
    blocks=BLOCKS,
)
