"""The PyPI release: ``python -m build`` and ``twine check`` pass, the sdist builds the wheel the tree builds,
each holds what it must and nothing else, the metadata is complete, and the version bump step works."""

import configparser
import email
import re
import runpy
import subprocess
import sys
import tarfile
import zipfile

import pytest
from installed import REPO

import corefbias

pytestmark = pytest.mark.slow

HOME = "https://github.com/corefbias/corefbias"
DIST_INFO = {"METADATA", "WHEEL", "RECORD", "entry_points.txt", "top_level.txt", "licenses/LICENSE"}
# A Markdown link or image whose target names no scheme and no anchor: dead on PyPI.
RELATIVE_LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#)[^)]*\)", re.IGNORECASE)


def _package_files() -> set[str]:
    """What git holds under src/corefbias (no caches, no strays), as paths inside the package's parent."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "src/corefbias"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.split()  # fmt: skip
    return {name.removeprefix("src/") for name in listed if (REPO / name).is_file()}


def _wheel_contents(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as wheel:
        return {name: wheel.read(name) for name in wheel.namelist()}


def _metadata(wheel) -> email.message.Message:
    contents = _wheel_contents(wheel)
    return email.message_from_bytes(next(data for name, data in contents.items() if name.endswith("/METADATA")))


def test_python_m_build_and_twine_check_pass(release_build):
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *map(str, release_build.dist.iterdir())],
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASSED") == 2


def test_the_wheel_holds_the_package_its_data_and_its_metadata_only(release_build):
    version = corefbias.__version__
    expected = _package_files() | {f"corefbias-{version}.dist-info/{name}" for name in DIST_INFO}
    assert set(_wheel_contents(release_build.wheel)) == expected
    # The data the library reads through the package: each set's folder with its builder, card, pins and citation.
    assert {f"corefbias/benchmarks/gap/{name}" for name in ("builder.py", "card.md", "upstream.json",
                                                            "citation.bib")} <= expected  # fmt: skip


def test_the_sdist_builds_the_same_wheel_as_the_tree(release_build):
    from_sdist, from_tree = _wheel_contents(release_build.wheel), _wheel_contents(release_build.tree_wheel)
    assert from_sdist.keys() == from_tree.keys()
    assert [name for name in from_sdist if from_sdist[name] != from_tree[name]] == []


def test_the_sdist_holds_the_sources_and_documents_but_no_tests_or_data(release_build):
    with tarfile.open(release_build.sdist) as sdist:
        top = f"corefbias-{corefbias.__version__}/"
        names = {member.name.removeprefix(top) for member in sdist.getmembers() if member.isfile()}
    egg_info = {name for name in names if name.startswith("src/corefbias.egg-info/")}
    documents = {"README.md", "CHANGELOG.md", "LICENSE", "PKG-INFO"}
    build_inputs = {"pyproject.toml", "setup.cfg", "setup.py", "MANIFEST.in"}
    assert names - egg_info == documents | build_inputs | {f"src/{name}" for name in _package_files()}


def test_metadata_is_complete_and_the_long_description_links_work_on_pypi(release_build):
    metadata = _metadata(release_build.wheel)
    setup_cfg = configparser.ConfigParser()
    setup_cfg.read(REPO / "setup.cfg")
    assert metadata["Version"] == corefbias.__version__
    assert metadata["Summary"] == setup_cfg["metadata"]["description"]
    assert (metadata["License"], metadata["License-File"], metadata["Requires-Python"]) == ("MIT", "LICENSE", ">=3.10")
    assert metadata.get_all("Project-URL") == [
        f"Homepage, {HOME}",
        f"Source, {HOME}",
        f"Issues, {HOME}/issues",
        f"Changelog, {HOME}/blob/main/CHANGELOG.md",
    ]
    assert "Intended Audience :: Science/Research" in metadata.get_all("Classifier")
    description = metadata.get_payload(decode=True).decode("utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert RELATIVE_LINK.findall(readme), "the README links to files of the repository"
    assert RELATIVE_LINK.findall(description) == []
    assert f"[CHANGELOG.md]({HOME}/blob/main/CHANGELOG.md)" in description
    # Only the link targets changed.
    without_targets = re.compile(r"\]\([^)]*\)")
    assert without_targets.sub("]()", description).strip() == without_targets.sub("]()", readme).strip()


def test_the_changelog_has_a_section_for_the_version():
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(corefbias.__version__)}$", changelog, re.MULTILINE)
    assert "## Unreleased\n" in changelog


def test_bump_version_sets_the_one_version_and_opens_its_changelog_section(tmp_path):
    bump = runpy.run_path(str(REPO / "scripts" / "bump_version.py"))["bump"]
    (tmp_path / "src" / "corefbias").mkdir(parents=True)
    init = tmp_path / "src" / "corefbias" / "__init__.py"
    init.write_text('"""corefbias."""\n\n__version__ = "0.1.0"\n')
    (tmp_path / "CHANGELOG.md").write_text("# Changelog\n\n## Unreleased\n\n- a fix\n\n## 0.1.0\n\nFirst.\n")
    assert bump("0.2.0rc1", tmp_path) == "0.1.0"
    assert init.read_text() == '"""corefbias."""\n\n__version__ = "0.2.0rc1"\n'
    assert (tmp_path / "CHANGELOG.md").read_text() == (
        "# Changelog\n\n## Unreleased\n\n## 0.2.0rc1\n\n- a fix\n\n## 0.1.0\n\nFirst.\n"
    )
    for version, problem in [("0.2.0rc1", "already at"), ("0.1.0", "already has a section"), ("2.0", "not a version")]:
        with pytest.raises(ValueError, match=problem):
            bump(version, tmp_path)
