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


def test_the_package_exports_the_scoring_function_of_every_metric_under_the_metrics_name():
    import importlib

    import corefbias
    from corefbias import measures

    folders = sorted(path.name for path in PACKAGE.parents[1].glob("metrics/*/") if path.is_dir())
    assert "winogender_bias" in folders  # the glob found the metric folders; the next line says which
    assert sorted(set(corefbias.__all__) - {"__version__"}) == sorted(measures.PUBLIC_SCORES) == folders
    for name in folders:
        # Importing the measure module first binds measures.<name> to it; the package still hands out the function.
        module = importlib.import_module(f"corefbias.measures.{name}")
        assert callable(getattr(corefbias, name)) and getattr(corefbias, name) is getattr(module, name), name
        source = (PACKAGE.parents[1] / "metrics" / name / f"{name}.py").read_text(encoding="utf-8")
        assert f"import corefbias.measures.{name} as measure\n" in source, f"metrics/{name} imports another measure"
        assert f"measure.{name}(" in source, f"metrics/{name} does not call {name}"
    assert corefbias.winopron_accuracy.__module__ == "corefbias.measures.winopron_accuracy"


def test_importing_the_http_protocol_loads_no_numerics():
    import subprocess
    import sys

    code = (
        "import sys; import corefbias.models.http_protocol; "
        "print(sorted(m for m in ('numpy', 'scipy', 'datasets') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


# A finder first on sys.meta_path that refuses `datasets`, as an environment without it would.
WITHOUT_DATASETS = """
import importlib.abc, sys


class RefuseDatasets(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "datasets":
            raise ModuleNotFoundError(f"No module named {name!r} (refused by the test)", name=name)
        return None


sys.meta_path.insert(0, RefuseDatasets())
"""


def _without_datasets(code: str) -> str:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", WITHOUT_DATASETS + code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_the_finder_refuses_datasets():
    assert _without_datasets("try:\n    import datasets\nexcept ModuleNotFoundError as e:\n    print(e)") == (
        "No module named 'datasets' (refused by the test)"
    )


def test_every_model_module_imports_without_datasets_and_with_only_the_data_rooms_plain_helpers():
    code = """
import importlib, pkgutil
import corefbias.models.hf_causal_lm
import corefbias.models

for module in pkgutil.iter_modules(corefbias.models.__path__):
    importlib.import_module(f"corefbias.models.{module.name}")
print(sorted(name for name in sys.modules if name.startswith("corefbias.data")))
"""
    assert _without_datasets(code) == str(["corefbias.data", "corefbias.data.spans"])


def test_an_hf_model_loads_with_torch_and_transformers_alone(tmp_path):
    """A tiny random Llama and a word-level tokenizer, saved and loaded as ``hf:<folder>``, datasets refused."""
    code = f"""
import torch, transformers
from tokenizers import Tokenizer, models, pre_tokenizers
from corefbias.models.registry import load_model

words = ["<s>", "</s>", "<unk>", "The", "nurse", "met", "the", "doctor", "because", "she", "was", "late", "."]
tokenizer = Tokenizer(models.WordLevel({{word: index for index, word in enumerate(words)}}, unk_token="<unk>"))
tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
transformers.PreTrainedTokenizerFast(
    tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", unk_token="<unk>"
).save_pretrained({str(tmp_path)!r})
config = transformers.LlamaConfig(
    vocab_size=len(words), hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
    num_key_value_heads=2,
)
torch.manual_seed(0)
transformers.LlamaForCausalLM(config).save_pretrained({str(tmp_path)!r})
model = load_model("hf:{tmp_path}", max_batch_tokens=64)
print(model.name == "hf:{tmp_path}", model.identity["model_class"], "datasets" in sys.modules)
"""
    assert _without_datasets(code) == "True LlamaForCausalLM False"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_level_imports(path: Path, modules: set[str]) -> set[str]:
    """The corefbias modules ``path`` imports when it is imported (its top-level statements; an import inside a
    function runs later, and one under ``if TYPE_CHECKING`` never)."""
    package = _module_name(path).split(".")[: None if path.name == "__init__.py" else -1]
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            found |= {
                f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target for alias in node.names
            }
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found & modules


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others (Tarjan's strongly connected
    components of more than one module).

    >>> import_cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}})
    [['a', 'b']]
    """
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for other in graph[module]:
            if other not in order:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], order[other])
        if low[module] == order[module]:
            component = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in graph:
        if module not in order:
            visit(module)
    return cycles


def test_no_modules_import_each_other():
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph = {name: module_level_imports(path, set(paths)) - {name} for name, path in paths.items()}
    assert import_cycles(graph) == []
    assert import_cycles({**graph, "corefbias.measures.result": {"corefbias.harness.runner"}}) != []
