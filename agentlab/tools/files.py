"""Sandboxed file tools for chapter 01's file agent.

``list_dir``, ``read_text``, ``write_text`` and ``append_text`` work only
inside one *sandbox* folder. Every path goes through
:func:`~agentlab.tools.sandbox.resolve_inside` first, so ``..``, absolute
paths, backslashes, NUL bytes and symlinks that lead out are refused with
``PATH_NOT_ALLOWED`` and nothing outside is ever read or created.

Each tool is the same three pieces, which is all it takes to add one:
a function, a JSON schema (inside :class:`~agentlab.tools.registry.Tool`)
and a registration (:func:`file_tools`).

Results never show the sandbox's absolute location, only paths relative to
it, so outputs are the same on every machine. Use :func:`sandbox_copy` to
get a fresh temporary copy of ``data/sandbox/`` per run: the repository's
files are never written.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .registry import Tool, ToolRegistry, ToolResult, error, ok
from .sales import REPO_DATA_DIR
from .sandbox import resolve_inside

MAX_READ_CHARS = 4000
PATH_PARAM = {"type": "string", "description": "Path relative to the sandbox root, e.g. notes.md"}
TEXT_PARAM = {"type": "string", "description": "UTF-8 text"}
PATH_ONLY = {"properties": {"rel_path": PATH_PARAM}, "required": ["rel_path"]}
WRITE_FIELDS = {"rel_path": PATH_PARAM, "text": TEXT_PARAM}
PATH_AND_TEXT = {"properties": WRITE_FIELDS, "required": list(WRITE_FIELDS)}


def sandbox_copy(source: str | Path | None = None) -> Path:
    """A fresh temporary copy of ``source`` (default: the repository's ``data/sandbox/``)."""
    root = Path(tempfile.mkdtemp(prefix="agentlab-sandbox-")) / "sandbox"
    shutil.copytree(Path(source or REPO_DATA_DIR / "sandbox"), root)
    return root


def list_dir(root: Path, rel_path: str = ".") -> ToolResult:
    folder = root.resolve() if rel_path in ("", ".") else resolve_inside(root, rel_path)
    if isinstance(folder, dict):
        return folder
    if not folder.is_dir():
        return error("FILE_NOT_FOUND", f"no folder named {rel_path!r} in the sandbox")
    base = root.resolve()
    files = sorted(
        p.relative_to(base).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and p.resolve().is_relative_to(base)
    )
    return ok({"files": files}, [rel_path])


def read_text(root: Path, rel_path: str, max_chars: int = MAX_READ_CHARS) -> ToolResult:
    path = resolve_inside(root, rel_path)
    if isinstance(path, dict):
        return path
    if not path.is_file():
        return error("FILE_NOT_FOUND", f"no file named {rel_path!r} in the sandbox", [rel_path])
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return error("NOT_UTF8", f"{rel_path!r} is not UTF-8 text", [rel_path])
    except OSError as exc:
        return error("READ_FAILED", f"could not read {rel_path!r}: {exc.strerror}", [rel_path])
    shown, truncated = text, len(text) > max_chars
    if truncated:  # a huge file must not flood the model's context
        shown = text[:max_chars] + f"\n…[truncated: showing {max_chars} of {len(text)} characters]"
    return ok(
        {"path": rel_path, "text": shown, "chars": len(text), "truncated": truncated}, [rel_path]
    )


def write_text(root: Path, rel_path: str, text: str, append: bool = False) -> ToolResult:
    path = resolve_inside(root, rel_path)
    if isinstance(path, dict):
        return path
    if path == root.resolve() or path.is_dir():
        return error("NOT_A_FILE", f"{rel_path!r} is a folder", [rel_path])
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a" if append else "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        return error("WRITE_FAILED", f"could not write {rel_path!r}: {exc.strerror}", [rel_path])
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
    root = Path(sandbox)
    if not root.is_dir():
        raise ValueError(f"the sandbox {str(root)!r} is not a folder")
    available = {
        "list_dir": Tool(
            "list_dir",
            "List every file in the sandbox (or in one of its folders), one relative path each.",
            {"properties": {"rel_path": PATH_PARAM}},
            lambda rel_path=".": list_dir(root, rel_path),
        ),
        "read_text": Tool(
            "read_text",
            "Read a UTF-8 text file in the sandbox. Very long files are cut with a marker.",
            PATH_ONLY,
            lambda rel_path: read_text(root, rel_path, max_read_chars),
        ),
        "write_text": Tool(
            "write_text",
            "Create or overwrite a UTF-8 text file in the sandbox (folders are created).",
            PATH_AND_TEXT,
            lambda rel_path, text: write_text(root, rel_path, text),
        ),
        "append_text": Tool(
            "append_text",
            "Append UTF-8 text to a file in the sandbox, creating it if needed.",
            PATH_AND_TEXT,
            lambda rel_path, text: append_text(root, rel_path, text),
        ),
    }
    unknown = set(names) - set(available)
    if unknown:
        raise ValueError(f"unknown file tool(s): {', '.join(sorted(unknown))}")
    return ToolRegistry(available[name] for name in names)
