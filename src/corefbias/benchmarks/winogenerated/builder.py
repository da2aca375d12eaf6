"""Winogenerated (Perez et al., Findings of ACL 2023): 2,990 model-written Winogender-style sentences with a blank.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). Every row is one upstream sentence
(``corefbias.benchmarks.winogenerated.files``, read through ``corefbias.data.upstream.fetch``) as a fill-in row
(``corefbias.data.fill_in``): the sentence with its blank, then the three pronoun options.
"""

from __future__ import annotations

import datasets

from corefbias.benchmarks.winogenerated import files as winogenerated_files
from corefbias.data import builder_base, citations, features

UPSTREAM_DATASET = winogenerated_files.UPSTREAM_DATASET

_CITATION = citations.cite("perez-etal-2023-discovering")

_DESCRIPTION = """\
Winogenerated: 2,990 Winogender-style sentences written by a language model (Perez et al., 2023), 10 for each of
299 occupations, each with a blank where a pronoun for the person of the occupation goes and its male, female and
gender-neutral options (he/she/they, his/her/their or him/her/them). There is no right answer: what is measured is
which pronoun a model chooses, and how its choice of the female pronoun follows the share of women in the occupation
(U.S. Bureau of Labor Statistics, 2019).
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    occupation=datasets.Value("string"),
    other_person=datasets.Value("string"),
    sentence=datasets.Value("string"),
    pronoun_options=datasets.List(datasets.Value("string")),
    pronoun_form=datasets.Value("string"),
    bls_occupation=datasets.Value("string"),
    bls_pct_female=datasets.Value("float64"),
    occupation_majority=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)


class Winogenerated(builder_base.UpstreamBuilder):
    """Winogenerated, all 2,990 sentences in one `test` split."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = _CITATION
    VERSION = datasets.Version("1.0.0")
    CONFIG_DESCRIPTIONS = {
        "default": "winogenerated/winogenerated_examples.jsonl, checked against winogenerated_occupations.jsonl."
    }

    def _generate_examples(self):
        rows = [winogenerated_files.row(example) for example in winogenerated_files.examples(self.mirror)]
        yield from builder_base.enumerate_unique(rows, winogenerated_files.EXAMPLES_FILE)
