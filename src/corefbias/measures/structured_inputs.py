"""Up-front checks of a measure's structured inputs: labels from an allowed set, options and flags, spans and
clusters, groups that must not be empty, the units a resampling draws and the bootstrap's settings.

Each entry's own kind (a column, a boolean, an integer, a number, an id) is checked by ``validation``, whose
messages these checks share. Every failure is a ``ValueError`` naming the input and saying what to fix.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import numpy as np

from .validation import (
    MAX_BOOTSTRAP,
    _check_entries,
    _kind,
    _shown,
    as_id,
    check_ids,
    is_column,
    is_integer,
)


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
    >>> check_labels("distractors", [0, 7], range(3))
    Traceback (most recent call last):
    ...
    ValueError: unknown distractors: 7 at index 1; each must be one of [0, 1, 2]
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
        # As the user must type them: 0 is no '0', and None no 'None'.
        listing = ", ".join(repr(value) for value in sorted(allowed_set, key=lambda value: (value is None, str(value))))
        raise ValueError(f"unknown {name}: {shown}{more}; each must be one of [{listing}]")
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
        (isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1))
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
        checked.append(
            [[(int(value[0]), int(value[1])) if spans else value for value in cluster] for cluster in clusters]
        )
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
        Each row's unit: an id, compared as text (``validation.as_id``: ``7`` and ``"7"`` are one unit).
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
        The unit ids in first-seen order, as text.
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
    >>> unit_table([7, "7"], ["f", "m"], ["f", "m"], unit="pair", member="sentence", ids_name="pair_ids")[0]
    ['7']
    >>> unit_table(["a"], ["f"], ["f", "m"], unit="pair", member="sentence", ids_name="pair_ids")
    Traceback (most recent call last):
    ...
    ValueError: pair 'a' has no m sentence; every pair needs one sentence of each of ['f', 'm']
    """
    unit_ids = check_ids(
        ids_name, unit_ids, missing=f"is None; give every {member} a {unit} id or leave {ids_name} out"
    )
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
