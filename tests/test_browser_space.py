"""The Space in a real browser: a baseline typed in, two benchmarks, the runner's scores in the page,
the instances behind them in Explore, the run on the leaderboard."""

import pytest
from test_space import F_COREF, QUICK, data_dir, published, sandbox, served  # noqa: F401 (fixtures)

from corefbias.harness import runner
from corefbias.space import charts

MODEL, LIMIT = "baseline:random", 40
TIMEOUT_MS = 120_000
ROWS = """grid => [...grid.querySelectorAll('[role=row]')]
    .filter(row => row.getAttribute('aria-rowindex') !== '1')
    .map(row => [...row.querySelectorAll('[role=gridcell]')].map(cell => cell.innerText.trim()))"""


def test_a_run_shows_the_runners_scores_and_the_instances_behind_them(
    served, data_dir, browser_page, screenshot, tmp_path
):
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(served.url)
    model = page.get_by_label("Model")
    model.fill(MODEL)
    model.press("Enter")
    page.get_by_label("Instance limit").fill(str(LIMIT))
    page.get_by_role("button", name="Run", exact=True).click()
    page.locator("#run-status").get_by_text(f"{MODEL} finished").wait_for(timeout=TIMEOUT_MS)
    shown = page.locator("#summary [role=grid]").evaluate(ROWS)
    screenshot(page, "run")

    expected = runner.run(
        MODEL,
        QUICK,
        settings=runner.RunSettings(limit=LIMIT, n_bootstrap=1000, seed=0),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    assert shown == charts.summary_frame(expected.record()).values.tolist()
    assert page.locator("#run-status").inner_text().count(f"counter_gap {8 * LIMIT}, winogender {6 * LIMIT}") == 1
    # The run's plots, as its report.md shows them: each benchmark's figures and its headline scores' intervals.
    plots = page.locator("#run-status-plots img")
    plots.first.wait_for(timeout=TIMEOUT_MS)
    names = ["counter_gap_delta_i", "counter_gap_headlines", "winogender_headlines", "winogender_occupations"]
    assert sorted(image.get_attribute("alt") or "" for image in plots.all()) == names

    page.get_by_role("tab", name="Explore").click()
    cases = page.locator("#explore-cases .case")
    page.locator("#explore-cases h4", has_text="quadruple").first.wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_label("Benchmark").input_value() == "counter_gap"
    quadruple = cases.first
    assert quadruple.locator("tr").count() == 4
    assert quadruple.locator("mark.linked").count() >= 1 and quadruple.locator("td.role .incorrect").count() >= 1
    screenshot(page, "explore-counter-gap")

    benchmark = page.get_by_label("Benchmark")
    benchmark.click()
    page.get_by_role("option", name="winogender").click()
    page.locator("#explore-cases h4", has_text="BLS").first.wait_for(timeout=TIMEOUT_MS)
    first = cases.first
    assert first.locator("tr").count() == 3 and first.locator("b.pronoun").count() == 3
    assert "female pronoun →" in first.inner_text() and "male pronoun →" in first.inner_text()
    screenshot(page, "explore-winogender")

    page.get_by_role("tab", name="Compare").click()
    board = page.locator("#leaderboard [role=grid]")
    board.locator("[role=gridcell]", has_text=MODEL).first.wait_for(timeout=TIMEOUT_MS)
    assert any(row[0] == MODEL and row[2] == str(LIMIT) for row in board.evaluate(ROWS))
    screenshot(page, "compare")

    page.get_by_role("tab", name="Learn").click()
    page.get_by_text("Counter-GAP ΔI", exact=True).click()
    page.get_by_text("ΔI = I_across − I_within").first.wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "learn")


def test_the_model_menu_offers_the_owners_list_and_refuses_a_path(published, browser_page, screenshot):
    page = browser_page
    page.goto(published.url)
    model = page.get_by_label("Model")
    model.click()
    page.get_by_role("option", name=F_COREF.display).wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "model-menu")
    model.fill("spacy:/etc")
    model.press("Enter")
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("spacy:/etc is not on this Space's model list (offered: F-coref)").wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "unlisted-model-refused")


@pytest.mark.slow
def test_compare_tab_tests_two_picked_runs(served, browser_page, screenshot):
    for spec in ("baseline:oracle", "baseline:stereotype"):
        served.client.predict(spec, QUICK, 20, 100, 0, api_name="/run")
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(served.url)
    page.get_by_role("tab", name="Compare").click()
    picker = page.get_by_label("Runs to compare (two or more)")
    for spec in ("baseline:oracle", "baseline:stereotype"):
        picker.click()
        page.get_by_role("option", name=spec).first.click()
    page.get_by_role("button", name="Compare runs").click()
    table = page.locator("#differences [role=grid]")
    table.locator("[role=gridcell]", has_text="pairs resolved differently").first.wait_for(timeout=TIMEOUT_MS)
    rows = {row[3]: row for row in table.evaluate(ROWS)}
    # Oracle vs stereotype: the stereotype baseline resolves every Winogender pair differently, the oracle none.
    assert rows["pairs resolved differently"][:2] == ["baseline:oracle", "baseline:stereotype"]
    assert rows["pairs resolved differently"][6] == "-1.000*"
    page.get_by_role("img").last.wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "compare-runs")
