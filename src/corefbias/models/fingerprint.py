"""Fingerprints of a model: of its files, and of its identity (``digest``).

The same bytes give the same files fingerprint, wherever they lie.

A file or a folder (every file under it, symlinks followed, ``__pycache__`` skipped) is
fingerprinted by content, never by modification time, so a copied or re-downloaded model keeps
its fingerprint (and its cached predictions) and a retrained one gets a new one even when sizes and
times happen to match. Each file up to ``FULL_HASH_LIMIT`` bytes is hashed whole; a larger one
(a multi-gigabyte checkpoint) by its size and ``SAMPLE_BYTES`` from its start, middle and end,
which any retraining changes, so fingerprinting never costs more than a few reads per file.

Standard library only and Python 3.7 compatible: the NeuralCoref service fingerprints its weights
and digests its revision with it in its own interpreter.
"""

from __future__ import annotations

import hashlib
import json
import os

FULL_HASH_LIMIT = 256 * 2**20
SAMPLE_BYTES = 4 * 2**20
SKIPPED_FOLDERS = ("__pycache__",)


def file_digest(path):
    """The hex sha256 of a file's content (sampled above ``FULL_HASH_LIMIT``; see the module docstring)."""
    size = os.path.getsize(path)
    hasher = hashlib.sha256()
    with open(path, "rb") as file:
        if size <= FULL_HASH_LIMIT:
            for block in iter(lambda: file.read(2**20), b""):
                hasher.update(block)
        else:
            hasher.update(f"sampled {size}\0".encode("ascii"))
            for offset in (0, (size - SAMPLE_BYTES) // 2, size - SAMPLE_BYTES):
                file.seek(offset)
                hasher.update(file.read(SAMPLE_BYTES))
    return hasher.hexdigest()


def _files(root):
    if os.path.isfile(root):
        yield os.path.basename(root), root
        return
    for folder, subfolders, names in os.walk(root, followlinks=True):
        subfolders[:] = sorted(name for name in subfolders if name not in SKIPPED_FOLDERS)
        for name in sorted(names):
            path = os.path.join(folder, name)
            yield os.path.relpath(path, root).replace(os.sep, "/"), path


def files_fingerprint(root):
    """``{"sha256": ..., "files": N, "bytes": B}`` over the names and contents of the files at ``root``.

    A file is named by its path relative to ``root`` (a lone file by its base name), so the
    fingerprint does not depend on where the model lies.
    """
    if not os.path.exists(root):
        raise FileNotFoundError(f"cannot fingerprint {root}: no such file or folder")
    hasher = hashlib.sha256()
    count = total = 0
    for name, path in _files(root):
        size = os.path.getsize(path)
        hasher.update(f"{name}\0{size}\0{file_digest(path)}\n".encode())
        count += 1
        total += size
    return {"sha256": hasher.hexdigest(), "files": count, "bytes": total}


def digest(identity):
    """The hex sha256 of a JSON-able identity's canonical JSON."""
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
