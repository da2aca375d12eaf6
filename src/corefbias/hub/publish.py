"""Publish corefbias on the Hugging Face Hub: each test set as a dataset repository, each metric
module as a Gradio Space, and the main Space (``spaces/corefbias``, with the metric cards) when it exists.

A Space's requirements.txt names corefbias as released on PyPI (``corefbias[space]==X.Y.Z``) when
this version is there; for unreleased code (or with ``use_wheel``) each Space carries a wheel of this
package instead. A Space's build runs ``pip install -r requirements.txt`` with only requirements.txt
mounted, before the repository's files are copied in, so a local path to the wheel cannot work there:
requirements.txt names the wheel by its URL in the Space's own repository, pinned by sha256. pip checks
that hash, and a new wheel changes requirements.txt, which also invalidates the build's cached install step.

The metric modules and the main Space are not part of the package: they are read from a repository
checkout (``repo``), which is also what the wheel is built from.

Everything is first staged into folders laid out as ``<dir>/datasets/<set>`` and
``<dir>/spaces/<name>``; a dry run stops there, a real run uploads each folder so that its
repository then holds exactly the staged files (``.gitattributes`` kept).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__
from ..data.upstream import file_sha256

# Heavy libraries (huggingface_hub, packaging, datasets) are imported where used, so that importing
# the CLI stays fast.

PARTS = ("datasets", "metrics", "space")
TOKEN_ENV = "HF_TOKEN"
MAIN_SPACE_NAME = "corefbias"
# Where a repository checkout keeps the metric modules and the main Space.
METRICS_FOLDER = "metrics"
MAIN_SPACE_FOLDER = f"spaces/{MAIN_SPACE_NAME}"
# PyPI's JSON API answers 200 for a released version and 404 for any other.
PYPI_RELEASE_URL = "https://pypi.org/pypi/corefbias/{version}/json"
# Where the main Space finds the metric cards (<name>/README.md) for its Learn tab, next to app.py.
MAIN_SPACE_CARDS = "metric_cards"
# Files a wheel build reads; the build runs on a copy so that it never writes into the checkout.
_BUILD_INPUTS = ("pyproject.toml", "setup.cfg", "setup.py", "MANIFEST.in", "README.md", "CHANGELOG.md", "LICENSE")
# measure.md: a metric folder's source of its documentation page, not a part of its Space.
_NOT_SHIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".*", "*.whl", "measure.md")
# A fixed timestamp makes the wheel, hence the sha256 in requirements.txt, depend on the source only.
_WHEEL_EPOCH = "315532800"  # 1980-01-01, the earliest time a zip archive can record


class PublishError(RuntimeError):
    """Building the wheel or uploading failed."""


@dataclass(frozen=True)
class StagedRepo:
    """A folder ready to become the repository ``repo_id`` (``repo_type`` "dataset" or "space")."""

    repo_id: str
    repo_type: str
    folder: Path


@dataclass
class Staging:
    """The staged repositories, and a message for each part left out."""

    repos: list[StagedRepo] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def metric_names(metrics_dir: Path) -> list[str]:
    """Metric modules: folders ``metrics/<name>`` holding ``<name>.py``."""
    return sorted(path.parent.name for path in metrics_dir.glob("*/*.py") if path.stem == path.parent.name)


def repo_id(namespace: str, name: str) -> str:
    from huggingface_hub.utils import validate_repo_id

    candidate = f"{namespace}/{name}"
    try:
        validate_repo_id(candidate)
    except ValueError as error:
        raise ValueError(f"namespace {namespace!r} gives an invalid repository id: {error}") from None
    return candidate


def build_wheel(out_dir: str | os.PathLike, source: Path) -> Path:
    """Build the corefbias wheel from ``source`` into ``out_dir`` with pip; returns its path."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="corefbias-wheel-") as scratch:
        tree, built = Path(scratch) / "source", Path(scratch) / "wheel"
        shutil.copytree(source / "src", tree / "src", ignore=_NOT_SHIPPED)
        for name in _BUILD_INPUTS:
            if (source / name).is_file():
                shutil.copy2(source / name, tree / name)
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check"]
        done = subprocess.run(
            [*command, "--wheel-dir", str(built), str(tree)],
            capture_output=True,
            text=True,
            env={**os.environ, "SOURCE_DATE_EPOCH": _WHEEL_EPOCH},
        )
        wheels = sorted(built.glob("corefbias-*.whl"))
        if done.returncode != 0 or len(wheels) != 1:
            raise PublishError(f"building the corefbias wheel with pip failed:\n{done.stderr.strip()}")
        return Path(shutil.copy2(wheels[0], out_dir / wheels[0].name))


