"""What a model kind declares: how to load its models (``ModelKind``) and the options its loader takes
(``ModelOption``), so that the command line and the Space read them instead of knowing kinds by name.

A kind's options are the loader's keywords that someone outside may set: a user on the command line (a flag
of ``corefbias run``, or ``--model-arg KEY=VALUE``) or the Space from one of its inputs (``space``). The
command line offers a kind's flags and keys and refuses those of other kinds; ``load_model`` refuses an
option a kind neither declares nor its loader names.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

# A kind's name is the part of a spec before the colon; a URL's scheme is no kind.
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")
_URL_SCHEMES = ("http", "https")
_FLAG = re.compile(r"--[a-z][a-z0-9]*(-[a-z0-9]+)*")
_TYPES = {str: "text", int: "a whole number", float: "a number", bool: "true or false"}


@dataclass(frozen=True)
class ModelOption:
    """One keyword a model kind's loader takes, and who may set it.

    Parameters
    ----------
    name : str
        The loader's keyword, e.g. ``"base_url"``.
    help : str
        What it does, for ``corefbias run --help`` (after "for <kinds>:") and ``docs/adding_a_model.md``.
    type : {str, int, float, bool}
        Its values' type; text from the command line is read as one (``parse``).
    choices : tuple, default ()
        The values it may take; () for any value of its type.
    minimum : int or float, optional
        The smallest value a number may take (a count of at least 1, a timeout above 0 is ``minimum=0`` with
        ``exclusive=True``).
    exclusive : bool, default False
        Whether ``minimum`` itself is refused.
    flag : str or None
        The flag of ``corefbias run`` that gives it (``"--base-url"``); None: ``--model-arg NAME=VALUE`` gives
        it. Kinds declaring the same flag share it; a flag ``run`` has for itself (``--batch-size``) reaches
        every kind that declares it, with its default.
    space : str or None
        The Space's input it is set from (``corefbias.space.model_inputs.INPUTS``: ``"device"``,
        ``"hf_token"``, ...); None: the Space leaves it at the loader's default.
    command_line : bool, default True
        False for an option only a program sets (a token, a connection opener): then it has no flag and is no
        ``--model-arg`` key.

    Examples
    --------
    >>> retries = ModelOption("retries", "requests sent again after a failure", int)
    >>> retries.parse("3")
    3
    >>> retries.parse("three")
    Traceback (most recent call last):
    ...
    ValueError: expected a whole number, got 'three'
    >>> ModelOption("answer", "where the answer is read", choices=("auto", "text")).parse("logits")
    Traceback (most recent call last):
    ...
    ValueError: expected one of auto, text, got 'logits'
    """

    name: str
    help: str
    type: type = str
    choices: tuple = ()
    flag: str | None = None
    minimum: float | None = None
    exclusive: bool = False
    space: str | None = None
    command_line: bool = True

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"a model option's name must be a Python name, got {self.name!r}")
        if self.type not in _TYPES:
            raise ValueError(f"model option {self.name!r}: type must be str, int, float or bool, got {self.type!r}")
        if self.flag is not None and (not _FLAG.fullmatch(self.flag) or self.type is bool or not self.command_line):
            raise ValueError(
                f"model option {self.name!r}: its flag {self.flag!r} must be --lower-case-words, for an option of "
                "the command line that is not true/false"
            )
        if self.minimum is not None and self.type not in (int, float):
            raise ValueError(f"model option {self.name!r}: only a number has a minimum")
        if not all(isinstance(choice, self.type) for choice in self.choices):
            raise ValueError(f"model option {self.name!r}: its choices {self.choices!r} must be of its type")

    def parse(self, text: str):
        """The value ``text`` (from the command line) stands for; a ValueError says what was expected."""
        value: object = text
        try:
            if self.type is bool:
                value = {"true": True, "false": False}[text.strip().lower()]
            elif self.type is not str:
                value = self.type(text)
        except (KeyError, ValueError):
            raise ValueError(f"expected {_TYPES[self.type]}, got {text!r}") from None
        if self.choices and value not in self.choices:
            raise ValueError(f"expected one of {', '.join(map(str, self.choices))}, got {text!r}")
        if self.minimum is not None and (value <= self.minimum if self.exclusive else value < self.minimum):
            bound = f"above {self.minimum}" if self.exclusive else f"of at least {self.minimum}"
            raise ValueError(f"expected {_TYPES[self.type]} {bound}, got {text!r}")
        return value


@dataclass(frozen=True)
class ModelKind:
    """One kind of model spec, ``<name>:<argument>``, how to load its models and what its loader takes.

    Parameters
    ----------
    name : str
        The spec's prefix, e.g. ``"fastcoref"``: a letter, then letters, digits, ``_``, ``.`` or ``-``.
    load : callable
        ``load(argument, *, kind, **options)`` returns the model (a ``base.ClusterModel`` or
        ``base.ChoiceModel``, with its ``identity``) that ``argument`` names; ``kind`` is ``name``, so one
        loader can serve several kinds. ``load_model`` refuses an option that is neither in ``options`` nor
        a parameter of ``load``.
    extra : str or None
        The pip extra that installs what ``load`` imports, of corefbias for a built-in kind and of the
        providing distribution for an entry point's kind; named in the error when that import fails.
    example : str or None
        An example spec, shown in help and error messages; None gives ``<name>:<argument>``.
    loads_by_name : bool
        Whether the argument names something to load: a Hub repository, a local path, an installed package.
        A service taking specs from strangers (the Space) runs such a kind only from its owner's list. True
        unless the kind says otherwise, as that is the safe assumption about a loader nobody has read.
    options : tuple of ModelOption, default ()
        The options its loader takes from the command line and the Space.
    space_presets : tuple of str, default ()
        Specs the Space's Model menu offers every visitor (a kind that does not load by name).
    space_note : str or None
        What the Space's Model menu says of a listed model of this kind besides its label, size and run time,
        where it is no coreference model predicting clusters (``"language model, chooses by log-likelihood"``).
    requires : tuple of str, default ()
        Requirements (``"transformers>=4.56"``) the Space checks before it lists a model of this kind, where a
        run without them would fail for every visitor.
    not_served : callable or None
        ``not_served(spec)``: why ``corefbias serve`` cannot serve models of this kind and what to do instead,
        said before anything loads; None: serve loads the model and serves it if it predicts clusters.

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
    options: tuple[ModelOption, ...] = ()
    space_presets: tuple[str, ...] = ()
    space_note: str | None = None
    requires: tuple[str, ...] = ()
    not_served: Callable[[str], str] | None = None

    def __post_init__(self):
        self._check_name()
        if not callable(self.load):
            raise ValueError(f"model kind {self.name!r}: load must be callable, got {self.load!r}")
        if self.example is None:
            # The one write to the frozen instance: a default computed from another field.
            object.__setattr__(self, "example", f"{self.name}:<argument>")
        elif not self._names(self.example):
            raise ValueError(f"model kind {self.name!r}: its example {self.example!r} must be {self.name}:<argument>")
        object.__setattr__(self, "options", tuple(self.options))
        if not all(isinstance(option, ModelOption) for option in self.options):
            raise ValueError(f"model kind {self.name!r}: options must be ModelOptions, got {self.options!r}")
        for what in ("name", "flag"):
            given = [getattr(option, what) for option in self.options if getattr(option, what) is not None]
            if len(set(given)) < len(given):
                raise ValueError(f"model kind {self.name!r}: two options of one {what} in {given}")
        wrong = [spec for spec in self.space_presets if not self._names(spec)]
        if wrong:
            raise ValueError(f"model kind {self.name!r}: its Space presets {wrong} must be {self.name}:<argument>")

    def _check_name(self) -> None:
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise ValueError(
                f"a model kind's name must be a letter followed by letters, digits, _, . or -, got {self.name!r}"
            )
        if self.name in _URL_SCHEMES:
            raise ValueError(
                f"a model kind may not be called {self.name!r}: a spec starting with {self.name}: is a server's URL"
            )

    def _names(self, spec: str) -> bool:
        return isinstance(spec, str) and spec.startswith(self.prefix) and len(spec) > len(self.prefix)

    @property
    def prefix(self) -> str:
        """How its specs start, in messages: ``"chat:"``."""
        return f"{self.name}:"

    def option(self, name: str) -> ModelOption | None:
        """The option the loader's keyword ``name`` is, or None."""
        return next((option for option in self.options if option.name == name), None)

    def option_given_by(self, flag: str) -> ModelOption | None:
        """The option ``flag`` gives, or None where this kind takes no such flag."""
        return next((option for option in self.options if option.flag == flag), None)

    @property
    def model_args(self) -> tuple[str, ...]:
        """The ``--model-arg`` keys it takes."""
        return tuple(option.name for option in self.options if option.command_line and option.flag is None)

    def call(self, argument: str, options: dict):
        """``load(argument, kind=name, **options)``, refusing first, by name, an option it does not take."""
        return checked_call(self.load, argument, self.name, options, [option.name for option in self.options])


@dataclass(frozen=True)
class ServerKind(ModelKind):
    """The kind of a spec that is a URL (``http(s)://``): a server speaking corefbias's protocol. It is no
    ``<kind>:`` prefix, so it is not in the registry of kinds; ``registry.kind_of`` gives it for a URL."""

    def _check_name(self) -> None:
        pass

    @property
    def prefix(self) -> str:
        return "http(s)://"

    def _names(self, spec: str) -> bool:
        return isinstance(spec, str) and spec.startswith(("http://", "https://"))


def checked_call(load: Callable, argument: str, kind: str, options: dict, declared: Collection[str] = ()):
    """``load(argument, kind=kind, **options)``, refusing before it runs an option that is neither
    ``declared`` nor a parameter of ``load`` (any option, where ``load`` takes ``**options`` and nothing is
    declared)."""
    parameters = inspect.signature(load).parameters
    open_ended = any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters.values())
    if declared or not open_ended:
        named = {name for name, parameter in parameters.items() if parameter.kind is not parameter.VAR_KEYWORD}
        unknown = sorted(set(options) - set(declared) - named)
        if unknown:
            raise ValueError(f"{kind} models take no option {', '.join(unknown)}")
    return load(argument, kind=kind, **options)
