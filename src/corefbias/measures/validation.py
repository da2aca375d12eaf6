"""Up-front checks of metric inputs: the one place that says what each kind of input must be.

Every failure is a ``ValueError`` naming the input (and the entry) and saying what to fix. The measures
call these checks on what they are given; the ``evaluate`` modules call the same checks on the raw columns
before ``datasets`` casts them to the module's features (a cast that would read NaN, -1 or ``[True, False]``
as True, or 3.5 as 3).

Kinds of input:

* a *column* is a list, tuple or numpy array with one entry per instance, never a dict, a string, a
  scalar or None (an optional column may be None: left out);
* a *boolean* is ``True``/``False`` (Python or numpy) or the integer 0 or 1, never a float, NaN, a
  string or a list;
* an *integer* is a Python or numpy integer (not a boolean) of at most ``MAX_INTEGER`` in size;
* a *number* is a finite int or float (not a boolean);
* a *span* is a ``[start, end]`` pair of integers with ``0 <= start <= end <= MAX_INTEGER``;
* an *id* is a non-empty string or an integer (ids are compared, so they must be hashable values that
  ``evaluate`` can carry as their decimal strings).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np

# No count, offset or rank of a coreference data set comes near a billion; bounding them keeps every value
# inside numpy's int64 (a larger Python int would overflow there) and catches garbage such as 2**70.
MAX_INTEGER = 10**9
# 10 million resamples: 10 000 times the default, far past where a percentile interval stops moving; beyond
# it a typo (2**70) would run without end.
MAX_BOOTSTRAP = 10**7

_SHOWN = 80  # characters of a bad value quoted in a message


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _kind(value) -> str:
    return "None" if value is None else f"{_shown(value)} ({type(value).__name__})"


def is_column(values) -> bool:
    """A list, tuple or (at least one-dimensional) numpy array: something with one entry per instance."""
    if isinstance(values, np.ndarray):
        return values.ndim >= 1
    return isinstance(values, Sequence) and not isinstance(values, (str, bytes))


def check_column(name: str, values) -> None:
    """``values`` is a column (see :func:`is_column`); the error names ``name`` and what it got."""
    if not is_column(values):
        raise ValueError(
            f"{name} must be a list (or tuple or array) with one entry per instance, got {_kind(values)}; "
            f"pass e.g. {name}=[...]"
        )


def check_lengths(*, optional: Mapping[str, Sequence | None] | None = None, **required: Sequence) -> int:
    """Every column is one (the ``optional`` ones may be None) and all have one entry per instance.

    Parameters
    ----------
    optional : mapping of str to column or None, optional
        Columns that may be left out (None).
    **required
        Columns that must be given.

    Returns
    -------
    int
        The number of instances.
    """
    for name, values in required.items():
        check_column(name, values)
    given = dict(required)
    for name, values in (optional or {}).items():
        if values is not None:
            check_column(name, values)
            given[name] = values
    counts = {name: len(values) for name, values in given.items()}
    if len(set(counts.values())) > 1:
        listing = ", ".join(f"{name} has {count}" for name, count in counts.items())
        raise ValueError(f"inputs must have one entry per instance, but {listing}; pass aligned lists of equal length")
    count = next(iter(counts.values()), 0)
    if count == 0:
        raise ValueError(f"no instances given: {', '.join(counts)} are empty")
    return count


def _check_entries(name: str, values: Sequence, accept: Callable[[object], bool], expected: str) -> None:
    """Raise for the first entry ``accept`` refuses: ``<name>[i] is <value>; <expected>``."""
    for index, value in enumerate(values):
        if not accept(value):
            raise ValueError(f"{name}[{index}] is {_shown(value)}; {expected}")


def _check_present(name: str, values: Sequence, missing: str) -> None:
    """Raise for the first None entry: ``<name>[i] <missing>``, where ``missing`` says what is wrong and how to
    fix it."""
    if not missing:
        return
    for index, value in enumerate(values):
        if value is None:
            raise ValueError(f"{name}[{index}] {missing}")


def is_boolean(value) -> bool:
    """True/False (Python or numpy) or the integer 0 or 1."""
    if isinstance(value, (bool, np.bool_)):
        return True
    return isinstance(value, (int, np.integer)) and value in (0, 1)


def check_booleans(name: str, values: Sequence, *, allow_none: bool = False, none_means: str = "") -> np.ndarray:
    """Booleans (see :func:`is_boolean`), as a bool array; with ``allow_none``, None entries too (read as False).

    ``none_means`` says what a None entry stands for, in the error message.
    """
    expected = "each entry must be a boolean (True/False, or 0/1)"
    if allow_none and none_means:
        expected += f", or None {none_means}"
    _check_entries(name, values, lambda value: is_boolean(value) or (allow_none and value is None), expected)
    return np.fromiter((bool(value) for value in values), dtype=bool, count=len(values))


def check_binary_pairs(name: str, values: Sequence) -> np.ndarray:
    """A pair ``[A, B]`` of booleans per instance, as an ``(n, 2)`` bool array."""
    _check_entries(
        name,
        values,
        lambda value: is_column(value) and len(value) == 2 and all(is_boolean(item) for item in value),
        "each entry must be a pair [A, B] of booleans (is candidate A / B coreferent with the pronoun)",
    )
    return np.asarray([[bool(a), bool(b)] for a, b in values], dtype=bool).reshape(len(values), 2)


def is_integer(value, low: int | None = 0, high: int | None = MAX_INTEGER) -> bool:
    """An integer (Python or numpy, not a boolean) from ``low`` to ``high`` (None: no bound)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return False
    return (low is None or value >= low) and (high is None or value <= high)


