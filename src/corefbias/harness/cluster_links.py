"""From a model's coreference clusters to per-candidate decisions.

Spans are character offsets ``(start, end)`` with an exclusive end, as Python slices. Clusters, and the mentions of
each, are read in the order the system listed them.

Mention matching (one rule, used everywhere):
  * the **pronoun** must appear in a cluster as exactly its own span — a pronoun is one token,
    and accepting larger mentions would let "his youthful friend" stand for "his";
  * a **candidate** is found in a mention that *contains* the candidate span or lies
    inside it. Models differ on determiners, titles and possessive clitics ("the developer" vs
    "developer", "Mr Smith" vs "Smith"), and containment is the rule of the c2f-coref GAP
    converter that produced the published Counter-GAP system outputs (``to_gap_tsv.py``).
    Crossing spans (partial overlap) do not match.

Decision modes (``DECISION_MODES``):
  * ``"cluster"``: a candidate is linked to the pronoun iff one predicted cluster holds both the
    pronoun and a mention of the candidate; a pronoun clustered with both candidates links both;
  * ``"any_cluster"``: every candidate is counted as linked iff the prediction has any cluster at all, whatever
    it holds (a cluster without the pronoun, a cluster of one mention) — GenDa Lens's ABC scorer exactly
    (``get_coref_predictions`` in ``genda_lens/coref_tasks/abc_utils.py``: a sentence is positive when its
    prediction's ``clusters`` is not ``[]``), and ABC's own (``experiments/coref_scripts/eval.py``), which counts so
    too;
  * ``"first_mention"``: the pronoun's antecedent is the first mention, other than the pronoun, of the last
    cluster holding the pronoun (in the system's order, not the text's), and the candidates that mention holds
    are linked — WinoPron's converters exactly (``scripts/convert_caw_output.py``, ``scripts/evaluate_lingmess.py``:
    for every cluster holding the pronoun they remove it and take the cluster's first remaining mention, so the
    last such cluster wins). A cluster of the pronoun alone names no antecedent (upstream's converters stop
    there with an IndexError; no coreference system writes such a cluster).

A benchmark declares its default mode (``Benchmark.decision_mode``), its authors' own conversion where they ship one:
``"first_mention"`` for WinoPron, ``"any_cluster"`` for ABC's four languages, else ``"cluster"``; its card names
it. ``DEFAULT_MODE`` asks for it; ``MODE_CHOICES`` are what ``corefbias run`` and
``corefbias score`` take as ``--mode``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..data.spans import Span

Cluster = Sequence[Span]
DECISION_MODES = ("cluster", "any_cluster", "first_mention")
DEFAULT_MODE = "default"  # each benchmark's own (Benchmark.decision_mode)
MODE_CHOICES = (DEFAULT_MODE, *DECISION_MODES)


def check_mode(mode: str, choices: Sequence[str] = MODE_CHOICES) -> str:
    """``mode`` if it is one of ``choices``, else a ValueError naming them.

    Examples
    --------
    >>> check_mode("first_mention")
    'first_mention'
    >>> check_mode("nearest")
    Traceback (most recent call last):
    ...
    ValueError: unknown decision mode 'nearest'; choose one of ('default', 'cluster', 'any_cluster', 'first_mention')
    """
    if mode not in choices:
        raise ValueError(f"unknown decision mode {mode!r}; choose one of {tuple(choices)}")
    return mode


def resolved_mode(mode: str, benchmark_mode: str, benchmark: str = "the benchmark") -> str:
    """The decision mode a benchmark is scored in: ``mode``, or with ``"default"`` the benchmark's own.

    Parameters
    ----------
    mode : str
        One of ``MODE_CHOICES`` (``--mode``).
    benchmark_mode : str
        The benchmark's own mode (``Benchmark.decision_mode``), one of ``DECISION_MODES``.
    benchmark : str, default "the benchmark"
        The benchmark's name, for the message of a declaration naming no mode.

    Returns
    -------
    str
        One of ``DECISION_MODES``.

    Raises
    ------
    ValueError
        If ``mode`` is none of ``MODE_CHOICES``, or the benchmark declares none of ``DECISION_MODES``.

    Examples
    --------
    >>> resolved_mode("default", "first_mention"), resolved_mode("cluster", "first_mention")
    ('first_mention', 'cluster')
    >>> resolved_mode("default", "nearest", "toy")
    Traceback (most recent call last):
    ...
    ValueError: toy declares the decision mode 'nearest'; a benchmark's decision_mode is one of ('cluster', \
'any_cluster', 'first_mention')
    """
    check_mode(mode)
    if benchmark_mode not in DECISION_MODES:
        raise ValueError(
            f"{benchmark} declares the decision mode {benchmark_mode!r}; a benchmark's decision_mode is one of "
            f"{DECISION_MODES}"
        )
    return benchmark_mode if mode == DEFAULT_MODE else mode


def contains_or_within(mention: Span, target: Span) -> bool:
    (m_start, m_end), (t_start, t_end) = mention, target
    return (m_start <= t_start and t_end <= m_end) or (t_start <= m_start and m_end <= t_end)


def _as_span(span) -> Span:
    start, end = int(span[0]), int(span[1])
    if start >= end or start < 0:
        raise ValueError(f"span {tuple(span)!r} is empty or negative; spans are (start, end) with start < end")
    return start, end


def clusters_with_pronoun(pronoun: Span, clusters: Iterable[Cluster]) -> list[list[Span]]:
    pronoun = _as_span(pronoun)
    found = []
    for cluster in clusters:
        spans = [_as_span(span) for span in cluster]
        if pronoun in spans:
            found.append(spans)
    return found


def first_other_mention(pronoun: Span, clusters: Iterable[Cluster]) -> Span | None:
    """The mention WinoPron's converters read as the pronoun's antecedent: of the last cluster holding the pronoun
    and another mention, the first mention listed once the pronoun is taken out; None where no cluster has one.

    Parameters
    ----------
    pronoun : (int, int)
        The pronoun's character span.
    clusters : iterable of sequences of (int, int)
        The predicted clusters, as the system listed them.

    Returns
    -------
    (int, int) or None

    Examples
    --------
    Listed order, not text order: the system wrote "the customer" before "the technician".

    >>> text = "The technician told the customer that he could pay with cash."
    >>> technician, customer, he = (0, 14), (20, 32), (38, 40)
    >>> text[slice(*first_other_mention(he, [[he, customer, technician]]))]
    'the customer'
    >>> first_other_mention(he, [[technician, customer]]) is None  # no cluster holds the pronoun
    True
    """
    pronoun = _as_span(pronoun)
    found = None
    for spans in clusters_with_pronoun(pronoun, clusters):
        spans.remove(pronoun)  # its first listing, as upstream's list.remove takes out the first equal string
        if spans:
            found = spans[0]
    return found


def link_decisions(
    pronoun: Span, candidates: Sequence[Span], clusters: Iterable[Cluster], mode: str = "cluster"
) -> list[bool]:
    """For each candidate span: does the prediction link it to the pronoun?

    Parameters
    ----------
    pronoun : (int, int)
        The pronoun's character span.
    candidates : sequence of (int, int)
        The candidates' character spans.
    clusters : iterable of sequences of (int, int)
        The predicted clusters of character spans, as the system listed them.
    mode : str, default "cluster"
        One of ``DECISION_MODES`` (see the module's docstring).

    Returns
    -------
    list of bool
        One decision per candidate.

    Raises
    ------
    ValueError
        For an unknown mode, or an empty or negative span.

    Examples
    --------
    One cluster holds the pronoun and both entities: the strict reading links both (no single antecedent),
    WinoPron's converters the first other mention listed.

    >>> technician, customer, he = (0, 14), (20, 32), (38, 40)
    >>> both, candidates = [[technician, customer, he]], [technician, customer]
    >>> link_decisions(he, candidates, both), link_decisions(he, candidates, both, "first_mention")
    ([True, True], [True, False])
    >>> link_decisions(he, [technician], [[customer]], "any_cluster")  # GenDa Lens: any cluster at all
    [True]
    """
    check_mode(mode, DECISION_MODES)
    pronoun = _as_span(pronoun)
    clusters = [[_as_span(span) for span in cluster] for cluster in clusters]
    targets = [_as_span(candidate) for candidate in candidates]
    if mode == "any_cluster":
        return [bool(clusters)] * len(targets)
    if mode == "first_mention":
        antecedent = first_other_mention(pronoun, clusters)
        return [antecedent is not None and contains_or_within(antecedent, target) for target in targets]
    holding = [cluster for cluster in clusters_with_pronoun(pronoun, clusters) if len(cluster) > 1]
    return [
        any(contains_or_within(mention, target) for cluster in holding for mention in cluster if mention != pronoun)
        for target in targets
    ]