def _pin_corefbias(text: str, version: str, pinned: str, source: str, what: str) -> str:
    """``text`` with each line requiring corefbias replaced by ``corefbias[extras]<pinned> ; marker``.

    The line's extras and environment marker are kept; its version specifier must accept ``version``
    (``what`` names it in the error).
    """
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    lines, replaced = [], 0
    for line in text.splitlines():
        specifier = line.split(" #", 1)[0].strip()
        try:
            requirement = Requirement(specifier) if specifier and not specifier.startswith(("#", "-")) else None
        except InvalidRequirement:
            requirement = None  # not ours to judge; pip reports it when the Space builds
        if requirement is None or canonicalize_name(requirement.name) != "corefbias":
            lines.append(line)
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            raise ValueError(
                f"{source}: {line.strip()!r} does not accept {what} {version}; "
                f"relax the requirement or bump corefbias.__version__"
            )
        extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
        marker = f" ; {requirement.marker}" if requirement.marker else ""
        lines.append(f"corefbias{extras}{pinned}{marker}")
        replaced += 1
    if not replaced:
        raise ValueError(f"{source} does not require corefbias; add a line such as 'corefbias[space]>=0.1'")
    return "\n".join(lines) + "\n"


def requirements_with_wheel(text: str, wheel: Path, url: str, source: str = "requirements.txt") -> str:
    """``text`` with each line requiring corefbias replaced by ``corefbias[extras] @ url#sha256=...``."""
    from packaging.utils import parse_wheel_filename

    version = str(parse_wheel_filename(wheel.name)[1])
    return _pin_corefbias(text, version, f" @ {url}#sha256={file_sha256(wheel)}", source, "the wheel's version")


def requirements_with_release(text: str, version: str, source: str = "requirements.txt") -> str:
    """``text`` with each line requiring corefbias pinned to the released ``version`` (``corefbias[extras]==X.Y.Z``)."""
    return _pin_corefbias(text, version, f"=={version}", source, "the released version")


def on_pypi(version: str, url_template: str = PYPI_RELEASE_URL, timeout_s: float = 10.0) -> bool:
    """Whether corefbias ``version`` is released on PyPI (asks PyPI's JSON API)."""
    try:
        with urllib.request.urlopen(url_template.format(version=version), timeout=timeout_s):
            return True
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return False
        raise PublishError(
            f"asking PyPI whether corefbias {version} is released failed: {error}; "
            f"use --wheel to ship a wheel without asking"
        ) from error
    except (urllib.error.URLError, OSError) as error:
        raise PublishError(f"PyPI is unreachable ({error}); use --wheel to ship a wheel without asking") from error


