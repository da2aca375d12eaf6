"""Upstream data files: where each lives (repository at a pinned commit), its checksum, and
how to get it — from a local mirror, from the download cache, or by downloading it once.

The pins live beside the set that reads them, in ``<set>/upstream.json`` (``corefbias.data.set_files``):
source name (the mirror's folder) → repository, commit, license and each file's sha256 and size. A source
is pinned by exactly one set; another set reads it by its name.

A mirror is a folder laid out as ``<set>/<upstream path>`` (the layout of ``../shared/data``).
It is named by ``mirror=`` / ``--mirror DIR`` or the ``COREFBIAS_MIRROR`` environment variable.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from . import set_files

MIRROR_ENV = "COREFBIAS_MIRROR"
CACHE_ENV = "COREFBIAS_CACHE"
_RAW_URL = "https://raw.githubusercontent.com/{repository}/{commit}/{path}"


class UpstreamFileError(RuntimeError):
    """A data file could not be found, fetched, or failed its checksum."""


@dataclass(frozen=True)
class UpstreamFile:
    dataset: str
    path: str
    repository: str
    commit: str | None
    sha256: str
    size: int

    @property
    def url(self) -> str:
        if self.commit is None:
            raise UpstreamFileError(f"{self.dataset}/{self.path} has no pinned upstream commit to download from")
        quoted = urllib.request.pathname2url(self.path)
        return _RAW_URL.format(repository=self.repository, commit=self.commit, path=quoted)


_loaded: dict[tuple[Path, ...], dict] = {}


def _registry() -> dict:
    """Source name → its pins, from every set's ``upstream.json``; a source pinned twice is an error."""
    folders = set_files.folders()
    if folders not in _loaded:
        registry: dict = {}
        where: dict[str, Path] = {}
        for path in set_files.files("upstream.json"):
            for name, entry in json.loads(path.read_text(encoding="utf-8")).items():
                if name in registry:
                    raise UpstreamFileError(
                        f"the upstream source {name!r} is pinned twice: in {where[name]} and {path}"
                    )
                registry[name], where[name] = entry, path
        _loaded[folders] = registry
    return _loaded[folders]


def dataset_source(dataset: str) -> dict:
    """Repository, commit and license of one upstream data set."""
    try:
        entry = _registry()[dataset]
    except KeyError:
        raise UpstreamFileError(f"unknown data set {dataset!r}; known: {sorted(_registry())}") from None
    return {key: entry.get(key) for key in ("repository", "commit", "license")}


def describe(dataset: str, path: str) -> UpstreamFile:
    registry = _registry()
    if dataset not in registry:
        raise UpstreamFileError(f"unknown data set {dataset!r}; known: {sorted(registry)}")
    entry = registry[dataset]
    if path not in entry["files"]:
        raise UpstreamFileError(f"{path!r} is not a registered file of {dataset!r}")
    info = entry["files"][path]
    return UpstreamFile(dataset, path, entry["repository"], entry.get("commit"), info["sha256"], info["size"])


def default_mirror() -> Path | None:
    value = os.environ.get(MIRROR_ENV)
    return Path(value) if value else None


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "corefbias")


def file_sha256(path: Path) -> str:
    """The hex sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _verified(path: Path, spec: UpstreamFile, origin: str) -> Path:
    actual = file_sha256(path)
    if actual != spec.sha256:
        raise UpstreamFileError(
            f"checksum mismatch for {spec.dataset}/{spec.path} from {origin} ({path}): "
            f"expected sha256 {spec.sha256}, got {actual}. The file differs from upstream commit "
            f"{spec.commit}; replace it with the file at {spec.url}"
        )
    return path


def fetch(dataset: str, path: str, mirror: str | os.PathLike | None = None) -> Path:
    """Local path of a verified copy of ``<dataset>/<path>``.

    Looks in the mirror (argument, else ``$COREFBIAS_MIRROR``), then in the cache, then downloads
    from the pinned upstream commit into the cache.
    """
    spec = describe(dataset, path)
    mirror_root = Path(mirror) if mirror is not None else default_mirror()
    if mirror_root is not None:
        if not mirror_root.is_dir():
            raise UpstreamFileError(
                f"the mirror {mirror_root} is not a folder: --mirror DIR (or ${MIRROR_ENV}) names a folder laid out "
                "as <set>/<upstream path>, e.g. ../shared/data"
            )
        candidate = mirror_root / dataset / path
        if candidate.is_file():
            return _verified(candidate, spec, f"mirror {mirror_root}")
    cached = cache_dir() / dataset / path
    if cached.is_file():
        return _verified(cached, spec, "cache")
    return _verified(_download(spec, cached, mirror_root), spec, spec.url)


def _download(spec: UpstreamFile, target: Path, mirror_root: Path | None) -> Path:
    where = f"mirror {mirror_root} has no {spec.dataset}/{spec.path}; " if mirror_root else ""
    hint = (
        f"Work offline by pointing --mirror DIR (or ${MIRROR_ENV}) at a folder laid out as "
        f"<set>/<upstream path>, e.g. ../shared/data"
    )
    if spec.commit is None:
        raise UpstreamFileError(f"cannot get {spec.dataset}/{spec.path}: {where}no upstream commit is pinned. {hint}")
    url = spec.url
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            target.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as tmp:
                shutil.copyfileobj(response, tmp)
        os.replace(tmp.name, target)
        return target
    except (urllib.error.URLError, OSError) as error:
        raise UpstreamFileError(
            f"cannot get {spec.dataset}/{spec.path}: {where}downloading {url} failed ({error}). {hint}"
        ) from None


def read_tsv(dataset: str, path: str, mirror: str | os.PathLike | None = None) -> list[dict]:
    """Rows of a verified upstream tab-separated file with a header line."""
    with open(fetch(dataset, path, mirror), encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))
