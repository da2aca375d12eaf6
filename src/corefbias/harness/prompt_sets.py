"""``corefbias run --prompts``: a benchmark run once per wording of its cloze template, and how far each headline
score moves with the wording.

A benchmark's prompt set is its main template, our paraphrases of it where it is in a shared wording, and the
published wordings it declares (``Benchmark.prompt_set``). ``--prompts all`` runs every one, ``--prompts NAME…``
those named; without ``--prompts`` a run reads the main template only, as always. Each prompt's run is the
benchmark's run with that template (``dataclasses.replace(benchmark, cloze=template)``), so its answers are cached
under its own template's identity, and its scores, parse rate and position rate are its own. The run's scores of the
benchmark are those of the first prompt chosen (the main template for ``all``); ``results.json`` adds every prompt's
under ``prompts``, and per headline its value per prompt, their spread, and the mean with its prompt-and-instance
interval (``corefbias.measures.prompt_spread``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from ..benchmarks import Benchmark
from ..measures.prompt_spread import prompt_spread
from ..models.cloze_template import ClozeTemplate

ALL = "all"


def chosen_templates(benchmark: Benchmark, names: Sequence[str]) -> tuple[ClozeTemplate, ...]:
    """The templates of ``benchmark``'s prompt set that ``--prompts names`` runs, in the order named (``all``: every
    one, the main template first).

    Parameters
    ----------
    benchmark : Benchmark
        A benchmark with a cloze template.
    names : sequence of str
        ``["all"]`` or prompt names.

    Returns
    -------
    tuple of ClozeTemplate

    Raises
    ------
    ValueError
        If the benchmark declares no cloze template, or a name is not one of its prompts.

    Examples
    --------
    >>> from corefbias.benchmarks import BENCHMARKS
    >>> [template.name for template in chosen_templates(BENCHMARKS["winobias"], ["here-means", "main"])]
    ['here-means', 'main']
    >>> chosen_templates(BENCHMARKS["winobias"], ["eval-framework"])
    Traceback (most recent call last):
    ...
    ValueError: winobias has no prompt 'eval-framework'; its prompts are main, the-word, here-means, who-is (or all)
    """
    available = {template.name: template for template in benchmark.prompt_set}
    if not available:
        raise ValueError(f"{benchmark.name} declares no cloze template, so it has no prompts to choose from")
    if list(names) == [ALL]:
        return tuple(available.values())
    for name in names:
        if name not in available:
            raise ValueError(
                f"{benchmark.name} has no prompt {name!r}; its prompts are {', '.join(available)} (or {ALL})"
            )
    return tuple(available[name] for name in dict.fromkeys(names))


def with_template(benchmark: Benchmark, template: ClozeTemplate) -> Benchmark:
    """The benchmark read with another of its templates (everything else the same)."""
    return benchmark if template is benchmark.cloze else dataclasses.replace(benchmark, cloze=template, prompts=())


def headline_spreads(benchmark: Benchmark, runs: Mapping[str, object], n_bootstrap: int, seed: int) -> list[dict]:
    """Per headline of the benchmark, its score across the prompts' runs (``results.json``'s
    ``prompts.headlines``, ``result_schema.PromptHeadline``).

    Parameters
    ----------
    benchmark : Benchmark
        The benchmark.
    runs : mapping of str to BenchmarkRun
        Prompt name → its scored run, in the order chosen.
    n_bootstrap, seed : int
        The two-level bootstrap's replicates (0: none) and seed.

    Returns
    -------
    list of dict
        One per headline scored in every run.
    """
    spreads = []
    for headline in benchmark.headlines:
        sections = [run.sections.get(headline.section) for run in runs.values()]
        if any(section is None or headline.key not in section.overall for section in sections):
            continue
        values = {name: section.overall[headline.key].value for name, section in zip(runs, sections)}
        rows = [section.unit_rows for section in sections]
        resampled = all(unit is not None and headline.key in unit.statistic(unit.rows.sum(axis=0)) for unit in rows)
        spread = prompt_spread(
            values,
            unbiased=headline.unbiased,
            rows_by_prompt=dict(zip(runs, rows)) if resampled else None,
            key=headline.key,
            n_bootstrap=n_bootstrap,
            seed=seed,
            no_rows_reason=f"{headline.key} is not a sum over {benchmark.unit} units (its measure resamples no rows "
            "of it), so no two-level interval",
        )
        mean = spread.overall["mean"]
        spreads.append(
            {
                "section": headline.section,
                "key": headline.key,
                "label": headline.label,
                "unbiased_value": headline.unbiased,
                "values": {name: spread.by_group[name]["value"].value for name in runs},
                "min": spread["min"],
                "max": spread["max"],
                "range": spread["range"],
                "mean": mean.value,
                "ci_low": mean.ci_low,
                "ci_high": mean.ci_high,
                "p_value": mean.p_value,
                "significant": mean.significant,
                "sign_flip": spread.extras["sign_flip"],
                "undefined": spread.undefined,
            }
        )
    return spreads


def prompts_record(runs: Mapping[str, object], spreads: list[dict]) -> dict:
    """``results.json``'s ``prompts`` of one benchmark (``result_schema.PromptSet``), as the run holds it: every
    prompt's template and its run's record (``runner.BenchmarkRun.record``), and the headlines across the prompts."""
    per_prompt = {
        name: {"template": {**run.benchmark.cloze.identity, "source": run.benchmark.cloze.source}, **run.record()}
        for name, run in runs.items()
    }
    return {"names": list(runs), "per_prompt": per_prompt, "headlines": spreads}
