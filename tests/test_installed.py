"""corefbias as a user gets it: installed from its wheel into a fresh virtualenv, run from a folder outside
the repository. The main job on every benchmark, the exports and ``load_dataset`` on one, each metric module
copied out of the repository as ``evaluate`` downloads it from the Hub, errors a user can cause, and the
published main Space installed from its staged requirements.txt and driven with gradio_client."""

import json
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from installed import REPO, run_in, user_env
from loopback import free_port
from metric_harness import assert_same_results, load

from corefbias.benchmarks.registry import BENCHMARKS as REGISTERED
from corefbias.hub import publish

pytestmark = pytest.mark.slow

METRICS = publish.metric_names(REPO / "metrics")
SETS = sorted(path.parent.name for path in (REPO / "src/corefbias/benchmarks").glob("*/builder.py"))
# The wheel in a fresh virtualenv declares the built-in benchmarks only (no entry points of this checkout's venv).
BENCHMARKS = [name for name in REGISTERED if REGISTERED.origin(name) == "built-in"]
# Units kept per design cell of each benchmark by the main job's --limit (balanced: both genders, pro and anti).
LIMIT = 5


@pytest.fixture(scope="module")
def user_exports(user_venv, mirror, tmp_path_factory):
    """``corefbias export-datasets`` of every set, run from a folder outside the checkout."""
    folder = tmp_path_factory.mktemp("user-folder")
    started = time.perf_counter()
    done = run_in(user_venv, ["corefbias", "--mirror", mirror, "export-datasets", "--out", "sets"], cwd=folder)
    print(f"export-datasets of {len(SETS)} sets from the installed wheel: {time.perf_counter() - started:.1f} s")
    return SimpleNamespace(folder=folder, sets=folder / "sets", printed=done.stdout.split())


def test_the_installed_package_is_the_wheel_not_this_checkout(user_venv, tmp_path):
    done = run_in(user_venv, ["python", "-c", "import corefbias; print(corefbias.__file__)"], cwd=tmp_path)
    location = Path(done.stdout.strip())
    assert location.is_relative_to(user_venv.root / "venv") and not location.is_relative_to(REPO)


def test_export_datasets_builds_every_set_from_the_installed_builders(user_exports):
    assert user_exports.printed == [str(Path("sets") / name) for name in SETS]
    datasets_read = sorted({REGISTERED[name].dataset for name in BENCHMARKS})
    assert sorted(path.name for path in user_exports.sets.iterdir()) == SETS == datasets_read
    for name in SETS:
        folder = user_exports.sets / name
        assert (folder / "README.md").is_file() and list(folder.rglob("*.parquet"))


def test_load_dataset_reads_an_export_of_the_installed_package(user_venv, user_exports):
    script = """
import datasets
loaded = datasets.load_dataset("sets/winogender", cache_dir="hf-datasets")
(split,) = loaded.values()
print(len(split), split[0]["pronoun_gender"] in {"male", "female", "neutral"}, sorted(split[0]["pronoun"]))
"""
    done = run_in(user_venv, ["python", "-c", script], cwd=user_exports.folder)
    assert done.stdout.split("\n")[-2] == "720 True ['end', 'start', 'text']"  # Rudinger et al. 2018: 720 sentences


def test_the_main_job_runs_every_benchmark_from_the_installed_wheel(user_venv, user_exports, mirror):
    started = time.perf_counter()
    run_in(user_venv, ["corefbias", "--mirror", mirror, "run", "--model", "baseline:stereotype", "--benchmark", "all",
                       "--data-dir", "sets", "--limit", LIMIT, "--n-bootstrap", 200, "--out", "results"],
           cwd=user_exports.folder)  # fmt: skip
    print(f"run on every benchmark (--limit {LIMIT}) from the installed wheel: {time.perf_counter() - started:.1f} s")
    out = user_exports.folder / "results"
    results = json.loads((out / "results.json").read_text())
    assert sorted(results["benchmarks"]) == sorted(BENCHMARKS)
    for name, outcome in results["benchmarks"].items():
        assert "error" not in outcome, (name, outcome)
        assert outcome["sections"], name
        assert (out / "instances" / f"{name}.jsonl").read_text().splitlines(), name
    assert {path.name for path in (out / "instances").iterdir()} == {f"{name}.jsonl" for name in BENCHMARKS}
    assert list((out / "plots").glob("*.png")) and (out / "report.md").is_file() and (out / "summary.csv").is_file()


