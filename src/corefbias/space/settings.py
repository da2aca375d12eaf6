"""The Space's folders and limits, read from the environment once at start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..models.chat import DEFAULT_BASE_URL as DEFAULT_CHAT_BASE_URL
from ..models.url_guard import AddressPolicy, parse_sockets
from .model_list import MODELS_ENV, ModelList, load_model_list

DATA_ENV = "COREFBIAS_SPACE_DATA"


def _int(name: str, default: int) -> int:
    text = os.environ.get(name)
    if text is None or text.strip() == "":
        return default
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"environment variable {name}={text!r} must be an integer") from None


def _flag(name: str) -> bool:
    text = (os.environ.get(name) or "").strip().lower()
    if text in ("", "0", "false", "no"):
        return False
    if text in ("1", "true", "yes"):
        return True
    raise ValueError(f"environment variable {name}={text!r} must be 1 or 0")


@dataclass(frozen=True)
class SpaceSettings:
    data_root: Path  # runs, the leaderboard and (by default) the exported test sets live here
    datasets_dir: Path | None = None  # exported sets; None: <data_root>/datasets
    mirror: Path | None = None  # upstream mirror; None: $COREFBIAS_MIRROR, else download
    cards_dir: Path | None = None  # folder of metrics/<name>/README.md cards for the Learn tab
    time_limit_s: float = 900.0  # per run, checked after every batch the model answers
    max_units: int = 10_000  # the largest "limit" a visitor may ask for (no set has more units)
    default_limit: int = 40  # units per design cell the Run tab starts with: a run of every benchmark in seconds
    max_spec_chars: int = 300
    max_bootstrap: int = 5_000
    http_timeout_s: float = 60.0  # per request to a visitor's endpoint
    http_retries: int = 1
    concurrency: int = 1  # runs at the same time (each holds a model in memory)
    max_queue: int = 16  # waiting runs beyond this are turned away with "queue full" (quick reads never are)
    # Sessions whose state the server keeps: a visitor's is dropped when they leave, and beyond this many the least
    # recently used go too (API callers that never open Gradio's heartbeat are never seen leaving). Each holds the
    # last leaderboard it was shown: about 0.3 MiB with 100 runs stored.
    max_sessions: int = 200
    max_upload_bytes: int = 64 * 2**20  # the largest predictions file the Score a file tab accepts (at upload)
    # The most the upload folder may hold (uploads being scored, Gradio's copies of downloads): beyond it uploads are
    # refused with a message, not left to fill the disk. None for upload_dir: Gradio's ($GRADIO_TEMP_DIR).
    max_upload_folder_bytes: int = 2**30
    upload_dir: Path | None = None
    host: str = "127.0.0.1"
    port: int = 7860
    # Endpoint URLs from visitors reach public addresses only, unless the owner allows private ones
    # (local use: the model server runs on this machine) or names single <ip>:<port> sockets.
    allow_private_endpoints: bool = False
    allowed_endpoints: frozenset = frozenset()
    models: ModelList = ModelList()  # the Hub models visitors may run, and the chat models the owner pays for
    # On a Space, visitors sign in with Hugging Face (Gradio's OAuth) so that chat: runs on their own token.
    visitor_sign_in: bool = False
    chat_base_url: str = DEFAULT_CHAT_BASE_URL
    # Where the listed Hub models (cluster models and hf: language models) run: "cpu", or "cuda" on GPU hardware.
    # On ZeroGPU a GPU is attached only while a run holds it (the `spaces` package's decorator, around the Run
    # handler, which loads the model), for at most the run's time limit.
    device: str = "cpu"
    zero_gpu: bool = False

    @property
    def endpoint_policy(self) -> AddressPolicy:
        return AddressPolicy(self.allow_private_endpoints, self.allowed_endpoints)

    @property
    def exports(self) -> Path:
        return self.datasets_dir if self.datasets_dir is not None else self.data_root / "datasets"

    @classmethod
    def from_env(cls, cards_dir: Path | None = None, models_file: Path | None = None) -> SpaceSettings:
        """``COREFBIAS_SPACE_DATA`` (default ``./space_data``), ``COREFBIAS_SPACE_TIME_LIMIT`` (seconds),
        ``COREFBIAS_SPACE_CONCURRENCY``, ``COREFBIAS_SPACE_MAX_QUEUE``, ``COREFBIAS_SPACE_MAX_SESSIONS``,
        ``COREFBIAS_SPACE_UPLOAD_BUDGET`` (bytes the upload folder may hold),
        ``GRADIO_SERVER_NAME``, ``GRADIO_SERVER_PORT``, ``COREFBIAS_SPACE_ALLOW_PRIVATE_ENDPOINTS`` (1: visitors'
        endpoint URLs may reach private addresses), ``COREFBIAS_SPACE_ALLOWED_ENDPOINTS`` (comma-separated <ip>:<port>),
        ``COREFBIAS_SPACE_MODELS`` (the model list file; default ``models_file``), ``SPACE_ID`` (set by the
        Hub: visitors sign in), ``COREFBIAS_SPACE_CHAT_BASE_URL`` (an OpenAI-compatible server for chat:),
        ``COREFBIAS_SPACE_DEVICE`` (cpu or cuda), ``SPACES_ZERO_GPU`` (set by the Hub on ZeroGPU hardware: cuda, and
        a default time limit of 120 s, what one ZeroGPU call may hold a GPU for)."""
        mirror = os.environ.get("COREFBIAS_MIRROR")
        zero_gpu = "SPACES_ZERO_GPU" in os.environ
        models_file = os.environ.get(MODELS_ENV) or models_file
        return cls(
            data_root=Path(os.environ.get(DATA_ENV) or "space_data").resolve(),
            mirror=Path(mirror) if mirror else None,
            cards_dir=cards_dir,
            time_limit_s=float(_int("COREFBIAS_SPACE_TIME_LIMIT", 120 if zero_gpu else 900)),
            concurrency=_int("COREFBIAS_SPACE_CONCURRENCY", 1),
            max_queue=_int("COREFBIAS_SPACE_MAX_QUEUE", 16),
            max_sessions=_int("COREFBIAS_SPACE_MAX_SESSIONS", 200),
            max_upload_folder_bytes=_int("COREFBIAS_SPACE_UPLOAD_BUDGET", 2**30),
            host=os.environ.get("GRADIO_SERVER_NAME") or "127.0.0.1",
            port=_int("GRADIO_SERVER_PORT", 7860),
            allow_private_endpoints=_flag("COREFBIAS_SPACE_ALLOW_PRIVATE_ENDPOINTS"),
            allowed_endpoints=parse_sockets(os.environ.get("COREFBIAS_SPACE_ALLOWED_ENDPOINTS") or ""),
            models=load_model_list(models_file) if models_file else ModelList(),
            visitor_sign_in=bool(os.environ.get("SPACE_ID")),
            chat_base_url=os.environ.get("COREFBIAS_SPACE_CHAT_BASE_URL") or DEFAULT_CHAT_BASE_URL,
            device=os.environ.get("COREFBIAS_SPACE_DEVICE") or ("cuda" if zero_gpu else "cpu"),
            zero_gpu=zero_gpu,
        )
