"""``maverick:<hub id or local checkpoint>``: Maverick (Martinelli et al., ACL 2024) through the
``maverick-coref`` package (``pip install 'corefbias[maverick]'``).

Output format, from maverick-coref 1.0.7 (PyPI; ``maverick/models/maverick_model.py``,
``Maverick.predict``): for one plain-text input, a dict with ``tokens`` (spaCy tokens of the NLTK
sentences, in order) and ``clusters_token_offsets``, a list of clusters, each a sequence of
``(first, last)`` token indices with an **inclusive** last index (``clusters_token_text`` joins
``tokens[first : last + 1]``); a cluster whose mentions all fell on special tokens is empty.
The dict also has ``clusters_char_offsets``, with inclusive ends too (``tok.idx + len(tok.text) - 1``;
the README gives ``(29, 32)`` for "Rome"), but computed as if exactly one character separated
consecutive NLTK sentences (``off += len(sentence) + 1``), so they drift wherever sentences are
separated otherwise (two spaces, a newline and an indent). We therefore find the tokens in the
text ourselves (``spans.token_clusters_to_char``) and use the token offsets.

Maverick reads one text per call. It finds ``weights.ckpt`` in a Hub repository or a local folder
(transformers' ``cached_file``) and otherwise takes the argument as the checkpoint file; its
tokenizer comes from the encoder's Hub id (from the local Hugging Face cache when offline), and it
needs spaCy's ``en_core_web_sm`` and NLTK's ``punkt`` (it downloads them when missing).

Weights: ``Maverick.__init__`` unpickles the checkpoint with Lightning's
``BasePLModule.load_from_checkpoint`` (whether with ``weights_only`` depends on the installed
Lightning and torch). So we hand it only a checkpoint we checked: ``hub_weights.checkpoint_folder``
downloads ``weights.ckpt`` at the pinned revision (``owner/name@<commit>``) and refuses one that
would import anything but tensors and plain configuration data (``pickle_guard``).

Identity: ``identity.weights_identity`` of the checked checkpoint and the versions of maverick-coref,
transformers, torch, spaCy and NLTK.
"""

from __future__ import annotations

from pathlib import Path

from ..data import spans
from . import hub_weights
from .base import Cluster, ModelError, check_clusters
from .identity import library_versions, weights_identity

CHECKPOINT_FILE = "weights.ckpt"


def clusters_from_maverick(text: str, output, source: str) -> list[Cluster]:
    """Our clusters from ``Maverick.predict(text)`` (see the module docstring)."""
    if (
        not isinstance(output, dict)
        or not isinstance(output.get("tokens"), list)
        or not isinstance(output.get("clusters_token_offsets"), (list, tuple))
    ):
        raise ModelError(
            f"{source}: expected Maverick.predict's dict with a 'tokens' list and 'clusters_token_offsets', "
            f"got {output!r:.200}"
        )
    clusters = [cluster for cluster in output["clusters_token_offsets"] if cluster]
    try:
        return spans.token_clusters_to_char(clusters, output["tokens"], text, inclusive_end=True)
    except (TypeError, ValueError) as error:
        raise ModelError(f"{source}: cannot place Maverick's token clusters in the text: {error}") from None


class MaverickModel:
    def __init__(self, model, name: str, identity: dict):
        self.model = model
        self.name = name
        self.identity = identity

    def predict_clusters(self, texts: list[str]) -> list[list[Cluster]]:
        clusters = [clusters_from_maverick(text, self.model.predict(text), self.name) for text in texts]
        return check_clusters(texts, clusters, self.name)


def load(argument: str, kind: str = "maverick", device: str = "cpu") -> MaverickModel:
    """Maverick from a Hub id (``@<commit>`` pins it), a local ``weights.ckpt``, or a local folder holding one."""
    folder = Path(argument)
    if folder.is_dir() and not (folder / CHECKPOINT_FILE).is_file():
        raise ValueError(
            f"{argument} is a folder without {CHECKPOINT_FILE}; give a checkpoint file, a folder holding one, or a "
            "Hub id"
        )
    from maverick import Maverick

    source = hub_weights.checkpoint_folder(argument, CHECKPOINT_FILE)
    identity = {
        "kind": kind,
        "weights": weights_identity(source),
        "libraries": library_versions("maverick-coref", "transformers", "torch", "spacy", "nltk"),
    }
    return MaverickModel(Maverick(hf_name_or_path=source, device=device), f"{kind}:{argument}", identity)
