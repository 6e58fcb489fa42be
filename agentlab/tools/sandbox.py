"""Keep file tools inside their folder: check every path, then open it following no link.

A model may send ``../../.ssh/id_rsa``; only the tool can stop that.
:func:`resolve_inside` is the rule: a short, plain relative path (no ``..``,
no absolute path, no backslash, no NUL), not a ``.env`` file (they hold the API
keys), that stays inside the root with links followed; else ``PATH_NOT_ALLOWED``.
:func:`open_inside` is ``open()`` refusing any symlink on the way, so a folder
swapped for a link *after* the check cannot lead out either (``_platforms.py``).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path, PurePosixPath
from typing import IO, Any

from ..i18n import tr
from ._platforms import open_by_path, open_folder, windows_trouble
from .result import ToolResult, error

MAX_PATH_CHARS = 1024
MAX_PATH_PARTS = 32  # a/a/a/... 2000 deep made the write tool spend seconds on folders
NOFOLLOW_OPENS = (
    os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY")
)
"""POSIX: a path is opened one folder at a time, following no link (Windows: by path)."""
MODES = {
    "r": os.O_RDONLY,
    "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
}


def resolve_inside(root: Path, relative_path: object) -> Path | ToolResult:
    """``root / relative_path`` resolved, or a ``PATH_NOT_ALLOWED`` result. (Whether
    the file exists, each tool says in its own words.)"""
    refusal = _refuse(relative_path)
    if refusal:
        return _not_allowed("sandbox.refused", relative_path, why=refusal)
    root = root.resolve()
    try:
        target = (root / str(relative_path)).resolve()
    except OSError:  # a link changed while it was being followed
        return _not_allowed("isolation.changed", relative_path)
    except RuntimeError:  # Python 3.11 and 3.12 say "Symlink loop from <absolute path>"
        return _not_allowed("sandbox.link_loop", relative_path)
    if not target.is_relative_to(root):
        return _not_allowed("sandbox.outside", relative_path)
    if holds_secrets(target.relative_to(root).parts):  # .env, or notes.md as a link to it
        return _not_allowed("sandbox.refused", relative_path, why=tr("sandbox.secret_file"))
    return target


def open_inside(root: Path, target: Path, mode: str = "r", **options: Any) -> IO[Any]:
    """``open(target, mode, **options)`` for a path :func:`resolve_inside` returned,
    following no symlink on the way from ``root``.

    A link met raises ``OSError(ELOOP)`` (:func:`link_refusal` words it).
    Only a regular file opens: a folder, a FIFO or a device raises
    ``IsADirectoryError``. ``"w"`` and ``"a"`` create missing folders.
    """
    flags = MODES[mode] | getattr(os, "O_NONBLOCK", 0)  # a FIFO must not keep us waiting
    if NOFOLLOW_OPENS:
        fd = open_nofollow(root.resolve(), target, flags, make_folders=mode != "r")
    else:
        fd = open_by_path(target, flags, make_folders=mode != "r")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise IsADirectoryError(errno.EISDIR, "not a regular file", target.name)
    return open(fd, mode, **options)


def open_nofollow(root: Path, target: Path, flags: int, make_folders: bool) -> int:
    """Open each folder on the way relative to the one before (``dir_fd``), then the
    last name, all with ``O_NOFOLLOW``. ``target == root`` gives the root itself."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)  # the root is trusted, links and all
    try:
        *folders, name = target.relative_to(root).parts or (None,)
        for folder in folders:
            inner = open_folder(folder, fd, make_folders)
            os.close(fd)
            fd = inner
        if name is not None:
            inner = os.open(name, flags | os.O_NOFOLLOW, 0o666, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def link_refusal(exc: OSError, relative_path: object) -> ToolResult | None:
    """``PATH_NOT_ALLOWED`` if ``exc`` says :func:`open_inside` met a symlink, else None."""
    if exc.errno in (errno.ELOOP, getattr(errno, "EMLINK", None)):  # FreeBSD says EMLINK
        return _not_allowed("isolation.link_on_the_way", relative_path)
    return None


def _refuse(relative_path: object) -> str | None:
    """Why the path's shape is not allowed, or None."""
    if not isinstance(relative_path, str) or not relative_path.strip():
        return tr("sandbox.empty")
    if "\x00" in relative_path:
        return tr("sandbox.nul")
    if not is_text(relative_path):
        return tr("sandbox.not_text")
    if "\\" in relative_path:
        return tr("sandbox.backslash")
    posix = PurePosixPath(relative_path)
    if posix.is_absolute() or (len(relative_path) > 1 and relative_path[1] == ":"):
        return tr("sandbox.absolute")
    if ".." in posix.parts:
        return tr("sandbox.dotdot")
    if len(relative_path) > MAX_PATH_CHARS or len(posix.parts) > MAX_PATH_PARTS:
        return tr("sandbox.too_long", chars=MAX_PATH_CHARS, parts=MAX_PATH_PARTS)
    if sys.platform == "win32":  # a drive, a stream or a device name: _platforms.py
        return tr("isolation.windows_name") if windows_trouble(posix) else None
    return None


def holds_secrets(parts: tuple[str, ...]) -> bool:
    """Is any of these names ``.env`` or ``.env.<something>``, in any case?"""
    return any(part.lower() == ".env" or part.lower().startswith(".env.") for part in parts)


def is_text(name: str) -> bool:
    """Can ``name`` be written as UTF-8? Not with a lone surrogate (a JSON escape
    like ``"\\ud800"``, or a GBK file name from a Windows zip as Python reads it)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _not_allowed(key: str, relative_path: object, **fields: str) -> ToolResult:
    """The refusal, showing the path as the model sent it (cut short if very long)."""
    shown = repr(relative_path)
    shown = shown if len(shown) <= 120 else shown[:117] + "..."
    return error("PATH_NOT_ALLOWED", tr(key, path=shown, **fields))
