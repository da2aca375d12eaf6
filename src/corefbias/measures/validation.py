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
* an *id* is a non-empty string or an integer, compared as text (``as_id``: an integer is its decimal string),
  as ``evaluate`` carries it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

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
    """A list, tuple or (at least one-dimensional) numpy array: something with one entry per instance.

    Parameters
    ----------
    values : object
        What was passed as a column.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_column([1, 2]), is_column(np.arange(3)), is_column("ab"), is_column({"a": 1}), is_column(np.int64(3))
    (True, True, False, False, False)
    """
    if isinstance(values, np.ndarray):
        return values.ndim >= 1
    return _is_series(values) or (isinstance(values, Sequence) and not isinstance(values, (str, bytes)))


def _is_series(values) -> bool:
    # Recognised by its type's home, so that pandas need not be installed (or imported) to check a list.
    return type(values).__name__ == "Series" and type(values).__module__.startswith("pandas")


def column_values(values):
    """A column as the checks and ``evaluate`` read it: a ``pandas.Series`` as the list of its values (its index,
    which ``values[0]`` would look up, is no position), anything else as it is.

    Parameters
    ----------
    values : object
        What was passed as a column.

    Returns
    -------
    object

    Examples
    --------
    >>> import pandas as pd
    >>> column_values(pd.Series([True, False], index=[5, 6])), column_values((1, 2))
    ([True, False], (1, 2))
    """
    return values.tolist() if _is_series(values) else values


def check_column(name: str, values) -> None:
    """``values`` is a column (see :func:`is_column`); the error names ``name`` and what it got.

    Parameters
    ----------
    name : str
        The input's name, for the message.
    values : object
        What was passed.

    Raises
    ------
    ValueError
        If ``values`` is not a column.

    Examples
    --------
    >>> check_column("genders", "female")
    Traceback (most recent call last):
    ...
    ValueError: genders must be a list (or tuple or array) with one entry per instance, got 'female' (str); pass e.g.
    genders=[...]
    """
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

    Raises
    ------
    ValueError
        If a column is not one, the columns differ in length, or all are empty.

    Examples
    --------
    >>> check_lengths(predictions=[True, False], references=[True, True], optional={"groups": None})
    2
    >>> check_lengths(predictions=[True, False], references=[True])
    Traceback (most recent call last):
    ...
    ValueError: inputs must have one entry per instance, but predictions has 2, references has 1; pass aligned lists
    of equal length
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
    """True/False (Python or numpy) or the integer 0 or 1.

    Parameters
    ----------
    value : object
        One entry.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_boolean(True), is_boolean(np.bool_(False)), is_boolean(1), is_boolean(2), is_boolean(1.0), is_boolean("True")
    (True, True, True, False, False, False)
    """
    if isinstance(value, (bool, np.bool_)):
        return True
    return isinstance(value, (int, np.integer)) and value in (0, 1)


def check_booleans(name: str, values: Sequence, *, allow_none: bool = False, none_means: str = "") -> np.ndarray:
    """Booleans (see :func:`is_boolean`), as a bool array; with ``allow_none``, None entries too (read as False).

    Parameters
    ----------
    name : str
        The input's name, for the message.
    values : sequence
        The column.
    allow_none : bool, default False
        Whether None entries are allowed.
    none_means : str, default ""
        What a None entry stands for, in the error message.

    Returns
    -------
    numpy.ndarray
        One bool per entry.

    Raises
    ------
    ValueError
        Naming the first entry that is not a boolean (or None, where allowed).

    Examples
    --------
    >>> check_booleans("predictions", [True, 0, None], allow_none=True)
    array([ True, False, False])
    >>> check_booleans("predictions", [True, float("nan")])
    Traceback (most recent call last):
    ...
    ValueError: predictions[1] is nan; each entry must be a boolean (True/False, or 0/1)
    """
    expected = "each entry must be a boolean (True/False, or 0/1)"
    if allow_none and none_means:
        expected += f", or None {none_means}"
    _check_entries(name, values, lambda value: is_boolean(value) or (allow_none and value is None), expected)
    return np.fromiter((bool(value) for value in values), dtype=bool, count=len(values))


def check_binary_pairs(name: str, values: Sequence) -> np.ndarray:
    """A pair ``[A, B]`` of booleans per instance, as an ``(n, 2)`` bool array.

    Parameters
    ----------
    name : str
        The input's name, for the message.
    values : sequence
        The column of pairs.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, 2)``.

    Raises
    ------
    ValueError
        Naming the first entry that is not a pair of booleans.

    Examples
    --------
    >>> check_binary_pairs("references", [[True, False], (0, 1)]).tolist()
    [[True, False], [False, True]]
    >>> check_binary_pairs("references", [[True]])
    Traceback (most recent call last):
    ...
    ValueError: references[0] is [True]; each entry must be a pair [A, B] of booleans (is candidate A / B coreferent
    with the pronoun)
    """
    _check_entries(
        name,
        values,
        lambda value: is_column(value) and len(value) == 2 and all(is_boolean(item) for item in value),
        "each entry must be a pair [A, B] of booleans (is candidate A / B coreferent with the pronoun)",
    )
    return np.asarray([[bool(a), bool(b)] for a, b in values], dtype=bool).reshape(len(values), 2)


