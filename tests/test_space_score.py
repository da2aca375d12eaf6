"""The Space's Score a file tab, served on loopback and called with gradio_client."""

import json
import socket
from pathlib import Path

import httpx
import pytest

from corefbias.harness.prediction_files import scoring
from corefbias.space.settings import SpaceSettings

gradio_client = pytest.importorskip("gradio_client")

REPO = Path(__file__).resolve().parents[1]
BERT_BASE = "counter_gap/results/none/bert_base_output.tsv"


@pytest.fixture(scope="module")
def served(exported_set, mirror, tmp_path_factory):
    import datasets

    from corefbias.space import ui

    data_dir = exported_set("counter_gap").parent
    root = tmp_path_factory.mktemp("space_score")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = SpaceSettings(
        data_root=root / "data",
        datasets_dir=data_dir,
        mirror=mirror,
        cards_dir=REPO / "metrics",
        port=port,
        max_upload_bytes=200_000,
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADIO_TEMP_DIR", str(root / "gradio"))
        patch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        patch.setattr(datasets.config, "HF_DATASETS_CACHE", root / "hf_datasets")
        demo = ui.build_app(settings)
        ui.launch(demo, settings, prevent_thread_lock=True, quiet=True)
        try:
            yield gradio_client.Client(demo.local_url, verbose=False, download_files=str(root / "downloads")), data_dir
        finally:
            demo.close()


def test_an_uploaded_file_scores_as_corefbias_score(served, mirror):
    client, data_dir = served
    path = mirror / BERT_BASE
    status, summary, _, inconsistency_plot, _, _, gallery, files = client.predict(
        [gradio_client.handle_file(str(path))], "counter_gap", "auto", 200, 1, api_name="/score"
    )
    expected = scoring.score("counter_gap", [path], data_dir=data_dir, mirror=mirror, n_bootstrap=200, seed=1)
    downloaded = {Path(file).name: Path(file) for file in files}
    results = json.loads(downloaded["results.json"].read_text())
    assert results["benchmarks"]["counter_gap"]["sections"] == json.loads(
        json.dumps(expected.to_json()["benchmarks"]["counter_gap"]["sections"])
    )
    assert results["model"] == expected.model and "predictions:bert_base_output.tsv" in status
    assert [row[1] for row in summary["data"]][:1] == ["ΔI"]
    assert inconsistency_plot is not None


def test_a_bad_file_shows_the_readers_error(served, tmp_path):
    client, _ = served
    short = tmp_path / "short.tsv"
    short.write_text("ID\tA-coref\tB-coref\n0\tTRUE\tFALSE\n")
    with pytest.raises(gradio_client.exceptions.AppError, match="no document for instance 0-control of counter_gap"):
        client.predict([gradio_client.handle_file(str(short))], "counter_gap", "gap-tsv", 0, 0, api_name="/score")
    big = tmp_path / "big.tsv"
    big.write_text("ID\tA-coref\tB-coref\n" + "0\tTRUE\tFALSE\n" * 20_000)
    # Refused at upload: the client knows the cap, and the server refuses a file over it before storing a byte.
    with pytest.raises(ValueError, match="big.tsv exceeds the maximum file size of 200000 bytes"):
        client.predict([gradio_client.handle_file(str(big))], "counter_gap", "gap-tsv", 0, 0, api_name="/score")
    with open(big, "rb") as file:
        answer = httpx.post(f"{client.src}gradio_api/upload", files=[("files", (big.name, file))])
    assert (answer.status_code, answer.text) == (
        413,
        "The file is 254 KiB; this Space takes files up to 195 KiB (score larger ones with `corefbias score` on "
        "your own machine).",
    )
