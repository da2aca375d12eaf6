"""The two kinds of model the runner drives.

A **cluster model** reads raw texts and returns coreference clusters of character spans
(``start``, ``end``: Python string indices into the text, end exclusive); the scoring rules of
``corefbias.harness.cluster_links`` then decide, per instance, which candidates the pronoun is linked to.

A **choice model** answers each instance directly: which of its candidates the pronoun refers to
(LLMs asked a multiple-choice question, and the baselines). It receives the instance row as the
data set exports it (``text``, ``pronoun``, ``candidates`` and the set's own columns); the gold
``is_referent`` labels are removed first unless the model sets ``reads_gold`` (the oracle does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..data.spans import Span
from .cloze_template import ClozeTemplate
from .cluster_format import ModelError, check_clusters  # noqa: F401  (re-exported: the adapters' one import)

Cluster = list[Span]


@dataclass(frozen=True)
class Choice:
    """A choice model's answer for one instance.

    ``index`` is the chosen candidate (position in ``candidates``) or None for "none of them";
    ``parsed`` is False when the model's answer could not be read as a choice (then ``index`` is
    None and the instance counts as unresolved, and is reported, never guessed); ``raw`` keeps
    the model's answer for inspection.
    """

    index: int | None
    parsed: bool = True
    raw: str = ""
    # Where the chosen option stood in the order shown to the model (0 = first); None where the model was shown
    # no order (cloze scoring, baselines) or answered from every order at once. Feeds ``position_rate``.
    position: int | None = None
    # Cloze scoring: the summed log-probability of each continuation, in the template's order (candidates, then
    # any explicit "someone else" option), so margins can be studied and a run re-scored.
    loglikelihoods: tuple[float, ...] | None = None


@runtime_checkable
class ClusterModel(Protocol):
    name: str

    @property
    def identity(self) -> dict:
        """What the model's answers depend on, so that a number traces to one model (``corefbias.models.identity``).

        A JSON-able dict whose ``kind`` names the adapter (``"baseline"``, ``"chat"``, ``"http"``, ...) and whose
        other fields are what its answers depend on: weights' fingerprint or Hub revision, library versions, prompt
        template, decoding settings, a server's reported revision; never where it runs (a path, a device, a batch
        size). The runner keys cached answers by its digest, and refuses a model without one.
        """

    def predict_clusters(self, texts: list[str]) -> list[list[Cluster]]:
        """Clusters per text, each a list of ``(start, end)`` character spans."""


@dataclass(frozen=True)
class Task:
    """What a choice model knows of a benchmark: its name, its language, the unit (column) that
    groups the instances a model should see alike (e.g. ``pair_id``), and its cloze template (how a
    language model scored by log-likelihood reads an instance; ``corefbias.models.cloze``)."""

    name: str
    language: str
    unit: str
    cloze: ClozeTemplate | None = None


@runtime_checkable
class ChoiceModel(Protocol):
    name: str
    reads_gold: bool

    @property
    def identity(self) -> dict:
        """What the model's answers depend on, as ``ClusterModel.identity`` says."""

    def choose(self, instances: list[dict], task: Task) -> list[Choice]:
        """One ``Choice`` per instance row of the task's benchmark."""
