"""A benchmark and a model adapter declared outside the package, used as a researcher would: ``--include DIR``
and Python entry points, through ``run``, ``score``, ``compare``, ``list`` and the Space.

Each command runs in its own process, as a user's would, so the toy declarations never join the registry of
the test process (whose other tests iterate over the built-in benchmarks).
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TOY = Path(__file__).with_name("toy_extension")
# The toy model links the first mention: right on 4 of 4 pro and 1 of 4 anti sentences (toy_benchmark.py);
# toy:last on 0 of 4 and 3 of 4.
FIRST_DIFF, LAST_DIFF = 4 / 4 - 1 / 4, 0 / 4 - 3 / 4


def corefbias(*args, env=None, check=True) -> subprocess.CompletedProcess:
    command = [sys.executable, "-c", "import sys; from corefbias.cli import main; sys.exit(main())", *args]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"corefbias {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


@pytest.fixture(scope="module")
def include(tmp_path_factory) -> Path:
    """The toy declarations, copied into a folder of their own, with the toy set's export beside them."""
    folder = tmp_path_factory.mktemp("include")
    for name in ("toy_benchmark.py", "toy_model.py"):
        shutil.copy(TOY / name, folder / name)
    script = "import sys; sys.path.insert(0, sys.argv[1]); import toy_benchmark, pathlib; "
    script += "toy_benchmark.make_export(pathlib.Path(sys.argv[1]) / 'toy_export')"
    subprocess.run([sys.executable, "-c", script, str(folder)], check=True, timeout=120)
    return folder


@pytest.fixture(scope="module")
def toy_runs(include, tmp_path_factory) -> dict[str, Path]:
    """``corefbias --include DIR run`` of toy:first and toy:last on the toy benchmark."""
    root = tmp_path_factory.mktemp("runs")
    runs = {}
    for rule in ("first", "last"):
        runs[rule] = root / rule
        corefbias(
            "--include", str(include), "run", "--model", f"toy:{rule}", "--benchmark", "toy_pro_anti",
            "--n-bootstrap", "200", "--out", str(runs[rule]), "--cache", str(root / "cache.sqlite"),
            "--data-dir", str(root / "data"),
        )  # fmt: skip
    return runs


def _scores(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))["benchmarks"]["toy_pro_anti"]


def test_run_scores_the_toy_benchmark_as_computed_by_hand(toy_runs):
    for rule, diff in (("first", FIRST_DIFF), ("last", LAST_DIFF)):
        outcome = _scores(toy_runs[rule])
        section = outcome["sections"]["toy_pro_anti"]
        assert section["diff"] == pytest.approx(diff)
        assert outcome["num_instances"] == 8
        assert (toy_runs[rule] / "plots" / "pro_anti.png").is_file()  # the figure it declares
    report = (toy_runs["first"] / "report.md").read_text(encoding="utf-8")
    assert "accuracy pro − anti" in report


def test_score_gives_the_run_numbers_from_its_instances_file(include, toy_runs, tmp_path):
    instances = toy_runs["first"] / "instances" / "toy_pro_anti.jsonl"
    corefbias(
        "--include", str(include), "score", "--benchmark", "toy_pro_anti", "--predictions", str(instances),
        "--n-bootstrap", "200", "--out", str(tmp_path / "scored"),
    )  # fmt: skip
    scored = _scores(tmp_path / "scored")["sections"]["toy_pro_anti"]
    assert scored == _scores(toy_runs["first"])["sections"]["toy_pro_anti"]


def test_compare_tests_the_two_toy_models_paired(include, toy_runs, tmp_path):
    corefbias(
        "--include", str(include), "compare", str(toy_runs["first"]), str(toy_runs["last"]),
        "--n-resamples", "500", "--out", str(tmp_path / "compared"),
    )  # fmt: skip
    comparison = json.loads((tmp_path / "compared" / "comparison.json").read_text(encoding="utf-8"))
    (difference,) = comparison["comparisons"][0]["differences"]
    assert difference["benchmark"] == "toy_pro_anti"
    assert difference["difference"] == pytest.approx(FIRST_DIFF - LAST_DIFF)
    assert difference["num_units"] == 4


def test_list_shows_the_included_benchmark_and_model_kind(include):
    benchmarks = json.loads(corefbias("--include", str(include), "list", "benchmarks", "--json").stdout)
    assert "toy_pro_anti" in {entry["name"] for entry in benchmarks}
    models = json.loads(corefbias("--include", str(include), "list", "models", "--json").stdout)
    (toy,) = [entry for entry in models if entry["kind"] == "toy"]
    assert toy["example"] == "toy:first" and toy["extra"] is None and "toy_model.py" in toy["origin"]
    assert toy["flags"] == [] and toy["model_args"] == ["skip"]
    without = json.loads(corefbias("list", "benchmarks", "--json").stdout)
    assert "toy_pro_anti" not in {entry["name"] for entry in without}


