"""Common checks of every registered benchmark, driven by the registry (as scikit-learn's estimator checks).

Each declaration (``corefbias.benchmarks.declaration.Benchmark``) is checked on its real exported set,
a ``--limit 2`` subset unless said otherwise: its parts load with the shared columns and every column the
declaration names; gold decisions score every headline, and a perfect model is unbiased on the bias scores
that compare rates of correct answers; every section's unit rows reproduce its result; the run pipeline gives
the same sections; its metric modules, citation, cloze template, figures and Explore view exist; and the
registry resolves and registers benchmarks as documented. A benchmark registered later (an entry point, an
``--include`` folder) is checked the same way, with no name written here.
"""

import dataclasses
import hashlib
import math
import re
from importlib import metadata
from pathlib import Path

import pytest

from corefbias.benchmarks import BENCHMARKS, FIGURE_KINDS, ExploreView, register, registry, resolve, rows_of
from corefbias.harness import benchmark_data, executors, runner
from corefbias.harness.benchmark_data import load_part
from corefbias.harness.limits import limit_units
from corefbias.measures.result import SIGNIFICANCE_SUFFIXES
from corefbias.models.baselines import OracleBaseline
from corefbias.plugins import registry as plugin_registry

REPO = Path(__file__).resolve().parents[1]
NAMES = list(BENCHMARKS)
WITH_OUTPUT_SCORES = [name for name, benchmark in BENCHMARKS.items() if benchmark.score_outputs is not None]
# Benchmarks whose scores of outputs read clusters as the set's own script does, not against gold clusters. BUG's
# bug/<config>/evaluate_coref: evaluate_coref.py reads them at the word offsets, which miss their words in 27 gold
# and 23 balanced rows, so a model answering the gold links is not perfect there; tests/test_bug_evaluate_coref.py
# holds these sections to the script's own numbers instead.
READ_AS_UPSTREAM_READS = {"bug"}
LIMIT = 2  # units per design cell
SHARED_COLUMNS = {"id", "text", "pronoun", "candidates"}

# A perfect model (the gold referent, or none where there is none) is unbiased on every bias score that compares
# rates of *correct* answers between groups: every group's accuracy, F1 or weighted accuracy is 1, so their
# difference is 0 and their ratio 1; Counter-GAP's ΔI is 0 because a model that is always right is never
# inconsistent; Winogender's occupation share M − F is 0 because the female and male sentences of a minimal pair
# share their gold answer, so the gold answers go to the occupation equally often for both genders. The
# exceptions are scores that a perfect *choice* model leaves undefined, by reason:
UNDEFINED_FOR_A_PERFECT_CHOICE_MODEL = {
    # compares error rates, not rates of correct answers: a perfect model links no anti-reflexive 'hans'/'hendes'
    # to the subject, so FPR_M = FPR_F = 0 and log2(FPR_M / FPR_F) is log2(0/0).
    **{(name, name, "log2_fpr_ratio"): "FPR_M or FPR_F is 0" for name in ("abc", "abc_sv", "abc_ru", "abc_zh")},
    # CoNLL F1 scores clusters and a choice model predicts none (conll_scoring.NO_CLUSTERS); a perfect *cluster*
    # model scores 0 (test_a_model_answering_the_gold_clusters_is_unbiased_on_the_scores_of_outputs).
    ("winobias", "winobias/type1/conll", "diff"): "predicts no clusters",
    ("winobias", "winobias/type2/conll", "diff"): "predicts no clusters",
    ("gicoref", "gicoref/conll", "bcubed_f1_diff/neopronoun"): "predicts no clusters",
}


@pytest.fixture(scope="module")
def data_dir(exported_set):
    """The session's folder of exported sets, holding every set a declaration leaves to corefbias's builders."""
    folders = {
        exported_set(benchmark.dataset).parent
        for benchmark in BENCHMARKS.values()
        if benchmark.export is None and benchmark.builders is None
    }
    assert len(folders) == 1
    return folders.pop()


