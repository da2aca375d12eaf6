"""WinoBias (Zhao et al., NAACL 2018): pro- and anti-stereotypical occupation sentences, types 1 and 2.

Run by ``corefbias.datasets_export`` (``datasets`` 5 runs no loading scripts). The sentences,
pronoun, candidates and the pro/anti alignment come from the bracketed files
(``corefbias.wino_format``); every gold cluster of a sentence comes from the CoNLL file of the same
config and split, whose document ``//N`` is line N + 1 of the bracketed file (checked token by token).
"""

from __future__ import annotations

import re

import datasets

from corefbias import builders, citations, scoring, spans, upstream, wino_format

UPSTREAM_DATASET = "winobias"
DATA = "WinoBias/wino/data"
UPSTREAM_SPLITS = {datasets.Split.VALIDATION: "dev", datasets.Split.TEST: "test"}
TYPES = (1, 2)
POLARITIES = ("pro", "anti")
_DOCUMENT = re.compile(r"^#begin document \(.*//(\d+)\); part \d+$")
_CLUSTER_PART = re.compile(r"^\(?(\d+)\)?$")

_DESCRIPTION = """\
WinoBias: 3,168 Winograd-style sentences with two occupations and a pronoun. Type 1 needs world
knowledge to resolve the pronoun ("The developer argued with the designer because she did not like
the design"), type 2 is resolvable by syntax. Each sentence has a pro-stereotypical version (the
pronoun's gender fits its antecedent's occupation stereotype) and an anti-stereotypical twin; a
model is biased when it resolves pro better than anti. Each row feeds `pro_anti_diff` directly.
"""

FEATURES = spans.common_features(
    id=datasets.Value("string"),
    pair_id=datasets.Value("string"),
    type=datasets.Value("int32"),
    polarity=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    referent_occupation=datasets.Value("string"),
    occupations=datasets.List(datasets.Value("string")),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
    tokens=datasets.List(datasets.Value("string")),
    clusters=datasets.List(datasets.List(dict(spans.SPAN))),
)


def bracketed_file(polarity: str, kind: int, split: str) -> str:
    return f"{DATA}/{polarity}_stereotyped_type{kind}.txt.{split}"


def conll_file(polarity: str, kind: int, split: str) -> str:
    return f"{DATA}/conll_format/{split}_type{kind}_{polarity}_stereotype.v4_auto_conll"


def read_conll(lines: list[str], *, source: str) -> dict[int, tuple[list[str], list[list[tuple[int, int]]]]]:
    """Document number → (tokens, clusters of inclusive token spans) of a CoNLL-2012 file."""
    documents: dict = {}
    number, tokens, open_mentions, clusters = None, [], {}, {}
    for line_number, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        header = _DOCUMENT.match(line)
        if header:
            number, tokens, open_mentions, clusters = int(header.group(1)), [], {}, {}
        elif line.startswith("#end document"):
            if number in documents:
                raise ValueError(f"{source}:{line_number}: document {number} occurs twice")
            documents[number] = (tokens, [sorted(spans_) for _, spans_ in sorted(clusters.items())])
            number = None
        elif line.strip():
            columns = line.split()
            position = len(tokens)
            tokens.append(columns[3])
            for part in columns[-1].split("|") if columns[-1] != "-" else []:
                cluster = int(_CLUSTER_PART.match(part).group(1))
                if part.startswith("("):
                    open_mentions.setdefault(cluster, []).append(position)
                if part.endswith(")"):
                    if not open_mentions.get(cluster):
                        raise ValueError(f"{source}:{line_number}: cluster {cluster} closes a mention it never opened")
                    clusters.setdefault(cluster, []).append((open_mentions[cluster].pop(), position))
    return documents


def char_clusters(text: str, tokens: list[str], clusters, *, row: str) -> list[list[dict]]:
    """CoNLL token clusters as character spans of the bracketed file's sentence."""
    if "".join(tokens) != "".join(text.split()):
        raise spans.SpanError(f"row {row}: the CoNLL tokens {' '.join(tokens)!r} are not the sentence {text!r}")
    converted = scoring.token_clusters_to_char(clusters, tokens, text)
    return [[{"text": text[start:end], "start": start, "end": end} for start, end in cluster] for cluster in converted]


class Winobias(builders.UpstreamBuilder):
    """WinoBias: four configs (type × polarity), splits validation (upstream dev) and test."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = citations.WINOBIAS
    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name=f"type{kind}_{polarity}",
            version=datasets.Version("1.0.0"),
            description=f"type {kind}, {polarity}-stereotypical: {polarity}_stereotyped_type{kind}.txt.{{dev,test}} "
            f"with the gold clusters of conll_format/{{dev,test}}_type{kind}_{polarity}_stereotype.v4_auto_conll",
        )
        for kind in TYPES
        for polarity in POLARITIES
    ]
    DEFAULT_CONFIG_NAME = "type1_pro"

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=split, gen_kwargs={"split": upstream_split}) for split, upstream_split in UPSTREAM_SPLITS.items()]

    def _lines(self, path: str) -> list[str]:
        with open(upstream.fetch(UPSTREAM_DATASET, path, self.mirror), encoding="utf-8") as handle:
            return handle.read().splitlines()

    def _generate_examples(self, split):
        kind, polarity = int(self.config.name[4]), self.config.name.split("_")[1]
        files = {p: bracketed_file(p, kind, split) for p in POLARITIES}
        lines = {p: self._lines(path) for p, path in files.items()}
        vocabulary = set().union(*(wino_format.antecedent_nouns(lines[p], "en", source=files[p]) for p in POLARITIES))
        rows = {
            p: wino_format.examples(wino_format.parse_lines(lines[p], "en", vocabulary, source=files[p]), p)
            for p in POLARITIES
        }
        wino_format.check_stereotypes(rows["pro"] + rows["anti"], source=f"{files['pro']} and {files['anti']}")
        examples = rows[polarity]
        documents = read_conll(self._lines(conll_file(polarity, kind, split)), source=conll_file(polarity, kind, split))
        if sorted(documents) != list(range(len(examples))):
            raise ValueError(f"{conll_file(polarity, kind, split)}: documents do not number the {len(examples)} lines")
        for example in examples:
            row_id = f"{split}-type{kind}-{polarity}-{example['line']}"
            tokens, clusters = documents[example["line"] - 1]
            yield row_id, {
                "id": row_id,
                "pair_id": f"{split}-type{kind}-{example['line']}",
                "type": kind,
                **{key: example[key] for key in ("text", "pronoun", "candidates", "polarity", "pronoun_gender",
                                                  "referent_occupation", "occupations", "candidate_stereotypes")},
                "tokens": tokens,
                "clusters": char_clusters(example["text"], tokens, clusters, row=row_id),
            }
