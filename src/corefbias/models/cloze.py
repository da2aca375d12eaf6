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

from typing import Protocol

from .base import Choice, ModelError, Task
from .cloze_template import ClozeRequest

CLOZE_NORMS = ("none", "bytes")


class LoglikelihoodBackend(Protocol):
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

    def choose(self, instances: list[dict], task: Task) -> list[Choice]:
        if task.cloze is None:
            raise ModelError(f"{self.name}: the benchmark {task.name} declares no cloze template")
        requests = [task.cloze.render(instance) for instance in instances]
        scored = self.backend.loglikelihoods(requests)
        if len(scored) != len(requests):
            raise ModelError(f"{self.name}: expected {len(requests)} answers, got {len(scored)}")
        choices = []
        for request, loglikelihoods in zip(requests, scored):
            best = decide(request, loglikelihoods, self.norm)
            shown = "; ".join(f"{choice!r} {ll:.3f}" for choice, ll in zip(request.choices, loglikelihoods))
            choices.append(
                Choice(
                    request.candidate_of[best],
                    parsed=True,
                    raw=f"{request.choices[best]} (cloze, norm {self.norm}; {shown})",
                    loglikelihoods=tuple(float(ll) for ll in loglikelihoods),
                )
            )
        return choices
