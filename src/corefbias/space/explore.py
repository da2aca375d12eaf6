"""The instances behind a score, shown like Table 7 of the Counter-GAP paper (the model's links highlighted,
the pronoun bold and underlined, the gold antecedent underlined).

Each benchmark declares its view (``Benchmark.explore``, a ``corefbias.benchmarks.ExploreView``), which finds
the *cases*: plain JSON, stored with the run, a title and its member instances. ``cases`` runs the views over
a run; ``render`` turns cases into HTML, escaping every text.
"""

from __future__ import annotations

import html

from ..benchmarks import rows_of


def view_cases(view, run) -> list[dict]:
    """Every case ``view`` (an ``ExploreView``) finds in one benchmark's run (a ``runner.BenchmarkRun``)."""
    rows = [row for columns in run.parts.values() for row in rows_of(columns)]
    return view.find(list(zip(rows, run.instances, strict=True)), run.benchmark.condition_column)


def cases(result, max_cases: int = 200) -> dict[str, dict]:
    """Per explorable benchmark of a ``runner.RunResult``: ``{"total", "explained", "cases"}``, at most
    ``max_cases`` cases each."""
    found = {}
    for name, run in result.runs.items():
        view = run.benchmark.explore
        if view is not None and run.sections:
            every = view_cases(view, run)
            found[name] = {"total": len(every), "explained": view.explained, "cases": every[:max_cases]}
    return found


def _highlighted(member: dict) -> str:
    """The text with the pronoun in bold and underlined, the gold antecedent underlined, linked candidates marked."""
    spans = [(member["pronoun"][0], member["pronoun"][1], None)]
    spans += [(candidate["start"], candidate["end"], candidate) for candidate in member["candidates"]]
    text, pieces, cursor = member["text"], [], 0
    for start, end, candidate in sorted(spans, key=lambda span: span[:2]):
        if start < cursor:  # overlapping spans: keep the first
            continue
        pieces.append(html.escape(text[cursor:start]))
        inner = html.escape(text[start:end])
        if candidate is None:
            pieces.append(f'<b class="pronoun"><u>{inner}</u></b>')
        else:
            inner = f"<u>{inner}</u>" if candidate["gold"] else inner
            pieces.append(
                f'<mark class="linked">{inner}</mark>'
                if candidate["linked"]
                else f'<span class="candidate">{inner}</span>'
            )
        cursor = end
    pieces.append(html.escape(text[cursor:]))
    return "".join(pieces)


_VERDICT = {True: '<span class="correct">✓ correct</span>', False: '<span class="incorrect">✗ incorrect</span>'}
LEGEND = (
    '<p class="legend"><mark class="linked">highlighted</mark>: linked to the pronoun by the model · '
    "<b><u>pronoun</u></b> · <u>gold antecedent</u> · ✓/✗: resolved to the gold antecedent and nothing else</p>"
)


def render(cases: list[dict]) -> str:
    parts = [LEGEND]
    for case in cases:
        rows = "".join(
            f'<tr><td class="role">{html.escape(member["label"])}<br>{_VERDICT[member["correct"]]}</td>'
            f'<td class="text">{_highlighted(member)}</td></tr>'
            for member in case["members"]
        )
        parts.append(f'<div class="case"><h4>{html.escape(case["title"])}</h4><table>{rows}</table></div>')
    return "\n".join(parts)
