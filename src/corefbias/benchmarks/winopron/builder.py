"""WinoPron (Gautam et al., CRAC 2024): Winogender's schemas repaired and filled with he, she, they and xe in the
nominative, accusative and possessive case, in double- and single-entity versions, and Winogender's old templates.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). The templates are read from upstream's
encrypted ``data.zip`` with the password of the pinned README and instantiated as upstream's
``scripts/verification.py`` and ``scripts/prep_old_templates.py`` do (``corefbias.benchmarks.winopron.files``);
upstream files are read through ``corefbias.data.upstream.fetch`` from the mirror given as ``data_dir`` (else
``$COREFBIAS_MIRROR``, else the checksummed download cache). The occupations' share of women comes from
Winogender's ``occupations-stats.tsv`` (U.S. Bureau of Labor Statistics), which WinoPron's 60 occupations share.
"""

from __future__ import annotations

import datasets

from corefbias.benchmarks.winogender import files as winogender_files
from corefbias.benchmarks.winopron import files
from corefbias.data import builder_base, citations, features
from corefbias.measures import stereotypes

_CITATION = citations.cite("gautam-etal-2024-revisiting", "rudinger-etal-2018-gender")

_DESCRIPTION = """\
WinoPron: 360 templates (60 occupation–participant pairs × nominative, accusative and possessive case × the pronoun
referring to the occupation or to the participant), each filled with the four pronoun sets he, she, they and xe:
1,440 double-entity sentences ("The technician told the customer that xe could pay with cash."), the 1,440
single-entity versions naming only the referent ("The customer was told that xe could pay with cash."), and
Winogender's 120 templates filled the same way (480 sentences). Each row feeds the `winopron_accuracy` and
`pronoun_set_diff` metrics directly.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    template_row=datasets.Value("int32"),
    template_id=datasets.Value("string"),
    schema_id=datasets.Value("string"),
    occupation=datasets.Value("string"),
    participant=datasets.Value("string"),
    answer=datasets.Value("string"),
    case=datasets.Value("string"),
    pronoun_type=datasets.Value("string"),
    pronoun_set=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    bls_pct_female=datasets.Value("float64"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)


def schema_id(config: str, instance: dict) -> str:
    """The templates that differ only in the answer (WinoPron: one occupation, participant and case; Winogender's
    old templates: one occupation and participant), shared by the double- and single-entity versions."""
    family = "winogender" if config == files.OLD else f"winopron.{instance['case']}"
    return f"{family}.{instance['occupation']}.{instance['participant']}"


def example(config: str, instance: dict, bls_pct_female: float) -> dict:
    """One instance as an exported row: candidates ``[occupation, participant]``, or the one the sentence names."""
    located = instance["spans"]
    roles = [role for role in ("occupation", "participant") if role in located]
    stereotype = {"occupation": stereotypes.majority_gender(bls_pct_female, tie=stereotypes.WINOGENDER_TIE)}
    row = instance["template_row"]
    return {
        "text": instance["text"],
        "pronoun": located["pronoun"],
        "candidates": [{**located[role], "is_referent": role == instance["answer"]} for role in roles],
        "id": f"{config}.{row:03d}.{instance['pronoun_set']}",
        "template_row": row,
        "template_id": f"{config}.{row:03d}",
        "schema_id": schema_id(config, instance),
        **{key: instance[key] for key in ("occupation", "participant", "answer", "case", "pronoun_type")},
        "pronoun_set": instance["pronoun_set"],
        "pronoun_gender": files.PRONOUN_GENDERS[instance["pronoun_set"]],
        "bls_pct_female": bls_pct_female,
        "candidate_stereotypes": [stereotype.get(role) for role in roles],
    }


class WinoPron(builder_base.UpstreamBuilder):
    """WinoPron's double- and single-entity sentences and Winogender's old templates, one `test` split each."""

    UPSTREAM_DATASET = files.UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = _CITATION
    VERSION = datasets.Version("1.0.0")
    CONFIG_DESCRIPTIONS = {
        files.DOUBLE: "new_templates.tsv's `template` column × he/she/they/xe: upstream's double.tsv "
        "(verification.py), 360 templates × 4 pronoun sets",
        files.SINGLE: "new_templates.tsv's `single_version` column × he/she/they/xe: upstream's single.tsv "
        "(verification.py), the same 360 templates naming only the referent",
        files.OLD: "old_templates.tsv (Winogender's templates) × he/she/they/xe: upstream's double_old.tsv "
        "(prep_old_templates.py), 120 templates × 4 pronoun sets",
    }

    def _generate_examples(self):
        mirror = self.mirror
        statistics = winogender_files.occupation_statistics(mirror)
        rows = [
            example(self.config.name, instance, statistics[instance["occupation"]]["bls_pct_female"])
            for instance in files.instances(self.config.name, mirror)
        ]
        yield from builder_base.enumerate_unique(rows, f"{files.UPSTREAM_DATASET}/{self.config.name}")
