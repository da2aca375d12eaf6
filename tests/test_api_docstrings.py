"""The public scoring functions' numpy docstrings agree with their evaluate modules' argument lists."""

from __future__ import annotations

import ast
import inspect
import pydoc
import re
from pathlib import Path

import pytest

import corefbias

REPO = Path(__file__).resolve().parents[1]

# Public function → the evaluate module (metrics/<name>/<name>.py) that wraps it.
MODULES = {
    "delta_i": "counter_gap_delta_i",
    "acc_bias": "gap_acc_bias",
    "w_bias": "gap_w_bias",
    "winogender_bias": "winogender_bias",
    "pro_anti_diff": "pro_anti_diff",
    "fpr_ratio": "abc_fpr_ratio",
}

# numpy: `name : type` at the section's indentation, the description indented below it.
_NUMPY_PARAMETER = re.compile(r"^(\w+) : (.+)$")
# evaluate: four-space `name (`type`, default x): description`, continued at eight spaces.
_MODULE_ARGUMENT = re.compile(r"^    (\w+) \((.+?)\): (.*)$")


def normalize(text: str) -> str:
    """Whitespace collapsed, and ``code`` written as `code` (the module strings use single backticks)."""
    return " ".join(text.replace("``", "`").split())


def numpy_parameters(docstring: str) -> dict[str, str]:
    """Parameter name → description of a numpy docstring's Parameters section."""
    lines = inspect.cleandoc(docstring).splitlines()
    start = next(i for i, line in enumerate(lines) if line == "Parameters" and lines[i + 1].startswith("---")) + 2
    parameters: dict[str, list[str]] = {}
    current = None
    for index in range(start, len(lines)):
        line = lines[index]
        if index + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[index + 1]):
            break  # the next section's title
        match = _NUMPY_PARAMETER.match(line)
        if match:
            current = match.group(1)
            parameters[current] = []
        elif line.startswith(" ") and current is not None:
            parameters[current].append(line)
    return {name: normalize(" ".join(text)) for name, text in parameters.items()}


def module_kwargs_description(name: str) -> str:
    """The module's ``_KWARGS_DESCRIPTION`` string, read from its source without importing evaluate."""
    tree = ast.parse((REPO / "metrics" / name / f"{name}.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "_KWARGS_DESCRIPTION" for target in node.targets
        ):
            return ast.literal_eval(node.value)
    raise AssertionError(f"metrics/{name}/{name}.py has no _KWARGS_DESCRIPTION")


def module_arguments(description: str) -> dict[str, str]:
    """Argument name → description of the ``Args:`` block of an evaluate ``_KWARGS_DESCRIPTION``."""
    lines = description.splitlines()
    start = lines.index("Args:") + 1
    arguments: dict[str, list[str]] = {}
    current = None
    for line in lines[start:]:
        if line and not line.startswith(" "):
            break  # Returns:, Examples:
        match = _MODULE_ARGUMENT.match(line)
        if match:
            current = match.group(1)
            arguments[current] = [match.group(3)]
        elif line.startswith("        ") and current is not None:
            arguments[current].append(line)
    return {name: normalize(" ".join(text)) for name, text in arguments.items()}


def test_the_parsers():
    docstring = """Summary.

    Parameters
    ----------
    x : int
        the x,
        over two lines.
    y : str, optional
        the ``y``.

    Returns
    -------
    int
        Not a parameter.
    """
    assert numpy_parameters(docstring) == {"x": "the x, over two lines.", "y": "the `y`."}
    module = "\nArgs:\n    x (`int`): the x,\n        over two lines.\n    y (`str`, optional): the `y`.\n"
    module += "Returns:\n    z\n"
    assert module_arguments(module) == {"x": "the x, over two lines.", "y": "the `y`."}


@pytest.mark.parametrize("function_name, module_name", MODULES.items())
def test_module_arguments_match_the_function_parameters(function_name, module_name):
    function = getattr(corefbias, function_name)
    documented = numpy_parameters(function.__doc__)
    assert set(documented) == set(inspect.signature(function).parameters), "every parameter is documented"
    arguments = module_arguments(module_kwargs_description(module_name))
    assert arguments, f"no arguments parsed from {module_name}'s _KWARGS_DESCRIPTION"
    for name, text in arguments.items():
        assert name in documented, f"{module_name} documents {name!r}, which {function_name} does not"
        assert text == documented[name], f"{function_name}({name}) and {module_name} describe it differently"


@pytest.mark.parametrize("function_name", MODULES)
def test_help_shows_the_sections(function_name):
    page = pydoc.render_doc(getattr(corefbias, function_name), renderer=pydoc.plaintext)
    for section in ("Parameters", "Returns", "Raises", "Notes", "References", "Examples"):
        assert section in page, f"help({function_name}) has no {section}"
