"""Every example in a docstring of the package runs and prints what it shows."""

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import corefbias

# The dataset builders are scripts datasets loads by path, not modules of the package.
MODULES = [
    info.name
    for info in pkgutil.walk_packages(corefbias.__path__, "corefbias.")
    if ".data.builders." not in info.name and not info.name.endswith(".data.builders")
]
WITH_EXAMPLES = [name for name in MODULES if ">>>" in (importlib.util.find_spec(name).loader.get_source(name) or "")]


def test_the_examples_are_found():
    assert "corefbias.harness.benchmarks.registry" in WITH_EXAMPLES
    assert "corefbias.models.registry" in WITH_EXAMPLES


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_run(name):
    results = doctest.testmod(
        importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert results.attempted > 0 and results.failed == 0
