"""Whether a run folder's ``results.json`` holds the scores its instances give: ``compare`` reports the runs' own
headlines beside their differences and draws them, so an edited or stale file is refused, naming the score, rather
than reported (``check_scores``)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Protocol

import numpy as np

from ..benchmarks import BENCHMARKS
from ..measures.result import MeasureResult
from .result_schema import sections_of


class RunFolder(Protocol):
    """What the checks read of a run folder (``comparison.Run``)."""

    path: Path
    label: str
    results: dict


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


def _not_its_scores(run: RunFolder, benchmark: str, problem: str) -> ValueError:
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


def check_scores(run: RunFolder, benchmark: str, rescored: dict[str, MeasureResult]) -> None:
    """Refuse a run whose ``results.json`` holds a headline of ``benchmark`` that its instances do not give.

    Every headline of the benchmark in ``results.json`` whose section was scored again (``rescored``: a section
    of a cluster model's clusters is not, where the instance file keeps none) must hold the rescored value in each
    place the file keeps it (the headline, its section's flat key and its ``measure_result``), one interval there
    and in the section, with its low end not above its high end, and the unbiased value the benchmark declares.
    The intervals and p-values are the run's bootstrap's and are not drawn again; a percentile interval need not
    contain its value (a skewed score), so that is not asked.

    Raises
    ------
    ValueError
        Naming the benchmark, the score, the value the file holds and the one the instances give.

    Examples
    --------
    >>> from corefbias.measures.result_building import from_flat
    >>> outcome = {"headlines": [{"section": "s", "key": "diff", "label": "pro − anti", "value": 0.5,
    ...                           "ci_low": 0.1, "ci_high": 0.6, "unbiased_value": None}],
    ...            "sections": {"s": {"diff": 0.5, "diff_ci_low": 0.1, "diff_ci_high": 0.6}}}
    >>> from pathlib import Path
    >>> from corefbias.harness.comparison import Run
    >>> run = Run(Path("runs/a"), "model-a", {"benchmarks": {"toy": outcome}}, {})
    >>> check_scores(run, "toy", {"s": from_flat({"diff": 0.5})})  # the same: nothing to say
    >>> check_scores(run, "toy", {"s": from_flat({"diff": 0.25})})
    Traceback (most recent call last):
    ...
    ValueError: toy: model-a's results.json (runs/a/results.json) gives pro − anti as 0.5 in its headline, but
    its instances give 0.25; ...
    """
    outcome = run.results["benchmarks"][benchmark]
    declared = {(item.section, item.key): item for item in getattr(BENCHMARKS.get(benchmark), "headlines", ())}
    headlines, stored_sections = outcome.get("headlines"), outcome.get("sections")
    headlines = [] if headlines is None else headlines
    if not (isinstance(headlines, list) and all(isinstance(item, dict) for item in headlines)):
        raise _not_its_scores(run, benchmark, "holds headlines that are not the list of scores a run writes")
    if not isinstance(stored_sections, dict):
        raise _not_its_scores(run, benchmark, "holds sections that are not the scores a run writes")
    for headline in headlines:
        section_name, key = headline.get("section"), headline.get("key")
        label = headline.get("label", key)
        section = rescored.get(section_name)
        if section is None or key not in section.overall:
            continue  # not scored again: the run's instance file keeps no clusters for it
        value = section.overall[key].value
        flat = stored_sections.get(section_name, {})
        try:
            if not isinstance(flat, dict):
                raise TypeError("not a dict of scores")
            estimate = sections_of({"sections": {section_name: flat}})[section_name].overall.get(key)
        except (ValueError, TypeError, AttributeError, KeyError) as error:
            raise _not_its_scores(
                run, benchmark, f"has a {section_name} section that cannot be read ({error})"
            ) from None
        copies = {"its headline": headline}
        if estimate is not None:
            copies[f"its {section_name} section's measure_result"] = {
                "value": estimate.value,
                "ci_low": estimate.ci_low,
                "ci_high": estimate.ci_high,
            }
        if key in flat:
            copies[f"its {section_name} section's {key}"] = {
                "value": flat[key],
                **{end: flat[f"{key}_{end}"] for end in ("ci_low", "ci_high") if f"{key}_{end}" in flat},
            }
        for where, copy in copies.items():
            if not _same_value(copy.get("value"), value):
                raise _not_its_scores(
                    run,
                    benchmark,
                    f"gives {label} as {_shown(copy.get('value'))} in {where}, but its instances give {value}",
                )
        interval = headline.get("ci_low"), headline.get("ci_high")
        for where, copy in copies.items():
            other = copy.get("ci_low", interval[0]), copy.get("ci_high", interval[1])
            if other != interval:
                raise _not_its_scores(
                    run,
                    benchmark,
                    f"gives {label}'s 95% CI as {_shown(list(interval))} in its headline but {_shown(list(other))} "
                    f"in {where}",
                )
        if any(end is not None and not _is_number(end) for end in interval) or (
            None not in interval and interval[0] > interval[1]
        ):
            raise _not_its_scores(
                run,
                benchmark,
                f"gives {label}'s 95% CI as {_shown(list(interval))}, which is not an interval (low ≤ high)",
            )
        if (section_name, key) in declared and headline.get("unbiased_value") != declared[section_name, key].unbiased:
            raise _not_its_scores(
                run,
                benchmark,
                f"gives {label}'s unbiased value as {_shown(headline.get('unbiased_value'))}, but {benchmark} declares "
                f"{declared[section_name, key].unbiased}",
            )
