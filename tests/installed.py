"""Session fixtures that play a user who installs corefbias rather than checking it out.

``release_build`` runs ``python -m build`` on a copy of the checkout (the sdist, and the wheel built from
it) and builds a wheel straight from the tree; ``user_venv`` is a fresh virtualenv holding that wheel with
whatever releases the registry holds today, and the tools its numeric tests import. Both are built once per
session, by the first test worker that needs them (the others wait for it and share them), for every test that
plays the user (tests/test_release.py, tests/test_installed.py, tests/test_newest_releases.py). pip reads
packages from the configured registry (and its local wheel cache); nothing else leaves the machine.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from filelock import FileLock

REPO = Path(__file__).resolve().parents[1]
# What the numeric tests import beyond the wheel and its gap, space and docs extras (setup.cfg's test extra names why).
TEST_TOOLS = ("pytest", "pytest-xdist", "hypothesis", "jsonschema", "pydantic", "scikit-learn", "fairlearn")


def _check(command: list[str], **options) -> subprocess.CompletedProcess:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, **options)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def copy_checkout(dest: Path) -> Path:
    """The files git tracks or would track (ignored files left out), symlinks kept: what a fresh clone holds."""
    listed = _check(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=REPO).stdout
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the working tree, not yet in the index
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    return dest


def user_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment that knows nothing of this checkout or this test's virtualenv; caches under ``home``."""
    env = {key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}}
    env.update(
        COREFBIAS_CACHE=str(home / "corefbias-cache"),
        HF_HOME=str(home / "hf"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_EVALUATE_OFFLINE="1",
        MPLBACKEND="Agg",
        GRADIO_ANALYTICS_ENABLED="False",
    )
    env.pop("COREFBIAS_MIRROR", None)
    env.update(extra)
    return env


@contextlib.contextmanager
def built_once(tmp_path_factory, name: str):
    """The folder ``name`` of the whole session (every test worker's), and whether it still has to be built: the
    first worker builds it while holding its lock, the others wait for the lock and find it built."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name
    folder.mkdir(exist_ok=True)
    done = folder / ".built"
    with FileLock(str(folder) + ".lock"):
        yield folder, not done.is_file()
        done.touch()


@pytest.fixture(scope="session")
def release_build(tmp_path_factory) -> SimpleNamespace:
    """``python -m build`` of a copy of the checkout: ``sdist``, ``wheel`` (built from the sdist, as
    ``python -m build`` does) and ``tree_wheel`` (``python -m build --wheel``, straight from the tree)."""
    if shutil.which("git") is None:
        pytest.fail("the release tests copy the checkout with git, which is not installed")
    with built_once(tmp_path_factory, "release") as (root, to_build):
        if to_build:
            source = copy_checkout(root / "source")
            _check([sys.executable, "-m", "build", "--outdir", root / "dist", source], cwd=root)
            _check([sys.executable, "-m", "build", "--wheel", "--outdir", root / "tree", source], cwd=root)
    (sdist,) = (root / "dist").glob("corefbias-*.tar.gz")
    (wheel,) = (root / "dist").glob("corefbias-*.whl")
    (tree_wheel,) = (root / "tree").glob("corefbias-*.whl")
    return SimpleNamespace(dist=root / "dist", sdist=sdist, wheel=wheel, tree_wheel=tree_wheel)


@pytest.fixture(scope="session")
def user_venv(release_build, tmp_path_factory) -> SimpleNamespace:
    """A fresh virtualenv with the released wheel, its ``gap`` (GAP's name distances), ``space`` and ``docs`` extras
    and ``TEST_TOOLS``, each at the newest release the registry holds (no constraints)."""
    with built_once(tmp_path_factory, "user") as (root, to_build):
        venv = root / "venv"
        env = user_env(root)
        if to_build:
            _check([sys.executable, "-m", "venv", venv])
            _check([venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-compile",
                    "--disable-pip-version-check", f"{release_build.wheel}[gap,space,docs]", *TEST_TOOLS],
                   env=env, cwd=root)  # fmt: skip
    return SimpleNamespace(root=root, python=venv / "bin" / "python", bin=venv / "bin", env=env)


def run_in(venv: SimpleNamespace, command: list, cwd: Path, env: dict | None = None, check: bool = True):
    """Run ``command`` (its first item a program of the virtualenv, e.g. "corefbias" or "python") in ``cwd``."""
    program, *args = command
    done = subprocess.run(
        [str(venv.bin / program), *map(str, args)], cwd=cwd, env=env or venv.env, capture_output=True, text=True
    )
    if check:
        assert done.returncode == 0, f"{program} {args} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done
