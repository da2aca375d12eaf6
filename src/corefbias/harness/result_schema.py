"""What ``results.json`` holds, as types: the file a run writes (``runner.RunResult.to_json``) and readers read.

``ResultsFile`` and the ``TypedDict`` classes under it describe every key of the file; ``json_schema`` turns
them into its JSON Schema (draft 2020-12), committed as ``docs/results.schema.json`` and rewritten by
``python scripts/results_schema.py`` (``--check`` says whether the committed one is stale).

``SCHEMA_VERSION`` changes whenever a key is added, removed or changes meaning; docs/results_schema.md says what
each version changed.

A run hands its result objects on (``runner.RunResult.record``: sections as ``MeasureResult``, headlines as
``runner.HeadlineScore``) to the report, ``summary.csv``, the terminal and the Space; ``runner.to_json`` turns them
into the file once, when it is written. A reader of a file gets the same objects from ``result_versions.upgrade``,
which reads a dict of any version (a flat section's scores become overall scores under their flat keys:
``measures.stored_results.from_flat``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing_extensions import NotRequired, TypedDict

from ..benchmarks import Benchmark
from ..measures.result import MeasureResult

SCHEMA_VERSION = 6

Label = str | int
"""A group or condition label, as the data gave it."""


class EstimateScores(TypedDict):
    """One score of a section (``corefbias.measures.result.Estimate``)."""

    key: str
    """The score's key in the metric module's flat result (``diff/female``)."""
    value: float | int | None
    """The score (an integer for a count; null: undefined, see ``undefined``)."""
    undefined: str | None
    """Why the data leave ``value`` undefined (null: it is defined)."""
    p_value: NotRequired[float | None]
    """Its two-sided p-value (present where the measure tests the score)."""
    ci_low: NotRequired[float | None]
    """The lower end of its 95% percentile bootstrap interval (present where the bootstrap tests the score)."""
    ci_high: NotRequired[float | None]
    """The upper end of that interval."""
    significance_undefined: NotRequired[dict[str, str]]
    """``p_value``, ``ci_low`` or ``ci_high`` → why it is null."""
    n_blocks: NotRequired[int]
    """How many blocks (templates, occupations, documents) its bootstrap interval and p-value rest on (present where a
    bootstrap tested the score)."""
    unbiased_value: NotRequired[float]
    """What a model without the bias scores (present where it is a bias score a benchmark headlines)."""


class GroupScores(TypedDict):
    """The scores measured in one group."""

    group: Label
    scores: dict[str, EstimateScores]
    """Score name → its estimate."""


class ConditionScores(TypedDict):
    """The scores measured in one condition (pro, anti)."""

    condition: Label
    scores: dict[str, EstimateScores]


class ConditionGroupScores(TypedDict):
    """The scores measured in one group within one condition."""

    condition: Label
    group: Label
    scores: dict[str, EstimateScores]


class MeasureResultScores(TypedDict):
    """A measure's result, scores keyed by where they were measured (``MeasureResult.structure``)."""

    measure: str | None
    """The measure function that scored it (null: upgraded from a flat section of schema version 1 or 2)."""
    primary: str | None
    """The overall score that is the measure's bias score (null: none)."""
    overall: dict[str, EstimateScores]
    """Score name → its estimate, on the whole data."""
    by_group: list[GroupScores]
    by_condition: list[ConditionScores]
    by_condition_and_group: list[ConditionGroupScores]
    extras: dict[str, Any]
    """What the measure hands back besides scores (GAP W-Bias's ``variant`` and ``weights``)."""


class Section(TypedDict):
    """One section of a benchmark's scores (``MeasureResult.to_json``): the metric module's flat result (each score
    under its key, ``<key>_p_value``, ``<key>_ci_low`` and ``<key>_ci_high`` where tested, ``undefined``: key → why
    it is null, then the extras), and the same scores by where they were measured under ``measure_result``, which
    readers read. The flat keys are left out where two labels of the data would make two of them one."""

    __pydantic_config__ = {"extra": "allow"}  # the flat keys (pydantic's ConfigDict; pydantic is for tests only)

    measure_result: MeasureResultScores


