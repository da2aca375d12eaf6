"""Set corefbias's version (src/corefbias/__init__.py, its one source) and open its CHANGELOG section.

    python scripts/bump_version.py 0.2.0

The "## Unreleased" section of CHANGELOG.md becomes "## 0.2.0", and a new empty "## Unreleased" goes above it.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VERSION_LINE = re.compile(r'^__version__ = "([^"]+)"$', re.MULTILINE)
# A final release or pre-release as PEP 440 writes it in its normal form (1.2.0, 1.2.0rc1, 1.2.0.post1).
VERSION = re.compile(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?")
UNRELEASED = "## Unreleased\n"


def bump(version: str, root: Path = ROOT) -> str:
    """Write ``version`` into the package and the changelog under ``root``; returns the previous version."""
    if not VERSION.fullmatch(version):
        raise ValueError(f"{version!r} is not a version such as 1.2.0 or 1.2.0rc1")
    init, changelog = root / "src" / "corefbias" / "__init__.py", root / "CHANGELOG.md"
    source, history = init.read_text(encoding="utf-8"), changelog.read_text(encoding="utf-8")
    previous = VERSION_LINE.search(source)[1]
    if version == previous:
        raise ValueError(f"corefbias is already at {version}")
    if re.search(rf"^## {re.escape(version)}$", history, re.MULTILINE):
        raise ValueError(f"CHANGELOG.md already has a section for {version}")
    if UNRELEASED not in history:
        raise ValueError(f"CHANGELOG.md has no {UNRELEASED.strip()!r} section to release")
    init.write_text(VERSION_LINE.sub(f'__version__ = "{version}"', source), encoding="utf-8")
    changelog.write_text(history.replace(UNRELEASED, f"{UNRELEASED}\n## {version}\n", 1), encoding="utf-8")
    return previous


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", help="the new version, e.g. 0.2.0")
    version = parser.parse_args(argv).version
    try:
        previous = bump(version)
    except ValueError as error:
        print(f"bump_version: {error}", file=sys.stderr)
        return 2
    print(f"corefbias {previous} → {version}: commit, then tag v{version} and push the tag to release")
    return 0


if __name__ == "__main__":
    sys.exit(main())
