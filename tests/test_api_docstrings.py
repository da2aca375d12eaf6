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
from corefbias.measures import conll_f1

# The measure function each module's _score calls with every argument, and the module's names for renamed ones.
MODULES = {
    "counter_gap_delta_i": (corefbias.delta_i, {}),
    "gap_acc_bias": (corefbias.acc_bias, {}),
    "gap_w_bias": (corefbias.w_bias, {}),
    "winogender_bias": (corefbias.winogender_bias, {}),
    "pro_anti_diff": (corefbias.pro_anti_diff, {}),
    "abc_fpr_ratio": (corefbias.fpr_ratio, {}),
    "pro_anti_conll_f1": (conll_f1.pro_anti_conll_f1, {"keys": "references", "responses": "predictions"}),
}


@pytest.mark.parametrize("module_name", MODULES)
def test_a_modules_arguments_are_its_functions_parameters_word_for_word(module_name):
    function, renamed = MODULES[module_name]
    documented = numpy_parameters(function.__doc__)
    assert set(documented) == set(inspect.signature(function).parameters), "every parameter is documented"
    text = " ".join(module_source(REPO, module_name)._KWARGS_DESCRIPTION.split())
    for name, (_, description) in documented.items():
        described = " ".join(description.replace("``", "`").split())
        assert f"{renamed.get(name, name)} (" in text and described in text, (module_name, name)


@pytest.mark.parametrize("function_name", measures.PUBLIC_SCORES)
def test_help_shows_the_sections(function_name):
    page = pydoc.render_doc(getattr(corefbias, function_name), renderer=pydoc.plaintext)
    for section in ("Parameters", "Returns", "Raises", "Notes", "References", "Examples"):
        assert section in page, f"help({function_name}) has no {section}"
