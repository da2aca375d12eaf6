"""A run folder is written as one unit: a full disk or two writers at once leave one whole run, never a mix.

``run_outputs.write_outputs`` writes into a temporary folder beside ``--out`` and moves it into place in one step;
``compare`` and the Space check a folder against its manifest and name one that is not a whole run.
"""

import builtins
import errno
import io
import json
import multiprocessing
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from corefbias.harness import comparison, run_outputs, runner
from corefbias.space.store import UNREADABLE, RunStore


@pytest.fixture(scope="module")
def data_dir(exported_set):
    return exported_set("winogender").parent


@pytest.fixture(scope="module")
def two_runs(data_dir, tmp_path_factory):
    """Two runs of the same instances by different models: their instance files differ."""
    cache = tmp_path_factory.mktemp("cache") / "cache.sqlite"
    return [
        runner.run(
            spec,
            ["winogender"],
            runner.RunSettings(limit=5, n_bootstrap=50),
            data_dir=data_dir,
            cache_path=cache,
            progress=False,
        )
        for spec in ("baseline:stereotype", "baseline:random")
    ]


def whole_run_of(out: Path, runs) -> str:
    """The model of the one run ``out`` holds whole: its manifest checks and every file is that run's."""
    run_outputs.check_whole(out)
    model = json.loads((out / "results.json").read_text())["model"]
    (run,) = [run for run in runs if run.model == model]
    lines = "".join(json.dumps(instance) + "\n" for instance in run.runs["winogender"].instances)
    assert (out / "instances" / "winogender.jsonl").read_text() == lines, "results.json and instances/ of two runs"
    return model


def leftovers(parent: Path, *kept: str) -> list[str]:
    return sorted(path.name for path in parent.iterdir() if path.name not in kept)


# --- a full disk -----------------------------------------------------------------------------------------------


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


class _LimitedFile(io.TextIOWrapper):
    """A text file for writing whose bytes count against a shared budget; past it, ``ENOSPC`` (what a full disk
    answers), after writing what still fitted."""

    budget: list

    def write(self, text):
        data = text.encode("utf-8")
        if len(data) > self.budget[0]:
            super().write(data[: self.budget[0]].decode("utf-8", "ignore"))
            self.budget[0] = 0
            self.flush()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.budget[0] -= len(data)
        return super().write(text)


def _limit_writes(monkeypatch, free: int) -> None:
    """Every text file run_outputs writes shares ``free`` bytes (the write-failure injection of a full disk)."""
    budget = [free]

    def limited_open(path, mode="r", *args, encoding=None, newline=None, **kwargs):
        if "w" not in mode:
            return builtins.open(path, mode, *args, encoding=encoding, newline=newline, **kwargs)
        wrapper = _LimitedFile(builtins.open(path, "wb"), encoding=encoding or "utf-8", newline=newline)
        wrapper.budget = budget
        return wrapper

    def write_text(self, data, encoding=None, errors=None, newline=None):
        with limited_open(self, "w", encoding=encoding, newline=newline) as file:
            return file.write(data)

    monkeypatch.setattr(run_outputs, "open", limited_open, raising=False)
    monkeypatch.setattr(Path, "write_text", write_text)


@pytest.fixture
def small_disk(tmp_path):
    """``small_disk(size)``: a tmpfs of ``size`` bytes mounted for the test (the test is skipped where mounting
    is not allowed); unmounted after it."""
    mounted = []

    def mount(size: int) -> Path:
        point = tmp_path / f"disk{len(mounted)}"
        point.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount a small file system here: {done.stderr.decode().strip()}")
        mounted.append(point)
        return point

    yield mount
    for point in mounted:
        subprocess.run(["umount", str(point)], check=True)


def _fill(disk: Path, free: int) -> None:
    """Leave about ``free`` bytes free on ``disk`` (whole pages: tmpfs counts in 4 KiB pages)."""
    stats = os.statvfs(disk)
    available = stats.f_bavail * stats.f_frsize
    with open(disk / "filler", "wb") as filler:
        filler.write(b"\0" * max(available - free, 0))


