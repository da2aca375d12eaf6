import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The offline mirror of upstream data (``../shared/data``), or skip when it is absent."""
    root = Path(os.environ.get("COREFBIAS_MIRROR") or SHARED_DATA)
    if not root.is_dir():
        pytest.skip(f"no upstream mirror at {root}")
    return root


@pytest.fixture(autouse=True, scope="session")
def _offline_hub():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")


@pytest.fixture
def in_repo(monkeypatch):
    """Run from the repository root, where ``evaluate.load("metrics/<name>")`` resolves."""
    monkeypatch.chdir(REPO)
    return REPO
