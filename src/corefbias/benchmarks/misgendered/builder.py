"""MISGENDERED (Hossain, Dev and Singh, ACL 2023): declared pronouns, and the pronoun a model writes for the person.

Run by ``corefbias.data.hub_export`` (``datasets`` 5 runs no loading scripts). Every instance is made from the
upstream files at the pinned commit (read through ``corefbias.data.upstream.fetch``) as the upstream zero-shot
scripts make it (``corefbias.benchmarks.misgendered.files``), and written as a fill-in row
(``corefbias.data.fill_in``): the declared sentence with a blank, then the options.
"""

from __future__ import annotations

import datasets

from corefbias.benchmarks.misgendered import files as misgendered_files
from corefbias.data import builder_base, citations, features

UPSTREAM_DATASET = misgendered_files.UPSTREAM_DATASET

_CITATION = citations.cite("hossain-etal-2023-misgendered")

_DESCRIPTION = """\
MISGENDERED: a person's pronouns are declared — explicitly ("Aamari's pronouns are xe/xem.") or in parentheses
("Aamari (xe/xem) was very emotional.") — and a following sentence leaves a blank where one of the person's
pronouns goes (nominative, accusative, dependent or independent possessive, reflexive). A model chooses the word
for the blank among the 11 pronoun sets' words for that form (he, she, they, thon, e, ae, co, vi, xe, ey, ze);
it is right when it chooses the declared set's word. 50 templates × 12 declarations × 500 names × 11 sets.
"""

FEATURES = features.common_features(
    id=datasets.Value("string"),
    sentence_id=datasets.Value("string"),
    declaration=datasets.Value("string"),
    declaration_kind=datasets.Value("string"),
    declared_number=datasets.Value("string"),
    declared_forms=datasets.List(datasets.Value("string")),
    template_id=datasets.Value("int32"),
    template=datasets.Value("string"),
    form=datasets.Value("string"),
    form_declared=datasets.Value("bool"),
    name=datasets.Value("string"),
    name_list=datasets.Value("string"),
    sentence=datasets.Value("string"),
    pronoun_set=datasets.Value("string"),
    gender_type=datasets.Value("string"),
    pronoun_group=datasets.Value("string"),
    answer=datasets.Value("string"),
    pronoun_gender=datasets.Value("string"),
    candidate_stereotypes=datasets.List(datasets.Value("string")),
)

SCORED = "default"
FULL = "full"


def rows(mirror=None, *, every_name: bool):
    """Every row of the design (``every_name``) or of the scored part (three names per template), in the order
    declaration, template, name (female, male, unisex lists), pronoun set."""
    sets = misgendered_files.pronoun_sets(mirror)
    names = misgendered_files.names(mirror)
    for declaration in misgendered_files.DECLARATIONS:
        for template in misgendered_files.templates(declaration, mirror):
            if every_name:
                chosen = [(name_list, name) for name_list in misgendered_files.NAME_LISTS for name in names[name_list]]
            else:
                chosen = misgendered_files.chosen_names(declaration, template["template_id"], names)
            for name_list, name in chosen:
                for pronoun_set in sets:
                    yield misgendered_files.row(declaration, template, name_list, name, pronoun_set, sets)


class Misgendered(builder_base.UpstreamBuilder):
    """MISGENDERED: the scored part (`default`) and the whole design (`full`), each in one `test` split."""

    UPSTREAM_DATASET = UPSTREAM_DATASET
    DESCRIPTION = _DESCRIPTION
    FEATURES = FEATURES
    CITATION = _CITATION
    VERSION = datasets.Version("1.0.0")
    CONFIG_DESCRIPTIONS = {
        SCORED: (
            "What corefbias scores: every template of every declaration with one female, one male and one "
            "unisex name (the lowest hash of declaration, template and name in each list) and all 11 pronoun "
            "sets: 50 × 12 × 3 × 11 = 19,800 instances."
        ),
        FULL: "The whole design: 50 templates × 12 declarations × 500 names × 11 pronoun sets = 3,300,000.",
    }
    ON_REQUEST_CONFIGS = (FULL,)

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={})]

    def _generate_examples(self):
        # Ids are unique by construction (declaration/template/name/set over distinct names): no duplicate check,
        # which would hold 3.3 million rows in memory.
        yield from enumerate(rows(self.mirror, every_name=self.config.name == FULL))
