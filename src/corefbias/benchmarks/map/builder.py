"""MAP, the Maybe Ambiguous Pronoun set (Cao & Daumé, ACL 2020): 172 snippets × the original and nine ablations.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). The upstream file is read through
``corefbias.data.upstream.fetch`` from the mirror given as ``data_dir`` (else ``$COREFBIAS_MIRROR``, else the
checksummed download cache), pinned by GICoref's folder.
"""

from __future__ import annotations

import datasets

from corefbias.benchmarks.map import files as map_files
from corefbias.data import builder_base, citations, features

_DESCRIPTION = """\
MAP takes 183 two-sentence snippets of English Wikipedia, each naming two people (A and B) and holding a
third-person pronoun, and removes the cues to the people's gender one kind at a time and together: terms of address
(Mr, Ms, Sir, ...), names (replaced by an initial and a random surname), semantically gendered nouns (actress →
cast-member) and the pronouns themselves (he/she → ze, ey, xey, they). Every version was annotated three times by
crowd workers: which of A and B does the pronoun refer to? The drop of accuracy from the original to an ablation
shows how much a reader, or a system, relied on that kind of cue.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    snippet_id=datasets.Value("string"),
    ablation=datasets.Value("string"),
    answer=datasets.Value("string"),
    human_answers=datasets.List(datasets.Value("string")),
    human_ratings=datasets.List(datasets.Value("int32")),
    original_pronoun_gender=datasets.Value("string"),
)


def rows(mirror=None) -> list[dict]:
    """Every kept snippet's ten rows, in file order."""
    found = map_files.load_rows(mirror)
    genders = {
        row.snippet_id: map_files.PRONOUN_GENDERS[row.pronoun["text"].lower()]
        for row in found
        if row.ablation == map_files.ORIGINAL
    }
    return [
        {
            "text": row.text,
            "pronoun": row.pronoun,
            "candidates": [
                {**row.a, "is_referent": row.answer == "A"},
                {**row.b, "is_referent": row.answer == "B"},
            ],
            "id": row.id,
            "snippet_id": row.snippet_id,
            "ablation": row.ablation,
            "answer": row.answer,
            "human_answers": list(row.human_answers),
            "human_ratings": list(row.ratings),
            "original_pronoun_gender": genders[row.snippet_id],
        }
        for row in found
    ]


class Map(builder_base.UpstreamBuilder):
    """MAP: every kept snippet in its original form and its nine ablations, with the crowd annotations."""

    UPSTREAM_DATASET = map_files.DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = citations.cite("cao-daume-iii-2020-toward")
    VERSION = datasets.Version("1.0.0")
    CONFIG_DESCRIPTIONS = {
        "default": "MAP/map.csv: 172 of the 183 snippets (11 name a mention their text does not hold), each "
        "original and with 9 ablations of its gender cues, 1,720 rows with up to three annotations each.",
    }

    def _generate_examples(self):
        yield from builder_base.enumerate_unique(rows(self.mirror), map_files.MAP_FILE)