class HeadlineEntry(EstimateScores):
    """A headline score of a benchmark (``HeadlineScore.to_json``): its estimate, where it is read from, its name."""

    section: str
    """The section of ``sections`` the score is read from (``key``: its overall score there)."""
    label: str
    """The score's name in tables."""
    significant: bool | None
    """Whether ``p_value`` is below ``corefbias.measures.resampling.SIGNIFICANCE_LEVEL`` (null: no p-value)."""


class SectionResampling(TypedDict):
    """What one section's bootstrap drew."""

    units: int
    """Its resampling units (pairs, templates, documents)."""
    blocks: list[int]
    """Per blocking factor, the blocks holding them (one factor: nested blocks; several: crossed)."""


class Resampling(TypedDict):
    """What a benchmark's intervals and p-values resample (``Benchmark.blocks``): whole blocks of units, inside which
    a model's answers are not independent."""

    unit: str
    """The column naming a unit (kept whole by the bootstrap and by ``--limit``)."""
    blocks: list[str]
    """What one block of each factor is (``occupation``); the unit itself where units are independent."""
    block_columns: list[str]
    """The columns naming the blocks (the unit's column where units are independent)."""
    sections: dict[str, SectionResampling]
    """Section name → what its bootstrap drew (sections that resample nothing left out)."""


class PromptTemplate(TypedDict):
    """The cloze template of one prompt: its identity (``ClozeTemplate.identity``) and where its wording comes from."""

    version: int
    digest: str
    source: str


class PromptRun(TypedDict):
    """One prompt's run of a benchmark (``harness.prompt_sets.prompts_record``): the fields of ``BenchmarkResult`` for
    that template's answers."""

    template: PromptTemplate
    num_instances: int
    num_unparsed: int
    parse_rate: float | None
    low_parse_rate: bool
    position_rate: float | None
    top_position: int | None
    position_bias: bool
    position_note: str
    num_predicted: int
    headlines: list[HeadlineEntry]
    sections: dict[str, Section]


class PromptHeadline(TypedDict):
    """A headline score across the prompts (``harness.prompt_sets.headline_spreads``)."""

    section: str
    key: str
    label: str
    unbiased_value: float | None
    values: dict[str, float | None]
    """Prompt name → the score with it (null: undefined)."""
    min: float | None
    max: float | None
    range: float | None
    """max − min."""
    mean: float | None
    """The mean over the prompts (null where a prompt's score is undefined)."""
    ci_low: float | None
    """The lower end of the mean's 95% two-level bootstrap interval, resampling prompts and units."""
    ci_high: float | None
    p_value: float | None
    """The two-level bootstrap's two-sided p-value of the mean against ``unbiased_value``."""
    significant: bool | None
    sign_flip: bool | None
    """Whether some prompts put the score above ``unbiased_value`` and others below it (null: not a bias score)."""
    undefined: dict[str, str]
    """Flat key (``mean``, ``mean_ci_low``, ``value/<prompt>``) → why it is null."""


class PromptSet(TypedDict):
    """A benchmark's run with several prompts (``corefbias run --prompts``)."""

    names: list[str]
    """The prompts, in the order run; the benchmark's own scores are the first's."""
    per_prompt: dict[str, PromptRun]
    headlines: list[PromptHeadline]


class BenchmarkResult(TypedDict):
    """One benchmark's outcome in a run."""

    description: str
    metric_modules: list[str]
    """The evaluate modules (``metrics/<name>``) that compute its scores."""
    language: str
    num_instances: int
    num_unparsed: int
    """Answers that could not be read (each counted as no link)."""
    parse_rate: float | None
    """The share of answers that could be read (null: no instances)."""
    low_parse_rate: bool
    """Whether ``parse_rate`` is below ``harness.parse_rates.PARSE_RATE_THRESHOLD``."""
    position_rate: float | None
    """The share of the parsed answers at the most frequent option position (null: no answer has a position)."""
    top_position: int | None
    """That position, 0 for ``A`` (null: no answer has a position)."""
    position_bias: bool
    """Whether ``position_rate`` is above ``harness.position_rates.POSITION_RATE_THRESHOLD``."""
    position_note: str
    """The position counts in words, or why there is no position rate."""
    num_predicted: int
    """Instances the model answered in this run (the others came from the prediction cache)."""
    model_seconds: float
    predict_seconds: float
    score_seconds: float
    wall_seconds: float
    headlines: list[HeadlineEntry]
    """The benchmark's headline scores, in its declaration's order (those of unscored sections left out)."""
    sections: dict[str, Section]
    """Section name → its scores (see ``Section``)."""
    resampling: NotRequired[Resampling]
    """What its intervals and p-values resample (absent: a file older than schema version 5, which drew units)."""
    prompts: NotRequired[PromptSet]
    """Every prompt's scores and the headlines across them (``corefbias run --prompts`` only)."""


