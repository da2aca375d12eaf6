"""Model spec strings → models. ``<kind>:<argument>`` or an ``http(s)://`` URL.

Every kind is a ``ModelKind``, from one of three places, in this order: corefbias's own (``BUILT_IN``), those
of installed distributions (entry points of the group ``corefbias.models``, read on first use), and those a
program adds with ``register``. A built-in kind imports its adapter module only when a model of that kind is
loaded, so a library that is not installed costs nothing until it is used, and then fails with the extra to
install.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module, metadata

from .base import ModelError

ENTRY_POINT_GROUP = "corefbias.models"
# A kind's name is the part of a spec before the colon; a URL's scheme is no kind.
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
_URL_SCHEMES = ("http", "https")


@dataclass(frozen=True)
class ModelKind:
    """One kind of model spec, ``<name>:<argument>``, and how to load its models.

    Parameters
    ----------
    name : str
        The spec's prefix, e.g. ``"fastcoref"``: a letter, then letters, digits, ``_``, ``.`` or ``-``.
    load : callable
        ``load(argument, *, kind, **options)`` returns the model (a ``base.ClusterModel`` or
        ``base.ChoiceModel``, with its ``identity``) that ``argument`` names; ``kind`` is ``name``, so one
        loader can serve several kinds. ``load_model`` refuses options ``load`` does not take, unless it takes
        ``**options``.
    extra : str or None
        The pip extra that installs what ``load`` imports, of corefbias for a built-in kind and of the
        providing distribution for an entry point's kind; named in the error when that import fails.
    example : str or None
        An example spec, shown in help and error messages; None gives ``<name>:<argument>``.
    loads_by_name : bool
        Whether the argument names something to load: a Hub repository, a local path, an installed package.
        A service taking specs from strangers (the Space) runs such a kind only from its owner's list. True
        unless the kind says otherwise, as that is the safe assumption about a loader nobody has read.

    Examples
    --------
    >>> from corefbias.models.baselines import load
    >>> kind = ModelKind("coin", load, example="coin:random", loads_by_name=False)
    >>> kind.load("random", kind="coin").name
    'baseline:random'
    >>> ModelKind("http", load)
    Traceback (most recent call last):
    ...
    ValueError: a model kind may not be called 'http': a spec starting with http: is a server's URL
    """

    name: str
    load: Callable
    extra: str | None = None
    example: str | None = None
    loads_by_name: bool = True

    def __post_init__(self):
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise ValueError(
                f"a model kind's name must be a letter followed by letters, digits, _, . or -, got {self.name!r}"
            )
        if self.name in _URL_SCHEMES:
            raise ValueError(
                f"a model kind may not be called {self.name!r}: a spec starting with {self.name}: is a server's URL"
            )
        if not callable(self.load):
            raise ValueError(f"model kind {self.name!r}: load must be callable, got {self.load!r}")
        if self.example is None:
            # The one write to the frozen instance: a default computed from another field.
            object.__setattr__(self, "example", f"{self.name}:<argument>")
        elif not (self.example.startswith(f"{self.name}:") and len(self.example) > len(self.name) + 1):
            raise ValueError(f"model kind {self.name!r}: its example {self.example!r} must be {self.name}:<argument>")


def check_options(function: Callable, kind: str, options: dict) -> None:
    """Refuse, before ``function(argument, kind=kind, **options)`` runs, an option it does not take (naming those
    it takes) and a value of another type than the option's default (a number for ``timeout=60.0``, ...).

    Raises
    ------
    ValueError
        Naming the option, and what it takes.

    Examples
    --------
    >>> def load(argument, kind="toy", timeout=60.0, answer="auto"):
    ...     pass
    >>> check_options(load, "toy", {"timout": 5})
    Traceback (most recent call last):
    ...
    ValueError: toy models take no option timout; they take timeout, answer
    >>> check_options(load, "toy", {"timeout": "soon"})
    Traceback (most recent call last):
    ...
    ValueError: toy option timeout takes a number (its default is 60.0), got 'soon'
    """
    parameters = dict(list(inspect.signature(function).parameters.items())[1:])  # after the argument
    parameters.pop("kind", None)
    if not any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters.values()):
        unknown = sorted(set(options) - set(parameters))
        if unknown:
            taken = [name for name, parameter in parameters.items() if parameter.kind is not parameter.VAR_POSITIONAL]
            raise ValueError(
                f"{kind} models take no option {', '.join(unknown)}; they take {', '.join(taken) or 'none'}"
            )
    for name, value in options.items():
        default = parameters[name].default if name in parameters else None
        expected = _VALUE_KINDS.get(type(default))
        if expected is not None and not expected[1](value):
            raise ValueError(f"{kind} option {name} takes {expected[0]} (its default is {default!r}), got {value!r}")


# What an option whose default is of a type takes, in words, and the test of a value.
_VALUE_KINDS = {
    bool: ("true or false", lambda value: isinstance(value, bool)),
    int: ("a whole number", lambda value: isinstance(value, int) and not isinstance(value, bool)),
    float: ("a number", lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)),
    str: ("text", lambda value: isinstance(value, str)),
}


def _checked_call(load: Callable, argument: str, kind: str, options: dict):
    """``load(argument, kind=kind, **options)``, its options checked first (``check_options``)."""
    check_options(load, kind, options)
    return load(argument, kind=kind, **options)


@dataclass(frozen=True)
class _Adapter:
    """The ``load`` of a built-in kind: the ``load`` of its adapter module, imported on the first call."""

    module: str

    def __call__(self, argument: str, *, kind: str, **options):
        return _checked_call(import_module(f".{self.module}", __package__).load, argument, kind, options)


BUILT_IN = (
    ModelKind("baseline", _Adapter("baselines"), None, "baseline:stereotype", loads_by_name=False),
    ModelKind("fastcoref", _Adapter("fastcoref_adapter"), "fastcoref", "fastcoref:biu-nlp/f-coref", loads_by_name=True),
    ModelKind(
        "lingmess", _Adapter("fastcoref_adapter"), "fastcoref", "lingmess:biu-nlp/lingmess-coref", loads_by_name=True
    ),
    ModelKind(
        "maverick",
        _Adapter("maverick_adapter"),
        "maverick",
        "maverick:sapienzanlp/maverick-mes-ontonotes",
        loads_by_name=True,
    ),
    ModelKind("spacy", _Adapter("spacy_adapter"), "spacy-coref", "spacy:en_coreference_web_trf", loads_by_name=True),
    ModelKind("chat", _Adapter("chat"), None, "chat:Qwen/Qwen2.5-7B-Instruct", loads_by_name=False),
    ModelKind("hf", _Adapter("hf_causal_lm"), "hf", "hf:HuggingFaceTB/SmolLM2-135M-Instruct", loads_by_name=True),
    ModelKind("completions", _Adapter("completions"), None, "completions:meta-llama/Llama-3.1-8B", loads_by_name=False),
)


class UnknownModelError(ValueError):
    """A spec string that names no adapter."""


class _Registry:
    """Name → ``ModelKind`` in order: built-ins, entry points (loaded on first use), then registered ones."""

    def __init__(self):
        self._kinds: dict[str, ModelKind] = {}
        self._origins: dict[str, str] = {}
        # The distribution whose extra a kind's ``extra`` is (None where nobody knows: a registered kind).
        self._distributions: dict[str, str | None] = {}
        self._loaded = False

    def _load(self) -> None:
        if self._loaded:
            return
        try:
            for kind in BUILT_IN:
                self._add(kind, "built-in", "corefbias")
            for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
                distribution = _distribution(entry_point)
                origin = f"entry point {entry_point.name} of {distribution or 'an unknown distribution'}"
                try:
                    declared = entry_point.load()
                except Exception as error:
                    raise ValueError(f"cannot load the model kind {origin} ({entry_point.value}): {error}") from error
                self._add(_entry_point_kind(entry_point.name, declared, origin), origin, distribution)
        except BaseException:
            # Start over on the next use, so a broken entry point fails every use alike, not only the first.
            self._kinds, self._origins, self._distributions = {}, {}, {}
            raise
        self._loaded = True

    def _add(self, kind: ModelKind, origin: str, distribution: str | None) -> None:
        if kind.name in self._kinds:
            raise ValueError(
                f"{origin} declares the model kind {kind.name!r}, already declared by {self._origins[kind.name]}"
            )
        self._kinds[kind.name] = kind
        self._origins[kind.name] = origin
        self._distributions[kind.name] = distribution

    def register(self, kind: ModelKind, origin: str) -> None:
        if not isinstance(kind, ModelKind):
            raise ValueError(f"register takes a corefbias ModelKind, got {kind!r}")
        self._load()
        self._add(kind, origin, None)

    def kinds(self) -> dict[str, ModelKind]:
        self._load()
        return dict(self._kinds)

    def origin(self, name: str) -> str:
        self._load()
        if name not in self._origins:
            raise ValueError(f"no model kind {name!r}; the kinds are {', '.join(self._kinds)}")
        return self._origins[name]

    def install_hint(self, name: str) -> str:
        """How to install what a kind's loader imports, as the end of an error message ("" where nothing is known)."""
        extra, distribution = self._kinds[name].extra, self._distributions[name]
        if extra is None:
            return ""
        if distribution is None:
            return f"; install the extra {extra!r} of the package that provides {name!r}"
        return f"; install it with: pip install '{distribution}[{extra}]'"


