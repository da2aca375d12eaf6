"""A model's identity: what makes its answers what they are, so that a number traces to one model.

Every model the registry loads has an ``identity`` attribute, a JSON-able dict whose ``kind`` names
the adapter and whose other fields are what its answers depend on:

* a baseline: its name and parameters, and ``baselines.BASELINES_VERSION``;
* ``chat:``: the model id, the endpoint, what the endpoint's ``GET /models`` reports of the model that
  answers, the prompt template (version and digest) and the decoding settings;
* a library adapter: the Hub id and the snapshot revision found in the local Hugging Face cache, or a
  local folder's or file's ``fingerprint.files_fingerprint``, plus the versions of the libraries it runs on;
* an HTTP server: what its ``GET /v1/info`` reports — the served model's name and ``revision``
  (``corefbias serve`` and the NeuralCoref service send one), and the URL only when it sends none.

Where a model lies (a path, a device, a batch size) is not part of it. Code outside the model's
files is not either (a custom spaCy component's module, a library patched in place): when such code
changes, run with ``--refresh``. ``digest`` condenses an
identity; the prediction cache keys answers by it, so a changed model is asked again and the same
model, wherever and whenever it runs, finds its answers.
"""

from __future__ import annotations

import os
from importlib import metadata
from pathlib import Path

from .fingerprint import digest, files_fingerprint  # noqa: F401  (digest: re-exported for the identity's users)


def library_versions(*names: str) -> dict[str, str | None]:
    """Installed version of each distribution (None where it is not installed)."""
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def hub_cache_revision(repo_id: str) -> str | None:
    """The commit of the snapshot of a Hub model that the local Hugging Face cache resolves ``main`` to."""
    from huggingface_hub import constants

    ref = Path(constants.HF_HUB_CACHE) / f"models--{repo_id.replace('/', '--')}" / "refs" / "main"
    return ref.read_text().strip() if ref.is_file() else None


def weights_identity(argument: str) -> dict:
    """Where a library adapter's weights come from: a local file or folder's fingerprint, else a Hub id."""
    if os.path.exists(argument):
        return {"files": files_fingerprint(argument)}
    return {"hub_id": argument, "hub_revision": hub_cache_revision(argument)}
