"""``fastcoref:<hub id or local dir>`` and ``lingmess:<hub id or local dir>``: F-coref and LingMess
(Otmazgin et al., 2022) through the ``fastcoref`` package (``pip install 'corefbias[fastcoref]'``).

Output format, from fastcoref 2.1.6 (PyPI; ``fastcoref/modeling.py``, ``CorefResult.get_clusters``,
and ``fastcoref/utilities/util.py``, ``tokenize_with_spacy`` / ``align_to_char_level``):
``model.predict(texts=[...])`` returns one ``CorefResult`` per text, in order, and
``result.get_clusters(as_strings=False)`` is a list of clusters, each a list of ``(start, end)``
character offsets with an exclusive end (spaCy's ``token.idx`` to ``token.idx + len(token.text)``,
so Python string indices) — the upstream test expects ``(0, 2)`` for "We". A mention the library
could not align to characters (it covers a special token) comes out as ``None``; the library's
own ``as_strings=True`` view leaves those out, and so do we.

The library tokenizes with spaCy's ``en_core_web_sm`` and downloads it when it is missing, so
offline use needs that package installed. Release 2.1.6 breaks with transformers >= 4.46
(shon-otmazgin/fastcoref#66), which the ``fastcoref`` extra therefore excludes.

Weights: the library calls transformers' ``from_pretrained`` (``fastcoref/modeling.py``,
``CorefModel.__init__``: ``AutoConfig``, ``AutoTokenizer`` and ``coref_class.from_pretrained`` on
``model_name_or_path``, no ``trust_remote_code``). We give it a local folder instead of a Hub id:
``hub_weights.transformers_folder`` downloads the pinned revision (``owner/name@<commit>``) with
safetensors where the repository has them, and checks a pickled ``pytorch_model.bin`` otherwise.

Identity: ``identity.weights_identity`` of the local folder and the versions of fastcoref, transformers,
torch and spaCy (its tokenizer).
"""

from __future__ import annotations

import operator

from . import hub_weights
from .base import Cluster, ModelError, check_clusters
from .identity import library_versions, weights_identity

CLASS_NAMES = {"fastcoref": "FCoref", "lingmess": "LingMessCoref"}


def _char_span(mention, source: str, index: int) -> tuple[int, int]:
    try:
        if not isinstance(mention, (tuple, list)) or len(mention) != 2:
            raise TypeError
        return operator.index(mention[0]), operator.index(mention[1])  # numpy integers too
    except TypeError:
        raise ModelError(
            f"{source}: text {index}: mention {mention!r} is not a (start, end) pair of character offsets "
            "as CorefResult.get_clusters(as_strings=False) gives"
        ) from None


def clusters_from_fastcoref(texts: list[str], results: list[list], source: str) -> list[list[Cluster]]:
    """Our clusters from each text's ``get_clusters(as_strings=False)`` (see the module docstring)."""
    converted = []
    for index, clusters in enumerate(results):
        if not isinstance(clusters, list):
            raise ModelError(f"{source}: text {index}: clusters must be a list, got {clusters!r:.200}")
        spans_per_cluster = (
            [_char_span(mention, source, index) for mention in cluster if mention is not None] for cluster in clusters
        )
        converted.append([spans for spans in spans_per_cluster if spans])
    return check_clusters(texts, converted, source)


class FastcorefModel:
    """A loaded ``FCoref`` or ``LingMessCoref``, as a cluster model."""

    def __init__(self, model, name: str, max_tokens_in_batch: int, identity: dict):
        self.model = model
        self.name = name
        self.max_tokens_in_batch = max_tokens_in_batch
        self.identity = identity

    def predict_clusters(self, texts: list[str]) -> list[list[Cluster]]:
        if not texts:
            return []
        results = self.model.predict(texts=list(texts), max_tokens_in_batch=self.max_tokens_in_batch)
        return clusters_from_fastcoref(texts, [result.get_clusters(as_strings=False) for result in results], self.name)


def load(
    argument: str, kind: str = "fastcoref", device: str = "cpu", max_tokens_in_batch: int = 10000
) -> FastcorefModel:
    """F-coref (``kind="fastcoref"``) or LingMess (``kind="lingmess"``) from a Hub id (``@<commit>`` pins
    it) or a local directory."""
    if kind not in CLASS_NAMES:
        raise ValueError(f"unknown fastcoref kind {kind!r}; choose one of {sorted(CLASS_NAMES)}")
    import fastcoref

    folder = hub_weights.transformers_folder(argument)
    model = getattr(fastcoref, CLASS_NAMES[kind])(model_name_or_path=folder, device=device, enable_progress_bar=False)
    identity = {
        "kind": kind,
        "weights": weights_identity(folder),
        "libraries": library_versions("fastcoref", "transformers", "torch", "spacy"),
    }
    return FastcorefModel(model, f"{kind}:{argument}", max_tokens_in_batch, identity)
