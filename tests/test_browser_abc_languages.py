"""ABC in Swedish, Russian and Chinese in the Space, in a real browser: a run of the stereotype baseline on the three,
its scores, the triplets behind them in Explore (Chinese picked from the menu), the runs in Compare, and the
abc_fpr_ratio card in Learn."""

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
NAMES = ["abc_sv", "abc_ru", "abc_zh"]
TIMEOUT_MS = 120_000
ROWS = """grid => [...grid.querySelectorAll('[role=row]')]
    .filter(row => row.getAttribute('aria-rowindex') !== '1')
    .map(row => [...row.querySelectorAll('[role=gridcell]')].map(cell => cell.innerText.trim()))"""


@pytest.fixture(scope="module")
def served(sandbox, exported_set, mirror):  # noqa: F811
    from corefbias.space import ui

    data_dir = exported_set("abc").parent
    settings = SpaceSettings(
        data_root=sandbox / "data", datasets_dir=data_dir, mirror=mirror, cards_dir=REPO / "metrics", port=free_port()
    )
    demo = ui.build_app(settings)
    ui.launch(demo, settings, prevent_thread_lock=True, quiet=True)
    try:
        yield demo.local_url, data_dir
    finally:
        demo.close()


def test_abc_in_three_languages_shows_its_scores_and_the_triplets_behind_them(
    served, browser_page, screenshot, tmp_path
):
    url, data_dir = served
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(url)
    model = page.get_by_label("Model")
    model.fill(MODEL)
    model.press("Enter")
    page.get_by_label("Instance limit").fill(str(LIMIT))
    for name in inputs.default_benchmarks():  # ticked by default: untick them, tick ABC's three languages
        page.get_by_role("checkbox", name=f"{name} ({BENCHMARKS[name].language})", exact=True).uncheck()
    for name in NAMES:
        page.get_by_role("checkbox", name=f"{name} ({BENCHMARKS[name].language})", exact=True).check()
    page.get_by_role("button", name="Run", exact=True).click()
    page.locator("#run-status").get_by_text(f"{MODEL} finished").wait_for(timeout=TIMEOUT_MS)
    shown = page.locator("#summary [role=grid]").evaluate(ROWS)
    screenshot(page, "run-abc-languages")
    expected = runner.run(
        MODEL,
        NAMES,
        settings=runner.RunSettings(limit=LIMIT, n_bootstrap=1000, seed=0),
        data_dir=data_dir,
        cache_path=tmp_path / "cache.sqlite",
        progress=False,
    )
    assert shown == charts.summary_frame(expected.record()).values.tolist()
    assert [row[:2] for row in shown] == [
        [name, label] for name in NAMES for label in ("log2(FPR male / FPR female)", "reflexive TPR")
    ]
    assert page.locator("#run-status").inner_text().count(", ".join(f"{name} {9 * LIMIT}" for name in NAMES)) == 1

    page.get_by_role("tab", name="Explore").click()
    cases = page.locator("#explore-cases .case")
    cases.first.wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_label("Benchmark").input_value() == "abc_sv"
    page.get_by_label("Benchmark").click()
    page.get_by_role("option", name="abc_zh").click()
    page.locator("#explore-cases h4", has_text="'她' linked to the subject").first.wait_for(timeout=TIMEOUT_MS)
    first = cases.first
    title = first.locator("h4").inner_text()
    assert "(female occupation): '她' linked to the subject, '他' not" in title
    assert first.locator("tr").count() == 3 and first.locator("b.pronoun").count() == 3
    assert first.locator("td.role .incorrect").count() == 1  # the linked anti-reflexive: a grammar error
    screenshot(page, "explore-abc-zh")

    page.get_by_role("tab", name="Compare").click()
    board = page.locator("#leaderboard [role=grid]")
    board.locator("[role=gridcell]", has_text=MODEL).first.wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "compare-abc-languages")

    page.get_by_role("tab", name="Learn").click()
    page.get_by_text("ABC anti-reflexive FPR ratio", exact=True).click()
    page.get_by_text("The measure knows genders, not words").first.wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "learn-abc")