def _distribution(entry_point: metadata.EntryPoint) -> str | None:
    distribution = getattr(entry_point, "dist", None)
    return distribution.name if distribution is not None else None


def _entry_point_kind(name: str, declared, origin: str) -> ModelKind:
    """The kind an entry point names: a ``ModelKind`` of the entry point's name, or a bare ``load`` wrapped."""
    if isinstance(declared, ModelKind):
        if declared.name != name:
            raise ValueError(
                f"{origin} declares the model kind {declared.name!r}; an entry point's name is its kind, so name "
                f"the entry point {declared.name!r}"
            )
        return declared
    if not callable(declared):
        raise ValueError(f"{origin} names {declared!r}, which is neither a corefbias ModelKind nor a load callable")
    try:
        return ModelKind(name, declared)
    except ValueError as error:
        raise ValueError(f"{origin}: {error}") from None


_REGISTRY = _Registry()


def register(kind: ModelKind, origin: str = "registered") -> None:
    """Add a model kind from outside corefbias, so that its specs load like any other.

    Parameters
    ----------
    kind : ModelKind
        The kind; its name must not be taken by a built-in kind, an entry point's or a registered one.
    origin : str
        Where it comes from, for ``corefbias list models`` and error messages (e.g. the file declaring it).

    Raises
    ------
    ValueError
        When ``kind`` is not a ``ModelKind`` or its name is taken.

    Examples
    --------
    >>> from corefbias.models.baselines import load
    >>> register(ModelKind("coin", load, example="coin:random", loads_by_name=False))
    >>> load_model("coin:random").name
    'baseline:random'
    >>> register(ModelKind("chat", load))
    Traceback (most recent call last):
    ...
    ValueError: registered declares the model kind 'chat', already declared by built-in
    """
    _REGISTRY.register(kind, origin)


