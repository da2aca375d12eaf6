"""WinoPron and WinoNB in the Space, in a real browser: a run of both, Explore by pronoun set, the Learn pages of
the pronoun set gap and the sets' own measures."""

import pytest
from test_space import sandbox, served  # noqa: F401 (fixtures)

from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import runner
from corefbias.space import charts

pytestmark = pytest.mark.slow

MODEL, LIMIT = "baseline:stereotype", 5
SETS = ["winonb", "winopron"]  # as the Run tab lists them: registry order
TIMEOUT_MS = 120_000
ROWS = """grid => [...grid.querySelectorAll('[role=row]')]
    .filter(row => row.getAttribute('aria-rowindex') !== '1')
    .map(row => [...row.querySelectorAll('[role=gridcell]')].map(cell => cell.innerText.trim()))"""


@pytest.fixture(scope="module")
def data_dir(exported_set):
    for name in ["winogender", "counter_gap", *SETS]:  # the Space's default sets and ours, in one folder
        exported_set(name)
    return exported_set("winopron").parent


def test_a_run_of_both_sets_is_explored_by_pronoun_set_and_learnt(served, data_dir, browser_page, screenshot, tmp_path):
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
    screenshot(page, "winopron-run")
    expected = runner.run(
        MODEL,
        SETS,
        settings=runner.RunSettings(limit=LIMIT, n_bootstrap=1000, seed=0),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    assert shown == charts.summary_frame(expected.record()).values.tolist()
    assert len(shown) == 7 and all(row[0] in SETS for row in shown)
    assert "winonb 40, winopron 376" in page.locator("#run-status").inner_text()

    page.get_by_role("tab", name="Explore").click()
    benchmark = page.get_by_label("Benchmark")
    benchmark.click()
    page.get_by_role("option", name="winopron").click()
    cases = page.locator("#explore-cases .case")
    page.locator("#explore-cases h4", has_text="wrong for").first.wait_for(timeout=TIMEOUT_MS)
    first = cases.first
    assert first.locator("tr").count() == 4 and first.locator("b.pronoun").count() == 4
    labels = first.locator("td.role").all_inner_texts()
    assert [label.split(" →")[0] for label in labels] == ["he", "she", "they", "xe"]
    screenshot(page, "explore-winopron")

    benchmark.click()
    page.get_by_role("option", name="winonb").click()
    page.locator("#explore-cases h4", has_text="they read as").first.wait_for(timeout=TIMEOUT_MS)
    assert "singular they read as plural" in cases.first.inner_text()
    screenshot(page, "explore-winonb")

    page.get_by_role("tab", name="Learn").click()
    page.get_by_text("Pronoun Set Difference", exact=True).click()
    page.get_by_text("Holm-adjusted", exact=False).first.wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "learn-pronoun-set-diff")
    page.get_by_text("WinoPron Accuracy", exact=True).click()
    page.get_by_text("compute_performance.py", exact=False).first.wait_for(timeout=TIMEOUT_MS)
    page.get_by_text("WinoNB Accuracy", exact=True).click()
    page.get_by_text("Definite Pronoun Resolution", exact=False).first.wait_for(timeout=TIMEOUT_MS)
