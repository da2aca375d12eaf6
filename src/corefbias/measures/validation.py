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
    return isinstance(values, Sequence) and not isinstance(values, (str, bytes))


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


def check_labels(name: str, values: Sequence, allowed: Collection) -> list:
    """Every value is one of ``allowed`` (returned as Python values); the error lists the unknown labels and
    where they are.

    Parameters
    ----------
    name : str
        The input's name, for the message.
    values : sequence
        The column.
    allowed : collection
        The labels allowed.

    Returns
    -------
    list

    Raises
    ------
    ValueError
        Listing up to five unknown labels with their positions, and the allowed ones.

    Examples
    --------
    >>> check_labels("conditions", ["pro", "anti"], ("pro", "anti"))
    ['pro', 'anti']
    >>> check_labels("conditions", ["pro", "Pro"], ("pro", "anti"))
    Traceback (most recent call last):
    ...
    ValueError: unknown conditions: 'Pro' at index 1; each must be one of ['anti', 'pro']
    """
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
    return [None if value is None else as_id(value) for value in values]


def check_choice(name: str, value, choices: Collection[str]) -> str:
    """An option that must be one of the strings ``choices``.

    Parameters
    ----------
    name : str
        The option's name, for the message.
    value : object
        What was passed.
    choices : collection of str
        The choices.

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    ValueError
        If ``value`` is not one of ``choices``.

    Examples
    --------
    >>> check_choice("score", "f1", ("accuracy", "f1"))
    'f1'
    >>> check_choice("score", "F1", ("accuracy", "f1"))
    Traceback (most recent call last):
    ...
    ValueError: unknown score 'F1'; choose one of ['accuracy', 'f1']
    """
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"unknown {name} {_shown(value)}; choose one of {sorted(choices)}")
    return value


def check_flag(name: str, value) -> bool:
    """An on/off option: True or False, nothing merely truthy.

    Parameters
    ----------
    name : str
        The option's name, for the message.
    value : object
        What was passed.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If ``value`` is not a boolean.

    Examples
    --------
    >>> check_flag("return_weights", np.bool_(True))
    True
    >>> check_flag("return_weights", "yes")
    Traceback (most recent call last):
    ...
    ValueError: return_weights must be True or False, got 'yes' (str)
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {_kind(value)}")
    return bool(value)


def is_span(value) -> bool:
    """A ``[start, end]`` pair (list or tuple) of integers with ``0 <= start <= end <= MAX_INTEGER``.

    Parameters
    ----------
    value : object
        One mention.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_span([0, 3]), is_span((4, 4)), is_span([3, 1]), is_span([0, 1.5]), is_span([0, 1, 2])
    (True, True, False, False, False)
    """
    return (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(is_integer(item) for item in value)
        and value[0] <= value[1]
    )


def is_label(value) -> bool:
    """A value that can name a set, a group or a mention: hashable, not None, and equal to itself (not NaN).

    Parameters
    ----------
    value : object
        One entry.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_label("female"), is_label(3), is_label(None), is_label(float("nan")), is_label(["a"])
    (True, True, False, False, False)
    """
    try:
        hash(value)
    except TypeError:
        return False
    return value is not None and value == value


def check_label_values(name: str, values: Sequence, *, allow_none: bool = False) -> list:
    """Labels (see :func:`is_label`); with ``allow_none``, None entries too.

    Parameters
    ----------
    name : str
        The input's name, for the message.
    values : sequence
        The column.
    allow_none : bool, default False
        Whether None entries are allowed.

    Returns
    -------
    list

    Raises
    ------
    ValueError
        Naming the first entry that is not a label.

    Examples
    --------
    >>> check_label_values("groups", ["a", 1])
    ['a', 1]
    >>> check_label_values("groups", ["a", None])
    Traceback (most recent call last):
    ...
    ValueError: groups[1] is None; each entry must be a hashable label such as a string or an integer (not a list or
    NaN), not None
    """
    expected = "each entry must be a hashable label such as a string or an integer (not a list or NaN)"
    expected += ", or None" if allow_none else ", not None"
    _check_entries(name, values, lambda value: (allow_none and value is None) or is_label(value), expected)
    return list(values)


def check_clusters(name: str, documents: Sequence, *, spans: bool = True) -> list[list[list]]:
    """Per document a list of clusters, each a list of mentions; mentions are spans (``spans``), as tuples,
    or else any hashable values other than None.

    Parameters
    ----------
    name : str
        The input's name, for the message.
    documents : sequence
        One list of clusters per document.
    spans : bool, default True
        Whether mentions are ``[start, end]`` spans (else any label).

    Returns
    -------
    list
        The documents with every cluster a list, and every span a ``(start, end)`` tuple.

    Raises
    ------
    ValueError
        Naming the first document that is not a list of clusters, or the first mention that is not one.

    Examples
    --------
    >>> check_clusters("keys", [[[[0, 3], [10, 12]]]])
    [[[(0, 3), (10, 12)]]]
    >>> check_clusters("keys", [[[[3, 0]]]])
    Traceback (most recent call last):
    ...
    ValueError: keys[0] has the mention [3, 0]; each mention must be a [start, end] span of non-negative integers
    with start <= end
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
    """Each named group has at least one instance.

    Parameters
    ----------
    groups : mapping of str to int
        Group name → its number of instances.
    what : str
        What needs every group, for the message.

    Raises
    ------
    ValueError
        Naming the empty groups.

    Examples
    --------
    >>> check_nonempty({"female": 3, "male": 0}, "a female/male bias ratio")
    Traceback (most recent call last):
    ...
    ValueError: no instances in group(s) male: a female/male bias ratio needs instances of every group; check the
    labels you passed
    """
    empty = [name for name, count in groups.items() if count == 0]
    if empty:
        raise ValueError(
            f"no instances in group(s) {', '.join(empty)}: {what} needs instances of every group; "
            f"check the labels you passed"
        )


