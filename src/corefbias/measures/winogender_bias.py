"""Winogender schemas (Rudinger et al., 2018): gender bias of pronoun resolution on minimal pairs.

Each of the 720 sentences has an OCCUPATION, a PARTICIPANT and a PRONOUN (female, male or
neutral) that refers to one of them; the gold answer does not depend on the pronoun's gender. A
*pair* is one template × participant, shared by its gender variants (Sec. 4's "male-female minimal
pair"), and is the resampling unit; with ``block_ids`` the bootstrap draws whole blocks of pairs (an occupation's
two templates × two participants, which a model answers alike: ``corefbias.measures.blocks``). The scores:

  * accuracy, overall and by pronoun gender;
  * the share of sentences resolved to the OCCUPATION by pronoun gender (Sec. 4: "72% male vs
    29% female") and its male-minus-female difference;
  * the share of minimal pairs whose female and male sentences are resolved differently (Sec. 4),
    with a CI but no p-value (it has no null: see ``_REASONS``);
  * per occupation, the Fig. 4 preference: share of female-pronoun sentences resolved to the
    occupation minus that of male-pronoun sentences (+1 always female, −1 always male), and its
    Pearson r with the BLS and Bergsma & Lin female percentages (Table 1);
  * Table 2: accuracy on "gotcha" and non-gotcha sentences by pronoun gender.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from . import stereotypes, structured_inputs, validation
from .blocks import table_units, unit_blocks
from .resampling import UnitRows, bootstrap_test, safe_div
from .result import Cell, Correlation, MeasureResult, measure_result

PREDICTIONS = ("occupation", "participant", "neither")
ANSWERS = ("occupation", "participant")
GENDERS = ("female", "male", "neutral")
BINARY_GENDERS = ("female", "male")
STATISTICS = ("bls_pct_female", "bergsma_pct_female")
GOTCHA_BUCKETS = ("gotcha", "non_gotcha")

# Per-pair columns whose sums every pooled score is a function of.
_COLUMNS = (
    "pairs",
    "resolved_differently",
    *(f"{kind}_{gender}" for kind in ("sentences", "correct", "occupation") for gender in GENDERS),
    *(
        f"{kind}_{gender}"
        for bucket in GOTCHA_BUCKETS
        for kind in (bucket, f"correct_{bucket}")
        for gender in BINARY_GENDERS
    ),
)
_COLUMN = {name: index for index, name in enumerate(_COLUMNS)}

SIGNIFICANCE_NULLS = {
    "occupation_share_male_minus_female": 0.0,
    "pairs_resolved_differently": None,  # a CI, but no null: see _REASONS
    "accuracy_male_minus_female": 0.0,
    "accuracy_non_gotcha_minus_gotcha": 0.0,
}

_NO_GOTCHA_REASON = "bls_pct_female was not given, or no {gender}-pronoun sentence is a {bucket} sentence"
_REASONS = {
    "accuracy_neutral": "no neutral-pronoun sentences were given",
    "occupation_share_neutral": "no neutral-pronoun sentences were given",
    **{
        f"accuracy_{bucket}_{gender}": _NO_GOTCHA_REASON.format(gender=gender, bucket=bucket.replace("_", "-"))
        for bucket in GOTCHA_BUCKETS
        for gender in BINARY_GENDERS
    },
    **{
        f"accuracy_{bucket}": _NO_GOTCHA_REASON.format(gender="female- or male", bucket=bucket.replace("_", "-"))
        for bucket in GOTCHA_BUCKETS
    },
    "accuracy_non_gotcha_minus_gotcha": (
        "bls_pct_female was not given, or there are no gotcha or no non-gotcha sentences"
    ),
    "pairs_resolved_differently_p_value": (
        "pairs_resolved_differently has no null value to test: any model whose answer depends on the pronoun at "
        "all resolves some pairs differently, biased or not, and under the null of no gender bias (female and male "
        "variants exchangeable) the pairs that differ split evenly between the two directions, which is what "
        "occupation_share_male_minus_female tests; it is reported with its CI only"
    ),
}


def statistic(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Every pooled Winogender score as a function of the column sums over pairs.

    Parameters
    ----------
    sums : numpy.ndarray
        Summed pair rows (:func:`pair_rows`), shape ``(..., 19)``.

    Returns
    -------
    dict of str to numpy.ndarray
        The pooled scores of :func:`winogender_bias` (NaN where undefined); not the per-occupation ones.

    Examples
    --------
    >>> table = np.array([[0, 1, -1]])  # the pair's female, male and (no) neutral sentence
    >>> rows = pair_rows(np.array(["occupation", "participant"]), np.array(["occupation", "occupation"]),
    ...                  np.array(["female", "male"]), table, None)
    >>> scores = statistic(rows.sum(axis=0))
    >>> float(scores["accuracy_male_minus_female"]), float(scores["pairs_resolved_differently"])
    (-1.0, 1.0)
    """
    s = {name: sums[..., index] for name, index in _COLUMN.items()}
    scores = {
        "accuracy": safe_div(
            sum(s[f"correct_{gender}"] for gender in GENDERS), sum(s[f"sentences_{gender}"] for gender in GENDERS)
        )
    }
    for gender in GENDERS:
        scores[f"accuracy_{gender}"] = safe_div(s[f"correct_{gender}"], s[f"sentences_{gender}"])
    for gender in GENDERS:
        scores[f"occupation_share_{gender}"] = safe_div(s[f"occupation_{gender}"], s[f"sentences_{gender}"])
    for bucket in GOTCHA_BUCKETS:
        for gender in BINARY_GENDERS:
            scores[f"accuracy_{bucket}_{gender}"] = safe_div(s[f"correct_{bucket}_{gender}"], s[f"{bucket}_{gender}"])
        scores[f"accuracy_{bucket}"] = safe_div(
            sum(s[f"correct_{bucket}_{gender}"] for gender in BINARY_GENDERS),
            sum(s[f"{bucket}_{gender}"] for gender in BINARY_GENDERS),
        )
    scores["accuracy_male_minus_female"] = scores["accuracy_male"] - scores["accuracy_female"]
    scores["occupation_share_male_minus_female"] = scores["occupation_share_male"] - scores["occupation_share_female"]
    scores["accuracy_non_gotcha_minus_gotcha"] = scores["accuracy_non_gotcha"] - scores["accuracy_gotcha"]
    scores["pairs_resolved_differently"] = safe_div(s["resolved_differently"], s["pairs"])
    return scores


