"""Where and how a run's model answers: the executor a run asks through, and the asking every executor shares.

Where the model answers is the run's executor: ``LocalExecutor`` (the default: this process, batch
after batch) or ``ray_executor.RayExecutor`` (a pool of Ray actors, each holding the model; the
answers still come back to this process, which caches, scores and writes them). The executor
changes no answer, score or cache key; ``results.json`` records it in ``settings``.

Every executor cuts its work with ``cached_and_missing`` (what the cache answers, what the model must be asked)
and asks through ``ask`` or ``ask_in_pieces``, which take gold labels out of what the model sees, check each answer
against its instance (``output_checks``) and ask a remote model who it is after every batch
(``check_same_model``), so a model answers the same rows alike wherever it runs.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Protocol

import datasets

from ..models.base import Choice, ChoiceModel, ClusterModel, ModelError, Task
from ..models.identity import digest
from ..models.registry import load_model
from .output_checks import is_unparsed, output_problem
from .prediction_cache import PredictionCache

log = logging.getLogger(__name__)


def model_identity(model) -> dict:
    """The model's ``identity`` (``corefbias.models.identity``), which keys its cached answers and its results.

    A model without one is refused: a name it was given says nothing about what it is.
    """
    identity = getattr(model, "identity", None)
    if not isinstance(identity, dict) or "kind" not in identity:
        raise ModelError(
            f"{getattr(model, 'name', model)!r} has no identity: a model must have an `identity` dict with at least "
            f"a 'kind' and what makes its answers its own (weights' digest, revision, prompt...); see "
            f"corefbias.models.identity"
        )
    return identity


def choice_output(choice: Choice) -> dict:
    """A choice as the prediction cache and the instances file keep it (fields a model left unset omitted)."""
    output = {"choice": choice.index, "parsed": choice.parsed, "raw": choice.raw}
    if choice.position is not None:
        output["position"] = choice.position
    if choice.loglikelihoods is not None:
        output["loglikelihoods"] = list(choice.loglikelihoods)
    return output


def _without_gold(row: dict) -> dict:
    return {**row, "candidates": [{k: v for k, v in c.items() if k != "is_referent"} for c in row["candidates"]]}


def ask(model, task: Task, rows: list[dict]) -> list:
    """The model's outputs for ``rows`` (whole instance rows) as the prediction cache keeps them: a choice
    (``choice_output``) per row for a choice model, clusters of ``[start, end]`` spans for a cluster model.

    Gold labels are removed first unless the model ``reads_gold``. Every executor asks through this, so a
    model answers the same rows alike wherever it runs.

    Examples
    --------
    >>> from corefbias.models.baselines import NearestBaseline
    >>> ann, bo = {"start": 0, "end": 3, "is_referent": True}, {"start": 8, "end": 10, "is_referent": False}
    >>> row = {"id": "a", "text": "Ann met Bo; she left.", "pronoun": {"start": 12, "end": 15}, "candidates": [ann, bo]}
    >>> ask(NearestBaseline(), Task("t", "en", "id"), [row])
    [{'choice': 1, 'parsed': True, 'raw': ''}]
    """
    if isinstance(model, ChoiceModel):
        shown = rows if model.reads_gold else [_without_gold(row) for row in rows]
        choices = model.choose(shown, task)
        if len(choices) != len(rows) or not all(isinstance(choice, Choice) for choice in choices):
            raise ModelError(f"{model.name}: expected {len(rows)} choices, got {choices!r:.200}")
        outputs = [choice_output(choice) for choice in choices]
    elif isinstance(model, ClusterModel):
        # Questions about one document (GICoref) share its text: the model reads each text once.
        texts = list(dict.fromkeys(row["text"] for row in rows))
        predicted = model.predict_clusters(texts)
        if len(predicted) != len(texts):
            raise ModelError(f"{model.name}: expected clusters for {len(texts)} texts, got {len(predicted)}")
        clusters = dict(zip(texts, predicted))
        outputs = [[[list(span) for span in cluster] for cluster in clusters[row["text"]]] for row in rows]
    else:
        raise ModelError(f"{model!r} is neither a cluster model nor a choice model")
    check_outputs(model, rows, outputs)
    check_same_model(model)
    return outputs


def check_outputs(model, rows: list[dict], outputs: list) -> None:
    """A ``ModelError`` naming the first output that does not fit its instance (``output_checks``)."""
    for row, output in zip(rows, outputs):
        problem = output_problem(output, row)
        if problem:
            raise ModelError(f"{model.name} answered instance {row['id']!r} with {problem}")


def check_same_model(model) -> None:
    """Ask a remote model (one with ``current_identity``) who it is now; a ``ModelError`` when it is not who it
    was at the start of the run (``model.identity``), so that the answers of the batch just asked are dropped
    rather than kept under the old identity."""
    current = getattr(model, "current_identity", None)
    now = current() if current is not None else None
    if now is not None and digest(now) != digest(model.identity):
        raise ModelError(
            f"{model.name}: the model answering changed during the run (identity {json.dumps(model.identity)}, now "
            f"{json.dumps(now)}); the answers of the last batch are dropped, those before it stay cached under the "
            "old identity: run again to ask the new model"
        )


def ask_in_pieces(model, task: Task, rows: list[dict]) -> Iterator[tuple[list[int], list]]:
    """``ask``'s outputs as the model gives them: (positions in ``rows``, their outputs) per piece, several for a
    choice model that batches itself (``choose_in_batches``), one for any other.

    Examples
    --------
    >>> from corefbias.models.baselines import NearestBaseline
    >>> ann, bo = {"start": 0, "end": 3, "is_referent": True}, {"start": 8, "end": 10, "is_referent": False}
    >>> row = {"id": "a", "text": "Ann met Bo; she left.", "pronoun": {"start": 12, "end": 15}, "candidates": [ann, bo]}
    >>> list(ask_in_pieces(NearestBaseline(), Task("t", "en", "id"), [row, row]))
    [([0, 1], [{'choice': 1, 'parsed': True, 'raw': ''}, {'choice': 1, 'parsed': True, 'raw': ''}])]
    """
    if not (isinstance(model, ChoiceModel) and hasattr(model, "choose_in_batches")):
        yield list(range(len(rows))), ask(model, task, rows)
        return
    shown = rows if model.reads_gold else [_without_gold(row) for row in rows]
    for positions, choices in model.choose_in_batches(shown, task):
        if len(choices) != len(positions) or not all(isinstance(choice, Choice) for choice in choices):
            raise ModelError(f"{model.name}: expected {len(positions)} choices, got {choices!r:.200}")
        outputs = [choice_output(choice) for choice in choices]
        check_outputs(model, [rows[position] for position in positions], outputs)
        yield positions, outputs


def cached_and_missing(
    batch: dict, key: tuple, cache: PredictionCache | None, reuse: str
) -> tuple[dict, list[str], list[dict]]:
    """Split a batch into what the cache already answers and what the model must be asked; every executor
    (local, Ray) cuts its work with this, so that both ask about the same instances.

    Parameters
    ----------
    batch : dict
        column → values of a batch of instances, with an ``id`` column.
    key : tuple
        the cache key of the model, task and benchmark part.
    cache : PredictionCache or None
        where answers are kept; None: nothing is cached.
    reuse : {"parsed", "all", "none"}
        which cached answers are taken: sound parsed ones (unparsed ones are asked again), every sound one, or
        none (ask about every instance). A cached answer that does not fit its instance (``output_checks``) is
        never taken: it is asked again, and logged.

    Returns
    -------
    tuple of (dict, list of str, list of dict)
        the cached answers (id → output), then the ids and the rows (column → value) of the instances to ask.

    Examples
    --------
    >>> cached_and_missing({"id": ["a", "b"], "text": ["x", "y"]}, ("model",), None, reuse="parsed")
    ({}, ['a', 'b'], [{'id': 'a', 'text': 'x'}, {'id': 'b', 'text': 'y'}])
    """
    ids = batch["id"]
    stored = cache.get(key, ids) if cache is not None and reuse != "none" else {}
    rows = {instance: {column: batch[column][index] for column in batch} for index, instance in enumerate(ids)}
    found, unsound = {}, []
    for instance, output in stored.items():
        problem = output_problem(output, rows[instance])
        if problem:
            unsound.append(f"instance {instance!r}: {problem}")
        elif reuse == "all" or not is_unparsed(output):
            found[instance] = output
    if unsound:
        log.warning(
            "%d cached answers of %s do not fit their instances and are asked again (%s)",
            len(unsound),
            "/".join(key[1:]),
            unsound[0],
        )
    missing = [instance for instance in ids if instance not in found]
    return found, missing, [rows[instance] for instance in missing]


class _Predictor:
    """The ``Dataset.map`` function: cached outputs, and the model asked for the rest."""

    def __init__(
        self,
        model,
        task: Task,
        key: tuple,
        cache: PredictionCache | None,
        advance: Callable[[int], None],
        reuse: str = "parsed",
    ):
        self.model, self.task, self.key, self.cache, self.advance = model, task, key, cache, advance
        self.reuse = reuse  # which cached answers are taken (cached_and_missing)
        self.model_seconds = 0.0
        self.predicted = 0

    def __call__(self, batch: dict) -> dict:
        ids = batch["id"]
        found, missing_ids, rows = cached_and_missing(batch, self.key, self.cache, self.reuse)
        if rows:
            started = time.perf_counter()
            for positions, outputs in ask_in_pieces(self.model, self.task, rows):
                self.model_seconds += time.perf_counter() - started
                new = {missing_ids[position]: output for position, output in zip(positions, outputs)}
                if self.cache is not None:
                    self.cache.put(self.key, new)
                found.update(new)
                self.predicted += len(new)
                self.advance(len(new))
                started = time.perf_counter()
            if unanswered := [instance for instance in missing_ids if instance not in found]:
                raise ModelError(f"{self.model.name} left {len(unanswered)} instances unanswered: {unanswered[:3]}")
        self.advance(len(ids) - len(rows))
        # JSON text, because Arrow would fix the column type from the first batch (an empty cluster list).
        return {"output": [json.dumps(found[instance]) for instance in ids]}


@dataclass
class Predictions:
    """One benchmark's answers from an executor: outputs per part (JSON values, in the part's row order), the
    seconds spent inside the model's calls (summed over replicas) and how many instances it was asked about."""

    outputs: dict[tuple[str, str], list]
    model_seconds: float = 0.0
    predicted: int = 0


