"""What the Space gives a model's loader: the inputs a kind's options name (``ModelOption.space``).

A kind declares which of its loader's options the Space fills, and from which input; the Space fills those
and no other, so an option nobody declared stays at the loader's default. ``INPUTS`` says what each input
is; a kind asking for another is refused when its model loads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..models.declaration import ModelKind
from ..models.url_guard import guarded_opener
from .settings import SpaceSettings


def hf_token(spec: str, settings: SpaceSettings, visitor_token: str | None) -> str | None:
    """The token a run of ``spec`` spends (the ``hf_token`` input): the signed-in visitor's; else, for a model
    on the owner's list, None (the loader then reads the owner's HF_TOKEN); anything else is refused."""
    if visitor_token:
        return visitor_token
    model_id = spec.partition(":")[2]
    if model_id in settings.models.owner_paid_chat:
        return None
    offered = ", ".join(sorted(settings.models.owner_paid_chat)) or "none"
    how = (
        "sign in with the 'Sign in with Hugging Face' button"
        if settings.visitor_sign_in
        else ("this Space has no sign-in, so run it with `corefbias run` on your own machine")
    )
    raise ValueError(
        f"{spec} runs on your own Hugging Face account: {how}, then run it again "
        f"(the chat models this Space pays for: {offered})"
    )


@dataclass(frozen=True)
class SpaceInput:
    """One input: what it is, and its value for ``(spec, settings, visitor_token)``."""

    description: str
    value: Callable[[str, SpaceSettings, str | None], object]


INPUTS = {
    "device": SpaceInput(
        "the torch device the Space's hardware offers: cpu, or cuda on GPU hardware (settings.device)",
        lambda spec, settings, visitor_token: settings.device,
    ),
    "chat_base_url": SpaceInput(
        "the OpenAI-compatible server the owner set for chat models (settings.chat_base_url)",
        lambda spec, settings, visitor_token: settings.chat_base_url,
    ),
    "hf_token": SpaceInput(
        "the Hugging Face token a run spends: the signed-in visitor's, else the owner's for a model on the "
        "owner's [chat] owner_paid list; anything else is refused (hf_token)",
        hf_token,
    ),
    "http_timeout": SpaceInput(
        "seconds a request to a visitor's endpoint may take (settings.http_timeout_s)",
        lambda spec, settings, visitor_token: settings.http_timeout_s,
    ),
    "http_retries": SpaceInput(
        "times a failed request to a visitor's endpoint is sent again (settings.http_retries)",
        lambda spec, settings, visitor_token: settings.http_retries,
    ),
    "endpoint_opener": SpaceInput(
        "a urllib opener whose every connection, redirects included, goes through the address guard "
        "(settings.endpoint_policy)",
        lambda spec, settings, visitor_token: guarded_opener(settings.endpoint_policy),
    ),
}


def loader_options(kind: ModelKind, spec: str, settings: SpaceSettings, visitor_token: str | None = None) -> dict:
    """The options the Space gives ``kind``'s loader for ``spec``: each option the kind declares with a Space
    input, set from that input.

    Examples
    --------
    >>> from pathlib import Path
    >>> from corefbias.models.registry import kind_of
    >>> on_gpu = SpaceSettings(Path("space_data"), device="cuda")
    >>> loader_options(kind_of("hf:HuggingFaceTB/SmolLM2-135M-Instruct")[0], "hf:x", on_gpu)
    {'device': 'cuda'}
    >>> loader_options(kind_of("baseline:random")[0], "baseline:random", on_gpu)
    {}
    """
    options = {}
    for option in kind.options:
        if option.space is None:
            continue
        if option.space not in INPUTS:
            raise ValueError(
                f"the model kind {kind.name!r} asks the Space for {option.space!r}, which it does not give; it "
                f"gives {', '.join(INPUTS)}"
            )
        options[option.name] = INPUTS[option.space].value(spec, settings, visitor_token)
    return options
