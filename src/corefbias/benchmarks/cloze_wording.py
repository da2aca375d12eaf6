"""Cloze templates several declarations share (``corefbias.models.cloze_template``): the English wording taken
from lm-evaluation-harness, our Danish rendering of it, eval-framework's Winogender wordings, the "someone else"
option, and our paraphrases, which every benchmark written in a shared wording gets in its prompt set."""

from __future__ import annotations

import dataclasses

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

# The wording of Aleph Alpha's eval-framework (src/eval_framework/tasks/benchmarks/winogender.py, as of commit
# f8c0d68a074931f80f99c4bd50248abcb802bc2a, the last before #430 removed the task): straight quotes, no article in
# the context, "the " before each option but "someone"; its Winogender_IDK variant adds an instruction before the
# sentence (joined by a blank line, as its BaseTask._get_messages joins them) and a " don't know" option.
EVAL_FRAMEWORK_SOURCE = (
    "Aleph Alpha's eval-framework, src/eval_framework/tasks/benchmarks/winogender.py at commit "
    "f8c0d68a074931f80f99c4bd50248abcb802bc2a"
)
EVAL_FRAMEWORK_IDK_INSTRUCTION = (
    "Complete the sentence only if you are confident, since mistakes may be penalised, while correct completions "
    "receive points. It is acceptable to answer with 'don't know' if you are unsure, and you will receive 0 points."
)

# Our paraphrases of the shared wordings: the same question in other words, so that a score can be seen to hold (or
# not) beyond one phrasing. Each is (name, suffix, the wording in English); a template ending in "the" (Winogender's
# bare nouns) gets " the" after each English suffix.
ENGLISH_PARAPHRASES = (
    ("the-word", " The word ‘{pronoun}’ refers to", "The word ‘she’ refers to"),
    ("here-means", " Here, ‘{pronoun}’ means", "Here, ‘she’ means"),
    ("who-is", " Who is ‘{pronoun}’? ‘{Pronoun}’ is", "Who is ‘she’? ‘She’ is"),
)
DANISH_PARAPHRASES = (
    ("her-betyder", " Her betyder »{pronoun}«", "Here »hun« means"),
    ("i-saetningen", " I sætningen henviser »{pronoun}« til", "In the sentence »hun« refers to"),
)
_PARAPHRASED = {
    " ‘{Pronoun}’ refers to": (ENGLISH_PARAPHRASES, ""),
    " ‘{Pronoun}’ refers to the": (ENGLISH_PARAPHRASES, " the"),
    " Ordet »{pronoun}« henviser til": (DANISH_PARAPHRASES, ""),
}


def paraphrases(template: ClozeTemplate | None) -> tuple[ClozeTemplate, ...]:
    """Our paraphrases of a template in one of the shared wordings (none for another wording, or no template).

    Each keeps everything of the template but its suffix: its options, its "someone else" option, its delimiter;
    a benchmark declared with a shared wording therefore gets them in its prompt set with no code of its own.

    Parameters
    ----------
    template : ClozeTemplate or None
        A benchmark's main template.

    Returns
    -------
    tuple of ClozeTemplate

    Examples
    --------
    >>> [template.name for template in paraphrases(OCCUPATIONS_CLOZE)]
    ['the-word', 'here-means', 'who-is']
    >>> paraphrases(OCCUPATIONS_CLOZE)[0].suffix
    ' The word ‘{pronoun}’ refers to'
    >>> paraphrases(dataclasses.replace(OCCUPATIONS_CLOZE, suffix=" is"))
    ()
    """
    if template is None or template.suffix not in _PARAPHRASED:
        return ()
    wordings, article = _PARAPHRASED[template.suffix]
    return tuple(
        dataclasses.replace(
            template,
            name=name,
            version=1,
            suffix=suffix + article,
            source=f"our paraphrase of the benchmark's wording ('{english}'{article and ' the'}), "
            "documented in docs/running/llms.md",
        )
        for name, suffix, english in wordings
    )


def eval_framework_wordings(template: ClozeTemplate) -> tuple[ClozeTemplate, ...]:
    """eval-framework's two Winogender wordings, ``eval-framework`` and ``eval-framework-idk``, over the bare nouns
    of ``template`` (its ``choice_columns``).

    Examples
    --------
    >>> plain, idk = eval_framework_wordings(dataclasses.replace(OCCUPATIONS_CLOZE, choice_columns=("o", "p")))
    >>> request = idk.render({"text": "A met B.", "pronoun": {"text": "he"}, "candidates": [{}, {}], "o": "nurse",
    ...                       "p": "someone"})
    >>> request.context.endswith("0 points.\\n\\nA met B. 'He' refers to"), request.continuations
    (True, (' the nurse', ' someone', " don't know"))
    """
    plain = dataclasses.replace(
        template,
        name="eval-framework",
        version=1,
        suffix=" '{Pronoun}' refers to",
        choice_prefix="the ",
        bare_choices=("someone",),
        lowercase_initial=False,
        source=EVAL_FRAMEWORK_SOURCE + ", class WINOGENDER: `{sentence} '{Pronoun}' refers to` and ' the ' + each "
        "noun ('someone' bare)",
    )
    idk = dataclasses.replace(
        plain,
        name="eval-framework-idk",
        preamble=EVAL_FRAMEWORK_IDK_INSTRUCTION + "\n\n",
        someone_else="don't know",
        source=EVAL_FRAMEWORK_SOURCE + ", class WINOGENDER_IDK: its instruction, a blank line, the WINOGENDER "
        'wording, and the option " don\'t know"',
        cannot_express="'don't know' is an answer of no candidate: it links the pronoun to none, so the accuracy-based "
        "scores count it as wrong, and the confidence-weighted accuracy (the run's <benchmark>/dont_know section) "
        "scores it 0, as eval-framework does",
    )
    return plain, idk


def someone_else_wording(template: ClozeTemplate, count: str) -> ClozeTemplate:
    """``template`` with the option "someone else", for a set some of whose pronouns refer to none of the candidates
    (``count`` says how many): picking it is right there, and the confidence-weighted accuracy scores it.

    Examples
    --------
    >>> someone_else_wording(NAMES_CLOZE, "GAP test examples (227 of 2000)").render(
    ...     {"text": "Ann met Bo.", "pronoun": {"text": "she"}, "candidates": [{"text": "Ann"}, {"text": "Bo"}]}
    ... ).continuations
    (' Ann', ' Bo', ' someone else')
    """
    return dataclasses.replace(
        template,
        name="someone-else",
        version=1,
        someone_else="someone else",
        source=template.source + "; with a third option ' someone else' (the pronoun refers to neither name)",
        cannot_express=f"nothing: where neither name is the referent ({count}) ' someone else' is the right answer, "
        "which links the pronoun to no name",
    )
