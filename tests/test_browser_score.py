"""The Score a file tab in a real browser: a published Counter-GAP output uploaded, the scores of
``corefbias score`` in the page; WinoBias's four CoNLL files uploaded together; a truncated file, the reader's
error in the page; a file of no known format, named as the visitor named it."""

import pytest
from test_browser_space import ROWS, TIMEOUT_MS
from test_space import data_dir, sandbox, served  # noqa: F401 (fixtures)

from corefbias.harness.prediction_files import scoring
from corefbias.space import charts

pytestmark = pytest.mark.slow

OUTPUT = "counter_gap/results/none/spanbert_base_output.tsv"
WINOBIAS_CONLL = [
    f"winobias/WinoBias/wino/data/conll_format/test_type{kind}_{polarity}_stereotype.v4_auto_conll"
    for kind in (1, 2)
    for polarity in ("pro", "anti")
]


def _score_page(page, url, paths, benchmark):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(url)
    page.get_by_role("tab", name="Score a file").click()
    page.locator("#score-upload input[type=file]").set_input_files([str(path) for path in paths])
    # The file name shows while it uploads; the Clear button only once the upload is done.
    page.locator("#score-upload").get_by_role("button", name="Clear").wait_for(timeout=TIMEOUT_MS)
    choice = page.get_by_label("Benchmark", exact=True).first
    choice.click()
    page.get_by_role("option", name=benchmark, exact=True).click()
    page.get_by_role("button", name="Score", exact=True).click()


def test_an_uploaded_output_shows_the_scores_of_corefbias_score(served, data_dir, mirror, browser_page, screenshot):
    page = browser_page
    path = mirror / OUTPUT
    _score_page(page, served.url, [path], "counter_gap")
    page.locator("#score-status").get_by_text("finished").wait_for(timeout=TIMEOUT_MS)
    shown = page.locator("#score-summary [role=grid]").evaluate(ROWS)
    screenshot(page, "score-a-file")
    expected = scoring.score("counter_gap", [path], data_dir=data_dir, mirror=mirror, n_bootstrap=1000, seed=0)
    assert shown == charts.summary_frame(expected.record()).values.tolist()


def test_a_truncated_file_shows_the_readers_error(served, browser_page, screenshot, tmp_path):
    page = browser_page
    path = tmp_path / "truncated.tsv"
    path.write_text("ID\tA-coref\tB-coref\n0\tTRUE\tFALSE\n")
    _score_page(page, served.url, [path], "counter_gap")
    page.get_by_text("no document for instance 0-control of counter_gap").first.wait_for(timeout=TIMEOUT_MS)
    screenshot(page, "score-a-file-error")


def test_winobias_four_conll_files_score_together(served, data_dir, mirror, browser_page):
    # Before, the upload took one file: one of the four scored alone matched a quarter of WinoBias's instances.
    page = browser_page
    paths = [mirror / path for path in WINOBIAS_CONLL]
    _score_page(page, served.url, paths, "winobias")
    page.locator("#score-status").get_by_text("finished").wait_for(timeout=TIMEOUT_MS)
    shown = page.locator("#score-summary [role=grid]").evaluate(ROWS)
    expected = scoring.score("winobias", paths, data_dir=data_dir, mirror=mirror, n_bootstrap=1000, seed=0)
    assert shown == charts.summary_frame(expected.record()).values.tolist()
    conll_f1 = {row[1]: row[2] for row in shown if "CoNLL F1" in row[1]}
    assert conll_f1["type1 CoNLL F1 pro"] == "1.000" and conll_f1["type1 CoNLL F1 pro − anti"] == "0.000"


def test_a_file_of_no_known_format_is_named_as_uploaded(served, browser_page, tmp_path):
    page = browser_page
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    _score_page(page, served.url, [path], "winogender")
    shown = page.get_by_text("cannot tell its format").first
    shown.wait_for(timeout=TIMEOUT_MS)
    message = shown.inner_text()
    assert message.startswith("notes.txt: cannot tell its format from the first line 'hello\\n'")
    assert "the Format menu of the Space" in message
