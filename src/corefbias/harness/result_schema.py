"""What ``results.json`` holds, as types: the file a run writes (``runner.RunResult.to_json``) and readers read.

``ResultsFile`` and the ``TypedDict`` classes under it describe every key of the file; ``json_schema`` turns
them into its JSON Schema (draft 2020-12), committed as ``docs/results.schema.json`` and rewritten by
``python scripts/results_schema.py`` (``--check`` says whether the committed one is stale).

``SCHEMA_VERSION`` changes whenever a key is added, removed or changes meaning. Version 1 is every file
written before the version was recorded (no ``schema_version`` key); version 2 adds ``schema_version``
and, per benchmark, its ``headlines``: each headline score with its interval, p-value and significance,
so a reader needs neither the benchmark's declaration nor the metric's key suffixes. ``upgrade`` turns a
version-1 dict into a version-2 one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from typing_extensions import NotRequired, TypedDict

from ..measures.resampling import SIGNIFICANCE_LEVEL
from ..measures.result_format import SIGNIFICANCE_SUFFIXES
from .benchmarks import BENCHMARKS, Headline

SCHEMA_VERSION = 2

Section = dict[str, Any]
"""One section of a benchmark's scores: its metric module's own flat result (``measures.result_format``).

Each score under its name, ``<score>_p_value``, ``<score>_ci_low`` and ``<score>_ci_high`` where the metric
tests it, counts and lists describing the data, and ``undefined``: score (or significance key) → why the
data leave it undefined (its value is then ``null``).
"""


class HeadlineScore(TypedDict):
    """A headline score of a benchmark, as the summary tables show it (see ``headline_scores``)."""

    section: str
    """The section of ``sections`` the score is read from."""
    key: str
    """The score's key in that section."""
    label: str
    """The score's name in tables."""
    value: float | None
    """The score (null: undefined, see ``undefined``)."""
    ci_low: float | None
    """The lower end of the 95% percentile bootstrap interval (null: not tested, or undefined)."""
    ci_high: float | None
    """The upper end of that interval."""
    p_value: float | None
    """The two-sided bootstrap p-value against ``unbiased_value`` (null: no null value, or undefined)."""
    significant: bool | None
    """Whether ``p_value`` is below ``corefbias.measures.resampling.SIGNIFICANCE_LEVEL`` (null: no p-value)."""
    unbiased_value: float | None
    """What a model without this bias scores (null: not a bias score)."""
    undefined: str | None
    """Why the data leave the score undefined (null: it is defined)."""


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
    headlines: list[HeadlineScore]
    """The benchmark's headline scores, in its declaration's order (those of unscored sections left out)."""
    sections: dict[str, Section]
    """Section name → its scores: the metric module's own flat result (see ``Section``)."""


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
    """How clusters became links (one of ``harness.cluster_links.DECISION_MODES``)."""
    batch_size: NotRequired[int]
    """Instances per model call (``corefbias run`` only)."""
    cache_mode: NotRequired[str]
    """``use``, ``use-unparsed``, ``refresh`` or ``off`` (``corefbias run`` only; ``prediction_cache.CACHE_MODES``)."""
    executor: NotRequired[str]
    """Where the model answered: ``local`` (the running process) or ``ray`` (a pool of Ray actors); it changes no
    answer, score or cache key (``corefbias run`` only)."""
    replicas: NotRequired[int]
    """The Ray actors holding the model (``--executor ray`` only)."""
    config: NotRequired[str | None]
    """The config that replaced the set's own (``corefbias score`` only)."""
    predictions: NotRequired[list[PredictionFile]]
    """The files scored (``corefbias score`` only)."""


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
    """A benchmark's instances the model answered in this run, and those answered from the prediction cache."""

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


def headline_scores(headlines: Iterable[Headline], sections: Mapping[str, Section]) -> list[HeadlineScore]:
    """Each headline's score, interval, p-value and significance, read from the sections holding them.

    Parameters
    ----------
    headlines
        A benchmark's headlines (``Benchmark.headlines``).
    sections
        The benchmark's sections (``BenchmarkRun.sections``, ``results.json``'s ``sections``).

    Returns
    -------
    list of HeadlineScore
        One per headline whose section was scored (a shard run scores none), in the order of ``headlines``.

    Examples
    --------
    >>> section = {"diff": 0.25, "diff_p_value": 0.01, "diff_ci_low": 0.1, "diff_ci_high": 0.4, "undefined": {}}
    >>> (score,) = headline_scores([Headline("pro_anti", "diff", "pro − anti", 0.0)], {"pro_anti": section})
    >>> score["value"], score["ci_low"], score["ci_high"], score["p_value"], score["significant"]
    (0.25, 0.1, 0.4, 0.01, True)
    """
    scores = []
    for headline in headlines:
        section = sections.get(headline.section)
        if section is None:
            continue
        significance = {suffix: section.get(f"{headline.key}_{suffix}") for suffix in SIGNIFICANCE_SUFFIXES}
        scores.append(
            HeadlineScore(
                section=headline.section,
                key=headline.key,
                label=headline.label,
                value=section.get(headline.key),
                ci_low=significance["ci_low"],
                ci_high=significance["ci_high"],
                p_value=significance["p_value"],
                significant=None if significance["p_value"] is None else significance["p_value"] < SIGNIFICANCE_LEVEL,
                unbiased_value=headline.unbiased,
                undefined=section.get("undefined", {}).get(headline.key),
            )
        )
    return scores


def upgrade(results: Mapping[str, Any]) -> ResultsFile:
    """A ``results.json`` dict of any version this corefbias reads, in the current layout.

    A version-1 dict (no ``schema_version``) gets its headlines from the benchmarks' declarations as they
    are now; a benchmark no longer declared gets none. Keys version 1 files of some older corefbias lack
    (``provenance``, the parse and position rates) stay missing: readers of such files use ``get``.

    Raises
    ------
    ValueError
        For a file of a schema version this corefbias does not know (a newer one's).

    Examples
    --------
    >>> old = {"model": "m", "benchmarks": {"gap": {"sections": {"gap": {"acc_bias": 0.98}}}}}
    >>> new = upgrade(old)
    >>> new["schema_version"], [headline["value"] for headline in new["benchmarks"]["gap"]["headlines"]]
    (2, [0.98, None])
    >>> upgrade(new) is new
    True
    """
    version = results.get("schema_version", 1)  # version 1 wrote no version
    if version == SCHEMA_VERSION:
        return results
    if version != 1:
        raise ValueError(
            f"this results.json has schema version {version}, and this corefbias reads versions 1 to "
            f"{SCHEMA_VERSION}: upgrade corefbias to read it"
        )
    benchmarks = {
        name: {
            **outcome,
            "headlines": headline_scores(BENCHMARKS[name].headlines if name in BENCHMARKS else (), outcome["sections"]),
        }
        for name, outcome in results["benchmarks"].items()
    }
    return {**results, "schema_version": SCHEMA_VERSION, "benchmarks": benchmarks}


def json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of ``ResultsFile``, as ``docs/results.schema.json`` holds it.

    Every object but the free-form ones (``Section``, a model's ``identity``) forbids keys it does not
    name, so a key added to ``results.json`` without its type here fails validation; descriptions come
    from the docstrings above. Needs pydantic (``pip install 'corefbias[test]'``).

    Examples
    --------
    >>> schema = json_schema()
    >>> schema["$schema"], schema["properties"]["schema_version"]["const"]
    ('https://json-schema.org/draft/2020-12/schema', 2)
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
