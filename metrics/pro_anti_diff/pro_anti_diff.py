"""pip install corefbias
evaluate.load("corefbias/pro_anti_diff")

Pro- vs anti-stereotypical coreference gap (WinoBias, SoWinoBias, DaWinoBias / GenDa Lens)."""

import datasets
import evaluate

import corefbias.data.citations as citations
import corefbias.hub.evaluate_modules as support
import corefbias.measures.pro_anti_diff as measure

_CITATION = citations.cite("zhao-etal-2018-gender", "dawkins-2021-second", "sloth-rybner-2023-genda-lens")

_DESCRIPTION = """\
WinoBias (Zhao et al., 2018), its Danish translation DaWinoBias (scored by GenDa Lens) and
SoWinoBias (Dawkins, 2021) pair each pro-stereotypical sentence, where the pronoun's antecedent
matches a gender stereotype ("The developer argued with the designer because he ..."), with an
anti-stereotypical one that contradicts it ("... because she ..."). Bias is the performance gap:
diff = pro − anti (WinoBias, SoWinoBias) and log2(pro / anti) (GenDa Lens's Gender Effect Size),
with accuracy (SoWinoBias, GenDa Lens) or pronoun–candidate link F1 as the performance. Each example
is one pronoun–candidate decision (is the pronoun linked to this candidate?) and its gold label; a
pronoun linked to no candidate counts as no link (unlinked="wrong") or is left out (unlinked="drop",
GenDa Lens's DaWinoBias scoring).
Also returned: pro, anti and their average per group (e.g. occupation gender, adjective polarity,
WinoBias type) and two-sided bootstrap p-values with 95% percentile confidence intervals,
resampling aligned pro/anti pairs when pair_ids are given (a paired test), and whole blocks of them when
block_ids are given: the pairs sharing a sentence frame or occupations, which a model answers alike.
"""

_KWARGS_DESCRIPTION = support.kwargs_description(
    measure.pro_anti_diff,
    returns="""
    pro, anti, average ((pro + anti) / 2), diff (pro − anti), log2_ratio (log2(pro / anti)),
    num_pro, num_anti (examples scored), num_unlinked_pro, num_unlinked_anti (`None` predictions,
    dropped or counted as no link), num_pairs (pairs scored, with pair_ids); with groups the five scores again as
    `<score>/<group>`; for diff and log2_ratio (overall and per group): `<name>_p_value` (two-sided
    bootstrap against 0), `<name>_ci_low`, `<name>_ci_high`
    (95% percentile interval). Fractions, not percentages. `undefined` maps any score the data
    leave undefined (None) to the reason.
""",
    examples="""
    Four aligned pro/anti pairs, two with female and two with male antecedents:

    >>> import evaluate
    >>> pro_anti_diff = evaluate.load("metrics/pro_anti_diff")
    >>> results = pro_anti_diff.compute(
    ...     predictions=[True, True, True, False, True, False, False, True],
    ...     references=[True] * 8,
    ...     conditions=["pro"] * 4 + ["anti"] * 4,
    ...     pair_ids=["p1", "p2", "p3", "p4"] * 2,
    ...     groups=["female", "female", "male", "male"] * 2,
    ...     n_bootstrap=0,
    ... )
    >>> results["pro"], results["anti"], results["average"], results["diff"]
    (0.75, 0.5, 0.625, 0.25)
    >>> round(results["log2_ratio"], 4)
    0.585
    >>> results["diff/female"], results["diff/male"]
    (0.5, 0.0)

    GenDa Lens's DaWinoBias scoring: the pronoun of the last anti sentence is linked to no occupation
    (None) and that sentence is left out, so anti = 1/3 instead of 1/4:

    >>> predictions = [True, True, True, False, True, False, False, None]
    >>> dropped = pro_anti_diff.compute(predictions=predictions, references=[True] * 8,
    ...                                 conditions=["pro"] * 4 + ["anti"] * 4, unlinked="drop", n_bootstrap=0)
    >>> round(dropped["anti"], 4), round(dropped["log2_ratio"], 4), dropped["num_anti"], dropped["num_unlinked_anti"]
    (0.3333, 1.1699, 3, 1)

    Pairs that share a sentence frame are not independent: with block_ids the bootstrap draws whole frames, and
    the interval rests on 2 of them, not on 4 pairs: too few for a 95% interval, as it says:

    >>> blocked = pro_anti_diff.compute(
    ...     predictions=[True, True, True, False, True, False, False, True],
    ...     references=[True] * 8,
    ...     conditions=["pro"] * 4 + ["anti"] * 4,
    ...     pair_ids=["p1", "p2", "p3", "p4"] * 2,
    ...     block_ids=["janitor + accountant", "janitor + accountant", "chief + assistant", "chief + assistant"] * 2,
    ... )
    >>> blocked["diff"], blocked["diff_ci_low"], blocked["undefined"]["diff_ci_low"]
    (0.25, None, 'a 95% interval resting on 2 blocks needs more blocks: its tails are too far out')
""",
)

_FEATURES = datasets.Features(
    {
        "predictions": datasets.Value("bool"),
        "references": datasets.Value("bool"),
        "conditions": datasets.Value("string"),
        "pair_ids": datasets.Value("string"),
        "groups": datasets.Value("string"),
        "block_ids": datasets.Value("string"),
    }
)


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ProAntiDiff(support.CorefBiasMetric):
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    INPUTS_DESCRIPTION = _KWARGS_DESCRIPTION
    FEATURES = _FEATURES
    HOMEPAGE = "https://github.com/uclanlp/corefBias"
    REFERENCE_URLS = [
        "https://aclanthology.org/N18-2003",
        "https://aclanthology.org/2021.gebnlp-1.12",
        "https://github.com/NLP-exam/DaWinoBias",
        "https://dadebias.github.io/genda-lens/user_guide/coref/",
    ]
    OPTIONAL_INPUTS = ("pair_ids", "groups", "block_ids")
    ID_INPUTS = ("pair_ids", "block_ids")
    LABELS = {"conditions": measure.CONDITIONS}
    WIDGET_EXAMPLE = [
        ["true", "true", "pro", "p1", "female", "janitor + accountant"],
        ["true", "true", "pro", "p2", "female", "janitor + accountant"],
        ["true", "true", "pro", "p3", "male", "chief + assistant"],
        ["false", "true", "pro", "p4", "male", "chief + assistant"],
        ["true", "true", "pro", "p5", "female", "carpenter + teacher"],
        ["true", "true", "anti", "p1", "female", "janitor + accountant"],
        ["false", "true", "anti", "p2", "female", "janitor + accountant"],
        ["false", "true", "anti", "p3", "male", "chief + assistant"],
        ["true", "true", "anti", "p4", "male", "chief + assistant"],
        ["false", "true", "anti", "p5", "female", "carpenter + teacher"],
    ]

    def _score(
        self,
        predictions,
        references,
        conditions,
        pair_ids=None,
        groups=None,
        block_ids=None,
        score="accuracy",
        unlinked="wrong",
        n_bootstrap=1000,
        seed=0,
    ):
        return measure.pro_anti_diff(
            predictions,
            references,
            conditions,
            pair_ids,
            groups,
            block_ids=block_ids,
            score=score,
            unlinked=unlinked,
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
