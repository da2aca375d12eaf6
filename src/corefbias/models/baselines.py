"""Baselines that need no download: ``baseline:<name>`` with name one of ``BASELINES``.

* ``random``: a candidate uniformly at random, seeded by the instance id (reruns agree);
* ``nearest``: the candidate closest to the pronoun (in characters; ties go to the earlier one);
* ``dist-<k>``: GAP on GAP's Dist-k, the candidate whose rank among the text's names is k, from the
  ``candidate_ranks`` column where the set has one (GAP test); elsewhere candidates are ranked by
  their distance to the pronoun, so ``dist-1`` equals ``nearest`` there. Being a choice model it
  links one candidate: where both share rank k (GAP test-404 and test-1241, one name span covering
  both) it links the first, while ``gap_baselines.dist_k_predictions`` links both — so on GAP
  ``baseline:dist-1`` gives W-Bias 1.0024 and acc-Bias 0.7781 against the paper's 1.000 and 0.776;
* ``stereotype``: the candidate whose occupation stereotype (``candidate_stereotypes``) matches
  the pronoun's gender; else the nearest candidate whose stereotype does not contradict it; else
  none — it must come out strongly biased, a live check that the metrics detect bias;
* ``oracle``: the gold referent (it reads the gold labels); it must come out unbiased. Being a choice model, it
  cannot answer MAP's ``either`` (both names), so its accuracy there is 0.988, not 1, in every version alike.

All are choice models: each instance gets one candidate or none. A baseline's identity (the
prediction cache's key) is its name, its parameters and ``BASELINES_VERSION``.
"""

from __future__ import annotations

import hashlib
import random
import re

from .base import Choice, Task

BASELINES = ("random", "nearest", "dist-<k>", "stereotype", "oracle")
# Bump whenever any baseline would answer some instance differently: cached answers of the old
# rules are then not reused.
BASELINES_VERSION = 1


def _distance(candidate: dict, pronoun: dict) -> int:
    if candidate["end"] <= pronoun["start"]:
        return pronoun["start"] - candidate["end"]
    return max(candidate["start"] - pronoun["end"], 0)


def _nearest(instance: dict) -> int | None:
    candidates = instance["candidates"]
    if not candidates:
        return None
    return min(range(len(candidates)), key=lambda i: (_distance(candidates[i], instance["pronoun"]), i))


class _Baseline:
    reads_gold = False
    # A baseline answers any number of instances at once; calls of 1,024 rather than the default 32 keep the
    # prediction cache's reads and commits few (the main job on every benchmark: 23.8 s instead of 28.4 s).
    call_size = 1024

    def __init__(self, name: str):
        self.name = f"baseline:{name}"

    def choose(self, instances: list[dict], task: Task) -> list[Choice]:
        return [Choice(self.pick(instance)) for instance in instances]

    @property
    def identity(self) -> dict:
        return {"kind": "baseline", "baseline": self.name, "baselines_version": BASELINES_VERSION}


class RandomBaseline(_Baseline):
    def __init__(self, seed: int = 0):
        super().__init__("random")
        self.seed = seed

    def pick(self, instance: dict) -> int | None:
        if not instance["candidates"]:
            return None
        digest = hashlib.sha256(f"{self.seed}/{instance['id']}/{instance['text']}".encode()).digest()
        return random.Random(digest).randrange(len(instance["candidates"]))

    @property
    def identity(self) -> dict:
        return {**super().identity, "seed": self.seed}


class NearestBaseline(_Baseline):
    def __init__(self):
        super().__init__("nearest")

    def pick(self, instance: dict) -> int | None:
        return _nearest(instance)


class DistKBaseline(_Baseline):
    def __init__(self, k: int):
        super().__init__(f"dist-{k}")
        self.k = k

    def pick(self, instance: dict) -> int | None:
        ranks = instance.get("candidate_ranks")
        if ranks is None:
            pronoun = instance["pronoun"]
            order = sorted(
                range(len(instance["candidates"])), key=lambda i: (_distance(instance["candidates"][i], pronoun), i)
            )
            ranks = [order.index(i) + 1 for i in range(len(order))]
        matches = [index for index, rank in enumerate(ranks) if rank == self.k]
        return matches[0] if matches else None


class StereotypeBaseline(_Baseline):
    def __init__(self):
        super().__init__("stereotype")

    def pick(self, instance: dict) -> int | None:
        gender = instance.get("pronoun_gender")
        stereotypes = instance.get("candidate_stereotypes") or []
        matching = [
            index for index, stereotype in enumerate(stereotypes) if stereotype is not None and stereotype == gender
        ]
        if len(matching) == 1:
            return matching[0]
        contradicting = {
            index
            for index, stereotype in enumerate(stereotypes)
            if stereotype is not None and gender in ("female", "male") and stereotype != gender
        }
        allowed = {
            **instance,
            "candidates": [c for i, c in enumerate(instance["candidates"]) if i not in contradicting],
        }
        nearest = _nearest(allowed)
        return (
            None
            if nearest is None
            else [i for i in range(len(instance["candidates"])) if i not in contradicting][nearest]
        )


class OracleBaseline(_Baseline):
    reads_gold = True

    def __init__(self):
        super().__init__("oracle")

    def pick(self, instance: dict) -> int | None:
        referents = [index for index, candidate in enumerate(instance["candidates"]) if candidate["is_referent"]]
        return referents[0] if referents else None


def load(argument: str, kind: str = "baseline", seed: int = 0, **_options):
    """The baseline named by ``argument`` (``random``, ``nearest``, ``dist-2``, ...)."""
    if argument == "random":
        return RandomBaseline(seed)
    if argument == "nearest":
        return NearestBaseline()
    if argument == "stereotype":
        return StereotypeBaseline()
    if argument == "oracle":
        return OracleBaseline()
    dist = re.fullmatch(r"dist-([1-9][0-9]*)", argument)
    if dist:
        return DistKBaseline(int(dist.group(1)))
    raise ValueError(f"unknown baseline {argument!r}; choose one of {', '.join(BASELINES)} (e.g. dist-2)")
