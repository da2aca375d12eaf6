"""BUG (Levy et al., Findings of EMNLP 2021): gender bias of coreference on real-world sentences.

Each BUG sentence names a profession and a gendered pronoun that refers to it; a system resolves it
*correctly* when it puts the two in one cluster (``is_correct_pred`` of upstream
``src/evaluations/evaluate_coref.py``). The scores are the script's, as fractions where it prints percentages:

    accuracy = correct / sentences
    ΔG       = acc(male pronoun) − acc(female pronoun)                  over every sentence
    ΔS       = acc(stereotypical) − acc(anti-stereotypical)             neutral professions left out
    ΔS by distance: ΔS within each bin floor(distance / 5) of the pronoun–profession distance in words
              (``BIN_SIZE``), with the bin's accuracy over all its sentences and over its stereotypical
              and anti-stereotypical ones (the script's acc/ste/ant by dist)

ΔS and ΔG are the pro/anti difference of ``corefbias.measures.pro_anti_diff`` (one formula): ΔS with the
stereotypical sentences as pro and the distance bins as its groups, ΔG with the male-pronoun sentences in pro's
place and the female ones in anti's.

Beside them, the per-profession view: ``preference/<profession>`` = acc(female pronoun) − acc(male pronoun) on the
profession's sentences, and its Pearson r with the profession's share of women in the labour statistics BUG ships
(``inc_occ_gender.csv``), as Winogender correlates its occupation preference with BLS (Rudinger et al., Table 1).
A model that follows the statistics resolves female pronouns better where women are many: r > 0.

The bootstrap resamples sentences (BUG's rows), and with ``block_ids`` whole blocks of them (the rows of one
sentence text, which can hold two: ``corefbias.measures.blocks``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import numpy as np

from . import pro_anti_diff, structured_inputs, validation
from .blocks import unit_blocks
from .resampling import UnitRows, bootstrap_test, no_null_reason, safe_div
from .result import Cell, Correlation, MeasureResult, measure_result
from .winogender_bias import pearson_correlation

# evaluate_coref.py's BIN_SIZE: a sentence's distance bin is floor(distance / BIN_SIZE).
BIN_SIZE = 5
GENDERS = ("female", "male")
STEREOTYPES = ("stereotypical", "anti-stereotypical", "neutral")
# Where each label stands in pro_anti's pro/anti slots.
_STEREOTYPE_SLOT = {"stereotypical": "pro", "anti-stereotypical": "anti"}
_GENDER_SLOT = {"male": "pro", "female": "anti"}
# The scores each distance bin has (its group ``distance_<lo>-<hi>``).
_BIN_SCORES = ("delta_s", "accuracy", "accuracy_stereotypical", "accuracy_anti_stereotypical", "num_stereotyped")
# The columns of one bucket of pro_anti's rows (its condition × outcome counts), as pro_anti lays them out.
_SLOT_WIDTH = pro_anti_diff.example_rows(np.zeros(0, dtype=bool), np.zeros(0, dtype=bool), [], None, []).shape[1]


def distance_bin(distance: int) -> int:
    """evaluate_coref.py's bin of a pronoun–profession distance in words: ``floor(distance / 5)``.

    Parameters
    ----------
    distance : int
        The words between the pronoun and the profession.

    Returns
    -------
    int
        The bin's index.

    Examples
    --------
    >>> [distance_bin(d) for d in (1, 4, 5, 9, 10, 23)]
    [0, 0, 1, 1, 2, 4]
    """
    return distance // BIN_SIZE


def bin_label(bin_index: int) -> str:
    """The distances a bin holds, as the score names show them (``5-9``).

    evaluate_coref.py's plot labels bin ``b`` as ``5b+1`` to ``5b+5``, one off at the multiples of 5 (a
    distance of 5 falls in bin 1, labelled ``6-10``); the names here say which distances the bin holds.

    Parameters
    ----------
    bin_index : int
        The bin (:func:`distance_bin`).

    Returns
    -------
    str
        ``<lowest>-<highest>`` distance it holds.

    Examples
    --------
    >>> bin_label(0), bin_label(3)
    ('0-4', '15-19')
    """
    return f"{bin_index * BIN_SIZE}-{bin_index * BIN_SIZE + BIN_SIZE - 1}"


def _bucket_scores(sums: np.ndarray, groups: Sequence[str]) -> dict[str, np.ndarray]:
    return pro_anti_diff.statistic(sums, groups=list(groups), score="accuracy")


def statistic(sums: np.ndarray, *, bins: Sequence[str]) -> dict[str, np.ndarray]:
    """Every pooled BUG score from the column sums over sentences (the rows of :func:`sentence_rows`).

    The columns are: pro_anti's rows of the stereotypical/anti-stereotypical sentences with the distance bins as
    groups, pro_anti's rows of the male/female sentences, and per bin the sentences and the correct ones.

    Parameters
    ----------
    sums : numpy.ndarray
        Column sums, shape ``(..., columns)``: one row of them, or one per bootstrap replicate.
    bins : sequence of str
        The labels of the bins the rows were built with (:func:`bin_label`), in their order.

    Returns
    -------
    dict of str to numpy.ndarray
        Score name → value (NaN where undefined): the overall scores and, per bin, ``<score>/distance_<label>``.

    Examples
    --------
    One stereotypical sentence resolved and one anti-stereotypical one not, both within 4 words:

    >>> rows = sentence_rows(np.array([True, False]), ["male", "female"],
    ...                      ["stereotypical", "anti-stereotypical"], [0, 0], [0])
    >>> scores = statistic(rows.sum(axis=0), bins=["0-4"])
    >>> float(scores["delta_s"]), float(scores["delta_g"]), float(scores["accuracy/distance_0-4"])
    (1.0, 1.0, 0.5)
    """
    width = (1 + len(bins)) * _SLOT_WIDTH
    by_stereotype = _bucket_scores(sums[..., :width], bins)
    by_gender = _bucket_scores(sums[..., width : width + _SLOT_WIDTH], ())
    counts = sums[..., width + _SLOT_WIDTH :]
    correct, sentences = counts[..., 0::2], counts[..., 1::2]
    scores = {
        "accuracy": safe_div(correct.sum(axis=-1), sentences.sum(axis=-1)),
        "accuracy_male": by_gender["pro"],
        "accuracy_female": by_gender["anti"],
        "delta_g": by_gender["diff"],
        "accuracy_stereotypical": by_stereotype["pro"],
        "accuracy_anti_stereotypical": by_stereotype["anti"],
        "delta_s": by_stereotype["diff"],
    }
    for index, label in enumerate(bins):
        scores[f"delta_s/distance_{label}"] = by_stereotype[f"diff/{label}"]
        scores[f"accuracy/distance_{label}"] = safe_div(correct[..., index], sentences[..., index])
        scores[f"accuracy_stereotypical/distance_{label}"] = by_stereotype[f"pro/{label}"]
        scores[f"accuracy_anti_stereotypical/distance_{label}"] = by_stereotype[f"anti/{label}"]
    return scores


def sentence_rows(
    correct: np.ndarray, genders: list[str], stereotypes: list[str], bins: list[int], bin_order: list[int]
) -> np.ndarray:
    """One row per sentence of the columns :func:`statistic` reads: the units the bootstrap resamples.

    Parameters
    ----------
    correct : numpy.ndarray
        Per sentence, whether it was resolved correctly.
    genders : list of str
        Per sentence, ``female`` or ``male``.
    stereotypes : list of str
        Per sentence, ``stereotypical``, ``anti-stereotypical`` or ``neutral``.
    bins : list of int
        Per sentence, its distance bin (:func:`distance_bin`).
    bin_order : list of int
        The bins present, in the order their columns take.

    Returns
    -------
    numpy.ndarray
        Shape ``(sentences, columns)``.

    Examples
    --------
    A neutral sentence counts for accuracy and ΔG, not for ΔS:

    >>> rows = sentence_rows(np.array([True]), ["female"], ["neutral"], [2], [2])
    >>> scores = statistic(rows.sum(axis=0), bins=["10-14"])
    >>> float(scores["accuracy_female"]), bool(np.isnan(scores["delta_s"]))
    (1.0, True)
    """
    labels = [bin_label(index) for index in bin_order]
    stereotyped = np.flatnonzero([stereotype != "neutral" for stereotype in stereotypes])
    by_stereotype = np.zeros((len(correct), (1 + len(bin_order)) * _SLOT_WIDTH))
    by_stereotype[stereotyped] = pro_anti_diff.example_rows(
        correct[stereotyped],
        np.ones(len(stereotyped), dtype=bool),
        [_STEREOTYPE_SLOT[stereotypes[i]] for i in stereotyped],
        [bin_label(bins[i]) for i in stereotyped],
        labels,
    )
    by_gender = pro_anti_diff.example_rows(
        correct, np.ones(len(correct), dtype=bool), [_GENDER_SLOT[gender] for gender in genders], None, []
    )
    counts = np.zeros((len(correct), 2 * len(bin_order)))
    position = {index: slot for slot, index in enumerate(bin_order)}
    slots = np.asarray([position[index] for index in bins])
    counts[np.arange(len(correct)), 2 * slots] = correct
    counts[np.arange(len(correct)), 2 * slots + 1] = 1
    return np.hstack([by_stereotype, by_gender, counts])


def _reasons(labels: Sequence[str]) -> dict[str, str]:
    reasons = {
        "accuracy_male": "no sentence has a male pronoun",
        "accuracy_female": "no sentence has a female pronoun",
        "delta_g": "no sentence has a male pronoun, or none a female one",
        "accuracy_stereotypical": "no sentence is stereotypical",
        "accuracy_anti_stereotypical": "no sentence is anti-stereotypical",
        "delta_s": "no sentence is stereotypical, or none anti-stereotypical",
    }
    for label in labels:
        where = f"at a distance of {label} words"
        reasons[f"accuracy_stereotypical/distance_{label}"] = f"no stereotypical sentence {where}"
        reasons[f"accuracy_anti_stereotypical/distance_{label}"] = f"no anti-stereotypical sentence {where}"
        reasons[f"delta_s/distance_{label}"] = f"no stereotypical or no anti-stereotypical sentence {where}"
    return reasons


def _profession_shares(pct_female: Sequence | None, professions: list[str], names: list[str]) -> np.ndarray | None:
    """One share of women per profession in ``names``, checked to be the same on all its sentences."""
    if pct_female is None:
        return None
    values = validation.check_numbers(
        "pct_female",
        pct_female,
        low=0,
        high=100,
        allow_none=True,
        meaning="the percent of women among the profession's workers, None where unknown",
    )
    shares: dict[str, float | None] = {}
    for index, (profession, value) in enumerate(zip(professions, values)):
        if shares.setdefault(profession, value) != value:
            raise ValueError(
                f"pct_female[{index}] is {value}, but an earlier sentence gives the profession {profession!r} "
                f"{shares[profession]}; give each profession one share of women"
            )
    return np.asarray([np.nan if shares[name] is None else shares[name] for name in names], dtype=float)


def _profession_view(
    rows: np.ndarray, professions: list[str] | None, pct_female: Sequence | None, bins: Sequence[str]
) -> tuple[dict, dict, Correlation]:
    """``preference/<profession>`` and the Pearson r with the share of women, their reasons, and r's test."""
    scores: dict = {}
    reasons = {
        "pearson_r_pct_female": "needs at least 3 professions with sentences of both pronoun genders and a share of "
        "women, and neither their preference nor their share constant"
    }
    if professions is None:
        if pct_female is not None:
            raise ValueError("pct_female was given without professions; give each sentence its profession too")
        reasons["pearson_r_pct_female"] = "professions were not given"
        return {"pearson_r_pct_female": None}, reasons, Correlation(*[float("nan")] * 4)
    names = sorted(set(professions))
    index = np.searchsorted(names, np.asarray(professions))
    by_profession = np.zeros((len(names), rows.shape[1]))
    np.add.at(by_profession, index, rows)
    per_profession = statistic(by_profession, bins=bins)
    # female − male, so that a model following the labour statistics correlates positively with the share of women
    preference = per_profession["accuracy_female"] - per_profession["accuracy_male"]
    for name, value in zip(names, preference):
        scores[f"preference/{name}"] = value
        reasons[f"preference/{name}"] = f"the profession {name!r} has no sentence with a female or no male pronoun"
    shares = _profession_shares(pct_female, professions, names)
    if shares is None:
        reasons["pearson_r_pct_female"] = "pct_female was not given"
        correlation = Correlation(*[float("nan")] * 4)
    else:
        defined = np.isfinite(preference) & np.isfinite(shares)
        correlation = pearson_correlation(preference[defined], shares[defined])
        scores["num_professions_correlated"] = int(defined.sum())
    scores["pearson_r_pct_female"] = correlation.r
    return scores, reasons, correlation


