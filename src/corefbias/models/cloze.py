"""Cloze (log-likelihood) scoring: a language model chooses the option it finds most probable.

This is how lm-evaluation-harness scores multiple-choice tasks (``output_type: multiple_choice``):
each instance becomes a context and one continuation per option (the benchmark's
``corefbias.models.cloze_template.ClozeTemplate``); the model's decision is the option with the
highest summed log-probability of its continuation's tokens given the context — lm-eval's ``acc``
(``norm="none"``) — or that sum divided by the option's length in UTF-8 bytes, delimiter excluded —
lm-eval's ``acc_norm`` (``norm="bytes"``; lm-eval divides by characters, the same on ASCII text).
A tie goes to the first option, as ``numpy.argmax`` breaks it.

The model is never shown the options side by side, so it cannot prefer a position: its answers carry
no ``position`` and the position check (``harness.position_rates``) does not apply. Every option's
log-likelihood is kept with the answer (``Choice.loglikelihoods``, the run's ``instances/*.jsonl``).

A *backend* computes the log-likelihoods: ``hf:`` runs a causal LM through ``transformers``
(``corefbias.models.hf_causal_lm``), ``completions:`` asks an OpenAI-compatible completions endpoint
(``corefbias.models.completions``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from .base import Choice, ModelError, Task
from .cloze_template import ClozeRequest

CLOZE_NORMS = ("none", "bytes")


class LoglikelihoodBackend(Protocol):
    """Computes log-likelihoods. A backend that batches requests itself may also have ``call_size`` (the requests
    it wants per call) and ``loglikelihoods_in_batches(requests)``, yielding (positions in ``requests``, their
    log-likelihoods) per batch as it computes them (``transformers_backend.TransformersBackend``)."""

    identity: dict

    def loglikelihoods(self, requests: list[ClozeRequest]) -> list[list[float]]:
        """Per request, the summed log-probability of each continuation given the context."""


def decide(request: ClozeRequest, loglikelihoods: list[float], norm: str) -> int:
    """The option chosen: highest log-likelihood, or per byte of the option's text (see the module docstring)."""
    if norm == "bytes":
        scores = [ll / max(1, len(choice.encode("utf-8"))) for ll, choice in zip(loglikelihoods, request.choices)]
    else:
        scores = list(loglikelihoods)
    return max(range(len(scores)), key=lambda option: (scores[option], -option))


class ClozeModel:
    """A choice model that scores each option's continuation with a ``LoglikelihoodBackend``."""

    reads_gold = False
    uses_cloze_template = True  # the runner keys cached answers by each benchmark's template too

    def __init__(self, name: str, backend: LoglikelihoodBackend, norm: str = "none"):
        if norm not in CLOZE_NORMS:
            raise ValueError(f"cloze norm {norm!r} is not one of {', '.join(CLOZE_NORMS)}")
        self.name, self.backend, self.norm = name, backend, norm

    @property
    def identity(self) -> dict:
        return {**self.backend.identity, "scoring": {"method": "cloze", "norm": self.norm}}

    def current_identity(self) -> dict | None:
        """Who answers now, for a backend that can be asked again (an endpoint's); None for one that cannot change
        while it runs (local weights)."""
        current = getattr(self.backend, "current_identity", None)
        return None if current is None else {**current(), "scoring": {"method": "cloze", "norm": self.norm}}

    @property
    def call_size(self) -> int | None:
        """The instances the backend wants per call, if it batches them itself (``corefbias run`` then calls it
        with that many instead of its ``--batch-size``)."""
        return getattr(self.backend, "call_size", None)

    def choose(self, instances: list[dict], task: Task) -> list[Choice]:
        choices: list[Choice | None] = [None] * len(instances)
        for positions, chosen in self.choose_in_batches(instances, task):
            for position, choice in zip(positions, chosen):
                choices[position] = choice
        if any(choice is None for choice in choices):
            raise ModelError(f"{self.name}: {choices.count(None)} of {len(instances)} instances were not answered")
        return choices

    def choose_in_batches(self, instances: list[dict], task: Task) -> Iterator[tuple[list[int], list[Choice]]]:
        """``choose``, as the backend's batches come: (positions in ``instances``, their choices) per batch; one
        batch for a backend that does not batch itself."""
        if task.cloze is None:
            raise ModelError(f"{self.name}: the benchmark {task.name} declares no cloze template")
        requests = [task.cloze.render(instance) for instance in instances]
        streamed = getattr(self.backend, "loglikelihoods_in_batches", None)
        batches = (
            streamed(requests) if streamed else [(list(range(len(requests))), self.backend.loglikelihoods(requests))]
        )
        for positions, scored in batches:
            if len(scored) != len(positions):
                raise ModelError(f"{self.name}: expected {len(positions)} answers, got {len(scored)}")
            yield positions, [self._choice(requests[position], lls) for position, lls in zip(positions, scored)]

    def _choice(self, request: ClozeRequest, loglikelihoods: list[float]) -> Choice:
        best = decide(request, loglikelihoods, self.norm)
        shown = "; ".join(f"{choice!r} {ll:.3f}" for choice, ll in zip(request.choices, loglikelihoods))
        return Choice(
            request.candidate_of[best],
            parsed=True,
            raw=f"{request.choices[best]} (cloze, norm {self.norm}; {shown})",
            loglikelihoods=tuple(float(ll) for ll in loglikelihoods),
        )
