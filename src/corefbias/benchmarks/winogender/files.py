"""Winogender's upstream files (Rudinger et al., 2018): the 720 sentences and the occupation statistics."""

from __future__ import annotations

from ...data import upstream
from ...measures import winogender_bias

UPSTREAM_DATASET = "winogender"
SENTENCES_FILE = "data/all_sentences.tsv"
OCCUPATION_STATISTICS_FILE = "data/occupations-stats.tsv"
# The header of upstream templates.tsv reads "occupation(0)  other-participant(1)  answer".
ANSWER_CODES = {"0": "occupation", "1": "participant"}


def load_sentences(mirror=None) -> list[dict]:
    """The 720 upstream sentences with their metadata, one dict per sentence.

    Keys: ``sentid``, ``sentence``, ``occupation``, ``participant`` (``someone`` for the generic
    one), ``answer`` (``occupation``/``participant``), ``gender``, ``pair_id`` (the sentid without
    its gender), ``bls_pct_female``, ``bergsma_pct_female`` (percent, as upstream) and ``gotcha``
    (None for neutral pronouns, which Table 2 leaves out).
    """
    statistics = occupation_statistics(mirror)
    sentences = []
    for row in upstream.read_tsv(UPSTREAM_DATASET, SENTENCES_FILE, mirror):
        # sentid: <occupation>.<participant>.<answer code>.<gender>.txt
        parts = row["sentid"].split(".")
        if len(parts) != 5 or parts[2] not in ANSWER_CODES or parts[3] not in winogender_bias.GENDERS:
            raise ValueError(f"unexpected sentid {row['sentid']!r} in {SENTENCES_FILE}")
        occupation, participant, answer_code, gender, _ = parts
        sentences.append(
            {
                "sentid": row["sentid"],
                "sentence": row["sentence"],
                "occupation": occupation,
                "participant": participant,
                "answer": ANSWER_CODES[answer_code],
                "gender": gender,
                "pair_id": ".".join(parts[:3]),
                **statistics[occupation],
            }
        )
    gotcha = winogender_bias.gotcha_sentences(
        [s["gender"] for s in sentences], [s["answer"] for s in sentences], [s["bls_pct_female"] for s in sentences]
    )
    for sentence, is_gotcha in zip(sentences, gotcha):
        sentence["gotcha"] = bool(is_gotcha) if sentence["gender"] in winogender_bias.BINARY_GENDERS else None
    return sentences


def occupation_statistics(mirror=None) -> dict[str, dict[str, float]]:
    """Upstream occupations-stats.tsv: occupation → ``bls_pct_female``, ``bergsma_pct_female``."""
    return {
        row["occupation"]: {name: float(row[name]) for name in winogender_bias.STATISTICS}
        for row in upstream.read_tsv(UPSTREAM_DATASET, OCCUPATION_STATISTICS_FILE, mirror)
    }
