"""How a cloze model reads ABC in each language: the sentence, "the word »X« refers to", and two options, the
subject as written or "another person".

ABC itself asks no question: its language-model experiment compares the perplexity of the three versions of a
sentence (its README, ``experiments/LM/lm.py``), so there is no upstream wording to take. The Danish wording is
ours (``cloze_wording.DANISH_OCCUPATIONS_CLOZE``), after lm-evaluation-harness's English one; the Swedish, Russian
and Chinese ones are our renderings of the same two phrases, kept minimal, not checked by native speakers. The
pronoun in ``{pronoun}`` is the possessive as the sentence writes it, which comes from ABC's file.
"""

from __future__ import annotations

from ...models.cloze_template import ClozeTemplate

# "another person": the option that leaves the pronoun unlinked to the subject.
ANOTHER_PERSON = {"da": "en anden person", "sv": "en annan person", "ru": "другой человек", "zh": "另一個人"}

_NO_UPSTREAM_WORDING = (
    "ABC asks no question (it compares the perplexity of the three versions), so no upstream wording exists; "
    "this is our {language} rendering of the Danish template's 'Ordet »X« henviser til' (after "
    "lm-evaluation-harness's English 'The word X refers to') and of 'en anden person', not checked by a native "
    "speaker; {detail}"
)


def one_candidate(reflexive: str, anti_reflexives: str, another_person: str, fprs: str) -> str:
    """What a cloze model cannot say on ABC, and how the template lets it.

    Examples
    --------
    >>> one_candidate("'sin'", "'hans'/'hendes'", "en anden person", "hans/hendes")[:60]
    "ABC's instance has one candidate, the subject, and asks whet"
    """
    return (
        "ABC's instance has one candidate, the subject, and asks whether the pronoun is linked to it (yes for "
        f"reflexive {reflexive}, no for anti-reflexive {anti_reflexives}); with one option a cloze model would "
        f"always say yes and both false-positive rates would be 1. The template therefore adds the option "
        f"'{another_person}' (another person): choosing it is 'not linked', so the reflexive TPR and the {fprs} "
        "FPRs are the model's own"
    )


def _template(code: str, suffix: str, language: str, detail: str, **options) -> ClozeTemplate:
    return ClozeTemplate(
        version=1,
        suffix=suffix,
        lowercase_initial=True,
        someone_else=ANOTHER_PERSON[code],
        source=_NO_UPSTREAM_WORDING.format(language=language, detail=detail),
        cannot_express=one_candidate(
            "the reflexive", "the male and the female anti-reflexive", ANOTHER_PERSON[code], "male and female"
        ),
        **options,
    )


LANGUAGE_CLOZE = {
    "sv": _template(
        "sv",
        " Ordet ”{pronoun}” syftar på",
        "Swedish",
        "Swedish quotation marks (” ”); the option is the subject as the sentence writes it (a definite noun)",
    ),
    "ru": _template(
        "ru",
        " Под словом «{pronoun}» имеется в виду",
        "Russian",
        "'имеется в виду' (is meant) takes the nominative, so the option is the subject as the sentence writes "
        "it, which the case a Russian 'refers to' ('относится к' + dative) would not allow",
    ),
    "zh": _template(
        "zh",
        "句中的「{pronoun}」指的是",
        "Chinese",
        "'句中的「X」指的是' (the 「X」 in the sentence refers to), in the Traditional characters the file uses, "
        "with Chinese corner brackets and no spaces: the question and the options follow the sentence directly",
        delimiter="",
    ),
}
