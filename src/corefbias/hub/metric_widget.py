"""The Gradio widget of every corefbias metric Space (evaluate's own widget fails on gradio ≥ 4).

One table row per example, one column per input of the module; list-valued inputs such as
``[true, false]`` are typed as JSON. Compute keyword arguments (``n_bootstrap``, ``seed``) are
number fields. Errors from the metric are shown in the page, never as a crash.
"""

from __future__ import annotations

import json
import math

import datasets

_LIST_FEATURES = (datasets.Sequence, getattr(datasets, "List", datasets.Sequence), list)


def _parse_cell(feature, text, column: str, row: int):
    text = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text).strip()
    if text == "":
        return None
    try:
        if isinstance(feature, _LIST_FEATURES):
            return json.loads(text)
        dtype = getattr(feature, "dtype", "string")
        if dtype == "bool":
            return {"true": True, "false": False, "1": True, "0": False}[text.lower()]
        if dtype.startswith(("float", "int")):
            return float(text) if dtype.startswith("float") else int(text)
        return text
    except (ValueError, KeyError) as error:
        raise ValueError(f"row {row + 1}, column {column!r}: cannot read {text!r} ({error})") from None


def rows_to_inputs(features: datasets.Features, rows: list[list]) -> dict[str, list]:
    """Table rows (cells as typed text) → the per-example inputs of ``compute``."""
    names = list(features)
    kept = [row for row in rows if any(str(cell).strip() not in ("", "nan", "None") for cell in row)]
    return {
        name: [_parse_cell(features[name], row[column], name, index) for index, row in enumerate(kept)]
        for column, name in enumerate(names)
    }


def build_metric_widget(module, example_rows: list[list] | None = None):
    """A ``gr.Blocks`` page that computes ``module`` on a table typed by the visitor."""
    import gradio as gr

    features = module.features[0] if isinstance(module.features, list) else module.features
    names = list(features)

    def compute(table, n_bootstrap, seed):
        rows = table.values.tolist() if hasattr(table, "values") else table
        try:
            inputs = rows_to_inputs(features, rows)
            return module.compute(**inputs, n_bootstrap=int(n_bootstrap), seed=int(seed))
        except ValueError as error:
            raise gr.Error(str(error)) from None

    with gr.Blocks(title=module.name) as page:
        gr.Markdown(f"# {module.name}\n\n{module.description}")
        table = gr.Dataframe(
            value=example_rows or [[""] * len(names)],
            headers=names,
            datatype="str",
            column_count=len(names),
            interactive=True,
            label="One example per row (JSON for lists, e.g. [true, false])",
        )
        with gr.Row():
            n_bootstrap = gr.Number(value=1000, precision=0, minimum=0, label="n_bootstrap")
            seed = gr.Number(value=0, precision=0, label="seed")
        button = gr.Button("Compute", variant="primary")
        output = gr.JSON(label="Result")
        button.click(compute, inputs=[table, n_bootstrap, seed], outputs=output, api_name="compute")
        gr.Markdown(
            f"**Inputs**\n\n```\n{module.inputs_description}\n```\n\n**Citation**\n\n```\n{module.citation}\n```"
        )
    return page


def launch_metric_widget(module, **launch_options):
    build_metric_widget(module, getattr(module, "WIDGET_EXAMPLE", None)).launch(**launch_options)
