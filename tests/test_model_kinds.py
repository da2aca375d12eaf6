"""Model kinds from outside corefbias: ``register``, and entry points of the group ``corefbias.models`` of a real
(if tiny) installed distribution."""

import re
import sys
import textwrap

import pytest

from corefbias.cli import main
from corefbias.models import built_in, registry
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
    monkeypatch.setattr(registry, "MODEL_KINDS", registry.new_registry())


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

    monkeypatch.setattr(built_in, "import_module", missing)
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


def _adapter_load(kind):
    """The loader whose parameters a built-in kind's options are: its adapter's ``load``, or for a server's URL
    the client's constructor (the adapter's ``load`` passes every option on to it)."""
    from importlib import import_module

    from corefbias.models.http_protocol import HttpClusterModel

    return HttpClusterModel if kind is registry.SERVER else import_module(f"corefbias.models.{kind.load.module}").load


@pytest.mark.parametrize("kind", [*BUILT_IN, registry.SERVER], ids=lambda kind: kind.name)
def test_a_built_in_kind_declares_exactly_what_its_loader_takes(kind):
    import inspect

    parameters = inspect.signature(_adapter_load(kind)).parameters
    named = {name for name, parameter in parameters.items() if parameter.kind is parameter.KEYWORD_ONLY}
    named |= {name for name, parameter in parameters.items() if parameter.kind is parameter.POSITIONAL_OR_KEYWORD}
    named -= {"argument", "kind", "url", "self"}
    declared = [option.name for option in kind.options]
    assert set(named) <= set(declared), f"{kind.name}: undeclared options {set(named) - set(declared)}"
    open_ended = any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters.values())
    # Past the named parameters, only a loader passing options on (hf: to from_pretrained) takes more.
    assert set(declared) <= named or open_ended
    for option in kind.options:
        if option.choices and option.name in parameters:
            assert parameters[option.name].default in (*option.choices, None)  # None: the loader picks (hf: by device)


def test_model_args_are_refused_by_name_for_the_kind_and_read_as_their_type(capsys):
    """In one process: a misspelled key names the keys the kind takes; a key given by a flag names the flag."""
    from corefbias.cli import build_parser
    from corefbias.cli.model_commands import model_options

    def options(*argv):
        return model_options(build_parser().parse_args(["run", *argv]))

    assert options(
        "--model", "chat:m", "--model-arg", "timeout=2.5", "--model-arg", "retries=0", "--concurrency", "3"
    ) == {
        "timeout": 2.5,
        "retries": 0,
        "workers": 3,
    }
    hf = options("--model", "hf:m", "--model-arg", "low_cpu_mem_usage=true", "--dtype", "bfloat16")
    assert hf == {"low_cpu_mem_usage": True, "dtype": "bfloat16"}  # hf batches by tokens: no batch_size
    assert options("--model", "hf:m", "--model-arg", "max_batch_tokens=512") == {"max_batch_tokens": 512}
    assert options("--model", "hf:m", "--model-arg", "layout=right-padded") == {"layout": "right-padded"}
    assert options("--model", "hf:m", "--model-arg", "row_tokens=256") == {"row_tokens": 256}
    assert options("--model", "baseline:random", "--batch-size", "8") == {}  # run's own setting
    for argv, message in [
        (
            ["--model", "hf:m", "--model-arg", "attn_implmentation=eager"],
            "--model-arg attn_implmentation: hf models take no such key; its keys are max_batch_tokens, call_size, "
            "layout, row_tokens, threads, attn_implementation, low_cpu_mem_usage, local_files_only, cache_dir, "
            "subfolder",
        ),
        (
            ["--model", "hf:m", "--model-arg", "layout=packed"],
            "--model-arg layout: expected one of prefix-sharing, right-padded, prefix-tree, got 'packed'",
        ),
        (
            ["--model", "maverick:m", "--model-arg", "seed=1"],
            "--model-arg seed: maverick models take no such key; it takes none",
        ),
        (["--model", "chat:m", "--model-arg", "token=secret"], "--model-arg token: chat models take no such key"),
        (["--model", "hf:m", "--model-arg", "cloze_norm=bytes"], "--model-arg cloze_norm: give it as --cloze-norm"),
        (
            ["--model", "http://127.0.0.1:1", "--model-arg", "retries=2.5"],
            "--model-arg retries: expected a whole number",
        ),
        (
            ["--model", "chat:m", "--device", "cuda"],
            "--device is for fastcoref:, lingmess:, maverick:, spacy:, hf: models only",
        ),
        (["--model", "hf:m", "--concurrency", "2"], "--concurrency is for chat:, completions:, http(s):// models only"),
    ]:
        with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
            options(*argv)
    assert main(["run", "--model", "hf:m", "--model-arg", "threads=two"]) == 2
    assert capsys.readouterr().err == "corefbias: --model-arg threads: expected a whole number, got 'two'\n"


def _dial(argument, *, kind, volume=1, speaker="left"):
    return Toy(f"{argument}-{volume}-{speaker}", kind)


