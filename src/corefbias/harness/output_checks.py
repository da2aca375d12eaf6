"""What a model's answer to one instance may be, as the prediction cache keeps it: the one check of an output
before it is stored and when it is read back.

An *output* is a cluster model's clusters (a list of clusters, each a list of ``[start, end]`` character spans
with ``0 <= start < end``) or a choice model's ``executors.choice_output`` dict: ``choice`` (a candidate's index,
or None for none of them), ``parsed`` (a boolean; an unparsed answer chose nothing and stood at no position),
and, where the model gave them, ``raw`` (text), ``position`` (where the chosen option was shown, 0 first; the
options are the candidates and "none of them") and ``loglikelihoods`` (one finite number per option, the
candidates' and possibly a "someone else" option's). Given the instance row, an output must also fit it: a
choice among its candidates, a position among its options, spans inside its text.

An output that is valid JSON but impossible (a choice past the candidates, ``"parsed": "no"``, a position
past the options) would otherwise be scored as an answer, some silently; the runner refuses it from a model
and asks again where the cache holds one, and ``PredictionCache.check`` reports it.
"""

from __future__ import annotations

from ..measures import structured_inputs, validation

CHOICE_KEYS = frozenset({"choice", "parsed", "raw", "position", "loglikelihoods"})


def output_problem(output, row: dict | None = None) -> str | None:
    """What is wrong with an output (None: nothing), checked against its instance ``row`` when one is given.

    Parameters
    ----------
    output : list or dict
        A cluster model's clusters or a choice model's answer, as the prediction cache keeps them.
    row : dict, optional
        The instance (its ``candidates`` and ``text``); without it only the output's own shape is checked.

    Returns
    -------
    str or None
        The first problem found, in words.

    Examples
    --------
    >>> row = {"text": "Ann met Bo; she left.", "candidates": [{"start": 0, "end": 3}, {"start": 8, "end": 10}]}
    >>> output_problem({"choice": 1, "parsed": True, "raw": "B", "position": 0}, row) is None
    True
    >>> output_problem({"choice": 2, "parsed": True}, row)
    'choice 2, but the instance has 2 candidates (0 to 1, or null for none of them)'
    >>> output_problem({"choice": None, "parsed": "no"})
    "parsed must be true or false, got 'no'"
    >>> output_problem([[[0, 3], [12, 30]]], row)
    'span [12, 30] ends past the text of 21 characters'
    """
    if isinstance(output, dict):
        return _choice_problem(output, row)
    if isinstance(output, list):
        return _clusters_problem(output, row)
    return f"an answer is a list of clusters or a choice object, got {_shown(output)}"


def _choice_problem(output: dict, row: dict | None) -> str | None:
    unknown = sorted(set(output) - CHOICE_KEYS)
    if unknown or "choice" not in output or "parsed" not in output:
        return f"a choice object has choice and parsed (and raw, position, loglikelihoods), got keys {sorted(output)}"
    choice, parsed, position = output["choice"], output["parsed"], output.get("position")
    if not isinstance(parsed, bool):
        return f"parsed must be true or false, got {_shown(parsed)}"
    if choice is not None and not validation.is_integer(choice):
        return f"choice must be a candidate's index (0, 1, ...) or null, got {_shown(choice)}"
    if position is not None and not validation.is_integer(position):
        return f"position must be an option's position (0, 1, ...), got {_shown(position)}"
    if not parsed and (choice is not None or position is not None):
        return "an unparsed answer chose nothing: its choice and position must be null"
    if "raw" in output and not isinstance(output["raw"], str):
        return f"raw must be the model's answer as text, got {_shown(output['raw'])}"
    likelihoods = output.get("loglikelihoods")
    if likelihoods is not None and not (
        isinstance(likelihoods, list) and likelihoods and all(validation.is_number(value) for value in likelihoods)
    ):
        return f"loglikelihoods must be a list of finite numbers, one per option, got {_shown(likelihoods)}"
    if row is None:
        return None
    candidates = len(row["candidates"])
    if choice is not None and choice >= candidates:
        return (
            f"choice {choice}, but the instance has {candidates} candidates (0 to {candidates - 1}, or null for none "
            "of them)"
        )
    if position is not None and position > candidates:
        return f"position {position}, but the instance was shown {candidates + 1} options (0 to {candidates})"
    if likelihoods is not None and len(likelihoods) not in (candidates, candidates + 1):
        return f"{len(likelihoods)} loglikelihoods, but the instance has {candidates} candidates"
    return None


def _clusters_problem(clusters: list, row: dict | None) -> str | None:
    length = None if row is None else len(row["text"])
    for cluster in clusters:
        if not isinstance(cluster, list):
            return f"a cluster is a list of [start, end] spans, got {_shown(cluster)}"
        for span in cluster:
            if not (isinstance(span, list) and structured_inputs.is_span(span) and span[0] < span[1]):
                return f"a span is [start, end] with 0 <= start < end, got {_shown(span)}"
            if length is not None and span[1] > length:
                return f"span {span} ends past the text of {length} characters"
    return None


def is_unparsed(output) -> bool:
    """Whether a choice model's answer could not be read (kept, but asked again unless told otherwise)."""
    return isinstance(output, dict) and output.get("parsed") is False


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
