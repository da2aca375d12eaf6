"""Every metric folder passes the common checks (``metric_checks``), found by glob as evaluate's own common tests find
theirs; and a new metric is one new folder: a copy of an existing one under a new name, in a tree of its own, passes
them with no edit anywhere else, and a wrong doctest in it fails them."""

import os
import shutil

import pytest
from metric_checks import CHECKS, REPO, check_doctests, check_page, load, metric_names

METRICS = metric_names()


def test_the_metric_folders_are_found():
    assert "pro_anti_diff" in METRICS and "counter_gap_delta_i" in METRICS
    assert METRICS == sorted(path.parent.name for path in (REPO / "metrics").glob("*/measure.md"))


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
@pytest.mark.parametrize("name", METRICS)
def test_every_metric_folder_passes_the_common_checks(name, check):
    check(REPO, name)


SOURCE, COPY = "pro_anti_diff", "pro_anti_gap"


@pytest.fixture
def copied(tmp_path):
    """The folder of ``SOURCE`` copied as ``COPY`` into an otherwise empty tree, its own names changed as a new
    metric's author would write them."""
    folder = tmp_path / "metrics" / COPY
    shutil.copytree(REPO / "metrics" / SOURCE, folder)
    (folder / f"{SOURCE}.py").rename(folder / f"{COPY}.py")
    for path in folder.iterdir():
        text = path.read_text(encoding="utf-8")
        for old in (f"metrics/{SOURCE}", f"corefbias/{SOURCE}", f'with_name("{SOURCE}.py")'):
            text = text.replace(old, old.replace(SOURCE, COPY))
        path.write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("name", METRICS)
def test_evaluate_names_every_module_after_its_folder(name):
    module = load(REPO, name)
    assert module.name == name and module.info.module_name == name
    assert module.data_dir.split(os.sep)[-2] == name  # evaluate's cache folder for the module too


def test_a_new_metric_is_one_folder_and_passes_the_common_checks(copied):
    assert metric_names(copied) == [COPY]
    # Its class is still the copied module's (ProAntiDiff): the folder names it, not the class.
    assert f"class {''.join(word.title() for word in SOURCE.split('_'))}(" in (
        copied / "metrics" / COPY / f"{COPY}.py"
    ).read_text(encoding="utf-8")
    assert load(copied, COPY).name == COPY
    for check in CHECKS:
        check(copied, COPY)
    # The site's page, nav entry and table row come from the folder.
    assert "# Pro/anti differences" in check_page(copied, COPY)


def test_a_wrong_doctest_in_a_new_metric_fails_its_checks(copied):
    module = copied / "metrics" / COPY / f"{COPY}.py"
    text = module.read_text(encoding="utf-8")
    assert text.count("(0.75, 0.5, 0.625, 0.25)") == 1
    module.write_text(text.replace("(0.75, 0.5, 0.625, 0.25)", "(0.75, 0.5, 0.625, 0.3)"), encoding="utf-8")
    with pytest.raises(AssertionError, match=r"Expected:\s+\(0.75, 0.5, 0.625, 0.3\)"):
        check_doctests(copied, COPY)
    page = copied / "metrics" / COPY / "measure.md"
    text = page.read_text(encoding="utf-8")
    assert "(1.0, 0.5, 1)" in text
    page.write_text(text.replace("(1.0, 0.5, 1)", "(1.0, 0.5, 2)"), encoding="utf-8")
    with pytest.raises(AssertionError, match=r"Got:\s+\(1.0, 0.5, 1\)"):
        check_page(copied, COPY)
