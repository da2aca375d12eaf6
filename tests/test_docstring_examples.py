"""Every example in a docstring of the package runs and prints what it shows."""

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import corefbias

MODULES = [info.name for info in pkgutil.walk_packages(corefbias.__path__, "corefbias.")]
WITH_EXAMPLES = [name for name in MODULES if ">>>" in (importlib.util.find_spec(name).loader.get_source(name) or "")]


def test_the_examples_are_found():
    assert "corefbias.benchmarks.registry" in WITH_EXAMPLES
    assert "corefbias.models.registry" in WITH_EXAMPLES


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples_run(name):
    results = doctest.testmod(
        importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert results.attempted > 0 and results.failed == 0
