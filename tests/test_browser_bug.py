"""BUG in the Space, in a real browser: a run of the stereotype baseline on bug alone, its scores, the sentences
behind ΔS in Explore (each in its context, with its distance bin), and the bug_bias card in Learn."""

import pytest
from browser import browser_page, screenshot  # noqa: F401 (fixtures)
from loopback import free_port
from test_space import REPO, sandbox  # noqa: F401 (fixture)

from corefbias.benchmarks import BENCHMARKS
from corefbias.harness import runner
from corefbias.space import charts, inputs
from corefbias.space.settings import SpaceSettings

pytestmark = pytest.mark.slow

MODEL, LIMIT = "baseline:stereotype", 5
TIMEOUT_MS = 120_000
ROWS = """grid => [...grid.querySelectorAll('[role=row]')]
    .filter(row => row.getAttribute('aria-rowindex') !== '1')
    .map(row => [...row.querySelectorAll('[role=gridcell]')].map(cell => cell.innerText.trim()))"""


@pytest.fixture(scope="module")
def served(sandbox, exported_set, mirror):  # noqa: F811
    from corefbias.space import ui

    data_dir = exported_set("bug").parent
    settings = SpaceSettings(
        data_root=sandbox / "data", datasets_dir=data_dir, mirror=mirror, cards_dir=REPO / "metrics", port=free_port()
    )
    demo = ui.build_app(settings)
    ui.launch(demo, settings, prevent_thread_lock=True, quiet=True)
    try:
        yield demo.local_url, data_dir
    finally:
        demo.close()


def test_a_bug_run_shows_its_scores_and_the_sentences_behind_them(served, browser_page, screenshot, tmp_path):  # noqa: F811
    url, data_dir = served
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(url)
    model = page.get_by_label("Model")
    model.fill(MODEL)
    model.press("Enter")
    page.get_by_label("Instance limit").fill(str(LIMIT))
    for name in inputs.default_benchmarks():  # ticked by default: untick them, tick bug alone
        page.get_by_role("checkbox", name=f"{name} ({BENCHMARKS[name].language})", exact=True).uncheck()
    page.get_by_role("checkbox", name="bug (en)", exact=True).check()
    page.get_by_role("button", name="Run", exact=True).click()
    page.locator("#run-status").get_by_text(f"{MODEL} finished").wait_for(timeout=TIMEOUT_MS)
    shown = page.locator("#summary [role=grid]").evaluate(ROWS)
    screenshot(page, "run-bug")
    expected = runner.run(
        MODEL,
        ["bug"],
        settings=runner.RunSettings(limit=LIMIT, n_bootstrap=1000, seed=0),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    assert shown == charts.summary_frame(expected.record()).values.tolist()
    assert [row[1] for row in shown][:2] == ["gold ΔS stereotypical − anti", "gold ΔG male − female"]

    page.get_by_role("tab", name="Explore").click()
    cases = page.locator("#explore-cases .case")
    cases.first.wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_label("Benchmark").input_value() == "bug"
    first = cases.first
    title = first.locator("h4").inner_text()
    assert title.startswith("anti-stereotypical: ") and "distance bin " in title
    assert first.locator("b.pronoun").count() == 1 and first.locator("td.role .incorrect").count() == 1
    assert first.locator("span.candidate u").count() == 1  # the profession: the gold antecedent, not linked
    screenshot(page, "explore-bug")

    page.get_by_role("tab", name="Learn").click()
    page.get_by_text("BUG Bias", exact=True).click()
    page.get_by_text("ΔS by distance").first.wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "learn-bug")
