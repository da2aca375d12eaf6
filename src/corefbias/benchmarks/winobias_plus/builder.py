"""WinoBias+ (Vanmassenhove, Emmery and Shterionov, EMNLP 2021): WinoBias sentences and their gender-neutral rewrites,
labelled by WinoBias.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). Line N of ``WinoBias+.preprocessed``
(gendered) and line N of ``WinoBias+.references`` (its rewrite with *they*) become one row each, in the config of
their version, when the gendered line is exactly one WinoBias sentence (``winobias_plus.lines.match_lines``): that
sentence, as the ``winobias`` builder reads it (``corefbias.benchmarks.winobias.builder.examples``), gives the
pronoun, the referent, the type, the polarity and the split. The pronoun's span moves onto the line by its non-space
characters and onto the rewrite by order (``winobias_plus.lines.rewritten_pronoun``); the candidates are found again
in each line, and each row is checked to name the same occupations and referent as its WinoBias sentence. Upstream
files are read through ``corefbias.data.upstream.fetch``.
"""

from __future__ import annotations

import functools

import datasets

from corefbias.benchmarks.winobias import builder as winobias
from corefbias.benchmarks.winobias_plus import lines
from corefbias.data import builder_base, citations, features, upstream, wino_format

UPSTREAM_DATASET = "winobias_plus"
LINE_FILES = {"gendered": "WinoBias+/data/WinoBias+.preprocessed", "neutral": "WinoBias+/data/WinoBias+.references"}
VERSIONS = tuple(LINE_FILES)
NEUTRAL = "neutral"  # the pronoun_gender of a they form
VERSION = datasets.Version("1.0.0")

_DESCRIPTION = """\
WinoBias+: WinoBias's sentences (3,167 lines) and their rewrites with singular they, line by line. The lines carry
no labels; each line that is exactly one WinoBias sentence (up to tokenisation) takes WinoBias's antecedent,
pronoun, type, polarity and split. Does a model resolve the pronoun as well when it is they as when it is he or
she, and does its pro/anti gap vanish with the gender cue?
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    pair_id=datasets.Value("string"),
    winobias_id=datasets.Value("string"),
    line=datasets.Value("int32"),
    version=datasets.Value("string"),
    type=datasets.Value("int32"),
    polarity=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    source_pronoun_gender=datasets.Value("string"),
    referent_occupation=datasets.Value("string"),
    occupations=datasets.List(datasets.Value("string")),
    frame=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)


def read_lines(version: str, mirror: str | None) -> list[str]:
    """The lines of one of WinoBias+'s two files, outer whitespace stripped."""
    with open(upstream.fetch(UPSTREAM_DATASET, LINE_FILES[version], mirror), encoding="utf-8") as handle:
        return [line.strip() for line in handle.read().splitlines()]


def winobias_sentences(mirror: str | None) -> dict[str, dict]:
    """Every WinoBias row (``winobias`` builder), both splits, by id."""
    return {
        row_id: row
        for kind in (1, 2)
        for polarity in ("pro", "anti")
        for split in winobias.UPSTREAM_SPLITS.values()
        for row_id, row in winobias.examples(kind, polarity, split, mirror)
    }


@functools.lru_cache(maxsize=4)
def matched_lines(mirror: str | None) -> tuple[lines.Matches, dict[str, dict], dict[str, list[str]], dict[str, str]]:
    """How the gendered lines match WinoBias, the WinoBias rows, both files' lines and the occupations' stereotypes
    (computed once per mirror: every config and split reads them)."""
    sentences = winobias_sentences(mirror)
    texts = {version: read_lines(version, mirror) for version in VERSIONS}
    if len(texts["gendered"]) != len(texts["neutral"]):
        raise ValueError(f"WinoBias+: {len(texts['gendered'])} gendered lines but {len(texts['neutral'])} rewrites")
    found = lines.match_lines(texts["gendered"], {row_id: row["text"] for row_id, row in sentences.items()})
    return found, sentences, texts, winobias.occupation_stereotypes(mirror)


def version_columns(text: str, pronoun: dict, source: dict, stereotypes: dict[str, str], *, row: str) -> dict:
    """The shared Wino columns of one version of a line, its candidates found in ``text`` and checked against its
    WinoBias sentence ``source``: the same occupations, in the same order, the same one the referent."""
    mentions = wino_format.occupation_mentions(text, stereotypes, articles=winobias.ARTICLES)
    referent = [candidate["is_referent"] for candidate in source["candidates"]].index(True)
    if len(mentions) < 2:
        raise ValueError(f"row {row}: {len(mentions)} occupation mentions in {text!r}; expected two")
    columns = wino_format.wino_columns(
        row=row,
        text=text,
        pronoun=pronoun,
        antecedent=mentions[referent].span,
        mentions=mentions,
        stereotypes=stereotypes,
        pronoun_genders={**winobias.PRONOUN_GENDERS, **dict.fromkeys(lines.NEUTRAL_FORMS, NEUTRAL)},
    )
    if columns["occupations"] != source["occupations"]:
        raise ValueError(f"row {row}: occupations {columns['occupations']} where WinoBias has {source['occupations']}")
    return columns


def line_rows(index: int, winobias_id: str, mirror: str | None) -> dict[str, dict]:
    """Version → the row of line ``index`` (0-based), matched to the WinoBias sentence ``winobias_id``."""
    _, sentences, texts, stereotypes = matched_lines(mirror)
    source = sentences[winobias_id]
    gendered, neutral = texts["gendered"][index], texts["neutral"][index]
    pronoun = lines.moved_span(source["pronoun"], source["text"], gendered)
    if pronoun["text"] != source["pronoun"]["text"]:
        raise ValueError(f"row {winobias_id}: the pronoun {source['pronoun']['text']!r} is {pronoun['text']!r}")
    pronouns = {
        "gendered": pronoun,
        "neutral": lines.rewritten_pronoun(gendered, pronoun, neutral, row=f"{winobias_id}-neutral"),
    }
    rows = {}
    for version, text in (("gendered", gendered), ("neutral", neutral)):
        row_id = f"{winobias_id}-{version}"
        rows[version] = {
            "id": row_id,
            "pair_id": source["pair_id"],
            "winobias_id": winobias_id,
            "line": index + 1,
            "version": version,
            "type": source["type"],
            "polarity": source["polarity"],
            "source_pronoun_gender": source["pronoun_gender"],
            **version_columns(text, pronouns[version], source, stereotypes, row=row_id),
        }
    return rows


class WinobiasPlus(builder_base.UpstreamBuilder):
    """WinoBias+: configs gendered and neutral (the two files), splits validation (WinoBias dev) and test."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = citations.cite("vanmassenhove-etal-2021-neutral", "zhao-etal-2018-gender")
    VERSION = VERSION
    CONFIG_DESCRIPTIONS = {
        version: f"{version} version: the lines of {path} whose gendered line is one WinoBias sentence, labelled by it"
        for version, path in LINE_FILES.items()
    }

    def _split_generators(self, dl_manager):
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"split": upstream_split})
            for split, upstream_split in winobias.UPSTREAM_SPLITS.items()
        ]

    def _generate_examples(self, split):
        found, sentences, _, _ = matched_lines(self.mirror)
        for index, winobias_id in found.matched.items():
            if winobias_id.startswith(f"{split}-"):
                row = line_rows(index, winobias_id, self.mirror)[self.config.name]
                yield row["id"], row
