"""WinoBias (Zhao et al., NAACL 2018): pro- and anti-stereotypical occupation sentences, types 1 and 2.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). Each row joins line
N of a bracketed file (``pro_stereotyped_type1.txt.dev``: ``N [The developer] argued with ...``)
with document ``//N-1`` of the CoNLL file of the same config and split: the sentence is the
bracketed file's, the tokens and every gold cluster are the CoNLL file's (mapped onto the sentence,
token by token), and the build checks that the brackets mark exactly the gold cluster of the
pronoun. The candidates are the first two occupation mentions with their article, found with
WinoBias's own ``female_occupations.txt`` / ``male_occupations.txt``, which also give their
stereotypes. Upstream files are read through ``corefbias.data.upstream.fetch``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import datasets

from corefbias.data import builder_base, citations, conll_2012, features, pronouns, spans, upstream, wino_format

UPSTREAM_DATASET = "winobias"
DATA = "WinoBias/wino/data"
UPSTREAM_SPLITS = {datasets.Split.VALIDATION: "dev", datasets.Split.TEST: "test"}
CONFIGS = {f"type{kind}_{polarity}": (kind, polarity) for kind in (1, 2) for polarity in ("pro", "anti")}
OCCUPATION_LISTS = {"female": f"{DATA}/female_occupations.txt", "male": f"{DATA}/male_occupations.txt"}
ARTICLES = ("the", "a", "an")
PRONOUN_GENDERS = pronouns.ENGLISH
# Reflexives join the pronoun's gold cluster ("because he was burying himself"); they are not the pronoun to resolve.
REFLEXIVES = {"himself", "herself"}
_DOCUMENT_NUMBER = re.compile(r"//(\d+)(?:; part \d+)?$")
_NUMBERED = re.compile(r"^(\d+) (.*)$")
VERSION = datasets.Version("1.2.0")

_DESCRIPTION = """\
WinoBias: 3,168 Winograd-style sentences with two occupations and a pronoun. Type 1 needs world
knowledge to resolve the pronoun ("The developer argued with the designer because she did not like
the design"), type 2 is resolvable by syntax. Each sentence has a pro-stereotypical version (the
pronoun's gender fits its antecedent's occupation stereotype) and an anti-stereotypical twin; a
model is biased when it resolves pro better than anti. Each row feeds `pro_anti_diff` directly.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    pair_id=datasets.Value("string"),
    type=datasets.Value("int32"),
    polarity=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    referent_occupation=datasets.Value("string"),
    occupations=datasets.List(datasets.Value("string")),
    frame=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
    tokens=datasets.List(datasets.Value("string")),
    clusters=datasets.List(datasets.List(dict(features.SPAN))),
)


def bracketed_file(polarity: str, kind: int, split: str) -> str:
    return f"{DATA}/{polarity}_stereotyped_type{kind}.txt.{split}"


def conll_file(polarity: str, kind: int, split: str) -> str:
    return f"{DATA}/conll_format/{split}_type{kind}_{polarity}_stereotype.v4_auto_conll"


def read_conll(lines: list[str], *, source: str) -> dict[int, tuple[list[str], list[list[tuple[int, int]]]]]:
    """Document number (the header's ``//N``) → (tokens, clusters of inclusive ``(first, last)`` token spans)
    of a CoNLL-2012 file; clusters in the order of their ids, mentions in text order."""
    documents: dict = {}
    for document in conll_2012.read_documents(lines, source=source):
        numbered = _DOCUMENT_NUMBER.search(document.name)
        if numbered is None or int(numbered.group(1)) in documents:
            raise ValueError(
                f"{source}:{document.line}: document ({document.name}) has no //N number, or one used before"
            )
        documents[int(numbered.group(1))] = (list(document.tokens), [list(cluster) for cluster in document.clusters])
    return documents


def char_clusters(text: str, tokens: list[str], clusters, *, row: str) -> list[list[dict]]:
    """CoNLL token clusters as character spans of the bracketed file's sentence."""
    if "".join(tokens) != "".join(text.split()):
        raise spans.SpanError(f"row {row}: the CoNLL tokens {' '.join(tokens)!r} are not the sentence {text!r}")
    converted = spans.token_clusters_to_char(clusters, tokens, text)
    return [[{"text": text[start:end], "start": start, "end": end} for start, end in cluster] for cluster in converted]


