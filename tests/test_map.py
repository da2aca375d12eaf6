"""MAP: its file read and the snippets left out named one for one; a system's drop per ablation, paired over snippets,
found where a simulated system relies on the cues and not where it answers at random; the annotators' agreement."""

import pytest

from corefbias.benchmarks import BENCHMARKS
from corefbias.benchmarks.map import files
from corefbias.data.spans import SpanError
from corefbias.harness import runner
from corefbias.harness.benchmark_data import load_part
from corefbias.measures import agreement
from corefbias.measures.resampling import SIGNIFICANCE_LEVEL


@pytest.fixture(scope="module")
def rows(exported_set, mirror):
    data_dir = exported_set("map").parent
    return load_part(BENCHMARKS["map"], "default", "test", data_dir, mirror).to_dict()


def test_exactly_the_listed_snippets_fail_to_locate_and_the_rest_hold_ten_rows(mirror):
    failing = set()
    for record in files.read_records(mirror):
        try:
            files.located(record)
        except SpanError:
            failing.add(files.ablation_of(record["id"])[0])
    assert failing == set(files.UNLOCATED)
    kept = files.load_rows(mirror)
    assert len(kept) == 1720 and len({row.snippet_id for row in kept}) == 172


def test_the_rows_carry_answers_and_annotations_on_both_scales(rows):
    assert set(rows["ablation"]) == {files.ORIGINAL, *files.ABLATIONS}
    for answer, candidates, ratings, answers in zip(
        rows["answer"], rows["candidates"], rows["human_ratings"], rows["human_answers"]
    ):
        assert [c["is_referent"] for c in candidates] == [answer == "A", answer == "B"]
        assert answers == [files.RATINGS[str(rating)] for rating in ratings] and len(ratings) <= 3
    assert sum(len(ratings) for ratings in rows["human_ratings"]) == 3 * 938 + 2 * 575 + 148


def _sections(rows, answers, n_bootstrap=500, seed=0):
    part = ("default", "test")
    decisions = {part: [[answer == "A", answer == "B"] for answer in answers]}
    return runner.scored_sections(BENCHMARKS["map"], {part: rows}, decisions, None, n_bootstrap, seed)


def test_a_system_that_relies_on_names_loses_accuracy_where_they_are_removed_and_only_there(rows):
    # Right wherever the names are there, wrong on a third of the snippets whose names were replaced.
    answers = [
        ("neither" if int(snippet.rsplit("-", 1)[1]) % 3 == 0 else answer) if "ent" in ablation else answer
        for answer, ablation, snippet in zip(rows["answer"], rows["ablation"], rows["snippet_id"])
    ]
    result = _sections(rows, answers)["map"]
    for ablation in files.ABLATIONS:
        if "ent" in ablation:
            assert result[f"diff/{ablation}"] < -0.2 and result[f"diff/{ablation}_p_value"] < SIGNIFICANCE_LEVEL
        else:
            assert result[f"diff/{ablation}"] == 0.0 and result[f"diff/{ablation}_p_value"] == 1.0


def test_a_random_system_shows_no_significant_drop_in_most_seeds(rows, exported_set, mirror, tmp_path):
    significant = 0
    for seed in range(8):
        section = _run_section("baseline:random", exported_set, mirror, tmp_path, 300, seed=seed)
        significant += any(section[f"diff/{ablation}_p_value"] < SIGNIFICANCE_LEVEL for ablation in files.ABLATIONS)
    assert significant <= 1


def test_the_annotators_agreement_and_accuracy_come_from_the_file(rows):
    sections = _sections(rows, rows["answer"], n_bootstrap=0)
    human, agreed = sections["map/human"], sections["map/human_agreement"]
    pairs = [(answer, truth) for answers, truth in zip(rows["human_answers"], rows["answer"]) for answer in answers]
    original = [
        answer == truth
        for answers, truth, ablation in zip(rows["human_answers"], rows["answer"], rows["ablation"])
        if ablation == files.ORIGINAL
        for answer in answers
    ]
    assert human["num_instances"] == len(pairs)
    assert human["accuracy/original"] == pytest.approx(sum(original) / len(original))
    # Alpha of all rows at once is what the measure gives one condition holding them all.
    pooled = agreement.annotator_agreement(rows["human_answers"], ["all"] * len(rows["answer"]), rows["snippet_id"],
                                           n_bootstrap=0)  # fmt: skip
    assert 0 < pooled["alpha/all"] < 1 and -1 < agreed[f"alpha/{files.ORIGINAL}"] < 1
    assert agreed[f"pairable/{files.ORIGINAL}"] == sum(
        len(answers) for answers, ablation in zip(rows["human_answers"], rows["ablation"])
        if ablation == files.ORIGINAL and len(answers) >= 2
    )  # fmt: skip


