"""Model files from the Hugging Face Hub or a local folder, pinned and loaded without running code.

An adapter argument is a local path, or a Hub id with an optional pinned revision,
``owner/name@<commit>``. From the Hub we download only configuration, tokenizer and weight files
(never ``*.py``: no model is loaded with ``trust_remote_code``), choosing safetensors whenever the
repository has them, so that no pickle is read at all. A pickled checkpoint that has to be used
instead (``pytorch_model.bin``, Maverick's ``weights.ckpt``) is first checked by
:func:`pickle_guard.check_checkpoint`, which refuses any that would run code when unpickled.
"""

from __future__ import annotations

import re
from pathlib import Path

from .pickle_guard import check_checkpoint

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
_REVISION = re.compile(r"[0-9a-f]{40}")
# Everything a transformers model folder needs except weights and code.
_CONFIG_FILES = ("*.json", "*.txt", "*.model", "*.tiktoken")
PICKLED_WEIGHTS = ("*.bin", "*.ckpt", "*.pt", "*.pth", "*.pkl")


def split_hub_id(argument: str) -> tuple[str, str | None] | None:
    """``(repo id, revision or None)`` when ``argument`` names a Hub repository, None for a local path."""
    if Path(argument).exists():
        return None
    repo, _, revision = argument.partition("@")
    if not _HUB_ID.fullmatch(repo) or ".." in repo:
        return None
    if revision and not _REVISION.fullmatch(revision):
        raise ValueError(f"{argument!r}: pin a revision as the full 40-character commit id, e.g. {repo}@<commit>")
    return repo, revision or None


def _hub_files(repo: str, revision: str | None) -> list[str]:
    from huggingface_hub import list_repo_files

    return list_repo_files(repo, revision=revision)


def _hub_download(repo: str, revision: str | None, patterns: list[str]) -> Path:
    from huggingface_hub import snapshot_download

    return Path(snapshot_download(repo, revision=revision, allow_patterns=patterns))


def check_pickled_weights(folder: Path) -> None:
    """Check every pickled weight file in ``folder``, unless safetensors make them unused."""
    if any(folder.glob("*.safetensors")):
        return
    for pattern in PICKLED_WEIGHTS:
        for path in sorted(folder.glob(pattern)):
            check_checkpoint(path)


def transformers_folder(argument: str) -> str:
    """A local folder for ``from_pretrained``: ``argument`` itself, or the pinned Hub snapshot."""
    hub = split_hub_id(argument)
    if hub is None:
        if Path(argument).is_dir():
            check_pickled_weights(Path(argument))
        return argument
    repo, revision = hub
    files = _hub_files(repo, revision)
    if any(name.endswith(".safetensors") for name in files):
        weights = ["*.safetensors"]
    else:
        weights = [name for name in files if name.endswith(".bin") and "/" not in name]
    folder = _hub_download(repo, revision, [*_CONFIG_FILES, *weights])
    check_pickled_weights(folder)
    return str(folder)


def checkpoint_folder(argument: str, checkpoint: str) -> str:
    """A local folder holding the checked file ``checkpoint`` (or ``argument`` itself, a checked file)."""
    hub = split_hub_id(argument)
    if hub is not None:
        folder = _hub_download(*hub, [checkpoint])
        check_checkpoint(folder / checkpoint)
        return str(folder)
    path = Path(argument)
    if not path.exists():
        raise ValueError(
            f"{argument!r} is neither a Hub id (owner/name[@commit]) nor an existing {checkpoint} or folder"
        )
    check_checkpoint(path / checkpoint if path.is_dir() else path)
    return argument
