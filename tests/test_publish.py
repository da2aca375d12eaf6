"""``corefbias publish``: the staged folders work the way the Hub uses them, and the upload calls.

No network: the Hub's file URLs are served from the staged folders on loopback, and HfApi is a fake.
"""

import hashlib
import http.server
import json
import os
import re
import runpy
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from huggingface_hub import constants
from metric_harness import REPO, assert_same_results, load

from corefbias import cli
from corefbias.hub import metric_widget, publish

NAMESPACE = "corefbias-test"
METRICS = sorted(path.parent.name for path in (REPO / "metrics").glob("*/*.py") if path.stem == path.parent.name)
SPACE_FILES = {"app.py", "README.md", "requirements.txt"}


class _HubFiles(http.server.BaseHTTPRequestHandler):
    """Serves ``<root>/spaces/<name>/<file>`` at the Hub's ``/spaces/<namespace>/<name>/resolve/main/<file>``."""

    def do_GET(self):
        match = re.fullmatch(rf"/spaces/{NAMESPACE}/([\w.-]+)/resolve/main/([\w.+-]+)", self.path)
        path = self.server.root / "spaces" / match[1] / match[2] if match else None
        if path is None or not path.is_file():
            self.send_error(404)
            return
        body = path.read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _write_main_space(folder: Path) -> Path:
    """A main Space folder as spaces/corefbias will be, with the clutter a local run leaves behind."""
    for name, text in {
        "app.py": "import corefbias\n",
        "README.md": "---\nsdk: gradio\napp_file: app.py\n---\n",
        "requirements.txt": "gradio>=6\ncorefbias[space]>=0.1\n",
        "assets/logo.svg": "<svg/>",
        "__pycache__/app.cpython-311.pyc": "",
        ".gradio/flagged/log.csv": "",
    }.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


