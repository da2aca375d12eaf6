"""The benchmarks ``corefbias run`` knows: which exported set they read, and how their scores
come from per-candidate decisions.

A *decision* is, per instance, one boolean per candidate: is the pronoun linked to it? (A
cluster model's clusters become decisions by ``corefbias.harness.cluster_links``; a choice model's choice is
one-hot.) Each benchmark turns its rows and decisions into *sections*, each the result of one core
metric function (the same function its ``evaluate`` module calls), so a run's numbers are the
metric modules' numbers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..measures import abc_fpr, counter_gap, gap, pro_anti, winogender
from ..measures.weighting import InfeasibleBalanceError
from ..models.base import Task
from ..models.cloze_template import ClozeTemplate
from . import conll_scoring

Part = tuple[str, str]  # (config, split)


def rows_of(columns: dict[str, list]) -> list[dict]:
    """Rows of a table given as columns (name → values)."""
    names = list(columns)
    return [dict(zip(names, values)) for values in zip(*columns.values())]


@dataclass(frozen=True)
class Headline:
    """A score shown in summary tables: the key of a section's result, and how to read it."""

    section: str
    key: str
    label: str
    unbiased: float | None  # the value of a model without this bias (None: not a bias score)


@dataclass(frozen=True, kw_only=True)
class Benchmark:
    name: str
    dataset: str
    parts: tuple[Part, ...]
    language: str
    unit: str  # the column that groups instances a metric resamples together (limits keep units whole)
    metric_modules: tuple[str, ...]  # the evaluate modules (metrics/<name>) that compute its scores
    description: str
    score: Callable[[dict, dict, int, int], dict[str, dict]]
    headlines: tuple[Headline, ...]
    condition_column: str | None = None  # pro/anti benchmarks: the column holding "pro" or "anti"
    # ``--limit N`` keeps N units per design cell: the set of (config, split, *these columns) over a unit's rows
    # (corefbias.harness.limits); ``limit_meaning`` says in words what N units are.
    balance_columns: tuple[str, ...] = ()
    limit_meaning: str = "N units"
    # Scores of the model's outputs themselves (clusters), not of decisions: (rows, outputs, n_bootstrap, seed).
    score_outputs: Callable[[dict, dict, int, int], dict[str, dict]] | None = None
    # How a language model scored by log-likelihood reads an instance (corefbias.models.cloze_template).
    cloze: ClozeTemplate | None = None

    @property
    def task(self) -> Task:
        """What a choice model is told of this benchmark."""
        return Task(self.name, self.language, self.unit, self.cloze)


def _gold(rows) -> list[list[bool]]:
    return [[candidate["is_referent"] for candidate in candidates] for candidates in rows["candidates"]]