@pytest.mark.slow
def test_the_included_kinds_declared_option_reaches_its_loader_and_others_are_refused_by_name(include, tmp_path):
    """``--model-arg skip=1``: toy:first passes over the first candidate, so it answers as toy:last does."""
    common = ["--benchmark", "toy_pro_anti", "--n-bootstrap", "0", "--data-dir", str(tmp_path / "data"), "--no-plots"]
    out = tmp_path / "skip"
    corefbias("--include", str(include), "run", "--model", "toy:first", "--model-arg", "skip=1", "--out", str(out),
              "--cache", str(tmp_path / "cache.sqlite"), *common)  # fmt: skip
    assert _scores(out)["sections"]["toy_pro_anti"]["diff"] == pytest.approx(LAST_DIFF)
    for given, message in [
        (["--model-arg", "skp=1"], "corefbias: --model-arg skp: toy models take no such key; its keys are skip"),
        (["--model-arg", "skip=one"], "corefbias: --model-arg skip: expected a whole number, got 'one'"),
        (["--device", "cpu"], "corefbias: --device is for fastcoref:, lingmess:, maverick:, spacy:, hf: models only"),
    ]:
        refused = corefbias("--include", str(include), "run", "--model", "toy:first", *given, *common, check=False)
        assert (refused.returncode, refused.stderr.strip()) == (2, message)


def test_an_include_folder_that_is_missing_or_broken_is_a_one_line_error(tmp_path):
    missing = corefbias("--include", str(tmp_path / "nowhere"), "list", "benchmarks", check=False)
    assert missing.returncode == 2 and "no such folder" in missing.stderr
    (tmp_path / "broken.py").write_text("raise RuntimeError('half-written declaration')\n", encoding="utf-8")
    broken = corefbias("--include", str(tmp_path), "list", "benchmarks", check=False)
    assert broken.returncode == 2 and "broken.py failed to import" in broken.stderr
    assert "Traceback" not in broken.stderr


@pytest.mark.slow
def test_entry_points_of_an_installed_package_add_the_benchmark_and_the_model(include, tmp_path):
    """A distribution (its dist-info on the path) declaring both entry points, with no --include."""
    package = tmp_path / "site"
    shutil.copytree(include, package / "toy_corefbias")
    (package / "toy_corefbias" / "__init__.py").write_text("", encoding="utf-8")
    info = package / "toy_corefbias-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-corefbias\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[corefbias.benchmarks]\ntoy_pro_anti = toy_corefbias.toy_benchmark:TOY_PRO_ANTI\n\n"
        "[corefbias.models]\ntoy = toy_corefbias.toy_model:TOY\n",
        encoding="utf-8",
    )
    env = {"PYTHONPATH": os.pathsep.join([str(package), os.environ.get("PYTHONPATH", "")])}
    listed = json.loads(corefbias("list", "benchmarks", "--json", env=env).stdout)
    assert "toy_pro_anti" in {entry["name"] for entry in listed}
    out = tmp_path / "run"
    corefbias(
        "run", "--model", "toy:first", "--benchmark", "toy_pro_anti", "--n-bootstrap", "0",
        "--out", str(out), "--cache", str(tmp_path / "cache.sqlite"), env=env,
    )  # fmt: skip
    assert _scores(out)["sections"]["toy_pro_anti"]["diff"] == pytest.approx(FIRST_DIFF)


SPACE_SCRIPT = textwrap.dedent(
    """
    import json
    from corefbias.space import charts, jobs
    from corefbias.space.settings import SpaceSettings
    from corefbias.space.store import RunStore
    from corefbias.space.ui import build_app

    settings = SpaceSettings.from_env()
    build_app(settings)
    job = jobs.run_job(settings, RunStore(settings.data_root), "toy:first", ["toy_pro_anti"], n_bootstrap=100)
    section = job.result.runs["toy_pro_anti"].sections["toy_pro_anti"]
    frame = charts.pro_anti_frame(job.result)
    cases = RunStore(settings.data_root).explore_cases(job.run_id)
    print(json.dumps({
        "diff": section["diff"],
        "bars": frame["bar"].tolist(),
        "cases": cases["toy_pro_anti"]["total"],
        "summary": charts.summary_frame(job.result.record())["benchmark"].tolist(),
    }))
    """
)


@pytest.mark.slow
def test_the_space_runs_the_toy_model_on_the_toy_benchmark(include, tmp_path):
    env = {"COREFBIAS_INCLUDE": str(include), "COREFBIAS_SPACE_DATA": str(tmp_path / "space")}
    done = subprocess.run(
        [sys.executable, "-c", SPACE_SCRIPT], capture_output=True, text=True, env={**os.environ, **env}, timeout=300
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["diff"] == pytest.approx(FIRST_DIFF)
    assert shown["bars"] == ["toy_pro_anti pro", "toy_pro_anti anti"]
    # Pairs right in one version only: pairs 0-2 (pro right, anti wrong); pair 3 is right in both.
    assert shown["cases"] == 3
    assert set(shown["summary"]) == {"toy_pro_anti"}
