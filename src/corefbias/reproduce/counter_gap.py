"""Recompute Counter-GAP Tables 2, 3 and 4 (no-debiasing rows) from the published system outputs."""

from __future__ import annotations

from dataclasses import dataclass

from ..benchmarks.counter_gap import ids as counter_gap_format
from ..data import pronouns, upstream
from ..measures import counter_gap_delta_i

SYSTEMS = {
    "BERT-base": "bert_base",
    "BERT-large": "bert_large",
    "SpanBERT-base": "spanbert_base",
    "SpanBERT-large": "spanbert_large",
}
# The paper's level, of a one-sided bootstrap test (it follows Graham et al., 2014): its "*" marks are recomputed
# at it, not at corefbias's own two-sided measures.resampling.SIGNIFICANCE_LEVEL.
PAPER_SIGNIFICANCE_LEVEL = 0.01

# The paper's printed values, in percent (ρ as printed), laid out as its tables: per table its columns, then per
# system its row; (value, True) marks a "*" (p < PAPER_SIGNIFICANCE_LEVEL), (value, False) an unmarked tested cell.
PAPER_TABLES = {
    "Table 2": (
        ("accuracy_male", "accuracy_female", "accuracy_diff"),
        {
            "BERT-base": (63.12, 59.53, (3.59, True)),
            "BERT-large": (72.60, 72.11, (0.50, False)),
            "SpanBERT-base": (71.36, 69.06, (2.30, True)),
            "SpanBERT-large": (77.25, 75.40, (1.85, True)),
        },
    ),
    "Table 3": (
        (
            "i_within_male",
            "i_within_female",
            "i_within_diff",
            "i_within",
            "i_across_m2f",
            "i_across_f2m",
            "i_across_diff",
            "i_across",
            "delta_i",
        ),
        {
            "BERT-base": (15.47, 16.47, -1.00, 15.97, 18.26, 23.25, -4.99, 20.76, (4.79, True)),
            "BERT-large": (10.28, 10.28, 0.00, 10.28, 10.88, 14.27, -3.39, 12.57, (2.30, True)),
            "SpanBERT-base": (9.98, 12.18, -2.20, 11.08, 12.18, 15.07, -2.89, 13.62, (2.54, True)),
            "SpanBERT-large": (5.79, 6.29, -0.50, 6.04, 6.89, 8.18, -1.30, 7.53, (1.50, True)),
        },
    ),
    "Table 4": (
        (
            "accuracy_original_gender",
            "accuracy_counterfactual_gender",
            "accuracy_original_minus_counterfactual",
            "spearman_rho",
        ),
        {
            "BERT-base": (61.58, 61.08, (0.50, False), -0.083),
            "BERT-large": (72.06, 72.65, (-0.60, False), -0.065),
            "SpanBERT-base": (70.21, 70.21, (0.00, False), -0.06),
            "SpanBERT-large": (76.55, 76.10, (0.45, False), -0.03),
        },
    ),
}
PAPER = {
    system: {score: value for columns, rows in PAPER_TABLES.values() for score, value in zip(columns, rows[system])}
    for system in PAPER_TABLES["Table 2"][1]
}


@dataclass(frozen=True)
class Cell:
    system: str
    score: str
    ours: float
    paper: float
    decimals: int
    significant: bool | None = None
    paper_significant: bool | None = None

    @property
    def matches(self) -> bool:
        same_value = round(self.ours, self.decimals) == round(self.paper, self.decimals)
        return same_value and self.significant == self.paper_significant


def _as_bool(text: str) -> bool:
    return text.strip().upper() == "TRUE"