@pytest.mark.parametrize("fault", ["a small file system", "injected write failures"])
def test_a_full_disk_leaves_the_old_run_or_the_new_one_and_no_temporary_files(
    two_runs, tmp_path, monkeypatch, small_disk, fault
):
    old, new = two_runs
    probe = tmp_path / "probe"
    run_outputs.write_outputs(new, probe, plots=False)
    size = folder_bytes(probe)
    # From nothing free to room for the whole run: every level cuts the new run at another file, or not at all.
    levels = sorted({0, 1, 4096, size // 8, size // 4, size // 2, 3 * size // 4, size - 1, size + 64 * 4096})
    outcomes = []
    for level in levels:
        if fault == "a small file system":
            parent = small_disk(2 * size + 128 * 4096)
            out = parent / "run"
            run_outputs.write_outputs(old, out, plots=False)
            _fill(parent, level)
            kept = ("run", "filler")
        else:
            parent = tmp_path / f"level{level}"
            out = parent / "run"
            run_outputs.write_outputs(old, out, plots=False)
            kept = ("run",)
        with monkeypatch.context() as patch:
            if fault == "injected write failures":
                _limit_writes(patch, level)
            try:
                run_outputs.write_outputs(new, out, plots=False)
            except run_outputs.RunFolderError as error:
                assert "No space left on device" in str(error) and "it keeps the run it held before" in str(error)
                outcomes.append("old")
            else:
                outcomes.append("new")
        assert whole_run_of(out, two_runs) == (old.model if outcomes[-1] == "old" else new.model)
        assert leftovers(parent, *kept) == [], f"temporary files left with {level} bytes free"
    # The levels tried both ends: runs cut short, and a run written whole.
    assert outcomes[0] == "old" and outcomes[-1] == "new", list(zip(levels, outcomes))


# --- two writers at once ---------------------------------------------------------------------------------------

ROUNDS = 30


def _write_rounds(result, out: str, start, finish) -> None:
    for _ in range(ROUNDS):
        start.wait()
        run_outputs.write_outputs(result, out, plots=False)
        finish.wait()


def test_two_processes_writing_one_folder_at_once_leave_one_whole_run(two_runs, tmp_path):
    # Before, each wrote its files into the folder in place: 19 of 30 rounds mixed the two runs' files.
    out = tmp_path / "run"
    context = multiprocessing.get_context("fork")
    start, finish = context.Barrier(3, timeout=120), context.Barrier(3, timeout=120)
    writers = [context.Process(target=_write_rounds, args=(run, str(out), start, finish)) for run in two_runs]
    for writer in writers:
        writer.start()
    winners = []
    try:
        for _ in range(ROUNDS):
            start.wait()
            finish.wait()
            winners.append(whole_run_of(out, two_runs))
            assert leftovers(tmp_path, "run") == []
    finally:
        for writer in writers:
            writer.join(timeout=60)
    assert [writer.exitcode for writer in writers] == [0, 0]
    assert set(winners) <= {run.model for run in two_runs}


# --- what a run folder may replace, and who reads one ----------------------------------------------------------


def test_a_run_replaces_a_run_but_never_a_file_or_a_folder_of_other_things(two_runs, tmp_path):
    old, new = two_runs
    out = tmp_path / "run"
    run_outputs.write_outputs(old, out)  # with plots
    assert (out / "plots").is_dir()
    run_outputs.write_outputs(new, out, plots=False)
    assert whole_run_of(out, two_runs) == new.model and not (out / "plots").exists()  # no stale plots of the old run
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "thesis.tex").write_text("mine")
    with pytest.raises(run_outputs.RunFolderError, match=r"notes holds thesis.tex besides a run's files"):
        run_outputs.write_outputs(new, notes, plots=False)
    assert [path.name for path in notes.iterdir()] == ["thesis.tex"]
    file = tmp_path / "results"
    file.write_text("a file")
    with pytest.raises(run_outputs.RunFolderError, match=r"results is a file; --out names the folder"):
        run_outputs.write_outputs(new, file, plots=False)
    assert leftovers(tmp_path, "run", "notes", "results") == []


def _mixed(two_runs, tmp_path) -> Path:
    """A folder with the first run's results.json and the second run's instances, as writers racing left one."""
    first, second = tmp_path / "first", tmp_path / "second"
    run_outputs.write_outputs(two_runs[0], first, plots=False)
    run_outputs.write_outputs(two_runs[1], second, plots=False)
    shutil.copy(second / "instances" / "winogender.jsonl", first / "instances" / "winogender.jsonl")
    return first


def test_compare_names_a_folder_that_is_not_a_whole_run(two_runs, data_dir, tmp_path):
    # Before, compare rescored the mixed instances and blamed "another data version or corefbias version".
    mixed = _mixed(two_runs, tmp_path)
    with pytest.raises(run_outputs.RunFolderError) as error:
        comparison.compare_runs([mixed, tmp_path / "second"], data_dir=data_dir, n_resamples=50)
    assert str(error.value).startswith(
        f"{mixed} is not a whole run: instances/winogender.jsonl is not the file its run wrote"
    )
    assert "data version" not in str(error.value)
    # A folder edited by hand is told how to be compared anyway, as docs/running/index.md says.
    assert str(error.value).endswith(
        "or was edited by hand: run it again, or score its instances again (`corefbias score --format instances`); "
        "without its manifest.json it is read as it is (compare still checks its scores against its instances)"
    )


def test_the_space_shows_an_unreadable_run_as_such_and_keeps_its_leaderboard(two_runs, tmp_path, caplog):
    # Before, one damaged run's results.json made every visitor's leaderboard fail, naming no run.
    pytest.importorskip("gradio")
    from corefbias.space import explore
    from corefbias.space.page.shared import StoredRuns

    store = RunStore(tmp_path / "space")
    good, damaged, mixed = (store.save(run, explore.cases(run)) for run in (*two_runs, two_runs[0]))
    results = store.folder(damaged) / "results.json"
    results.write_text(results.read_text()[:100])  # cut short
    shutil.copy(store.folder(damaged) / "explore.json", store.folder(mixed) / "explore.json")  # another run's cases
    with caplog.at_level("WARNING", logger="corefbias.space.store"):
        board = store.leaderboard()
        again = store.leaderboard()
    assert board.equals(again)
    rows = dict(zip(board["run"], board["model"]))
    assert rows == {good: two_runs[0].model, damaged: UNREADABLE, mixed: two_runs[0].model}
    # Logged once, by name, however often the leaderboard is read.
    assert [record.getMessage().split(":")[0] for record in caplog.records] == [
        f"stored run {damaged} is unreadable and shown as such"
    ]
    assert store.describe(damaged) == f"{UNREADABLE} · {damaged}"
    with pytest.raises(ValueError, match=rf"{damaged} is not a whole run: results.json is not the file its run wrote"):
        store.results(damaged)
    with pytest.raises(ValueError, match=rf"{mixed} is not a whole run: explore.json is not the file its run wrote"):
        store.explore_cases(mixed)
    # Picking it shows what is wrong with it, in the page; the page still loads.
    shown = StoredRuns(store).show(damaged)
    assert "is not a whole run: results.json" in shown[3] and shown[6] is None
