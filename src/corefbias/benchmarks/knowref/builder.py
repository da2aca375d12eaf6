"""KnowRef (Emami et al., ACL 2019): 1,269 real sentences whose ambiguous pronoun has two candidate names of one
gender (and number), so that only the sense of the sentence tells them apart.

Each row keeps the upstream sentence with the pronoun's brackets removed, the pronoun's span, each candidate's span
(its first occurrence in the sentence, ``files.occurrences``) and the answer from ``correct_candidate``
(``files.gold_index``), with the pronoun's gender read from the pronoun itself (``files.PRONOUN_GENDERS``). Six
fields of five rows that contradict themselves are repaired (``files.REPAIRS``).

Run by ``corefbias.data.hub_export``. The upstream file is read through ``corefbias.data.upstream.fetch`` from the
mirror given as ``data_dir`` (else ``$COREFBIAS_MIRROR``, else the checksummed download cache).
"""

from __future__ import annotations

import datasets

from corefbias.benchmarks.knowref import files
from corefbias.data import builder_base, citations, features, spans

_CITATION = citations.cite("emami-etal-2019-knowref")

_DESCRIPTION = """\
KnowRef's test set: 1,269 sentences from Wikipedia and OpenSubtitles, each with an ambiguous pronoun and two
candidate antecedents that agree with it in gender and number (the original antecedents were replaced by names of
one gender), so that resolving the pronoun takes knowledge of the situation, not its gender. Scored here by accuracy
per pronoun gender and the male − female difference.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    upstream_row=datasets.Value("int32"),
    pronoun_gender=datasets.Value("string"),
    original_id=datasets.Value("int64"),
    original_sentence=datasets.Value("string"),
    candidate_occurrences=datasets.List(datasets.Value("int32")),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
    is_pronoun_male=datasets.Value("bool"),
    correct_candidate_idx=datasets.Value("int32"),
)


def example(record: dict, row: int) -> dict:
    """One exported row from an upstream (repaired) row.

    Parameters
    ----------
    record : dict
        The upstream row, repaired (``files.repaired``).
    row : int
        Its 0-based position in ``knowref_test.json``.

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        If the pronoun is not one bracketed third-person pronoun, a candidate is not in the sentence or overlaps the
        other or the pronoun, or the answer is not one of the candidates.

    Examples
    --------
    >>> record = {"sentence_with_pronoun": "Ann met Bo , but [she] left .", "candidate0": ["Ann"],
    ...           "candidate1": ["Bo"], "correct_candidate": ["Bo"], "correct_candidate_idx": 0,
    ...           "is_pronoun_male": True, "oiginal_id": 7, "original_sentence": ["Ann met Bob , but he left ."]}
    >>> built = example(record, 0)
    >>> built["text"], built["pronoun_gender"], [(c["start"], c["is_referent"]) for c in built["candidates"]]
    ('Ann met Bo , but she left .', 'female', [(0, False), (8, True)])
    """
    text, pronoun = files.unbracketed(record["sentence_with_pronoun"], row=row)
    gender = files.PRONOUN_GENDERS.get(pronoun["text"].lower())
    if gender is None:
        raise ValueError(f"row {row}: the bracketed word {pronoun['text']!r} is no third-person pronoun")
    gold = files.gold_index(record, row=row)
    names = [files.candidate_name(record, field, row=row) for field in files.CANDIDATE_FIELDS]
    candidates, counts = [], []
    for index, (field, name) in enumerate(zip(files.CANDIDATE_FIELDS, names)):
        # "Rose" inside the other candidate "Rose 's former fiance Julie Wilmot" is no mention of Rose.
        found = files.occurrences(text, name, outside=files.occurrences(text, names[1 - index]))
        if not found:
            raise spans.SpanError(f"row {row}: {field} {name!r} is not in the sentence {text!r}")
        candidates.append({**found[0], "is_referent": index == gold})
        counts.append(len(found))
    taken = sorted((span["start"], span["end"]) for span in (pronoun, *candidates))
    if any(end > start for (_, end), (start, _) in zip(taken, taken[1:])):
        raise spans.SpanError(f"row {row}: the pronoun and the candidates overlap in {text!r}: {taken}")
    original = record["original_sentence"]
    if not (isinstance(original, list) and len(original) == 1):
        raise ValueError(f"row {row}: original_sentence is {original!r}, not a list holding one sentence")
    return {
        "id": f"test-{row}",
        "text": text,
        "pronoun": pronoun,
        "candidates": candidates,
        "upstream_row": row,
        "pronoun_gender": gender,
        "original_id": record["oiginal_id"],
        "original_sentence": original[0],
        "candidate_occurrences": counts,
        # The candidates are personal names (or groups): no occupation stereotype.
        "candidate_stereotypes": [None, None],
        "is_pronoun_male": record["is_pronoun_male"],
        "correct_candidate_idx": record["correct_candidate_idx"],
    }


class Knowref(builder_base.UpstreamBuilder):
    """KnowRef: the test set (upstream releases the other splits as Reddit ids only)."""

    UPSTREAM_DATASET = files.UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = _CITATION
    VERSION = datasets.Version("1.0.0")
    CONFIG_DESCRIPTIONS = {"default": "Knowref_dataset/knowref_test.json"}

    def _generate_examples(self):
        records = files.repaired(files.load_test(self.mirror))
        examples = (example(record, row) for row, record in enumerate(records))
        yield from builder_base.enumerate_unique(examples, files.TEST_FILE)
