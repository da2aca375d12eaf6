"""Write the JSON Schema of results.json (docs/results.schema.json) from corefbias.harness.result_schema.

    python scripts/results_schema.py          # rewrite docs/results.schema.json
    python scripts/results_schema.py --check  # exit 1 when it is not what the types give (stale)

Needs pydantic (``pip install -e '.[test]'``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from corefbias.harness.result_schema import json_schema

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "docs" / "results.schema.json"


def schema_text() -> str:
    """The schema file's text: ``result_schema.json_schema()`` as indented JSON."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed schema is stale")
    check = parser.parse_args(argv).check
    text = schema_text()
    shown = SCHEMA.relative_to(ROOT)
    if check:
        if SCHEMA.is_file() and SCHEMA.read_text(encoding="utf-8") == text:
            print(f"{shown} is up to date")
            return 0
        print(f"{shown} is stale: run python scripts/results_schema.py and commit it", file=sys.stderr)
        return 1
    SCHEMA.parent.mkdir(exist_ok=True)
    SCHEMA.write_text(text, encoding="utf-8")
    print(f"wrote {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