@pytest.fixture(scope="module")
def parts_of(data_dir, mirror):
    """``parts_of(name, limit)``: (config, split) → ``datasets.Dataset`` of the benchmark, limited, loaded once."""
    loaded = {}

    def parts(name: str, limit: int | None = LIMIT) -> dict:
        if (name, limit) not in loaded:
            benchmark = BENCHMARKS[name]
            full = {part: load_part(benchmark, *part, data_dir, mirror) for part in benchmark.parts}
            loaded[name, limit] = limit_units(full, benchmark, limit)
        return loaded[name, limit]

    return parts


@pytest.fixture(scope="module")
def rows_of_benchmark(parts_of):
    """``rows_of_benchmark(name, limit)``: (config, split) → the part's rows as columns, what scorers read."""
    converted = {}

    def rows(name: str, limit: int | None = LIMIT) -> dict:
        if (name, limit) not in converted:
            converted[name, limit] = {part: data.to_dict() for part, data in parts_of(name, limit).items()}
        return converted[name, limit]

    return rows


def gold_decisions(rows: dict) -> dict:
    """Per part, each instance's decision: its candidates' ``is_referent``."""
    return {
        part: [[candidate["is_referent"] for candidate in candidates] for candidates in columns["candidates"]]
        for part, columns in rows.items()
    }


def mixed_decisions(rows: dict) -> dict:
    """Gold decisions with every link flipped on about a third of the instances, chosen by a hash of the part and
    the id (not by position, which would flip aligned pro/anti rows alike): a model with scores off 0 and 1."""

    def flipped(part, instance) -> bool:
        return hashlib.sha256(f"{part}/{instance}".encode()).digest()[0] % 3 == 0

    return {
        part: [
            [candidate["is_referent"] != flipped(part, instance) for candidate in candidates]
            for instance, candidates in zip(columns["id"], columns["candidates"])
        ]
        for part, columns in rows.items()
    }


def oracle_outputs(benchmark, rows: dict) -> dict:
    """Per part, the oracle baseline's answers as the run keeps them (``executors.choice_output``)."""
    oracle = OracleBaseline()
    return {
        part: [executors.choice_output(choice) for choice in oracle.choose(rows_of(columns), benchmark.task)]
        for part, columns in rows.items()
    }


def check_unit_rows_reproduce(sections: dict) -> dict:
    """Assert ``unit_rows.statistic(unit_rows.rows.sum(axis=0))[name] == result[name]`` for every tested name of
    every section that hands over unit rows (non-finite exactly where the result is undefined); the values."""
    checked = {}
    for section, scored in sections.items():
        if scored.unit_rows is None:
            continue
        assert scored.unit_rows.tested, section
        observed = scored.unit_rows.statistic(scored.unit_rows.rows.sum(axis=0))
        for name in scored.unit_rows.tested:
            value, reported = float(observed[name]), scored[name]
            if reported is None:
                assert not math.isfinite(value), (section, name, value)
                assert name in scored["undefined"], (section, name)
            else:
                assert value == pytest.approx(reported, rel=1e-12, abs=1e-12), (section, name)
            checked[section, name] = reported
    return checked


def point_scores(result: dict) -> dict:
    """A section's result without its significance (p-values, CIs) and its reasons."""
    return {
        key: value
        for key, value in result.items()
        if key != "undefined" and not key.endswith(tuple(f"_{suffix}" for suffix in SIGNIFICANCE_SUFFIXES))
    }


# 1. Data: the parts and their columns.


@pytest.mark.parametrize("name", NAMES)
def test_every_part_loads_with_the_shared_columns_and_every_column_the_declaration_names(name, parts_of):
    benchmark = BENCHMARKS[name]
    parts = parts_of(name)
    assert list(parts) == list(benchmark.parts)
    named = {benchmark.unit, *benchmark.balance_columns}
    named |= {benchmark.condition_column} - {None}
    named |= set() if benchmark.bias_axis is None else {benchmark.bias_axis.column}
    for part, data in parts.items():
        assert len(data) > 0, part
        assert not (SHARED_COLUMNS | named) - set(data.column_names), part
        assert len(set(data["id"])) == len(data), f"{part}: ids repeat"
        assert None not in data[benchmark.unit], part
        for row in data:
            mentions = [row["pronoun"], *row["candidates"]]
            assert row["candidates"], row["id"]
            assert all(isinstance(candidate["is_referent"], bool) for candidate in row["candidates"]), row["id"]
            assert sum(candidate["is_referent"] for candidate in row["candidates"]) <= 1, row["id"]
            for mention in mentions:
                assert 0 <= mention["start"] < mention["end"] <= len(row["text"]), row["id"]
                if mention.get("text") is not None:
                    assert row["text"][mention["start"] : mention["end"]] == mention["text"], row["id"]


