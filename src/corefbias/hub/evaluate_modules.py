"""What every corefbias ``evaluate`` module shares: optional per-example inputs and id columns.

``evaluate`` requires every feature column in every call. Our modules have optional per-example
inputs (``pair_ids``, ``groups``, ...), so a missing optional column is filled per example before
evaluate sees it, and ``_compute`` receives ``None`` for a column left all-empty. A ``None`` in an
optional string column (an occupation without a stereotype) travels as ``OMITTED``, because evaluate
rejects a string column that opens with ``None``, and is ``None`` again in ``_compute``. Id columns
(``pair_ids``, ``quadruple_ids``, ...) take strings or integers; integers become their decimal strings.
"""

from __future__ import annotations

import numbers

import datasets
import evaluate

# Stands for an omitted optional string input; no id, group or label of ours is empty.
OMITTED = ""


def _none_column(values) -> bool:
    return values is None or all(value is None or value == OMITTED for value in values)


def as_id(value):
    """An id as the string evaluate's string feature takes: integers (not bools) in decimal."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    return value


class CorefBiasMetric(evaluate.Metric):
    """Base of the corefbias metric modules.

    Subclasses set the texts and features of their card (``DESCRIPTION``, ``CITATION``,
    ``INPUTS_DESCRIPTION``, ``FEATURES``, ``HOMEPAGE``, ``REFERENCE_URLS``), name their
    ``OPTIONAL_INPUTS`` and implement ``_score``.
    """

    DESCRIPTION: str
    CITATION: str
    INPUTS_DESCRIPTION: str
    FEATURES: datasets.Features
    HOMEPAGE: str
    REFERENCE_URLS: list[str]
    OPTIONAL_INPUTS: tuple[str, ...] = ()
    ID_INPUTS: tuple[str, ...] = ()

    def _info(self):
        return evaluate.MetricInfo(
            module_type="metric",
            description=self.DESCRIPTION,
            citation=self.CITATION,
            inputs_description=self.INPUTS_DESCRIPTION,
            features=self.FEATURES,
            homepage=self.HOMEPAGE,
            reference_urls=self.REFERENCE_URLS,
        )

    def _omitted(self, name: str):
        feature = self.FEATURES[name]
        return OMITTED if isinstance(feature, datasets.Value) and feature.dtype == "string" else None

    def _fill_optional(self, size: int, kwargs: dict) -> dict:
        for name in self.OPTIONAL_INPUTS:
            if kwargs.get(name) is None:
                kwargs[name] = [self._omitted(name)] * size
            else:
                kwargs[name] = [self._omitted(name) if value is None else value for value in kwargs[name]]
        for name in self.ID_INPUTS:
            if kwargs.get(name) is not None:
                kwargs[name] = [as_id(value) for value in kwargs[name]]
        return kwargs

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of per-example inputs; optional inputs may be left out."""
        size = len(predictions) if predictions is not None else 0
        return super().add_batch(predictions=predictions, references=references, **self._fill_optional(size, kwargs))

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example; optional inputs may be left out."""
        for name in self.OPTIONAL_INPUTS:
            if kwargs.get(name) is None:
                kwargs[name] = self._omitted(name)
        for name in self.ID_INPUTS:
            if name in kwargs:
                kwargs[name] = as_id(kwargs[name])
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score all examples given here and added before; optional inputs may be left out."""
        if predictions is not None:
            kwargs = self._fill_optional(len(predictions), kwargs)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, **inputs):
        for name in self.OPTIONAL_INPUTS:
            values = inputs.get(name)
            inputs[name] = None if _none_column(values) else [None if value == OMITTED else value for value in values]
        return self._score(**inputs)

    def _score(self, **inputs):
        raise NotImplementedError
