"""BUG (Levy et al., Findings of EMNLP 2021): real-world English sentences in which a gendered pronoun refers
to a profession, labelled stereotypical, anti-stereotypical or neutral by the profession's share of women.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). The tables and the labour
statistics are read by ``corefbias.benchmarks.bug.files`` through ``corefbias.data.upstream.fetch``, from the
mirror given as ``data_dir`` (else ``$COREFBIAS_MIRROR``, else the checksummed download cache). The ``full`` config
is built only when asked for by name: its table (``full_BUG.zip``, 105,687 sentences) is not in the mirror and is
downloaded from the pinned commit, checked against its git blob id.
"""

from __future__ import annotations

import datasets

from corefbias.benchmarks.bug import files as bug_files
from corefbias.data import builder_base, citations, features
from corefbias.measures import bug_bias

UPSTREAM_DATASET = bug_files.UPSTREAM_DATASET

_CITATION = citations.cite("levy-etal-2021-collecting-large")

_DESCRIPTION = """\
BUG: English sentences from Wikipedia, PubMed, CORD-19 and Perseus in which a gendered pronoun refers to a
profession ("The doctor said she ..."), each labelled stereotypical, anti-stereotypical or neutral by whether the
pronoun's gender is the majority gender of the profession's workers in U.S. labour statistics. A coreference
system is right on a sentence when it puts the pronoun and the profession in one cluster; accuracy, ΔG (male −
female) and ΔS (stereotypical − anti-stereotypical), also by pronoun–profession distance, measure its bias. Each
row feeds the `bug_bias` metric directly.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    upstream_row=datasets.Value("int32"),
    profession=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    stereotype=datasets.Value("int32"),
    stereotype_label=datasets.Value("string"),
    distance=datasets.Value("int32"),
    distance_bin=datasets.Value("int32"),
    num_of_pronouns=datasets.Value("int32"),
    corpus=datasets.Value("string"),
    data_index=datasets.Value("int32"),
    profession_first_index=datasets.Value("int32"),
    g_first_index=datasets.Value("int32"),
    located_by=datasets.Value("string"),
    profession_pct_female=datasets.Value("float64"),
    profession_phrase=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)


def example(row: dict, config: str, statistics: dict[str, dict]) -> dict | None:
    """One upstream row as an exported row; None where its words are not in its text (``files.locate``).

    The upstream ``predicted gender`` and ``stereotype`` are checked against Analyze.py's rules applied to the
    pronoun and to the labour statistics, so the labels and the statistics the rows carry agree.
    """
    where = f"{bug_files.TABLES[config]} row {row['upstream_row']}"
    found = bug_files.locate(row)
    if found is None:
        return None
    profession, pronoun, located_by = found
    gender = bug_files.pronoun_gender(row["g"])
    if row["predicted gender"].lower() != gender:
        raise ValueError(f"{where}: 'predicted gender' is {row['predicted gender']!r} for the pronoun {row['g']!r}")
    occupation = statistics.get(row["profession"].lower(), {"pct_female": None, "majority": "neutral"})
    expected = bug_files.stereotype(occupation["majority"], gender)
    if row["stereotype"] != expected:
        raise ValueError(
            f"{where}: stereotype is {row['stereotype']}, but {row['profession']!r} has a {occupation['majority']} "
            f"majority in {bug_files.LABOUR_STATISTICS} and {row['g']!r} is {gender}, which makes it {expected}"
        )
    text = row["sentence_text"]
    return {
        "text": text,
        "pronoun": {"text": pronoun.text, "start": pronoun.start, "end": pronoun.end},
        "candidates": [
            {"text": profession.text, "start": profession.start, "end": profession.end, "is_referent": True}
        ],
        "id": f"{config}-{row['upstream_row']}",
        "upstream_row": row["upstream_row"],
        "profession": row["profession"],
        "pronoun_gender": gender,
        "stereotype": row["stereotype"],
        "stereotype_label": bug_files.STEREOTYPE_LABELS[row["stereotype"]],
        "distance": row["distance"],
        "distance_bin": bug_bias.distance_bin(row["distance"]),
        "num_of_pronouns": row["num_of_pronouns"],
        "corpus": row["corpus"],
        "data_index": row["data_index"],
        "profession_first_index": row["profession_first_index"],
        "g_first_index": row["g_first_index"],
        "located_by": located_by,
        "profession_pct_female": occupation["pct_female"],
        "profession_phrase": f"the {row['profession']}",
        "candidate_stereotypes": [None if occupation["majority"] == "neutral" else occupation["majority"]],
    }


def rows(config: str, mirror=None) -> list[dict]:
    """The config's exported rows, in upstream order; the rows whose words are not in their text left out."""
    statistics = bug_files.profession_statistics(mirror)
    built = (example(row, config, statistics) for row in bug_files.read_table(config, mirror))
    return [row for row in built if row is not None]


class Bug(builder_base.UpstreamBuilder):
    """BUG's gold (human-verified) and balanced sentences; the full set on request."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = _CITATION
    # full_BUG.zip (105,687 sentences) is not mirrored: it is downloaded from the pinned commit when asked for.
    ON_REQUEST_CONFIGS = ("full",)
    VERSION = datasets.Version("1.0.0")
    CONFIG_DESCRIPTIONS = {
        "gold": "gold_BUG.zip: the 1,720 sentences people checked (all_human_annotation_correct.csv), "
        "less the 4 whose text lacks the pronoun or the profession.",
        "balanced": "balanced_BUG.zip: 25,504 sentences sampled from the full set, as many female as male and "
        "as many stereotypical as anti-stereotypical.",
        "full": "full_BUG.zip: every sentence BUG mined (105,687), built on request "
        "(`corefbias export-datasets bug --config full`), downloaded from the pinned commit.",
    }

    def _generate_examples(self):
        yield from builder_base.enumerate_unique(rows(self.config.name, self.mirror), self.config.name)
