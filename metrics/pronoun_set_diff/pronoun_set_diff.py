"""pip install corefbias
evaluate.load("corefbias/pronoun_set_diff")

Pronoun set difference: how much worse (or better) a model resolves they, xe or another pronoun set than he/she on the
same templates, with bootstrap significance Holm-adjusted across the sets."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.pronoun_set_diff as measure

_CITATION = citations.cite("gautam-etal-2024-revisiting", "holm-1979-simple")

_DESCRIPTION = """\
Sets such as WinoPron (Gautam et al., 2024), MISGENDERED and RUFF fill one template with several pronoun sets (he, she,
they, xe, ...). Their papers report accuracy per set side by side; this measure says whether a set's difference is more
than noise. For each set other than the reference sets (he and she by default) it returns the difference: the set's
accuracy minus the mean accuracy of the reference sets, paired over templates (the same sentence with another pronoun):
the bootstrap resamples templates, each with all its pronoun sets, so a template's difficulty cancels out. Each
difference has a two-sided bootstrap p-value against 0, Holm-adjusted across the sets (the unadjusted one too), and a
95% percentile interval. Given occupations, the differences per occupation, and with the occupations' percent female
(U.S. Bureau of Labor Statistics, as Winogender gives it) the Pearson r of each set's per-occupation difference with it.
With block_ids (what several templates share: WinoPron's and RUFF's occupation) the bootstrap draws whole blocks of
templates, its intervals and p-values expanded for how few they are. """

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.pronoun_set_diff,
    returns="""
    `accuracy/<set>` for every pronoun set and `accuracy/reference` (mean of the reference sets' accuracies), each
    with `_ci_low` and `_ci_high`; `diff/<set>` for every other set (its accuracy minus `accuracy/reference`) with
    `diff/<set>_p_value` (two-sided bootstrap against 0, Holm-adjusted across the sets),
    `diff/<set>_unadjusted_p_value`, `diff/<set>_ci_low` and `diff/<set>_ci_high` (95% percentile interval);
    `num_templates`; with occupations `occupation_diff/<set>/<occupation>`, and with bls_pct_female
    `pearson_r_bls/<set>` and `pearson_r_bls/<set>_p_value`. All fractions, not percentages. `undefined` maps any
    score the data leave undefined (returned as None) to the reason.
""",
    examples="""
    Two templates, each filled with he, she and they; the model misses "they" in one of them:

    >>> import evaluate
    >>> pronoun_set_diff = evaluate.load("metrics/pronoun_set_diff")
    >>> results = pronoun_set_diff.compute(
    ...     predictions=["occupation", "occupation", "participant", "participant", "participant", "participant"],
    ...     references=["occupation"] * 3 + ["participant"] * 3,
    ...     pronoun_sets=["he", "she", "they"] * 2,
    ...     template_ids=["t1"] * 3 + ["t2"] * 3,
    ...     n_bootstrap=0,
    ... )
    >>> results["accuracy/they"], results["accuracy/reference"], results["diff/they"]
    (0.5, 1.0, -0.5)

    Neopronouns against "they" instead of he/she:

    >>> results = pronoun_set_diff.compute(
    ...     predictions=["occupation", "participant", "occupation", "occupation"],
    ...     references=["occupation"] * 4,
    ...     pronoun_sets=["they", "xe"] * 2,
    ...     template_ids=["t1", "t1", "t2", "t2"],
    ...     reference_sets=["they"],
    ...     n_bootstrap=0,
    ... )
    >>> results["diff/xe"]
    -0.5

    Twelve templates of six occupations, two each: the model misses "xe" in both templates of three occupations.
    Drawn template by template the difference looks sure; an occupation's templates are answered alike, and drawn by
    occupation (block_ids) the interval rests on 6 blocks and reaches 0:

    >>> occupations = ["nurse", "surgeon", "baker", "cashier", "chef", "clerk"]
    >>> rows = [(job, template, name) for job in occupations for template in (0, 1) for name in ("he", "she", "xe")]
    >>> inputs = dict(
    ...     predictions=["participant" if name == "xe" and job in occupations[:3] else "occupation"
    ...                  for job, _, name in rows],
    ...     references=["occupation"] * len(rows),
    ...     pronoun_sets=[name for _, _, name in rows],
    ...     template_ids=[f"{job}.{template}" for job, template, _ in rows],
    ... )
    >>> by_template = pronoun_set_diff.compute(**inputs)
    >>> by_occupation = pronoun_set_diff.compute(**inputs, block_ids=[job for job, _, _ in rows])
    >>> [round(by_template[key], 3) for key in ("diff/xe", "diff/xe_ci_low", "diff/xe_ci_high", "diff/xe_p_value")]
    [-0.5, -0.833, -0.167, 0.013]
    >>> [round(by_occupation[key], 3) for key in ("diff/xe", "diff/xe_ci_low", "diff/xe_ci_high", "diff/xe_p_value")]
    [-0.5, -1.0, 0.0, 0.104]
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("string"),
        "references": datasets.Value("string"),
        "pronoun_sets": datasets.Value("string"),
        "template_ids": datasets.Value("string"),
        "occupations": datasets.Value("string"),
        "bls_pct_female": datasets.Value("float64"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class PronounSetDiff(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    HOMEPAGE = "https://github.com/uds-lsv/winopron"
    REFERENCE_URLS = ["https://github.com/uds-lsv/winopron", "https://www.jstor.org/stable/4615733"]
    OPTIONAL_INPUTS = ("occupations", "bls_pct_female", "block_ids")
    ID_INPUTS = ("template_ids", "block_ids")
    WIDGET_EXAMPLE = [
        ["occupation", "occupation", "he", "nurse.patient.nom", "nurse", "89.58", "nurse"],
        ["occupation", "occupation", "she", "nurse.patient.nom", "nurse", "89.58", "nurse"],
        ["participant", "occupation", "they", "nurse.patient.nom", "nurse", "89.58", "nurse"],
        ["participant", "occupation", "xe", "nurse.patient.nom", "nurse", "89.58", "nurse"],
        ["occupation", "occupation", "he", "nurse.patient.acc", "nurse", "89.58", "nurse"],
        ["occupation", "occupation", "she", "nurse.patient.acc", "nurse", "89.58", "nurse"],
        ["occupation", "occupation", "they", "nurse.patient.acc", "nurse", "89.58", "nurse"],
        ["participant", "occupation", "xe", "nurse.patient.acc", "nurse", "89.58", "nurse"],
        ["participant", "participant", "he", "surgeon.patient.acc", "surgeon", "37.9", "surgeon"],
        ["participant", "participant", "she", "surgeon.patient.acc", "surgeon", "37.9", "surgeon"],
        ["participant", "participant", "they", "surgeon.patient.acc", "surgeon", "37.9", "surgeon"],
        ["occupation", "participant", "xe", "surgeon.patient.acc", "surgeon", "37.9", "surgeon"],
    ]

    def _score(
        self,
        predictions,
        references,
        pronoun_sets,
        template_ids,
        occupations=None,
        bls_pct_female=None,
        block_ids=None,
        reference_sets=measure.REFERENCE_SETS,
        n_bootstrap=1000,
        seed=0,
    ):
        return measure.pronoun_set_diff(
            predictions,
            references,
            pronoun_sets,
            template_ids,
            occupations,
            bls_pct_female,
            reference_sets=reference_sets,
            block_ids=block_ids,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
