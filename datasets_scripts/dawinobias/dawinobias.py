"""DaWinoBias (the Danish WinoBias of NLP-exam/DaWinoBias, scored by GenDa Lens): type-1 sentences.

Run by ``corefbias.datasets_export`` (``datasets`` 5 runs no loading scripts). The bracketed files
are read with ``corefbias.wino_format``, the parser WinoBias shares; the occupation stereotypes
come from GenDa Lens's lists of female- and male-stereotyped Danish occupations.
"""

from __future__ import annotations

import datasets

from corefbias import builders, citations, spans, upstream, wino_format

UPSTREAM_DATASET = "dawinobias"
UPSTREAM_SPLITS = {datasets.Split.VALIDATION: "dev", datasets.Split.TEST: "test"}
POLARITIES = ("pro", "anti")
STEREOTYPE_LISTS = {"female": "abc-adaption/data/wino_fem.txt", "male": "abc-adaption/data/wino_male.txt"}

_DESCRIPTION = """\
DaWinoBias: WinoBias's type-1 sentences translated into Danish (dev 342, test 332 per polarity),
each in a pro-stereotypical version (the pronoun's gender fits its antecedent's occupation
stereotype) and an anti-stereotypical twin. GenDa Lens reports accuracy on each and the Gender
Effect Size log2(pro / anti). Each row feeds `pro_anti_diff` directly.
"""

FEATURES = spans.common_features(
    id=datasets.Value("string"),
    pair_id=datasets.Value("string"),
    polarity=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    referent_occupation=datasets.Value("string"),
    occupations=datasets.List(datasets.Value("string")),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)


def bracketed_file(polarity: str, split: str) -> str:
    return f"data/da_{polarity}_stereotyped_type1_{split}.txt"


def genda_lens_stereotypes(mirror=None) -> dict[str, str]:
    """GenDa Lens's occupation lists (definite Danish nouns) → "female" / "male"."""
    found = {}
    for gender, path in STEREOTYPE_LISTS.items():
        with open(upstream.fetch("genda_lens", path, mirror), encoding="utf-8") as handle:
            found.update((line.strip().lower(), gender) for line in handle if line.strip())
    return found


def stereotype_of(occupation: str, stereotypes: dict[str, str]) -> str | None:
    """The listed stereotype of a mention's noun: "receptionistens løn" → "receptionisten" (genitive)."""
    noun = occupation.split()[0].lower()
    return stereotypes.get(noun) or (stereotypes.get(noun[:-1]) if noun.endswith("s") else None)


class Dawinobias(builders.UpstreamBuilder):
    """DaWinoBias: configs pro and anti, splits validation (upstream dev) and test."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = citations.GENDA_LENS + citations.WINOBIAS
    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name=polarity,
            version=datasets.Version("1.0.0"),
            description=f"{polarity}-stereotypical: da_{polarity}_stereotyped_type1_{{dev,test}}.txt",
        )
        for polarity in POLARITIES
    ]
    DEFAULT_CONFIG_NAME = "pro"

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=split, gen_kwargs={"split": upstream_split}) for split, upstream_split in UPSTREAM_SPLITS.items()]

    def _generate_examples(self, split):
        files = {polarity: bracketed_file(polarity, split) for polarity in POLARITIES}
        lines = {}
        for polarity, path in files.items():
            with open(upstream.fetch(UPSTREAM_DATASET, path, self.mirror), encoding="utf-8") as handle:
                lines[polarity] = handle.read().splitlines()
        vocabulary = set().union(*(wino_format.antecedent_nouns(lines[p], "da", source=files[p]) for p in POLARITIES))
        stereotypes = genda_lens_stereotypes(self.mirror)
        rows = {
            p: wino_format.examples(
                wino_format.parse_lines(lines[p], "da", vocabulary, source=files[p]), p,
                lambda occupation: stereotype_of(occupation, stereotypes),
            )
            for p in POLARITIES
        }
        for example in rows[self.config.name]:
            row_id = f"{split}-{self.config.name}-{example['line']}"
            yield row_id, {
                "id": row_id,
                "pair_id": f"{split}-{example['line']}",
                **{key: example[key] for key in ("text", "pronoun", "candidates", "polarity", "pronoun_gender",
                                                  "referent_occupation", "occupations", "candidate_stereotypes")},
            }
