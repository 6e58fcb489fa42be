"""Keep file tools inside their folder.

A model may send ``../../.ssh/id_rsa`` by mistake or because a document told
it to. The system prompt cannot stop that; only the tool can. Two lines of
defence, both here.

**First, the check.** Every path a tool touches goes through
:func:`resolve_inside`, which refuses:

- anything that is not a non-empty string, holds a NUL byte, or cannot be
  written as UTF-8 (a lone surrogate);
- absolute paths (``/etc/passwd``, ``C:\\x``) and backslashes (``..\\x`` on
  Windows-style paths; we only speak ``/``); on Windows also colons (``a:b``
  names a hidden stream there) and device names (``CON``, ``NUL``);
- ``..`` anywhere in the path;
- ``.env`` files (``.env``, ``.env.local``, in any folder and any case):
  they hold the API keys, and a model has no business reading them;
- paths longer than ``MAX_PATH_CHARS`` or deeper than ``MAX_PATH_PARTS``
  folders (in the fuzz corpus, ``a/a/a/...`` 2000 levels deep made the write
  tool spend seconds creating folders);
- a path that, once symlinks are resolved, lands outside the root.

It returns either the resolved path or an error tool result with
``PATH_NOT_ALLOWED``. It does not check that the file exists: each tool says
``FILE_NOT_FOUND`` in its own words.

**Second, the open.** A check and an open are two moments. If a folder on
the way is replaced by a symlink to the outside *between* them (another
process can do that, in a loop, until it wins), a tool that opens by path
follows the link out. So on POSIX :func:`open_inside` opens the checked path
one folder at a time, each relative to the one before (``dir_fd``), with
``O_NOFOLLOW``: a symlink met on the way is refused (``ELOOP``), whatever it
was when we checked. The check stays because it is the readable rule and
gives the clear messages; the open makes the rule hold at the moment it
matters. Where ``os.open`` has no ``dir_fd`` (Windows), the open is by path
after the check, as before: creating symlinks there needs privileges.

The root itself is trusted: it is the folder the developer chose, taken as
it is (links and all) on every call. Hard links are not detected: a file
with a second name outside is the same file (the tools never create links).

This module does not read or write any file itself: it opens, lists, and
(for a write, when asked) creates the folders on the way; what a file means
is each tool's business.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from ..i18n import tr
from .registry import ToolResult, error

MAX_PATH_CHARS = 1024
MAX_PATH_PARTS = 32
NOFOLLOW_OPENS = (
    os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY")
)
"""POSIX: open one component at a time without following links."""
# Names Windows gives to devices, in any folder and with any extension.
WINDOWS_DEVICES = frozenset(
    ["CON", "PRN", "AUX", "NUL"] + [f"{p}{n}" for p in ("COM", "LPT") for n in range(1, 10)]
)


def resolve_inside(root: Path, relative_path: object) -> Path | ToolResult:
    """``root / relative_path`` resolved, or a ``PATH_NOT_ALLOWED`` result."""
    refusal = _refuse(relative_path)
    if refusal:
        return error(
            "PATH_NOT_ALLOWED", tr("sandbox.refused", why=refusal, path=_shown(relative_path))
        )
    root = root.resolve()
    try:
        target = (root / str(relative_path)).resolve()
    except OSError:  # a link changed while it was being followed
        return error("PATH_NOT_ALLOWED", tr("isolation.changed", path=_shown(relative_path)))
    except RuntimeError:  # Python 3.11 and 3.12 say "Symlink loop from <absolute path>"
        return error("PATH_NOT_ALLOWED", tr("sandbox.link_loop", path=_shown(relative_path)))
    if not target.is_relative_to(root):
        return error("PATH_NOT_ALLOWED", tr("sandbox.outside", path=_shown(relative_path)))
    if _holds_secrets(target.relative_to(root).parts):  # notes.md may be a link to .env
        why = tr("sandbox.secret_file")
        return error("PATH_NOT_ALLOWED", tr("sandbox.refused", why=why, path=_shown(relative_path)))
    return target


def open_inside(root: Path, target: Path, flags: int, make_folders: bool = False) -> int:
    """Open ``target`` (a path :func:`resolve_inside` returned) and return the descriptor.

    On POSIX no symlink is followed on the way from ``root``: one that is
    there now raises ``OSError(ELOOP)`` (see :func:`link_refusal`).
    ``make_folders`` creates missing folders, the same way. Raises
    ``OSError`` like ``os.open``.
    """
    base = root.resolve()
    parts = target.relative_to(base).parts
    if not NOFOLLOW_OPENS:  # the check above is all we have here
        if make_folders and len(parts) > 1:
            os.makedirs(target.parent, exist_ok=True)
        return os.open(target, flags | getattr(os, "O_BINARY", 0), 0o666)
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)  # the root itself may be a link: ours
    try:
        for position, name in enumerate(parts):
            if position == len(parts) - 1:
                inner = os.open(name, flags | os.O_NOFOLLOW, 0o666, dir_fd=fd)
            else:
                inner = _open_folder(name, fd, make_folders)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_folder(name: str, parent: int, make: bool) -> int:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        return os.open(name, flags, dir_fd=parent)
    except FileNotFoundError:
        if not make:
            raise
        try:
            os.mkdir(name, 0o777, dir_fd=parent)  # mkdir never follows a link either
        except FileExistsError:
            pass
        return os.open(name, flags, dir_fd=parent)
    except NotADirectoryError:  # Linux says this for a link to a folder: call it one
        if stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name) from None
        raise


def list_inside(root: Path, folder: Path) -> list[str]:
    """Every file under ``folder`` (a path :func:`resolve_inside` returned), as
    paths relative to ``root`` with ``/``, sorted. Links are not followed into
    folders; a link to a file is listed when it leads to a file inside. Files
    no tool would open are left out: deeper than ``MAX_PATH_PARTS``, or ``.env``
    files (and links to them)."""
    base = root.resolve()
    if not NOFOLLOW_OPENS:
        found = [
            p.relative_to(base).as_posix()
            for p in folder.rglob("*")
            if len(p.relative_to(base).parts) <= MAX_PATH_PARTS
            and p.is_file()
            and _leads_inside(p, base)
        ]
    else:
        inside = folder.relative_to(base)
        prefix = "" if not inside.parts else inside.as_posix() + "/"
        fd = open_inside(root, folder, os.O_RDONLY | os.O_DIRECTORY)
        try:  # depth counts from the root, as the path check does, not from the folder listed
            found = list(_walk(fd, prefix, base, depth=len(inside.parts)))
        finally:
            os.close(fd)
    return sorted(name for name in found if not _holds_secrets(PurePosixPath(name).parts))


def _walk(fd: int, prefix: str, base: Path, depth: int) -> Iterator[str]:
    with os.scandir(fd) as entries:
        found = list(entries)
    for entry in found:
        name = prefix + entry.name
        if entry.is_dir(follow_symlinks=False):
            if depth + 1 >= MAX_PATH_PARTS:
                continue  # deeper than any path a tool accepts
            try:
                inner = _open_folder(entry.name, fd, make=False)
            except OSError:
                continue  # it changed since we listed it: leave it out
            try:
                yield from _walk(inner, name + "/", base, depth + 1)
            finally:
                os.close(inner)
        elif entry.is_file(follow_symlinks=False):
            yield name
        elif entry.is_symlink() and _leads_inside(base / name, base):
            yield name  # a name only: nothing is read through it here


def _leads_inside(path: Path, base: Path) -> bool:
    """Does ``path``, links followed, lead to a file inside ``base`` a tool may
    open (not a ``.env`` file)? A link loop leads nowhere (``resolve`` raises
    ``RuntimeError`` for it before 3.13)."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return False
    inside = real.is_relative_to(base) and real.is_file()
    return inside and not _holds_secrets(real.relative_to(base).parts)


