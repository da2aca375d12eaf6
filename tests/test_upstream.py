import hashlib

import pytest

from corefbias.data import upstream


def test_mirror_file_is_verified_and_used_in_place(mirror):
    path = upstream.fetch("winogender", "data/occupations-stats.tsv", mirror)
    assert path == mirror / "winogender" / "data" / "occupations-stats.tsv"


def test_environment_variable_names_the_mirror(mirror, monkeypatch):
    monkeypatch.setenv(upstream.MIRROR_ENV, str(mirror))
    assert upstream.fetch("gap", "gap-validation.tsv").is_file()


def test_checksum_mismatch_names_file_and_url(tmp_path):
    fake = tmp_path / "winogender" / "data" / "occupations-stats.tsv"
    fake.parent.mkdir(parents=True)
    fake.write_text("tampered\n")
    with pytest.raises(upstream.UpstreamFileError) as error:
        upstream.fetch("winogender", "data/occupations-stats.tsv", tmp_path)
    message = str(error.value)
    assert "checksum mismatch" in message and "occupations-stats.tsv" in message
    assert "rudinger/winogender-schemas/1c7f8b481ad8a234b41e9f76a424d6e856e13f7f" in message


def test_download_goes_to_the_cache_and_is_verified(tmp_path, monkeypatch, mirror):
    source = mirror / "winogender" / "data" / "occupations-stats.tsv"
    requested = []

    def fake_urlopen(url, timeout):
        requested.append(url)
        return open(source, "rb")

    monkeypatch.setenv(upstream.CACHE_ENV, str(tmp_path))
    monkeypatch.delenv(upstream.MIRROR_ENV, raising=False)
    monkeypatch.setattr("urllib.request.urlopen", fake_urlopen)
    path = upstream.fetch("winogender", "data/occupations-stats.tsv")
    assert path == tmp_path / "winogender" / "data" / "occupations-stats.tsv"
    assert (
        hashlib.sha256(path.read_bytes()).hexdigest()
        == upstream.describe("winogender", "data/occupations-stats.tsv").sha256
    )
    assert requested == [
        "https://raw.githubusercontent.com/rudinger/winogender-schemas/1c7f8b481ad8a234b41e9f76a424d6e856e13f7f/data/occupations-stats.tsv"
    ]
    upstream.fetch("winogender", "data/occupations-stats.tsv")
    assert len(requested) == 1  # served from the cache the second time


def test_paths_with_spaces_are_url_quoted():
    assert upstream.describe("abc", "Ocupation_stats - 1.1.tsv").url.endswith("/Ocupation_stats%20-%201.1.tsv")


def test_unknown_names_are_errors():
    with pytest.raises(upstream.UpstreamFileError, match="unknown data set"):
        upstream.describe("winograd", "x")
    with pytest.raises(upstream.UpstreamFileError, match="not a registered file"):
        upstream.describe("gap", "gap-train.tsv")
