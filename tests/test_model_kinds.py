"""Model kinds from outside corefbias: ``register``, and entry points of the group ``corefbias.models`` of a real
(if tiny) installed distribution."""

import sys
import textwrap

import pytest

from corefbias.cli import main
from corefbias.models import registry
from corefbias.models.base import Choice, ChoiceModel, ModelError
from corefbias.models.registry import BUILT_IN, ModelKind, UnknownModelError, kinds, load_model, parse_spec, register


class Toy:
    """A choice model that picks the first candidate; its identity says which argument made it."""

    reads_gold = False

    def __init__(self, argument, kind):
        self.name, self.identity = f"{kind}:{argument}", {"kind": kind, "argument": argument}

    def choose(self, instances, task):
        return [Choice(0) for _ in instances]


def load_toy(argument, *, kind, colour="grey"):
    return Toy(argument, kind)


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch):
    """A registry that has read no entry point and registered nothing, put back after the test."""
    monkeypatch.setattr(registry, "_REGISTRY", registry._Registry())


@pytest.fixture
def distribution(tmp_path, monkeypatch):
    """``install(name, entry_points, module_source)``: a distribution ``name`` on ``sys.path``, with a module
    ``<name>_models`` (dashes as underscores) and ``entry_points.txt`` lines ``kind = <module>:<object>`` of the
    group ``corefbias.models``; its module is forgotten after the test, so the next test imports its own."""
    modules = []

    def install(name, entry_points, module_source):
        module = f"{name.replace('-', '_')}_models"
        root = tmp_path / name
        info = root / f"{name}-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        lines = "".join(f"{kind} = {module}:{target}\n" for kind, target in entry_points.items())
        (info / "entry_points.txt").write_text(f"[corefbias.models]\n{lines}")
        (root / f"{module}.py").write_text(textwrap.dedent(module_source))
        monkeypatch.syspath_prepend(str(root))
        modules.append(module)

    yield install
    for module in modules:
        sys.modules.pop(module, None)


PLUGIN = """
    from corefbias.models.base import Choice
    from corefbias.models.registry import ModelKind


    class Plugged:
        reads_gold = False

        def __init__(self, argument, kind):
            self.name, self.identity = f"{kind}:{argument}", {"kind": kind, "argument": argument}

        def choose(self, instances, task):
            return [Choice(None) for _ in instances]


    def load(argument, *, kind):
        return Plugged(argument, kind)


    KIND = ModelKind("plugged", load, extra="gpu", example="plugged:some/model", loads_by_name=False)
    NOT_A_KIND = 42
"""


def test_a_registered_kind_loads_by_its_spec():
    toy = ModelKind("toy", load_toy, example="toy:x", loads_by_name=False)
    register(toy)
    model = load_model("toy:x")
    assert isinstance(model, Toy) and isinstance(model, ChoiceModel)
    assert model.identity == {"kind": "toy", "argument": "x"}
    assert list(kinds()) == [*(kind.name for kind in BUILT_IN), "toy"] and kinds()["toy"] is toy
    assert registry.origin("toy") == "registered"
    assert parse_spec("toy:x") == ("toy", "x")
    with pytest.raises(ValueError, match="toy models take no option size"):
        load_model("toy:x", size=3)
    assert load_model("toy:y", colour="red").identity["argument"] == "y"


def test_a_taken_name_is_refused():
    register(ModelKind("toy", load_toy), origin="toys.py")
    assert registry.origin("toy") == "toys.py"
    with pytest.raises(ValueError, match="registered declares the model kind 'toy', already declared by toys.py"):
        register(ModelKind("toy", load_toy))
    with pytest.raises(
        ValueError, match="registered declares the model kind 'fastcoref', already declared by built-in"
    ):
        register(ModelKind("fastcoref", load_toy))
    with pytest.raises(ValueError, match="register takes a corefbias ModelKind"):
        register(load_toy)


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"name": "http", "load": load_toy}, "may not be called 'http'"),
        ({"name": "two words", "load": load_toy}, "must be a letter followed by"),
        ({"name": "toy", "load": "load_toy"}, "load must be callable"),
        ({"name": "toy", "load": load_toy, "example": "other:x"}, "its example 'other:x' must be toy:<argument>"),
    ],
)
def test_a_malformed_kind_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        ModelKind(**fields)