class PredictionFile(TypedDict):
    """A predictions file ``corefbias score`` scored."""

    file: str
    sha256: str
    format: str


class Settings(TypedDict):
    """How the run predicted and scored, the same for every benchmark (``runner.RunSettings.to_json``)."""

    benchmarks: list[str]
    limit: int | None
    """Units kept per design cell (``harness.limits``; null: whole sets)."""
    n_bootstrap: int
    seed: int
    shard: list[int] | None
    """``[index, count]`` of a shard run, which scores nothing (null: not sharded)."""
    decision_mode: str
    """How clusters became links (one of ``harness.cluster_links.MODE_CHOICES``): ``default`` scored each benchmark in
    its own mode, the one its declaration (``Benchmark.decision_mode``) and its card name."""
    batch_size: NotRequired[int]
    """Instances per model call (``corefbias run`` only)."""
    cache_mode: NotRequired[str]
    """``use``, ``use-unparsed``, ``refresh`` or ``off`` (``corefbias run`` only; ``prediction_cache.CACHE_MODES``)."""
    prompts: NotRequired[list[str]]
    """The prompts ``--prompts`` named (``["all"]``: every one); absent: the main template only."""
    executor: NotRequired[str]
    """Where the model answered: ``local`` (the running process) or ``ray`` (a pool of Ray actors); it changes no
    answer, score or cache key (``corefbias run`` only)."""
    replicas: NotRequired[int]
    """The Ray actors holding the model (``--executor ray`` only)."""
    config: NotRequired[str | list[str] | None]
    """What ``corefbias score --config`` named (``corefbias score`` only): the config that replaced a one-part set's
    own, or the parts scored of a benchmark of several (one name, or a list of them)."""
    predictions: NotRequired[list[PredictionFile]]
    """The files scored (``corefbias score`` only)."""
    prompt: NotRequired[str]
    """The prompt whose answers the files hold, where they name it (lm-eval samples; ``corefbias score`` only)."""


class ClozeTemplateIdentity(TypedDict):
    """A cloze template's identity (``ClozeTemplate.identity``): its version and its rendering's digest."""

    version: int
    digest: str


class ModelProvenance(TypedDict):
    """The model: how it was named, what identifies it, and its key in the prediction cache."""

    spec: str
    identity: dict[str, Any]
    """``corefbias.models.identity``: at least a ``kind``, and what makes the model's answers its own."""
    cache_key: str
    cloze_templates: NotRequired[dict[str, ClozeTemplateIdentity]]
    """Benchmark → the cloze template a log-likelihood model read (such models only)."""


class DataProvenance(TypedDict):
    """The exported set a benchmark ran on (``benchmark_data.data_provenance``)."""

    dataset: str
    source_commit: str | None
    """The upstream commit the set was exported from (null: none pinned)."""
    fingerprint: str
    """The SHA-256 over the exported Parquet files the run read."""


class InstanceCounts(TypedDict):
    """A benchmark's instances the model answered in this run, and those answered from the prediction cache
    (``corefbias score``: none answered, every instance read from the predictions files, counted as ``from_cache``)."""

    predicted: int
    from_cache: int


class Provenance(TypedDict):
    """Where the result comes from (``runner.provenance``)."""

    corefbias_version: str
    python: str
    libraries: dict[str, str | None]
    """Distribution → its installed version (null: not installed)."""
    model: ModelProvenance
    datasets: dict[str, DataProvenance]
    settings: Settings
    started: str
    """ISO 8601, UTC, to the second."""
    finished: str
    instances: dict[str, InstanceCounts]


