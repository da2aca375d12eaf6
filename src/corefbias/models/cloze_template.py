"""How a language model scored by log-likelihood (cloze) reads one instance of a benchmark.

An instance becomes a *context* — its text followed by a question-like suffix that names the pronoun —
and one *continuation* per option: the delimiter and the option's text. The model's decision is the
option whose continuation it finds most probable after the context (``corefbias.models.cloze``). Each
benchmark declares its template once (``corefbias.benchmarks``); the template's ``identity``
(its version and the digest of a rendered fixed instance) keys the prediction cache, so editing a
template's wording asks the model again.

Options are the instance's candidates, their text as it appears in the instance, except that a
sentence-initial capital is lowercased where the template says the candidates are common nouns (the
continuation stands mid-sentence: "refers to the accountant", not "refers to The accountant"); a
template may instead name the columns holding the candidates' bare nouns (Winogender, as
lm-evaluation-harness does), each behind a ``choice_prefix`` (eval-framework's "the "). A template may add one
option meaning "none of the candidates" or "cannot tell" (``someone_else``): choosing it links the pronoun to no
candidate, and the run scores it as a "don't know" answer too (``corefbias.measures.dont_know``).

A benchmark's *prompt set* is its main template and the other wordings it declares (``Benchmark.prompts``), each
under its ``name``; ``corefbias run --prompts`` runs several and reports how far the scores move
(``corefbias.harness.prompt_sets``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

_SENTENCE_END = re.compile(r"[.!?][\"'”’»)]*\s+$")


@dataclass(frozen=True)
class ClozeRequest:
    """One instance as cloze requests: ``context`` and, per option, ``delimiter + choices[i]``.

    ``candidate_of[i]`` is the candidate (position in the instance's ``candidates``) that option ``i``
    names, or None for the template's "someone else" option.
    """

    context: str
    choices: tuple[str, ...]
    candidate_of: tuple[int | None, ...]
    delimiter: str = " "

    @property
    def continuations(self) -> tuple[str, ...]:
        return tuple(self.delimiter + choice for choice in self.choices)


def _sentence_initial(text: str, start: int) -> bool:
    return start == 0 or bool(_SENTENCE_END.search(text[:start]))


def _as_continuation(text: str, candidate: dict) -> str:
    mention = candidate["text"]
    if _sentence_initial(text, candidate["start"]) and mention[:1].isupper():
        return mention[0].lower() + mention[1:]
    return mention


@dataclass(frozen=True, kw_only=True)
class ClozeTemplate:
    """A benchmark's cloze template (see the module docstring).

    ``suffix`` follows the instance's text; ``{pronoun}`` is the pronoun as it appears, ``{Pronoun}``
    the same with ``str.capitalize()`` (lm-evaluation-harness's ``pronoun.capitalize()``), ``{before}`` the text
    before the pronoun without its trailing spaces (a fill-in template restates a sentence up to its blank, so
    that the option continues the sentence where the blank is).
    ``choice_columns`` names the columns holding each candidate's text (else the mentions are used);
    ``lowercase_initial`` lowercases a sentence-initial mention (common nouns, not names);
    ``choice_prefix`` goes before each candidate's text but those of ``bare_choices`` (compared lowercased);
    ``someone_else`` is the text of an extra "none of the candidates" (or "don't know") option, if any;
    ``preamble`` goes before the instance's text (an instruction).
    ``source`` says where the wording comes from; ``cannot_express`` what a cloze model cannot answer
    on this benchmark and how the scores treat it. ``context_column`` names a column holding the passage the
    model reads in place of the whole ``text`` (a pronoun's sentences within a long document, ending with the
    pronoun's sentence); the candidates must lie in it. ``reads_until``: the model reads the instance's text only
    up to this marker (a fill-in row lists its options after the passage, ``corefbias.data.fill_in``, for the
    candidates' spans; shown the list, small models copy its rarest word). ``name`` tells the wording apart in
    the benchmark's prompt set (``--prompts NAME``); it is no part of the identity, so two names for one wording
    share their answers.

    Examples
    --------
    eval-framework's Winogender wording: straight quotes, "the " before each noun but "someone":

    >>> template = ClozeTemplate(version=1, name="eval-framework", suffix=" '{Pronoun}' refers to",
    ...     choice_columns=("occupation", "participant"), choice_prefix="the ", bare_choices=("someone",),
    ...     source="eval-framework", cannot_express="nothing")
    >>> request = template.render({"text": "The nurse met someone. She smiled.",
    ...     "pronoun": {"text": "She", "start": 23, "end": 26},
    ...     "candidates": [{}, {}], "occupation": "nurse", "participant": "someone"})
    >>> request.context, request.continuations
    ("The nurse met someone. She smiled. 'She' refers to", (' the nurse', ' someone'))
    """

    version: int
    suffix: str
    source: str
    cannot_express: str
    name: str = "main"
    choice_columns: tuple[str, ...] = ()
    lowercase_initial: bool = False
    someone_else: str | None = None
    delimiter: str = " "
    context_column: str | None = None
    reads_until: str | None = None

    def read_text(self, instance: dict) -> str:
        r"""What the model reads of the instance: its ``context_column``, else its text, all of it or what comes
        before ``reads_until``.

        Examples
        --------
        >>> template = ClozeTemplate(version=1, suffix="", source="", cannot_express="", reads_until="\nOPTIONS:")
        >>> template.read_text({"text": "Kim said ___ left.\nOPTIONS:\n- he\n- xe"})
        'Kim said ___ left.'
        """
        if self.context_column is not None:
            return instance[self.context_column]
        text = instance["text"]
        return text if self.reads_until is None else text.partition(self.reads_until)[0]

    preamble: str = ""
    choice_prefix: str = ""
    bare_choices: tuple[str, ...] = ()

    def __post_init__(self):
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", self.name):
            raise ValueError(f"a cloze template's name must be lower-case words joined by '-', got {self.name!r}")

    def _prefixed(self, choice: str) -> str:
        bare = choice.lower() in {word.lower() for word in self.bare_choices}
        return choice if bare else self.choice_prefix + choice

    def render(self, instance: dict) -> ClozeRequest:
        """The context and options of one instance (a row of the exported set)."""
        text, pronoun = instance["text"], instance["pronoun"]["text"]
        # Only suffixes that repeat the text before the pronoun ({before}) need the pronoun's offset.
        before = text[: instance["pronoun"]["start"]].rstrip() if "{before}" in self.suffix else ""
        context = (
            self.preamble
            + self.read_text(instance)
            + self.suffix.format(pronoun=pronoun, Pronoun=pronoun.capitalize(), before=before)
        )
        candidates = instance["candidates"]
        if self.choice_columns:
            choices = [str(instance[column]) for column in self.choice_columns]
        elif self.lowercase_initial:
            choices = [_as_continuation(text, candidate) for candidate in candidates]
        else:
            choices = [candidate["text"] for candidate in candidates]
        choices = [self._prefixed(choice) for choice in choices]
        candidate_of: list[int | None] = list(range(len(choices)))
        if self.someone_else is not None:
            choices.append(self.someone_else)
            candidate_of.append(None)
        return ClozeRequest(context, tuple(choices), tuple(candidate_of), self.delimiter)

    @property
    def identity(self) -> dict:
        """The version and the digest of a fixed instance rendered: it changes with any edit of the wording."""
        probe = {
            "text": "The nurse met Ann. She smiled.",
            "pronoun": {"text": "She", "start": 19, "end": 22},
            "candidates": [{"text": "The nurse", "start": 0, "end": 9}, {"text": "Ann", "start": 14, "end": 17}],
            **{column: f"<{column}>" for column in self.choice_columns},
            **({} if self.context_column is None else {self.context_column: "Ann smiled. She smiled."}),
        }
        rendered = self.render(probe)
        probed = [rendered.context, rendered.continuations, rendered.candidate_of]
        for bare in self.bare_choices:  # the choices left bare, which the probe's own do not show
            probed.append(self.render({**probe, **dict.fromkeys(self.choice_columns, bare)}).continuations)
        canonical = json.dumps(probed, ensure_ascii=False)
        return {"version": self.version, "digest": hashlib.sha256(canonical.encode("utf-8")).hexdigest()}