class ExecutorSession(Protocol):
    """A started executor: ``model`` is what this process knows of the model (at least its ``identity`` and, for a
    model that batches itself, its ``call_size``), and ``predict`` answers one benchmark's parts, taking the cached
    answers ``reuse`` names (``cached_and_missing``), asking the model for the rest in calls of ``batch_size``
    consecutive rows (cut the same way by every executor, so that a model whose answers depend on its batch answers
    alike), committing answers to ``cache`` as they come back and calling ``advance(rows)`` after them."""

    model: object

    def predict(
        self,
        parts: dict[tuple[str, str], datasets.Dataset],
        keys: dict[tuple[str, str], tuple],
        task: Task,
        cache: PredictionCache | None,
        *,
        reuse: str,
        batch_size: int,
        advance: Callable[[int], None],
    ) -> Predictions: ...


class Executor(Protocol):
    """Where a run's model answers (``LocalExecutor``, ``ray_executor.RayExecutor``)."""

    def settings(self) -> dict:
        """What ``results.json["settings"]`` records of it (nothing a score or the cache key depends on)."""

    def open(self, model_spec: str, model_options: dict, model=None) -> AbstractContextManager[ExecutorSession]:
        """The model of ``model_spec`` (or ``model``, ready-made) ready to answer, until the context closes."""