def stage_space(
    source_dir: Path,
    space_id: str,
    wheel: Path | None,
    out_dir: Path,
    endpoint: str | None = None,
    version: str = __version__,
) -> Path:
    """Copy the Space folder ``source_dir`` to ``out_dir``, its requirements.txt naming corefbias.

    With a ``wheel``, the wheel is copied in and named by its URL in the Space's repository on ``endpoint``
    (default: huggingface_hub's, i.e. ``$HF_ENDPOINT`` or https://huggingface.co); without, the released
    ``corefbias==version`` is named.
    """
    from huggingface_hub import hf_hub_url

    for required in ("README.md", "app.py", "requirements.txt"):
        if not (source_dir / required).is_file():
            raise ValueError(f"{source_dir} is not a Space folder: {required} is missing")
    if out_dir.exists():
        shutil.rmtree(out_dir)
    shutil.copytree(source_dir, out_dir, ignore=_NOT_SHIPPED)
    requirements = out_dir / "requirements.txt"
    text = requirements.read_text(encoding="utf-8")
    source = str(source_dir / "requirements.txt")
    if wheel is None:
        requirements.write_text(requirements_with_release(text, version, source), encoding="utf-8")
        return out_dir
    shutil.copy2(wheel, out_dir / wheel.name)
    url = hf_hub_url(space_id, wheel.name, repo_type="space", endpoint=endpoint)
    requirements.write_text(requirements_with_wheel(text, wheel, url, source), encoding="utf-8")
    return out_dir


def stage(
    namespace: str,
    out_dir: str | os.PathLike,
    *,
    repo: str | os.PathLike | None = None,
    parts: tuple[str, ...] = PARTS,
    mirror: str | os.PathLike | None = None,
    dataset_names: list[str] | None = None,
    endpoint: str | None = None,
    use_wheel: bool = True,
    main_space_dir: Path | None = None,
) -> Staging:
    """Write every folder ``publish`` would upload under ``out_dir`` (``datasets/<set>``, ``spaces/<name>``).

    ``repo`` is the repository checkout holding ``metrics/`` and ``spaces/corefbias`` (needed for the Spaces;
    ``main_space_dir`` overrides the latter); with ``use_wheel`` the Spaces carry a wheel built from it, else
    they name the released version. ``dataset_names`` defaults to every set with a builder; ``mirror`` is
    the upstream data mirror.
    """
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        raise ValueError(f"unknown parts {unknown}; choose among {list(PARTS)}")
    out_dir = Path(out_dir)
    staging = Staging()
    spaces = {}  # name → source folder
    if {"metrics", "space"} & set(parts):
        repo = _checkout(repo)
        metrics_dir = repo / METRICS_FOLDER
        main_space_dir = Path(main_space_dir) if main_space_dir is not None else repo / MAIN_SPACE_FOLDER
    if "metrics" in parts:
        spaces.update((name, metrics_dir / name) for name in metric_names(metrics_dir))
    if "space" in parts:
        if main_space_dir.is_dir():
            spaces[MAIN_SPACE_NAME] = main_space_dir
        else:
            staging.skipped.append(f"main Space skipped: {main_space_dir} does not exist")
    space_ids = {name: repo_id(namespace, name) for name in spaces}
    if spaces:
        with tempfile.TemporaryDirectory(prefix="corefbias-wheel-") as wheel_dir:
            wheel = build_wheel(wheel_dir, repo) if use_wheel else None
            version = checkout_version(repo)
            for name, source_dir in spaces.items():
                folder = stage_space(source_dir, space_ids[name], wheel, out_dir / "spaces" / name, endpoint, version)
                staging.repos.append(StagedRepo(space_ids[name], "space", folder))
        if MAIN_SPACE_NAME in spaces:
            for metric in metric_names(metrics_dir):
                card = out_dir / "spaces" / MAIN_SPACE_NAME / MAIN_SPACE_CARDS / metric / "README.md"
                card.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(metrics_dir / metric / "README.md", card)
    if "datasets" in parts:
        from ..data import hub_export

        names = dataset_names if dataset_names is not None else hub_export.available()
        ids = [repo_id(namespace, name) for name in names]
        for dataset_id, folder in zip(ids, hub_export.export(names, out_dir / "datasets", mirror)):
            staging.repos.append(StagedRepo(dataset_id, "dataset", folder))
    return staging