@pytest.fixture(scope="module")
def staged_spaces(tmp_path_factory):
    """``stage`` of every Space, with a loopback server standing in for the Hub's file URLs."""
    root = tmp_path_factory.mktemp("publish")
    main = _write_main_space(tmp_path_factory.mktemp("main-space"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _HubFiles)
    server.root = root
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{server.server_port}"
    try:
        staging = publish.stage(
            NAMESPACE, root, repo=REPO, parts=("metrics", "space"), endpoint=endpoint, main_space_dir=main
        )
        wheel = next((root / "spaces" / METRICS[0]).glob("corefbias-*.whl"))
        yield SimpleNamespace(root=root, staging=staging, endpoint=endpoint, wheel=wheel)
    finally:
        server.shutdown()


@pytest.fixture(scope="module")
def staged_datasets(mirror, tmp_path_factory):
    root = tmp_path_factory.mktemp("publish-datasets")
    staging = publish.publish(NAMESPACE, dry_run=root, parts=("datasets",), dataset_names=["winogender"], mirror=mirror)
    return SimpleNamespace(root=root, staging=staging)


class FakeHfApi:
    """Records what ``publish`` asks of the Hub, and what each uploaded folder held at that moment."""

    def __init__(self, token=None):
        self.token = token
        self.created = []
        self.uploaded = []

    def create_repo(self, repo_id, **options):
        self.created.append((repo_id, options))

    def upload_folder(self, *, folder_path, **options):
        files = {name: (Path(folder_path) / name).read_bytes() for name in _files(Path(folder_path))}
        self.uploaded.append((options, files))


def _pip(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "pip", "--isolated", "--disable-pip-version-check", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


def _files(folder: Path) -> set[str]:
    return {path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()}


@pytest.mark.slow
def test_each_metric_module_and_the_main_space_are_staged_carrying_the_wheel(staged_spaces):
    assert [(repo.repo_id, repo.repo_type) for repo in staged_spaces.staging.repos] == [
        (f"{NAMESPACE}/{name}", "space") for name in [*METRICS, "corefbias"]
    ]
    for name in METRICS:
        folder = staged_spaces.root / "spaces" / name
        assert _files(folder) == SPACE_FILES | {f"{name}.py", staged_spaces.wheel.name}
        assert (folder / f"{name}.py").read_bytes() == (REPO / "metrics" / name / f"{name}.py").read_bytes()
        assert (folder / staged_spaces.wheel.name).read_bytes() == staged_spaces.wheel.read_bytes()
    main = staged_spaces.root / "spaces" / "corefbias"
    cards = {f"metric_cards/{name}/README.md" for name in METRICS}
    assert _files(main) == SPACE_FILES | {"assets/logo.svg", staged_spaces.wheel.name} | cards
    for name in METRICS:
        card = (REPO / "metrics" / name / "README.md").read_bytes()
        assert (main / "metric_cards" / name / "README.md").read_bytes() == card
    assert (main / "requirements.txt").read_text().splitlines()[0] == "gradio>=6"


def test_a_missing_main_space_is_skipped_with_a_message(tmp_path):
    missing = tmp_path / "spaces" / "corefbias"
    staging = publish.stage(NAMESPACE, tmp_path / "out", repo=REPO, parts=("space",), main_space_dir=missing)
    assert (staging.repos, staging.skipped) == ([], [f"main Space skipped: {missing} does not exist"])


@pytest.mark.slow
def test_the_real_main_space_stages(staged_spaces, tmp_path, monkeypatch):
    main = REPO / "spaces" / "corefbias"
    assert (main / "app.py").is_file(), f"{main} lost its app.py"
    monkeypatch.setattr(publish, "build_wheel", lambda out_dir, _: Path(shutil.copy2(staged_spaces.wheel, out_dir)))
    (repo,) = publish.stage(NAMESPACE, tmp_path, repo=REPO, parts=("space",)).repos
    assert repo.repo_id == f"{NAMESPACE}/corefbias"
    cards = {f"metric_cards/{name}/README.md" for name in METRICS}
    assert SPACE_FILES | {staged_spaces.wheel.name} | cards <= _files(repo.folder)
    digest = hashlib.sha256(staged_spaces.wheel.read_bytes()).hexdigest()
    url = f"{constants.ENDPOINT}/spaces/{NAMESPACE}/corefbias/resolve/main/{staged_spaces.wheel.name}#sha256={digest}"
    ours = [
        line for line in (repo.folder / "requirements.txt").read_text().splitlines() if line.startswith("corefbias")
    ]
    assert ours and all(re.fullmatch(rf"corefbias(\[[\w,]+\])? @ {re.escape(url)}", line) for line in ours)


@pytest.mark.slow
def test_the_wheel_ships_every_file_of_the_package(staged_spaces):
    source = REPO / "src" / "corefbias"
    package_files = {
        path.relative_to(source.parent).as_posix()
        for path in source.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    with zipfile.ZipFile(staged_spaces.wheel) as wheel:
        shipped = {name for name in wheel.namelist() if name.startswith("corefbias/")}
        metadata = wheel.read(next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    assert shipped == package_files
    assert re.search(r"^Requires-Dist: gradio.*extra == \"space\"$", metadata, re.MULTILINE)


@pytest.mark.slow
def test_staged_modules_compute_with_corefbias_from_the_staged_wheel(staged_spaces, tmp_path):
    site = tmp_path / "site"
    installed = _pip(
        "install", "--no-deps", "--no-index", "--quiet", "--target", str(site), str(staged_spaces.wheel), cwd=tmp_path
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    # A fresh interpreter that finds corefbias in the wheel's files, not in this checkout.
    script = f"""
import json, sys, evaluate, corefbias
from corefbias.hub import metric_widget
assert corefbias.__file__.startswith({str(site)!r}), corefbias.__file__
results = {{}}
for name in {METRICS!r}:
    module = evaluate.load({str(staged_spaces.root / "spaces")!r} + "/" + name)
    rows = type(module).WIDGET_EXAMPLE
    results[name] = module.compute(**metric_widget.rows_to_inputs(module.features, rows), n_bootstrap=0, seed=0)
print(json.dumps(results))
"""
    env = {**os.environ, "PYTHONPATH": str(site), "HF_MODULES_CACHE": str(tmp_path / "modules"), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    staged_results = json.loads(done.stdout.splitlines()[-1])
    for name in METRICS:
        module = load(name)
        rows = type(module).WIDGET_EXAMPLE
        expected = module.compute(**metric_widget.rows_to_inputs(module.features, rows), n_bootstrap=0, seed=0)
        assert_same_results(staged_results[name], json.loads(json.dumps(expected)))
    assert staged_results["counter_gap_delta_i"]["delta_i"] == 0.5


def _space_build_plan(requirements: Path, build: Path) -> list[dict]:
    """What pip would install from ``requirements`` as a Space build runs it: the file alone in an
    empty folder. Offline: every other requirement must already be satisfied by this environment."""
    build.mkdir()
    shutil.copy2(requirements, build / "requirements.txt")
    planned = _pip(
        "install", "--dry-run", "--no-index", "--quiet", "--report", "report.json", "-r", "requirements.txt", cwd=build
    )  # fmt: skip
    assert planned.returncode == 0, planned.stderr
    return json.loads((build / "report.json").read_text())["install"]


# The main Space in the quick tier, a metric's in the slow one (their requirements name the wheel alike).
@pytest.mark.parametrize("name", [pytest.param(METRICS[0], marks=pytest.mark.slow), "corefbias"])
def test_a_space_build_installs_corefbias_from_the_staged_wheel(staged_spaces, tmp_path, name):
    (install,) = _space_build_plan(staged_spaces.root / "spaces" / name / "requirements.txt", tmp_path / "build")
    assert (install["metadata"]["name"], install["metadata"]["version"]) == ("corefbias", publish.__version__)
    assert install["requested_extras"] == ["space"]
    wheel = staged_spaces.wheel.name
    assert install["download_info"]["url"] == f"{staged_spaces.endpoint}/spaces/{NAMESPACE}/{name}/resolve/main/{wheel}"
    digest = hashlib.sha256(staged_spaces.wheel.read_bytes()).hexdigest()
    assert install["download_info"]["archive_info"]["hashes"] == {"sha256": digest}


def test_every_metric_space_names_the_wheel_in_its_own_repository(staged_spaces):
    first = (staged_spaces.root / "spaces" / METRICS[0] / "requirements.txt").read_text()
    for name in METRICS:
        text = (staged_spaces.root / "spaces" / name / "requirements.txt").read_text()
        assert text == first.replace(f"/{NAMESPACE}/{METRICS[0]}/", f"/{NAMESPACE}/{name}/")


@pytest.fixture
def fake_wheel(tmp_path):
    wheel = tmp_path / "corefbias-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"not really a wheel")
    return wheel


def test_requirements_keep_extras_markers_and_other_lines(fake_wheel):
    digest = hashlib.sha256(b"not really a wheel").hexdigest()
    text = "# the Space\nnumpy>=1.24\ncorefbias[space,gap]>=0.1 ; python_version >= '3.10'  # ours\n--prefer-binary\n"
    assert publish.requirements_with_wheel(text, fake_wheel, "https://hub/w.whl").splitlines() == [
        "# the Space",
        "numpy>=1.24",
        f'corefbias[gap,space] @ https://hub/w.whl#sha256={digest} ; python_version >= "3.10"',
        "--prefer-binary",
    ]


def test_requirements_the_wheel_cannot_satisfy_are_rejected(fake_wheel):
    with pytest.raises(ValueError, match=r"'corefbias>=0.2' does not accept the wheel's version 0.1.0"):
        publish.requirements_with_wheel("corefbias>=0.2\n", fake_wheel, "https://hub/w.whl")
    with pytest.raises(ValueError, match="does not require corefbias; add a line such as"):
        publish.requirements_with_wheel("gradio>=6\n", fake_wheel, "https://hub/w.whl")


def test_an_invalid_namespace_is_rejected_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="namespace 'my org' gives an invalid repository id"):
        publish.stage("my org", tmp_path, repo=REPO, parts=("metrics",))
    assert not any(tmp_path.iterdir())


def test_staged_dataset_loads_as_the_hub_will_serve_it(staged_datasets):
    import datasets

    (repo,) = staged_datasets.staging.repos
    assert (repo.repo_id, repo.repo_type, repo.folder) == (
        f"{NAMESPACE}/winogender",
        "dataset",
        staged_datasets.root / "datasets" / "winogender",
    )
    loaded = datasets.load_dataset(str(repo.folder), cache_dir=str(staged_datasets.root / "cache"))
    assert sum(len(split) for split in loaded.values()) == 720  # Rudinger et al. 2018: 720 sentences


def test_upload_creates_each_repository_test_sets_first_and_mirrors_its_folder(staged_spaces, staged_datasets):
    api = FakeHfApi()
    publish.upload(staged_spaces.staging.repos + staged_datasets.staging.repos, api)
    space = {"repo_type": "space", "exist_ok": True, "space_sdk": "gradio"}
    assert api.created == [(f"{NAMESPACE}/winogender", {"repo_type": "dataset", "exist_ok": True})] + [
        (f"{NAMESPACE}/{name}", space) for name in [*METRICS, "corefbias"]
    ]
    (options, files), *_ = api.uploaded
    assert {key: value for key, value in options.items() if key != "commit_message"} == {
        "repo_id": f"{NAMESPACE}/winogender",
        "repo_type": "dataset",
        "delete_patterns": "*",
    }
    assert files.keys() == _files(staged_datasets.root / "datasets" / "winogender")
    assert [options["repo_type"] for options, _ in api.uploaded] == ["dataset"] + ["space"] * (len(METRICS) + 1)


def test_cli_publishes_the_metric_spaces_with_the_token_from_the_environment(staged_spaces, monkeypatch, capsys):
    import huggingface_hub

    apis = []

    def logged_in_api(token):
        apis.append(FakeHfApi(token))
        return apis[-1]

    monkeypatch.setattr(huggingface_hub, "HfApi", logged_in_api)
    monkeypatch.setattr(publish, "build_wheel", lambda out_dir, _: Path(shutil.copy2(staged_spaces.wheel, out_dir)))
    secret = "hf_never_printed_0123456789"
    monkeypatch.setenv("HF_TOKEN", secret)

    assert cli.main(["publish", "--namespace", NAMESPACE, "--only", "metrics", "--repo", str(REPO), "--wheel"]) == 0
    printed = capsys.readouterr()
    assert secret not in printed.out + printed.err
    (api,) = apis
    assert api.token == secret
    assert api.created == [
        (f"{NAMESPACE}/{name}", {"repo_type": "space", "exist_ok": True, "space_sdk": "gradio"}) for name in METRICS
    ]
    for name, (options, files) in zip(METRICS, api.uploaded):
        assert (options["repo_id"], options["repo_type"]) == (f"{NAMESPACE}/{name}", "space")
        assert set(files) == SPACE_FILES | {f"{name}.py", staged_spaces.wheel.name}
        url = f"{constants.ENDPOINT}/spaces/{NAMESPACE}/{name}/resolve/main/{staged_spaces.wheel.name}"
        assert f"corefbias[space] @ {url}#sha256=".encode() in files["requirements.txt"]
    assert printed.out.splitlines() == [f"space {NAMESPACE}/{name}: published" for name in METRICS]


def test_cli_refuses_to_upload_without_a_token(monkeypatch, capsys):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    assert cli.main(["publish", "--namespace", NAMESPACE, "--only", "metrics"]) == 2
    assert "set HF_TOKEN to a Hugging Face access token" in capsys.readouterr().err


@pytest.mark.parametrize("name", METRICS)
def test_staged_app_starts_from_the_folder_a_space_runs_in(staged_spaces, tmp_path, monkeypatch, name):
    import gradio

    launched = []
    monkeypatch.setattr(gradio.Blocks, "launch", lambda page, **options: launched.append(page.title))
    checkout = tmp_path / "app"  # a Space's files live in /home/user/app
    shutil.copytree(staged_spaces.root / "spaces" / name, checkout)
    monkeypatch.chdir(checkout)
    runpy.run_path(str(checkout / "app.py"), run_name="__main__")
    assert launched == [name]


def test_requirements_name_the_released_version_keeping_extras_and_markers():
    text = "gradio>=6\ncorefbias[space,gap]>=0.1 ; python_version >= '3.10'  # ours\n"
    assert publish.requirements_with_release(text, "0.3.1").splitlines() == [
        "gradio>=6",
        'corefbias[gap,space]==0.3.1 ; python_version >= "3.10"',
    ]
    with pytest.raises(ValueError, match=r"'corefbias<0.3' does not accept the released version 0.3.1"):
        publish.requirements_with_release("corefbias<0.3\n", "0.3.1")


class _PyPI(http.server.BaseHTTPRequestHandler):
    """PyPI's JSON API for a project whose only release is 0.1.0; /broken/ answers 500."""

    def do_GET(self):
        self.send_response(
            500 if self.path.startswith("/broken/") else 200 if self.path == "/pypi/corefbias/0.1.0/json" else 404
        )
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


def test_on_pypi_asks_pypi_json_api_for_the_version():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _PyPI)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        assert publish.on_pypi("0.1.0", f"{base}/pypi/corefbias/{{version}}/json")
        assert not publish.on_pypi("0.2.0", f"{base}/pypi/corefbias/{{version}}/json")
        with pytest.raises(publish.PublishError, match="use --wheel"):
            publish.on_pypi("0.1.0", f"{base}/broken/{{version}}")
    finally:
        server.shutdown()
        server.server_close()
    with pytest.raises(publish.PublishError, match="PyPI is unreachable"):
        publish.on_pypi("0.1.0", f"{base}/pypi/corefbias/{{version}}/json", timeout_s=2)


@pytest.mark.parametrize("released", [True, False])
def test_spaces_name_the_release_when_pypi_has_it_else_carry_the_wheel(staged_spaces, tmp_path, monkeypatch, released):
    monkeypatch.setattr(publish, "build_wheel", lambda out_dir, _: Path(shutil.copy2(staged_spaces.wheel, out_dir)))
    asked = []
    staging = publish.publish(NAMESPACE, repo=REPO, dry_run=tmp_path, parts=("metrics",),
                              released=lambda version: asked.append(version) or released)  # fmt: skip
    assert asked == [publish.__version__]
    for repo in staging.repos:
        requirements = (repo.folder / "requirements.txt").read_text().splitlines()
        if released:
            assert requirements == [f"corefbias[space]=={publish.__version__}"]
            assert not list(repo.folder.glob("*.whl"))
        else:
            assert requirements[0].startswith("corefbias[space] @ ")
            assert (repo.folder / staged_spaces.wheel.name).is_file()


def test_cli_outside_a_checkout_says_where_the_metrics_are_expected_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["publish", "--namespace", NAMESPACE, "--only", "metrics", "--dry-run", "out", "--wheel"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        f"corefbias: {tmp_path.resolve()} is not a corefbias repository checkout (no metrics/ or src/corefbias/); "
        f"run from its root or pass --repo DIR"
    )


def test_spaces_name_the_version_of_the_checkout_they_are_staged_from(tmp_path):
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO / "metrics", checkout / "metrics")
    (checkout / "src" / "corefbias").mkdir(parents=True)
    (checkout / "src" / "corefbias" / "__init__.py").write_text('"""corefbias."""\n\n__version__ = "9.8.7"\n')
    asked = []
    staging = publish.publish(NAMESPACE, repo=checkout, dry_run=tmp_path / "out", parts=("metrics",),
                              released=lambda version: asked.append(version) or True)  # fmt: skip
    assert asked == ["9.8.7"] != [publish.__version__]
    assert {(repo.folder / "requirements.txt").read_text() for repo in staging.repos} == {"corefbias[space]==9.8.7\n"}
