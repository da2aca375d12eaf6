"""From a model's coreference clusters to per-candidate decisions.

Spans are character offsets ``(start, end)`` with an exclusive end, as Python slices.

Mention matching (one rule, used everywhere):
  * the **pronoun** must appear in a cluster as exactly its own span — a pronoun is one token,
    and accepting larger mentions would let "his youthful friend" stand for "his";
  * a **candidate** is found in a cluster when a mention *contains* the candidate span or lies
    inside it. Models differ on determiners, titles and possessive clitics ("the developer" vs
    "developer", "Mr Smith" vs "Smith"), and containment is the rule of the c2f-coref GAP
    converter that produced the published Counter-GAP system outputs (``to_gap_tsv.py``).
    Crossing spans (partial overlap) do not match.

Decision modes:
  * ``"cluster"`` (default): a candidate is linked to the pronoun iff one predicted cluster
    holds both the pronoun and the candidate;
  * ``"any_cluster"``: every candidate is counted as linked iff the pronoun is in any predicted
    cluster of two or more mentions — what GenDa Lens's ABC scorer effectively counts. That
    scorer counts a sentence as positive when the prediction has any cluster at all; on the ABC
    sentences every predicted cluster holds the pronoun (checked on the published XLM-R output:
    12,451 of 12,451), so the two coincide there, while ours stays meaningful on longer texts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..data.spans import Span

Cluster = Sequence[Span]
DECISION_MODES = ("cluster", "any_cluster")


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


def link_decisions(
    pronoun: Span, candidates: Sequence[Span], clusters: Iterable[Cluster], mode: str = "cluster"
) -> list[bool]:
    """For each candidate span: does the prediction link it to the pronoun?"""
    if mode not in DECISION_MODES:
        raise ValueError(f"unknown decision mode {mode!r}; choose one of {DECISION_MODES}")
    holding = [cluster for cluster in clusters_with_pronoun(pronoun, clusters) if len(cluster) > 1]
    if mode == "any_cluster":
        return [bool(holding)] * len(candidates)
    decisions = []
    for candidate in candidates:
        target = _as_span(candidate)
        decisions.append(
            any(
                contains_or_within(mention, target)
                for cluster in holding
                for mention in cluster
                if mention != _as_span(pronoun)
            )
        )
    return decisions
