"""DaWinoBias (Koppelgaard & Brødbæk 2021, scored by GenDa Lens): WinoBias's type-1 sentences in Danish.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). Line N of
``data/da_{pro,anti}_stereotyped_type1_{dev,test}.txt`` brackets the gold antecedent and the
pronoun (``[Udvikleren] diskuterede med designeren, fordi [han] ...``); the candidates are the
sentence's two occupation mentions, found with the occupation lists of GenDa Lens's DaWinoBias
scorer, which also give their stereotypes. Parsing is ``corefbias.data.wino_format``, shared with
WinoBias. Upstream files are read through ``corefbias.data.upstream.fetch``.
"""

from __future__ import annotations

import re

import datasets

from corefbias.data import builder_base, citations, features, pronouns, upstream, wino_format

UPSTREAM_DATASET = "dawinobias"
UPSTREAM_SPLITS = {datasets.Split.VALIDATION: "dev", datasets.Split.TEST: "test"}
POLARITIES = ("pro", "anti")
PRONOUN_GENDERS = pronouns.DANISH
GENITIVE = "s"  # "receptionistens løn": the receptionist's salary
VERSION = datasets.Version("1.2.0")

# The stereotype lists GenDa Lens scores DaWinoBias with: ``load_occs`` in
# https://github.com/DaDebias/genda-lens/blob/26dc297cff0566f6743f932511a4a2702eae6d17/genda_lens/coref_tasks/wino_utils.py
# (not a mirrored file: the mirror keeps GenDa Lens's data, not its code). They name every occupation of
# the sentences; the repository's abc-adaption/data/wino_{fem,male}.txt differ (see the card).
FEMALE_OCCUPATIONS = (
    "ekspedienten",
    "læreren",
    "sygeplejersken",
    "assistenten",
    "sekretæren",
    "revisoren",
    "rengøringsassistenten",
    "receptionisten",
    "kontorassistenten",
    "rådgiveren",
    "designeren",
    "frisøren",
    "skribenten",
    "husholdersken",
    "bageren",
    "bogholderen",
    "redaktøren",
    "bibliotekaren",
    "syersken",
)
MALE_OCCUPATIONS = (
    "chaufføren",
    "supervisoren",
    "viceværten",
    "kokken",
    "flyttemanden",
    "bygningsarbejderen",
    "lederen",
    "udvikleren",
    "tømreren",
    "bestyreren",
    "advokaten",
    "landmanden",
    "sælgeren",
    "lægen",
    "vagten",
    "analytikeren",
    "mekanikeren",
    "direktøren",
)
STEREOTYPES = wino_format.stereotype_map(FEMALE_OCCUPATIONS, MALE_OCCUPATIONS)
_PRONOUN = re.compile(rf"(?<!\w)(?:{'|'.join(PRONOUN_GENDERS)})(?!\w)", re.IGNORECASE)

_DESCRIPTION = """\
DaWinoBias: WinoBias's type-1 sentences translated into Danish (dev 342, test 332 per polarity),
each in a pro-stereotypical version (the pronoun's gender fits its antecedent's occupation
stereotype) and an anti-stereotypical twin. GenDa Lens reports accuracy on each and the Gender
Effect Size log2(pro / anti). Each row feeds `pro_anti_diff` directly.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    pair_id=datasets.Value("string"),
    polarity=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    referent_occupation=datasets.Value("string"),
    occupations=datasets.List(datasets.Value("string")),
    frame=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)


def bracketed_file(polarity: str, split: str) -> str:
    return f"data/da_{polarity}_stereotyped_type1_{split}.txt"


def unbracketed_pronoun(text: str, after: int, *, row: str) -> dict:
    """The one pronoun after the antecedent, for a line that brackets only the antecedent."""
    found = list(_PRONOUN.finditer(text, after))
    if len(found) != 1:
        raise ValueError(
            f"row {row}: the pronoun is not bracketed and {len(found)} pronouns follow the antecedent "
            f"in {text!r}; expected one"
        )
    return {"text": found[0].group(0), "start": found[0].start(), "end": found[0].end()}


def example(line: str, *, row: str) -> dict:
    """One bracketed line as the row's own columns: ``[antecedent] ... [pronoun] ...``."""
    text, brackets = wino_format.parse_bracketed(line, row=row)
    if len(brackets) > 2:
        raise ValueError(
            f"row {row}: {len(brackets)} bracketed phrases in {line!r}; expected the antecedent and the pronoun"
        )
    antecedent = brackets[0]
    pronoun = brackets[1] if len(brackets) == 2 else unbracketed_pronoun(text, antecedent["end"], row=row)
    return wino_format.wino_columns(
        row=row,
        text=text,
        pronoun=pronoun,
        antecedent=antecedent,
        mentions=wino_format.occupation_mentions(text, STEREOTYPES, suffixes=(GENITIVE,)),
        stereotypes=STEREOTYPES,
        pronoun_genders=PRONOUN_GENDERS,
    )


class Dawinobias(builder_base.UpstreamBuilder):
    """DaWinoBias: configs pro and anti, splits validation (upstream dev) and test."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = citations.cite(
        "koppelgaard-brodbaek-2021-dawinobias", "sloth-rybner-2023-genda-lens", "zhao-etal-2018-gender"
    )
    VERSION = VERSION
    CONFIG_DESCRIPTIONS = {
        polarity: f"{polarity}-stereotypical: data/da_{polarity}_stereotyped_type1_{{dev,test}}.txt"
        for polarity in POLARITIES
    }

    def _split_generators(self, dl_manager):
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"split": upstream_split})
            for split, upstream_split in UPSTREAM_SPLITS.items()
        ]

    def _generate_examples(self, split):
        polarity = self.config.name
        path = upstream.fetch(UPSTREAM_DATASET, bracketed_file(polarity, split), self.mirror)
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        for number, line in enumerate(lines, 1):
            row_id = f"{split}-{polarity}-{number}"
            yield (
                row_id,
                {
                    "id": row_id,
                    "pair_id": f"{split}-{number}",
                    "polarity": polarity,
                    **example(line, row=row_id),
                },
            )
