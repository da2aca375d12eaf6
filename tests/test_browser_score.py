"""The Score a file tab in a real browser: a published Counter-GAP output uploaded, the scores of
``corefbias score`` in the page; a truncated file, the reader's error in the page."""

from test_browser_space import ROWS, TIMEOUT_MS
from test_space import data_dir, sandbox, served  # noqa: F401 (fixtures)

from corefbias.harness.prediction_files import scoring
from corefbias.space import charts

OUTPUT = "counter_gap/results/none/spanbert_base_output.tsv"


def _score_page(page, url, path, benchmark):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(url)
    page.get_by_role("tab", name="Score a file").click()
    page.locator("#score-upload input[type=file]").set_input_files(str(path))
    # The file name shows while it uploads; the Clear button only once the upload is done.
    page.locator("#score-upload").get_by_role("button", name="Clear").wait_for(timeout=TIMEOUT_MS)
    choice = page.get_by_label("Benchmark", exact=True).first
    choice.click()
    page.get_by_role("option", name=benchmark, exact=True).click()
    page.get_by_role("button", name="Score", exact=True).click()


def test_an_uploaded_output_shows_the_scores_of_corefbias_score(served, data_dir, mirror, browser_page, screenshot):
    page = browser_page
    path = mirror / OUTPUT
    _score_page(page, served.url, path, "counter_gap")
    page.locator("#score-status").get_by_text("finished").wait_for(timeout=TIMEOUT_MS)
    shown = page.locator("#score-summary [role=grid]").evaluate(ROWS)
    screenshot(page, "score-a-file")
    expected = scoring.score("counter_gap", [path], data_dir=data_dir, mirror=mirror, n_bootstrap=1000, seed=0)
    assert shown == charts.summary_frame(expected.to_json()).values.tolist()


def test_a_truncated_file_shows_the_readers_error(served, browser_page, screenshot, tmp_path):
    page = browser_page
    path = tmp_path / "truncated.tsv"
    path.write_text("ID\tA-coref\tB-coref\n0\tTRUE\tFALSE\n")
    _score_page(page, served.url, path, "counter_gap")
    page.get_by_text("no document for instance 0-control of counter_gap").first.wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "score-a-file-error")
