"""Every benchmark's blocks (``Benchmark.blocks``) hold what a model answers alike: on each exported set, two instances
that differ only in the pronoun set, a name, the distractors or the pronoun's form lie in the same block, every unit
lies in one block, and the card says what is resampled and why."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from corefbias.benchmarks import BENCHMARKS, BlockDesign, rows_of
from corefbias.harness.benchmark_data import load_part

BUILT_IN = [name for name, benchmark in BENCHMARKS.items() if benchmark.builders is None and benchmark.export is None]
CARDS = Path(__file__).resolve().parents[1] / "src" / "corefbias" / "benchmarks"


def masked(row: dict, *words: str) -> str:
    """The instance's text with its pronoun, every candidate mention and the given words left blank, lower-cased:
    what two variants of one template share."""
    spans = [(row["pronoun"]["start"], row["pronoun"]["end"])]
    spans += [(candidate["start"], candidate["end"]) for candidate in row["candidates"]]
    text = row["text"]
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + "_" + text[end:]
    for word in words:
        text = text.replace(word, "_")
    return text.lower()


def task_sentence(row: dict) -> str:
    """RUFF: the sentence holding the blank, whatever the contexts and distractors before it."""
    return next(sentence for sentence in row["text"].split("\nOPTIONS")[0].split(". ") if "___" in sentence)


# Per benchmark: what instances differing only in a pronoun set, name, distractors or form share (a key), and the
# blocking factors (by position) they must then share. Keys come from the text or other columns than the blocks'.
ALL = None
VARIANTS = {
    "winogender": [(masked, ALL)],  # the pronoun's gender and the participant (a name: "someone", "the customer")
    "winopron": [(masked, ALL), (lambda row: (row["occupation"], row["participant"]), ALL)],  # sets; the three cases
    "winobias": [(masked, ALL)],  # pro and anti: the pronoun
    "winobias_plus": [(masked, ALL), (lambda row: row["pair_id"], ALL)],  # pro and anti; gendered and neutral
    "dawinobias": [(masked, ALL)],
    "sowinobias": [(lambda row: row["pair_id"], ALL), (masked, (2,))],  # occupations swapped; the occupations (names)
    "ruff": [(task_sentence, ALL)],  # pronoun sets, contexts, distractors
    "misgendered": [(lambda row: row["template"], ALL), (lambda row: row["declaration"], (1,))],  # names, sets; forms
    "gap": [(lambda row: row["url"], ALL)],  # another pair of names on one page
    "counter_gap": [(lambda row: row["quadruple_id"], ALL)],  # names swapped, genders swapped
    "winogenerated": [(lambda row: (row["occupation"], row["other_person"]), ALL)],  # one prompt's ten sentences
    "bug": [(lambda row: row["text"], ALL)],  # another profession or pronoun of one sentence
    "gicoref": [(lambda row: row["document"], ALL)],  # every pronoun of a document
    "map": [(lambda row: row["snippet_id"], ALL)],  # the ablations (names, pronouns, terms of address removed)
    "knowref": [(lambda row: row["original_id"], ALL), (lambda row: row["text"], ALL)],  # twins; repeated sentences
    "winonb": [(lambda row: (row["plural_noun"], row["sentid"]), ALL)],  # a noun's readings of one sentence id
    "swewinogender": [(masked, ALL)],  # han, hon and hen of one template
    **{
        name: [(lambda row: row["triplet_id"], ALL), (lambda row: masked(row), (1,))]  # the form; the occupation
        for name in ("abc", "abc_sv", "abc_ru", "abc_zh")
    },
}


def test_every_built_in_benchmark_is_audited():
    assert set(VARIANTS) == set(BUILT_IN), set(BUILT_IN) ^ set(VARIANTS)


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_card_says_what_is_resampled_and_why(name):
    benchmark = BENCHMARKS[name]
    assert benchmark.blocks is not None, f"{name} declares no blocks"
    card = (CARDS / benchmark.dataset / "card.md").read_text(encoding="utf-8")
    section = card[card.index("## Significance: what is resampled") :]
    section = section[: section.index("\n## ", 1)] if "\n## " in section[1:] else section
    for column in benchmark.blocks.columns:
        assert f"`{column}`" in section, (name, column)
    assert f"`{benchmark.unit}`" in section, (name, benchmark.unit)


@pytest.fixture(scope="module")
def parts(exported_set, mirror):
    def load(name: str) -> dict:
        benchmark = BENCHMARKS[name]
        data_dir = exported_set(benchmark.dataset).parent
        return {part: load_part(benchmark, *part, data_dir, mirror).to_dict() for part in benchmark.parts}

    return load


def split_templates(name: str, design, loaded: dict) -> dict:
    """Per variant key of ``name``, the blocks its variants lie in, where they lie in several; asserts that every
    unit lies in one block and that the keys group variants (no tautology)."""
    benchmark = BENCHMARKS[name]
    seen_units: dict = {}
    blocks_of = [defaultdict(set) for _ in VARIANTS[name]]
    instances_of = [defaultdict(int) for _ in VARIANTS[name]]
    blocks_by_part = design.ids_by_part(loaded, list(loaded))
    for part, columns in loaded.items():
        for row, block in zip(rows_of(columns), blocks_by_part[part]):
            block = block if isinstance(block, tuple) else (block,)
            unit = (part[1], row[benchmark.unit])
            assert seen_units.setdefault(unit, block) == block, f"{name}: unit {unit} lies in two blocks"
            for (key, factors), blocks, instances in zip(VARIANTS[name], blocks_of, instances_of):
                blocks[key(row)].add(block if factors is ALL else tuple(block[index] for index in factors))
                instances[key(row)] += 1
    assert all(max(instances.values()) >= 2 for instances in instances_of)
    return {key: sorted(found) for blocks in blocks_of for key, found in blocks.items() if len(found) > 1}


@pytest.mark.parametrize("name", BUILT_IN)
def test_variants_of_one_template_lie_in_one_block_and_every_unit_in_one(name, parts):
    split = split_templates(name, BENCHMARKS[name].blocks, parts(name))
    assert not split, f"{name}: variants of one template lie in several blocks: {list(split.items())[:2]}"


def test_a_template_serving_two_pairs_of_occupations_would_split_unlinked_blocks(parts):
    # DaWinoBias by occupation pair alone: one Danish template serves two pairs across test and validation, and
    # the check finds it; linked by the frame, the two pairs are one block.
    unlinked = BlockDesign(("occupations",), ("occupation pair",))
    split = split_templates("dawinobias", unlinked, parts("dawinobias"))
    assert list(split.values()) == [[("designeren + landmanden",), ("flyttemanden + sekretæren",)]]