@pytest.fixture
def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _corrupt_mirror(root: Path) -> Path:
    """A mirror holding every Winogender upstream file, each with the wrong bytes: fails offline, no download."""
    registry = json.loads((REPO / "src/corefbias/benchmarks/winogender/upstream.json").read_text())
    for path in registry["winogender"]["files"]:
        (root / "winogender" / path).parent.mkdir(parents=True, exist_ok=True)
        (root / "winogender" / path).write_text("not the upstream file\n")
    return root


@pytest.mark.parametrize(
    "case",
    ["missing builder", "corrupt upstream file", "bad spec", "unknown benchmark", "unreachable URL"],
)
def test_errors_a_user_can_cause_print_one_line_without_a_traceback(user_venv, tmp_path, mirror, closed_port, case):
    # Every command here fails before it would reach the network (a mirror file that is missing would be
    # downloaded from its upstream repository: the corrupt copy fails its checksum instead).
    corrupt = _corrupt_mirror(tmp_path / "corrupt-mirror")
    winogender = ["--benchmark", "winogender", "--data-dir", "sets", "--mirror", mirror]
    command, expected = {
        "missing builder": (["export-datasets", "nosuchset", "--out", "sets"], "no builder for 'nosuchset'"),
        "corrupt upstream file": (["--mirror", corrupt, "export-datasets", "winogender", "--out", "sets"],
                                  "checksum mismatch for winogender/"),
        "bad spec": (["run", "--model", "nosuchkind:x", *winogender], "nosuchkind"),
        "unknown benchmark": (["run", "--model", "baseline:oracle", "--benchmark", "nosuchbenchmark"],
                              "nosuchbenchmark"),
        "unreachable URL": (["run", "--model", f"http://127.0.0.1:{closed_port}", *winogender],
                            f"127.0.0.1:{closed_port}"),
    }[case]  # fmt: skip
    done = run_in(user_venv, ["corefbias", *command], cwd=tmp_path, check=False)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    # Progress bars may precede it on stderr; the error itself is the one last line.
    errors = [line for line in done.stderr.splitlines() if line.startswith("corefbias")]
    assert len(errors) == 1 and done.stderr.rstrip().endswith(errors[0]) and expected in errors[0], done.stderr


def test_each_metric_module_loads_and_computes_from_a_copy_outside_the_repository(user_venv, tmp_path):
    """What ``evaluate.load("<org>/<name>")`` does on a stranger's machine: the module's folder, downloaded
    from the Hub into a cache, imports corefbias from the installed package."""
    hub = tmp_path / "hub"
    for name in METRICS:
        shutil.copytree(REPO / "metrics" / name, hub / name)
    script = f"""
import json, evaluate
from corefbias.hub import metric_widget
results = {{}}
for name in {METRICS!r}:
    module = evaluate.load({str(hub)!r} + "/" + name)
    rows = type(module).WIDGET_EXAMPLE
    results[name] = module.compute(**metric_widget.rows_to_inputs(module.features, rows), n_bootstrap=0, seed=0)
print(json.dumps(results))
"""
    env = user_env(tmp_path, HF_MODULES_CACHE=str(tmp_path / "modules"))
    done = run_in(user_venv, ["python", "-c", script], cwd=tmp_path, env=env)
    installed = json.loads(done.stdout.splitlines()[-1])
    assert METRICS and sorted(installed) == METRICS
    for name in METRICS:
        module = load(name)
        expected = module.compute(**_widget_inputs(module), n_bootstrap=0, seed=0)
        assert_same_results(installed[name], json.loads(json.dumps(expected)))
    assert installed["counter_gap_delta_i"]["delta_i"] == 0.5


def _widget_inputs(module) -> dict:
    from corefbias.hub import metric_widget

    return metric_widget.rows_to_inputs(module.features, type(module).WIDGET_EXAMPLE)


# --- the published main Space, installed the way the Hub builds it ---------------------------------------


