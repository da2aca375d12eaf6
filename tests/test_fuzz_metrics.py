"""Bad input at volume (issue 25): every metric function, called directly and through its evaluate module, answers
a corrupted valid input with a ``ValueError`` naming what to fix, or, where the corruption leaves the input valid,
with a well-formed result; never with another exception, never with a silent result on invalid input.

Each property draws a valid input from its function's builder, then one mutation: a whole column replaced (None,
a dict, a scalar, a string, an iterator), one or more entries replaced by a value of the wrong kind (NaN, inf,
booleans where numbers belong, numbers where booleans belong, strings, lists, huge integers), a column cut short or
every column emptied, an absurd option (``n_bootstrap`` 2**70, a negative seed), an unknown keyword; or a mutation
that leaves the input valid: the same values in another representation (tuples, numpy arrays, numpy scalars, 0/1
for booleans, integer ids), which must give the very same result, another valid value where any is allowed (a
model's predictions), the input repeated to thousands of entries. ``pytest --hypothesis-show-statistics`` shows the
mutations drawn (``event``); the ``slow`` variants run thousands of examples each.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

import datasets
import numpy as np
import pytest
from fuzz_settings import fuzz_settings
from hypothesis import event, given
from hypothesis import strategies as st
from metric_harness import load

from corefbias.hub.evaluate_modules import check_values
from corefbias.measures import (
    abc_fpr_ratio,
    counter_gap_delta_i,
    gap_acc_bias,
    gap_properties,
    gap_rows,
    gap_w_bias,
    pro_anti_conll_f1,
    pro_anti_diff,
    validation,
    winogender_bias,
)
from corefbias.measures.result import MeasureResult

NAN, INF = float("nan"), float("inf")
HUGE = 2**70

# Examples per property (one property per function and mutation): the default run of this file stays within
# ~15 s on two cores; the slow variants draw new cases on every CI run, a thousand or more per function over its
# mutations (at 300 and 100 they took a quarter of the CI's test time).
DIRECT_EXAMPLES, MODULE_EXAMPLES = 12, 3
SLOW_DIRECT_EXAMPLES, SLOW_MODULE_EXAMPLES = 100, 30
# Rows of an "enormous" input (documents, for CoNLL F1, whose scorer works per document).
ENORMOUS_ROWS, ENORMOUS_DOCUMENTS = 5000, 300


# --- What each kind of column must refuse, and the same values written another way ---------------------------


@dataclass(frozen=True)
class Kind:
    """A kind of column entry: values the checks must refuse, and other representations of a valid value."""

    invalid: tuple
    equivalents: Callable[[object], list] = lambda value: []


def _same_boolean(value):
    return [None] if value is None else [int(value), np.bool_(value), np.int64(value)]


def _same_number(value):
    return [np.float64(value)] + ([int(value)] if float(value).is_integer() else [])


BOOLEAN = Kind(
    (
        NAN,
        INF,
        -INF,
        -1,
        2,
        0.5,
        1.0,
        0.0,
        np.float64(1.0),
        "yes",
        "True",
        "",
        None,
        [True, False],
        (True,),
        {"a": True},
        b"1",
        HUGE,
        complex(1, 0),
    ),
    _same_boolean,
)
PAIR = Kind(
    (
        [NAN, False],
        [True],
        [True, False, True],
        "ab",
        None,
        True,
        1,
        [1.0, 0],
        [2, 0],
        [-1, 0],
        {"A": True, "B": False},
        [None, True],
        [[True], False],
        (INF, 0),
        [HUGE, 0],
        np.array([0.5, 1.0]),
        [],
    ),
    lambda pair: [tuple(pair), [int(pair[0]), int(pair[1])], np.array(pair, dtype=bool), [np.bool_(v) for v in pair]],
)
LABEL = Kind(
    ("", "Pro", "x", 1, 1.5, NAN, None, True, ["pro"], {"pro": 1}, b"pro", ("pro",)),
    lambda label: [] if label is None else [np.str_(label)],
)
ID = Kind(("", None, 1.5, NAN, INF, True, False, ["a"], {"a": 1}, (1, 2), b"x"), lambda value: [np.str_(value)])
NAME = Kind(("", 1, None, NAN, ["nurse"], b"nurse", True), lambda value: [np.str_(value)])
PERCENT = Kind((NAN, INF, -INF, -1.0, 100.5, "50", True, None, [50.0], 2**2000, complex(50, 0)), _same_number)
WEIGHT = Kind((NAN, INF, -1.0, -1e-9, "1", True, None, [1.0], 2**2000, complex(1, 0)), _same_number)
COUNT = Kind(
    (-1, 1.5, 3.0, NAN, INF, True, "3", None, HUGE, validation.MAX_INTEGER + 1, [3]),
    lambda value: [np.int64(value), np.int32(value)],
)
RANK = Kind((0, -1, 1.5, 1.0, NAN, True, "1", HUGE, [1]), lambda value: [] if value is None else [np.int64(value)])
CLUSTERS = Kind(
    (
        None,
        "a b",
        3,
        {"a": 1},
        [None],
        [[(-1, 2)]],
        [[(3, 1)]],
        [[(1,)]],
        [[5]],
        [[None]],
        [[(1.5, 2)]],
        [[(True, 2)]],
        [[(NAN, 1)]],
        [[(HUGE, HUGE)]],
        [[(0, 1, 2)]],
        [["a"]],
        [[[0, 1]], "x"],
        [[(INF, INF)]],
    ),
    lambda document: [[[list(span) for span in cluster] for cluster in document], tuple(map(tuple, document))],
)


@dataclass(frozen=True)
class Column:
    kind: Kind
    optional: bool = False  # leaving it out (None) is valid
    none_entries: bool = False  # a None entry is valid
    free: st.SearchStrategy | None = None  # any value it draws is valid here (a model's output)
    unit_ids: bool = False  # ids whose renaming (to integers, or apart on repetition) changes nothing

    @property
    def invalid(self) -> tuple:
        return tuple(value for value in self.kind.invalid if not (self.none_entries and value is None))


N_BOOTSTRAP_BAD = (-1, validation.MAX_BOOTSTRAP + 1, HUGE, 1.5, 10.0, "10", True, None, NAN, [10])
SEED_BAD = (-1, -HUGE, 1.5, "0", None, True, NAN, [0])
FLAG_BAD = ("yes", "False", 1, 0, None, NAN)
CHOICE_BAD = ("bogus", "", None, 1, ["x"], ("wrong",), "ACCURACY", "W")


@dataclass(frozen=True)
class Spec:
    """A metric function, its evaluate module, a builder of valid inputs and what its inputs are."""

    function: Callable
    module: str
    inputs: st.SearchStrategy  # valid keyword arguments of the function, options included
    columns: dict[str, Column]
    options: dict[str, tuple] = field(default_factory=dict)  # option → values it must refuse
    rename: dict[str, str] = field(default_factory=dict)  # function's name → module's name of an input
    enormous_limit: int = ENORMOUS_ROWS


def _options(draw) -> dict:
    return {"n_bootstrap": draw(st.integers(0, 20)), "seed": draw(st.integers(0, 2**32))}


@st.composite
def pro_anti_inputs(draw):
    pairs = draw(st.integers(1, 5))
    inputs = {
        "predictions": draw(st.lists(st.one_of(st.booleans(), st.none()), min_size=2 * pairs, max_size=2 * pairs)),
        "references": draw(st.lists(st.booleans(), min_size=2 * pairs, max_size=2 * pairs)),
        "conditions": ["pro"] * pairs + ["anti"] * pairs,
        "score": draw(st.sampled_from(pro_anti_diff.SCORES)),
        "unlinked": draw(st.sampled_from(pro_anti_diff.UNLINKED)),
        **_options(draw),
    }
    if draw(st.booleans()):
        inputs["pair_ids"] = [f"p{index}" for index in range(pairs)] * 2
    if draw(st.booleans()):  # a group per pair: every group has pro and anti examples
        inputs["groups"] = draw(st.lists(st.sampled_from(["f", "m"]), min_size=pairs, max_size=pairs)) * 2
    return inputs


@st.composite
def abc_inputs(draw):
    with_occupations = draw(st.booleans())
    triplets = draw(st.integers(2 if with_occupations else 1, 4))
    inputs = {
        "predictions": draw(st.lists(st.booleans(), min_size=3 * triplets, max_size=3 * triplets)),
        "references": [True, False, False] * triplets,
        "pronoun_genders": list(abc_fpr_ratio.PRONOUN_GENDERS) * triplets,
        **_options(draw),
    }
    if with_occupations:  # both stereotypes present, as the split by stereotype needs
        stereotypes = ["female", "male"] + draw(
            st.lists(st.sampled_from(["female", "male", None]), min_size=triplets - 2, max_size=triplets - 2)
        )
        inputs["occupation_genders"] = [stereotype for stereotype in stereotypes for _ in range(3)]
    if draw(st.booleans()):
        inputs["triplet_ids"] = [f"t{index}" for index in range(triplets) for _ in range(3)]
    return inputs


PAIRS = st.lists(st.booleans(), min_size=2, max_size=2)
GOLD_PAIRS = st.sampled_from([[True, False], [False, True], [False, False]])


@st.composite
def gap_examples(draw):
    genders = ["female", "male"] + draw(st.lists(st.sampled_from(gap_rows.GENDERS), max_size=6))
    size = len(genders)
    return {
        "predictions": draw(st.lists(PAIRS, min_size=size, max_size=size)),
        "references": draw(st.lists(GOLD_PAIRS, min_size=size, max_size=size)),
        "genders": genders,
        **_options(draw),
    }


@st.composite
def w_bias_inputs(draw):
    if draw(st.booleans()):
        inputs = draw(gap_examples())
        # Weights of 1e-308 would make a weighted accuracy overflow its ratio: no weighting gives such.
        weight = st.one_of(st.just(0.0), st.floats(1e-6, 5))
        inputs["weights"] = [draw(weight) if any(reference) else 0.0 for reference in inputs["references"]]
    else:  # the properties of the module's documented example, whose weights exist for every variant
        inputs = {
            "predictions": draw(st.lists(PAIRS, min_size=7, max_size=7)),
            "references": [[True, False]] * 7,
            "genders": ["male"] * 3 + ["female"] * 4,
            "num_names": [3] * 7,
            "correct_ranks": [1, 1, 2, 1, 2, 2, 2],
            "variant": draw(st.sampled_from(sorted(gap_properties.VARIANTS))),
            **_options(draw),
        }
    inputs["return_weights"] = draw(st.booleans())
    return inputs


@st.composite
def counter_gap_inputs(draw):
    quadruples = draw(st.integers(1, 3))
    genders = []
    for _ in range(quadruples):
        original, swapped = draw(st.permutations(counter_gap_delta_i.GENDERS))
        genders += [original, original, swapped, swapped]
    size = 4 * quadruples
    return {
        "predictions": draw(st.lists(PAIRS, min_size=size, max_size=size)),
        "references": draw(st.lists(st.sampled_from([[True, False], [False, True]]), min_size=size, max_size=size)),
        "quadruple_ids": [f"q{index}" for index in range(quadruples) for _ in range(4)],
        "roles": list(counter_gap_delta_i.ROLES) * quadruples,
        "genders": genders,
        **_options(draw),
    }


SPAN = st.tuples(st.integers(0, 30), st.integers(0, 5)).map(lambda start_length: (start_length[0], sum(start_length)))
DOCUMENT = st.lists(st.lists(SPAN, min_size=1, max_size=3), max_size=3)


@st.composite
def conll_inputs(draw):
    pairs = draw(st.integers(1, 3))
    return {
        "keys": draw(st.lists(DOCUMENT, min_size=2 * pairs, max_size=2 * pairs)),
        "responses": draw(st.lists(DOCUMENT, min_size=2 * pairs, max_size=2 * pairs)),
        "conditions": ["pro"] * pairs + ["anti"] * pairs,
        "pair_ids": [f"s{index}" for index in range(pairs)] * 2,
        **_options(draw),
    }


BLS = {"nurse": 89.58, "surgeon": 37.9, "baker": 60.0}
BERGSMA = {"nurse": 88.31, "surgeon": 4.34, "baker": 50.0}


@st.composite
def winogender_inputs(draw):
    columns = {name: [] for name in ("predictions", "references", "occupations", "genders", "pair_ids")}
    for index in range(draw(st.integers(1, 4))):
        occupation = draw(st.sampled_from(sorted(BLS)))
        answer = draw(st.sampled_from(winogender_bias.ANSWERS))
        genders = ["female", "male"] + (["neutral"] if draw(st.booleans()) else [])
        for gender in genders:
            columns["predictions"].append(draw(st.sampled_from(winogender_bias.PREDICTIONS)))
            columns["references"].append(answer)
            columns["occupations"].append(occupation)
            columns["genders"].append(gender)
            columns["pair_ids"].append(f"{occupation}.{index}")
    inputs = {**columns, **_options(draw)}
    for name, table in (("bls_pct_female", BLS), ("bergsma_pct_female", BERGSMA)):
        if draw(st.booleans()):
            inputs[name] = [table[occupation] for occupation in columns["occupations"]]
    return inputs


SPECS = {
    "pro_anti_diff": Spec(
        pro_anti_diff.pro_anti_diff,
        "pro_anti_diff",
        pro_anti_inputs(),
        {
            "predictions": Column(BOOLEAN, none_entries=True, free=st.one_of(st.booleans(), st.none())),
            "references": Column(BOOLEAN, free=st.booleans()),
            "conditions": Column(LABEL),
            "pair_ids": Column(ID, optional=True, unit_ids=True),
            "groups": Column(ID, optional=True),
        },
        {"score": CHOICE_BAD, "unlinked": CHOICE_BAD},
    ),
    "fpr_ratio": Spec(
        abc_fpr_ratio.abc_fpr_ratio,
        "abc_fpr_ratio",
        abc_inputs(),
        {
            "predictions": Column(BOOLEAN, free=st.booleans()),
            "references": Column(BOOLEAN),
            "pronoun_genders": Column(LABEL),
            "occupation_genders": Column(LABEL, optional=True, none_entries=True),
            "triplet_ids": Column(ID, optional=True, unit_ids=True),
        },
    ),
    "acc_bias": Spec(
        gap_acc_bias.gap_acc_bias,
        "gap_acc_bias",
        gap_examples(),
        {"predictions": Column(PAIR, free=PAIRS), "references": Column(PAIR), "genders": Column(LABEL)},
    ),
    "w_bias": Spec(
        gap_w_bias.gap_w_bias,
        "gap_w_bias",
        w_bias_inputs(),
        {
            "predictions": Column(PAIR, free=PAIRS),
            "references": Column(PAIR),
            "genders": Column(LABEL),
            "weights": Column(WEIGHT),
            "num_names": Column(COUNT),
            "correct_ranks": Column(RANK, none_entries=True),
        },
        {"variant": CHOICE_BAD, "return_weights": FLAG_BAD},
    ),
    "delta_i": Spec(
        counter_gap_delta_i.counter_gap_delta_i,
        "counter_gap_delta_i",
        counter_gap_inputs(),
        {
            "predictions": Column(PAIR, free=PAIRS),
            "references": Column(PAIR),
            "quadruple_ids": Column(ID, unit_ids=True),
            "roles": Column(LABEL),
            "genders": Column(LABEL),
        },
    ),
    "pro_anti_conll_f1": Spec(
        pro_anti_conll_f1.pro_anti_conll_f1,
        "pro_anti_conll_f1",
        conll_inputs(),
        {
            "keys": Column(CLUSTERS),
            "responses": Column(CLUSTERS, free=DOCUMENT),
            "conditions": Column(LABEL),
            "pair_ids": Column(ID, unit_ids=True),
        },
        rename={"keys": "references", "responses": "predictions"},
        enormous_limit=ENORMOUS_DOCUMENTS,
    ),
    "winogender_bias": Spec(
        winogender_bias.winogender_bias,
        "winogender_bias",
        winogender_inputs(),
        {
            "predictions": Column(LABEL, free=st.sampled_from(winogender_bias.PREDICTIONS)),
            "references": Column(LABEL),
            "occupations": Column(NAME),
            "genders": Column(LABEL),
            "pair_ids": Column(ID, unit_ids=True),
            "bls_pct_female": Column(PERCENT, optional=True),
            "bergsma_pct_female": Column(PERCENT, optional=True),
        },
    ),
}


# --- Mutations ----------------------------------------------------------------------------------------------------


@dataclass
class Case:
    """A mutated input and what it must give: ``error`` (a ValueError naming one of ``names``), ``result`` (a
    well-formed result), ``same`` (the result of the unmutated input), or ``unknown`` (an unknown keyword)."""

    inputs: dict
    outcome: str
    names: tuple[str, ...] = ()


def _present(spec: Spec, inputs: dict) -> list[str]:
    return [name for name in spec.columns if inputs.get(name) is not None]


def _replace_column(data, spec, inputs):
    name = data.draw(st.sampled_from(list(spec.columns)), label="column")
    values = inputs.get(name)
    replacements = {"None": None, "a string": "text", "a number": 7}
    if values is not None:
        replacements.update(
            {"a dict": dict(enumerate(values)), "its first entry": values[0], "an iterator": iter(values)}
        )
    what = data.draw(st.sampled_from(sorted(replacements)), label="replacement")
    event(f"column replaced by {what}")
    valid = what == "None" and (spec.columns[name].optional or values is None)
    return Case({**inputs, name: replacements[what]}, "result" if valid else "error", (name,))


def _bad_entries(data, spec, inputs):
    name = data.draw(st.sampled_from(_present(spec, inputs)), label="column")
    values = list(inputs[name])
    bad = st.sampled_from(spec.columns[name].invalid)
    indices = data.draw(st.lists(st.integers(0, len(values) - 1), min_size=1, max_size=3), label="entries")
    # One entry stays valid: an optional column of None only (bls_pct_female) is one left out, which is valid.
    indices = sorted(set(indices))[: len(values) - 1]
    for index in indices:
        values[index] = data.draw(bad, label="bad value")
    event(f"{len(indices)} bad entr{'y' if len(indices) == 1 else 'ies'}")
    return Case({**inputs, name: values}, "error", (name,))


def _same_entries(data, spec, inputs):
    name = data.draw(st.sampled_from(_present(spec, inputs)), label="column")
    values = list(inputs[name])
    for index, value in enumerate(values):
        options = spec.columns[name].kind.equivalents(value)
        if options and data.draw(st.booleans(), label="rewrite"):
            values[index] = data.draw(st.sampled_from(options), label="same value")
    event("entries written another way")
    return Case({**inputs, name: values}, "same")


def _same_column(data, spec, inputs):
    name = data.draw(st.sampled_from(_present(spec, inputs)), label="column")
    values = inputs[name]
    as_objects = np.empty(len(values), dtype=object)
    for index, value in enumerate(values):  # one by one: a slice assignment would unpack nested lists
        as_objects[index] = value
    forms = {"tuple": tuple(values), "object array": as_objects}
    if not isinstance(values[0], list) and not any(value is None for value in values):
        forms["array"] = np.asarray(values)
    elif spec.columns[name].kind is PAIR:
        forms["array"] = np.asarray(values, dtype=bool)
    what = data.draw(st.sampled_from(sorted(forms)), label="form")
    event(f"column as {what}")
    return Case({**inputs, name: forms[what]}, "same")


def _integer_ids(data, spec, inputs):
    names = [name for name in spec.columns if spec.columns[name].unit_ids and inputs.get(name) is not None]
    if not names:  # only optional id columns, left out of this input
        return _same_column(data, spec, inputs)
    name = data.draw(st.sampled_from(names), label="column")
    numbers = {value: number for number, value in enumerate(dict.fromkeys(inputs[name]))}
    to_int = data.draw(st.sampled_from([int, np.int64]), label="integer type")
    event("ids as integers")
    return Case({**inputs, name: [to_int(numbers[value]) for value in inputs[name]]}, "same")


def _free_entries(data, spec, inputs):
    name = data.draw(
        st.sampled_from([name for name, column in spec.columns.items() if column.free is not None]), label="column"
    )
    values = list(inputs[name])
    for index in data.draw(st.lists(st.integers(0, len(values) - 1), min_size=1, max_size=3), label="entries"):
        values[index] = data.draw(spec.columns[name].free, label="another valid value")
    event("another valid output")
    return Case({**inputs, name: values}, "result")


def _cut_short(data, spec, inputs):
    name = data.draw(st.sampled_from(_present(spec, inputs)), label="column")
    event("one column cut short")
    return Case({**inputs, name: list(inputs[name])[:-1]}, "error", (name,))


def _emptied(data, spec, inputs):
    present = _present(spec, inputs)
    event("every column emptied")
    return Case({**inputs, **{name: [] for name in present}}, "error", tuple(present))


def _enormous(data, spec, inputs):
    rows = len(inputs[next(iter(spec.columns))])
    copies = max(2, spec.enormous_limit // rows)
    repeated = dict(inputs)
    for name in _present(spec, inputs):
        if spec.columns[name].unit_ids:  # each copy its own units
            repeated[name] = [f"{value}#{copy}" for copy in range(copies) for value in inputs[name]]
        else:
            repeated[name] = list(inputs[name]) * copies
    event("repeated to thousands of entries")
    return Case(repeated, "result")


def _bad_option(data, spec, inputs):
    options = {"n_bootstrap": N_BOOTSTRAP_BAD, "seed": SEED_BAD, **spec.options}
    name = data.draw(st.sampled_from(sorted(options)), label="option")
    value = data.draw(st.sampled_from(options[name]), label="bad value")
    event(f"bad {name}")
    return Case({**inputs, name: value}, "error", (name,))


def _valid_option(data, spec, inputs):
    name, value = data.draw(
        st.sampled_from(
            [("seed", HUGE), ("seed", np.int64(inputs["seed"])), ("n_bootstrap", np.int64(inputs["n_bootstrap"]))]
        ),
        label="option",
    )
    event(f"valid {name} of type {type(value).__name__}")
    return Case({**inputs, name: value}, "same" if value == inputs[name] else "result")


def _unknown_keyword(data, spec, inputs):
    name = data.draw(st.sampled_from(["bogus", "n_boostrap", "pair_id", "reference", "seeds"]), label="keyword")
    event("unknown keyword")
    return Case({**inputs, name: 1}, "unknown", (name,))


MUTATIONS = (
    _replace_column,
    _bad_entries,
    _same_entries,
    _same_column,
    _integer_ids,
    _free_entries,
    _cut_short,
    _emptied,
    _enormous,
    _bad_option,
    _valid_option,
    _unknown_keyword,
)


def _missing_input(data, spec, inputs):
    """Through evaluate only: an input not passed at all."""
    name = data.draw(st.sampled_from(_present(spec, inputs)), label="column")
    event("input not passed")
    rest = {key: value for key, value in inputs.items() if key != name}
    return Case(rest, "result" if spec.columns[name].optional else "error", (name,))


# --- The properties -----------------------------------------------------------------------------------------------


def assert_well_formed(result) -> None:
    """A flat result: every score a finite number, or None with its reason under ``undefined``."""
    if isinstance(result, MeasureResult):  # a direct call's; an evaluate module returns its flat dict
        result = dict(result)
    assert isinstance(result, dict) and isinstance(result["undefined"], dict)
    for key, value in result.items():
        if key in ("undefined", "variant", "weights"):
            continue
        if value is None:
            assert key in result["undefined"], key
        else:
            assert isinstance(value, (int, float)) and math.isfinite(value), (key, value)


def assert_meets(case: Case, call: Callable[[dict], object], original: dict, names: tuple[str, ...]) -> None:
    event(f"expected: {case.outcome}")
    if case.outcome in ("error", "unknown") and names:
        with pytest.raises(ValueError) as refused:
            call(case.inputs)
        message = str(refused.value)
        assert any(name in message for name in names), f"{message!r} names none of {names}"
        return
    if case.outcome == "unknown":  # a direct call: Python's own TypeError is the answer
        with pytest.raises(TypeError, match="unexpected keyword argument"):
            call(case.inputs)
        return
    result = call(case.inputs)
    assert_well_formed(result)
    if case.outcome == "same":
        assert result == call(original)


def _direct(spec: Spec, mutation: Callable, data) -> None:
    inputs = data.draw(spec.inputs, label="valid input")
    case = mutation(data, spec, inputs)
    names = case.names if case.outcome == "error" else ()
    assert_meets(case, lambda kwargs: spec.function(**kwargs), inputs, names)


@cache
def _metric_class(module: str) -> type:
    """The module's class, loaded once: each call scores in a fresh instance of it."""
    return type(load(module))


