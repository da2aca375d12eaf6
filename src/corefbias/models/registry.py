"""Model spec strings → models. ``<kind>:<argument>`` or an ``http(s)://`` URL.

Every kind is a ``ModelKind`` (``corefbias.models.declaration``), from one of three places, in this order:
corefbias's own (``built_in.BUILT_IN``), those of installed distributions (entry points of the group
``corefbias.models``, read on first use), and those a program adds with ``register``; ``MODEL_KINDS`` is
the one registry of them (``corefbias.plugins.registry.Registry``). A URL is the kind ``built_in.SERVER``.
"""

from __future__ import annotations

from ..plugins.registry import Registry
from .base import ModelError
from .built_in import BUILT_IN, SERVER
from .declaration import ModelKind, ModelOption

ENTRY_POINT_GROUP = "corefbias.models"

__all__ = [
    "BUILT_IN",
    "ENTRY_POINT_GROUP",
    "MODEL_KINDS",
    "SERVER",
    "ModelKind",
    "ModelOption",
    "UnknownModelError",
    "distribution",
    "install_hint",
    "kind_of",
    "kinds",
    "load_model",
    "new_registry",
    "origin",
    "parse_spec",
    "register",
]


class UnknownModelError(ValueError):
    """A spec string that names no adapter."""


def _accept(declared, origin: str, name: str | None) -> list[ModelKind]:
    """The kind a program registers (a ``ModelKind``), or an entry point names: a ``ModelKind`` of the
    entry point's name, or a bare ``load`` wrapped."""
    if name is None:
        if not isinstance(declared, ModelKind):
            raise ValueError(f"register takes a corefbias ModelKind, got {declared!r}")
        return [declared]
    if isinstance(declared, ModelKind):
        if declared.name != name:
            raise ValueError(
                f"{origin} declares the model kind {declared.name!r}; an entry point's name is its kind, so name "
                f"the entry point {declared.name!r}"
            )
        return [declared]
    if not callable(declared):
        raise ValueError(f"{origin} names {declared!r}, which is neither a corefbias ModelKind nor a load callable")
    try:
        return [ModelKind(name, declared)]
    except ValueError as error:
        raise ValueError(f"{origin}: {error}") from None


def new_registry() -> Registry[ModelKind]:
    """A registry of the built-in kinds and the entry points', read on first use (``MODEL_KINDS`` is one).

    Examples
    --------
    >>> kinds = new_registry()
    >>> kinds["hf"].name, kinds.origin("hf")
    ('hf', 'built-in')
    """
    return Registry("model kind", ENTRY_POINT_GROUP, lambda: BUILT_IN, _accept)


MODEL_KINDS = new_registry()


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
    MODEL_KINDS.register(kind, origin)


def kinds() -> dict[str, ModelKind]:
    """Every model kind by name: the built-in ones, those of installed entry points, then registered ones.

    Returns
    -------
    dict of str to ModelKind
        A new dict each call; changing it changes no registry.

    Raises
    ------
    ValueError
        When an entry point of the group ``corefbias.models`` cannot be loaded or declares a taken name; on
        every call while it is installed.

    Examples
    --------
    >>> list(kinds())[:3]
    ['baseline', 'fastcoref', 'lingmess']
    >>> kinds()["hf"].example
    'hf:HuggingFaceTB/SmolLM2-135M-Instruct'
    """
    return dict(MODEL_KINDS)


def origin(name: str) -> str:
    """Where the kind ``name`` comes from: ``built-in``, ``entry point <name> of <distribution>``, or what
    ``register`` was told (``registered`` by default).

    Examples
    --------
    >>> origin("fastcoref")
    'built-in'
    """
    if name not in MODEL_KINDS:
        raise ValueError(f"no model kind {name!r}; the kinds are {', '.join(MODEL_KINDS)}")
    return MODEL_KINDS.origin(name)


def distribution(name: str) -> str | None:
    """The distribution that provides the kind ``name``, whose extra its ``extra`` is (None where nobody knows:
    a registered kind).

    Examples
    --------
    >>> distribution("hf")
    'corefbias'
    """
    return MODEL_KINDS.distribution(name)


def install_hint(name: str) -> str:
    """How to install what a kind's loader imports, as the end of an error message ("" where nothing is known).

    Examples
    --------
    >>> install_hint("hf")
    "; install it with: pip install 'corefbias[hf]'"
    >>> install_hint("chat")
    ''
    """
    extra = MODEL_KINDS[name].extra
    if extra is None:
        return ""
    package = distribution(name)
    if package is None:
        return f"; install the extra {extra!r} of the package that provides {name!r}"
    return f"; install it with: pip install '{package}[{extra}]'"


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
    kind, argument = kind_of(spec)
    return kind.name, argument


def kind_of(spec: str) -> tuple[ModelKind, str]:
    """The ``(ModelKind, argument)`` of a spec; a URL is of the kind ``SERVER``.

    Examples
    --------
    >>> kind, argument = kind_of("chat:Qwen/Qwen2.5-7B-Instruct")
    >>> kind.prefix, argument, [option.flag for option in kind.options][:2]
    ('chat:', 'Qwen/Qwen2.5-7B-Instruct', ['--base-url', '--answer'])
    >>> kind_of("https://example.org/coref")[0] is SERVER
    True
    """
    spec = spec.strip()
    if spec.startswith(("http://", "https://")):
        return SERVER, spec
    known = kinds()
    name, sep, argument = spec.partition(":")
    if not sep or name not in known or not argument:
        examples = ", ".join(model_kind.example for model_kind in known.values())
        raise UnknownModelError(
            f"unknown model spec {spec!r}; expected <kind>:<name> with kind in "
            f"{sorted(known)} or an http(s):// URL of a corefbias server, e.g. {examples}"
        )
    return known[name], argument


def load_model(spec: str, **options):
    """The model a spec names.

    Parameters
    ----------
    spec : str
        ``<kind>:<argument>`` or the URL of a server speaking corefbias's HTTP protocol.
    **options
        Given to the kind's loader, e.g. ``base_url`` for ``chat``; one the kind does not take is refused.

    Raises
    ------
    UnknownModelError
        When the spec names no known kind.
    ValueError
        When the kind takes no such option.
    ModelError
        When the loader needs a library that is not installed; the message names the extra that installs it.

    Examples
    --------
    >>> load_model("baseline:dist-2").name
    'baseline:dist-2'
    >>> load_model("chat:Qwen/Qwen2.5-7B-Instruct", colour="red")
    Traceback (most recent call last):
    ...
    ValueError: chat models take no option colour
    """
    kind, argument = kind_of(spec)
    try:
        return kind.call(argument, options)
    except ImportError as error:
        hint = "" if kind is SERVER else install_hint(kind.name)
        raise ModelError(f"model {spec!r} needs {error.name or error}{hint}") from error