def kinds() -> dict[str, ModelKind]:
    """Every model kind by name: the built-in ones, those of installed entry points, then registered ones.

    Returns
    -------
    dict of str to ModelKind
        A new dict each call; changing it changes no registry.

    Raises
    ------
    ValueError
        When an entry point of the group ``corefbias.models`` cannot be loaded or declares a taken name.

    Examples
    --------
    >>> list(kinds())[:3]
    ['baseline', 'fastcoref', 'lingmess']
    >>> kinds()["hf"].example
    'hf:HuggingFaceTB/SmolLM2-135M-Instruct'
    """
    return _REGISTRY.kinds()


def origin(name: str) -> str:
    """Where the kind ``name`` comes from: ``built-in``, ``entry point <name> of <distribution>``, or what
    ``register`` was told (``registered`` by default).

    Examples
    --------
    >>> origin("fastcoref")
    'built-in'
    """
    return _REGISTRY.origin(name)


def parse_spec(spec: str) -> tuple[str, str]:
    """The ``(kind, argument)`` of a spec; a URL is kind ``http``.

    Raises
    ------
    UnknownModelError
        When the spec names no known kind or no argument; the message lists the kinds, with examples.

    Examples
    --------
    >>> parse_spec("fastcoref:biu-nlp/f-coref")
    ('fastcoref', 'biu-nlp/f-coref')
    >>> parse_spec("http://127.0.0.1:8808")
    ('http', 'http://127.0.0.1:8808')
    """
    spec = spec.strip()
    if spec.startswith(("http://", "https://")):
        return "http", spec
    known = kinds()
    kind, sep, argument = spec.partition(":")
    if not sep or kind not in known or not argument:
        examples = ", ".join(model_kind.example for model_kind in known.values())
        raise UnknownModelError(
            f"unknown model spec {spec!r}; expected <kind>:<name> with kind in "
            f"{sorted(known)} or an http(s):// URL of a corefbias server, e.g. {examples}"
        )
    return kind, argument


def load_model(spec: str, **options):
    """The model a spec names.

    Parameters
    ----------
    spec : str
        ``<kind>:<argument>`` or the URL of a server speaking corefbias's HTTP protocol.
    **options
        Given to the kind's loader, e.g. ``base_url`` for ``chat``; one it does not take is refused.

    Raises
    ------
    UnknownModelError
        When the spec names no known kind.
    ValueError
        When the loader takes no such option.
    ModelError
        When the loader needs a library that is not installed; the message names the extra that installs it.

    Examples
    --------
    >>> load_model("baseline:dist-2").name
    'baseline:dist-2'
    >>> load_model("chat:Qwen/Qwen2.5-7B-Instruct", colour="red")
    Traceback (most recent call last):
    ...
    ValueError: chat models take no option colour; they take base_url, token_env, timeout, ...
    """
    kind, argument = parse_spec(spec)
    if kind == "http":
        from .http_protocol import HttpClusterModel

        check_options(HttpClusterModel, "http(s)://", options)
        return HttpClusterModel(argument, **options)
    try:
        return _checked_call(kinds()[kind].load, argument, kind, options)
    except ImportError as error:
        raise ModelError(f"model {spec!r} needs {error.name or error}{_REGISTRY.install_hint(kind)}") from error