def is_integer(value, low: int | None = 0, high: int | None = MAX_INTEGER) -> bool:
    """An integer (Python or numpy, not a boolean) from ``low`` to ``high`` (None: no bound).

    Parameters
    ----------
    value : object
        One entry.
    low : int or None, default 0
        The smallest allowed.
    high : int or None, default MAX_INTEGER
        The largest allowed.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_integer(3), is_integer(True), is_integer(-1), is_integer(-1, low=None), is_integer(2**70)
    (True, False, False, True, False)
    >>> bool(is_integer(np.int64(3)))  # a numpy integer's comparison gives numpy's bool
    True
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return False
    return (low is None or value >= low) and (high is None or value <= high)


def check_integers(name: str, values: Sequence, *, low: int = 0, allow_none: bool = False, meaning: str = "") -> list:
    """Integers from ``low`` to ``MAX_INTEGER``, as Python ints; None entries where allowed.

    Parameters
    ----------
    name : str
        The input's name, for the message.
    values : sequence
        The column.
    low : int, default 0
        The smallest allowed.
    allow_none : bool, default False
        Whether None entries are allowed.
    meaning : str, default ""
        What the integers are, in the error message.

    Returns
    -------
    list of int or None

    Raises
    ------
    ValueError
        Naming the first entry that is not such an integer.

    Examples
    --------
    >>> check_integers("num_names", [np.int64(3), 5])
    [3, 5]
    >>> check_integers("correct_ranks", [1, 0], low=1, meaning="a rank")
    Traceback (most recent call last):
    ...
    ValueError: correct_ranks[1] is 0; it must be an integer from 1 to 1,000,000,000 (a rank)
    """
    expected = f"it must be an integer from {low:,} to {MAX_INTEGER:,}" + (f" ({meaning})" if meaning else "")
    if allow_none:
        expected += ", or None"
    _check_entries(name, values, lambda value: (allow_none and value is None) or is_integer(value, low), expected)
    return [None if value is None else int(value) for value in values]


def is_number(value) -> bool:
    """A finite real number (Python or numpy int or float, not a boolean).

    Parameters
    ----------
    value : object
        One entry.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_number(2), is_number(0.5), is_number(float("inf")), is_number(True), is_number("1")
    (True, True, False, False, False)
    """
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

    Parameters
    ----------
    name : str
        The input's name, for the message.
    values : sequence
        The column.
    low, high : float or None, default None
        The bounds.
    allow_none : bool, default False
        Whether None entries are allowed.
    meaning : str, default ""
        What the numbers are, in the error message.
    missing : str, default ""
        The message for a None entry where one is not allowed (``is missing; give ...``).

    Returns
    -------
    list of float or None

    Raises
    ------
    ValueError
        Naming the first entry that is not such a number.

    Examples
    --------
    >>> check_numbers("weights", [1, 2.5], low=0.0)
    [1.0, 2.5]
    >>> check_numbers("bls_pct_female", [50.0, 120.0], low=0.0, high=100.0, meaning="a percentage")
    Traceback (most recent call last):
    ...
    ValueError: bls_pct_female[1] is 120.0; bls_pct_female must be finite and between 0 and 100 (a percentage)
    """
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
    """A non-empty string, or (with ``integers``) an integer that is not a boolean.

    Parameters
    ----------
    value : object
        One entry.
    integers : bool, default True
        Whether integers are ids too.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_id("p1"), is_id(7), is_id(7, integers=False), is_id(""), is_id(True)
    (True, True, False, False, False)
    """
    if isinstance(value, str):
        return value != ""
    return integers and isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def as_id(value):
    """An id as ids are compared: as text, an integer (Python's or numpy's, not a boolean) in decimal.

    The measures and their ``evaluate`` modules (whose id features are strings) both compare ids through this,
    so ``7``, ``np.int64(7)`` and ``"7"`` are one id everywhere.

    Parameters
    ----------
    value : object
        An id as given (see :func:`is_id`).

    Returns
    -------
    str or object
        The id as text; a value that is neither text nor an integer is handed back as it is.

    Examples
    --------
    >>> as_id(7), as_id(np.int64(7)), as_id("7"), as_id("p1")
    ('7', '7', '7', 'p1')
    """
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    return str(value) if isinstance(value, str) else value


def check_ids(
    name: str, values: Sequence, *, integers: bool = True, allow_none: bool = False, missing: str = ""
) -> list:
    """Ids or names (see :func:`is_id`), as Python strings (``as_id``); with ``allow_none``, None entries too.

    Parameters
    ----------
    name : str
        The input's name, for the message.
    values : sequence
        The column.
    integers : bool, default True
        Whether integers are ids too.
    allow_none : bool, default False
        Whether None entries are allowed.
    missing : str, default ""
        The message for a None entry where one is not allowed (``is None; give ...``).

    Returns
    -------
    list

    Raises
    ------
    ValueError
        Naming the first entry that is not an id.

    Examples
    --------
    >>> check_ids("pair_ids", ["p1", "p2"])
    ['p1', 'p2']
    >>> check_ids("groups", ["a", ""], integers=False)
    Traceback (most recent call last):
    ...
    ValueError: groups[1] is ''; each entry must be a non-empty string
    """
    if not allow_none:
        _check_present(name, values, missing)
    expected = "each entry must be a non-empty string" + (" or an integer" if integers else "")
    if allow_none:
        expected += ", or None"
    _check_entries(
        name, values, lambda value: (allow_none and value is None) or is_id(value, integers=integers), expected
    )
    return [None if value is None else as_id(value) for value in values]
