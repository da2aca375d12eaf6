"""Each metric module's docstring and card open with what a stranger needs, and the card's usage installs first."""

import ast

import pytest
from metric_harness import REPO

HUB_ORG = "corefbias"
METRICS = sorted(path.parent.name for path in (REPO / "metrics").glob("*/*.py") if path.stem == path.parent.name)


@pytest.mark.parametrize("name", METRICS)
def test_module_docstring_starts_with_install_and_load(name):
    source = (REPO / "metrics" / name / f"{name}.py").read_text(encoding="utf-8")
    docstring = ast.get_docstring(ast.parse(source))
    assert docstring.splitlines()[:2] == ["pip install corefbias", f'evaluate.load("{HUB_ORG}/{name}")']


@pytest.mark.parametrize("name", METRICS)
def test_card_starts_with_install_and_load_and_its_usage_installs_first(name):
    card = (REPO / "metrics" / name / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n")
    body = card[card.index("\n---\n", 4) + len("\n---\n") :].lstrip("\n")
    code_lines = [line for line in body.splitlines()[:6] if not line.startswith("```")]
    assert code_lines == ["pip install corefbias", f'evaluate.load("{HUB_ORG}/{name}")']
    usage = card[card.index("## How to Use\n") + len("## How to Use\n") :]
    assert usage.startswith("```bash\npip install corefbias\n```\n")
    assert f'evaluate.load("{HUB_ORG}/{name}")' in usage