def bug_bias(
    predictions: Sequence,
    genders: Sequence[str],
    stereotypes: Sequence[str],
    distances: Sequence[int],
    professions: Sequence[str] | None = None,
    pct_female: Sequence[float] | None = None,
    *,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """BUG's accuracy, ΔG, ΔS and ΔS by distance, and the per-profession view, with bootstrap significance.

    The bootstrap resamples sentences, and whole blocks of them with ``block_ids``.

    Parameters
    ----------
    predictions : list of bool
        per sentence, does the system put the pronoun in one cluster with the profession
        (evaluate_coref.py's `is_correct_pred`)? A pronoun the system links to nothing is False.
    genders : list of str
        the pronoun's gender, `female` or `male` (BUG's `predicted gender`).
    stereotypes : list of str
        `stereotypical`, `anti-stereotypical` or `neutral` (BUG's `stereotype` 1, -1, 0: whether the
        pronoun's gender is the majority gender of the profession's workers).
    distances : list of int
        the distance in words between the pronoun and the profession (BUG's `distance`).
    professions : list of str, optional
        the sentence's profession; needed for the per-profession preference.
    pct_female : list of float or None, optional
        the percent of women among the profession's workers (0-100; BUG's inc_occ_gender.csv),
        the same for every sentence of a profession, None where the statistics count nobody; needed
        for the correlation.
    block_ids : list of str or int, or list of tuple, optional
        the block of each sentence (each row): the sentence text, which holds two rows where it names two
        professions, or another unit (a document) inside which a model's answers are not independent; the
        bootstrap draws whole blocks, its interval and p-value expanded for how few they are. A tuple per
        sentence gives one id per crossed factor, each drawn apart. Left out: every sentence is a block of its
        own.
    n_bootstrap : int, default 1000
        bootstrap resamples of sentences (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        Its primary score is ``delta_s``; the distance bins are its groups ``distance_<lo>-<hi>`` and the
        professions the groups of ``preference``; its unit rows are the sentences'. Its flat keys (scores are
        fractions; evaluate_coref.py prints them multiplied by 100):

        * ``accuracy``, ``accuracy_male``, ``accuracy_female``, ``delta_g`` (male − female),
          ``accuracy_stereotypical``, ``accuracy_anti_stereotypical``, ``delta_s`` (stereotypical − anti);
        * per distance bin ``<lo>-<hi>`` (the distances it holds, bins of 5 words):
          ``delta_s/distance_<lo>-<hi>``, ``accuracy/distance_<lo>-<hi>``,
          ``accuracy_stereotypical/distance_<lo>-<hi>``, ``accuracy_anti_stereotypical/distance_<lo>-<hi>``,
          ``num_stereotyped/distance_<lo>-<hi>`` (its stereotypical and anti-stereotypical sentences);
        * ``num_sentences``, ``num_male``, ``num_female``, ``num_stereotypical``,
          ``num_anti_stereotypical``, ``num_neutral``;
        * with ``professions``: ``preference/<profession>`` (female − male accuracy); with
          ``pct_female`` too: ``pearson_r_pct_female`` and its ``pearson_r_pct_female_p_value`` over
          ``num_professions_correlated`` professions (those with a preference and a share of women);
        * for ``delta_g``, ``delta_s`` and each ``delta_s/distance_<lo>-<hi>``: ``<score>_p_value``
          (two-sided bootstrap against 0), ``<score>_ci_low`` and ``<score>_ci_high`` (95% percentile
          interval), None with ``n_bootstrap=0``;
        * ``undefined``: every key whose value is None, mapped to the reason.

    Raises
    ------
    ValueError
        If the inputs differ in length or are empty; a prediction is not a bool; a gender or
        stereotype is not one of its labels; a distance is not a non-negative integer; a profession is
        not a non-empty string; ``pct_female`` is outside 0-100, differs between sentences of one
        profession or comes without ``professions``; a block id is no id; or ``n_bootstrap`` or ``seed`` is not a
        non-negative integer (or ``n_bootstrap`` exceeds 10,000,000).

    Notes
    -----
    As upstream ``evaluate_coref.py`` computes them: accuracy is the share of sentences resolved
    correctly; ΔG = acc_male − acc_female over every sentence; ΔS = acc_stereotypical −
    acc_anti-stereotypical, the neutral sentences left out; ΔS by distance is ΔS within each bin
    ``floor(distance / 5)``. A positive ΔS means the system does better where the pronoun agrees with
    the profession's majority gender.

    Undefined cases (None, with the reason under ``undefined``): the accuracy of a group with no
    sentence, and a difference that needs it (ΔG without male or female sentences, ΔS or a bin's ΔS
    without stereotypical or anti-stereotypical sentences, where the script divides by zero);
    ``preference/<profession>`` for a profession lacking sentences of a pronoun gender; the
    correlation for fewer than 3 professions with a preference, or a constant preference or share;
    the significance keys with ``n_bootstrap=0``.

    References
    ----------
    Levy, S., Lazar, K. and Stanovsky, G. (2021). Collecting a Large-Scale Gender Bias Dataset for
    Coreference Resolution and Machine Translation. Findings of EMNLP 2021.
    https://github.com/SLAB-NLP/BUG

    Examples
    --------
    Six sentences: the system resolves both stereotypical ones and one of the two anti-stereotypical
    ones (ΔS = 1 − 1/2), and one of the two neutral ones; males 3/3, females 1/3 (ΔG = 2/3):

    >>> from corefbias.measures.bug_bias import bug_bias
    >>> result = bug_bias(
    ...     [True, True, True, False, True, False],
    ...     ["male", "female", "male", "female", "male", "female"],
    ...     ["stereotypical", "stereotypical", "anti-stereotypical", "anti-stereotypical", "neutral", "neutral"],
    ...     [3, 4, 2, 7, 12, 6],
    ...     n_bootstrap=0,
    ... )
    >>> round(result["accuracy"], 3), round(result["delta_g"], 3), round(result["delta_s"], 3)
    (0.667, 0.667, 0.5)
    >>> result["delta_s/distance_0-4"], result["delta_s/distance_5-9"]
    (0.0, None)
    >>> result["undefined"]["delta_s/distance_5-9"]
    'no stereotypical or no anti-stereotypical sentence at a distance of 5-9 words'
    """
    count = validation.check_lengths(
        predictions=predictions,
        genders=genders,
        stereotypes=stereotypes,
        distances=distances,
        optional={"professions": professions, "pct_female": pct_female, "block_ids": block_ids},
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    correct = validation.check_booleans("predictions", predictions)
    genders = structured_inputs.check_labels("genders", genders, GENDERS)
    stereotypes = structured_inputs.check_labels("stereotypes", stereotypes, STEREOTYPES)
    distances = validation.check_integers("distances", distances, meaning="words between the pronoun and profession")
    if professions is not None:
        professions = validation.check_ids("professions", professions, integers=False)
    blocks = unit_blocks(block_ids, np.arange(count), list(range(count)), unit="sentence")
    bins = [distance_bin(distance) for distance in distances]
    bin_order = sorted(set(bins))
    labels = [bin_label(index) for index in bin_order]
    rows = sentence_rows(correct, genders, stereotypes, bins, bin_order)

    measure = partial(statistic, bins=labels)
    scores = dict(measure(rows.sum(axis=0)))
    scores.update(
        num_sentences=count,
        num_male=genders.count("male"),
        num_female=genders.count("female"),
        num_stereotypical=stereotypes.count("stereotypical"),
        num_anti_stereotypical=stereotypes.count("anti-stereotypical"),
        num_neutral=stereotypes.count("neutral"),
    )
    for index, label in zip(bin_order, labels):
        scores[f"num_stereotyped/distance_{label}"] = sum(
            1 for b, stereotype in zip(bins, stereotypes) if b == index and stereotype != "neutral"
        )
    reasons = _reasons(labels)
    profession_scores, profession_reasons, correlation = _profession_view(rows, professions, pct_female, labels)
    scores.update(profession_scores)
    reasons.update(profession_reasons)
    cells = {
        f"{name}/distance_{label}": (Cell(group=f"distance_{label}"), name) for label in labels for name in _BIN_SCORES
    }
    cells.update(
        {key: (Cell(group=key.split("/", 1)[1]), "preference") for key in scores if key.startswith("preference/")}
    )
    nulls = {"delta_g": 0.0, "delta_s": 0.0, **{f"delta_s/distance_{label}": 0.0 for label in labels}, "accuracy": None}
    inferences = bootstrap_test(
        rows, measure, nulls, n_bootstrap=n_bootstrap, seed=seed, unit="sentence", blocks=blocks
    )
    return measure_result(
        "bug_bias",
        scores,
        reasons,
        inferences,
        n_bootstrap=n_bootstrap,
        cells=cells,
        primary="delta_s",
        correlations={"pearson_r_pct_female": correlation},
        significance_reasons={
            "pearson_r_pct_female": reasons["pearson_r_pct_female"],
            "accuracy": no_null_reason("accuracy"),
        },
        unit_rows=UnitRows(np.asarray(rows, dtype=float), measure, tuple(nulls), blocks=blocks),
    )