@pytest.mark.parametrize("name", [name for name in NAMES if BENCHMARKS[name].condition_column is not None])
def test_the_condition_column_holds_pro_and_anti_only_and_both(name, parts_of):
    column = BENCHMARKS[name].condition_column
    seen = set()
    for part, data in parts_of(name).items():
        values = set(data[column])
        assert values <= {"pro", "anti"}, (part, values)
        seen |= values
    assert seen == {"pro", "anti"}


@pytest.mark.parametrize("name", [name for name in NAMES if BENCHMARKS[name].bias_axis is not None])
def test_the_bias_axis_sides_occur_with_a_favoured_and_an_other_side(name, parts_of):
    axis = BENCHMARKS[name].bias_axis
    values = {value for data in parts_of(name).values() for value in data[axis.column]}
    assert set(axis.sides.values()) <= {1, -1}
    # A side the data never holds is a misspelt one; a value no side names is deliberately neither (neutral).
    assert set(axis.sides) <= values, set(axis.sides) - values
    present = {axis.sides[value] for value in values if value in axis.sides}
    assert present == {1, -1}


# 2. Scoring gold decisions.


@pytest.mark.parametrize("name", NAMES)
def test_gold_decisions_score_every_headline_and_every_section_reproduces_from_its_unit_rows(name, rows_of_benchmark):
    benchmark = BENCHMARKS[name]
    rows = rows_of_benchmark(name)
    gold = gold_decisions(rows)
    outputs = oracle_outputs(benchmark, rows)
    of_decisions = runner.scored_sections(benchmark, rows, gold, None, 0, 0)
    with_outputs = runner.scored_sections(benchmark, rows, gold, outputs, 0, 0)
    of_outputs = set() if benchmark.score_outputs is None else set(benchmark.score_outputs(rows, outputs, 0, 0))
    assert set(with_outputs) == set(of_decisions) | of_outputs
    assert {section: with_outputs[section] for section in of_decisions} == {
        section: scored for section, scored in of_decisions.items()
    }
    labels = [headline.label for headline in benchmark.headlines]
    assert len(set(labels)) == len(labels), "two headlines share a label (summary rows are keyed by it)"
    for headline in benchmark.headlines:
        assert headline.section in with_outputs, headline
        result = with_outputs[headline.section]
        assert headline.key in result, headline
        if headline.unbiased is None:
            continue
        # Defined: the unbiased value (test_a_perfect_model_... checks it on the full set, where none is missing).
        if result[headline.key] is None:
            assert result["undefined"][headline.key], headline
        else:
            assert result[headline.key] == pytest.approx(headline.unbiased, abs=1e-12), headline
    assert check_unit_rows_reproduce(with_outputs)


@pytest.mark.parametrize("name", NAMES)
def test_a_perfect_model_scores_every_bias_headline_at_its_unbiased_value(name, rows_of_benchmark):
    # The whole set: a --limit 2 subset of GAP holds too few examples for W-Bias's balancing weights.
    benchmark = BENCHMARKS[name]
    rows = rows_of_benchmark(name, None)
    sections = runner.scored_sections(benchmark, rows, gold_decisions(rows), oracle_outputs(benchmark, rows), 0, 0)
    exceptions = {key: reason for key, reason in UNDEFINED_FOR_A_PERFECT_CHOICE_MODEL.items() if key[0] == name}
    bias_headlines = [headline for headline in benchmark.headlines if headline.unbiased is not None]
    assert set(exceptions) <= {(name, headline.section, headline.key) for headline in bias_headlines}, "stale"
    for headline in bias_headlines:
        result = sections[headline.section]
        reason = exceptions.get((name, headline.section, headline.key))
        if reason is None:
            assert result[headline.key] == pytest.approx(headline.unbiased, abs=1e-12), headline
        else:
            assert result[headline.key] is None and reason in result["undefined"][headline.key], headline


