"""The Learn tab: each metric's definition, formula, reading and citation, taken from its metric
card (``metrics/<name>/README.md``, the one text of record), and what each headline score of
the runner means.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..benchmarks import BENCHMARKS

SECTIONS = ("Metric Description", "Limitations and Bias", "Citation")


def card_sections(card: str) -> tuple[str, dict[str, str]]:
    """The card's title (front matter) and its level-2 sections by heading."""
    front, body = "", card
    if card.startswith("---\n"):
        front, _, body = card[4:].partition("\n---\n")
    title = re.search(r"^title:\s*(.+)$", front, re.MULTILINE)
    sections: dict[str, str] = {}
    for chunk in re.split(r"^## ", body, flags=re.MULTILINE)[1:]:
        heading, _, text = chunk.partition("\n")
        sections[heading.strip()] = text.strip()
    return (title.group(1).strip().strip("\"'") if title else ""), sections


def metric_pages(cards_dir: Path | None) -> list[tuple[str, str]]:
    """(title, Markdown) per metric card in ``cards_dir``: description, limitations, citation."""
    if cards_dir is None or not Path(cards_dir).is_dir():
        return []
    pages = []
    for card in sorted(Path(cards_dir).glob("*/README.md")):
        title, sections = card_sections(card.read_text(encoding="utf-8"))
        text = "\n\n".join(f"### {name}\n\n{sections[name]}" for name in SECTIONS if name in sections)
        pages.append((title or card.parent.name, f"Module `{card.parent.name}`\n\n{text}"))
    return pages


def headline_table() -> str:
    """Markdown: every score the Run tab shows, the module computing it, and its no-bias value."""
    lines = [
        "| benchmark | score | unbiased value | metric module | language |",
        "|---|---|---|---|---|",
    ]
    for name, benchmark in BENCHMARKS.items():
        for headline in benchmark.headlines:
            unbiased = "— (not a bias score)" if headline.unbiased is None else f"{headline.unbiased:g}"
            lines.append(
                f"| {name} | {headline.label} | {unbiased} | "
                f"{', '.join(f'`{name}`' for name in benchmark.metric_modules)} | {benchmark.language} |"
            )
    return "\n".join(lines)