def check_significance(n_bootstrap: int, seed: int) -> None:
    """The options every measure's significance takes: the number of bootstrap resamples (0 to
    ``MAX_BOOTSTRAP``) and a non-negative integer seed.

    Parameters
    ----------
    n_bootstrap : int
        The resamples; 0 switches significance off.
    seed : int
        Seeds numpy's generator.

    Raises
    ------
    ValueError
        If either is not such an integer.

    Examples
    --------
    >>> check_significance(1000, 0)
    >>> check_significance(2.5, 0)
    Traceback (most recent call last):
    ...
    ValueError: n_bootstrap must be an integer from 0 (significance off) to 10,000,000 resamples, got 2.5 (float)
    """
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

    Parameters
    ----------
    unit_ids : sequence
        Each row's unit.
    labels : sequence
        Each row's slot label within its unit (a role, a pronoun gender).
    slots : sequence
        The slot labels, in the table's column order.
    unit : str
        What a unit is called, for messages.
    member : str
        What a row is called, for messages.
    ids_name : str
        The unit ids' input name, for messages.
    required : collection, optional
        The slots every unit must fill (default: all).

    Returns
    -------
    list
        The unit ids in first-seen order.
    numpy.ndarray
        ``units × len(slots)``: the row of each unit's member per slot, −1 where an optional slot is empty.

    Raises
    ------
    ValueError
        When a unit id is None or no id, a unit has a label twice, or lacks one of the ``required`` labels.

    Examples
    --------
    >>> order, table = unit_table(["a", "a", "b", "b"], ["f", "m", "m", "f"], ["f", "m"],
    ...                           unit="pair", member="sentence", ids_name="pair_ids")
    >>> order, table.tolist()
    (['a', 'b'], [[0, 1], [3, 2]])
    >>> unit_table(["a"], ["f"], ["f", "m"], unit="pair", member="sentence", ids_name="pair_ids")
    Traceback (most recent call last):
    ...
    ValueError: pair 'a' has no m sentence; every pair needs one sentence of each of ['f', 'm']
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
