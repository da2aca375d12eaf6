"""A metric widget in a real browser: the page's example, Compute, and the scores the page shows."""

import json

import pytest
from browser import gradio_json_entries
from metric_harness import load

from corefbias.hub import metric_widget

pytestmark = pytest.mark.slow

METRIC = "counter_gap_delta_i"
# Not the widget's defaults (1000, 0): the p-values shown then prove the typed numbers reached compute.
N_BOOTSTRAP, SEED = 200, 7


def test_widget_example_scores_in_the_browser(in_repo, browser_page, screenshot):
    module = load(METRIC)
    rows = type(module).WIDGET_EXAMPLE
    app = metric_widget.build_metric_widget(module, rows)
    app.launch(server_name="127.0.0.1", prevent_thread_lock=True, quiet=True)
    try:
        browser_page.goto(app.local_url)
        compute = browser_page.get_by_role("button", name="Compute")
        compute.wait_for()
        browser_page.get_by_label("n_bootstrap").fill(str(N_BOOTSTRAP))
        browser_page.get_by_label("seed").fill(str(SEED))
        compute.click()
        shown = gradio_json_entries(browser_page)
        screenshot(browser_page, "result")
    finally:
        app.close()

    expected = load(METRIC).compute(
        **metric_widget.rows_to_inputs(module.features, rows), n_bootstrap=N_BOOTSTRAP, seed=SEED
    )
    scalars = {key: value for key, value in expected.items() if not isinstance(value, dict)}
    assert shown.keys() == scalars.keys()
    assert {key: json.loads(text) for key, text in shown.items()} == scalars
    # The example: two quadruples of each of two books; ΔI 0.5 as the module's own docs compute it.
    assert json.loads(shown["delta_i"]) == 0.5
    assert json.loads(shown["num_quadruples"]) == 4
