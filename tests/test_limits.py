"""``--limit N``: N whole units of every design cell, the same ones every time, on every benchmark."""

import hashlib
from collections import Counter, defaultdict

import pytest

from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import run_outputs, runner
from corefbias.harness.benchmark_data import load_part
from corefbias.harness.limits import design_cells, limit_units

BASELINES = ["baseline:oracle", "baseline:stereotype", "baseline:nearest", "baseline:random", "baseline:dist-1"]


def instances_at(limit: int) -> dict[str, int]:
    """Instances a limit keeps, computed by hand from each set's design (what ``limit_meaning`` promises).

    A pin for the sets counted here; every benchmark, these or a new folder's, is held to the invariants of
    ``test_a_limit_keeps_whole_units_of_every_cell_deterministically`` with no entry here.
    """
    return {
        "counter_gap": 8 * limit,  # quadruples of a female and of a male original
        "gap": 2 * limit,
        "winogender": 6 * limit,  # pairs answered by the occupation / the participant, three sentences each
        "winobias": 8 * limit + 2 * min(limit, 2),  # two types × two pro genders × (pro, anti); 2 odd type-2 pairs
        # per split 2 pro genders × (pro, anti) × (gendered, neutral); pairs with one sentence labelled, by polarity and
        # gender (validation 14, 10, 7, 6; test 3, 3, 3, 2); 2 test pairs male in both
        "winobias_plus": 16 * limit
        + 2 * sum(min(limit, count) for count in (14, 10, 7, 6, 3, 3, 3, 2))
        + 4 * min(limit, 2),
        "sowinobias": 4 * limit,
        "dawinobias": 8 * limit + 2 * min(limit, 4) + 2 * min(limit, 1),  # test, validation; 4 + 1 odd validation pairs
        "abc": 6 * limit,  # triplets of female and of male occupations
        "misgendered": 2 * 5 * 11 * limit,  # sentences per declaration kind and form, each with 11 pronoun sets
        "ruff": 3 * (4 + 5 * 12) * limit,  # contexts per case and number of distractors: 4, or 4 × 3 pronoun pairs
        # 3 cases × 16 (a schema's 2 templates × 4 pronoun sets, double and single) + Winogender's old schemas by
        # case combination: 42 nom, 11 poss, 4 nom+poss, 1 each of acc, acc+nom, acc+poss (8 instances each)
        "winopron": 48 * limit + 8 * (min(limit, 42) + min(limit, 11) + min(limit, 4) + 3 * min(limit, 1)),
        "winonb": 8 * limit - max(0, limit - 43) - max(0, limit - 44),  # 4 sources × 2 numbers; WSC has 43 / 44
        "swewinogender": 6 * min(limit, 52),  # templates answered by the occupation / the participant, 3 premises each
        "map": 20 * limit,  # snippets with a feminine and with a masculine original pronoun, ten versions each
        "bug": 10 * limit,  # gold: 2 pronoun genders × 3 stereotype labels; balanced: 2 × 2 (no neutral)
        "winogenerated": 10 * (min(limit, 127) + min(limit, 172)),  # occupations of a female and of a male majority
        # ABC's other languages: triplets of female, of male and of occupations without a figure
        **{name: 9 * limit for name in ("abc_sv", "abc_ru", "abc_zh")},
    }


@pytest.fixture(scope="module")
def data_dir(exported_set):
    for benchmark in BENCHMARKS.values():
        exported_set(benchmark.dataset)
    return exported_set("gap").parent


@pytest.fixture(scope="module")
def full_parts(data_dir):
    return {
        name: {(config, split): load_part(b, config, split, data_dir, None) for config, split in b.parts}
        for name, b in BENCHMARKS.items()
    }


# Design cells of the sets counted by hand; two (the genders, pro and anti, ...) for the others counted here.
DESIGN_CELLS = {
    "counter_gap": 2,
    "gap": 2,
    "winogender": 2,
    "winobias": 5,
    "winobias_plus": 13,  # per split 2 of pairs with both sentences, 4 with one (polarity × gender); test: male in both
    "sowinobias": 2,
    "dawinobias": 6,
    "abc": 2,
    "winopron": 9,
    "winonb": 8,
    "swewinogender": 2,  # the antecedent: the occupation or the other participant
    "gicoref": 3,  # the texts' sources: Wikipedia, periodicals, fan fiction
    "map": 2,
    "bug": 10,  # gold: 2 pronoun genders × 3 stereotype labels; balanced: 2 × 2
    **{name: 3 for name in ("abc_sv", "abc_ru", "abc_zh")},  # female, male, no figure
    "misgendered": 10,  # declaration kinds × forms
    "ruff": 18,  # distractor counts × cases
}


def _kept(parts, limited) -> int:
    """The instances of ``limited``, for a set with no hand count: its cells are checked unit by unit below."""
    return sum(len(data) for data in limited.values())


def _instances_by_unit(parts, unit) -> dict:
    """Unit → the ids of its rows in every part."""
    rows = defaultdict(set)
    for part, data in parts.items():
        for value, instance in zip(data[unit], data["id"]):
            rows[value].add((part, instance))
    return rows


