"""WinoNB (Baumler & Rudinger, NAACL 2022): 4,077 sentences with a singular "someone", a plural entity and a *they*
that refers to one of them, in upstream's two versions of the "someone" file (``data/v0``, ``data/v1``).

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). The rows and their spans come from
``corefbias.benchmarks.winonb.files``; upstream files are read through ``corefbias.data.upstream.fetch`` from the
mirror given as ``data_dir`` (else ``$COREFBIAS_MIRROR``, else the checksummed download cache).
"""

from __future__ import annotations

import datasets

from corefbias.benchmarks.winonb import files
from corefbias.data import builder_base, citations, features

_CITATION = citations.cite("baumler-rudinger-2022-recognition")

_DESCRIPTION = """\
WinoNB, the "someone" version: 4,077 sentences adapted from Winogender, WinoBias, the Winograd Schema Challenge and
the Definite Pronoun Resolution set, each with a singular entity ("someone"), a plural entity ("the technicians")
and a they/them pronoun referring to one of them ("The technicians told someone that they could pay with cash.").
A system that understands singular *they* resolves both readings. Each row feeds the `winonb_accuracy` metric
directly.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    row=datasets.Value("int32"),
    source=datasets.Value("string"),
    sentid=datasets.Value("string"),
    number=datasets.Value("string"),
    plural_noun=datasets.Value("string"),
    winobias_type=datasets.Value("string"),
    winobias_split=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)


def example(version: str, sentence: dict) -> dict:
    """One upstream row as an exported row: candidates ``[someone, the plural entity]``."""
    located = sentence["spans"]
    return {
        "text": sentence["text"],
        "pronoun": located["pronoun"],
        "candidates": [
            {**located[number], "is_referent": sentence["number"] == number} for number in ("singular", "plural")
        ],
        "id": f"{version}.{sentence['row']:04d}",
        **{key: sentence[key] for key in FEATURES if key in sentence and key not in ("text", "pronoun", "candidates")},
        "pronoun_gender": "neutral",
        "candidate_stereotypes": [None, None],
    }


class WinoNB(builder_base.UpstreamBuilder):
    """WinoNB's "someone" file, versions v0 and v1, one `test` split each."""

    UPSTREAM_DATASET = files.UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = _CITATION
    VERSION = datasets.Version("1.0.0")
    CONFIG_DESCRIPTIONS = {
        "v0": "data/v0/winonb_someone.tsv, the version whose labels follow the README (scored by corefbias)",
        "v1": "data/v1/winonb_someone.tsv, the newer file: the same sentences recapitalized and respaced, "
        "but 2,908 WinoBias labels changed (see Known issues); exported, not scored",
    }

    def _generate_examples(self):
        rows = [example(self.config.name, sentence) for sentence in files.sentences(self.config.name, self.mirror)]
        yield from builder_base.enumerate_unique(rows, f"{files.UPSTREAM_DATASET}/{self.config.name}")
