"""Winogender schemas (Rudinger et al., NAACL 2018): 720 sentences with pronoun and mention spans.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). The sentences and
their metadata come from ``corefbias.benchmarks.winogender.files.load_sentences`` (upstream all_sentences.tsv and
occupations-stats.tsv); the spans are located by re-instantiating each sentence's template from
upstream templates.tsv and checking that the result is, character for character, the upstream
sentence. Upstream files are read through ``corefbias.data.upstream.fetch`` from the mirror given as
``data_dir`` (else ``$COREFBIAS_MIRROR``, else the checksummed download cache).
"""

from __future__ import annotations

import re

import datasets

from corefbias.benchmarks.winogender import files as winogender_files
from corefbias.data import builder_base, citations, features, spans, upstream
from corefbias.measures import winogender_bias

UPSTREAM_DATASET = winogender_files.UPSTREAM_DATASET
TEMPLATES_FILE = "data/templates.tsv"
GENERIC_PARTICIPANT = "someone"
PRONOUNS = {
    "NOM_PRONOUN": {"female": "she", "male": "he", "neutral": "they"},
    "POSS_PRONOUN": {"female": "her", "male": "his", "neutral": "their"},
    "ACC_PRONOUN": {"female": "her", "male": "him", "neutral": "them"},
}
# Singular "they" takes plural verb forms; upstream writes "they were" where the template has "$NOM_PRONOUN was".
_THEY_AGREEMENT = {"was": "were", "is": "are", "has": "have", "does": "do"}
_VERB_AFTER = re.compile(r"^ (was|is|has|does)\b")
# A placeholder with the determiner before it: the mention span covers "the surgeon", "a student".
_SLOT = re.compile(
    r"(?:\b(?P<det>[Tt]he|[Aa]) )?\$(?P<slot>OCCUPATION|PARTICIPANT|NOM_PRONOUN|POSS_PRONOUN|ACC_PRONOUN)"
)

_CITATION = citations.cite("rudinger-etal-2018-gender")

_DESCRIPTION = """\
Winogender schemas: 720 sentences (60 occupations × 2 templates × 2 participants × 3 pronoun
genders) in which a pronoun refers to an OCCUPATION ("the technician") or a PARTICIPANT ("the
customer", "someone"); the correct answer never depends on the pronoun's gender. Each row feeds the
`winogender_bias` metric directly.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    sentid=datasets.Value("string"),
    occupation=datasets.Value("string"),
    participant=datasets.Value("string"),
    answer=datasets.Value("string"),
    gender=datasets.Value("string"),
    pair_id=datasets.Value("string"),
    bls_pct_female=datasets.Value("float64"),
    bergsma_pct_female=datasets.Value("float64"),
    gotcha=datasets.Value("bool"),
    pronoun_gender=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)


def templates(mirror=None) -> dict[tuple[str, str], dict]:
    """(occupation, answer) → upstream template row."""
    found = {}
    for row in upstream.read_tsv(UPSTREAM_DATASET, TEMPLATES_FILE, mirror):
        key = (row["occupation(0)"], winogender_files.ANSWER_CODES[row["answer"]])
        if key in found:
            raise ValueError(f"{TEMPLATES_FILE}: two templates for occupation {key[0]!r} with answer {key[1]}")
        found[key] = row
    return found


def _capitalized(word: str, capital: bool) -> str:
    return word[:1].upper() + word[1:] if capital else word


def instantiate(template: str, occupation: str, participant: str, gender: str) -> tuple[str, dict[str, dict]]:
    """The sentence of one template with its spans: ``occupation``, ``participant``, ``pronoun``.

    The generic participant replaces its determiner too ("the $PARTICIPANT" → "someone").
    """
    pieces: list[str] = []
    found: dict[str, dict] = {}
    position = 0
    length = 0
    agree = False
    for match in list(_SLOT.finditer(template)) + [None]:
        before = template[position : match.start() if match else len(template)]
        if agree:
            before = _VERB_AFTER.sub(lambda verb: " " + _THEY_AGREEMENT[verb.group(1)], before)
            agree = False
        if match is None:
            pieces.append(before)
            break
        pieces.append(before)
        length += len(before)
        slot, det = match.group("slot"), match.group("det")
        if slot in PRONOUNS:
            word = PRONOUNS[slot][gender]
            if det:
                raise ValueError(f"template {template!r}: determiner before ${slot}")
            # A sentence-initial pronoun would be capitalized (upstream templates have none).
            preceding = "".join(pieces).rstrip()
            word = _capitalized(word, not preceding or preceding.endswith((".", "!", "?")))
            key = "pronoun"
            agree = slot == "NOM_PRONOUN" and gender == "neutral"
        else:
            key = slot.lower()
            noun = occupation if slot == "OCCUPATION" else participant
            if slot == "PARTICIPANT" and participant == GENERIC_PARTICIPANT:
                word = _capitalized(GENERIC_PARTICIPANT, bool(det) and det[0].isupper())
            else:
                word = f"{det} {noun}" if det else noun
        if key in found:
            raise ValueError(f"template {template!r} has ${slot} twice")
        found[key] = {"text": word, "start": length, "end": length + len(word)}
        pieces.append(word)
        length += len(word)
        position = match.end()
    missing = {"occupation", "participant", "pronoun"} - found.keys()
    if missing:
        raise ValueError(f"template {template!r} lacks {sorted(missing)}")
    return "".join(pieces), found


def example(sentence: dict, template: dict) -> dict:
    """One upstream sentence (from ``winogender_files.load_sentences``) as an exported row."""
    sentid, text = sentence["sentid"], sentence["sentence"]
    expected, found = instantiate(
        template["sentence"], sentence["occupation"], sentence["participant"], sentence["gender"]
    )
    if expected != text:
        raise spans.SpanError(
            f"row {sentid}: the sentence {text!r} is not its template instantiated ({expected!r}); "
            f"cannot locate its spans"
        )
    for key, span in found.items():
        spans.span_at(text, span["start"], span["text"], row=sentid, what=key)
    candidates = [{**found[role], "is_referent": sentence["answer"] == role} for role in ("occupation", "participant")]
    return {
        "text": text,
        "pronoun": found["pronoun"],
        "candidates": candidates,
        **{key: sentence[key] for key in FEATURES if key in sentence and key not in ("text", "pronoun", "candidates")},
        "id": sentid,
        "pronoun_gender": sentence["gender"],
        "candidate_stereotypes": [winogender_bias.majority_gender(sentence["bls_pct_female"]), None],
    }


class Winogender(builder_base.UpstreamBuilder):
    """Winogender schemas, all 720 sentences in one `test` split."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = _CITATION
    VERSION = datasets.Version("1.0.0")
    CONFIG_DESCRIPTIONS = {
        "default": "data/all_sentences.tsv with occupations-stats.tsv and the spans from templates.tsv.",
    }

    def _generate_examples(self):
        mirror = self.mirror
        by_key = templates(mirror)
        for index, sentence in enumerate(winogender_files.load_sentences(mirror)):
            yield index, example(sentence, by_key[(sentence["occupation"], sentence["answer"])])