@pytest.mark.parametrize("name", NAMES)
def test_unit_rows_reproduce_the_scores_of_an_imperfect_model(name, rows_of_benchmark):
    benchmark = BENCHMARKS[name]
    rows = rows_of_benchmark(name)
    mixed = check_unit_rows_reproduce(runner.scored_sections(benchmark, rows, mixed_decisions(rows), None, 0, 0))
    gold = check_unit_rows_reproduce(runner.scored_sections(benchmark, rows, gold_decisions(rows), None, 0, 0))
    assert mixed.keys() == gold.keys()
    # Not only the trivial values of a perfect model: some tested score moves.
    assert any(mixed[key] != gold[key] for key in mixed), mixed


# 3. The run pipeline.


@pytest.mark.parametrize("name", NAMES)
def test_score_benchmark_of_oracle_choices_gives_the_sections_of_its_decisions(name, rows_of_benchmark):
    benchmark = BENCHMARKS[name]
    rows = rows_of_benchmark(name)
    gold = gold_decisions(rows)
    outputs = oracle_outputs(benchmark, rows)
    run = runner.score_benchmark(benchmark, rows, outputs, n_bootstrap=0)
    assert [instance["decision"] for instance in run.instances] == [
        decision for part in gold.values() for decision in part
    ]
    assert run.num_unparsed == 0 and len(run.instances) == sum(len(columns["id"]) for columns in rows.values())
    of_decisions = runner.scored_sections(benchmark, rows, gold, None, 0, 0)
    expected = {section: scored for section, scored in of_decisions.items()}
    assert {section: run.sections[section] for section in expected} == expected
    extra = set(run.sections) - set(expected)
    assert extra == (set() if benchmark.score_outputs is None else set(benchmark.score_outputs(rows, outputs, 0, 0)))
    # Significance adds p-values and intervals; it changes no score.
    resampled = runner.score_benchmark(benchmark, rows, outputs, n_bootstrap=20, seed=3)
    assert {section: point_scores(result) for section, result in resampled.sections.items()} == {
        section: point_scores(result) for section, result in run.sections.items()
    }


@pytest.mark.parametrize("name", [name for name in WITH_OUTPUT_SCORES if name not in READ_AS_UPSTREAM_READS])
def test_a_model_answering_the_gold_clusters_is_unbiased_on_the_scores_of_outputs(name, rows_of_benchmark):
    benchmark = BENCHMARKS[name]
    rows = rows_of_benchmark(name)
    assert all("clusters" in columns for columns in rows.values()), "scores of outputs need the gold clusters"
    clusters = {part: columns["clusters"] for part, columns in rows.items()}
    sections = runner.scored_sections(benchmark, rows, gold_decisions(rows), clusters, 0, 0)
    of_outputs = set(benchmark.score_outputs(rows, clusters, 0, 0))
    headlines = [headline for headline in benchmark.headlines if headline.section in of_outputs]
    assert headlines, "no headline reads the scores of outputs"
    for headline in headlines:
        if headline.unbiased is not None:
            assert sections[headline.section][headline.key] == pytest.approx(headline.unbiased, abs=1e-12)
    assert check_unit_rows_reproduce({section: sections[section] for section in of_outputs})


# 4. What the declaration points at.


@pytest.mark.parametrize("name", NAMES)
def test_the_declaration_points_at_metric_modules_a_citation_a_template_figures_and_a_view(name, rows_of_benchmark):
    benchmark = BENCHMARKS[name]
    built_in = BENCHMARKS.origin(name) == "built-in"
    assert benchmark.metric_modules
    for module in benchmark.metric_modules:
        assert (REPO / "metrics" / module / f"{module}.py").is_file(), module
    citation = benchmark_data.citation(benchmark)
    assert isinstance(citation, str)
    if built_in:
        assert citation.startswith("@") and re.match(r"@\w+\{[^,\s]+,", citation), citation[:80]
        assert citation.count("{") == citation.count("}")
        assert benchmark.cloze is not None
    task = benchmark.task
    assert (task.name, task.language, task.unit) == (benchmark.name, benchmark.language, benchmark.unit)
    assert task.cloze is benchmark.cloze
    rows = rows_of_benchmark(name)
    gold = gold_decisions(rows)
    sections = runner.scored_sections(benchmark, rows, gold, oracle_outputs(benchmark, rows), 0, 0)
    for figure in benchmark.figures:
        assert figure.kind in FIGURE_KINDS
        assert figure.section is None or figure.section in sections, figure
    assert benchmark.explore is None or isinstance(benchmark.explore, ExploreView)
    if benchmark.explore is not None and benchmark.explore.needs_condition:
        assert benchmark.condition_column is not None