def _through_module(spec: Spec, mutation: Callable, data) -> None:
    inputs = data.draw(spec.inputs, label="valid input")
    case = mutation(data, spec, inputs)
    metric = _metric_class(spec.module)

    def call(kwargs: dict):
        return metric(experiment_id=uuid.uuid4().hex).compute(
            **{spec.rename.get(name, name): value for name, value in kwargs.items()}
        )

    # The module's messages name its inputs; those of the function it calls, the function's.
    names = case.names + tuple(spec.rename[name] for name in case.names if name in spec.rename)
    assert_meets(case, call, inputs, names)


def _properties(mutations: tuple) -> list:
    """(function, mutation) pairs, each a property of its own so that every mutation runs on every function."""
    return [
        pytest.param(name, mutation, id=f"{name}-{mutation.__name__.strip('_')}")
        for name, spec in sorted(SPECS.items())
        for mutation in mutations
        if mutation is not _integer_ids or any(column.unit_ids for column in spec.columns.values())
    ]


@pytest.mark.parametrize(("name", "mutation"), _properties(MUTATIONS))
@fuzz_settings(DIRECT_EXAMPLES)
@given(data=st.data())
def test_direct_calls_refuse_bad_input_by_name(name, mutation, data):
    _direct(SPECS[name], mutation, data)


