"""ABC, the Anti-reflexive Bias Challenge (González et al., EMNLP 2020), coreference sentences: Danish as
GenDa Lens evaluates them (`genda`) and as ABC published them (`original`), and ABC's Swedish, Russian and
Chinese files (`sv`, `ru`, `zh`).

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). The Danish files and ABC's
occupation table are parsed by ``corefbias.benchmarks.abc.files``, the other languages' files by
``corefbias.benchmarks.abc.languages``; upstream files are read through
``corefbias.data.upstream.fetch`` from the mirror given as ``data_dir`` (else ``$COREFBIAS_MIRROR``, else
the checksummed download cache).
"""

from __future__ import annotations

import functools

import datasets

from corefbias.benchmarks.abc import files as abc_format
from corefbias.benchmarks.abc import languages
from corefbias.data import builder_base, citations, features

UPSTREAM_DATASET = "abc"

_CITATION = citations.cite("gonzalez-etal-2020-type", "sloth-rybner-2023-genda-lens")

_DESCRIPTION = """\
ABC (Anti-reflexive Bias Challenge), coreference part, in Danish, Swedish, Russian and Chinese: every
sentence ("revisoren glemmer [PRON] kreditkort på bordet") comes in three versions, with the reflexive
possessive ("sin"/"sit"/"sine"), which refers to the subject occupation, and with each anti-reflexive
("hans", "hendes"), which by grammar never does. A model that links an anti-reflexive to the subject
makes a grammar error; comparing how often it does so for the male and the female pronoun measures
gender bias. Each row feeds the `abc_fpr_ratio` metric directly.
"""

_COMMON = dict(
    id=datasets.Value("string"),
    triplet_id=datasets.Value("string"),
    pronoun_type=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    occupation=datasets.Value("string"),
    occupation_gender=datasets.Value("string"),
    frame=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)
FEATURES = {
    "genda": features.common_features(**_COMMON),
    "original": features.common_features(
        **_COMMON,
        occupation_english=datasets.Value("string"),
        **{column: datasets.Value("float64") for column in abc_format.STATISTICS_COLUMNS},
    ),
    **{
        code: features.common_features(
            **_COMMON,
            occupation_english=datasets.Value("string"),
            **{
                column: datasets.Value("float64")
                for column in (f"pct_female_{code}", *abc_format.US_STATISTICS_COLUMNS)
            },
            frame_differs=datasets.Value("bool"),
        )
        for code in languages.LANGUAGES
    },
}


def triplet_rows(triplet, triplet_id: str, occupation_gender: str | None, **extra) -> list[dict]:
    """The three rows of one triplet (``files.Triplet`` or ``languages.Version``s); the subject occupation is the
    one candidate, the frame the reflexive version's."""
    rows = []
    frame = abc_format.frame_of(triplet[0])
    for sentence in triplet:
        rows.append(
            {
                "text": sentence.text,
                "pronoun": sentence.pronoun,
                "candidates": [{**sentence.subject, "is_referent": sentence.pronoun_type == "reflexive"}],
                "id": f"{triplet_id}-{sentence.pronoun_type}",
                "triplet_id": triplet_id,
                "pronoun_type": sentence.pronoun_type,
                "pronoun_gender": sentence.pronoun_gender,
                "occupation": sentence.subject["text"],
                "occupation_gender": occupation_gender,
                "frame": frame,
                "candidate_stereotypes": [occupation_gender],
                **extra,
            }
        )
    return rows


def genda_rows(mirror=None) -> list[dict]:
    """GenDa Lens's female-occupation file, then its male-occupation file (GenDa Lens's order)."""
    rows = []
    for occupation_gender, (dataset, path) in abc_format.GENDA_LENS_SENTENCES.items():
        for index, triplet in enumerate(abc_format.read_triplets(dataset, path, mirror)):
            rows += triplet_rows(triplet, f"{occupation_gender}-{index:04d}", occupation_gender)
    return rows


def original_rows(mirror=None) -> list[dict]:
    """ABC's ``coref_lm.da`` in file order, with the occupation's row of ABC's statistics."""
    rows = []
    for index, (triplet, occupation) in enumerate(abc_format.original_triplets(mirror)):
        statistics = {key: value for key, value in occupation.items() if key != "occupation_gender"}
        rows += triplet_rows(triplet, f"{index:04d}", occupation["occupation_gender"], **statistics)
    return rows


def language_rows(code: str, mirror=None) -> list[dict]:
    """ABC's ``coref_lm.<code>`` in file order: its kept triplets, each with its occupation's row of ABC's table;
    ``triplet_id`` is the triplet's position in the file, so the ids of left-out triplets are missing."""
    rows = []
    for triplet in languages.read_language(code, mirror):
        if triplet.versions is None:
            continue
        statistics = {key: value for key, value in triplet.occupation.items() if key != "occupation_gender"}
        rows += triplet_rows(
            triplet.versions,
            f"{triplet.index:04d}",
            triplet.occupation["occupation_gender"],
            **statistics,
            frame_differs=triplet.frame_differs,
        )
    return rows


_VERSION = datasets.Version("1.1.0")
_ROWS = {
    "genda": genda_rows,
    "original": original_rows,
    **{code: functools.partial(language_rows, code) for code in languages.LANGUAGES},
}


class Abc(builder_base.UpstreamBuilder):
    """ABC's coreference triplets: Danish as GenDa Lens has them (`genda`) and as ABC does (`original`), and ABC's
    Swedish, Russian and Chinese ones (`sv`, `ru`, `zh`)."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    CONFIG_SOURCES = {"genda": "genda_lens"}  # GenDa Lens's copies of the sentences, not ABC's
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    VERSION = _VERSION
    CONFIG_DESCRIPTIONS = {
        "genda": "GenDa Lens genda_lens/data/abc_fem_sents.txt and abc_male_sents.txt: 30 stereotypically female and "
        "30 male occupations × 76 sentences, the version GenDa Lens scores.",
        "original": "ABC data/COREF_LM/coref_lm.da: 60 occupations × 76 sentences, with ABC's occupation statistics "
        "(Ocupation_stats - 1.1.tsv).",
        **{
            code: f"ABC data/COREF_LM/coref_lm.{code}: the {language.name} triplets, 60 occupations × 76 sentences, "
            f"less those the file leaves without an anti-reflexive, with ABC's occupation statistics "
            f"({language.statistics_column} and the U.S. figures)."
            for code, language in languages.LANGUAGES.items()
        },
    }

    @property
    def FEATURES(self) -> datasets.Features:  # all but genda add ABC's occupation statistics
        return FEATURES[self.config.name]

    def _generate_examples(self):
        yield from builder_base.enumerate_unique(_ROWS[self.config.name](self.mirror), self.config.name)
