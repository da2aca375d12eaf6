"""The "don't know" section of a run: where a benchmark's cloze template offers a "none of them" / "don't know"
option (``ClozeTemplate.someone_else``) and the answers kept every option's log-likelihood, the run adds the section
``<benchmark>/dont_know``, the confidence-weighted accuracy eval-framework scores its Winogender_IDK task with
(``corefbias.measures.dont_know``), per side of the benchmark's bias axis and resampled over its units, in its blocks.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..benchmarks import Benchmark, Part, rows_of
from ..measures.dont_know import confidence_weighted_accuracy
from ..measures.result import MeasureResult

SECTION_SUFFIX = "/dont_know"


def dont_know_sections(
    benchmark: Benchmark, rows: Mapping[Part, dict], outputs: Mapping[Part, list], n_bootstrap: int, seed: int
) -> dict[str, MeasureResult]:
    """``{"<benchmark>/dont_know": result}``, or nothing where the template has no such option or an answer kept
    no log-likelihoods (a cluster model, a chat model, a predictions file of decisions).

    Parameters
    ----------
    benchmark : Benchmark
        The benchmark, read with the template the answers came from.
    rows : mapping of (config, split) to columns
        Each part's rows.
    outputs : mapping of (config, split) to list
        Each part's answers, in row order; a cloze model's carry ``loglikelihoods`` in the template's option order.
    n_bootstrap, seed : int
        The bootstrap over the benchmark's units.

    Returns
    -------
    dict of str to MeasureResult

    Raises
    ------
    ValueError
        Where an answer has another number of log-likelihoods than the template has options for its instance.
    """
    template = benchmark.cloze
    answers = [output for part in rows for output in outputs[part]]
    if template is None or template.someone_else is None or not answers:
        return {}
    if not all(isinstance(output, Mapping) and output.get("loglikelihoods") is not None for output in answers):
        return {}
    axis = benchmark.bias_axis
    inputs: dict[str, list] = {name: [] for name in ("loglikelihoods", "continuations", "right", "dont_know")}
    groups, units, blocks = [], [], []
    blocks_of = None if benchmark.blocks is None else benchmark.blocks.ids_by_part(rows, list(rows))
    for part, columns in rows.items():
        blocks += [] if blocks_of is None else blocks_of[part]
        for row, output in zip(rows_of(columns), outputs[part]):
            request = template.render(row)
            if len(output["loglikelihoods"]) != len(request.choices):
                raise ValueError(
                    f"{benchmark.name} instance {row['id']}: {len(output['loglikelihoods'])} log-likelihoods, but the "
                    f"template {template.name!r} gives it {len(request.choices)} options; the answers were made with "
                    "another template"
                )
            referents = [candidate["is_referent"] for candidate in row["candidates"]]
            inputs["loglikelihoods"].append(output["loglikelihoods"])
            inputs["continuations"].append(request.continuations)
            inputs["right"].append(
                [
                    option
                    for option, candidate in enumerate(request.candidate_of)
                    if (not any(referents) if candidate is None else referents[candidate])
                ]
            )
            inputs["dont_know"].append(request.candidate_of.index(None))
            groups.append(None if axis is None else row[axis.column])
            units.append(row[benchmark.unit])
    result = confidence_weighted_accuracy(
        inputs["loglikelihoods"],
        inputs["continuations"],
        inputs["right"],
        inputs["dont_know"],
        groups,
        units,
        sides=None if axis is None else axis.sides,
        block_ids=blocks if benchmark.blocks is not None else None,
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
    return {benchmark.name + SECTION_SUFFIX: result}
