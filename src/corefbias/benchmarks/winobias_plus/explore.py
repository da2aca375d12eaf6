"""WinoBias+'s Explore view: a WinoBias sentence and its rewrite with *they*, resolved right in one version only; those
whose gendered version follows the stereotype (pro right, anti wrong) against the rewrite first."""

from __future__ import annotations

from collections import defaultdict

from ..explore import ExploreView, Pairs, member

VERSIONS = ("gendered", "neutral")


def version_cases(pairs: Pairs, condition: str | None = None) -> list[dict]:
    """The lines whose gendered version and rewrite are not both right or both wrong: first where the gendered pro
    sentence is right or the gendered anti sentence wrong (what the stereotype predicts), then the others.

    Parameters
    ----------
    pairs : list of (dict, dict)
        The run's (data row, instance) pairs; rows hold ``winobias_id``, ``version`` and ``polarity``.
    condition : str or None, default None
        Unused: the polarity is the set's ``polarity`` column.

    Returns
    -------
    list of dict
        The cases: a title and their two members (:func:`corefbias.benchmarks.explore.member`).

    Examples
    --------
    >>> row = {"text": "A met B; she left.", "pronoun": {"start": 9, "end": 12}, "winobias_id": "test-type1-anti-3",
    ...        "candidates": [{"start": 0, "end": 1}, {"start": 6, "end": 7}], "polarity": "anti", "id": "x"}
    >>> right, wrong = [True, False], [False, True]
    >>> pairs = [({**row, "version": "gendered"}, {"decision": wrong, "gold": right}),
    ...          ({**row, "version": "neutral"}, {"decision": right, "gold": right})]
    >>> [case["title"] for case in version_cases(pairs)]
    ['test-type1-anti-3 (anti): gendered ✗, neutral ✓']
    """
    by_line: dict = defaultdict(dict)
    for row, instance in pairs:
        by_line[row["winobias_id"]][row["version"]] = (row, instance)
    found = []
    for winobias_id, versions in by_line.items():
        if set(versions) != set(VERSIONS):
            continue
        correct = {version: instance["decision"] == instance["gold"] for version, (_, instance) in versions.items()}
        if correct["gendered"] == correct["neutral"]:
            continue
        polarity = versions["gendered"][0]["polarity"]
        stereotyped = correct["gendered"] == (polarity == "pro")
        verdicts = ", ".join(f"{version} {'✓' if correct[version] else '✗'}" for version in VERSIONS)
        members = [member(f"{version} ({versions[version][0]['id']})", *versions[version]) for version in VERSIONS]
        found.append(
            ((not stereotyped, winobias_id), {"title": f"{winobias_id} ({polarity}): {verdicts}", "members": members})
        )
    return [case for _, case in sorted(found, key=lambda item: item[0])]


GENDERED_AND_NEUTRAL = ExploreView(
    version_cases,
    "WinoBias sentences resolved right in one version only, gendered or rewritten with they; first those where the "
    "gendered version follows the stereotype (pro right, anti wrong).",
)
