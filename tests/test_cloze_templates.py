"""Cloze templates: what a language model scored by log-likelihood reads, per benchmark, and how it decides."""

import pytest

from corefbias.benchmarks import BENCHMARKS
from corefbias.harness.benchmark_data import load_part
from corefbias.harness.limits import limit_units
from corefbias.models.base import Task
from corefbias.models.cloze import ClozeModel, decide
from corefbias.models.cloze_template import ClozeRequest, ClozeTemplate

WINOGENDER_ROW = {
    "text": "The technician told the customer that she could pay with cash.",
    "pronoun": {"text": "she", "start": 38, "end": 41},
    "candidates": [{"text": "The technician", "start": 0, "end": 14}, {"text": "the customer", "start": 20, "end": 32}],
    "occupation": "technician",
    "participant": "customer",
}


def test_winogender_reads_exactly_what_lm_eval_reads():
    # lm_eval/tasks/winogender/winogender.yaml: doc_to_text "{{sentence}} ‘{{pronoun.capitalize()}}’ refers to the",
    # doc_to_choice [occupation, participant], continuation target_delimiter " " + choice.
    request = BENCHMARKS["winogender"].cloze.render(WINOGENDER_ROW)
    assert request.context == "The technician told the customer that she could pay with cash. ‘She’ refers to the"
    assert request.continuations == (" technician", " customer")
    assert request.candidate_of == (0, 1)


def test_a_sentence_initial_article_is_lowercased_and_names_are_not():
    row = {
        "text": "The janitor reprimanded the accountant because she made a mistake.",
        "pronoun": {"text": "she", "start": 47, "end": 50},
        "candidates": [
            {"text": "The janitor", "start": 0, "end": 11},
            {"text": "the accountant", "start": 24, "end": 38},
        ],
    }
    assert BENCHMARKS["winobias"].cloze.render(row).continuations == (" the janitor", " the accountant")
    assert BENCHMARKS["winobias"].cloze.render(row).context.endswith("mistake. ‘She’ refers to")
    named = {**row, "candidates": [{"text": "Kyle", "start": 0, "end": 4}, {"text": "Emily", "start": 10, "end": 15}]}
    assert BENCHMARKS["gap"].cloze.render(named).continuations == (" Kyle", " Emily")
    after_full_stop = {
        "text": "Ann left. The nurse smiled at her.",
        "pronoun": {"text": "her", "start": 30, "end": 33},
        "candidates": [{"text": "The nurse", "start": 10, "end": 19}],
    }
    assert BENCHMARKS["sowinobias"].cloze.render(after_full_stop).choices == ("the nurse",)


def test_danish_sets_ask_in_danish_and_abc_can_say_someone_else():
    row = {
        "text": "bibliotekaren mistede hans tegnebog ved huset.",
        "pronoun": {"text": "hans", "start": 22, "end": 26},
        "candidates": [{"text": "bibliotekaren", "start": 0, "end": 13}],
    }
    request = BENCHMARKS["abc"].cloze.render(row)
    assert request.context == "bibliotekaren mistede hans tegnebog ved huset. Ordet »hans« henviser til"
    assert request.continuations == (" bibliotekaren", " en anden person")
    assert request.candidate_of == (0, None)
    assert BENCHMARKS["dawinobias"].cloze.someone_else is None


def test_a_template_identity_changes_with_its_wording_and_version():
    template = BENCHMARKS["gap"].cloze
    reworded = ClozeTemplate(
        version=template.version, suffix=" ‘{Pronoun}’ is", source=template.source, cannot_express=""
    )
    bumped = ClozeTemplate(version=2, suffix=template.suffix, source=template.source, cannot_express="")
    assert template.identity["digest"] != reworded.identity["digest"]
    assert template.identity["digest"] == bumped.identity["digest"] and bumped.identity != template.identity


@pytest.mark.parametrize("name", list(BENCHMARKS))
def test_every_benchmark_renders_every_instance_of_a_quick_run(name, mirror, exported_set):
    benchmark = BENCHMARKS[name]
    data_dir = exported_set(benchmark.dataset).parent
    parts = {part: load_part(benchmark, *part, data_dir, mirror) for part in benchmark.parts}
    for data in limit_units(parts, benchmark, 2).values():
        for row in data:
            request = benchmark.cloze.render(row)
            assert request.context.startswith(benchmark.cloze.preamble + benchmark.cloze.read_text(row))
            assert len(request.choices) == len(row["candidates"]) + (benchmark.cloze.someone_else is not None)
            assert all(choice.strip() for choice in request.choices)
            assert [c for c in request.candidate_of if c is not None] == list(range(len(row["candidates"])))


def test_decisions_by_sum_and_per_byte_break_ties_to_the_first_option():
    request = ClozeRequest("ctx", ("a", "longer one"), (0, 1))
    assert decide(request, [-3.0, -5.0], "none") == 0
    assert decide(request, [-3.0, -5.0], "bytes") == 1  # -3/1 < -5/10
    assert decide(request, [-2.0, -2.0], "none") == 0
    danish = ClozeRequest("ctx", ("æ", "ab"), (0, 1))  # 2 bytes each: the same per-byte scale
    assert decide(danish, [-4.0, -3.0], "bytes") == 1


class _Backend:
    identity = {"kind": "stand-in"}

    def __init__(self, scores):
        self.scores, self.seen = scores, []

    def loglikelihoods(self, requests):
        self.seen += requests
        return [self.scores[: len(request.choices)] for request in requests]


def test_a_cloze_model_maps_the_someone_else_option_to_no_candidate_and_keeps_loglikelihoods():
    abc = BENCHMARKS["abc"]
    row = {
        "id": "x",
        "text": "bibliotekaren mistede hans tegnebog.",
        "pronoun": {"text": "hans", "start": 22, "end": 26},
        "candidates": [{"text": "bibliotekaren", "start": 0, "end": 13}],
    }
    (choice,) = ClozeModel("stand-in", _Backend([-5.0, -1.5])).choose([row], abc.task)
    assert choice.index is None and choice.parsed and choice.position is None
    assert choice.loglikelihoods == (-5.0, -1.5)
    (linked,) = ClozeModel("stand-in", _Backend([-1.0, -1.5])).choose([row], abc.task)
    assert linked.index == 0


def test_a_cloze_model_refuses_a_benchmark_without_a_template():
    from corefbias.models.base import ModelError

    with pytest.raises(ModelError, match="declares no cloze template"):
        ClozeModel("stand-in", _Backend([0.0])).choose([WINOGENDER_ROW], Task("toy", "en", "id"))
    with pytest.raises(ValueError, match="cloze norm"):
        ClozeModel("stand-in", _Backend([0.0]), norm="chars")