def check_integers(name: str, values: Sequence, *, low: int = 0, allow_none: bool = False, meaning: str = "") -> list:
    """Integers from ``low`` to ``MAX_INTEGER``, as Python ints; None entries where allowed.

    ``meaning`` says what the integers are, in the error message.
    """
    expected = f"it must be an integer from {low:,} to {MAX_INTEGER:,}" + (f" ({meaning})" if meaning else "")
    if allow_none:
        expected += ", or None"
    _check_entries(name, values, lambda value: (allow_none and value is None) or is_integer(value, low), expected)
    return [None if value is None else int(value) for value in values]


def is_number(value) -> bool:
    """A finite real number (Python or numpy int or float, not a boolean)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


def check_numbers(
    name: str,
    values: Sequence,
    *,
    low: float | None = None,
    high: float | None = None,
    allow_none: bool = False,
    meaning: str = "",
    missing: str = "",
) -> list:
    """Finite numbers within ``[low, high]`` (either bound may be None), as floats; None entries where allowed.
    ``missing``: the message for a None entry, where one is not allowed (``is missing; give ...``)."""
    purpose = f" ({meaning})" if meaning else ""
    if not allow_none:
        _check_present(name, values, missing)
    for index, value in enumerate(values):
        if allow_none and value is None:
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ValueError(f"{name}[{index}] is {_shown(value)}; it must be a number{purpose}")
        if not is_number(value) or (low is not None and value < low) or (high is not None and value > high):
            if low is not None and high is not None:
                bounds = f" and between {low:g} and {high:g}"
            elif low is not None:
                bounds = " and non-negative" if low == 0 else f" and at least {low:g}"
            else:
                bounds = "" if high is None else f" and at most {high:g}"
            raise ValueError(f"{name}[{index}] is {_shown(value)}; {name} must be finite{bounds}{purpose}")
    return [None if value is None else float(value) for value in values]


def is_id(value, *, integers: bool = True) -> bool:
    """A non-empty string, or (with ``integers``) an integer that is not a boolean."""
    if isinstance(value, str):
        return value != ""
    return integers and isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _native(value):
    """A numpy string or integer as Python's own, so that it shows in messages and result keys as a plain value."""
    if isinstance(value, str):
        return str(value)
    return int(value) if isinstance(value, np.integer) else value


def check_ids(
    name: str, values: Sequence, *, integers: bool = True, allow_none: bool = False, missing: str = ""
) -> list:
    """Ids or names (see :func:`is_id`), as Python strings and ints; with ``allow_none``, None entries too.
    ``missing``: the message for a None entry, where one is not allowed (``is None; give ...``)."""
    if not allow_none:
        _check_present(name, values, missing)
    expected = "each entry must be a non-empty string" + (" or an integer" if integers else "")
    if allow_none:
        expected += ", or None"
    _check_entries(
        name, values, lambda value: (allow_none and value is None) or is_id(value, integers=integers), expected
    )
    return [_native(value) for value in values]


def check_labels(name: str, values: Sequence, allowed: Collection) -> list:
    """Every value is one of ``allowed`` (returned as Python values); the error lists the unknown labels and
    where they are."""
    allowed_set = set(allowed)

    def known(value) -> bool:
        try:
            return value in allowed_set
        except TypeError:  # unhashable: a list or a dict is no label
            return False

    bad = [(index, value) for index, value in enumerate(values) if not known(value)]
    if bad:
        shown = ", ".join(f"{_shown(value)} at index {index}" for index, value in bad[:5])
        more = f" (and {len(bad) - 5} more)" if len(bad) > 5 else ""
        raise ValueError(f"unknown {name}: {shown}{more}; each must be one of {sorted(map(str, allowed_set))}")
    return [_native(value) for value in values]


