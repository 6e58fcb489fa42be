"""Sandboxed file tools for chapter 01's file agent.

``list_dir``, ``read_text``, ``write_text`` and ``append_text`` work only
inside one *sandbox* folder: every path is checked by ``sandbox.resolve_inside``
(``..``, absolute paths, ``.env`` files, links leading out: ``PATH_NOT_ALLOWED``)
and opened by ``sandbox.open_inside``, which follows no symlink on the way.
Each tool is three pieces, all it takes to add one: a function, a JSON schema
(in a :class:`~agentlab.tools.registry.Tool`) and a registration
(:func:`file_tools`). Results show paths relative to the sandbox only, the
same on every machine; :func:`sandbox_copy` gives a fresh copy of the course's
``data/sandbox/``, so the files shipped with the package are never written.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import TextIO

from ..i18n import reason, tr
from ._listing import list_inside
from .registry import Tool, ToolRegistry
from .result import ToolResult, error, ok
from .sales import COURSE_DATA_DIR
from .sandbox import is_text, link_refusal, open_inside, resolve_inside

MAX_READ_CHARS = 4000


def path_param() -> dict[str, str]:
    """The schema of a ``rel_path`` argument, described in the current language."""
    return {"type": "string", "description": tr("files.describe.rel_path")}


def text_param() -> dict[str, str]:
    """The schema of a ``text`` argument, described in the current language."""
    return {"type": "string", "description": tr("files.describe.text")}


def sandbox_copy(source: str | Path | None = None) -> Path:
    """A fresh temporary copy of ``source`` (default: the course's ``data/sandbox/``).

    The copy lasts as long as this Python process (a notebook's kernel) and
    is removed when it exits, so a day of runs leaves no folders behind.
    """
    source = Path(source or COURSE_DATA_DIR / "sandbox")
    if not source.is_dir():
        raise ValueError(tr("files.sandbox_not_a_folder", path=str(source)))
    folder = Path(tempfile.mkdtemp(prefix="agentlab-sandbox-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    root = folder / "sandbox"
    shutil.copytree(source, root)
    return root


def list_dir(root: Path, rel_path: str = ".") -> ToolResult:
    folder = root.resolve() if rel_path in ("", ".") else resolve_inside(root, rel_path)
    if isinstance(folder, dict):
        return folder
    try:
        if not folder.is_dir():
            return error("FILE_NOT_FOUND", tr("files.no_folder", name=repr(rel_path)))
        found = list_inside(root, folder)
    except OSError as exc:  # e.g. a name too long for this file system
        refused = link_refusal(exc, rel_path)
        return refused or error("FILE_NOT_FOUND", tr("files.no_folder", name=repr(rel_path)))
    files = [name for name in found if is_text(name)]  # other names no tool could open
    data: dict = {"files": files}
    if len(files) < len(found):
        data["not_listed"] = tr("files.names_not_text", n=len(found) - len(files))
    return ok(data, [rel_path])


def read_text(root: Path, rel_path: str, max_chars: int = MAX_READ_CHARS) -> ToolResult:
    path = resolve_inside(root, rel_path)
    if isinstance(path, dict):
        return path
    if rel_path.endswith("/"):  # "a.md/" names a folder; Path() would drop the "/"
        return _no_file(rel_path)
    try:
        # utf-8-sig: a byte-order mark (Windows Notepad) is not part of the first line
        with open_inside(root, path, encoding="utf-8-sig") as handle:
            text = handle.read(max_chars + 1)
            total = len(text) + _chars_left(handle)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):  # or a FIFO, a device
        return _no_file(rel_path)
    except UnicodeDecodeError:
        return error("NOT_UTF8", tr("files.not_utf8", name=repr(rel_path)), [rel_path])
    except OSError as exc:
        return link_refusal(exc, rel_path) or _read_failed(rel_path, exc)
    shown, truncated = text, total > max_chars
    if truncated:  # a huge file must not flood the model's context
        shown = text[:max_chars] + "\n" + tr("files.shown_part", shown=max_chars, total=total)
    return ok({"path": rel_path, "text": shown, "chars": total, "truncated": truncated}, [rel_path])


def _chars_left(handle: TextIO) -> int:
    """Count the characters still to read, a block at a time: a huge file must
    not fill the memory either, only to be cut to ``max_chars``."""
    return sum(len(block) for block in iter(lambda: handle.read(1 << 16), ""))


def _no_file(rel_path: str) -> ToolResult:
    return error("FILE_NOT_FOUND", tr("files.no_file", name=repr(rel_path)), [rel_path])


def _read_failed(rel_path: str, exc: OSError) -> ToolResult:
    return error(
        "READ_FAILED", tr("files.read_failed", name=repr(rel_path), error=reason(exc)), [rel_path]
    )


def write_text(root: Path, rel_path: str, text: str, append: bool = False) -> ToolResult:
    path = resolve_inside(root, rel_path)
    if isinstance(path, dict):
        return path
    if not is_text(text):  # a lone surrogate (a JSON escape like "\ud83d") has no UTF-8
        return error("INVALID_ARGUMENTS", tr("files.text_not_text"), [rel_path])
    folder = error("NOT_A_FILE", tr("files.is_folder", name=repr(rel_path)), [rel_path])
    if rel_path.endswith("/"):  # "new/" names a folder; Path() would drop the "/"
        return folder
    try:
        with open_inside(root, path, "a" if append else "w", encoding="utf-8") as handle:
            handle.write(text)
    except IsADirectoryError:  # a folder, a FIFO or a device under that name
        return folder
    except OSError as exc:
        return link_refusal(exc, rel_path) or error(
            "WRITE_FAILED",
            tr("files.write_failed", name=repr(rel_path), error=reason(exc)),
            [rel_path],
        )
    verb = "appended" if append else "wrote"
    return ok({"path": rel_path, "chars": len(text), "action": verb}, [rel_path])


def append_text(root: Path, rel_path: str, text: str) -> ToolResult:
    return write_text(root, rel_path, text, append=True)


def file_tools(
    sandbox: str | Path,
    names: tuple[str, ...] = ("list_dir", "read_text", "write_text", "append_text"),
    max_read_chars: int = MAX_READ_CHARS,
) -> ToolRegistry:
    """A registry of the file tools in ``names``, all bound to ``sandbox``."""
    if not isinstance(sandbox, str | os.PathLike) or not str(sandbox).strip():
        # Path("") is the working folder: never hand that to a model by accident
        raise ValueError(tr("files.sandbox_not_a_folder", path=sandbox))
    if isinstance(names, str):  # names="read_text": one tool, not nine letters
        names = (names,)
    root = Path(sandbox)
    if not root.is_dir():
        raise ValueError(tr("files.sandbox_not_a_folder", path=str(root)))
    path_only = {"properties": {"rel_path": path_param()}, "required": ["rel_path"]}
    fields = {"rel_path": path_param(), "text": text_param()}
    path_and_text = {"properties": fields, "required": list(fields)}
    available = {
        "list_dir": Tool(
            "list_dir",
            tr("files.describe.list_dir"),
            {"properties": {"rel_path": path_param()}},
            lambda rel_path=".": list_dir(root, rel_path),
        ),
        "read_text": Tool(
            "read_text",
            tr("files.describe.read_text"),
            path_only,
            lambda rel_path: read_text(root, rel_path, max_read_chars),
        ),
        "write_text": Tool(
            "write_text",
            tr("files.describe.write_text"),
            path_and_text,
            lambda rel_path, text: write_text(root, rel_path, text),
        ),
        "append_text": Tool(
            "append_text",
            tr("files.describe.append_text"),
            path_and_text,
            lambda rel_path, text: append_text(root, rel_path, text),
        ),
    }
    unknown = set(names) - set(available)
    if unknown:
        names_given, known = tr("list.sep").join(sorted(unknown)), tr("list.sep").join(available)
        raise ValueError(tr("files.unknown_tools", names=names_given, known=known))
    return ToolRegistry(available[name] for name in names)
