"""``list_dir``'s walk: folders opened one at a time relative to the one before, as
``sandbox.open_inside`` opens a path, following no link into a folder (by path on Windows).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from . import sandbox
from ._platforms import open_folder
from .sandbox import MAX_PATH_PARTS, holds_secrets


def list_inside(root: Path, folder: Path) -> list[str]:
    """Every file under ``folder`` (a path ``resolve_inside`` returned), as
    paths relative to ``root`` with ``/``, sorted. Links are not followed into
    folders; a link to a file is listed when it leads to a file inside. Files
    no tool would open are left out: deeper than ``MAX_PATH_PARTS``, or ``.env``
    files (and links to them)."""
    base = root.resolve()
    if not sandbox.NOFOLLOW_OPENS:
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
        fd = sandbox.open_nofollow(base, folder, os.O_RDONLY | os.O_DIRECTORY, make_folders=False)
        try:  # depth counts from the root, as the path check does, not from the folder listed
            found = list(_walk(fd, prefix, base, depth=len(inside.parts)))
        finally:
            os.close(fd)
    return sorted(name for name in found if not holds_secrets(PurePosixPath(name).parts))


def _walk(fd: int, prefix: str, base: Path, depth: int) -> Iterator[str]:
    with os.scandir(fd) as entries:
        found = list(entries)
    for entry in found:
        name = prefix + entry.name
        if entry.is_dir(follow_symlinks=False):
            if depth + 1 >= MAX_PATH_PARTS:
                continue  # deeper than any path a tool accepts
            try:
                inner = open_folder(entry.name, fd, make=False)
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
    return inside and not holds_secrets(real.relative_to(base).parts)