def metric_inputs(system: str, mirror=None) -> dict:
    """Inputs of :func:`counter_gap_delta_i` from the gold C-GAP.tsv and one published output, resampled by quadruple
    as the paper's bootstrap resamples them (``book_blocks`` gives the books the benchmark draws whole)."""
    gold = upstream.read_tsv("counter_gap", "data/C-GAP.tsv", mirror)
    output = upstream.read_tsv("counter_gap", f"results/none/{SYSTEMS[system]}_output.tsv", mirror)
    predicted = {row["ID"]: row for row in output}
    return {
        "predictions": [
            [_as_bool(predicted[row["ID"]]["A-coref"]), _as_bool(predicted[row["ID"]]["B-coref"])] for row in gold
        ],
        "references": [[_as_bool(row["A-coref"]), _as_bool(row["B-coref"])] for row in gold],
        "quadruple_ids": [counter_gap_format.quadruple_of(row["ID"]) for row in gold],
        "roles": [counter_gap_format.role_of(row["ID"]) for row in gold],
        "genders": [pronouns.ENGLISH[row["Pronoun"].lower()] for row in gold],
    }


def book_blocks(mirror=None) -> list[str]:
    """Each row of the gold C-GAP.tsv's book: the blocks ``corefbias run`` and ``score`` draw Counter-GAP's
    quadruples by (its ``counter_gap`` benchmark), where the paper's bootstrap draws quadruples."""
    return [row["Book"] for row in upstream.read_tsv("counter_gap", "data/C-GAP.tsv", mirror)]


def cells(mirror=None, n_bootstrap: int = 10_000, seed: int = 0) -> list[Cell]:
    """Every published cell beside our value, in percent (ρ unscaled)."""
    found = []
    for system, printed in PAPER.items():
        results = counter_gap_delta_i.counter_gap_delta_i(
            **metric_inputs(system, mirror), n_bootstrap=n_bootstrap, seed=seed
        )
        for score, paper_value in printed.items():
            paper_value, paper_significant = paper_value if isinstance(paper_value, tuple) else (paper_value, None)
            is_rho = score == "spearman_rho"
            significant = None
            if paper_significant is not None:
                # Our p-value is two-sided, twice the one-sided one the paper's marks are for.
                significant = results[f"{score}_p_value"] / 2 < PAPER_SIGNIFICANCE_LEVEL
            found.append(
                Cell(
                    system,
                    score,
                    results[score] * (1 if is_rho else 100),
                    paper_value,
                    3 if is_rho else 2,
                    significant,
                    paper_significant,
                )
            )
    return found


def _format(value: float, decimals: int, significant: bool | None) -> str:
    mark = "*" if significant else ""
    return f"{value:+.{decimals}f}{mark}"


def report(mirror=None, n_bootstrap: int = 10_000, seed: int = 0) -> str:
    """The three tables, ours beside the paper's, with a line per cell that differs."""
    by_key = {(cell.system, cell.score): cell for cell in cells(mirror, n_bootstrap, seed)}
    lines = [
        "Counter-GAP (Xie et al., 2023), no-debiasing rows, recomputed from the published system outputs.",
        f"Values in % (Spearman's rho unscaled); * = one-sided p < {PAPER_SIGNIFICANCE_LEVEL} as in the paper "
        f"(half our two-sided bootstrap p over quadruples, "
        f"{n_bootstrap} resamples, seed {seed}). Each cell: ours / paper.",
    ]
    for table, (scores, _) in PAPER_TABLES.items():
        lines += ["", f"{table}", "| system | " + " | ".join(scores) + " |", "|---" * (len(scores) + 1) + "|"]
        for system in PAPER:
            row = []
            for score in scores:
                cell = by_key[(system, score)]
                ours = _format(cell.ours, cell.decimals, cell.significant)
                paper = _format(cell.paper, cell.decimals, cell.paper_significant)
                row.append(f"{ours} / {paper}" + ("" if cell.matches else " ≠"))
            lines.append(f"| {system} | " + " | ".join(row) + " |")
    mismatches = [cell for cell in by_key.values() if not cell.matches]
    lines.append("")
    lines.append(f"{len(by_key) - len(mismatches)} of {len(by_key)} cells match the paper at its printed precision.")
    for cell in mismatches:
        lines.append(f"differs: {cell.system} {cell.score}: ours {cell.ours:.4f}, paper {cell.paper}")
    return "\n".join(lines)
