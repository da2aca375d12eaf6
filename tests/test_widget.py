"""The metric widget shared by every metric Space, served for real on loopback."""

import pytest
from metric_harness import REPO, load

from corefbias.hub import metric_widget

gradio_client = pytest.importorskip("gradio_client")


def test_rows_are_parsed_by_feature_type(in_repo):
    module = load("counter_gap_delta_i")
    inputs = metric_widget.rows_to_inputs(
        module.features,
        [["[true, false]", "[false, false]", "q1", "original", "male", "vendetta.epub"], ["", "", "", "", "", ""]],
    )
    assert inputs == {
        "predictions": [[True, False]],
        "references": [[False, False]],
        "quadruple_ids": ["q1"],
        "roles": ["original"],
        "genders": ["male"],
        "block_ids": ["vendetta.epub"],
    }
    with pytest.raises(ValueError, match="row 1, column 'predictions'"):
        metric_widget.rows_to_inputs(module.features, [["[true", "[true]", "q", "original", "male", "a book"]])


def test_served_widget_computes_what_the_module_computes(in_repo):
    module = load("counter_gap_delta_i")
    rows = type(module).WIDGET_EXAMPLE
    page = metric_widget.build_metric_widget(module, rows)
    page.launch(server_name="127.0.0.1", prevent_thread_lock=True, quiet=True)
    try:
        client = gradio_client.Client(page.local_url, verbose=False)
        headers = list(module.features)
        served = client.predict({"headers": headers, "data": rows}, 100, 0, api_name="/compute")
        expected = load("counter_gap_delta_i").compute(
            **metric_widget.rows_to_inputs(module.features, rows), n_bootstrap=100, seed=0
        )
        assert served == expected
        assert served["delta_i"] == 0.5
        with pytest.raises(Exception, match="unknown genders"):
            client.predict(
                {"headers": headers, "data": [row[:4] + ["x"] + row[5:] for row in rows]}, 0, 0, api_name="/compute"
            )
    finally:
        page.close()


@pytest.mark.parametrize("name", sorted(path.name for path in (REPO / "metrics").iterdir() if path.is_dir()))
def test_every_module_widget_example_scores(in_repo, name):
    module = load(name)
    rows = type(module).WIDGET_EXAMPLE
    metric_widget.build_metric_widget(module, rows)
    result = module.compute(**metric_widget.rows_to_inputs(module.features, rows), n_bootstrap=0, seed=0)
    assert isinstance(result["undefined"], dict)