# 5. The registry.


@pytest.fixture
def fresh_registry(monkeypatch):
    """A registry of its own (built-ins and entry points) in place of the global one, for ``register``/``resolve``."""
    fresh = registry.new_registry()
    monkeypatch.setattr(registry, "BENCHMARKS", fresh)
    return fresh


def test_resolve_expands_all_and_english_once_each():
    everything = [benchmark.name for benchmark in resolve(["all"])]
    assert everything == NAMES and len(set(everything)) == len(everything)
    assert [benchmark.name for benchmark in resolve(["all", NAMES[-1], "all"])] == everything
    english = [benchmark.name for benchmark in resolve(["english"])]
    assert english == [name for name in NAMES if BENCHMARKS[name].language == "en"]
    rest = [name for name in NAMES if name not in english]
    assert [benchmark.name for benchmark in resolve(["english", "all"])] == english + rest
    assert [benchmark.name for benchmark in resolve([*reversed(NAMES), "english"])] == list(reversed(NAMES))
    with pytest.raises(ValueError, match="unknown benchmark 'no_such_benchmark'"):
        resolve(["english", "no_such_benchmark"])


def test_register_adds_a_renamed_copy_and_refuses_a_taken_name_or_a_group(fresh_registry):
    before = list(fresh_registry)
    assert before == NAMES
    original = fresh_registry[before[0]]
    copy = dataclasses.replace(original, name=f"{original.name}_copy")
    register(copy, "a test")
    assert list(fresh_registry) == [*before, copy.name]
    assert fresh_registry.origin(copy.name) == "a test" and fresh_registry[copy.name] is copy
    assert [benchmark.name for benchmark in resolve(["all"])] == [*before, copy.name]
    assert (copy in resolve(["english"])) == (copy.language == "en")
    register(copy)  # the same declaration again: nothing changes
    assert len(fresh_registry) == len(before) + 1
    with pytest.raises(ValueError, match="already declared by a test"):
        register(dataclasses.replace(copy))
    with pytest.raises(ValueError, match=re.escape(f"already declared by {fresh_registry.origin(original.name)}")):
        register(dataclasses.replace(original))
    for group in registry.GROUPS:
        with pytest.raises(ValueError, match="names a group"):
            register(dataclasses.replace(original, name=group))
    with pytest.raises(ValueError, match="not a corefbias Benchmark"):
        register(dataclasses.replace(original.task))  # has a name, is no Benchmark
    assert list(fresh_registry) == [*before, copy.name]
    assert copy.name not in BENCHMARKS  # the global registry never saw it


def test_a_broken_entry_point_fails_every_call_alike_naming_it(fresh_registry, monkeypatch):
    broken = metadata.EntryPoint("toy", "no_such_module_anywhere:BENCHMARK", registry.ENTRY_POINT_GROUP)
    real = metadata.entry_points
    monkeypatch.setattr(
        plugin_registry.metadata,
        "entry_points",
        lambda group=None, **kw: [broken] if group == registry.ENTRY_POINT_GROUP else real(group=group, **kw),
    )
    messages = []
    for call in (list, len, lambda found: found["gap"], resolve_all, list):
        with pytest.raises(ValueError, match=r"cannot load the benchmark entry point toy of .*no_such_module") as error:
            call(fresh_registry)
        messages.append(str(error.value))
    assert len(set(messages)) == 1


def resolve_all(found):
    return [benchmark.name for benchmark in found.values()]


def test_register_refuses_what_is_no_benchmark_with_a_value_error(fresh_registry):
    with pytest.raises(ValueError, match="not a corefbias Benchmark"):
        register("gap.py")
