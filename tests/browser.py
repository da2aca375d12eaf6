"""A real browser for tests: Debian's Chromium, headless, driven by Playwright.

Playwright's own browser downloads are never used (``playwright install`` needs the internet);
``scripts/test`` installs Debian's ``chromium`` package when apt is usable. Without it, or without
the ``playwright`` package, the fixtures skip with the reason.

Use in a test module: ``from browser import browser_page, screenshot  # noqa: F401`` (fixtures).
Screenshots go to ``$COREFBIAS_ARTIFACTS/screenshots`` when that is set, else to the test's tmp_path.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # tests run as root in containers, where Chromium's sandbox cannot start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS_ENV = "COREFBIAS_ARTIFACTS"


@pytest.fixture(scope="session")
def browser_context(tmp_path_factory):
    """One headless Chromium for the session, with a fresh profile (user data dir)."""
    if not CHROMIUM.is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium package (scripts/test does, as root)")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed: pip install -e '.[test]'"
    )
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def browser_page(browser_context):
    page = browser_context.new_page()
    yield page
    page.close()


@pytest.fixture
def screenshot(request, tmp_path):
    """``screenshot(page, label)``: save a full-page PNG as a test artifact and return its path."""
    folder = Path(os.environ.get(ARTIFACTS_ENV) or tmp_path) / "screenshots"

    def take(page, label: str) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', request.node.name)}-{label}.png"
        page.screenshot(path=str(path), full_page=True)
        print(f"screenshot: {path}")
        return path

    return take


def gradio_json_entries(page, timeout_ms: float = 30_000) -> dict[str, str]:
    """The top-level ``"key": value`` lines shown by a Gradio JSON component, as text, once shown.

    Values keep their JSON spelling (``0.5``, ``null``, ``"text"``); nested objects are left out.
    """
    lines = page.locator('[data-testid="json"] .json-node.root > .children > .json-node > .line .content')
    lines.first.wait_for(timeout=timeout_ms)
    pairs = lines.evaluate_all(
        "contents => contents.map(c => [c.querySelector('.key')?.innerText, c.querySelector('.value')?.innerText])"
    )
    return {key.strip('"'): value for key, value in pairs if key is not None and value is not None}