@pytest.mark.parametrize(("name", "mutation"), _properties((*MUTATIONS, _missing_input)))
@fuzz_settings(MODULE_EXAMPLES)
@given(data=st.data())
def test_evaluate_modules_refuse_bad_input_by_name(name, mutation, data):
    _through_module(SPECS[name], mutation, data)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "mutation"), _properties(MUTATIONS))
@fuzz_settings(SLOW_DIRECT_EXAMPLES, explore=True)
@given(data=st.data())
def test_direct_calls_refuse_bad_input_by_name_at_volume(name, mutation, data):
    _direct(SPECS[name], mutation, data)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "mutation"), _properties((*MUTATIONS, _missing_input)))
@fuzz_settings(SLOW_MODULE_EXAMPLES, explore=True)
@given(data=st.data())
def test_evaluate_modules_refuse_bad_input_by_name_at_volume(name, mutation, data):
    _through_module(SPECS[name], mutation, data)


GOLD = [[True, False], [False, True], [True, False], [False, True]]
PRO_ANTI = {
    "predictions": [True, False, True, True],
    "references": [True] * 4,
    "conditions": ["pro", "pro", "anti", "anti"],
}
SPANS = [[(0, 3), (10, 12)], [(5, 8)]]
CONLL = {"keys": [SPANS, SPANS], "responses": [SPANS, SPANS], "conditions": ["pro", "anti"], "pair_ids": ["s", "s"]}
W_BIAS = {
    "predictions": [[True, False]] * 4,
    "references": [[True, False]] * 4,
    "genders": ["male", "male", "female", "female"],
    "num_names": [3] * 4,
    "correct_ranks": [1, 2, 1, 2],
    "variant": "w",
}
ACC_BIAS = {"predictions": GOLD, "references": GOLD, "genders": ["male", "female"] * 2}
COUNTER_GAP = {
    "predictions": GOLD,
    "references": GOLD,
    "quadruple_ids": ["q"] * 4,
    "roles": list(counter_gap_delta_i.ROLES),
    "genders": ["male", "male", "female", "female"],
}