def test_a_kind_without_an_example_gets_one_and_is_assumed_to_load_by_name():
    kind = ModelKind("toy", load_toy)
    assert kind.example == "toy:<argument>" and kind.extra is None and kind.loads_by_name


def test_the_unknown_spec_message_lists_a_registered_kind():
    register(ModelKind("toy", load_toy, example="toy:x"))
    with pytest.raises(UnknownModelError, match=r"expected <kind>:<name> with kind in \[.*'toy'.*\].*toy:x"):
        parse_spec("nonsense:x")


def test_an_entry_points_model_kind_and_bare_load_are_picked_up(distribution, capsys):
    distribution("toy-plugin", {"plugged": "KIND", "bare": "load"}, PLUGIN)
    found = kinds()
    assert list(found)[-2:] == ["plugged", "bare"]
    assert found["plugged"].example == "plugged:some/model" and not found["plugged"].loads_by_name
    # A bare load: nothing says what its argument names, so it is taken to load by name.
    assert found["bare"].example == "bare:<argument>" and found["bare"].loads_by_name
    assert registry.origin("plugged") == "entry point plugged of toy-plugin"
    model = load_model("plugged:some/model")
    assert type(model).__name__ == "Plugged" and model.identity == {"kind": "plugged", "argument": "some/model"}
    assert load_model("bare:y").name == "bare:y"
    with pytest.raises(UnknownModelError, match=r"'bare'.*'plugged'"):
        parse_spec("nonsense:x")
    assert main(["list", "models"]) == 0
    listed = capsys.readouterr().out
    assert "plugged:some/model" in listed and "entry point plugged of toy-plugin" in listed


def test_an_entry_point_kind_that_needs_a_missing_library_names_its_distributions_extra(distribution):
    distribution(
        "needy",
        {"needy": "KIND"},
        """
        from corefbias.models.registry import ModelKind


        def load(argument, *, kind):
            import a_library_nobody_installed  # noqa: F401


        KIND = ModelKind("needy", load, extra="gpu")
        """,
    )
    with pytest.raises(
        ModelError, match=r"needs a_library_nobody_installed; install it with: pip install 'needy\[gpu\]'"
    ):
        load_model("needy:x")


def test_a_built_in_kind_whose_library_is_missing_names_corefbias_extra(monkeypatch):
    def missing(name, package=None):
        raise ModuleNotFoundError(f"No module named {name!r}", name="maverick")

    monkeypatch.setattr(registry, "import_module", missing)
    with pytest.raises(ModelError, match=r"needs maverick; install it with: pip install 'corefbias\[maverick\]'"):
        load_model("maverick:sapienzanlp/maverick-mes-ontonotes")


def test_the_space_runs_a_kind_that_loads_by_name_only_from_its_list():
    from corefbias.space.model_list import ModelList

    register(ModelKind("toy", load_toy, example="toy:x", loads_by_name=False))
    register(ModelKind("files", load_toy))
    ModelList().check("toy:anything")
    with pytest.raises(ValueError, match="files:some/path is not on this Space's model list"):
        ModelList().check("files:some/path")


@pytest.mark.parametrize(
    "entry_points, message",
    [
        (
            {"broken": "MISSING"},
            r"cannot load the model kind entry point broken of broken-plugin \(broken_plugin_models:MISSING\)",
        ),
        ({"other": "KIND"}, "entry point other of broken-plugin declares the model kind 'plugged'; .* name the entry "),
        ({"odd": "NOT_A_KIND"}, "entry point odd of broken-plugin names 42, which is neither"),
        (
            {"chat": "load"},
            "entry point chat of broken-plugin declares the model kind 'chat', already declared by built-in",
        ),
        ({"http": "load"}, "entry point http of broken-plugin: a model kind may not be called 'http'"),
    ],
)
def test_a_broken_entry_point_is_named(distribution, entry_points, message):
    distribution("broken-plugin", entry_points, PLUGIN)
    for _ in range(2):  # not only on first use
        with pytest.raises(ValueError, match=message):
            kinds()
