"""A model adapter declared outside corefbias: ``toy:first`` always links the first candidate, ``toy:last``
the last one; ``--model-arg skip=N`` passes over N candidates from that end."""

from corefbias.models.base import Choice
from corefbias.models.registry import ModelKind, ModelOption


class PositionRule:
    """Answers by a fixed candidate position (what a position-biased model does)."""

    reads_gold = False

    def __init__(self, rule: str, skip: int):
        if rule not in ("first", "last"):
            raise ValueError(f"toy models are toy:first and toy:last, not toy:{rule}")
        if skip < 0:
            raise ValueError(f"skip must be 0 or more, got {skip}")
        self.name = f"toy:{rule}"
        self.rule, self.skip = rule, skip
        self.identity = {"kind": "toy", "rule": rule, "skip": skip, "version": 1}

    def choose(self, instances, task):
        last = [len(row["candidates"]) - 1 for row in instances]
        if self.rule == "first":
            return [Choice(min(self.skip, end)) for end in last]
        return [Choice(max(end - self.skip, 0)) for end in last]


def load(argument, *, kind, skip=0):
    return PositionRule(argument, skip)


TOY = ModelKind(
    name="toy",
    load=load,
    extra=None,
    example="toy:first",
    loads_by_name=False,
    options=(ModelOption("skip", "candidates passed over from the rule's end (default 0)", int),),
)