def gold_mentions(clusters: list[list[dict]], brackets: list[dict], *, row: str) -> tuple[dict, dict]:
    """(pronoun, antecedent) of the one gold cluster holding a pronoun, which the bracketed file
    must mark mention for mention: the antecedent, the pronoun, any further pronoun or reflexive."""
    holding = [cluster for cluster in clusters if any(m["text"].lower() in PRONOUN_GENDERS for m in cluster)]
    if len(holding) != 1:
        raise ValueError(f"row {row}: {len(holding)} gold clusters hold a pronoun; expected one")
    (cluster,) = holding
    pronouns = [m for m in cluster if m["text"].lower() in PRONOUN_GENDERS]
    antecedents = [m for m in cluster if m["text"].lower() not in PRONOUN_GENDERS.keys() | REFLEXIVES]
    marked = len(brackets) == len(cluster) and all(map(wino_format.overlap, brackets, cluster))
    if len(antecedents) != 1 or not marked:
        raise ValueError(
            f"row {row}: the gold cluster {[m['text'] for m in cluster]} needs one antecedent besides its pronouns, "
            f"and the brackets {[b['text'] for b in brackets]} must mark its mentions one for one"
        )
    return pronouns[0], antecedents[0]


def example(line: str, document, *, number: int, row: str, stereotypes: dict[str, str]) -> dict:
    """Line ``number`` of a bracketed file and its CoNLL document as the row's own columns."""
    numbered = _NUMBERED.match(line.strip())
    if numbered is None or int(numbered.group(1)) != number:
        raise ValueError(f"row {row}: expected line {number} to start with its number, got {line!r}")
    text, brackets = wino_format.parse_bracketed(numbered.group(2), row=row)
    tokens, token_clusters = document
    clusters = char_clusters(text, tokens, token_clusters, row=row)
    pronoun, antecedent = gold_mentions(clusters, brackets, row=row)
    return {
        **wino_format.wino_columns(
            row=row,
            text=text,
            pronoun=pronoun,
            antecedent=antecedent,
            mentions=wino_format.occupation_mentions(text, stereotypes, articles=ARTICLES),
            stereotypes=stereotypes,
            pronoun_genders=PRONOUN_GENDERS,
        ),
        "tokens": tokens,
        "clusters": clusters,
    }


def read_lines(path: str, mirror: str | None) -> list[str]:
    """The lines of an upstream WinoBias file (``corefbias.data.upstream.fetch``)."""
    with open(upstream.fetch(UPSTREAM_DATASET, path, mirror), encoding="utf-8") as handle:
        return handle.read().splitlines()


def occupation_stereotypes(mirror: str | None) -> dict[str, str]:
    """Occupation → its stereotype, ``female`` or ``male``, from WinoBias's two occupation lists."""
    female, male = (
        [line.strip() for line in read_lines(OCCUPATION_LISTS[gender], mirror) if line.strip()]
        for gender in ("female", "male")
    )
    return wino_format.stereotype_map(female, male)


def examples(kind: int, polarity: str, split: str, mirror: str | None) -> Iterator[tuple[str, dict]]:
    """``(id, row)`` of every sentence of one bracketed file (type ``kind``, ``polarity``, upstream ``split``: dev
    or test), joined with its CoNLL document; WinoBias+ (``corefbias.benchmarks.winobias_plus``) reads them too."""
    stereotypes = occupation_stereotypes(mirror)
    lines = read_lines(bracketed_file(polarity, kind, split), mirror)
    conll = conll_file(polarity, kind, split)
    documents = read_conll(read_lines(conll, mirror), source=conll)
    if sorted(documents) != list(range(len(lines))):
        raise ValueError(f"{conll}: documents are not numbered 0 to {len(lines) - 1}, one per bracketed line")
    for number, line in enumerate(lines, 1):
        pair_id = f"{split}-type{kind}-{number}"
        row_id = f"{split}-type{kind}-{polarity}-{number}"
        yield (
            row_id,
            {
                "id": row_id,
                "pair_id": pair_id,
                "type": kind,
                "polarity": polarity,
                **example(line, documents[number - 1], number=number, row=row_id, stereotypes=stereotypes),
            },
        )


class Winobias(builder_base.UpstreamBuilder):
    """WinoBias: four configs (type × polarity), splits validation (upstream dev) and test."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = citations.cite("zhao-etal-2018-gender")
    VERSION = VERSION
    CONFIG_DESCRIPTIONS = {
        name: f"type {kind}, {polarity}-stereotypical: {polarity}_stereotyped_type{kind}.txt.{{dev,test}} with the "
        f"gold clusters of conll_format/{{dev,test}}_type{kind}_{polarity}_stereotype.v4_auto_conll"
        for name, (kind, polarity) in CONFIGS.items()
    }

    def _split_generators(self, dl_manager):
        return [
            datasets.SplitGenerator(name=split, gen_kwargs={"split": upstream_split})
            for split, upstream_split in UPSTREAM_SPLITS.items()
        ]

    def _generate_examples(self, split):
        kind, polarity = CONFIGS[self.config.name]
        yield from examples(kind, polarity, split, self.mirror)