def _agreement_by_source(n_sources: int = 12, per_source: int = 5) -> dict:
    """Snippets from ``n_sources`` sources, each snippet with two instances annotated three times; the snippets of a
    source are annotated alike: unanimous in the even sources, split in the odd ones. Unit ids sort in their order."""
    inputs = {"annotations": [], "conditions": [], "units": [], "block_ids": []}
    for source in range(n_sources):
        labels = [["A", "A", "A"], ["B", "B", "B"]] if source % 2 == 0 else [["A", "B", "B"], ["A", "A", "B"]]
        for snippet in range(per_source):
            inputs["annotations"] += labels
            inputs["conditions"] += ["original", "original"]
            inputs["units"] += [f"s{source:02d}.{snippet}"] * 2
            inputs["block_ids"] += [f"source {source}"] * 2
    return inputs


def test_agreement_blocks_draw_the_snippets_of_a_source_together():
    # Drawn snippet by snippet, the 60 snippets give a tight interval; drawn by source, it rests on 12 blocks and is
    # wider, as the sources' spread says it must be.
    inputs = _agreement_by_source()
    blocks = inputs.pop("block_ids")
    by_snippet = agreement.annotator_agreement(**inputs, seed=3)
    by_source = agreement.annotator_agreement(**inputs, block_ids=blocks, seed=3)
    alpha = "alpha/original"
    assert by_snippet[alpha] == by_source[alpha] > 0
    assert by_snippet.by_condition["original"]["alpha"].n_blocks == 60
    assert by_source.by_condition["original"]["alpha"].n_blocks == 12
    snippet_width = by_snippet[f"{alpha}_ci_high"] - by_snippet[f"{alpha}_ci_low"]
    source_width = by_source[f"{alpha}_ci_high"] - by_source[f"{alpha}_ci_low"]
    assert source_width > 2 * snippet_width
    # A block of its own per snippet is no block at all: the same draws as without block_ids.
    alone = agreement.annotator_agreement(**inputs, block_ids=inputs["units"], seed=3)
    interval = ("alpha/original_ci_low", "alpha/original_ci_high", "observed_agreement/original_ci_low")
    assert [alone[key] for key in interval] == [by_snippet[key] for key in interval]
    assert alone.unit_rows.blocks.sizes == (60,)


@pytest.mark.parametrize(
    ("block_ids", "message"),
    [
        (["a", "a", "b"], "one entry per instance"),
        (["a", None, "b", "b"], r"block_ids\[1\] is None; give every instance its block"),
        (["a", 2.5, "b", "b"], r"block_ids\[1\] is 2.5 \(float\); each entry must be a block id"),
        (["a", ("a", "x"), "b", "b"], "gives 1 id.* for some instances and 2 for others"),
        (["a", "b", "b", "b"], "unit 's00.0' lies in block 'a' and in block 'b'"),
    ],
)
def test_agreement_malformed_block_ids_are_a_clear_value_error(block_ids, message):
    inputs = _agreement_by_source(n_sources=2, per_source=1)
    inputs["block_ids"] = block_ids
    with pytest.raises(ValueError, match=message):
        agreement.annotator_agreement(**inputs, n_bootstrap=0)


def test_the_oracle_is_right_but_on_the_either_snippets_and_unbiased(exported_set, mirror, tmp_path):
    section = _run_section("baseline:oracle", exported_set, mirror, tmp_path, 100)
    assert section[f"accuracy/{files.ORIGINAL}"] == pytest.approx(170 / 172)  # a choice model cannot say "either"
    assert all(section[f"diff/{ablation}"] == 0.0 for ablation in files.ABLATIONS)


def _run_section(spec, exported_set, mirror, tmp_path, n_bootstrap, **model_options):
    """The ``map`` section of a run of ``spec`` on the whole of MAP."""
    result = runner.run(
        spec,
        ["map"],
        settings=runner.RunSettings(n_bootstrap=n_bootstrap),
        data_dir=exported_set("map").parent,
        mirror=mirror,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
        model_options=model_options,
    )
    return result.runs["map"].sections["map"]


def test_condition_accuracy_diff_draws_units_of_one_block_together(in_repo):
    # 30 snippets from 6 pages; the names ablation costs the system every snippet of three pages and none of the
    # others: the gap rests on 6 pages, not 30 snippets, and the module gives what the function gives.
    from metric_harness import load

    from corefbias.measures.condition_accuracy_diff import condition_accuracy_diff

    snippets = [(page, snippet) for page in range(6) for snippet in range(5)]
    inputs = dict(
        predictions=["A"] * 30 + ["B" if page < 3 else "A" for page, _ in snippets],
        references=["A"] * 60,
        conditions=["original"] * 30 + ["ent"] * 30,
        units=[f"{page}.{snippet}" for page, snippet in snippets] * 2,
    )
    pages = [f"page {page}" for page, _ in snippets] * 2
    by_snippet = condition_accuracy_diff(**inputs, reference="original", seed=1)
    by_page = condition_accuracy_diff(**inputs, reference="original", block_ids=pages, seed=1)
    assert by_snippet["diff/ent"] == by_page["diff/ent"] == -0.5
    assert (by_snippet.overall["diff/ent"].n_blocks, by_page.overall["diff/ent"].n_blocks) == (30, 6)
    assert by_page["diff/ent_p_value"] > by_snippet["diff/ent_p_value"]
    module = load("condition_accuracy_diff").compute(**inputs, block_ids=pages, seed=1)
    assert module == dict(by_page)
