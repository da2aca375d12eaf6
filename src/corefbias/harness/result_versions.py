"""Reading a ``results.json`` of any schema version: :func:`upgrade` gives its sections as ``MeasureResult`` and its
headlines as ``runner.HeadlineScore``, in the current layout, under the metrics' current names (:func:`metric_names`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..benchmarks import BENCHMARKS, Headline
from ..measures.stored_results import from_json
from .result_schema import SCHEMA_VERSION
from .runner import HeadlineScore, headline_scores

# The first schema version whose sections and measures carry their metric's name (``metrics/<name>``). ``upgrade``
# renames them in every file of an older version.
FIRST_VERSION_WITH_METRIC_NAMES = 6
# A metric's old name → its name: in a benchmark's ``metric_modules``, and as a section's ``measure_result.measure``.
RENAMED_METRICS = {"pronoun_set_gap": "pronoun_set_diff", "condition_accuracy_gap": "condition_accuracy_diff"}
# A section named by its measure's old name → the metric's name (``pronoun_gap/double`` → ``pronoun_set_diff/double``:
# the part before the first ``/``). Sections named after a benchmark (``winopron/double``, ``gap/w``) keep their names.
RENAMED_SECTIONS = {"pronoun_gap": "pronoun_set_diff", **RENAMED_METRICS}
# A measure's old name in a section's ``measure_result`` → its metric's name.
RENAMED_MEASURES = {
    "acc_bias": "gap_acc_bias",
    "w_bias": "gap_w_bias",
    "delta_i": "counter_gap_delta_i",
    "fpr_ratio": "abc_fpr_ratio",
    "compare_pronoun_set_gaps": "compare_pronoun_set_diffs",
    **RENAMED_METRICS,
}
# The start of a score key that said "gap" for a difference → its start now (``gap/they`` → ``diff/they``,
# ``gap/they_p_value`` → ``diff/they_p_value``); the rest of the key is kept.
RENAMED_KEYS = (
    ("gap/", "diff/"),
    ("occupation_gap/", "occupation_diff/"),
    ("bcubed_f1_gap/", "bcubed_f1_diff/"),
    ("gap_unadjusted_p_value", "diff_unadjusted_p_value"),
)


def _read_run(outcome: Mapping, declared: Iterable[Headline] | None = None) -> dict:
    """A benchmark's (or one prompt's) run of a file: its sections and headlines (``declared``'s, for a file that
    holds none) as objects."""
    sections = {name: from_json(section) for name, section in outcome["sections"].items()}
    if declared is not None:
        return {**outcome, "headlines": headline_scores(declared, sections), "sections": sections}
    return {
        **outcome,
        "headlines": [HeadlineScore.from_json(item) for item in outcome["headlines"]],
        "sections": sections,
    }


def _section_name(name: str) -> str:
    first, slash, rest = name.partition("/")
    return RENAMED_SECTIONS.get(first, first) + slash + rest


def _key(key):
    if isinstance(key, str):
        for old, new in RENAMED_KEYS:
            if key.startswith(old):
                return new + key[len(old) :]
    return key


def _renamed(value, field: str | None = None):
    """``value`` (a benchmark's outcome, or a part of one, under its ``field`` name) with every old name replaced:
    score keys (``RENAMED_KEYS``) as dict keys and as the ``key`` and ``primary`` an estimate and a measure name,
    section names (``RENAMED_SECTIONS``) as the keys of ``sections`` and as a headline's ``section``, measure names
    (``RENAMED_MEASURES``) and ``metric_modules`` (``RENAMED_METRICS``)."""
    if isinstance(value, list):
        if field == "metric_modules":
            return [RENAMED_METRICS.get(name, name) for name in value]
        return [_renamed(item) for item in value]
    if isinstance(value, Mapping):
        if field == "sections":
            return {_section_name(name): _renamed(item) for name, item in value.items()}
        return {_key(name): _renamed(item, name) for name, item in value.items()}
    if not isinstance(value, str):
        return value
    if field in ("key", "primary"):
        return _key(value)
    if field == "section":
        return _section_name(value)
    return RENAMED_MEASURES.get(value, value) if field == "measure" else value


def metric_names(results: Mapping[str, Any]) -> Mapping[str, Any]:
    """``results`` with what a file older than ``FIRST_VERSION_WITH_METRIC_NAMES`` named by a measure's old name under
    its metric's name: sections (``RENAMED_SECTIONS``), measures and metric modules (``RENAMED_MEASURES``,
    ``RENAMED_METRICS``) and score keys that said "gap" for a difference (``RENAMED_KEYS``), in its sections, its
    headlines, its resampling record and its prompts; ``results`` itself where nothing has an old name.

    Examples
    --------
    >>> old = {"model": "m", "benchmarks": {"ruff": {"sections": {"pronoun_gap": {"gap/xe": -0.5}},
    ...     "headlines": [{"section": "pronoun_gap", "key": "gap/xe"}], "metric_modules": ["pronoun_set_gap"]}}}
    >>> new = metric_names(old)["benchmarks"]["ruff"]
    >>> new["sections"], new["headlines"][0]["section"], new["headlines"][0]["key"], new["metric_modules"]
    ({'pronoun_set_diff': {'diff/xe': -0.5}}, 'pronoun_set_diff', 'diff/xe', ['pronoun_set_diff'])
    >>> metric_names(metric_names(old)) == metric_names(old), metric_names({"benchmarks": {}}) == {"benchmarks": {}}
    (True, True)
    """
    benchmarks = results["benchmarks"]
    renamed = {
        name: _renamed(outcome) if isinstance(outcome, Mapping) else outcome for name, outcome in benchmarks.items()
    }
    if renamed == benchmarks:
        return results
    return {**results, "benchmarks": renamed}


def upgrade(results: Mapping[str, Any]) -> dict:
    """A ``results.json`` dict of any version this corefbias reads, in the current layout, its sections as
    ``MeasureResult`` and its headlines as ``HeadlineScore`` (``to_json`` writes it back).

    A version-1 dict (no ``schema_version``) gets its headlines from the benchmarks' declarations as they
    are now; a benchmark no longer declared gets none. The flat sections of versions 1 and 2 become sections of
    scores (``measures.stored_results.from_flat``: each score overall, under its flat key). Keys version 1 files of some
    older corefbias lack (``provenance``, the parse and position rates) stay missing: readers of such files use
    ``get``. Sections and measures a file older than version ``FIRST_VERSION_WITH_METRIC_NAMES`` named by a measure's
    old name get their metric's name, and score keys that said "gap" for a difference say "diff" (``metric_names``):
    ``pronoun_gap/<config>`` is read as ``pronoun_set_diff/<config>``, its ``gap/xe`` as ``diff/xe``.

    Raises
    ------
    ValueError
        For a file of a schema version this corefbias does not know (a newer one's), or sections that are not a
        measure's result.

    Examples
    --------
    >>> old = {"model": "m", "benchmarks": {"gap": {"sections": {"gap": {"acc_bias": 0.98}}}}}
    >>> new = upgrade(old)
    >>> new["schema_version"], [headline.estimate.value for headline in new["benchmarks"]["gap"]["headlines"]]
    (6, [0.98, None])
    >>> new["benchmarks"]["gap"]["sections"]["gap"].overall["acc_bias"]
    Estimate('acc_bias', 0.98)
    """
    version = results.get("schema_version", 1)  # version 1 wrote no version
    if isinstance(version, int) and version < FIRST_VERSION_WITH_METRIC_NAMES:
        results = metric_names(results)
    if version not in range(1, SCHEMA_VERSION + 1):
        raise ValueError(
            f"this results.json has schema version {version}, and this corefbias reads versions 1 to "
            f"{SCHEMA_VERSION}: upgrade corefbias to read it"
        )
    benchmarks = {}
    for name, outcome in results["benchmarks"].items():
        # Versions 1 and 2: flat sections (from_json reads them as from_flat). Version 1: no headlines. Versions 2 to
        # 5: headlines of an estimate's fields, significance always listed (version 6: where the score reports it).
        declared = (BENCHMARKS[name].headlines if name in BENCHMARKS else ()) if version == 1 else None
        benchmarks[name] = _read_run(outcome, declared)
        if "prompts" in outcome:  # version 4 on, --prompts runs only
            prompts = outcome["prompts"]
            per_prompt = {prompt: _read_run(run) for prompt, run in prompts["per_prompt"].items()}
            benchmarks[name]["prompts"] = {**prompts, "per_prompt": per_prompt}
        # Version 5 adds resampling and n_blocks; files before it drew units and say neither.
    return {**results, "schema_version": SCHEMA_VERSION, "benchmarks": benchmarks}
