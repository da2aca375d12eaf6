"""SweWinogender v2.0 (Hansson et al., NoDaLiDa 2021; SuperLim 2.0): the 624 NLI items as released, and the 312
pronoun-resolution items they encode, with the premise's pronoun and participant spans.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). Upstream
``swewinogender/swewinogender.jsonl`` is read through ``corefbias.data.upstream.fetch`` from the mirror given as
``data_dir`` (else ``$COREFBIAS_MIRROR``, else the checksummed download cache); the spans are found by
``corefbias.benchmarks.swewinogender.files``.
"""

from __future__ import annotations

import datasets

from corefbias.benchmarks.swewinogender import files
from corefbias.data import builder_base, citations, features

_CITATION = citations.cite("hansson-etal-2021-swedish")

_DESCRIPTION = """\
SweWinogender v2.0: Swedish Winogender schemas with the pronouns han, hon and hen. 104 templates, each with an
occupation and another participant, give 312 premises (one per pronoun) whose pronoun refers to one of the two, and
624 inference items (each premise with an entailed hypothesis naming the antecedent and a neutral one naming the
other participant). Config `nli`: the items as released; config `resolution`: the premises as pronoun resolution.
"""

_COMMON = dict(
    template_id=datasets.Value("string"),
    occupation=datasets.Value("string"),
    participant=datasets.Value("string"),
    answer=datasets.Value("string"),
    pronoun_set=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)
FEATURES = {
    "resolution": features.common_features(
        id=datasets.Value("string"),
        **_COMMON,
        entailed_idx=datasets.Value("int32"),
        neutral_idx=datasets.Value("int32"),
        neutral_candidate=datasets.Value("string"),
    ),
    "nli": features.common_features(
        id=datasets.Value("string"),
        idx=datasets.Value("int32"),
        hypothesis=datasets.Value("string"),
        label=datasets.Value("string"),
        hypothesis_candidate=datasets.Value("string"),
        tuple_id=datasets.Value("string"),
        **_COMMON,
    ),
}


def rows(config: str, mirror=None) -> list[dict]:
    """The rows of one config, built from the upstream file.

    Parameters
    ----------
    config : str
        ``resolution`` or ``nli``.
    mirror : str or os.PathLike, optional
        The upstream mirror.

    Returns
    -------
    list of dict
    """
    nli = files.nli_rows(files.read_items(mirror))
    return nli if config == "nli" else files.resolution_rows(nli)


class Swewinogender(builder_base.UpstreamBuilder):
    """SweWinogender: the pronoun-resolution form (312 premises) and the NLI items (624), one `test` split each."""

    UPSTREAM_DATASET = files.UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    CITATION = _CITATION
    VERSION = datasets.Version("2.0.0")
    CONFIG_DESCRIPTIONS = {
        "resolution": "swewinogender.jsonl's 312 premises, each with its pronoun, its two participants and the "
        "antecedent its entailed hypothesis names.",
        "nli": "swewinogender.jsonl's 624 items as released (premise, hypothesis, label, meta), with the premise's "
        "spans.",
    }

    @property
    def FEATURES(self) -> datasets.Features:  # the NLI items add the hypothesis and its label
        return FEATURES[self.config.name]

    def _generate_examples(self):
        yield from builder_base.enumerate_unique(rows(self.config.name, self.mirror), files.ITEMS_FILE)
