import os
from pathlib import Path

# Set before any test module imports huggingface_hub, datasets or evaluate, which read them once, at import: set in
# a fixture, they came too late, and a Hub id was tried online (a minute of retries) before failing.
for _offline in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "HF_EVALUATE_OFFLINE"):
    os.environ.setdefault(_offline, "1")

import pytest  # noqa: E402

# The browser fixtures are registered once: a session-scoped Playwright imported into two test
# modules would be started twice, the second inside the first one's event loop.
# The installed-wheel fixtures likewise: one wheel and one virtualenv per session, shared by their tests.
# The loopback fixtures too, so that every module may serve with them.
pytest_plugins = ["browser", "installed", "loopback"]

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The offline mirror of upstream data (``../shared/data``), or skip when it is absent."""
    root = Path(os.environ.get("COREFBIAS_MIRROR") or SHARED_DATA)
    if not root.is_dir():
        pytest.skip(f"no upstream mirror at {root}")
    return root


@pytest.fixture
def in_repo(monkeypatch):
    """Run from the repository root, where ``evaluate.load("metrics/<name>")`` resolves."""
    monkeypatch.chdir(REPO)
    return REPO


@pytest.fixture(scope="session")
def exported_set(mirror, tmp_path_factory):
    """``exported_set(name)``: the folder of one set exported from the mirror, built once per test session.

    The workers of ``-n auto`` share the folder (their base folders' parent is the session's): the first worker that
    needs a set exports it under the lock a run takes to export into a data folder (``benchmark_data.export_lock``),
    and the others wait and read it. Exported by every worker, the sets took a fifth of the quick tier."""
    from corefbias.data import hub_export
    from corefbias.harness.benchmark_data import export_lock

    base = tmp_path_factory.getbasetemp()
    out = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "exported-sets"

    def export(name: str) -> Path:
        with export_lock(out, name):
            if not (out / name / "README.md").is_file():
                hub_export.export_dataset(name, out, mirror)
        return out / name

    return export


@pytest.fixture(scope="session")
def loaded_set(exported_set, tmp_path_factory):
    """``loaded_set(name, config)``: what ``datasets.load_dataset(<export>/<name>, config)`` returns."""
    import datasets

    cache = tmp_path_factory.mktemp("hf_cache")
    done = {}

    def load(name: str, config: str):
        if (name, config) not in done:
            done[name, config] = datasets.load_dataset(str(exported_set(name)), config, cache_dir=str(cache))
        return done[name, config]

    return load
