"""Model spec strings → models. ``<kind>:<argument>`` or an ``http(s)://`` URL.

Each kind lives in its own adapter module exposing ``load(argument, **options)``; the module is
imported only when its kind is asked for, so a library that is not installed costs nothing until
it is used, and then fails with the extra to install.
"""

from __future__ import annotations

import inspect
from importlib import import_module

from .base import ModelError

# kind → (adapter module under corefbias.models, pip extra that installs its library, example spec)
KINDS = {
    "baseline": ("baselines", None, "baseline:stereotype"),
    "fastcoref": ("fastcoref_adapter", "fastcoref", "fastcoref:biu-nlp/f-coref"),
    "lingmess": ("fastcoref_adapter", "fastcoref", "lingmess:biu-nlp/lingmess-coref"),
    "maverick": ("maverick_adapter", "maverick", "maverick:sapienzanlp/maverick-mes-ontonotes"),
    "spacy": ("spacy_adapter", "spacy-coref", "spacy:en_coreference_web_trf"),
    "chat": ("chat", None, "chat:Qwen/Qwen2.5-7B-Instruct"),
    "hf": ("hf_causal_lm", "hf", "hf:HuggingFaceTB/SmolLM2-135M-Instruct"),
    "completions": ("completions", None, "completions:meta-llama/Llama-3.1-8B"),
}

# Kinds whose argument names something to load: a Hub repository, a local path, an installed package.
# A service that takes specs from strangers (the Space) accepts these only from its owner's own list.
LOADS_BY_NAME = frozenset({"fastcoref", "lingmess", "maverick", "spacy", "hf"})


class UnknownModelError(ValueError):
    """A spec string that names no adapter."""


def parse_spec(spec: str) -> tuple[str, str]:
    """``(kind, argument)`` of a spec; a URL is kind ``http``."""
    spec = spec.strip()
    if spec.startswith(("http://", "https://")):
        return "http", spec
    kind, sep, argument = spec.partition(":")
    if not sep or kind not in KINDS or not argument:
        examples = ", ".join(example for _, _, example in KINDS.values())
        raise UnknownModelError(
            f"unknown model spec {spec!r}; expected <kind>:<name> with kind in "
            f"{sorted(KINDS)} or an http(s):// URL of a corefbias server, e.g. {examples}"
        )
    return kind, argument


def load_model(spec: str, **options):
    """The model a spec names (``options`` go to the adapter, e.g. ``base_url`` for ``chat``)."""
    kind, argument = parse_spec(spec)
    if kind == "http":
        from .http_protocol import HttpClusterModel

        return HttpClusterModel(argument, **options)
    module_name, extra, _ = KINDS[kind]
    module = import_module(f".{module_name}", __package__)
    parameters = inspect.signature(module.load).parameters
    if not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        unknown = sorted(set(options) - set(parameters))
        if unknown:
            raise ValueError(f"{kind} models take no option {', '.join(unknown)}")
    try:
        return module.load(argument, kind=kind, **options)
    except ImportError as error:
        hint = f"; install it with: pip install 'corefbias[{extra}]'" if extra else ""
        raise ModelError(f"model {spec!r} needs {error.name or error}{hint}") from error
