"""A newcomer's first hour: every command of README.md and docs/getting_started.md, run as written, in order, in a
fresh clone of this repository with the upstream mirror beside it at ``../shared/data``, offline; then the style gate
of ``scripts/test`` there, and ``git status`` must show nothing the commands left untracked.

What the test does with each kind of line (it reads the pages, so a new line is run without editing the test):

- ``bash`` blocks run line by line (a trailing ``\\`` joins lines); in ``console`` blocks the ``$`` lines run and the
  lines after them are the output the page promises: each must be printed (``...`` stands for lines left out).
- The install lines are not rerun: installing a fresh virtualenv costs minutes and the registries. ``python3 -m venv
  .venv`` makes ``.venv/bin`` in the clone a folder of wrappers (``python``, ``corefbias``, ``ruff``, ``mkdocs``) that
  run this interpreter with the clone's ``src`` first on the path; ``pip install corefbias`` and ``pip install -e
  '.[extra]'`` instead check that this environment holds every requirement the line would install.
- The test commands (``bash scripts/test``, ``.venv/bin/python -m pytest -q``) are this suite, not rerun inside it;
  of ``scripts/test`` its style gate runs, its ``ruff`` lines, last, over what every other line wrote.
- A ``corefbias`` line without ``--mirror`` is the online form ("with internet access leave it out"): it runs with
  ``$COREFBIAS_MIRROR`` naming the mirror, the offline stand-in for the internet. Every other line runs without it.
- A server line (the Space's ``app.py``) is started, its first run (the stereotype baseline on Winogender, through
  the Space's API) must succeed offline, and it is stopped; its port is a free one, not the page's 7860.
- ``python`` blocks of README.md run with ``.venv/bin/python`` in the clone and must print what their ``#`` comment
  lines show; a block that loads a module from the Hub (``evaluate.load("corefbias/...")``) loads the checkout's
  copy (``metrics/...``), as the page says it may offline. ``pycon`` blocks are tests/test_docs.py's.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from loopback import free_port
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[1]
PAGES = (REPO / "README.md", REPO / "docs" / "getting_started.md")
BLOCK = re.compile(r"^```(bash|console|python)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
# `pip install corefbias` and `.venv/bin/pip install -e '.[gap]'`: what to check instead of installing.
INSTALL = re.compile(r"^(?:\.venv/bin/)?pip install (?:-e )?(?:'?\.(?:\[(?P<extras>[\w,-]+)\])?'?|corefbias)$")
MAKE_VENV = "python3 -m venv .venv"
TEST_COMMANDS = ("bash scripts/test", ".venv/bin/python -m pytest -q")
SERVERS = ("spaces/corefbias/app.py",)
# The wrappers of .venv/bin: each runs this interpreter's module of the same job.
WRAPPED = {"python": [], "corefbias": ["-m", "corefbias"], "ruff": ["-m", "ruff"], "mkdocs": ["-m", "mkdocs"]}
COMMAND_TIMEOUT_S = 600


def page_commands(page: Path) -> list[tuple[str, str, list[str]]]:
    """The page's commands in order: (kind, command or code, the output lines the page shows after it)."""
    commands = []
    for block in BLOCK.finditer(page.read_text(encoding="utf-8")):
        kind, body = block[1], block[2]
        if kind == "python":
            commands.append(("python", body, []))
            continue
        lines = re.sub(r"\\\n\s*", "", body).splitlines()
        if kind == "bash":
            # A comment after a command (`pip install corefbias  # the CLI`) is the page's, not the shell's.
            lines = [re.sub(r"\s+#\s.*$", "", line) for line in lines]
            commands += [("shell", line, []) for line in lines if line.strip() and not line.startswith("#")]
            continue
        for line in lines:
            if line.startswith("$ "):
                commands.append(("shell", line[2:], []))
            elif commands and line.strip():
                commands[-1][2].append(line)
    return commands


