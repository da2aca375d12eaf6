"""Gender parity and Krippendorff's alpha of NLI labels on items that differ only in the pronoun (SweWinogender).

SweWinogender v2.0 (SuperLim 2.0) casts Winogender's pronoun resolution as natural language inference: a premise
with a pronoun, a hypothesis with the pronoun replaced by a participant, and the label ``entailment`` (the
participant is the antecedent) or ``neutral``. Its documentation sheet recommends two measures, both computed here
exactly as it defines them:

  * **Krippendorff's alpha on the binary label**: the system's labels and the gold labels as two coders of every
    item, nominal alpha (``corefbias.measures.agreement``): ``alpha = 1 − (n − 1) · D_o / D_e`` from their
    coincidence matrix. With two coders the observed agreement is the accuracy, reported as ``accuracy``;
  * **gender parity** (after SuperGLUE's Winogender diagnostic, Wang et al. 2019): "the proportion of triples of
    items differing only by the type of pronoun, which receive identical labels". A triple is the items sharing a
    ``tuple_id`` (one template and one hypothesis, with han, hon and hen); parity ignores gold.

Alpha and accuracy are also given per pronoun. Every score is a ratio of sums over templates (a template's two tuples
share its premises), so the bootstrap resamples templates, or with ``block_ids`` whole blocks of them (SweWinogender's
occupation, whose templates a system answers alike). None is tested against a null: alpha and accuracy have none
worth testing, and parity's unbiased value 1 is its maximum, which no bootstrap draw exceeds; each gets its 95%
interval.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import structured_inputs, validation
from .agreement import alpha_statistic, coincidences
from .blocks import unit_blocks
from .resampling import UnitRows, bootstrap_test, safe_div
from .result import Cell, MeasureResult, measure_result

LABELS = ("entailment", "neutral")
PARITY = "gender_parity"
ALL = ""  # the condition of every item, in the alpha statistic (no pronoun is the empty string)
_NOT_TESTED = (
    "reported with its 95% interval, not tested: alpha and accuracy have no null worth testing, and gender parity's "
    "unbiased value 1 is its maximum"
)


def _tuples(tuple_ids: list, pronouns: list, template_ids: list, sets: Sequence[str]) -> dict:
    """Tuple id → its template; every tuple holds every pronoun once, within one template."""
    held: dict = {}
    template_of: dict = {}
    for tuple_id, pronoun, template in zip(tuple_ids, pronouns, template_ids):
        held.setdefault(tuple_id, []).append(pronoun)
        known = template_of.setdefault(tuple_id, template)
        if known != template:
            raise ValueError(
                f"tuple {tuple_id!r} has items of the templates {known!r} and {template!r}; a tuple's items differ "
                f"only in the pronoun, so they share their template"
            )
    for tuple_id, found in held.items():
        if sorted(found) != sorted(sets):
            raise ValueError(
                f"tuple {tuple_id!r} holds the pronouns {sorted(found)}; gender parity compares items differing only "
                f"in the pronoun, so every tuple holds each pronoun given ({sorted(sets)}) exactly once"
            )
    return template_of


def _statistic(conditions: Sequence[str]):
    """Column sums → alpha and accuracy per condition (``all`` first) and gender parity: the alpha statistic's
    columns, then identical and all triples."""
    alpha = alpha_statistic(conditions, LABELS)
    width = len(conditions) * len(LABELS) ** 2

    def statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
        scores = {}
        for name, value in alpha(sums[..., :width]).items():
            kind, condition = name.split("/")
            key = ("alpha" if kind == "alpha" else "accuracy") + ("" if condition == ALL else f"/{condition}")
            scores[key] = value
        scores[PARITY] = safe_div(sums[..., width], sums[..., width + 1])
        return scores

    return statistic


def nli_gender_parity(
    predictions: Sequence[str],
    references: Sequence[str],
    tuple_ids: Sequence,
    pronouns: Sequence[str],
    template_ids: Sequence,
    *,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """Krippendorff's alpha of the system's NLI labels against gold, and the gender parity of its labels.

    The bootstrap resamples templates, or with ``block_ids`` whole blocks of them.

    Parameters
    ----------
    predictions : list of str
        the system's label per item, `entailment` or `neutral` (a three-way system's `contradiction` is
        not-entailed: pass it as `neutral`).
    references : list of str
        the gold label per item, `entailment` or `neutral`.
    tuple_ids : list of str
        the triple each item belongs to: the items differing only in the pronoun share it (SweWinogender's
        `meta.tuple_id`, e.g. `1B-neutral`).
    pronouns : list of str
        the item's pronoun (`han`, `hon`, `hen`); every tuple holds each pronoun given exactly once.
    template_ids : list of str
        the item's template (SweWinogender's `meta.template_id`): its tuples share their premises, and the
        bootstrap resamples templates.
    block_ids : list of str or int, or list of tuple, optional
        the block of each item: what several templates share and a system answers alike (SweWinogender's
        occupation); every item of a template shares it. The bootstrap draws whole blocks, its intervals expanded for
        how few they are. Left out: every template is a block of its own.
    n_bootstrap : int, default 1000
        bootstrap resamples of templates (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        The scores (a pronoun is a score's group), with the unit rows its intervals resampled; its primary score is
        ``gender_parity``. Its flat keys (fractions, not percentages):

        * ``alpha`` (Krippendorff's nominal alpha, system against gold) and ``alpha/<pronoun>``;
        * ``accuracy`` (the share of items labelled as gold: the coders' observed agreement) and
          ``accuracy/<pronoun>``;
        * ``gender_parity``: the share of tuples whose items all got the same label;
        * each with ``_ci_low`` and ``_ci_high`` (95% percentile interval); ``num_items``, ``num_tuples``,
          ``num_templates``;
        * ``undefined``: every key whose value is None, mapped to the reason.

    Raises
    ------
    ValueError
        If the inputs differ in length or are empty; a label is not `entailment` or `neutral`; a tuple id, pronoun or
        template id is no id; a tuple lacks a pronoun, repeats one or spans two templates; a block id is no id or a
        template's items lie in two blocks; or ``n_bootstrap`` or ``seed`` is invalid.

    Notes
    -----
    With ``o`` the coincidence matrix of the (system, gold) label pairs (each item adds 1 to ``o[s, g]`` and to
    ``o[g, s]``), ``n_c`` its marginals and ``n = 2 · items``: alpha = 1 − (n − 1) · Σ_{c≠k} o[c, k] /
    Σ_{c≠k} n_c · n_k. Gender parity = |{tuples t : the system's labels of t are all equal}| / |tuples|.

    Undefined cases (None, with the reason under ``undefined``): alpha where every label, of system and gold, is
    the same (no disagreement is expected: 0/0); every interval with ``n_bootstrap=0``; every p-value (nothing is
    tested).

    References
    ----------
    Hansson, S., Mavromatakis, K., Adesam, Y., Bouma, G. and Dannélls, D. (2021). The Swedish Winogender Dataset.
    NoDaLiDa 2021. SweWinogender v2.0 documentation sheet (SuperLim 2.0), "Recommended evaluation measures".

    Wang, A. et al. (2019). SuperGLUE: A Stickier Benchmark for General-Purpose Language Understanding Systems.
    NeurIPS 2019.

    Examples
    --------
    One template: a premise with han, hon and hen, each with an entailed and a neutral hypothesis. The system labels
    the hen premise's entailed hypothesis neutral:

    >>> from corefbias.measures.nli_gender_parity import nli_gender_parity
    >>> result = nli_gender_parity(
    ...     predictions=["entailment", "neutral", "entailment", "neutral", "neutral", "neutral"],
    ...     references=["entailment", "neutral"] * 3,
    ...     tuple_ids=["1A-entailment", "1A-neutral"] * 3,
    ...     pronouns=["han", "han", "hon", "hon", "hen", "hen"],
    ...     template_ids=["1A"] * 6,
    ...     n_bootstrap=0,
    ... )
    >>> result["gender_parity"], result["accuracy/hen"], round(result["alpha"], 4)
    (0.5, 0.5, 0.6857)
    """
    validation.check_lengths(
        predictions=predictions,
        references=references,
        tuple_ids=tuple_ids,
        pronouns=pronouns,
        template_ids=template_ids,
        optional={"block_ids": block_ids},
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    predictions = structured_inputs.check_labels("predictions", predictions, LABELS)
    references = structured_inputs.check_labels("references", references, LABELS)
    tuple_ids = validation.check_ids("tuple_ids", tuple_ids, missing="is None; give every item its tuple's id")
    pronouns = validation.check_ids("pronouns", pronouns, integers=False)
    template_ids = validation.check_ids("template_ids", template_ids, missing="is None; give every item its template")
    sets = tuple(dict.fromkeys(pronouns))
    template_of = _tuples(tuple_ids, pronouns, template_ids, sets)
    conditions = (ALL, *sets)
    size = len(LABELS) ** 2
    templates = {template: index for index, template in enumerate(dict.fromkeys(template_ids))}
    rows = np.zeros((len(templates), len(conditions) * size + 2))
    for predicted, gold, pronoun, template in zip(predictions, references, pronouns, template_ids):
        matrix = coincidences([predicted, gold], LABELS).ravel()
        for position in (0, conditions.index(pronoun)):
            rows[templates[template], position * size : (position + 1) * size] += matrix
    labels_of: dict = {}
    for predicted, tuple_id in zip(predictions, tuple_ids):
        labels_of.setdefault(tuple_id, set()).add(predicted)
    for tuple_id, labels in labels_of.items():
        rows[templates[template_of[tuple_id]], -2:] += (len(labels) == 1, 1.0)
    statistic = _statistic(conditions)
    scores = {name: float(value) for name, value in statistic(rows.sum(axis=0)).items()}
    scores.update(num_items=len(predictions), num_tuples=len(labels_of), num_templates=len(templates))
    reasons = {
        f"alpha{'' if condition == ALL else '/' + condition}": (
            f"every label of {'the items' if condition == ALL else condition + ' items'}, system's and gold, is the "
            f"same: no disagreement is expected, so alpha is 0/0"
        )
        for condition in conditions
    }
    tested = [name for name in scores if name.startswith(("alpha", "accuracy")) or name == PARITY]
    positions = [templates[template] for template in template_ids]
    blocks = unit_blocks(block_ids, positions, list(templates), unit="template")
    inferences = bootstrap_test(
        rows, statistic, dict.fromkeys(tested), n_bootstrap=n_bootstrap, seed=seed, unit="template", blocks=blocks
    )
    cells = {key: (Cell(group=key.split("/")[1]), key.split("/")[0]) for key in scores if "/" in key}
    return measure_result(
        "nli_gender_parity",
        scores,
        reasons,
        inferences,
        n_bootstrap=n_bootstrap,
        cells=cells,
        primary=PARITY,
        significance_reasons=dict.fromkeys(tested, _NOT_TESTED),
        unit_rows=UnitRows(rows, statistic, tuple(tested), blocks=blocks),
    )