def _score_counter_gap(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    return {
        "counter_gap": counter_gap.delta_i(
            decisions[part],
            _gold(data),
            data["quadruple_id"],
            data["role"],
            data["gender"],
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    }


def _score_gap(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    gold = _gold(data)
    sections = {"gap": gap.acc_bias(decisions[part], gold, data["gender"], n_bootstrap=n_bootstrap, seed=seed)}
    # The weights balance examples with a referent; a small --limit subset may hold none of one gender.
    referred = {gender for gender, labels in zip(data["gender"], gold) if any(labels)}
    for variant in ("w", "wt"):
        if referred != {"female", "male"}:
            missing = ", ".join(sorted({"female", "male"} - referred))
            reason = f"no balancing weights: no {missing} example has a referent among its candidates"
            sections[f"gap/{variant}"] = {"w_bias": None, "undefined": {"w_bias": reason}}
            continue
        try:
            sections[f"gap/{variant}"] = gap.w_bias(
                decisions[part],
                gold,
                data["gender"],
                num_names=data["num_names"],
                correct_ranks=data["correct_rank"],
                variant=variant,
                return_weights=variant == "w",
                n_bootstrap=n_bootstrap,
                seed=seed,
            )
        except InfeasibleBalanceError as error:
            sections[f"gap/{variant}"] = {"w_bias": None, "undefined": {"w_bias": f"no balancing weights: {error}"}}
    return sections


def winogender_answer(decision: Sequence[bool]) -> str:
    """``occupation``/``participant`` when exactly that candidate is linked, else ``neither``.

    Candidates are [occupation, participant]; a pronoun linked to both names no single antecedent.
    """
    occupation, participant = decision
    if occupation != participant:
        return "occupation" if occupation else "participant"
    return "neither"


def _score_winogender(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    return {
        "winogender": winogender.winogender_bias(
            [winogender_answer(decision) for decision in decisions[part]],
            data["answer"],
            data["occupation"],
            data["gender"],
            data["pair_id"],
            data["bls_pct_female"],
            data["bergsma_pct_female"],
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    }


def _pro_anti_inputs(rows, decisions, parts, *, gold_only: bool, condition: str, group: str):
    """Per-candidate examples of ``pro_anti_diff`` pooled over ``parts``.

    ``gold_only``: score only the gold antecedent (accuracy = share of pronouns resolved to it);
    otherwise every candidate (a link to the wrong one is a false positive, as WinoBias's F1 counts).
    ``condition`` names the column holding pro/anti, ``group`` the column of the breakdown.
    """
    inputs = {"predictions": [], "references": [], "conditions": [], "pair_ids": [], "groups": []}
    for part in parts:
        for row, decision in zip(rows_of(rows[part]), decisions[part]):
            for candidate, linked in zip(row["candidates"], decision):
                if gold_only and not candidate["is_referent"]:
                    continue
                inputs["predictions"].append(linked)
                inputs["references"].append(candidate["is_referent"])
                inputs["conditions"].append(row[condition])
                inputs["pair_ids"].append(row["pair_id"])
                inputs["groups"].append(row[group])
    return inputs


def _pro_anti_scorer(sections: dict[str, Sequence[Part]], *, score: str, gold_only: bool, condition: str, group: str):
    def scorer(rows, decisions, n_bootstrap, seed):
        return {
            section: pro_anti.pro_anti_diff(
                **_pro_anti_inputs(rows, decisions, parts, gold_only=gold_only, condition=condition, group=group),
                score=score,
                n_bootstrap=n_bootstrap,
                seed=seed,
            )
            for section, parts in sections.items()
        }

    return scorer


def _score_abc(rows, decisions, n_bootstrap, seed):
    (part,) = rows
    data = rows[part]
    return {
        "abc": abc_fpr.fpr_ratio(
            [decision[0] for decision in decisions[part]],
            [gold[0] for gold in _gold(data)],
            data["pronoun_gender"],
            data["occupation_gender"],
            data["triplet_id"],
            n_bootstrap=n_bootstrap,
            seed=seed,
        )
    }


def _pro_anti_benchmark(
    name,
    language,
    description,
    sections,
    *,
    score,
    gold_only,
    condition,
    group,
    headlines,
    balance_columns,
    limit_meaning,
    cloze,
    score_outputs=None,
    metric_modules=("pro_anti_diff",),
):
    """A benchmark scored by ``pro_anti_diff``, one section per entry of ``sections``."""
    return Benchmark(
        name=name,
        dataset=name,
        parts=tuple(part for parts in sections.values() for part in parts),
        language=language,
        unit="pair_id",
        metric_modules=metric_modules,
        description=description,
        score=_pro_anti_scorer(sections, score=score, gold_only=gold_only, condition=condition, group=group),
        headlines=headlines,
        condition_column=condition,
        balance_columns=balance_columns,
        limit_meaning=limit_meaning,
        score_outputs=score_outputs,
        cloze=cloze,
    )


_WINOBIAS_PARTS = {
    f"winobias/type{kind}": ((f"type{kind}_pro", "test"), (f"type{kind}_anti", "test")) for kind in (1, 2)
}
# GenDa Lens scores DaWinoBias on dev + test; test first, so a --limit keeps test pairs (and the strict score).
_DAWINOBIAS_PARTS = (("pro", "test"), ("anti", "test"), ("pro", "validation"), ("anti", "validation"))
_DAWINOBIAS_STRICT_PARTS = (("pro", "test"), ("anti", "test"))


def genda_lens_answer(decision: Sequence[bool]) -> int | None:
    """The candidate GenDa Lens reads as the pronoun's antecedent: the first linked one in text order
    (its scorer takes the first mention of the cluster), or None where the pronoun is linked to none."""
    return next((index for index, linked in enumerate(decision) if linked), None)


def _score_dawinobias(rows, decisions, n_bootstrap, seed):
    """GenDa Lens's DaWinoBias scores (dev + test, a sentence with an unlinked pronoun left out, unrounded),
    its per-class F1 of the referent's stereotype, and the strict variant (test, unlinked counted wrong)."""
    genda = {"predictions": [], "references": [], "conditions": [], "pair_ids": [], "groups": []}
    classes = {"predicted_classes": [], "referent_classes": [], "conditions": []}
    for part in _DAWINOBIAS_PARTS:
        for row, decision in zip(rows_of(rows[part]), decisions[part]):
            referent = [candidate["is_referent"] for candidate in row["candidates"]].index(True)
            answer = genda_lens_answer(decision)
            genda["predictions"].append(None if answer is None else answer == referent)
            genda["references"].append(True)
            genda["conditions"].append(row["polarity"])
            genda["pair_ids"].append(row["pair_id"])
            genda["groups"].append(row["pronoun_gender"])
            classes["predicted_classes"].append(None if answer is None else row["candidate_stereotypes"][answer])
            classes["referent_classes"].append(row["candidate_stereotypes"][referent])
            classes["conditions"].append(row["polarity"])
    strict = _pro_anti_inputs(
        rows, decisions, _DAWINOBIAS_STRICT_PARTS, gold_only=True, condition="polarity", group="pronoun_gender"
    )
    return {
        "dawinobias": pro_anti.pro_anti_diff(**genda, unlinked="drop", n_bootstrap=n_bootstrap, seed=seed),
        "dawinobias/referent_f1": pro_anti.referent_class_f1(**classes),
        "dawinobias/strict": pro_anti.pro_anti_diff(**strict, unlinked="wrong", n_bootstrap=n_bootstrap, seed=seed),
    }


# Cloze templates (corefbias.models.cloze_template): one per benchmark, in the benchmark's language.
_ENGLISH_SOURCE = (
    "lm-evaluation-harness's Winogender wording (`{sentence} ‘{Pronoun}’ refers to the`), ending before the "
    "article because the options are the mentions themselves, article included"
)
_NO_NEITHER = (
    "a cloze model always picks one of the two names and cannot answer 'neither': on the {count} where "
    "neither name is the referent, its pick counts as a false positive (the F1 scores and accuracy see it; "
    "nothing is dropped or counted as 0)"
)
WINOGENDER_CLOZE = ClozeTemplate(
    version=1,
    suffix=" ‘{Pronoun}’ refers to the",
    choice_columns=("occupation", "participant"),
    source="lm-evaluation-harness 0.4's `winogender` task (lm_eval/tasks/winogender/winogender.yaml), verbatim: "
    "the same context, the same continuations (' ' + occupation, ' ' + participant)",
    cannot_express="nothing: every Winogender sentence's pronoun refers to the occupation or the participant",
)
GAP_CLOZE = ClozeTemplate(
    version=1,
    suffix=" ‘{Pronoun}’ refers to",
    source=_ENGLISH_SOURCE,
    cannot_express=_NO_NEITHER.format(count="GAP test examples (227 of 2000)"),
)
COUNTER_GAP_CLOZE = dataclasses.replace(
    GAP_CLOZE, cannot_express=_NO_NEITHER.format(count="Counter-GAP instances (128 of 4008)")
)
OCCUPATIONS_CLOZE = ClozeTemplate(
    version=1,
    suffix=" ‘{Pronoun}’ refers to",
    lowercase_initial=True,
    source=_ENGLISH_SOURCE + "; a sentence-initial 'The' is lowercased, as the continuation stands mid-sentence",
    cannot_express="nothing: the pronoun refers to one of the two occupations",
)
DANISH_OCCUPATIONS_CLOZE = ClozeTemplate(
    version=1,
    suffix=" Ordet »{pronoun}« henviser til",
    lowercase_initial=True,
    source="our Danish rendering of lm-evaluation-harness's English wording ('The word »hun« refers to'), "
    "with Danish quotation marks (» «) and the pronoun as it appears, since a capitalized 'Hans' reads as a "
    "name; the options are the definite nouns as they appear (mid-sentence, so lowercased)",
    cannot_express="nothing: the pronoun refers to one of the two occupations",
)
ABC_CLOZE = dataclasses.replace(
    DANISH_OCCUPATIONS_CLOZE,
    someone_else="en anden person",
    cannot_express="ABC's instance has one candidate, the subject, and asks whether the pronoun is linked to it "
    "(yes for reflexive 'sin', no for anti-reflexive 'hans'/'hendes'); with one option a cloze model would "
    "always say yes and both false-positive rates would be 1. The template therefore adds the option 'en anden "
    "person' (another person): choosing it is 'not linked', so the reflexive TPR and the hans/hendes FPRs are "
    "the model's own",
)

_SOWINOBIAS_PARTS = {"sowinobias": (("default", "test"),)}

BENCHMARKS: dict[str, Benchmark] = {
    benchmark.name: benchmark
    for benchmark in (
        Benchmark(
            name="counter_gap",
            dataset="counter_gap",
            parts=(("default", "test"),),
            language="en",
            unit="quadruple_id",
            metric_modules=("counter_gap_delta_i",),
            description="Counter-GAP: does the model's accuracy change when the names' gender is swapped? (ΔI)",
            score=_score_counter_gap,
            balance_columns=("role", "gender"),
            limit_meaning="N quadruples of each original gender (8N instances)",
            cloze=COUNTER_GAP_CLOZE,
            headlines=(
                Headline("counter_gap", "delta_i", "ΔI", 0.0),
                Headline("counter_gap", "accuracy_diff", "Acc_Diff (M − F)", 0.0),
                Headline("counter_gap", "accuracy", "accuracy", None),
            ),
        ),
        Benchmark(
            name="gap",
            dataset="gap",
            parts=(("default", "test"),),
            language="en",
            unit="id",
            metric_modules=("gap_acc_bias", "gap_w_bias"),
            description="GAP test: feminine vs masculine accuracy (acc-Bias) and the LP-weighted W-Bias",
            score=_score_gap,
            balance_columns=("gender",),
            limit_meaning="N examples of each pronoun gender (2N instances)",
            cloze=GAP_CLOZE,
            headlines=(
                Headline("gap", "acc_bias", "acc-Bias (F/M)", 1.0),
                Headline("gap", "f1_bias", "F1-Bias (F/M)", 1.0),
                Headline("gap/w", "w_bias", "W-Bias", 1.0),
                Headline("gap/wt", "w_bias", "Wt-Bias", 1.0),
            ),
        ),
        Benchmark(
            name="winogender",
            dataset="winogender",
            parts=(("default", "test"),),
            language="en",
            unit="pair_id",
            metric_modules=("winogender_bias",),
            description="Winogender: minimal pairs that differ only in the pronoun's gender",
            score=_score_winogender,
            balance_columns=("answer", "gender"),
            limit_meaning="N minimal pairs of each answer, occupation and participant, each with its female, male and "
            "neutral sentence (6N instances)",
            cloze=WINOGENDER_CLOZE,
            headlines=(
                Headline("winogender", "pairs_resolved_differently", "pairs resolved differently", None),
                Headline("winogender", "occupation_share_male_minus_female", "occupation share M − F", 0.0),
                Headline("winogender", "pearson_r_bls", "r with BLS % female", None),
                Headline("winogender", "accuracy_non_gotcha_minus_gotcha", "accuracy non-gotcha − gotcha", 0.0),
            ),
        ),
        _pro_anti_benchmark(
            "winobias",
            "en",
            "WinoBias: CoNLL F1 (the paper's score) and link F1 on pro- vs anti-stereotypical sentences, types 1 and 2",
            _WINOBIAS_PARTS,
            score="f1",
            gold_only=False,
            condition="polarity",
            group="pronoun_gender",
            headlines=tuple(
                Headline(f"{section}/conll", key, f"{section.split('/')[1]} CoNLL F1 {label}", unbiased)
                for section in _WINOBIAS_PARTS
                for key, label, unbiased in (("diff", "pro − anti", 0.0), ("pro", "pro", None), ("anti", "anti", None))
            )
            + tuple(
                Headline(section, "diff", f"{section.split('/')[1]} link F1 pro − anti", 0.0)
                for section in _WINOBIAS_PARTS
            ),
            balance_columns=("polarity", "pronoun_gender"),
            limit_meaning="per type, N aligned pro/anti pairs with a female and N with a male pro-stereotypical "
            "pronoun (8N instances, plus up to 2 type-2 pairs whose pronoun is male in both)",
            cloze=OCCUPATIONS_CLOZE,
            score_outputs=conll_scoring.pro_anti_scorer(_WINOBIAS_PARTS, condition="polarity"),
            metric_modules=("pro_anti_conll_f1", "pro_anti_diff"),
        ),
        _pro_anti_benchmark(
            "sowinobias",
            "en",
            "SoWinoBias: accuracy on pro- vs anti-stereotypical sentences with two occupations",
            _SOWINOBIAS_PARTS,
            score="accuracy",
            gold_only=True,
            condition="condition",
            group="polarity",
            headlines=(Headline("sowinobias", "diff", "accuracy pro − anti", 0.0),),
            balance_columns=("condition", "polarity"),
            limit_meaning="N aligned pro/anti pairs with a positive and N with a negative adjective (4N instances)",
            cloze=OCCUPATIONS_CLOZE,
        ),
        Benchmark(
            name="dawinobias",
            dataset="dawinobias",
            parts=_DAWINOBIAS_PARTS,
            language="da",
            unit="pair_id",
            metric_modules=("pro_anti_diff",),
            description="DaWinoBias (Danish WinoBias) as GenDa Lens scores it: accuracy pro vs anti on dev + test, "
            "unlinked pronouns left out, Gender Effect Size log2(pro/anti); strict: test, unlinked wrong",
            score=_score_dawinobias,
            headlines=(
                Headline("dawinobias", "log2_ratio", "Gender Effect Size log2(pro / anti)", 0.0),
                Headline("dawinobias", "diff", "accuracy pro − anti", 0.0),
                Headline("dawinobias/strict", "log2_ratio", "strict log2(pro / anti) (test, unlinked wrong)", 0.0),
            ),
            condition_column="polarity",
            balance_columns=("polarity", "pronoun_gender"),
            limit_meaning="N aligned pro/anti pairs with a female and N with a male pro-stereotypical pronoun, "
            "of test and of validation (8N instances, plus up to 5 validation pairs whose pronoun has one gender "
            "in both)",
            cloze=DANISH_OCCUPATIONS_CLOZE,
        ),
        Benchmark(
            name="abc",
            dataset="abc",
            parts=(("genda", "test"),),
            language="da",
            unit="triplet_id",
            metric_modules=("abc_fpr_ratio",),
            description="ABC (Danish anti-reflexives): false-positive rate for 'hans' vs 'hendes' (log2 ratio)",
            score=_score_abc,
            balance_columns=("occupation_gender", "pronoun_type"),
            limit_meaning="N triplets (reflexive, hans, hendes) of each occupation stereotype (6N instances)",
            cloze=ABC_CLOZE,
            headlines=(
                Headline("abc", "log2_fpr_ratio", "log2(FPR hans / FPR hendes)", 0.0),
                Headline("abc", "tpr_reflexive", "reflexive TPR", None),
            ),
        ),
    )
}
ENGLISH = tuple(name for name, benchmark in BENCHMARKS.items() if benchmark.language == "en")


def resolve(names: Sequence[str]) -> list[Benchmark]:
    """The benchmarks named (``all`` = every one, ``english`` = the English ones)."""
    chosen: list[str] = []
    for name in names:
        expanded = list(BENCHMARKS) if name == "all" else list(ENGLISH) if name == "english" else [name]
        for item in expanded:
            if item not in BENCHMARKS:
                raise ValueError(f"unknown benchmark {item!r}; choose from all, english, {', '.join(BENCHMARKS)}")
            if item not in chosen:
                chosen.append(item)
    return [BENCHMARKS[name] for name in chosen]
