"""The Space owner's model list: which Hub models a visitor may run, and which chat models the owner pays for.

Read from a TOML file (``spaces/corefbias/models.toml``, or ``$COREFBIAS_SPACE_MODELS``)::

    [[model]]
    label = "F-coref"
    kind = "fastcoref"            # fastcoref, lingmess, maverick or hf (hub_kinds())
    repo = "biu-nlp/f-coref"
    revision = "<40-character commit id>"
    size = "91M parameters"
    run_time = "..."              # shown in the Model menu

    [chat]
    owner_paid = ["Qwen/Qwen2.5-7B-Instruct"]   # chat models run on the owner's HF_TOKEN

A model that loads files by name (a Hub repository, a local path, a spaCy package) runs only as
one of the listed specs ``<kind>:<repo>@<revision>``: a visitor cannot make the Space download an
arbitrary repository, read a local path, or load an installed package.

``kind = "hf"`` lists a causal language model (``corefbias.models.hf_causal_lm``), which chooses among a
benchmark's candidates by log-likelihood instead of predicting clusters; its spec is
``hf:<repo>@<revision>``. The Space loads it from the repository's safetensors weights: a GGUF file in a
Hub repository is not offered (``gguf_file`` is refused), since ``hf:`` reads GGUF from local files only.
It needs ``corefbias[hf]`` (transformers >= 4.56, the kind's ``requires``) installed next to the Space, which
fastcoref's transformers < 4.46 excludes (spaces/corefbias/requirements.txt).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ..models.registry import distribution, kind_of, kinds

if sys.version_info >= (3, 11):
    import tomllib
else:  # the `space` extra installs tomli there
    import tomli as tomllib

MODELS_ENV = "COREFBIAS_SPACE_MODELS"
_REPO = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
_REVISION = re.compile(r"[0-9a-f]{40}")
_MODEL_KEYS = {"label", "kind", "repo", "revision", "size", "run_time"}


def hub_kinds() -> tuple[str, ...]:
    """The kinds a list entry may have: those that load files by name and take a Hub id (owner/name[@revision]),
    as each one's example spec shows; spacy: loads an installed package or a folder instead.

    Examples
    --------
    >>> hub_kinds()
    ('fastcoref', 'lingmess', 'maverick', 'hf')
    """
    return tuple(
        name for name, kind in kinds().items() if kind.loads_by_name and _REPO.fullmatch(kind_of(kind.example)[1])
    )


@dataclass(frozen=True)
class ListedModel:
    label: str
    kind: str
    repo: str
    revision: str
    size: str
    run_time: str

    @property
    def spec(self) -> str:
        return f"{self.kind}:{self.repo}@{self.revision}"

    @property
    def display(self) -> str:
        note = kinds()[self.kind].space_note
        note = f" · {note}" if note else ""
        return f"{self.label} ({self.repo}){note} · {self.size} · {self.run_time}"


@dataclass(frozen=True)
class ModelList:
    models: tuple[ListedModel, ...] = ()
    owner_paid_chat: frozenset = frozenset()
    source: str = "the Space's models.toml"  # where the owner edits the list, for messages

    @property
    def specs(self) -> frozenset:
        return frozenset(model.spec for model in self.models)

    def check(self, spec: str) -> None:
        """Refuse a spec that would load files by name unless it is on the list."""
        if kind_of(spec)[0].loads_by_name and spec not in self.specs:
            offered = ", ".join(model.label for model in self.models) or "none yet"
            raise ValueError(
                f"{spec} is not on this Space's model list (offered: {offered}); pick a model from the Model menu. "
                f"Only models its owner lists run here: the owner adds one as a [[model]] entry with the Hub id "
                f"and a pinned revision in {self.source}. Local paths and installed packages are never loaded "
                "for a visitor; to run any model, use `corefbias run` on your own machine"
            )


def _unmet(kind: str, where: str) -> str | None:
    """Why a listed model of ``kind`` cannot run here: a requirement the kind declares (``requires``), unmet."""
    from packaging.requirements import Requirement  # a dependency of gradio

    declared = kinds()[kind]
    for requirement in map(Requirement, declared.requires):
        try:
            installed = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            missing = f"{requirement.name} is not installed"
        else:
            if requirement.specifier.contains(installed, prereleases=True):
                continue
            missing = f"{requirement.name} {installed} is installed"
        wanted = " ".join([requirement.name, *(f"{spec.operator} {spec.version}" for spec in requirement.specifier)])
        package = distribution(kind) or "the package providing it"
        extra = f"[{declared.extra}]" if declared.extra else ""
        return (
            f"{where}: {kind}: models need {wanted} ({package}{extra}) and {missing}; install {package}{extra} "
            "next to corefbias[space] in the Space's requirements.txt"
        )
    return None


def _text(entry: dict, key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: '{key}' must be a non-empty string")
    return value.strip()


def load_model_list(path: str | Path) -> ModelList:
    """The list in ``path``; a ValueError names the entry and field to fix."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"cannot read the Space's model list {path}: {error}") from None
    models = []
    for index, entry in enumerate(data.get("model", [])):
        where = f"{path}: [[model]] #{index + 1}"
        if "gguf_file" in entry:
            raise ValueError(
                f"{where}: gguf_file is not supported: the Space runs hf: models from a Hub repository's "
                "safetensors weights; list a repository that has them (such as the one the GGUF was made from)"
            )
        unknown = sorted(set(entry) - _MODEL_KEYS)
        if unknown:
            raise ValueError(
                f"{where}: unknown field(s) {', '.join(unknown)}; the fields are {', '.join(sorted(_MODEL_KEYS))}"
            )
        model = ListedModel(**{key: _text(entry, key, where) for key in sorted(_MODEL_KEYS)})
        if model.kind not in hub_kinds():
            raise ValueError(
                f"{where}: kind {model.kind!r} is not one the Space runs; use one of {', '.join(hub_kinds())}"
            )
        if not _REPO.fullmatch(model.repo) or ".." in model.repo:
            raise ValueError(f"{where}: repo {model.repo!r} is not a Hub id such as biu-nlp/f-coref")
        if not _REVISION.fullmatch(model.revision):
            raise ValueError(f"{where}: revision {model.revision!r} must be the full 40-character commit id to pin")
        if unmet := _unmet(model.kind, where):
            raise ValueError(unmet)
        models.append(model)
    chat = data.get("chat", {}).get("owner_paid", [])
    if not isinstance(chat, list) or not all(isinstance(model_id, str) and model_id.strip() for model_id in chat):
        raise ValueError(f"{path}: [chat] owner_paid must be a list of model ids")
    return ModelList(tuple(models), frozenset(model_id.strip() for model_id in chat), f"the Space's {path.name}")
