"""What every corefbias ``evaluate`` module shares: optional per-example inputs.

``evaluate`` requires every feature column in every call. Our modules have optional per-example
inputs (``pair_ids``, ``groups``, ...), so a missing optional column is filled with ``None`` per
example before evaluate sees it, and ``_compute`` receives ``None`` for a column left all-empty.
Id inputs (``ID_INPUTS``) are declared as strings; ids given as numbers are passed on as their text.
"""

from __future__ import annotations

import datasets
import evaluate


def _none_column(values) -> bool:
    return values is None or all(value is None for value in values)


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
    ID_INPUTS: tuple[str, ...] = ()  # string features that also accept int ids (compared as str(id))

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

    def _fill_optional(self, size: int, kwargs: dict) -> dict:
        for name in self.OPTIONAL_INPUTS:
            if kwargs.get(name) is None:
                kwargs[name] = [None] * size
        for name in self.ID_INPUTS:
            if kwargs.get(name) is not None:
                kwargs[name] = [None if value is None else str(value) for value in kwargs[name]]
        return kwargs

    def _enforce_nested_string_type(self, schema, obj):
        # An omitted optional input arrives as a column of None, and evaluate rejects a None that
        # opens a string column (it type-checks the first value of each column only).
        if obj is None:
            return None
        return super()._enforce_nested_string_type(schema, obj)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of per-example inputs; optional inputs may be left out."""
        size = len(predictions) if predictions is not None else 0
        return super().add_batch(predictions=predictions, references=references, **self._fill_optional(size, kwargs))

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example; optional inputs may be left out."""
        for name in self.OPTIONAL_INPUTS:
            kwargs.setdefault(name, None)
        for name in self.ID_INPUTS:
            if kwargs[name] is not None:
                kwargs[name] = str(kwargs[name])
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score all examples given here and added before; optional inputs may be left out.
"""
        if predictions is not None:
            kwargs = self._fill_optional(len(predictions), kwargs)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, **inputs):
        for name in self.OPTIONAL_INPUTS:
            if _none_column(inputs.get(name)):
                inputs[name] = None
        return self._score(**inputs)

    def _score(self, **inputs):
        raise NotImplementedError
