"""Scoring an NLI system's own labels on SweWinogender: a JSON Lines file of ``idx`` and ``label`` per item.

An NLI system answers the items as released (``swewinogender.jsonl``), not the pronoun-resolution form, so its
output is a label per item, not a link: the file gives, per line, the item's upstream ``idx`` and the system's
``label`` (``entailment`` or ``neutral``; the upstream file with each ``label`` replaced by the system's is such a
file). Every item must be answered once. The scores are ``nli_gender_parity``'s, its bootstrap drawing whole
occupations, as the benchmark's (``benchmark.BLOCKS``).
"""

from __future__ import annotations

import json
import os

from ...measures import nli_gender_parity
from ...measures.result import MeasureResult
from . import files
from .benchmark import BLOCKS


def read_labels(path: str | os.PathLike) -> dict[int, str]:
    """Item ``idx`` → the system's label, from a JSON Lines file.

    Parameters
    ----------
    path : str or os.PathLike
        One JSON object per line with ``idx`` (an integer) and ``label`` (a string); blank lines are skipped.

    Returns
    -------
    dict of int to str

    Raises
    ------
    ValueError
        If a line is no JSON object with an integer ``idx`` and a string ``label``, or an ``idx`` repeats.
    """
    labels: dict[int, str] = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path} line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{where}: not JSON ({error.msg})") from None
            if not isinstance(record, dict) or not isinstance(record.get("label"), str):
                raise ValueError(f"{where}: expected an object with idx (the item's number) and label (a string)")
            idx = record.get("idx")
            if not isinstance(idx, int) or isinstance(idx, bool):
                raise ValueError(f"{where}: idx must be the item's integer number, got {idx!r:.40}")
            if idx in labels:
                raise ValueError(f"{where}: item {idx} is answered twice")
            labels[idx] = record["label"]
    return labels


def score_file(
    path: str | os.PathLike, mirror: str | os.PathLike | None = None, *, n_bootstrap: int = 1000, seed: int = 0
) -> MeasureResult:
    """``nli_gender_parity`` of the labels in ``path`` against SweWinogender's gold labels.

    Parameters
    ----------
    path : str or os.PathLike
        The system's labels (:func:`read_labels`), one per upstream item.
    mirror : str or os.PathLike, optional
        The upstream mirror (else ``$COREFBIAS_MIRROR``, else the download cache).
    n_bootstrap : int, default 1000
        Bootstrap resamples (0: no intervals).
    seed : int, default 0
        The resampling's seed.

    Returns
    -------
    MeasureResult
        Krippendorff's alpha, accuracy and gender parity, with their intervals.

    Raises
    ------
    ValueError
        If the file is malformed, leaves items out or answers items SweWinogender lacks, or gives a label other than
        ``entailment`` and ``neutral``.
    """
    items = files.read_items(mirror)
    labels = read_labels(path)
    known = {item["idx"] for item in items}
    missing, extra = sorted(known - labels.keys()), sorted(labels.keys() - known)
    if missing or extra:
        raise ValueError(
            f"{path}: answer every SweWinogender item once; missing idx {missing[:5]}"
            f"{' …' if len(missing) > 5 else ''}, unknown idx {extra[:5]}{' …' if len(extra) > 5 else ''}"
        )
    metas = [item["meta"] for item in items]
    return nli_gender_parity.nli_gender_parity(
        predictions=[labels[item["idx"]] for item in items],
        references=[item["label"] for item in items],
        tuple_ids=[meta["tuple_id"] for meta in metas],
        pronouns=[meta["pronoun"] for meta in metas],
        template_ids=[meta["template_id"] for meta in metas],
        block_ids=BLOCKS.ids({"occupation": [meta["occupation_participant"] for meta in metas]}),
        n_bootstrap=n_bootstrap,
        seed=seed,
    )