def missing_requirements(extras: list[str]) -> list[str]:
    """The requirements of corefbias (with these extras) that this environment does not satisfy."""
    import configparser

    config = configparser.ConfigParser()
    config.read(REPO / "setup.cfg", encoding="utf-8")
    lines = config["options"]["install_requires"].splitlines()
    for extra in extras:
        lines += config["options.extras_require"][extra].splitlines()
    missing = []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        if requirement.name == "corefbias":  # an extra naming another: its requirements are listed in setup.cfg
            missing += missing_requirements(sorted(requirement.extras))
            continue
        try:
            version = importlib.metadata.version(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(line)
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            missing.append(f"{line} (found {version})")
    return missing


def make_venv(clone: Path) -> None:
    """``.venv/bin`` of wrappers running this interpreter with the clone's sources first on the path."""
    bin_dir = clone / ".venv" / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name, arguments in WRAPPED.items():
        command = shlex.join([sys.executable, *arguments])
        path = f"{shlex.quote(str(clone / 'src'))}${{PYTHONPATH:+:$PYTHONPATH}}"
        wrapper = bin_dir / name
        wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={path} exec {command} "$@"\n')
        wrapper.chmod(0o755)


def shown_lines_missing(shown: list[str], printed: str) -> list[str]:
    """The output lines a page shows that the command did not print (whitespace at line ends aside)."""
    lines = {line.rstrip() for line in printed.splitlines()}
    return [line for line in shown if line.strip() != "..." and line.rstrip() not in lines]


class Session:
    """The clone, its environment, and what its commands printed."""

    def __init__(self, clone: Path, mirror: Path, cache: Path):
        self.clone, self.mirror = clone, mirror
        self.environment = {**os.environ, "COREFBIAS_CACHE": str(cache), "OMP_NUM_THREADS": "1"}
        self.environment["PATH"] = f"{clone / '.venv' / 'bin'}:{os.environ['PATH']}"
        self.environment.pop("COREFBIAS_MIRROR", None)
        self.environment["GRADIO_ANALYTICS_ENABLED"] = "False"

    def shell(self, command: str, extra: dict | None = None) -> str:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=self.clone,
            env={**self.environment, **(extra or {})},
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
        )
        printed = done.stdout + done.stderr
        assert done.returncode == 0, f"{command!r} failed ({done.returncode}):\n{printed[-4000:]}"
        return printed

    def run_line(self, line: str, shown: list[str]) -> None:
        parts = [part.strip() for part in line.split(" && ")]
        for part in parts:
            install = INSTALL.match(part)
            if part == MAKE_VENV:
                make_venv(self.clone)
            elif install:
                extras = install["extras"].split(",") if install["extras"] else []
                assert missing_requirements(extras) == [], f"{part!r}: this environment lacks what it installs"
            elif any(server in part for server in SERVERS):
                self.serve(part)
            else:
                online = re.search(r"\bcorefbias\b", part.split()[0]) and "--mirror" not in part
                printed = self.shell(part, {"COREFBIAS_MIRROR": str(self.mirror)} if online else None)
                if part == parts[-1]:
                    assert shown_lines_missing(shown, printed) == [], f"{part!r} printed:\n{printed[-4000:]}"

    def serve(self, command: str) -> None:
        """Start the server line, run the stereotype baseline on Winogender through its API, stop it."""
        gradio_client = pytest.importorskip("gradio_client")
        port = free_port()
        log = self.clone.parent / "server.log"
        with open(log, "w") as output:
            server = subprocess.Popen(
                ["bash", "-c", command],
                cwd=self.clone,
                env={**self.environment, "GRADIO_SERVER_PORT": str(port)},
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            deadline = time.monotonic() + 180
            while "Running on local URL" not in log.read_text() and time.monotonic() < deadline:
                assert server.poll() is None, log.read_text()
                time.sleep(1)
            assert "Running on local URL" in log.read_text(), log.read_text()
            client = gradio_client.Client(
                f"http://127.0.0.1:{port}/", verbose=False, download_files=str(self.clone.parent / "downloads")
            )
            status, summary, *_plots, files = client.predict(
                "baseline:stereotype", ["winogender"], 5, 100, 0, api_name="/run"
            )
            assert "baseline:stereotype" in status and "winogender" in status, status
            assert {Path(path).name for path in files} >= {"results.json", "report.md"}
            assert any(row[0] == "winogender" for row in summary["data"]), summary
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)

    def run_python(self, code: str) -> None:
        code = code.replace('evaluate.load("corefbias/', 'evaluate.load("metrics/')
        done = subprocess.run(
            [str(self.clone / ".venv" / "bin" / "python"), "-c", code],
            cwd=self.clone,
            env=self.environment,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
        )
        assert done.returncode == 0, done.stderr[-4000:]
        shown = [line[2:] for line in code.splitlines() if line.startswith("# ")]
        assert done.stdout.splitlines() == shown, done.stdout


@pytest.mark.slow
def test_the_readme_and_getting_started_run_offline_as_written_in_a_fresh_clone(tmp_path, mirror):
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: nothing to clone")
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(tmp_path / "corefbias")], check=True)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(mirror.resolve())
    session = Session(tmp_path / "corefbias", tmp_path / "shared" / "data", tmp_path / "cache")
    test_command = False
    seen: set[str] = set()
    for page in PAGES:
        for kind, command, shown in page_commands(page):
            if command in seen:  # the set-up block, in both pages
                continue
            seen.add(command)
            if kind == "python":
                if page.name == "README.md" or 'evaluate.load("corefbias/' in command:
                    session.run_python(command)
            elif command in TEST_COMMANDS:
                test_command = True
            else:
                session.run_line(command, shown)
    assert test_command, "the README names no test command"
    # The style gate of scripts/test, over what every line above wrote.
    gate = [line for line in (REPO / "scripts" / "test").read_text().splitlines() if line.startswith(".venv/bin/ruff")]
    assert len(gate) == 2
    for line in gate:
        session.shell(line)
    status = session.shell("git status --porcelain --untracked-files=all")
    assert status == "", f"the commands left files git does not ignore:\n{status}"
    for folder in ("results", "exports", "runs", "site", "space_data"):
        assert (session.clone / folder).is_dir(), folder


def test_page_commands_reads_console_output_and_joined_lines(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "```bash\n# a comment\npython3 -m venv .venv && .venv/bin/pip install -e '.[gap]'  # install\n```\n"
        "```console\n$ corefbias list \\\n    models\nKIND  EXAMPLE\n...\n$ corefbias list formats\n```\n"
    )
    assert page_commands(page) == [
        ("shell", "python3 -m venv .venv && .venv/bin/pip install -e '.[gap]'", []),
        ("shell", "corefbias list models", ["KIND  EXAMPLE", "..."]),
        ("shell", "corefbias list formats", []),
    ]
    assert INSTALL.match(".venv/bin/pip install -e '.[gap]'")["extras"] == "gap"
    assert INSTALL.match("pip install corefbias")["extras"] is None
    assert shown_lines_missing(["a  1.000", "...", "b"], "a  1.000   \nc\n") == ["b"]


def test_missing_requirements_names_what_the_environment_lacks(monkeypatch):
    assert missing_requirements([]) == []
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "0.1" if name == "numpy" else real(name))
    assert missing_requirements([]) == ["numpy>=1.24 (found 0.1)"]
