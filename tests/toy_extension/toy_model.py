"""A model adapter declared outside corefbias: ``toy:first`` always links the first candidate, ``toy:last``
the last one."""

from corefbias.models.base import Choice
from corefbias.models.registry import ModelKind


class PositionRule:
    """Answers by a fixed candidate position (what a position-biased model does)."""

    reads_gold = False

    def __init__(self, rule: str):
        if rule not in ("first", "last"):
            raise ValueError(f"toy models are toy:first and toy:last, not toy:{rule}")
        self.name = f"toy:{rule}"
        self.rule = rule
        self.identity = {"kind": "toy", "rule": rule, "version": 1}

    def choose(self, instances, task):
        return [Choice(0 if self.rule == "first" else len(row["candidates"]) - 1) for row in instances]


def load(argument, *, kind, **options):
    return PositionRule(argument)


TOY = ModelKind(name="toy", load=load, extra=None, example="toy:first", loads_by_name=False)
