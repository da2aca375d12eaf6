"""MISGENDERED and RUFF in the Space, in a real browser: a run of both, its scores, the sentences behind them by
pronoun set in Explore, and their measures in Learn."""

import pytest
from test_space import sandbox, served  # noqa: F401 (fixtures)

from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import runner
from corefbias.space import charts

pytestmark = pytest.mark.slow

MODEL, LIMIT = "baseline:stereotype", 2
TIMEOUT_MS = 180_000
SETS = ("misgendered", "ruff")


@pytest.fixture(scope="module")
def data_dir(exported_set):
    """The folder the Space reads: the Space's default sets and ours."""
    for name in ["winogender", "counter_gap", *SETS]:
        exported_set(name)
    return exported_set(SETS[0]).parent


ROWS = """grid => [...grid.querySelectorAll('[role=row]')]
    .filter(row => row.getAttribute('aria-rowindex') !== '1')
    .map(row => [...row.querySelectorAll('[role=gridcell]')].map(cell => cell.innerText.trim()))"""


def test_a_run_of_both_sets_explored_by_pronoun_set_and_learnt(served, data_dir, browser_page, screenshot, tmp_path):
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(served.url)
    model = page.get_by_label("Model")
    model.fill(MODEL)
    model.press("Enter")
    page.get_by_label("Instance limit").fill(str(LIMIT))
    for name in BENCHMARKS:
        box = page.get_by_role("checkbox", name=f"{name} ({BENCHMARKS[name].language})", exact=True)
        if box.is_checked() != (name in SETS):
            box.click()
    page.get_by_role("button", name="Run", exact=True).click()
    page.locator("#run-status").get_by_text(f"{MODEL} finished").wait_for(timeout=TIMEOUT_MS)
    shown = page.locator("#summary [role=grid]").evaluate(ROWS)
    expected = runner.run(
        MODEL,
        SETS,
        settings=runner.RunSettings(limit=LIMIT, n_bootstrap=1000, seed=0),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    assert shown == charts.summary_frame(expected.record()).values.tolist()
    labels = {row[1] for row in shown}
    assert {"xe − he/she accuracy", "accuracy 0 − 5 distractors", "accuracy he/she − neo-pronouns"} <= labels
    assert f"misgendered {110 * LIMIT}, ruff {192 * LIMIT}" in page.locator("#run-status").inner_text()
    screenshot(page, "run-misgendered-ruff")

    page.get_by_role("tab", name="Explore").click()
    benchmark = page.get_by_label("Benchmark")
    benchmark.click()
    page.get_by_role("option", name="misgendered").click()
    cases = page.locator("#explore-cases .case")
    cases.first.locator("td", has_text="xe declared → ").wait_for(timeout=TIMEOUT_MS)
    first = cases.first
    assert first.locator("tr").count() == 11 and "wrong for" in first.locator("h4").inner_text()
    assert first.locator("b.pronoun").first.inner_text() == "___"
    screenshot(page, "explore-misgendered")

    benchmark.click()
    page.get_by_role("option", name="ruff").click()
    page.locator("#explore-cases td", has_text="they declared → ").first.wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "explore-ruff")

    page.get_by_role("tab", name="Learn").click()
    page.get_by_text("MISGENDERED declared-pronoun accuracy", exact=True).click()
    page.get_by_text("Upstream's zero- and few-shot scripts mark an instance correct", exact=False).first.wait_for(
        timeout=TIMEOUT_MS
    )
    screenshot(page, "learn-misgendered")
    page.get_by_text("RUFF pronoun fidelity", exact=True).click()
    page.get_by_text("no_distractors_minus_five", exact=False).first.wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "learn-ruff")