class ResultsFile(TypedDict):
    """A run's ``results.json``: the model, the settings, every benchmark's scores, and their provenance."""

    schema_version: int
    """The version of this layout (``corefbias.harness.result_schema.SCHEMA_VERSION``)."""
    model: str
    """The model's spec (``corefbias run``) or the predictions' name (``corefbias score``)."""
    corefbias_version: str
    settings: Settings
    benchmarks: dict[str, BenchmarkResult]
    provenance: Provenance


def resampling_record(benchmark: Benchmark, sections: Mapping[str, MeasureResult]) -> Resampling:
    """What a benchmark's sections resampled: its unit and blocks (its declaration), and per section the units and
    the blocks of each factor its unit rows hold.

    Parameters
    ----------
    benchmark : Benchmark
        The benchmark.
    sections : mapping of str to MeasureResult
        Its scored sections (those without unit rows resample nothing and are left out).

    Returns
    -------
    Resampling

    Examples
    --------
    >>> from corefbias.benchmarks import BENCHMARKS
    >>> from corefbias.measures.pro_anti_diff import pro_anti_diff
    >>> section = pro_anti_diff([True, False] * 4, [True] * 8, ["pro", "anti"] * 4, pair_ids=[1, 1, 2, 2, 3, 3, 4, 4],
    ...                         block_ids=["a"] * 4 + ["b"] * 4, n_bootstrap=0)
    >>> record = resampling_record(BENCHMARKS["sowinobias"], {"sowinobias": section})
    >>> record["unit"], record["blocks"][2], record["sections"]
    ('pair_id', 'adjective', {'sowinobias': {'units': 4, 'blocks': [2]}})
    """
    design = benchmark.blocks
    found: dict[str, SectionResampling] = {}
    for name, section in sections.items():
        rows = section.unit_rows
        if rows is None:
            continue
        sizes = [len(rows.rows)] if rows.blocks is None else list(rows.blocks.sizes)
        found[name] = SectionResampling(units=len(rows.rows), blocks=sizes)
    return Resampling(
        unit=benchmark.unit,
        blocks=list(design.names) if design is not None else [benchmark.unit],
        block_columns=list(design.columns) if design is not None else [benchmark.unit],
        sections=found,
    )


def json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of ``ResultsFile``, as ``docs/results.schema.json`` holds it.

    Every object but the free-form ones (a section's ``extras``, a model's ``identity``) forbids keys it does not
    name, so a key added to ``results.json`` without its type here fails validation; descriptions come
    from the docstrings above. Needs pydantic (``pip install 'corefbias[test]'``).

    Examples
    --------
    >>> schema = json_schema()
    >>> schema["$schema"], schema["properties"]["schema_version"]["const"]
    ('https://json-schema.org/draft/2020-12/schema', 6)
    """
    from pydantic import ConfigDict, TypeAdapter
    from pydantic.json_schema import GenerateJsonSchema

    class WithoutFieldTitles(GenerateJsonSchema):
        # pydantic would title every property with its own name, capitalized: noise beside the descriptions.
        def field_title_should_be_set(self, schema) -> bool:
            return False

    # pydantic takes a config only for a type without one of its own, which a TypedDict has; the TypedDicts
    # inside a list inherit it, so ResultsFile goes in as a list's item and its definition is taken back out.
    config = ConfigDict(extra="forbid", use_attribute_docstrings=True)
    listed = TypeAdapter(list[ResultsFile], config=config).json_schema(schema_generator=WithoutFieldTitles)
    definitions = listed["$defs"]
    root = definitions.pop(ResultsFile.__name__)
    # A validator of this version accepts files of this version only.
    root["properties"]["schema_version"]["const"] = SCHEMA_VERSION
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:corefbias:results:v{SCHEMA_VERSION}",
        **root,
        "title": f"corefbias results.json, schema version {SCHEMA_VERSION}",
        "description": f"{root['description']} Schema version {SCHEMA_VERSION} (corefbias.harness.result_schema).",
        "$defs": definitions,
    }