@pytest.mark.parametrize("name", list(BENCHMARKS))
def test_a_limit_keeps_whole_units_of_every_cell_deterministically(full_parts, name):
    benchmark, parts = BENCHMARKS[name], full_parts[name]
    cells = design_cells(parts, benchmark)
    assert len(cells) == DESIGN_CELLS.get(name, len(cells))
    full_rows = _instances_by_unit(parts, benchmark.unit)
    kept = {}
    for limit in (1, 3, 40):
        limited = limit_units(parts, benchmark, limit)
        rows = _instances_by_unit(limited, benchmark.unit)
        assert all(rows[unit] == full_rows[unit] for unit in rows), "a unit was cut"
        assert sum(len(data) for data in limited.values()) == instances_at(limit).get(name, _kept(parts, limited))
        by_cell = {cell: [unit for unit in units if unit in rows] for cell, units in cells.items()}
        assert {cell: len(units) for cell, units in by_cell.items()} == {
            cell: min(limit, len(units)) for cell, units in cells.items()
        }
        # Not the first units of the file: the ones whose id hashes lowest in their cell.
        for cell, units in by_cell.items():
            expected = sorted(cells[cell], key=lambda unit: hashlib.sha256(str(unit).encode()).hexdigest())[:limit]
            assert sorted(units, key=str) == sorted(expected, key=str)
        kept[limit] = set(rows)
        assert set(_instances_by_unit(limit_units(parts, benchmark, limit), benchmark.unit)) == kept[limit]
    assert kept[1] < kept[3] <= kept[40]


def test_pro_anti_pairs_stay_aligned_and_both_pro_genders_present(full_parts):
    limited = limit_units(full_parts["winobias"], BENCHMARKS["winobias"], 2)
    for kind in (1, 2):
        pro, anti = limited[f"type{kind}_pro", "test"], limited[f"type{kind}_anti", "test"]
        assert sorted(pro["pair_id"]) == sorted(anti["pair_id"])
        assert Counter(pro["pronoun_gender"])["female"] == 2 and Counter(pro["pronoun_gender"])["male"] >= 2
    abc = limit_units(full_parts["abc"], BENCHMARKS["abc"], 2)["genda", "test"]
    assert Counter(zip(abc["occupation_gender"], abc["pronoun_type"])) == {
        (gender, kind): 2 for gender in ("female", "male") for kind in ("reflexive", "hans", "hendes")
    }


def test_a_limit_below_one_is_refused(full_parts):
    for limit in (0, -3, 2.5):
        with pytest.raises(ValueError, match="units per design cell"):
            limit_units(full_parts["gap"], BENCHMARKS["gap"], limit)


# The quick tier runs every benchmark end to end once, on the stereotype baseline; the slow tier the other baselines
# and a larger limit. The instances kept at other limits are counted without a model, above.
@pytest.mark.parametrize(
    ("spec", "limit"),
    [("baseline:stereotype", 1)]
    + [pytest.param(spec, 1, marks=pytest.mark.slow) for spec in BASELINES if spec != "baseline:stereotype"]
    + [pytest.param("baseline:stereotype", 40, marks=pytest.mark.slow)],
)
def test_every_baseline_runs_every_benchmark_at_small_limits(data_dir, tmp_path, spec, limit):
    result = runner.run(
        spec,
        ["all"],
        settings=runner.RunSettings(limit=limit, n_bootstrap=20),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    counted = {name: len(run.instances) for name, run in result.runs.items()}
    assert set(counted) == set(BENCHMARKS) and all(counted.values())
    assert {name: counted[name] for name in instances_at(limit) if name in counted} == {
        name: count for name, count in instances_at(limit).items() if name in counted
    }
    results = result.record()
    headlines = {(row["benchmark"], row["score"]) for row in run_outputs.summary_rows(results)}
    assert headlines == {(name, h.label) for name, b in BENCHMARKS.items() for h in b.headlines}
    # Every headline says how sure it is: an interval, or why it has none (before, four accuracies and Winogender's
    # r had neither).
    for name, benchmark in BENCHMARKS.items():
        for headline in benchmark.headlines:
            flat = dict(results["benchmarks"][name]["sections"][headline.section])
            if flat[headline.key] is not None:
                interval = f"{headline.key}_ci_low"
                assert flat.get(interval) is not None or interval in flat["undefined"], (name, headline.label)
    written = run_outputs.write_outputs(result, tmp_path / "out", plots=limit == 1)
    assert f"{limit} units per design cell" in written["report.md"].read_text()


def test_shards_of_a_small_limit_merge_into_the_single_run_scores(data_dir, tmp_path):
    from corefbias.harness import prediction_cache

    names = ["gap", "winobias", "abc"]  # 2, 10 and 6 instances at --limit 1: some of 4 shards get none of a part
    single = runner.run(
        "baseline:random",
        names,
        settings=runner.RunSettings(limit=1, n_bootstrap=50),
        data_dir=data_dir,
        cache_path=tmp_path / "single.sqlite",
        progress=False,
    )
    caches = [tmp_path / f"shard{index}.sqlite" for index in range(4)]
    for index, cache in enumerate(caches):
        runner.run(
            "baseline:random",
            names,
            settings=runner.RunSettings(limit=1, shard=(index, 4)),
            data_dir=data_dir,
            cache_path=cache,
            progress=False,
        )
    assert prediction_cache.merge(caches, tmp_path / "merged.sqlite") == 2 + 10 + 6
    merged = runner.run(
        "baseline:random",
        names,
        settings=runner.RunSettings(limit=1, n_bootstrap=50),
        data_dir=data_dir,
        cache_path=tmp_path / "merged.sqlite",
        progress=False,
    )
    assert sum(run.num_predicted for run in merged.runs.values()) == 0
    assert {name: run.sections for name, run in merged.runs.items()} == {
        name: run.sections for name, run in single.runs.items()
    }
