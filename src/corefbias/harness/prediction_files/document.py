"""What every predictions reader returns, and what they share: reading a file's text and its token spans."""

from __future__ import annotations

import codecs
import gzip
import io
from dataclasses import dataclass
from pathlib import Path

from ...measures import structured_inputs

GZIP_MAGIC = b"\x1f\x8b"


class PredictionFileError(ValueError):
    """A predictions file that cannot be read, or that does not fit the benchmark's instances."""


@dataclass(frozen=True)
class Document:
    """One predicted document: clusters over tokens or characters, or decisions per candidate.

    ``where`` names it in errors ("out.jsonl line 3"); ``id`` is the instance id when the format
    carries one; ``tokens`` with ``clusters`` (inclusive ``[first, last]`` token spans) for cluster
    formats; ``char_clusters`` (``[start, end)`` character spans of the instance text) where a run's
    instances file kept a cluster model's output; ``decisions`` (one boolean per candidate, in the
    instance's candidate order) with ``parsed`` for formats holding links; ``position``, where a run's
    instances file kept it, the option position of a choice model's answer (0 = ``A``), from which the
    run's position rate is computed again; ``loglikelihoods``, where the file kept them, a cloze model's log-likelihood
    of each option of its template (``corefbias.harness.dont_know_scores`` scores them); ``template``, where the file
    names it, the cloze template (the prompt) the answers were made with.
    """

    where: str
    id: str | None = None
    tokens: tuple[str, ...] | None = None
    clusters: tuple[tuple[tuple[int, int], ...], ...] | None = None
    char_clusters: tuple[tuple[tuple[int, int], ...], ...] | None = None
    decisions: tuple[bool, ...] | None = None
    parsed: bool = True
    position: int | None = None
    loglikelihoods: tuple[float, ...] | None = None
    template: str | None = None


def text_of(path: Path) -> str:
    r"""The file's text, decoded as UTF-8: gzip-compressed files are read decompressed, and a leading byte-order mark
    (what Windows editors and Excel write) is dropped, since it is no part of the first line.

    Raises
    ------
    PredictionFileError
        Where the file is not UTF-8, naming the file and the line of the first undecodable byte, or a broken gzip.

    Examples
    --------
    >>> import gzip, tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "a.tsv").write_bytes(codecs.BOM_UTF8 + b"ID\tA-coref\n")
    14
    >>> (folder / "a.tsv.gz").write_bytes(gzip.compress((folder / "a.tsv").read_bytes()))
    34
    >>> text_of(folder / "a.tsv") == text_of(folder / "a.tsv.gz") == "ID\tA-coref\n"
    True
    """
    data = path.read_bytes()
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise PredictionFileError(
                f"{path.name}: a gzip file that cannot be decompressed ({error}); give the file again, or uncompressed"
            ) from None
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        utf16 = " (it starts like UTF-16)" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise PredictionFileError(
            f"{path.name} line {line}: not UTF-8 text, byte {data[error.start]:#04x} at offset {error.start}{utf16}; "
            f"save the file as UTF-8"
        ) from None


def lines_of(path: Path) -> list[str]:
    """The file's lines as ``open(path)`` gives them (``\\r\\n`` and ``\\r`` read as ``\\n``), from :func:`text_of`."""
    return io.StringIO(text_of(path), newline=None).readlines()


def token_clusters(value, *, where: str, num_tokens: int) -> tuple:
    """Clusters of ``[first, last]`` token spans, checked against the document's length."""
    if not isinstance(value, list):
        raise PredictionFileError(f"{where}: clusters must be a list of clusters, got {value!r:.80}")
    clusters = []
    for cluster in value:
        spans = []
        for span in cluster if isinstance(cluster, list) else [None]:
            # structured_inputs.is_span: integers that are not booleans (JSON's true is no token index)
            if not isinstance(span, list) or not structured_inputs.is_span(span) or not span[1] < num_tokens:
                raise PredictionFileError(
                    f"{where}: {span!r} is not an inclusive token span [first, last] within the document's "
                    f"{num_tokens} tokens (clusters are lists of such spans)"
                )
            spans.append((span[0], span[1]))
        clusters.append(tuple(spans))
    return tuple(clusters)
