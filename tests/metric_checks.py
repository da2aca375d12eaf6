"""The checks every metric folder must pass, as evaluate's ``tests/test_metric_common.py`` runs its own.

A metric folder ``<root>/metrics/<name>/`` (found as ``corefbias.hub.publish.metric_names`` finds it) holds the
``evaluate`` module ``<name>.py``, its card ``README.md``, its widget ``app.py`` and ``requirements.txt``, and
``measure.md``, the source of its documentation page. Each check takes the tree's root, so that a folder copied into
a temporary tree is checked exactly as the repository's own are, with no name written anywhere.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import importlib.util
import inspect
import io
import re
import sys
import uuid
from pathlib import Path

import evaluate
import pandas as pd
import pytest
from markdown_blocks import RUNNABLE_BLOCK, run_blocks

from corefbias.hub import metric_widget, publish

REPO = Path(__file__).resolve().parents[1]
HUB_ORG = "corefbias"
# evaluate's argument lists: four-space ``name (`type`, default x): description``.
_MODULE_ARGUMENT = re.compile(r"^    (\w+) \((.+?)\): ")
SIGNIFICANCE_OFF = "significance was not computed (n_bootstrap=0)"


def metric_names(root: Path = REPO) -> list[str]:
    return publish.metric_names(root / "metrics")


def load(root: Path, name: str):
    """A fresh instance of the folder's module (its own experiment, so that checks never share a cache file)."""
    return evaluate.load(str(root / "metrics" / name), experiment_id=uuid.uuid4().hex)


def module_source(root: Path, name: str):
    """The module file executed as a plain Python module (not through evaluate's loader)."""
    path = root / "metrics" / name / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_metric_{name}_{uuid.uuid4().hex}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def widget_inputs(module) -> dict:
    """The inputs of the example the module's widget opens with (``WIDGET_EXAMPLE``), as ``compute`` takes them."""
    return metric_widget.rows_to_inputs(module.features, type(module).WIDGET_EXAMPLE)


# ----- the checks --------------------------------------------------------------------------------------------


def check_files(root: Path, name: str) -> None:
    """The folder holds the module, its card, its widget and its page source; the widget loads this module by file."""
    folder = root / "metrics" / name
    for required in (f"{name}.py", "README.md", "app.py", "requirements.txt", "measure.md"):
        assert (folder / required).is_file(), f"metrics/{name} has no {required}"
    assert f'with_name("{name}.py")' in (folder / "app.py").read_text(encoding="utf-8"), "app.py loads another file"
    requirements = (folder / "requirements.txt").read_text(encoding="utf-8").split()
    assert any(line.startswith("corefbias") for line in requirements), "requirements.txt does not name corefbias"


def check_name(root: Path, name: str) -> None:
    """The loaded module is named after its folder, whatever its class is called (evaluate would name it after the
    class): a copy under a new name needs no class renamed."""
    assert load(root, name).name == name, f"evaluate.load('metrics/{name}') is named {load(root, name).name!r}"


def check_install_lines(root: Path, name: str) -> None:
    """The module's docstring and its card open with the install line and the load line; the card's usage installs
    first."""
    folder = root / "metrics" / name
    docstring = ast.get_docstring(ast.parse((folder / f"{name}.py").read_text(encoding="utf-8")))
    assert docstring.splitlines()[:2] == ["pip install corefbias", f'evaluate.load("{HUB_ORG}/{name}")']
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n")
    body = card[card.index("\n---\n", 4) + len("\n---\n") :].lstrip("\n")
    code_lines = [line for line in body.splitlines()[:6] if not line.startswith("```")]
    assert code_lines == ["pip install corefbias", f'evaluate.load("{HUB_ORG}/{name}")']
    usage = card[card.index("## How to Use\n") + len("## How to Use\n") :]
    assert usage.startswith("```bash\npip install corefbias\n```\n")
    assert f'evaluate.load("{HUB_ORG}/{name}")' in usage


