"""``spacy:<pipeline package or path>``: a spaCy 3 pipeline with a coreference component.

Where the clusters are read (each mention a spaCy ``Span``, whose ``start_char``/``end_char`` are
Python string indices with an exclusive end):

* ``doc.spans["coref_clusters_<n>"]``, one span group per cluster, in the order of ``n`` — what
  spacy-experimental writes (0.6.4, ``coref/coref_component.py`` numbers the word-level clusters of
  ``CoreferenceResolver`` from 1; ``coref/span_resolver_component.py`` writes the full-span clusters
  of ``SpanResolver`` under its ``output_prefix``, default ``coref_clusters``, from 0). Other
  keys — ``coref_head_clusters_<n>``, ``coref_clusters`` without a number — are not clusters.
  ``prefix`` names another prefix;
* otherwise ``doc._.coref_clusters``, a list of clusters that are either NeuralCoref-style objects
  with ``.mentions`` or plain lists of spans. Anything else there (e.g. (start, end) tuples, which
  some components write in characters and others in tokens) is rejected, never guessed.

The published ``en_coreference_web_trf`` (3.4.0a2) requires spaCy < 3.5 (explosion/spaCy#13111),
so it needs an environment of its own; ``corefbias serve`` can then offer it over HTTP.

Identity: a folder's ``fingerprint.files_fingerprint`` (an installed package's name and version
from its ``meta.json``), the cluster prefix, and the versions of spaCy and spacy-experimental.
"""

from __future__ import annotations

import os
import re

from .base import Cluster, ModelError, check_clusters
from .fingerprint import files_fingerprint
from .identity import library_versions

DEFAULT_PREFIX = "coref_clusters"
CLUSTER_OUTPUTS = ("doc.spans", "doc._.coref_clusters")  # what a coreference component declares it assigns


def _char_span(mention, source: str) -> tuple[int, int]:
    if not hasattr(mention, "start_char") or not hasattr(mention, "end_char"):
        raise ModelError(f"{source}: cluster mention {mention!r:.100} is not a spaCy Span (no start_char/end_char)")
    return mention.start_char, mention.end_char


def clusters_from_doc(doc, source: str, prefix: str = DEFAULT_PREFIX) -> list[Cluster]:
    """The coreference clusters a pipeline left on ``doc`` (see the module docstring)."""
    key_pattern = re.compile(re.escape(prefix) + r"_(\d+)")
    numbered = sorted((int(match.group(1)), key) for key in doc.spans if (match := key_pattern.fullmatch(key)))
    if numbered:
        groups = [doc.spans[key] for _, key in numbered]
    elif doc.has_extension("coref_clusters") and doc._.coref_clusters is not None:
        groups = [getattr(cluster, "mentions", cluster) for cluster in doc._.coref_clusters]
    else:
        return []
    return [[_char_span(mention, source) for mention in group] for group in groups]


class SpacyCorefModel:
    def __init__(self, nlp, name: str, prefix: str, batch_size: int, identity: dict):
        self.nlp = nlp
        self.name = name
        self.prefix = prefix
        self.batch_size = batch_size
        self.identity = identity

    def predict_clusters(self, texts: list[str]) -> list[list[Cluster]]:
        docs = self.nlp.pipe(texts, batch_size=self.batch_size)
        return check_clusters(texts, [clusters_from_doc(doc, self.name, self.prefix) for doc in docs], self.name)


def _use_device(spacy, device: str) -> None:
    if device == "cpu":
        return
    match = re.fullmatch(r"cuda(?::(\d+))?", device)
    if not match:
        raise ValueError(f"unknown device {device!r} for spaCy; use cpu, cuda or cuda:<index>")
    spacy.require_gpu(int(match.group(1) or 0))


def load(
    argument: str, kind: str = "spacy", device: str = "cpu", prefix: str = DEFAULT_PREFIX, batch_size: int = 64
) -> SpacyCorefModel:
    """The pipeline ``spacy.load(argument)`` finds: an installed package name or a local folder."""
    import spacy

    _use_device(spacy, device)
    nlp = spacy.load(argument)
    if not any(set(nlp.get_pipe_meta(name).assigns) & set(CLUSTER_OUTPUTS) for name in nlp.pipe_names):
        raise ValueError(
            f"spaCy pipeline {argument!r} has no component that assigns {' or '.join(CLUSTER_OUTPUTS)} "
            f"(its components: {', '.join(nlp.pipe_names) or 'none'}), so it predicts no coreference; "
            "load a coreference pipeline such as en_coreference_web_trf"
        )
    if os.path.exists(argument):
        weights = {"files": files_fingerprint(argument)}
    else:
        weights = {"package": argument, "version": nlp.meta.get("version")}
    identity = {
        "kind": kind,
        "weights": weights,
        "prefix": prefix,
        "libraries": library_versions("spacy", "spacy-experimental"),
    }
    return SpacyCorefModel(nlp, f"{kind}:{argument}", prefix, batch_size, identity)
