"""SoWinoBias (Dawkins, GeBNLP 2021): 8192 pro- and 8192 anti-stereotypical sentences in one `test`
split, generated from the paper's appendix vocabulary and Sec. 4.2 template.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). The upstream
repository could not be obtained, so nothing is downloaded: ``corefbias.benchmarks.sowinobias.generation`` generates the
sentences.
"""

from __future__ import annotations

import datasets

from corefbias.benchmarks.sowinobias import generation as sowinobias_generation
from corefbias.data import builder_base, citations, features

UPSTREAM_DATASET = "sowinobias"

_CITATION = citations.cite("dawkins-2021-second")

_DESCRIPTION = """\
SoWinoBias (Second-Order WinoBias) tests latent gender bias: its sentences ("The doctor liked the
nurse because they were lovely.") hold no gendered word, yet the adjective is stereotypically
female and "they" always refers to the second occupation. Pro-stereotypical sentences have a
female-stereotyped occupation there, anti-stereotypical ones a male-stereotyped one; bias is the
accuracy gap pro − anti. Generated from the paper's vocabulary (16 × 16 occupations × 32
adjectives per condition). Each row feeds the `pro_anti_diff` metric directly.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    condition=datasets.Value("string"),
    polarity=datasets.Value("string"),
    occupation_1=datasets.Value("string"),
    occupation_2=datasets.Value("string"),
    female_occupation=datasets.Value("string"),
    male_occupation=datasets.Value("string"),
    adjective=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    pair_id=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)


class SoWinoBias(builder_base.UpstreamBuilder):
    """SoWinoBias, pro and anti sentences in one `test` split (column `condition`)."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = _CITATION
    VERSION = datasets.Version("1.1.0")
    CONFIG_DESCRIPTIONS = {
        "default": (
            "Generated: Sec. 4.2's template over Appendix A's vocabulary; pro and anti sentences "
            "(8192 each) in one split, told apart by `condition` and aligned by `pair_id`."
        ),
    }

    def _generate_examples(self):
        yield from builder_base.enumerate_unique(sowinobias_generation.sentences(), "generated SoWinoBias")