def run_kwargs_doctests(root: Path, name: str) -> tuple[doctest.TestResults, str]:
    """The examples of the module's ``_KWARGS_DESCRIPTION``, run from ``root`` (where ``metrics/<name>`` resolves)."""
    module = module_source(root, name)
    path = root / "metrics" / name / f"{name}.py"
    test = doctest.DocTestParser().get_doctest(
        module._KWARGS_DESCRIPTION, {}, f"{name}._KWARGS_DESCRIPTION", str(path), 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    with contextlib.chdir(root):
        runner.run(test, out=report.write)
    return doctest.TestResults(runner.failures, runner.tries), report.getvalue()


def check_doctests(root: Path, name: str) -> None:
    """The module's examples run and print what they show."""
    results, report = run_kwargs_doctests(root, name)
    assert results.attempted > 0, f"metrics/{name}: its _KWARGS_DESCRIPTION has no examples"
    assert results.failed == 0, report


def check_arguments(root: Path, name: str) -> None:
    """The module documents exactly the arguments its ``_score`` takes, each an input (a feature) or an option, and
    its card's Inputs section names them all (in bold), no more."""
    module = load(root, name)
    text = module.inputs_description
    arguments = text[text.index("Args:\n") + len("Args:\n") : text.index("Returns:\n")]
    documented = [match[1] for line in arguments.splitlines() if (match := _MODULE_ARGUMENT.match(line))]
    taken = list(inspect.signature(type(module)._score).parameters)[1:]
    # In the measure function's order, which may differ (a function's keys and responses are references, predictions).
    assert sorted(documented) == sorted(taken), f"metrics/{name}: documents {documented}, _score takes {taken}"
    assert len(set(documented)) == len(documented)
    assert set(module.features) <= set(taken)
    card = (root / "metrics" / name / "README.md").read_text(encoding="utf-8")
    inputs = card[card.index("### Inputs\n") : card.index("### Output Values\n")]
    assert set(re.findall(r"\*\*(\w+)\*\*", inputs)) == set(taken), f"metrics/{name}/README.md: its Inputs"


def check_valid_input(root: Path, name: str) -> dict:
    """The widget's example scores; every score the data leave undefined is None with its reason; with the bootstrap
    off, the significance is None with that reason; adding the example in two batches gives the same result."""
    module = load(root, name)
    inputs = widget_inputs(module)
    result = module.compute(**inputs, n_bootstrap=0, seed=0)
    assert isinstance(result, dict) and isinstance(result["undefined"], dict)
    for key, value in result.items():
        if value is None:
            assert result["undefined"].get(key), f"{key} is None with no reason"
    assert any(reason == SIGNIFICANCE_OFF for reason in result["undefined"].values()), "no significance to switch off"
    batched = load(root, name)
    half = len(next(iter(inputs.values()))) // 2
    batched.add_batch(**{key: values[:half] for key, values in inputs.items()})
    batched.add_batch(**{key: values[half:] for key, values in inputs.items()})
    assert batched.compute(n_bootstrap=0, seed=0) == result
    return result


def _refused(module, inputs: dict, *names: str, **options) -> str:
    with pytest.raises(ValueError) as refused:
        module.compute(**inputs, **options)
    message = str(refused.value)
    assert any(name in message for name in names), f"{message!r} names none of {names}"
    return message


def check_bad_input(root: Path, name: str) -> None:
    """Bad input is a ValueError that names what is wrong: an entry of the wrong kind in any input, an input
    missing or cut short, an unknown option, a negative ``n_bootstrap``."""
    module = load(root, name)
    inputs = widget_inputs(module)
    optional = type(module).OPTIONAL_INPUTS
    for column in module.features:
        broken = {**inputs, column: [{"not": "a value"}, *inputs[column][1:]]}
        _refused(load(root, name), broken, column, n_bootstrap=0)
        shorter = {**inputs, column: inputs[column][:-1]}
        _refused(load(root, name), shorter, column, "one entry per", "length", n_bootstrap=0)
        if column not in optional and column not in ("predictions", "references"):
            missing = {key: values for key, values in inputs.items() if key != column}
            _refused(load(root, name), missing, column, n_bootstrap=0)
    _refused(module, inputs, "n_boostrap", n_boostrap=10)
    _refused(load(root, name), inputs, "n_bootstrap", n_bootstrap=-1)


def check_batches_outlive_a_failed_compute(root: Path, name: str) -> None:
    """A ``compute`` refused for a bad option keeps the added batches (evaluate had consumed them), a batch whose
    columns differ in length is refused (datasets' writer dropped one whose first column was empty), and a
    ``pandas.Series`` is read as its values."""
    module = load(root, name)
    inputs = widget_inputs(module)
    expected = load(root, name).compute(**inputs, n_bootstrap=0, seed=0)
    module.add_batch(**inputs)
    _refused(module, {}, "n_bootstrap", n_bootstrap=-1)
    with pytest.raises(ValueError, match="one entry per example"):
        module.add_batch(**{**inputs, next(iter(inputs)): []})
    assert module.compute(n_bootstrap=0, seed=0) == expected
    # object dtype, as a column with None entries (an optional number left empty) must be given to keep them
    series = {
        key: pd.Series(values, dtype=object, index=range(100, 100 + len(values))) for key, values in inputs.items()
    }
    assert load(root, name).compute(**series, n_bootstrap=0, seed=0) == expected


def check_page(root: Path, name: str) -> str:
    """``measure.md`` says what it is in its front matter, holds a worked example that runs, and the docs hook makes
    it a page with the card's reference part, a nav entry and a row of the measures table."""
    source = root / "metrics" / name / "measure.md"
    text = source.read_text(encoding="utf-8")
    hooks = _docs_hooks()
    facts = hooks.measure_facts(name, root / "metrics")
    assert facts["title"] != name and facts["measures"] and facts["paper"], f"{source}: front matter incomplete"
    assert RUNNABLE_BLOCK.search(text), f"{source} has no pycon worked example"
    results, report = run_blocks(source, root, str(source))
    assert results.attempted and results.failed == 0, report
    page = hooks.measure_page(name, root / "metrics")
    assert "## The metric card" in page and "### Inputs" in page
    assert {facts["title"]: f"measures/{name}.md"} in hooks.measures_nav(root / "metrics")
    assert f"| [`{name}`]({name}.md) |" in hooks.measures_table(root / "metrics")
    return page


def _docs_hooks():
    """``docs/hooks/generated_pages.py``, which mkdocs loads by path."""
    if "generated_pages" not in sys.modules:
        spec = importlib.util.spec_from_file_location("generated_pages", REPO / "docs" / "hooks" / "generated_pages.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["generated_pages"] = module
    return sys.modules["generated_pages"]


CHECKS = (
    check_files,
    check_name,
    check_install_lines,
    check_doctests,
    check_arguments,
    check_valid_input,
    check_bad_input,
    check_batches_outlive_a_failed_compute,
    check_page,
)
