"""RUFF (Gautam et al., TACL 2024): robust pronoun fidelity with 0 to 5 distractor sentences.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). The templates are read from the
pinned upstream ``data.zip`` (AGPL-3.0, never copied into corefbias) with the password its README gives; the
instances are made as upstream's ``scripts/add_context.py`` makes them (``corefbias.benchmarks.ruff.files``) and
written as fill-in rows (``corefbias.data.fill_in``): the context and the task sentence with a blank where its
pronoun goes, then the options, as upstream's ``scripts/prompt.py`` shows them.
"""

from __future__ import annotations

import datasets

from corefbias.benchmarks.ruff import files as ruff_files
from corefbias.benchmarks.winogender import files as winogender_files
from corefbias.data import builder_base, citations, features

UPSTREAM_DATASET = ruff_files.UPSTREAM_DATASET

_CITATION = citations.cite("gautam-etal-2024-robust")

_DESCRIPTION = """\
RUFF: an occupation is introduced with a pronoun (he, she, they or xe; "The accountant had just eaten a big
meal, so xe was full."), 0 to 5 sentences about someone else follow, introduced with another pronoun, and a task
sentence about the occupation leaves a blank where its pronoun goes ("The accountant was needed because ___ could
help with tax preparation."). A model chooses among he, she, they and xe (in the blank's case); it is right when it
keeps to the pronoun the occupation was introduced with.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    context_id=datasets.Value("string"),
    distractors=datasets.Value("int32"),
    file=datasets.Value("string"),
    uid=datasets.Value("string"),
    task_index=datasets.Value("int32"),
    occupation=datasets.Value("string"),
    participant=datasets.Value("string"),
    word=datasets.Value("string"),
    bls_pct_female=datasets.Value("float64"),
    sentence=datasets.Value("string"),
    pronoun_type=datasets.Value("string"),
    case=datasets.Value("string"),
    declared_pronoun=datasets.Value("string"),
    confuse_pronoun=datasets.Value("string"),
    pronoun_set=datasets.Value("string"),
    pronoun_group=datasets.Value("string"),
    answer=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)

SCORED = "default"
VERSION = datasets.Version("1.0.0")


def file_rows(distractors: int, mirror=None, *, scored: bool):
    """The rows of one upstream file, in its line order; ``scored``: only the scored part's contexts."""
    intros = ruff_files.introductions(mirror)
    statistics = winogender_files.occupation_statistics(mirror)
    uids = {pronoun_type: ruff_files.context_uids(found, distractors) for pronoun_type, found in intros.items()}
    for task_index, task in enumerate(ruff_files.tasks(mirror)):
        kept = ruff_files.chosen_uids(task_index, uids[task["pronoun_type"]], distractors) if scored else None
        for context in ruff_files.contexts(task, intros, distractors, kept):
            yield ruff_files.row(
                task_index, task, context, distractors, statistics[task["occupation"]]["bls_pct_female"]
            )


class Ruff(builder_base.UpstreamBuilder):
    """RUFF: the scored part (`default`) and each of upstream's six files (on request), each one `test` split."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = _CITATION
    VERSION = VERSION
    CONFIG_DESCRIPTIONS = {
        SCORED: (
            "What corefbias scores: per task sentence, 3 contexts without distractors and 1 with each number "
            "of distractors from 1 to 5 (the lowest hashes of task row and uid), each with every declared and "
            "confusing pronoun: 2,160 instances per number of distractors, the size and cells of upstream's "
            "own samples (scripts/sample_templates.py), 12,960 in all."
        ),
        **{
            name: f"upstream's {name}.tsv, every line, in its order ({distractors} distractor sentences)."
            for distractors, name in enumerate(ruff_files.FILES)
        },
    }
    ON_REQUEST_CONFIGS = ruff_files.FILES

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={})]

    def _generate_examples(self):
        if self.config.name == SCORED:
            found = (
                row
                for distractors in ruff_files.DISTRACTORS
                for row in file_rows(distractors, self.mirror, scored=True)
            )
        else:
            found = file_rows(ruff_files.FILES.index(self.config.name), self.mirror, scored=False)
        # Ids are unique by construction (file/task/uid/pronouns): no duplicate check over millions of rows.
        yield from enumerate(found)
