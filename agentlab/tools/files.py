"""Sandboxed file tools for chapter 01's file agent.

``list_dir``, ``read_text``, ``write_text`` and ``append_text`` work only inside
one *sandbox* folder: every path is checked by ``sandbox.resolve_inside`` and
opened by ``sandbox.open_inside``, which follows no symlink on the way. A tool
is three pieces: a function, a JSON schema (in a ``Tool``) and a registration
(:func:`file_tools`). Results show paths relative to the sandbox only;
:func:`sandbox_copy` gives a fresh copy of the course's ``data/sandbox/``, so
the files shipped with the package are never written.
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


def sandbox_copy(source: str | Path | None = None) -> Path:
    """A fresh temporary copy of ``source`` (default: the course's ``data/sandbox/``),
    removed when this Python process (a notebook's kernel) exits."""
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
        return _failed("FILE_NOT_FOUND", "files.no_file", rel_path)
    try:
        # utf-8-sig: a byte-order mark (Windows Notepad) is not part of the first line
        with open_inside(root, path, encoding="utf-8-sig") as handle:
            text = handle.read(max_chars + 1)
            total = len(text) + _chars_left(handle)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):  # or a FIFO, a device
        return _failed("FILE_NOT_FOUND", "files.no_file", rel_path)
    except UnicodeDecodeError:
        return _failed("NOT_UTF8", "files.not_utf8", rel_path)
    except OSError as exc:
        failed = _failed("READ_FAILED", "files.read_failed", rel_path, error=reason(exc))
        return link_refusal(exc, rel_path) or failed
    shown, truncated = text, total > max_chars
    if truncated:  # a huge file must not flood the model's context
        shown = text[:max_chars] + "\n" + tr("files.shown_part", shown=max_chars, total=total)
    return ok({"path": rel_path, "text": shown, "chars": total, "truncated": truncated}, [rel_path])


def _chars_left(handle: TextIO) -> int:
    """The characters still to read, counted a block at a time (not all in memory)."""
    return sum(len(block) for block in iter(lambda: handle.read(1 << 16), ""))


def _failed(code: str, key: str, rel_path: str, **fields: str) -> ToolResult:
    return error(code, tr(key, name=repr(rel_path), **fields), [rel_path])


def write_text(root: Path, rel_path: str, text: str, append: bool = False) -> ToolResult:
    path = resolve_inside(root, rel_path)
    if isinstance(path, dict):
        return path
    if not is_text(text):  # a lone surrogate (a JSON escape like "\ud83d") has no UTF-8
        return error("INVALID_ARGUMENTS", tr("files.text_not_text"), [rel_path])
    folder = _failed("NOT_A_FILE", "files.is_folder", rel_path)
    if rel_path.endswith("/"):  # "new/" names a folder; Path() would drop the "/"
        return folder
    try:
        with open_inside(root, path, "a" if append else "w", encoding="utf-8") as handle:
            handle.write(text)
    except IsADirectoryError:  # a folder, a FIFO or a device under that name
        return folder
    except OSError as exc:
        failed = _failed("WRITE_FAILED", "files.write_failed", rel_path, error=reason(exc))
        return link_refusal(exc, rel_path) or failed
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
    path = {"rel_path": {"type": "string", "description": tr("files.describe.rel_path")}}
    both = {**path, "text": {"type": "string", "description": tr("files.describe.text")}}
    available = {  # name: (parameters, function)
        "list_dir": ({"properties": path}, lambda rel_path=".": list_dir(root, rel_path)),
        "read_text": (
            {"properties": path, "required": ["rel_path"]},
            lambda rel_path: read_text(root, rel_path, max_read_chars),
        ),
        "write_text": (
            {"properties": both, "required": list(both)},
            lambda rel_path, text: write_text(root, rel_path, text),
        ),
        "append_text": (
            {"properties": both, "required": list(both)},
            lambda rel_path, text: append_text(root, rel_path, text),
        ),
    }
    unknown = set(names) - set(available)
    if unknown:
        names_given, known = tr("list.sep").join(sorted(unknown)), tr("list.sep").join(available)
        raise ValueError(tr("files.unknown_tools", names=names_given, known=known))
    return ToolRegistry(
        Tool(name, tr(f"files.describe.{name}"), *available[name]) for name in names
    )