class _LocalSession:
    def __init__(self, model):
        self.model = model

    def predict(self, parts, keys, task, cache, *, reuse, batch_size, advance) -> Predictions:
        found = Predictions({})
        for part, data in parts.items():
            key = keys[part]
            predictor = _Predictor(self.model, task, key, cache, advance, reuse)
            mapped = data.map(
                predictor,
                batched=True,
                batch_size=batch_size,
                remove_columns=data.column_names,
                load_from_cache_file=False,
                keep_in_memory=True,
                new_fingerprint=hashlib.sha256(f"{key[0]}/{key[2]}/{key[3]}".encode()).hexdigest()[:32],
            )
            # A part the limit emptied (pairs of another split or type) maps to no output column.
            found.outputs[part] = [json.loads(output) for output in mapped["output"]] if len(data) else []
            found.model_seconds += predictor.model_seconds
            found.predicted += predictor.predicted
        return found


class LocalExecutor:
    """The model answers in this process, call after call (``datasets.Dataset.map``), each answer committed to the
    prediction cache as it comes back (per internal batch of a model that batches itself).

    Examples
    --------
    >>> with LocalExecutor().open("baseline:nearest", {}) as session:
    ...     session.model.name
    'baseline:nearest'
    >>> LocalExecutor().settings()
    {'executor': 'local'}
    """

    def settings(self) -> dict:
        return {"executor": "local"}

    @contextmanager
    def open(self, model_spec: str, model_options: dict, model=None) -> Iterator[_LocalSession]:
        yield _LocalSession(model if model is not None else load_model(model_spec, **model_options))
