"""The public scoring functions carry full numpy docstrings, and their evaluate modules' argument lists are made from
them (``corefbias.hub.evaluate_modules.kwargs_description``), so each parameter's text is written once."""

from __future__ import annotations

import inspect
import pydoc

import pytest
from metric_checks import REPO, module_source

import corefbias
from corefbias import measures
from corefbias.hub.evaluate_modules import numpy_parameters

# Each metric's evaluate module calls the function of its name with every argument (under the module's _RENAMED
# names where it renames some).
# The functions whose docstrings have no Notes or no References section yet (the rest have every section).
SECTIONS_MISSING = {
    "condition_accuracy_diff": {"Notes"},
    "conll_f1_by_mention_type": {"Notes"},
    "misgendered_accuracy": {"Notes", "References"},
    "pronoun_set_diff": {"References"},
    "ruff_accuracy": {"Notes", "References"},
}


@pytest.mark.parametrize("module_name", measures.PUBLIC_SCORES)
def test_a_modules_arguments_are_its_functions_parameters_word_for_word(module_name):
    function = getattr(corefbias, module_name)
    documented = numpy_parameters(function.__doc__)
    assert set(documented) == set(inspect.signature(function).parameters), "every parameter is documented"
    module = module_source(REPO, module_name)
    renamed = getattr(module, "_RENAMED", {})
    text = " ".join(module._KWARGS_DESCRIPTION.split())
    for name, (_, description) in documented.items():
        described = " ".join(description.replace("``", "`").split())
        assert f"{renamed.get(name, name)} (" in text and described in text, (module_name, name)


@pytest.mark.parametrize("function_name", measures.PUBLIC_SCORES)
def test_help_shows_the_sections(function_name):
    page = pydoc.render_doc(getattr(corefbias, function_name), renderer=pydoc.plaintext)
    for section in ("Parameters", "Returns", "Raises", "Notes", "References", "Examples"):
        if section in SECTIONS_MISSING.get(function_name, ()):
            continue
        assert section in page, f"help({function_name}) has no {section}"