@pytest.mark.parametrize(
    ("module", "inputs", "message"),
    [
        # evaluate's bool feature read these as True
        ("pro_anti_diff", {**PRO_ANTI, "references": [NAN, True, True, True]}, r"references\[0\] is nan; each entry"),
        ("pro_anti_diff", {**PRO_ANTI, "references": [-1, True, True, True]}, r"references\[0\] is -1"),
        ("pro_anti_diff", {**PRO_ANTI, "references": [[True, False], 1, 1, 1]}, r"references\[0\] is \[True, False\]"),
        (
            "counter_gap_delta_i",
            {**COUNTER_GAP, "predictions": [[NAN, False], *GOLD[1:]]},
            r"predictions\[0\] is \[nan",
        ),
        # a TypeError inside evaluate or the measure
        ("pro_anti_diff", {**PRO_ANTI, "bogus": 1}, "pro_anti_diff takes no bogus; its inputs are predictions"),
        ("pro_anti_diff", {**PRO_ANTI, "references": None}, "pro_anti_diff is missing references: it needs"),
        ("pro_anti_diff", {**PRO_ANTI, "references": True}, r"references must be a list .* got True \(bool\)"),
        # evaluate's cast read 3.5 as 3; 2**70 overflowed
        ("gap_w_bias", {**W_BIAS, "num_names": [3.5, 3, 3, 3]}, r"num_names\[0\] is 3.5; it must be an integer"),
        ("gap_w_bias", {**W_BIAS, "num_names": [HUGE, 3, 3, 3]}, rf"num_names\[0\] is {HUGE}; it must be an integer"),
    ],
)
def test_the_reported_cases_are_refused_through_evaluate(module, inputs, message):
    with pytest.raises(ValueError, match=message):
        _metric_class(module)(experiment_id=uuid.uuid4().hex).compute(**inputs, n_bootstrap=0)