def test_a_registered_kinds_flags_join_run_for_it_alone(capsys):
    """A kind declaring a flag: ``run --help`` offers it, it reaches that kind's loader, other kinds refuse it
    naming the kind; a flag ``run`` has for itself is refused at the declaration's first use."""
    from corefbias.cli import build_parser
    from corefbias.cli.model_commands import model_options
    from corefbias.models.registry import ModelOption

    volume = ModelOption("volume", "how loud", int, flag="--volume")
    speaker = ModelOption("speaker", "which speaker", choices=("left", "right"))
    register(ModelKind("dial", _dial, example="dial:x", loads_by_name=False, options=(volume, speaker)))
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "--volume N" in capsys.readouterr().out.replace("\n ", " ")
    args = build_parser().parse_args(["run", "--model", "dial:x", "--volume", "3", "--model-arg", "speaker=right"])
    assert load_model(args.model, **model_options(args)).name == "dial:x-3-right"
    for argv, message in [
        (["--model", "chat:m", "--volume", "3"], "--volume is for dial: models only"),
        (["--model", "dial:x", "--model-arg", "speaker=centre"], "--model-arg speaker: expected one of left, right"),
    ]:
        with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
            model_options(build_parser().parse_args(["run", *argv]))
    register(ModelKind("loud", _dial, options=(ModelOption("volume", "how loud", int, flag="--out"),)), "loud.py")
    assert main(["list", "models"]) == 2
    assert capsys.readouterr().err == (
        "corefbias: the model kind 'loud' (loud.py) declares the flag --out, which `corefbias run` has for itself; "
        "declare another flag\n"
    )


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"name": "two words", "help": "x"}, "must be a Python name"),
        ({"name": "size", "help": "x", "type": list}, "type must be str, int, float or bool"),
        ({"name": "size", "help": "x", "flag": "-s"}, "its flag '-s' must be --lower-case-words"),
        ({"name": "fast", "help": "x", "type": bool, "flag": "--fast"}, "that is not true/false"),
        ({"name": "token", "help": "x", "flag": "--token", "command_line": False}, "for an option of the command"),
        ({"name": "size", "help": "x", "type": int, "choices": ("1",)}, "its choices ('1',) must be of its type"),
    ],
)
def test_a_malformed_option_is_refused(fields, message):
    from corefbias.models.registry import ModelOption

    with pytest.raises(ValueError, match=re.escape(message)):
        ModelOption(**fields)


def test_a_kind_with_two_options_of_one_flag_is_refused():
    from corefbias.models.registry import ModelOption

    options = (ModelOption("a", "x", flag="--ab"), ModelOption("b", "y", flag="--ab"))
    with pytest.raises(ValueError, match=r"model kind 'toy': two options of one flag in \['--ab', '--ab'\]"):
        ModelKind("toy", load_toy, options=options)


def test_load_model_refuses_what_a_kind_neither_declares_nor_its_loader_names():
    # baseline's loader swallows **options; its declaration (seed) is what it takes.
    assert load_model("baseline:random", seed=3).identity == load_model("baseline:random", seed=3).identity
    with pytest.raises(ValueError, match="^baseline models take no option device$"):
        load_model("baseline:random", device="cuda")
    with pytest.raises(ValueError, match="^http models take no option colour$"):
        load_model("http://127.0.0.1:1", colour="red")


def test_the_space_gives_each_kind_the_inputs_it_declares_and_no_other(tmp_path):
    from corefbias.models.registry import ModelOption, kind_of
    from corefbias.space.model_inputs import INPUTS, loader_options
    from corefbias.space.model_list import ModelList
    from corefbias.space.settings import SpaceSettings

    asked = {option.space for kind in [*BUILT_IN, registry.SERVER] for option in kind.options if option.space}
    assert asked == set(INPUTS)
    settings = SpaceSettings(
        tmp_path,
        device="cuda",
        chat_base_url="http://127.0.0.1:9/v1",
        models=ModelList(owner_paid_chat=frozenset({"m"})),
    )
    assert loader_options(kind_of("chat:m")[0], "chat:m", settings) == {
        "base_url": "http://127.0.0.1:9/v1",
        "token": None,
    }
    assert loader_options(kind_of("chat:m")[0], "chat:m", settings, "hf_visitor") == {
        "base_url": "http://127.0.0.1:9/v1",
        "token": "hf_visitor",
    }
    with pytest.raises(ValueError, match="chat:other runs on your own Hugging Face account"):
        loader_options(kind_of("chat:other")[0], "chat:other", settings)
    assert loader_options(kind_of("fastcoref:a/b")[0], "fastcoref:a/b", settings) == {"device": "cuda"}
    server = loader_options(registry.SERVER, "http://127.0.0.1:1", settings)
    assert (server["timeout"], server["retries"], sorted(server)) == (60.0, 1, ["opener", "retries", "timeout"])
    strange = ModelKind("strange", load_toy, options=(ModelOption("colour", "x", space="paint"),))
    with pytest.raises(ValueError, match="the model kind 'strange' asks the Space for 'paint', which it does not give"):
        loader_options(strange, "strange:x", settings)


@pytest.mark.parametrize(
    "call",
    [
        lambda: kinds(),
        lambda: load_model("baseline:random"),
        lambda: parse_spec("baseline:random"),
        lambda: registry.origin("hf"),
        lambda: register(ModelKind("toy", load_toy)),
        lambda: main(["--debug", "list", "models"]),
    ],
    ids=["kinds", "load_model", "parse_spec", "origin", "register", "list models"],
)
def test_a_broken_entry_point_fails_every_call_alike_naming_it(call, monkeypatch):
    from importlib import metadata

    from corefbias.plugins import registry as plugin_registry

    broken = metadata.EntryPoint("toy", "no_such_module_anywhere:KIND", registry.ENTRY_POINT_GROUP)
    real = metadata.entry_points
    monkeypatch.setattr(
        plugin_registry.metadata,
        "entry_points",
        lambda group=None, **kw: [broken] if group == registry.ENTRY_POINT_GROUP else real(group=group, **kw),
    )
    messages = set()
    for _ in range(3):
        with pytest.raises(
            ValueError, match=r"cannot load the model kind entry point toy of .*no_such_module"
        ) as error:
            call()
        messages.add(str(error.value))
    assert len(messages) == 1