def pearson_correlation(x: Sequence[float], y: Sequence[float], confidence: float = 0.95) -> Correlation:
    """Pearson's r, its two-sided p-value and its interval (Fisher's z, ``scipy.stats.pearsonr``); NaN for fewer
    than 3 points or a constant vector.

    With two points r is ±1 whatever the data, so at least three are required; with three the interval is
    [-1, 1].

    Parameters
    ----------
    x, y : sequence of float
        Two vectors of one length.
    confidence : float, default 0.95
        The interval's coverage.

    Returns
    -------
    Correlation
        r, its p-value and the ends of its interval.

    Raises
    ------
    ValueError
        If the vectors differ in shape.

    Examples
    --------
    >>> r, p_value, low, high = pearson_correlation([1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.5, 7.0])
    >>> round(r, 3), round(p_value, 3), round(low, 3), round(high, 3)
    (0.973, 0.027, 0.176, 0.999)
    >>> pearson_correlation([1.0, 2.0], [1.0, 2.0])
    Correlation(r=nan, p_value=nan, ci_low=nan, ci_high=nan)
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"pearson_correlation needs two vectors of one length, got shapes {x.shape} and {y.shape}")
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Correlation(*[float("nan")] * 4)
    result = stats.pearsonr(x, y)
    interval = result.confidence_interval(confidence)
    return Correlation(float(result.statistic), float(result.pvalue), float(interval.low), float(interval.high))


def majority_gender(bls_pct_female: float) -> str:
    """An occupation's BLS majority gender, by the line Table 2's "gotcha" split draws.

    Parameters
    ----------
    bls_pct_female : float
        The occupation's percent female (0–100).

    Returns
    -------
    str
        ``female`` at or above 50 %, else ``male``.

    Examples
    --------
    >>> majority_gender(37.9), majority_gender(50.0)
    ('male', 'female')
    """
    return stereotypes.majority_gender(bls_pct_female, tie=stereotypes.WINOGENDER_TIE)


def resolved_differently(answers_female, answers_male):
    """Whether a pair's female and male sentences got different answers (element-wise for arrays).

    Parameters
    ----------
    answers_female, answers_male : array_like
        The answers to the female and to the male sentence of each pair.

    Returns
    -------
    numpy.ndarray
        One bool per pair.

    Examples
    --------
    >>> resolved_differently(["occupation", "participant"], ["occupation", "occupation"]).tolist()
    [False, True]
    """
    return np.asarray(answers_female) != np.asarray(answers_male)


def gotcha_sentences(genders: Sequence[str], answers: Sequence[str], bls_pct_female: Sequence[float]) -> np.ndarray:
    """Table 2's "gotcha" sentences, as a boolean array.

    A sentence is a gotcha iff its pronoun's gender is not the occupation's majority gender (BLS:
    female majority iff at least 50% female) and the answer is OCCUPATION, or the pronoun's gender
    is the majority gender and the answer is PARTICIPANT. Neutral pronouns have no majority to
    contradict, so they are neither gotcha nor non-gotcha: their entries are False here and
    callers exclude them from the non-gotcha bucket too.

    Parameters
    ----------
    genders : sequence of str
        The pronoun's gender per sentence.
    answers : sequence of str
        The correct answer per sentence, ``occupation`` or ``participant``.
    bls_pct_female : sequence of float
        The occupation's percent female per sentence.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    A surgeon (37.9 % female): "she" referring to the surgeon is a gotcha, "he" referring to the patient too:

    >>> answers = ["occupation", "participant", "occupation", "occupation"]
    >>> gotcha_sentences(["female", "male", "male", "neutral"], answers, [37.9] * 4).tolist()
    [True, True, False, False]
    """
    genders = np.asarray(genders)
    answers_occupation = np.asarray(answers) == "occupation"
    female_majority = stereotypes.female_majority(bls_pct_female, tie=stereotypes.WINOGENDER_TIE)
    pronoun_matches_majority = (genders == "female") == female_majority
    binary = np.isin(genders, BINARY_GENDERS)
    return binary & (answers_occupation != pronoun_matches_majority)


def _pair_table(
    pair_ids: Sequence, genders: Sequence[str], occupations: Sequence, references: Sequence[str]
) -> tuple[list, np.ndarray]:
    """The pair ids in first-seen order, and the row index of each pair's female, male and neutral sentence (−1: no
    neutral)."""
    order, table = structured_inputs.unit_table(
        pair_ids, genders, GENDERS, unit="pair", member="sentence", ids_name="pair_ids", required=BINARY_GENDERS
    )
    for index, pair in enumerate(order):
        rows = [row for row in table[index] if row != -1]
        for name, values in (("occupations", occupations), ("references", references)):
            seen = {values[row] for row in rows}
            if len(seen) > 1:
                raise ValueError(
                    f"pair {pair!r} has different {name} across its gender variants ({sorted(map(str, seen))}); "
                    f"the variants of a pair differ only in the pronoun"
                )
    return order, table


def _occupation_statistic(name: str, values: Sequence | None, occupations: Sequence, names: list) -> np.ndarray | None:
    """One percent-female value per occupation in ``names`` (None when not given at all)."""
    if values is None or all(value is None for value in values):
        return None
    percents = validation.check_numbers(
        name,
        values,
        low=0.0,
        high=100.0,
        meaning="the percent female, 0–100, not a fraction",
        missing=f"is missing but other rows give {name}; give it for every row or for none",
    )
    per_occupation: dict = {}
    for occupation, value in zip(occupations, percents):
        known = per_occupation.setdefault(occupation, value)
        if known != value:
            raise ValueError(f"occupation {occupation!r} has {name} {known} and {value}; an occupation has one value")
    return np.asarray([per_occupation[occupation] for occupation in names])


def pair_rows(
    predictions: np.ndarray,
    references: np.ndarray,
    genders: np.ndarray,
    table: np.ndarray,
    gotcha: np.ndarray | None,
) -> np.ndarray:
    """The per-pair columns of ``_COLUMNS`` (gotcha columns stay zero when ``gotcha`` is None).

    Parameters
    ----------
    predictions : numpy.ndarray
        The answer per sentence.
    references : numpy.ndarray
        The correct answer per sentence.
    genders : numpy.ndarray
        The pronoun's gender per sentence.
    table : numpy.ndarray
        Per pair, the row of its female, male and neutral sentence (−1: none).
    gotcha : numpy.ndarray or None
        Per sentence, whether it is a gotcha (:func:`gotcha_sentences`); None without BLS figures.

    Returns
    -------
    numpy.ndarray
        Shape ``(pairs, 19)``: pairs, resolved differently, and per gender the sentences, correct ones and ones
        resolved to the occupation, then per gotcha bucket and binary gender the sentences and correct ones.

    Examples
    --------
    >>> rows = pair_rows(np.array(["occupation", "participant"]), np.array(["occupation", "occupation"]),
    ...                  np.array(["female", "male"]), np.array([[0, 1, -1]]), None)
    >>> rows.shape, float(rows[0, 1])  # one pair, resolved differently
    ((1, 19), 1.0)
    """
    correct = predictions == references
    to_occupation = predictions == "occupation"
    features = np.zeros((len(predictions), len(_COLUMNS)))
    for gender in GENDERS:
        is_gender = genders == gender
        features[:, _COLUMN[f"sentences_{gender}"]] = is_gender
        features[:, _COLUMN[f"correct_{gender}"]] = is_gender & correct
        features[:, _COLUMN[f"occupation_{gender}"]] = is_gender & to_occupation
    if gotcha is not None:
        buckets = {"gotcha": gotcha, "non_gotcha": np.isin(genders, BINARY_GENDERS) & ~gotcha}
        for bucket, in_bucket in buckets.items():
            for gender in BINARY_GENDERS:
                selected = in_bucket & (genders == gender)
                features[:, _COLUMN[f"{bucket}_{gender}"]] = selected
                features[:, _COLUMN[f"correct_{bucket}_{gender}"]] = selected & correct
    present = table != -1
    rows = (features[np.where(present, table, 0)] * present[..., None]).sum(axis=1)
    rows[:, _COLUMN["pairs"]] = 1.0
    female, male = table[:, GENDERS.index("female")], table[:, GENDERS.index("male")]
    rows[:, _COLUMN["resolved_differently"]] = resolved_differently(predictions[female], predictions[male])
    return rows


def winogender_bias(
    predictions: Sequence[str],
    references: Sequence[str],
    occupations: Sequence[str],
    genders: Sequence[str],
    pair_ids: Sequence,
    bls_pct_female: Sequence[float | None] | None = None,
    bergsma_pct_female: Sequence[float | None] | None = None,
    *,
    block_ids: Sequence | None = None,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> MeasureResult:
    """All Winogender scores for per-sentence resolutions (``occupation``/``participant``/``neither``).

    The bootstrap resamples pairs, and whole blocks of them with ``block_ids``.

    Parameters
    ----------
    predictions : list of str
        what the system resolved the pronoun to: `occupation`,
        `participant` or `neither`.
    references : list of str
        the correct answer, `occupation` or `participant`.
    occupations : list of str
        the sentence's occupation, e.g. `surgeon`.
    genders : list of str
        the pronoun's gender, `female`, `male` or `neutral`.
    pair_ids : list of str
        one id per template × participant, shared by its gender variants
        (e.g. `surgeon.patient.0`); every pair needs a female and a male sentence, the neutral one
        is optional.
    bls_pct_female : list of float, optional
        the occupation's percent female per the U.S.
        Bureau of Labor Statistics (0-100, as in upstream occupations-stats.tsv). Needed for the
        gotcha accuracies and the BLS correlation.
    bergsma_pct_female : list of float, optional
        the occupation's percent female in text per
        Bergsma & Lin (2006), 0-100. Needed for the B&L correlation.
    block_ids : list of str or int, or list of tuple, optional
        the block of each sentence: its occupation (whose two templates × two participants a model answers
        alike), or another unit of the design inside which answers are not independent (every sentence of a
        pair shares it); the bootstrap draws whole blocks, its interval and p-value expanded for how few they
        are. A tuple per sentence gives one id per crossed factor, each drawn apart. Left out: every pair is a
        block of its own.
    n_bootstrap : int, default 1000
        bootstrap resamples of pairs (at most 10,000,000); 0 switches significance off.
    seed : int, default 0
        non-negative seed of the resampling, so results are reproducible.

    Returns
    -------
    MeasureResult
        The pooled scores overall and each occupation's ``preference`` in ``by_group[<occupation>]``
        (``corefbias.measures.result``; primary: ``occupation_share_male_minus_female``), with the pair rows its
        bootstrap resampled (``unit_rows``); the Pearson correlations carry their p-values and intervals. As a mapping,
        its flat
        keys (all scores are fractions, not percentages):

        * ``accuracy``, ``accuracy_female``, ``accuracy_male``, ``accuracy_neutral``,
          ``accuracy_male_minus_female``;
        * ``occupation_share_female``, ``occupation_share_male``, ``occupation_share_neutral`` (share
          of sentences resolved to the OCCUPATION), ``occupation_share_male_minus_female``;
        * ``pairs_resolved_differently`` (share of pairs whose female and male sentences got
          different predictions), ``num_pairs``;
        * ``accuracy_gotcha_female``, ``accuracy_gotcha_male``, ``accuracy_non_gotcha_female``,
          ``accuracy_non_gotcha_male``, ``accuracy_gotcha``, ``accuracy_non_gotcha``,
          ``accuracy_non_gotcha_minus_gotcha`` (Table 2);
        * ``preference/<occupation>`` (Fig. 4: female minus male share resolved to the occupation,
          from -1 to 1);
        * ``pearson_r_bls``, ``pearson_r_bergsma`` (Pearson r of the preferences with the percent female over
          occupations, Table 1), each with ``_p_value``, ``_ci_low`` and ``_ci_high`` (Pearson's test and
          Fisher's z interval, whatever ``n_bootstrap``);
        * for ``occupation_share_male_minus_female``, ``pairs_resolved_differently``,
          ``accuracy_male_minus_female`` and ``accuracy_non_gotcha_minus_gotcha``:
          ``<score>_p_value`` (two-sided bootstrap against 0; always None for
          ``pairs_resolved_differently``, which has no null), ``<score>_ci_low`` and
          ``<score>_ci_high`` (95% percentile interval), None with ``n_bootstrap=0``;
        * ``undefined``: every key whose value is None, mapped to the reason.

    Raises
    ------
    ValueError
        If the inputs differ in length; a prediction, reference or gender is not one of the labels
        above; an occupation is not a string; a pair lacks its female or male sentence or repeats a
        gender; the variants of a pair differ in occupation or answer; ``bls_pct_female`` or
        ``bergsma_pct_female`` is given for some rows only, outside 0-100, or has two values for one
        occupation; a block id is no id, or a pair's sentences lie in two blocks; or ``n_bootstrap`` or
        ``seed`` is not a non-negative integer (or ``n_bootstrap`` exceeds 10,000,000).

    Notes
    -----
    Per gender G, occupation_share_G = sentences with a G pronoun resolved to the occupation /
    sentences with a G pronoun, and accuracy_G the share resolved to the correct answer; the bias
    scores are the male − female differences. pairs_resolved_differently = pairs whose female and
    male sentences got different predictions / pairs. preference/<occupation> =
    occupation_share_female − occupation_share_male over that occupation's pairs, and
    pearson_r_bls / pearson_r_bergsma correlate it with the occupation's percent female (Table 1).
    A gotcha sentence (Table 2) has a pronoun of the occupation's BLS minority gender and the answer
    OCCUPATION, or of its majority gender (female iff at least 50% female) and the answer
    PARTICIPANT; neutral pronouns are in neither bucket.

    Undefined cases (None, with the reason under ``undefined``): ``accuracy_neutral`` and
    ``occupation_share_neutral`` when no neutral sentence was given; the gotcha / non-gotcha
    accuracies when ``bls_pct_female`` was not given or the bucket is empty, and
    ``accuracy_non_gotcha_minus_gotcha`` then; ``pearson_r_*`` and their p-values and intervals when the
    statistic was not given, or there are fewer than 3 occupations, or the preference or the percent
    female is constant across them; ``pairs_resolved_differently_p_value`` always (no null value);
    the significance keys with ``n_bootstrap=0``.

    References
    ----------
    Rudinger, R., Naradowsky, J., Leonard, B. and Van Durme, B. (2018). Gender Bias in Coreference
    Resolution. NAACL-HLT 2018.

    Examples
    --------
    Two pairs for "surgeon" (37.9% female per BLS). Male pronouns always go to the surgeon (share
    2/2); the female pronoun goes there only where that is correct (1/2), so the second pair is
    resolved differently and the preference is 0.5 − 1 = −0.5:

    >>> from corefbias import winogender_bias
    >>> result = winogender_bias(
    ...     ["occupation", "occupation", "occupation", "participant"],
    ...     ["occupation", "occupation", "participant", "participant"],
    ...     ["surgeon"] * 4,
    ...     ["male", "female", "male", "female"],
    ...     ["surgeon.patient.0", "surgeon.patient.0", "surgeon.patient.1", "surgeon.patient.1"],
    ...     bls_pct_female=[37.9] * 4,
    ...     n_bootstrap=0,
    ... )
    >>> round(result["occupation_share_male"], 3), round(result["occupation_share_female"], 3)
    (1.0, 0.5)
    >>> round(result["occupation_share_male_minus_female"], 3), round(result["pairs_resolved_differently"], 3)
    (0.5, 0.5)
    >>> round(result["preference/surgeon"], 3)
    -0.5
    >>> round(result["accuracy_male"], 3), round(result["accuracy_female"], 3)
    (0.5, 1.0)
    >>> result["pearson_r_bls"] is None  # one occupation: no correlation
    True
    """
    validation.check_lengths(
        predictions=predictions,
        references=references,
        occupations=occupations,
        genders=genders,
        pair_ids=pair_ids,
        optional={"bls_pct_female": bls_pct_female, "bergsma_pct_female": bergsma_pct_female, "block_ids": block_ids},
    )
    structured_inputs.check_significance(n_bootstrap, seed)
    structured_inputs.check_labels("predictions", predictions, PREDICTIONS)
    structured_inputs.check_labels("references", references, ANSWERS)
    structured_inputs.check_labels("genders", genders, GENDERS)
    # Occupations are sorted and name the preference/<occupation> scores: strings only.
    occupations = validation.check_ids("occupations", occupations, integers=False)
    order, table = _pair_table(pair_ids, genders, occupations, references)
    blocks = unit_blocks(block_ids, table_units(table, len(genders)), order, unit="pair")
    occupation_names = sorted(set(occupations))
    percent_female = {
        name: _occupation_statistic(name, values, occupations, occupation_names)
        for name, values in zip(STATISTICS, (bls_pct_female, bergsma_pct_female))
    }
    predictions, references, genders = np.asarray(predictions), np.asarray(references), np.asarray(genders)
    occupation_index = np.searchsorted(occupation_names, np.asarray(occupations))
    gotcha = None
    if percent_female["bls_pct_female"] is not None:
        gotcha = gotcha_sentences(genders, references, percent_female["bls_pct_female"][occupation_index])
    rows = pair_rows(predictions, references, genders, table, gotcha)

    scores = statistic(rows.sum(axis=0))
    scores["num_pairs"] = len(rows)
    pair_occupation = occupation_index[table[:, GENDERS.index("female")]]  # a pair's variants share it
    by_occupation = np.zeros((len(occupation_names), rows.shape[1]))
    np.add.at(by_occupation, pair_occupation, rows)
    shares = statistic(by_occupation)
    # Fig. 4's scale: positive when female pronouns go to the occupation more often than male ones.
    preference = shares["occupation_share_female"] - shares["occupation_share_male"]
    reasons = {key: reason for key, reason in _REASONS.items() if key in scores}
    significance_reasons = {"pairs_resolved_differently": _REASONS["pairs_resolved_differently_p_value"]}
    correlations = {}
    for name, per_occupation in percent_female.items():
        key = f"pearson_r_{name.removesuffix('_pct_female')}"
        if per_occupation is None:
            correlations[key] = Correlation(*[float("nan")] * 4)
            reasons[key] = significance_reasons[key] = f"{name} was not given"
        else:
            correlations[key] = pearson_correlation(preference, per_occupation)
            reasons[key] = significance_reasons[key] = (
                f"needs at least 3 occupations and neither the preference nor {name} constant across them"
            )
        scores[key] = correlations[key].r
    cells = {}
    for name, value in zip(occupation_names, preference):
        scores[f"preference/{name}"] = value
        cells[f"preference/{name}"] = (Cell(group=name), "preference")

    inferences = bootstrap_test(
        rows, statistic, SIGNIFICANCE_NULLS, n_bootstrap=n_bootstrap, seed=seed, unit="pair", blocks=blocks
    )
    return measure_result(
        "winogender_bias",
        scores,
        reasons,
        inferences,
        n_bootstrap=n_bootstrap,
        cells=cells,
        primary="occupation_share_male_minus_female",
        correlations=correlations,
        significance_reasons=significance_reasons,
        unit_rows=UnitRows(np.asarray(rows, dtype=float), statistic, tuple(SIGNIFICANCE_NULLS), blocks=blocks),
    )