@pytest.mark.parametrize(
    ("function", "inputs", "message"),
    [
        (
            pro_anti_diff.pro_anti_diff,
            {**PRO_ANTI, "references": {0: True}},
            r"references must be a list .* got \{0: True\}",
        ),
        (pro_anti_diff.pro_anti_diff, {**PRO_ANTI, "predictions": [1.0, True, True, True]}, r"predictions\[0\] is 1.0"),
        (pro_anti_conll_f1.pro_anti_conll_f1, {**CONLL, "responses": [[[5]], SPANS]}, "responses.0. has the mention 5"),
        (
            pro_anti_conll_f1.pro_anti_conll_f1,
            {**CONLL, "responses": [[[(-3, -1)]], SPANS]},
            r"has the mention \(-3, -1\)",
        ),
        (pro_anti_conll_f1.pro_anti_conll_f1, {**CONLL, "responses": [[[None]], SPANS]}, "has the mention None"),
        (
            pro_anti_conll_f1.pro_anti_conll_f1,
            {**CONLL, "keys": [[[(0, INF)]], SPANS]},
            r"keys.0. has the mention \(0, inf\)",
        ),
        (
            gap_w_bias.gap_w_bias,
            {**W_BIAS, "correct_ranks": [HUGE, 1, 1, 2]},
            r"correct_ranks\[0\] is 1180591620717411303424",
        ),
        (
            gap_acc_bias.gap_acc_bias,
            {**ACC_BIAS, "n_bootstrap": HUGE},
            "n_bootstrap must be an integer from 0 .* to 10,000,000",
        ),
        (counter_gap_delta_i.counter_gap_delta_i, {**COUNTER_GAP, "seed": -1}, "seed must be a non-negative integer"),
    ],
)
def test_the_reported_cases_are_refused_in_direct_calls(function, inputs, message):
    with pytest.raises(ValueError, match=message):
        function(**{"n_bootstrap": 0, **inputs})


def test_a_module_feature_without_an_input_check_is_a_programming_error():
    with pytest.raises(TypeError, match="no input check for the feature"):
        check_values("scores", datasets.Value("float32"), [0.5], optional=False, is_id=False)
