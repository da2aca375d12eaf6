"""A benchmark is one folder: a copy of a set's folder under a new name, in a copy of the package, is a new
benchmark everywhere — ``list``, ``export-datasets``, ``run``, ``score`` and the Space — with no edit outside it."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from corefbias.benchmarks import BENCHMARKS

REPO = Path(__file__).resolve().parents[1]
ORIGINAL, COPY = "winogender", "winogender_copy"


@pytest.fixture(scope="module")
def package_with_a_copied_set(tmp_path_factory) -> Path:
    """``<tmp>/corefbias``: the package as it is, plus ``benchmarks/winogender_copy``, a copy of Winogender's folder
    whose declaration names the copy. It reads Winogender's upstream files, so it pins none and cites by key."""
    root = tmp_path_factory.mktemp("package")
    shutil.copytree(REPO / "src" / "corefbias", root / "corefbias", ignore=shutil.ignore_patterns("__pycache__"))
    folder = root / "corefbias" / "benchmarks" / COPY
    shutil.copytree(root / "corefbias" / "benchmarks" / ORIGINAL, folder)
    (folder / "upstream.json").unlink()  # Winogender's source is pinned once, by Winogender's folder
    (folder / "citation.bib").unlink()  # its BibTeX key likewise
    declaration = folder / "benchmark.py"
    source = declaration.read_text(encoding="utf-8")
    for field in ("name", "dataset"):
        assert f'{field}="{ORIGINAL}"' in source
        source = source.replace(f'{field}="{ORIGINAL}"', f'{field}="{COPY}"')
    declaration.write_text(source, encoding="utf-8")
    return root


def corefbias(package: Path, *args, check=True) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(package), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "corefbias", *args], capture_output=True, text=True, env=env, timeout=600
    )
    assert not check or done.returncode == 0, done.stderr
    return done


def test_the_copied_folder_is_a_benchmark_of_the_copied_package_only(package_with_a_copied_set):
    listed = json.loads(corefbias(package_with_a_copied_set, "list", "benchmarks", "--json").stdout)
    names = [entry["name"] for entry in listed]
    assert COPY in names and ORIGINAL in names
    assert COPY not in BENCHMARKS  # the package under test is untouched


@pytest.mark.slow
def test_export_run_score_and_the_space_treat_the_copy_as_the_original(package_with_a_copied_set, mirror, tmp_path):
    package = package_with_a_copied_set
    corefbias(package, "export-datasets", COPY, "--out", str(tmp_path / "sets"), "--mirror", str(mirror))
    assert (tmp_path / "sets" / COPY / "README.md").is_file()
    scores = {}
    for name in (ORIGINAL, COPY):
        out = tmp_path / f"run-{name}"
        corefbias(
            package, "run", "--model", "baseline:stereotype", "--benchmark", name,
            "--n-bootstrap", "200", "--data-dir", str(tmp_path / "sets"), "--mirror", str(mirror),
            "--cache", str(tmp_path / "cache.sqlite"), "--out", str(out), "--no-plots",
        )  # fmt: skip
        results = json.loads((out / "results.json").read_text(encoding="utf-8"))
        scores[name] = results["benchmarks"][name]["sections"]
    # The same set, instances and scorer: every number of the copy is the original's.
    assert scores[COPY] == scores[ORIGINAL]
    instances = sorted((tmp_path / f"run-{COPY}" / "instances").glob("*.jsonl"))
    rescored = tmp_path / "scored"
    corefbias(
        package, "score", "--benchmark", COPY, "--format", "instances", "--predictions", *map(str, instances),
        "--n-bootstrap", "200", "--data-dir", str(tmp_path / "sets"), "--out", str(rescored), "--no-plots",
    )  # fmt: skip
    rescored_sections = json.loads((rescored / "results.json").read_text(encoding="utf-8"))["benchmarks"][COPY]
    assert rescored_sections["sections"] == scores[COPY]
    space = textwrap.dedent(
        """
        import json
        from corefbias.space import inputs
        print(json.dumps({"choices": [name for _, name in inputs.benchmark_choices()],
                          "ticked": inputs.default_benchmarks()}))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(package)}
    shown = json.loads(subprocess.run([sys.executable, "-c", space], capture_output=True, text=True, env=env,
                                      check=True, timeout=300).stdout)  # fmt: skip
    assert COPY in shown["choices"] and COPY in shown["ticked"]  # declared space_default, as Winogender is
