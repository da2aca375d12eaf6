"""The Space's upload folder: files refused above a size cap, uploads refused while the folder is over its disk
budget, and every uploaded file deleted once it has been scored.

Gradio writes each upload into its upload folder (``$GRADIO_TEMP_DIR``, by default ``<temp>/gradio``) before any
handler sees it, and keeps it there; with the folder's disk full, every visitor's upload failed with a bare
"500". So the cap and the budget are checked before Gradio reads an upload (``UploadBudget``: 413 or 507, with
a message that says why; Gradio's own ``max_file_size`` cuts off an upload sent without a length, and tells the
page and API clients the cap), the Score a file job deletes its upload when it is done (``discard``), and
Gradio's ``delete_cache`` sweep removes what visitors uploaded but never scored, and the copies of downloads it
keeps.
"""

from __future__ import annotations

import os
from pathlib import Path

from starlette.responses import PlainTextResponse

from .settings import SpaceSettings

# Gradio's sweep of its files (uploads never scored, copies of downloads): every 10 minutes, those over an hour old.
DELETE_CACHE = (600, 3600)


def upload_folder(settings: SpaceSettings) -> Path:
    """Where Gradio writes uploads: ``settings.upload_dir``, else Gradio's own default (``$GRADIO_TEMP_DIR``)."""
    if settings.upload_dir is not None:
        return settings.upload_dir
    from gradio.utils import get_upload_folder

    return Path(get_upload_folder())


def folder_bytes(folder: Path) -> int:
    """The bytes of every file under ``folder`` (0 for a folder that is not there yet)."""
    total = 0
    for path, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.stat(os.path.join(path, name)).st_size
            except OSError:  # deleted meanwhile
                pass
    return total


def readable_size(size: int) -> str:
    """A size in the largest unit that keeps it at least 1: ``1.5 MiB``, ``200 KiB``.

    Examples
    --------
    >>> readable_size(3 * 2**19), readable_size(200 * 2**10), readable_size(2**31)
    ('1.5 MiB', '200 KiB', '2.0 GiB')
    """
    if size >= 2**30:
        return f"{size / 2**30:.1f} GiB"
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size / 2**10:.0f} KiB"


# Room for the multipart framing around an uploaded file (boundaries, headers, the file's name).
_MULTIPART_SLACK = 4 * 2**10


class UploadBudget:
    """ASGI middleware that refuses an upload (``POST …/upload``) before Gradio writes a byte of it: one whose
    ``Content-Length`` is over the cap per file (413), and one that would take the upload folder over its budget
    (507); the message says which (Gradio's page shows it as "HTTP 413: …"). Gradio's own ``max_file_size`` still
    cuts off an upload sent without a length.
    """

    def __init__(self, app, folder: Path, budget: int, max_file: int):
        self.app, self.folder, self.budget, self.max_file = app, folder, budget, max_file

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"].endswith("/upload"):
            refusal = self._refusal(dict(scope["headers"]))
            if refusal is not None:
                await PlainTextResponse(refusal[1], status_code=refusal[0])(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _refusal(self, headers: dict) -> tuple[int, str] | None:
        try:
            incoming = int(headers.get(b"content-length", b"0"))
        except ValueError:
            incoming = 0
        if incoming > self.max_file + _MULTIPART_SLACK:
            return 413, (
                f"The file is {readable_size(incoming)}; this Space takes files up to {readable_size(self.max_file)} "
                "(score larger ones with `corefbias score` on your own machine)."
            )
        used = folder_bytes(self.folder)
        if used + incoming > self.budget:
            return 507, (
                f"The Space's upload folder is full ({readable_size(used)} of its {readable_size(self.budget)}): "
                "files are deleted once scored, so try again in a few minutes, or score the file with "
                "`corefbias score` on your own machine."
            )
        return None


def launch_options(settings: SpaceSettings) -> dict:
    """What ``Blocks.launch`` takes to enforce the cap and the budget."""
    from starlette.middleware import Middleware

    return {
        "max_file_size": settings.max_upload_bytes,
        "app_kwargs": {
            "middleware": [
                Middleware(
                    UploadBudget,
                    folder=upload_folder(settings),
                    budget=settings.max_upload_folder_bytes,
                    max_file=settings.max_upload_bytes,
                )
            ]
        },
    }


def discard(path: str | os.PathLike, settings: SpaceSettings) -> None:
    """Delete an uploaded file once it has been scored, and the folder Gradio made for it when that is now empty;
    a path outside the upload folder is left alone."""
    folder = upload_folder(settings).resolve()
    path = Path(path).resolve()
    if not path.is_relative_to(folder) or path == folder:
        return
    path.unlink(missing_ok=True)
    if path.parent != folder:
        try:
            path.parent.rmdir()
        except OSError:  # another file in it, or gone already
            pass