@pytest.fixture(scope="module")
def installed_space(tmp_path_factory, mirror):
    """The staged main Space installed from its requirements.txt alone into a fresh virtualenv (its wheel
    served on loopback where the Hub would serve it), then started as the Space starts it: ``python app.py``."""
    import http.server

    from test_publish import NAMESPACE, _HubFiles

    from corefbias.hub import publish

    root = tmp_path_factory.mktemp("space-install")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _HubFiles)
    server.root = root / "staged"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    app = None
    try:
        endpoint = f"http://127.0.0.1:{server.server_port}"
        (repo,) = publish.stage(NAMESPACE, server.root, repo=REPO, parts=("space",), endpoint=endpoint).repos
        build = root / "build"  # a Space's build sees requirements.txt alone
        build.mkdir()
        # PyTorch's CPU index is no registry this machine reaches; its torch+cpu wheel is in the local registry.
        staged = (repo.folder / "requirements.txt").read_text().splitlines()
        reachable = [line for line in staged if not line.startswith("--extra-index-url https://download.pytorch.org")]
        assert len(reachable) == len(staged) - 1, "the staged requirements name PyTorch's CPU index once"
        (build / "requirements.txt").write_text("\n".join(reachable) + "\n")
        subprocess.run([sys.executable, "-m", "venv", root / "venv"], check=True)
        started = time.perf_counter()
        installed = subprocess.run(
            [root / "venv/bin/python", "-m", "pip", "install", "--quiet", "--no-compile",
             "--disable-pip-version-check", "--report", root / "install-report.json",
             "-r", "requirements.txt"], cwd=build, capture_output=True, text=True,
        )  # fmt: skip
        assert installed.returncode == 0, installed.stderr
        print(f"Space requirements installed in {time.perf_counter() - started:.1f} s")
        checkout = root / "app"  # a Space's files live in its own folder, here outside the repository
        shutil.copytree(repo.folder, checkout)
        port = free_port()
        env = user_env(root, GRADIO_SERVER_PORT=str(port), COREFBIAS_SPACE_DATA=str(root / "space_data"),
                       COREFBIAS_MIRROR=str(mirror), GRADIO_TEMP_DIR=str(root / "gradio"))  # fmt: skip
        log = open(root / "app.log", "w")
        app = subprocess.Popen([root / "venv/bin/python", "app.py"], cwd=checkout, env=env, stdout=log, stderr=log)
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 120
        while not _answers(url):
            assert app.poll() is None and time.monotonic() < deadline, (root / "app.log").read_text()[-3000:]
            time.sleep(0.5)
        yield SimpleNamespace(
            url=url, root=root, python=root / "venv/bin/python", wheel=repo.folder, requirements=staged,
            report=json.loads((root / "install-report.json").read_text())["install"],
        )  # fmt: skip
    finally:
        if app is not None:
            app.terminate()
            app.wait(timeout=30)
        server.shutdown()
        server.server_close()


def _answers(url: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except OSError:
        return False


def test_the_space_installs_cpu_torch_and_the_model_libraries_from_the_registries(installed_space):
    """What the Space's build installed from its requirements (``pip install --report``): CPU torch from PyTorch's
    index (the local registry stands in for it here), the model libraries of its extras, and the Gradio its card
    names."""
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in installed_space.requirements
    assert any(re.fullmatch(r"torch==[\d.]+\+cpu", line) for line in installed_space.requirements)
    install = {item["metadata"]["name"].lower(): item for item in installed_space.report}
    versions = {name: item["metadata"]["version"] for name, item in install.items()}
    assert sorted(install["corefbias"]["requested_extras"]) == ["fastcoref", "maverick", "space"]
    assert {"fastcoref", "maverick-coref", "transformers", "authlib", "itsdangerous"} <= set(versions)
    assert versions["torch"].endswith("+cpu") and not [name for name in versions if name.startswith("nvidia-")]
    assert tuple(int(part) for part in versions["transformers"].split(".")[:2]) < (4, 46)
    readme = (installed_space.wheel / "README.md").read_text()
    assert f'sdk_version: "{versions["gradio"]}"' in readme and "hf_oauth: true" in readme


def test_the_space_installed_from_its_requirements_runs_a_benchmark(installed_space, tmp_path):
    gradio_client = pytest.importorskip("gradio_client")

    located = subprocess.run([installed_space.python, "-c", "import corefbias; print(corefbias.__file__)"],
                             capture_output=True, text=True, cwd=tmp_path, env=user_env(tmp_path))  # fmt: skip
    assert Path(located.stdout.strip()).is_relative_to(installed_space.root / "venv")
    client = gradio_client.Client(installed_space.url, verbose=False, download_files=str(tmp_path))
    status, summary, *_plots, files = client.predict("baseline:stereotype", ["winogender"], 40, 200, 3, api_name="/run")
    downloaded = {Path(path).name: Path(path) for path in files}
    results = json.loads(downloaded["results.json"].read_text())
    (outcome,) = results["benchmarks"].values()
    assert list(results["benchmarks"]) == ["winogender"] and outcome["sections"], status