def link_refusal(exc: OSError, relative_path: object) -> ToolResult | None:
    """``PATH_NOT_ALLOWED`` if ``exc`` says :func:`open_inside` met a symlink, else None."""
    if exc.errno in (errno.ELOOP, getattr(errno, "EMLINK", None)):  # FreeBSD says EMLINK
        return error(
            "PATH_NOT_ALLOWED", tr("isolation.link_on_the_way", path=_shown(relative_path))
        )
    return None


def is_regular_file(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)


def _refuse(relative_path: object) -> str | None:
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
    if _holds_secrets(posix.parts):
        return tr("sandbox.secret_file")
    if len(relative_path) > MAX_PATH_CHARS or len(posix.parts) > MAX_PATH_PARTS:
        return tr("sandbox.too_long", chars=MAX_PATH_CHARS, parts=MAX_PATH_PARTS)
    if sys.platform == "win32" and _windows_trouble(posix):
        return tr("isolation.windows_name")
    return None


def _holds_secrets(parts: tuple[str, ...]) -> bool:
    """Is any of these names ``.env`` or ``.env.<something>``, in any case?"""
    return any(part.lower() == ".env" or part.lower().startswith(".env.") for part in parts)


def is_text(name: str) -> bool:
    """Can ``name`` be written as UTF-8? Not with a lone surrogate: a JSON
    escape like ``"\\ud800"``, or a file name in another encoding (a GBK name
    from a Windows zip) as Python reads it."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _windows_trouble(path: PurePosixPath) -> bool:
    """A colon (a drive, or ``file:stream``) or a device name, which Windows
    opens as the device wherever it is (``notes/NUL.txt`` is the null device)."""
    for part in path.parts:
        stem = part.split(".")[0].rstrip(" ").upper()
        if ":" in part or stem in WINDOWS_DEVICES:
            return True
    return False


def _shown(relative_path: object) -> str:
    """The path as the model sent it, cut short if it is very long."""
    text = repr(relative_path)
    return text if len(text) <= 120 else text[:117] + "..."
