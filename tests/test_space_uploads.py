"""The Space's uploads cannot fill its disk: a file over the cap is refused while it is uploaded, every upload is
deleted once scored, and a full upload folder refuses uploads with a message instead of a bare "500".

The deployed app (``spaces/corefbias/app.py``'s ``build_app`` and ``launch``) is served on loopback and driven
with ``gradio_client`` and plain HTTP.
"""

import re
import socket
from pathlib import Path

import httpx
import pytest

from corefbias.space import uploads
from corefbias.space.settings import SpaceSettings

gradio_client = pytest.importorskip("gradio_client")

MiB = 2**20
BUDGET = 8 * MiB
VISITS = 30  # the old leak passed the budget at the ninth visit: thirty are nearly four budgets' worth


@pytest.fixture(scope="module")
def predictions(exported_set, mirror, tmp_path_factory):
    """A whole run's instances file of Winogender (what `corefbias score --format instances` reads)."""
    from corefbias.harness import run_outputs, runner

    root = tmp_path_factory.mktemp("uploaded")
    result = runner.run(
        "baseline:oracle",
        ["winogender"],
        runner.RunSettings(n_bootstrap=0),
        data_dir=exported_set("winogender").parent,
        cache_path=root / "cache.sqlite",
        progress=False,
    )
    return run_outputs.write_outputs(result, root / "run", plots=False)["instances/winogender.jsonl"]


@pytest.fixture(scope="module")
def served(exported_set, mirror, tmp_path_factory):
    """The Space as deployed, with the default 64 MiB cap per file and an upload folder budget of 8 MiB."""
    import datasets

    from corefbias.space import ui

    root = tmp_path_factory.mktemp("space_uploads")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = SpaceSettings(
        data_root=root / "data",
        datasets_dir=exported_set("winogender").parent,
        mirror=mirror,
        port=port,
        max_upload_folder_bytes=BUDGET,
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADIO_TEMP_DIR", str(root / "gradio"))
        patch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        patch.setattr(datasets.config, "HF_DATASETS_CACHE", root / "hf_datasets")
        demo = ui.build_app(settings)
        ui.launch(demo, settings, prevent_thread_lock=True, quiet=True)
        try:
            client = gradio_client.Client(demo.local_url, verbose=False, download_files=str(root / "downloads"))
            yield client, demo.local_url, root / "gradio"
        finally:
            demo.close()


def _upload(url: str, path: Path) -> httpx.Response:
    """POST a file to Gradio's upload route, as the page does."""
    with open(path, "rb") as file:
        return httpx.post(f"{url}gradio_api/upload", files=[("files", (path.name, file))], timeout=120)


def test_a_120_mib_upload_is_refused_while_it_is_uploaded(served, tmp_path):
    # Before, a 120 MiB upload was accepted, refused only when scored, and stayed on disk.
    client, url, folder = served
    big = tmp_path / "big.conll"
    with open(big, "wb") as file:
        file.truncate(120 * MiB)  # sparse: no disk needed to send it
    answer = _upload(url, big)
    assert answer.status_code == 413
    assert answer.text == (
        "The file is 120.0 MiB; this Space takes files up to 64.0 MiB (score larger ones with `corefbias score` on "
        "your own machine)."
    )
    assert uploads.folder_bytes(folder) < MiB  # nothing of it kept
    # The page and API clients know the cap before sending anything.
    with pytest.raises(ValueError, match=r"exceeds the maximum file size of 67108864 bytes"):
        client.predict([gradio_client.handle_file(str(big))], "winogender", "auto", 0, 0, api_name="/score")


def _visit_file(predictions: Path, tmp_path: Path, visit: int) -> Path:
    """A 1 MiB predictions file of its own (Gradio keeps uploads by content): every tenth one the whole run's
    instances, padded with blank lines; the others a run's first lines, which match too few instances to score."""
    lines = predictions.read_text().splitlines(keepends=True)
    lines[0] = lines[0].rstrip("\n") + " " * visit + "\n"  # blanks after a line's JSON: content of its own
    text = "".join(lines if visit % 10 == 0 else lines[:50])
    path = tmp_path / f"predictions-{visit:03d}.jsonl"
    path.write_text(text + "\n" * (MiB - len(text.encode()) - 1) + " ")
    assert path.stat().st_size == MiB
    return path


@pytest.mark.slow  # thirty scoring visits: about 15 s
def test_the_upload_folder_stays_under_its_budget_over_thirty_scoring_visits(served, predictions, tmp_path):
    # Before, each upload stayed in the folder: 1 MiB a visit, over the 8 MiB budget by the ninth.
    client, url, folder = served
    sizes, scored = [], 0
    for visit in range(VISITS):
        path = _visit_file(predictions, tmp_path, visit)
        try:
            status, *_ = client.predict(
                [gradio_client.handle_file(str(path))], "winogender", "instances", 0, 0, api_name="/score"
            )
            scored += 1
            assert path.name.removesuffix(".jsonl") in status
        except gradio_client.exceptions.AppError as error:
            assert "no document for instance" in str(error)
        sizes.append(uploads.folder_bytes(folder))
    assert scored == VISITS // 10
    assert max(sizes) <= BUDGET, sizes
    assert not [path.name for path in folder.rglob("predictions-*")]  # every upload deleted, scored or not


def test_a_full_upload_folder_refuses_uploads_with_a_message(served, predictions, tmp_path):
    # Before, with the folder's disk full, every visitor's upload failed with a bare "500".
    client, url, folder = served
    folder.mkdir(parents=True, exist_ok=True)
    never_scored = folder / "left-by-visitors"
    never_scored.write_bytes(b"\0" * BUDGET)
    try:
        answer = _upload(url, predictions)
        assert answer.status_code == 507
        # Full: the budget, and Gradio's copies of the downloads shown to earlier visitors.
        assert re.match(
            r"The Space's upload folder is full \(8\.\d MiB of its 8\.0 MiB\): files are deleted", answer.text
        )
        with pytest.raises(httpx.HTTPStatusError, match="507"):
            client.predict(
                [gradio_client.handle_file(str(predictions))], "winogender", "instances", 0, 0, api_name="/score"
            )
    finally:
        never_scored.unlink()
    assert _upload(url, predictions).status_code == 200


def test_only_files_in_the_upload_folder_are_discarded(tmp_path):
    settings = SpaceSettings(data_root=tmp_path / "data", upload_dir=tmp_path / "uploads")
    (tmp_path / "uploads" / "0123abcd").mkdir(parents=True)
    uploaded = tmp_path / "uploads" / "0123abcd" / "p.conll"
    uploaded.write_text("x")
    mine = tmp_path / "p.conll"
    mine.write_text("x")
    uploads.discard(mine, settings)
    uploads.discard(tmp_path / "uploads" / ".." / "p.conll", settings)
    assert mine.exists()
    uploads.discard(uploaded, settings)
    assert not uploaded.exists() and not uploaded.parent.exists() and (tmp_path / "uploads").is_dir()
