"""The rooms of ``src/corefbias`` import each other only in the directions their docstrings allow."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "corefbias"
ROOMS = ("plugins", "measures", "data", "models", "benchmarks", "harness", "hub", "reproduce", "space", "cli")
ALLOWED = {
    "plugins": set(),
    "measures": set(),
    "data": {"measures", "plugins"},
    "models": {"data", "plugins"},
    "benchmarks": {"measures", "data", "models", "plugins"},
    "harness": {"measures", "data", "models", "benchmarks", "plugins"},
    "hub": {"measures", "data", "plugins"},
    "reproduce": {"measures", "data", "benchmarks", "harness", "plugins"},
    "space": {"measures", "data", "models", "benchmarks", "harness", "plugins"},
    "cli": set(ROOMS),
}


def imported_rooms(path: Path) -> dict[str, int]:
    """Room → first line importing it, for every corefbias import in the file (relative ones resolved)."""
    module = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = module[:-1] if module[-1] != "__init__" else module[:-1]
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = (*base, *(node.module.split(".") if node.module else ()))
            else:
                target = tuple((node.module or "").split("."))
            names = [target + (alias.name,) for alias in node.names] if len(target) == 1 else [target]
        elif isinstance(node, ast.Import):
            names = [tuple(alias.name.split(".")) for alias in node.names]
        else:
            continue
        for name in names:
            if len(name) > 1 and name[0] == "corefbias" and name[1] in ROOMS:
                found.setdefault(name[1], node.lineno)
    return found


@pytest.mark.parametrize("room", ROOMS)
def test_room_imports_only_what_its_docstring_allows(room):
    assert (PACKAGE / room / "__init__.py").is_file()
    wrong = [
        f"{path.relative_to(PACKAGE)}:{line} imports corefbias.{other}"
        for path in sorted((PACKAGE / room).rglob("*.py"))
        for other, line in imported_rooms(path).items()
        if other != room and other not in ALLOWED[room]
    ]
    assert not wrong, f"{room} may import only {sorted(ALLOWED[room])}: " + "; ".join(wrong)


def test_the_checker_sees_relative_and_absolute_imports(tmp_path, monkeypatch):
    fake = PACKAGE / "measures" / "_layering_probe.py"
    source = "\n".join(
        [
            "from ..harness import runner",
            "import corefbias.models.base",
            "from corefbias import hub",
            "from . import validation",
        ]
    )
    monkeypatch.setattr(Path, "read_text", lambda self, encoding=None: source)
    assert imported_rooms(fake) == {"harness": 1, "models": 2, "hub": 3, "measures": 4}


def test_every_module_lives_in_a_room():
    loose = sorted(path.name for path in PACKAGE.glob("*.py") if path.name not in ("__init__.py", "__main__.py"))
    assert loose == []


def test_the_package_exports_the_six_scoring_functions_the_metric_modules_call():
    import corefbias
    from corefbias import measures
    from corefbias.measures import abc_fpr, counter_gap, gap, pro_anti, winogender

    assert set(corefbias.__all__) == {
        "__version__",
        "delta_i",
        "acc_bias",
        "w_bias",
        "winogender_bias",
        "pro_anti_diff",
        "fpr_ratio",
    }
    assert set(corefbias.__all__) - {"__version__"} == set(measures.PUBLIC_SCORES)
    assert corefbias.delta_i is counter_gap.delta_i and corefbias.fpr_ratio is abc_fpr.fpr_ratio
    assert corefbias.acc_bias is gap.acc_bias and corefbias.w_bias is gap.w_bias
    assert corefbias.winogender_bias is winogender.winogender_bias and corefbias.pro_anti_diff is pro_anti.pro_anti_diff
    metric_sources = "".join(path.read_text(encoding="utf-8") for path in PACKAGE.parents[1].glob("metrics/*/*.py"))
    for name in set(corefbias.__all__) - {"__version__"}:
        assert f".{name}(" in metric_sources, f"no metric module calls {name}"


def test_importing_the_http_protocol_loads_no_numerics():
    import subprocess
    import sys

    code = (
        "import sys; import corefbias.models.http_protocol; "
        "print(sorted(m for m in ('numpy', 'scipy', 'datasets') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"
