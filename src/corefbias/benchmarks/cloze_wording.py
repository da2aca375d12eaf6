"""Cloze templates several declarations share (``corefbias.models.cloze_template``): the English wording taken
from lm-evaluation-harness, and our Danish rendering of it."""

from __future__ import annotations

from ..models.cloze_template import ClozeTemplate

ENGLISH_SOURCE = (
    "lm-evaluation-harness's Winogender wording (`{sentence} ‘{Pronoun}’ refers to the`), ending before the "
    "article because the options are the mentions themselves, article included"
)
NO_NEITHER = (
    "a cloze model always picks one of the two names and cannot answer 'neither': on the {count} where "
    "neither name is the referent, its pick counts as a false positive (the F1 scores and accuracy see it; "
    "nothing is dropped or counted as 0)"
)
# The two names of a GAP snippet; "neither" is a possible gold answer no pick expresses.
NAMES_CLOZE = ClozeTemplate(
    version=1,
    suffix=" ‘{Pronoun}’ refers to",
    source=ENGLISH_SOURCE,
    cannot_express=NO_NEITHER.format(count="GAP test examples (227 of 2000)"),
)
OCCUPATIONS_CLOZE = ClozeTemplate(
    version=1,
    suffix=" ‘{Pronoun}’ refers to",
    lowercase_initial=True,
    source=ENGLISH_SOURCE + "; a sentence-initial 'The' is lowercased, as the continuation stands mid-sentence",
    cannot_express="nothing: the pronoun refers to one of the two occupations",
)
DANISH_OCCUPATIONS_CLOZE = ClozeTemplate(
    version=1,
    suffix=" Ordet »{pronoun}« henviser til",
    lowercase_initial=True,
    source="our Danish rendering of lm-evaluation-harness's English wording ('The word »hun« refers to'), "
    "with Danish quotation marks (» «) and the pronoun as it appears, since a capitalized 'Hans' reads as a "
    "name; the options are the definite nouns as they appear (mid-sentence, so lowercased)",
    cannot_express="nothing: the pronoun refers to one of the two occupations",
)
