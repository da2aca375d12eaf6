"""What a visitor types, checked before anything runs: a ``ValueError`` says what to fix."""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

from ..benchmarks import BENCHMARKS
from ..models.registry import kinds, parse_spec
from .model_list import ModelList

_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|API_KEY|ACCESS_KEY", re.IGNORECASE)


def _on_visitors_account(kind) -> bool:
    """Whether a run of ``kind`` spends the visitor's Hugging Face token (its option takes ``hf_token``)."""
    return any(option.space == "hf_token" for option in kind.options)


def model_choices(models: ModelList) -> list[tuple[str, str]]:
    """The Model menu of the Space: the presets, the owner's listed models (with size and run time), then the
    models that run on a Hugging Face account: those the owner pays for, and presets that need a sign-in."""
    free = [(spec, spec) for kind in kinds().values() if not _on_visitors_account(kind) for spec in kind.space_presets]
    listed = [(model.display, model.spec) for model in models.models]
    paid, signed_in = [], []
    for kind in kinds().values():
        if _on_visitors_account(kind):
            owners = [f"{kind.prefix}{model_id}" for model_id in sorted(models.owner_paid_chat)]
            paid += [(spec, spec) for spec in owners]
            signed_in += [
                (f"{spec} (sign in: runs on your Hugging Face account)", spec)
                for spec in kind.space_presets
                if spec not in owners
            ]
    return free + listed + paid + signed_in


def model_help(models: ModelList) -> str:
    """The Model menu's help line; where the list has models that are no coreference models predicting clusters
    (``ModelKind.space_note``), it says so."""
    notes = list(dict.fromkeys(note for model in models.models if (note := kinds()[model.kind].space_note)))
    listed = "a model from this Space's list (size · expected run time" + (
        f"; coreference models predict clusters, unless marked: {'; '.join(notes)})" if notes else ")"
    )
    return (
        f"A baseline, {listed}, chat:<model id>, or the URL of a public server speaking corefbias's HTTP protocol "
        "(corefbias serve)."
    )


def check_model_spec(text: str | None, max_chars: int, models: ModelList | None = None) -> str:
    """The spec, stripped; an endpoint URL must be a bare ``http(s)://host[:port][/path]``; with ``models``
    (the Space's list), a spec that loads files by name must be on it."""
    spec = (text or "").strip()
    if not spec:
        raise ValueError(
            "enter a model: pick a preset such as baseline:stereotype, or type <kind>:<name> or an http(s):// URL"
        )
    if len(spec) > max_chars:
        raise ValueError(f"the model spec has {len(spec)} characters; the limit is {max_chars}")
    if any(character.isspace() or not character.isprintable() for character in spec):
        raise ValueError(
            "the model spec contains spaces or control characters; a spec is one word such as baseline:stereotype"
        )
    if spec.startswith(("http://", "https://")):
        check_endpoint_url(spec)
    else:
        parse_spec(spec)
        if models is not None:
            models.check(spec)
    return spec


def check_endpoint_url(url: str) -> None:
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 — reading it validates the port
    except ValueError as error:
        raise ValueError(f"malformed endpoint URL {url!r}: {error}") from None
    if not parts.hostname:
        raise ValueError(f"malformed endpoint URL {url!r}: it names no host; expected e.g. http://127.0.0.1:8808")
    if parts.username is not None or parts.password is not None:
        raise ValueError("put no credentials in the endpoint URL: the model spec is shown on the public leaderboard")
    if parts.query or parts.fragment:
        raise ValueError(f"malformed endpoint URL {url!r}: give the server's base URL without ?query or #fragment")


def benchmark_choices() -> list[tuple[str, str]]:
    """The Run tab's benchmark choices: ``(label, name)``, every registered benchmark with its language.

    Examples
    --------
    >>> ("gap (en)", "gap") in benchmark_choices()
    True
    """
    return [(f"{name} ({benchmark.language})", name) for name, benchmark in BENCHMARKS.items()]


def default_benchmarks() -> list[str]:
    """The benchmarks the Run tab offers ticked: those declared ``space_default``."""
    return [name for name, benchmark in BENCHMARKS.items() if benchmark.space_default]


def check_benchmarks(names) -> list[str]:
    chosen = [name for name in (names or []) if name]
    if not chosen:
        raise ValueError(f"tick at least one benchmark ({', '.join(BENCHMARKS)})")
    unknown = [name for name in chosen if name not in BENCHMARKS]
    if unknown:
        raise ValueError(f"unknown benchmark {unknown[0]!r}; choose from {', '.join(BENCHMARKS)}")
    return list(dict.fromkeys(chosen))


def _whole_number(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    return int(value)


def check_limit(value, max_units: int) -> int | None:
    """0 or None runs whole sets (a number field cannot be left empty); else 1 … ``max_units`` units per design cell."""
    if value is None or value == "" or value == 0:
        return None
    limit = _whole_number(value, "the instance limit")
    if not 1 <= limit <= max_units:
        raise ValueError(
            f"the instance limit must be between 1 and {max_units} units per design cell, or 0 for whole sets; got "
            f"{limit}"
        )
    return limit


def check_bootstrap(n_bootstrap, seed, max_bootstrap: int) -> tuple[int, int]:
    resamples = _whole_number(n_bootstrap, "the number of bootstrap resamples")
    if not 0 <= resamples <= max_bootstrap:
        raise ValueError(
            f"bootstrap resamples must be between 0 (no significance) and {max_bootstrap}, got {resamples}"
        )
    return resamples, _whole_number(seed, "the seed")


def redact(message: str, secrets=()) -> str:
    """``message`` with ``secrets`` (a visitor's token) and the value of every secret-looking environment
    variable (HF_TOKEN, ...) masked."""
    values = [value for name, value in os.environ.items() if _SECRET_NAME.search(name)]
    for value in [*secrets, *values]:
        if value and len(value) >= 8:
            message = message.replace(value, "***")
    return message
