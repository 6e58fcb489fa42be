"""Keep file tools inside their folder.

A model may send ``../../.ssh/id_rsa`` by mistake or because a document told
it to. The system prompt cannot stop that; only the tool can. Every path a
tool touches goes through :func:`resolve_inside` first, which refuses:

- anything that is not a non-empty string, or holds a NUL byte;
- absolute paths (``/etc/passwd``, ``C:\\x``) and backslashes (``..\\x`` on
  Windows-style paths; we only speak ``/``);
- ``..`` anywhere in the path;
- paths longer than ``MAX_PATH_CHARS`` or deeper than ``MAX_PATH_PARTS``
  folders (in the fuzz corpus, ``a/a/a/...`` 2000 levels deep made the write
  tool spend seconds creating folders);
- a path that, once symlinks are resolved, lands outside the root.

It returns either the resolved path or an error tool result with
``PATH_NOT_ALLOWED``. It does not check that the file exists: each tool says
``FILE_NOT_FOUND`` in its own words.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from ..i18n import tr
from .registry import ToolResult, error

MAX_PATH_CHARS = 1024
MAX_PATH_PARTS = 32


def resolve_inside(root: Path, relative_path: object) -> Path | ToolResult:
    """``root / relative_path`` resolved, or a ``PATH_NOT_ALLOWED`` result."""
    refusal = _refuse(relative_path)
    if refusal:
        return error(
            "PATH_NOT_ALLOWED", tr("sandbox.refused", why=refusal, path=_shown(relative_path))
        )
    root = root.resolve()
    target = (root / str(relative_path)).resolve()
    if not target.is_relative_to(root):
        return error("PATH_NOT_ALLOWED", tr("sandbox.outside", path=_shown(relative_path)))
    return target


def _refuse(relative_path: object) -> str | None:
    if not isinstance(relative_path, str) or not relative_path.strip():
        return tr("sandbox.empty")
    if "\x00" in relative_path:
        return tr("sandbox.nul")
    if "\\" in relative_path:
        return tr("sandbox.backslash")
    posix = PurePosixPath(relative_path)
    if posix.is_absolute() or (len(relative_path) > 1 and relative_path[1] == ":"):
        return tr("sandbox.absolute")
    if ".." in posix.parts:
        return tr("sandbox.dotdot")
    if len(relative_path) > MAX_PATH_CHARS or len(posix.parts) > MAX_PATH_PARTS:
        return tr("sandbox.too_long", chars=MAX_PATH_CHARS, parts=MAX_PATH_PARTS)
    return None


def _shown(relative_path: object) -> str:
    """The path as the model sent it, cut short if it is very long."""
    text = repr(relative_path)
    return text if len(text) <= 120 else text[:117] + "..."