def _checkout(repo: str | os.PathLike | None) -> Path:
    """The repository checkout the Spaces are staged from, checked to be one."""
    if repo is None:
        raise ValueError("publishing the Spaces needs the corefbias repository checkout: pass --repo DIR")
    repo = Path(repo).resolve()
    if not (repo / METRICS_FOLDER).is_dir() or not (repo / "src" / "corefbias").is_dir():
        raise ValueError(
            f"{repo} is not a corefbias repository checkout (no {METRICS_FOLDER}/ or src/corefbias/); "
            f"run from its root or pass --repo DIR"
        )
    return repo


def checkout_version(repo: Path) -> str:
    """The version of corefbias in the checkout ``repo`` (which need not be the running corefbias's)."""
    source = (repo / "src" / "corefbias" / "__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"$', source, re.MULTILINE)
    if found is None:
        raise ValueError(f"{repo}/src/corefbias/__init__.py does not set __version__")
    return found[1]


def upload(repos: list[StagedRepo], api) -> None:
    """Create (if needed) each repository and make it hold exactly its staged folder."""
    from huggingface_hub.errors import HfHubHTTPError

    # Test sets first: a Space may read them from the Hub as soon as it starts.
    for repo in sorted(repos, key=lambda repo: repo.repo_type != "dataset"):
        sdk = {"space_sdk": "gradio"} if repo.repo_type == "space" else {}
        try:
            api.create_repo(repo.repo_id, repo_type=repo.repo_type, exist_ok=True, **sdk)
            api.upload_folder(
                repo_id=repo.repo_id,
                repo_type=repo.repo_type,
                folder_path=str(repo.folder),
                commit_message=f"corefbias {__version__}",
                delete_patterns="*",
            )
        except HfHubHTTPError as error:
            raise PublishError(f"publishing the {repo.repo_type} {repo.repo_id} failed: {error}") from error


def hub_api():
    """An ``HfApi`` authenticated by ``$HF_TOKEN`` alone (never a token stored by ``hf auth login``)."""
    from huggingface_hub import HfApi

    token = os.environ.get(TOKEN_ENV)
    if not token:
        raise ValueError(f"set {TOKEN_ENV} to a Hugging Face access token with write access, or use a dry run")
    return HfApi(token=token)


def publish(
    namespace: str,
    *,
    repo: str | os.PathLike | None = None,
    dry_run: str | os.PathLike | None = None,
    parts: tuple[str, ...] = PARTS,
    mirror: str | os.PathLike | None = None,
    dataset_names: list[str] | None = None,
    use_wheel: bool | None = None,
    released: Callable[[str], bool] | None = None,
    api=None,
) -> Staging:
    """Stage and upload; with ``dry_run`` (a folder) stage there and upload nothing.

    Returns what was staged; after a real upload its folders (temporary) no longer exist.

    ``use_wheel`` None (automatic): the Spaces name ``corefbias==X.Y.Z``, the checkout's version, when
    ``released("X.Y.Z")`` (default :func:`on_pypi`), else carry a wheel. ``api`` defaults to
    :func:`hub_api`; any object with ``create_repo`` and ``upload_folder`` will do.
    """
    if dry_run is None and api is None:
        api = hub_api()  # before anything else, so that a missing token is the first thing said
    if use_wheel is None and {"metrics", "space"} & set(parts):
        use_wheel = not (released or on_pypi)(checkout_version(_checkout(repo)))
    use_wheel = use_wheel is not False
    options = dict(repo=repo, parts=parts, mirror=mirror, dataset_names=dataset_names, use_wheel=use_wheel)
    if dry_run is not None:
        return stage(namespace, dry_run, **options)
    with tempfile.TemporaryDirectory(prefix="corefbias-publish-") as scratch:
        staging = stage(namespace, scratch, **options)
        upload(staging.repos, api)
    return staging