def check_choice(name: str, value, choices: Collection[str]) -> str:
    """An option that must be one of the strings ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"unknown {name} {_shown(value)}; choose one of {sorted(choices)}")
    return value


def check_flag(name: str, value) -> bool:
    """An on/off option: True or False, nothing merely truthy."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {_kind(value)}")
    return bool(value)


def is_span(value) -> bool:
    """A ``[start, end]`` pair (list or tuple) of integers with ``0 <= start <= end <= MAX_INTEGER``."""
    return (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(is_integer(item) for item in value)
        and value[0] <= value[1]
    )


def is_label(value) -> bool:
    """A value that can name a set, a group or a mention: hashable, not None, and equal to itself (not NaN)."""
    try:
        hash(value)
    except TypeError:
        return False
    return value is not None and value == value


def check_label_values(name: str, values: Sequence, *, allow_none: bool = False) -> list:
    """Labels (see :func:`is_label`); with ``allow_none``, None entries too."""
    expected = "each entry must be a hashable label such as a string or an integer (not a list or NaN)"
    expected += ", or None" if allow_none else ", not None"
    _check_entries(name, values, lambda value: (allow_none and value is None) or is_label(value), expected)
    return list(values)


def check_clusters(name: str, documents: Sequence, *, spans: bool = True) -> list[list[list]]:
    """Per document a list of clusters, each a list of mentions; mentions are spans (``spans``), as tuples,
    or else any hashable values other than None.

    Returns
    -------
    list
        The documents with every cluster a list, and every span a ``(start, end)`` tuple.
    """
    mention = "a [start, end] span of non-negative integers with start <= end" if spans else "a hashable label"
    checked = []
    for index, clusters in enumerate(documents):
        if not is_column(clusters) or not all(is_column(cluster) for cluster in clusters):
            raise ValueError(
                f"{name}[{index}] must be a list of clusters, each a list of mentions ({mention}); "
                f"got {_shown(clusters)}"
            )
        for cluster in clusters:
            for value in cluster:
                if not (is_span(value) if spans else is_label(value)):
                    raise ValueError(f"{name}[{index}] has the mention {_shown(value)}; each mention must be {mention}")
        checked.append([[tuple(value) if spans else value for value in cluster] for cluster in clusters])
    return checked


def check_nonempty(groups: Mapping[str, int], what: str) -> None:
    """Each named group has at least one instance."""
    empty = [name for name, count in groups.items() if count == 0]
    if empty:
        raise ValueError(
            f"no instances in group(s) {', '.join(empty)}: {what} needs instances of every group; "
            f"check the labels you passed"
        )


def check_significance(n_bootstrap: int, seed: int) -> None:
    """The options every measure's significance takes: the number of bootstrap resamples (0 to
    ``MAX_BOOTSTRAP``) and a non-negative integer seed."""
    if not is_integer(n_bootstrap, high=MAX_BOOTSTRAP):
        raise ValueError(
            f"n_bootstrap must be an integer from 0 (significance off) to {MAX_BOOTSTRAP:,} resamples, "
            f"got {_kind(n_bootstrap)}"
        )
    if not is_integer(seed, high=None):
        raise ValueError(f"seed must be a non-negative integer (it seeds numpy's generator), got {_kind(seed)}")


def unit_table(
    unit_ids: Sequence,
    labels: Sequence,
    slots: Sequence,
    *,
    unit: str,
    member: str,
    ids_name: str,
    required: Collection | None = None,
) -> tuple[list, np.ndarray]:
    """Group rows into resampling units (quadruples, triplets, minimal pairs).

    Returns the unit ids in first-seen order and a ``units × len(slots)`` table holding the row of
    each unit's member per slot label, −1 where an optional slot is empty. Raises when a unit id is
    None or no id, a unit has a label twice, or lacks one of the ``required`` labels (default: every slot).
    """
    check_ids(ids_name, unit_ids, missing=f"is None; give every {member} a {unit} id or leave {ids_name} out")
    required = set(slots) if required is None else set(required)
    order: dict = {}
    table: list[list[int]] = []
    for row, (unit_id, label) in enumerate(zip(unit_ids, labels)):
        if unit_id not in order:
            order[unit_id] = len(table)
            table.append([-1] * len(slots))
        slot = table[order[unit_id]]
        position = list(slots).index(label)
        if slot[position] != -1:
            raise ValueError(f"{unit} {unit_id!r} has two {label!r} {member}s (rows {slot[position]} and {row})")
        slot[position] = row
    for unit_id, index in order.items():
        missing = [label for label, row in zip(slots, table[index]) if row == -1 and label in required]
        if missing:
            raise ValueError(
                f"{unit} {unit_id!r} has no {' and no '.join(map(str, missing))} {member}; every {unit} needs one "
                f"{member} of each of {sorted(map(str, required))}"
            )
    return list(order), np.asarray(table, dtype=int)
