"""Counter-GAP (Xie et al., EACL 2023): 4008 instances in 1002 quadruples, built from upstream C-GAP.tsv.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts): the export writes
Parquet files and a card, which ``datasets.load_dataset`` then reads. The upstream file is read
through ``corefbias.data.upstream.fetch`` from the mirror given as ``data_dir`` (else
``$COREFBIAS_MIRROR``, else the checksummed download cache).
"""

from __future__ import annotations

import re
from collections import defaultdict

import datasets

from corefbias.benchmarks.counter_gap import ids as counter_gap_format
from corefbias.data import builder_base, citations, features, pronouns, spans, upstream
from corefbias.measures.counter_gap_delta_i import ROLES

UPSTREAM_DATASET = "counter_gap"
FILES = {"default": "data/C-GAP.tsv", "withdot": "data/C-GAP-withdot.tsv"}
BOOKCORPUS, GUTENBERG = "BookCorpus", "Gutenberg"
# Book column: Smashwords e-book file names ("vendetta.epub") are BookCorpus books; Project
# Gutenberg e-books are named by their PG number ("pg17314 Five Children and It (by E. Nesbit)",
# or "293-0 Paul Prescott's Charge (by Horatio Alger)" after PG's <number>-0.txt file names).
_GUTENBERG_BOOK = re.compile(r"^(?:pg\d+|\d+-0) .+ \(by .+\)$")

_CITATION = citations.cite("xie-etal-2023-counter")

_DESCRIPTION = """\
Counter-GAP groups 4008 GAP-style instances (a passage, an ambiguous gendered pronoun and two
candidate names A and B) into 1002 quadruples: an original passage, a gender-controlled copy (names
swapped within the gender) and two gender-swapped copies (gendered words and names swapped across
genders). Each row feeds the `counter_gap_delta_i` metric directly.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    quadruple_id=datasets.Value("string"),
    role=datasets.Value("string"),
    gender=datasets.Value("string"),
    source=datasets.Value("string"),
    book=datasets.Value("string"),
)


def source_of(book: str, row: str) -> str:
    if book.endswith(".epub"):
        return BOOKCORPUS
    if _GUTENBERG_BOOK.match(book):
        return GUTENBERG
    raise ValueError(f"row {row}: cannot tell the source corpus of Book {book!r}")


def example(row: dict) -> dict:
    """One upstream C-GAP row as an exported row (offsets checked against the text)."""
    row_id = row["ID"]
    return {
        **spans.gap_columns(row),
        "id": row_id,
        "quadruple_id": counter_gap_format.quadruple_of(row_id),
        "role": counter_gap_format.role_of(row_id),
        "gender": pronouns.ENGLISH[row["Pronoun"].lower()],
        "source": source_of(row["Book"], row_id),
        "book": row["Book"],
    }


def check_quadruples(examples: list[dict], path: str) -> None:
    """Every quadruple has each role once; controlled copies keep the gender, swapped ones flip it."""
    by_quadruple: dict[str, dict[str, dict]] = defaultdict(dict)
    for ex in examples:
        roles = by_quadruple[ex["quadruple_id"]]
        if ex["role"] in roles:
            raise ValueError(f"{path}: quadruple {ex['quadruple_id']} has role {ex['role']} twice (row {ex['id']})")
        roles[ex["role"]] = ex
    for quadruple, roles in by_quadruple.items():
        missing = [role for role in ROLES if role not in roles]
        if missing:
            raise ValueError(f"{path}: quadruple {quadruple} lacks {', '.join(missing)}")
        original = roles["original"]["gender"]
        for role in ROLES[1:]:
            expected_same = role == "gender_controlled"
            if (roles[role]["gender"] == original) != expected_same:
                raise ValueError(
                    f"{path}: row {roles[role]['id']} ({role}) has gender {roles[role]['gender']} but the "
                    f"original of quadruple {quadruple} is {original}"
                )


class CounterGap(builder_base.UpstreamBuilder):
    """Counter-GAP: the dotless version the paper evaluates (`default`) and the original (`withdot`)."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = _CITATION
    VERSION = datasets.Version("1.0.0")
    CONFIG_DESCRIPTIONS = {
        "default": "data/C-GAP.tsv: dots after titles removed (Mr, Mrs); the version the paper evaluates.",
        "withdot": "data/C-GAP-withdot.tsv: the original text, with dots after titles (Mr., Mrs.).",
    }

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={"path": FILES[self.config.name]})]

    def _generate_examples(self, path):
        rows = upstream.read_tsv(UPSTREAM_DATASET, path, self.mirror)
        examples = [example(row) for row in rows]
        check_quadruples(examples, path)
        yield from builder_base.enumerate_unique(examples, path)
