"""Every public function and class of ``corefbias.measures``, of the benchmark declarations' shared pieces and of the
runner's entry points carries a numpy docstring: ``Parameters`` for what it takes, ``Returns`` for what it gives,
and, for functions and classes, ``Examples`` that run (``test_docstring_examples`` runs them, walking the package).
Public methods of those classes document their parameters and returns; the class's examples show them in use."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import corefbias.measures

MODULES = [
    *(info.name for info in pkgutil.walk_packages(corefbias.measures.__path__, "corefbias.measures.")),
    "corefbias.benchmarks.declaration",
    "corefbias.benchmarks.link_sections",
    "corefbias.benchmarks.conll_sections",
    "corefbias.benchmarks.explore",
]
# The runner's entry points and its scoring pipeline: the rest of harness.runner is its machinery.
ENTRY_POINTS = {
    "corefbias.harness.runner": (
        "run", "RunSettings", "BenchmarkRun", "decision_of", "refusal_of_clusters", "scored_sections",
        "score_benchmark", "HeadlineScore", "headline_scores", "to_json",
    )
}  # fmt: skip


def sections(docstring: str) -> set[str]:
    """The titles of a numpy docstring's sections (a line underlined with dashes)."""
    lines = inspect.cleandoc(docstring).splitlines()
    return {line for line, below in zip(lines, lines[1:]) if re.fullmatch(r"-{3,}", below) and line.strip()}


def _takes_arguments(function) -> bool:
    parameters = [name for name in inspect.signature(function).parameters if name not in ("self", "cls")]
    return bool(parameters)


def _returns_something(function) -> bool:
    return inspect.signature(function).return_annotation not in ("None", None)


def problems_of(name: str, obj, *, method: bool = False) -> list[str]:
    """What the docstring of ``obj`` lacks."""
    docstring = inspect.getdoc(obj) if not isinstance(obj, property) else obj.__doc__
    if not docstring or not docstring.strip():
        return [f"{name}: no docstring"]
    found = sections(docstring)
    missing = []
    if isinstance(obj, property):
        return missing
    function = obj.__init__ if inspect.isclass(obj) else obj
    if inspect.isclass(obj):
        fields = getattr(obj, "__dataclass_fields__", None)
        takes = bool(fields) or ("__init__" in vars(obj) and _takes_arguments(obj.__init__))
        if takes and not found & {"Parameters", "Attributes"}:
            missing.append(f"{name}: Parameters (or Attributes)")
    else:
        if _takes_arguments(function) and "Parameters" not in found:
            missing.append(f"{name}: Parameters")
        if _returns_something(function) and not found & {"Returns", "Yields"}:
            missing.append(f"{name}: Returns")
    if not method and ("Examples" not in found or ">>>" not in docstring):
        missing.append(f"{name}: Examples that run")
    return missing


def public_definitions(module_name: str) -> list[tuple[str, object, bool]]:
    """(name, object, is a method) of each public function, class and method the module defines."""
    module = importlib.import_module(module_name)
    wanted = ENTRY_POINTS.get(module_name)
    found = []
    for name, obj in vars(module).items():
        if name.startswith("_") or (wanted is not None and name not in wanted):
            continue
        obj = inspect.unwrap(obj) if callable(obj) and hasattr(obj, "__wrapped__") else obj  # lru_cache, wraps
        if not (inspect.isfunction(obj) or inspect.isclass(obj)) or obj.__module__ != module_name:
            continue
        found.append((f"{module_name}.{name}", obj, False))
        if inspect.isclass(obj):
            for attribute, member in vars(obj).items():
                if attribute.startswith("_"):
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if inspect.isfunction(member) or isinstance(member, property):
                    found.append((f"{module_name}.{name}.{attribute}", member, True))
    return found


@pytest.mark.parametrize("module_name", [*MODULES, *ENTRY_POINTS])
def test_every_public_definition_has_a_numpy_docstring_with_examples(module_name):
    problems = [
        problem
        for name, obj, method in public_definitions(module_name)
        for problem in problems_of(name, obj, method=method)
    ]
    assert problems == []


def test_the_checker_sees_a_missing_section():
    def documented(x: int) -> int:
        """Twice ``x``.

        Parameters
        ----------
        x : int
            A number.

        Returns
        -------
        int

        Examples
        --------
        >>> documented(2)
        4
        """
        return 2 * x

    def bare(x: int) -> int:
        """Twice ``x``."""
        return 2 * x

    assert problems_of("documented", documented) == []
    assert problems_of("bare", bare) == ["bare: Parameters", "bare: Returns", "bare: Examples that run"]
