"""``corefbias compare``: are two finished runs' bias scores different, on the same instances?

A run folder (``results.json`` + ``instances/<benchmark>.jsonl``, see ``run_outputs``) keeps every decision, and a
cluster model's clusters. For each benchmark two runs share, the runs must have answered the same instances of the
same data (instance ids, their gold answers and, when both runs record it, the data set fingerprint under
``provenance``); otherwise comparing them would compare different items, and we refuse. Each run's sections are scored
again by the benchmark's own scoring functions (of decisions, and of clusters where the benchmark scores them and the
instance file keeps them) on the exported set, and every headline value its ``results.json`` holds (in ``headlines``,
and in its section both flat and under ``measure_result``) must be the rescored value, its interval the same in both
places and in order (``check_scores``): compare reports the runs' own headlines beside the differences
and draws them, so an edited or stale ``results.json`` is refused, naming the score, rather than reported. Each
section hands its unit rows over with its scores (``corefbias.harness.runner.scored_sections``), and every shared
headline score is compared with ``measures.comparison.paired_difference``, drawing the blocks the benchmark declares
(its templates, occupations or documents, which each section's unit rows carry) as a run's own significance draws
them. The p-values of one comparison (one pair of runs, all its headlines) are Holm-adjusted as one family, and the
significance mark follows the adjusted value.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..benchmarks import BENCHMARKS, Benchmark
from ..measures import comparison, resampling
from ..measures.resampling import SIGNIFICANCE_LEVEL
from ..measures.result import MeasureResult
from .benchmark_data import default_data_dir, load_part
from .run_outputs import read_results
from .runner import scored_sections

CONFIDENCE = 0.95


@dataclass
class Run:
    """A finished run folder: its results (``run_outputs.read_results``: sections and headlines as objects) and, per
    benchmark, its instance lines keyed by (config, split, id)."""

    path: Path
    label: str
    results: dict
    instances: dict[str, dict[tuple[str, str, str], dict]]


def load_run(path: str | Path) -> Run:
    """Read a run folder written by ``corefbias run``; a clear ``ValueError`` when it is not one, or not a whole one
    (``run_outputs.read_results``), naming the file that is wrong.

    Examples
    --------
    >>> load_run("runs/random/results.json")
    Traceback (most recent call last):
    ...
    ValueError: runs/random/results.json names a results file: give the run folder (runs/random), not its
    results.json
    """
    folder = Path(path)
    if folder.name == "results.json" and not folder.is_dir():
        # Whether or not the file is there: the folder it names is what compare reads, and saying so is clearer
        # than the "has no results.json" a folder check would give.
        raise ValueError(f"{folder} names a results file: give the run folder ({folder.parent}), not its results.json")
    if folder.is_file():
        raise ValueError(f"{folder} is a file, not a run folder: give the folder `corefbias run --out` wrote")
    results = read_results(folder)
    if (results.get("settings") or {}).get("shard"):
        raise ValueError(f"{folder} is a shard run, which has no scores; merge the shards' caches and run again")
    instances = {}
    for name in results.get("benchmarks", {}):
        lines_path = folder / "instances" / f"{name}.jsonl"
        if not lines_path.is_file():
            raise ValueError(f"{folder} has results for {name} but no instances/{name}.jsonl to compare them by")
        instances[name] = _instance_lines(lines_path)
    return Run(folder, str(results.get("model", folder.name)), results, instances)


def _instance_lines(path: Path) -> dict[tuple[str, str, str], dict]:
    """The lines of an ``instances/<benchmark>.jsonl`` by (config, split, id); a damaged line is named."""
    lines = {}
    for number, text in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not text.strip():
            continue
        try:
            line = json.loads(text)
            lines[line["config"], line["split"], str(line["id"])] = line
        except (ValueError, KeyError, TypeError) as error:
            problem = f"{type(error).__name__}: {error}"
            raise ValueError(f"{path}, line {number}: not an instance line of a run ({problem})") from None
    return lines


def _labels(runs: Sequence[Run]) -> None:
    """Model names as labels, with the folder name added where two runs share a model name."""
    counts: dict[str, int] = {}
    for run in runs:
        counts[run.label] = counts.get(run.label, 0) + 1
    for run in runs:
        if counts[run.label] > 1:
            run.label = f"{run.label} ({run.path.name})"
    if len({run.label for run in runs}) < len(runs):
        raise ValueError("two of the runs are the same folder; give each run once")


def _fingerprint(run: Run, benchmark: str) -> str | None:
    provenance = run.results.get("provenance") or {}
    return ((provenance.get("datasets") or {}).get(benchmark) or {}).get("fingerprint")


def check_same_items(a: Run, b: Run, benchmark: str) -> None:
    """Refuse runs of one benchmark on different instances or data versions."""
    fingerprints = _fingerprint(a, benchmark), _fingerprint(b, benchmark)
    if None not in fingerprints and fingerprints[0] != fingerprints[1]:
        raise ValueError(
            f"{benchmark}: {a.label} and {b.label} were run on different versions of the data set (fingerprints "
            f"{fingerprints[0]} and {fingerprints[1]}); re-run both on the same data to compare them"
        )
    ids_a, ids_b = set(a.instances[benchmark]), set(b.instances[benchmark])
    if ids_a != ids_b:
        only_a, only_b = sorted(ids_a - ids_b), sorted(ids_b - ids_a)
        example = only_a[0] if only_a else only_b[0]
        raise ValueError(
            f"{benchmark}: {a.label} answered {len(ids_a)} instances and {b.label} {len(ids_b)}, {len(only_a)} only "
            f"by the first and {len(only_b)} only by the second (e.g. {'/'.join(example)}); compare runs made with "
            f"the same benchmarks and --limit"
        )
    for key, line in a.instances[benchmark].items():
        if line["gold"] != b.instances[benchmark][key]["gold"]:
            raise ValueError(
                f"{benchmark}: instance {'/'.join(key)} has different gold answers in {a.label} and {b.label}; the "
                f"runs used different versions of the data set"
            )


# Scores read back from results.json went through JSON's float formatting: equal up to this relative difference.
SCORE_TOLERANCE = 1e-9


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, bool)


def _same_value(stored, rescored) -> bool:
    """Whether a score in results.json is the rescored one: both undefined (null, or not finite) or equal but for
    rounding; a score that is not a number (edited into a string, say) is never the same.

    Examples
    --------
    >>> _same_value(0.1 + 0.2, 0.3), _same_value(None, float("nan")), _same_value(0.5, 0.0), _same_value("0.0", 0.0)
    (True, True, False, False)
    """
    if stored is not None and not _is_number(stored):
        return False
    stored_defined = stored is not None and math.isfinite(stored)
    rescored_defined = rescored is not None and math.isfinite(rescored)
    if not (stored_defined and rescored_defined):
        return stored_defined == rescored_defined
    return abs(stored - rescored) <= SCORE_TOLERANCE * max(1, abs(stored))


def _shown(stored) -> str:
    """A value of results.json as the message shows it: JSON, so that an edited ``"0.0"`` does not read as 0.0."""
    return json.dumps(stored, ensure_ascii=False)


def _not_its_scores(run: Run, benchmark: str, problem: str) -> ValueError:
    limit = (run.results.get("settings") or {}).get("limit")
    rescore = (
        f"corefbias score --benchmark {benchmark}{f' --limit {limit}' if limit else ''} --format instances "
        f"--predictions {run.path / 'instances' / f'{benchmark}.jsonl'} --out NEW_FOLDER"
    )
    return ValueError(
        f"{benchmark}: {run.label}'s results.json ({run.path / 'results.json'}) {problem}; the file was edited, or "
        f"the run was made on another data version or corefbias version: run the model again, or score its "
        f"instances again (`{rescore}`) and compare that folder"
    )


def check_scores(run: Run, benchmark: str, rescored: dict[str, MeasureResult]) -> None:
    """Refuse a run whose ``results.json`` holds a headline of ``benchmark`` that its instances do not give.

    Every headline of the benchmark in ``results.json`` whose section was scored again (``rescored``: a section
    of a cluster model's clusters is not, where the instance file keeps none) must hold the rescored value in each
    place the file keeps it (the headline, its section's flat key and its ``measure_result``), one interval there
    and in the section, with its low end not above its high end, and the unbiased value the benchmark declares.
    The intervals and p-values are the run's bootstrap's and are not drawn again; a percentile interval need not
    contain its value (a skewed score), so that is not asked.

    Parameters
    ----------
    run : Run
        The run (``load_run``).
    benchmark : str
        The benchmark whose headlines to check.
    rescored : dict of str to MeasureResult
        Its sections scored again from the run's instances.

    Raises
    ------
    ValueError
        Naming the benchmark, the score, the value the file holds and the one the instances give.

    Examples
    --------
    >>> from corefbias.harness.result_versions import upgrade
    >>> from corefbias.measures.stored_results import from_flat
    >>> outcome = {"headlines": [{"section": "s", "key": "diff", "label": "pro − anti", "value": 0.5,
    ...                           "ci_low": 0.1, "ci_high": 0.6, "unbiased_value": None}],
    ...            "sections": {"s": {"diff": 0.5, "diff_ci_low": 0.1, "diff_ci_high": 0.6}}}
    >>> run = Run(Path("runs/a"), "model-a", upgrade({"schema_version": 2, "benchmarks": {"toy": outcome}}), {})
    >>> check_scores(run, "toy", {"s": from_flat({"diff": 0.5})})  # the same: nothing to say
    >>> check_scores(run, "toy", {"s": from_flat({"diff": 0.25})})
    Traceback (most recent call last):
    ...
    ValueError: toy: model-a's results.json (runs/a/results.json) gives pro − anti as 0.5 in its headline, but
    its instances give 0.25; ...
    """
    outcome = run.results["benchmarks"][benchmark]
    declared = {(item.section, item.key): item.unbiased for item in getattr(BENCHMARKS.get(benchmark), "headlines", ())}
    for headline in outcome["headlines"]:
        name, key, label, interval = headline.section, headline.estimate.key, headline.label, headline.estimate.ci
        if key not in getattr(rescored.get(name), "overall", {}):
            continue  # not scored again: the run's instance file keeps no clusters for it
        value, stored = rescored[name].overall[key].value, outcome["sections"].get(name)
        copies = {"its headline": (headline.estimate.value, *interval)}  # value, interval: as the file holds them
        if stored is not None and key in stored.overall:
            copies[f"its {name} section's measure_result"] = (stored.overall[key].value, *stored.overall[key].ci)
        try:
            flat = dict(stored or {})  # the section's flat keys, as the file holds them
        except ValueError:  # labels that collide: the file holds no flat keys
            flat = {}
        if key in flat:
            ends = (flat.get(f"{key}_{end}", default) for end, default in zip(("ci_low", "ci_high"), interval))
            copies[f"its {name} section's {key}"] = (flat[key], *ends)
        for where, (stored_value, *_) in copies.items():
            if not _same_value(stored_value, value):
                problem = f"gives {label} as {_shown(stored_value)} in {where}, but its instances give {value}"
                raise _not_its_scores(run, benchmark, problem)
        for where, (_, *other) in copies.items():
            if tuple(other) != interval:
                problem = f"gives {label}'s 95% CI as {_shown(list(interval))} in its headline but {_shown(other)} in"
                raise _not_its_scores(run, benchmark, f"{problem} {where}")
        if any(end is not None and not _is_number(end) for end in interval) or (
            None not in interval and interval[0] > interval[1]
        ):
            problem = f"gives {label}'s 95% CI as {_shown(list(interval))}, which is not an interval (low ≤ high)"
            raise _not_its_scores(run, benchmark, problem)
        unbiased = headline.estimate.unbiased
        if (name, key) in declared and unbiased != declared[name, key]:
            problem = (
                f"gives {label}'s unbiased value as {_shown(unbiased)}, but {benchmark} declares {declared[name, key]}"
            )
            raise _not_its_scores(run, benchmark, problem)


def _design(benchmark: Benchmark, keys: set, data_dir, mirror) -> dict:
    """The exported set's rows (as columns) of the instances a run answered, in the set's order; its parts are those
    the run answered (``score --config`` replaces a one-part benchmark's config)."""
    data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
    answered = {(config, split) for config, split, _ in keys}
    parts = {}
    for config, split in [
        *(part for part in benchmark.parts if part in answered),
        *sorted(answered - set(benchmark.parts)),
    ]:
        columns = load_part(benchmark, config, split, data_dir, mirror).to_dict()
        kept = [index for index, instance in enumerate(columns["id"]) if (config, split, str(instance)) in keys]
        parts[config, split] = {name: [values[index] for index in kept] for name, values in columns.items()}
    found = sum(len(columns["id"]) for columns in parts.values())
    if found != len(keys):
        raise ValueError(
            f"{benchmark.name}: the runs answered {len(keys)} instances but the exported set has only {found} of "
            f"them; the runs were made on another version of the data set"
        )
    return parts


def section_rows(
    benchmark: Benchmark, parts: dict, decisions: dict, clusters: dict | None = None
) -> dict[str, resampling.UnitRows]:
    """Per section of the benchmark, the unit rows its scoring resamples for these decisions, and for these
    clusters (a cluster model's outputs) where the benchmark also scores clusters."""
    return _rows_by_section(scored_sections(benchmark, parts, decisions, clusters, 0, 0))


def _rows_by_section(sections: dict[str, MeasureResult]) -> dict[str, resampling.UnitRows]:
    return {name: section.unit_rows for name, section in sections.items() if section.unit_rows is not None}


def _decisions(run: Run, benchmark: str, parts: dict) -> dict:
    lines = run.instances[benchmark]
    return {
        (config, split): [lines[config, split, str(instance)]["decision"] for instance in columns["id"]]
        for (config, split), columns in parts.items()
    }


def _clusters(run: Run, benchmark: str, parts: dict) -> dict | None:
    """The model's clusters per part from the run's instance lines; None where the lines keep none (a choice
    model, or a run written before instance files kept clusters)."""
    lines = run.instances[benchmark]
    found = {
        (config, split): [lines[config, split, str(instance)].get("clusters") for instance in columns["id"]]
        for (config, split), columns in parts.items()
    }
    return None if any(None in outputs for outputs in found.values()) else found


def _stored(run: Run, benchmark: str, section: str, key: str):
    """The overall score ``key`` of ``section`` in the run's results.json (None: the section was not scored)."""
    scores = run.results["benchmarks"][benchmark]["sections"].get(section)
    return None if scores is None else scores.overall.get(key)


def _no_rows_reason(run: Run, benchmark: str, section: str, key: str, clusters: dict | None) -> str:
    if section not in run.results["benchmarks"][benchmark]["sections"]:
        return f"not scored in {run.label}'s run"
    estimate = _stored(run, benchmark, section, key)
    if estimate is None or estimate.value is None:
        return f"undefined for {run.label}: {(estimate and estimate.undefined) or 'no value'}"
    if clusters is None:
        return (
            f"scored from the model's clusters, which {run.label}'s instance file does not keep (it was written by "
            f"an older corefbias; run the model again), so no paired test"
        )
    return "its score resamples no units, so no paired test"


def aligned_rows(a: resampling.UnitRows, b: resampling.UnitRows) -> tuple | None:
    """Both runs' unit rows over the same units, row for row, and the units' blocks; None where they cannot be
    lined up (``resampling.aligned_unit_rows``: a unit one run left out by its answers is a row of zeros for it, so
    each run's score is unchanged and both are resampled over the same units and blocks).

    Returns
    -------
    tuple of (numpy.ndarray, numpy.ndarray, Blocks or None), or None
    """
    aligned = resampling.aligned_unit_rows([a, b])
    if aligned is None:
        return None
    (rows_a, rows_b), blocks = aligned
    return rows_a, rows_b, blocks


def rescore(run: Run, benchmark: str, parts: dict, cache: dict | None = None) -> tuple[dict, dict | None]:
    """The run's sections of ``benchmark`` scored again from its instance lines on the exported rows ``parts``
    (``check_scores`` checked against its ``results.json``), and the clusters they were scored from (None: the
    instance lines keep none). ``cache`` keeps them per run label and benchmark between pairs."""
    cache = {} if cache is None else cache
    if (run.label, benchmark) not in cache:
        clusters = _clusters(run, benchmark, parts)
        sections = scored_sections(BENCHMARKS[benchmark], parts, _decisions(run, benchmark, parts), clusters, 0, 0)
        check_scores(run, benchmark, sections)
        cache[run.label, benchmark] = sections, clusters
    return cache[run.label, benchmark]


def compare_pair(
    a: Run,
    b: Run,
    *,
    data_dir=None,
    mirror=None,
    n_resamples: int = 10_000,
    seed: int = 0,
    designs: dict | None = None,
    rescored: dict | None = None,
) -> tuple[list[dict], list[str]]:
    """Every headline score the two runs share: the paired difference A − B, Holm-adjusted over the list.

    Returns the differences as ``comparison.json`` rows (the headline, its units, the fields of
    ``measures.comparison.Difference`` but ``n_valid``, the Holm-adjusted p-value and the mark) and a note
    for each shared headline without a paired test, saying why. ``designs`` caches the exported rows per
    benchmark, and ``rescored`` each run's rescored sections (``rescore``), between pairs.

    Raises
    ------
    ValueError
        When the runs answered different instances or data (``check_same_items``), or a run's ``results.json``
        holds a headline its instances do not give (``check_scores``).
    """
    designs = {} if designs is None else designs
    rescored = {} if rescored is None else rescored
    raw: list[dict] = []
    notes: list[str] = []
    for name in a.results["benchmarks"]:
        if name not in b.results["benchmarks"] or name not in BENCHMARKS:
            continue
        benchmark = BENCHMARKS[name]
        check_same_items(a, b, name)
        keys = frozenset(a.instances[name])
        if (name, keys) not in designs:
            designs[name, keys] = _design(benchmark, set(keys), data_dir, mirror)
        parts = designs[name, keys]
        sections_a, clusters_a = rescore(a, name, parts, rescored)
        sections_b, clusters_b = rescore(b, name, parts, rescored)
        rows_a, rows_b = _rows_by_section(sections_a), _rows_by_section(sections_b)
        for headline in benchmark.headlines:
            missing = [
                _no_rows_reason(run, name, headline.section, headline.key, clusters)
                for run, clusters, rows in ((a, clusters_a, rows_a), (b, clusters_b, rows_b))
                if headline.section not in rows
            ]
            if missing:
                notes.append(f"{name} {headline.label}: {'; '.join(missing)}")
                continue
            unit_a, unit_b = rows_a[headline.section], rows_b[headline.section]
            totals = unit_a.statistic(unit_a.rows.sum(axis=0))
            if headline.key not in totals:
                notes.append(f"{name} {headline.label}: not a sum over {benchmark.unit} units, so no paired test")
                continue
            aligned = aligned_rows(unit_a, unit_b)
            if aligned is None:
                notes.append(f"{name} {headline.label}: the runs scored different units, so no paired test")
                continue
            rows_of_a, rows_of_b, blocks = aligned
            result = comparison.paired_difference(
                rows_of_a,
                rows_of_b,
                unit_a.statistic,
                [headline.key],
                n_resamples=n_resamples,
                seed=seed,
                confidence=CONFIDENCE,
                labels={headline.key: headline.label},
                blocks=blocks,
            )[headline.key]
            raw.append({"headline": headline, "benchmark": name, "units": len(rows_of_a), "result": result})
    adjusted = comparison.holm([item["result"].p_value for item in raw])
    differences = []
    for item, p_holm in zip(raw, adjusted):
        headline = item["headline"]
        differences.append(
            {
                "benchmark": item["benchmark"],
                "section": headline.section,
                "key": headline.key,
                "score": headline.label,
                "unbiased_value": headline.unbiased,
                "num_units": item["units"],
                **{name: value for name, value in asdict(item["result"]).items() if name != "n_valid"},
                "p_holm": p_holm,
                "significant": None if p_holm is None else p_holm < SIGNIFICANCE_LEVEL,
            }
        )
    return differences, notes


def pairs(runs: Sequence[Run], reference: str | None) -> list[tuple[Run, Run]]:
    """Every pair of runs, or each run against the reference (a folder path or a model label)."""
    if reference is None:
        return list(itertools.combinations(runs, 2))
    matches = [
        run
        for run in runs
        if run.label == reference
        or run.results.get("model") == reference
        or run.path.resolve() == Path(reference).resolve()
    ]
    if len(matches) != 1:
        raise ValueError(
            f"--reference {reference!r} matches {len(matches)} of the runs; give one run's folder or model name "
            f"({', '.join(run.label for run in runs)})"
        )
    return [(run, matches[0]) for run in runs if run is not matches[0]]


def compare_runs(
    paths: Sequence[str | Path],
    *,
    reference: str | None = None,
    data_dir=None,
    mirror=None,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> dict:
    """The ``comparison.json`` dict for two or more run folders."""
    if len(paths) < 2:
        raise ValueError("compare needs at least two run folders")
    runs = [load_run(path) for path in paths]
    _labels(runs)
    designs: dict = {}
    rescored: dict = {}
    comparisons = []
    for a, b in pairs(runs, reference):
        differences, notes = compare_pair(
            a,
            b,
            data_dir=data_dir,
            mirror=mirror,
            n_resamples=n_resamples,
            seed=seed,
            designs=designs,
            rescored=rescored,
        )
        if not differences:
            raise ValueError(f"{a.label} and {b.label} share no benchmark with a headline score to compare")
        comparisons.append({"a": a.label, "b": b.label, "differences": differences, "notes": notes})
    return {
        "runs": [{"label": run.label, "path": str(run.path), "model": run.results.get("model")} for run in runs],
        "reference": reference,
        "n_resamples": n_resamples,
        "seed": seed,
        "confidence": CONFIDENCE,
        "significance_level": SIGNIFICANCE_LEVEL,
        "adjustment": "holm",
        "family": "the headline differences of one comparison (one pair of runs)",
        # Only the benchmarks whose scores were checked against the instances (rescore): a benchmark no pair shares
        # is left out, and its scores, which nothing checked, are not reported.
        "scores": {
            run.label: [row for row in _headline_scores(run) if (run.label, row["benchmark"]) in rescored]
            for run in runs
        },
        "left_out": left_out(runs),
        "comparisons": comparisons,
    }


def left_out(runs: Sequence[Run]) -> list[dict]:
    """The benchmarks some of the runs did not run: each with the runs that did. A pair of runs that both ran
    one is still tested on it; the forest plot, which shows every run, draws only what every run measured."""
    ran = {run.label: set(run.results["benchmarks"]) for run in runs}
    names = list(dict.fromkeys(name for run in runs for name in run.results["benchmarks"]))
    return [
        {"benchmark": name, "run_by": [label for label, benchmarks in ran.items() if name in benchmarks]}
        for name in names
        if not all(name in benchmarks for benchmarks in ran.values())
    ]


def _headline_scores(run: Run) -> list[dict]:
    """Each run's own headline values and CIs (from its results.json), for the forest plot."""
    from .run_outputs import summary_rows

    return [
        {
            **{key: row[key] for key in ("benchmark", "score", "value", "ci_low", "ci_high", "unbiased_value")},
            # A --prompts run's spread across its prompts, which the comparison report shows beside the value.
            **{key: row[key] for key in ("prompt_min", "prompt_max", "prompt_sign_flip") if key in row},
        }
        for row in summary_rows(run.results)
    ]
