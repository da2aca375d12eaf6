"""Upstream data files: where each lives (repository at a pinned commit), its checksum, and
how to get it — from a local mirror, from the download cache, or by downloading it once.

The pins live beside the set that reads them, in ``<set>/upstream.json`` (``corefbias.data.set_files``):
source name (the mirror's folder) → repository, commit, license and each file's sha256 and size. A source
is pinned by exactly one set; another set reads it by its name. A file taken from another commit of the
same repository names that ``commit`` in its own entry. A file known only from its commit's tree, never
retrieved (so its sha256 is unknown), is pinned by its ``git_blob`` id instead: the SHA-1 git computes
over ``blob <size>\\0`` and the content, which the downloaded bytes are checked against.

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
    sha256: str | None
    size: int | None
    git_blob: str | None = None  # the file's git blob id, for a file pinned by its commit's tree alone

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
    commit = info.get("commit", entry.get("commit"))
    if info.get("sha256") is None and info.get("git_blob") is None:
        raise UpstreamFileError(f"{dataset}/{path} is pinned by neither a sha256 nor a git blob id")
    return UpstreamFile(
        dataset, path, entry["repository"], commit, info.get("sha256"), info.get("size"), info.get("git_blob")
    )


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


def git_blob_id(path: Path) -> str:
    """The id git gives a file's content: the hex SHA-1 of ``blob <size>\\0`` followed by the bytes.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder, "hello.txt")
    ...     _ = path.write_bytes(b"hello\\n")
    ...     git_blob_id(path)  # what `git hash-object` prints for a file holding "hello\\n"
    'ce013625030ba8dba906f756967f9e9ca394464a'
    """
    digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _verified(path: Path, spec: UpstreamFile, origin: str) -> Path:
    kind, expected = ("sha256", spec.sha256) if spec.sha256 is not None else ("git blob id", spec.git_blob)
    actual = file_sha256(path) if kind == "sha256" else git_blob_id(path)
    if actual != expected:
        raise UpstreamFileError(
            f"checksum mismatch for {spec.dataset}/{spec.path} from {origin} ({path}): "
            f"expected {kind} {expected}, got {actual}. The file differs from upstream commit "
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
