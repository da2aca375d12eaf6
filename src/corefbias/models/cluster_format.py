"""The one format of coreference clusters that crosses a boundary (adapter output, HTTP body).

Per text, a list of clusters; a cluster is a list of ``[start, end]`` character spans (Python
string indices into the text, end exclusive). Standard library only and Python 3.7 compatible,
because the NeuralCoref service (Python 3.7) validates its answers with it too.
"""

from __future__ import annotations


class ModelError(RuntimeError):
    """A model failed to answer (unreachable endpoint, bad response, library error)."""


def check_clusters(texts, clusters, source):
    """``clusters`` as lists of ``(start, end)`` tuples; a ModelError says what is wrong and where."""
    if not isinstance(clusters, list) or len(clusters) != len(texts):
        got = len(clusters) if isinstance(clusters, list) else type(clusters).__name__
        raise ModelError(f"{source}: expected clusters for {len(texts)} texts, got {got}")
    checked = []
    for index, (text, text_clusters) in enumerate(zip(texts, clusters)):
        if not isinstance(text_clusters, list):
            raise ModelError(f"{source}: text {index}: clusters must be a list, got {text_clusters!r}")
        spans_of_text = []
        for cluster in text_clusters:
            if not isinstance(cluster, (list, tuple)):
                raise ModelError(f"{source}: text {index}: a cluster must be a list of spans, got {cluster!r}")
            spans = []
            for span in cluster:
                if (
                    not isinstance(span, (list, tuple))
                    or len(span) != 2
                    or not all(isinstance(x, int) and not isinstance(x, bool) for x in span)
                ):
                    raise ModelError(f"{source}: text {index}: span {span!r} is not a [start, end] pair of integers")
                start, end = span
                if not 0 <= start < end <= len(text):
                    raise ModelError(
                        f"{source}: text {index}: span [{start}, {end}) is outside the text of length {len(text)}"
                    )
                spans.append((start, end))
            spans_of_text.append(spans)
        checked.append(spans_of_text)
    return checked
