"""What the sandbox does differently by platform, and why the open goes one folder at a time.

A check and an open are two moments: a folder on the way swapped for a link
to the outside *between* them would lead a tool that opens by path out. So on
POSIX ``sandbox.open_inside`` opens one folder at a time relative to the one
before (``dir_fd``) with ``O_NOFOLLOW``: a link met is refused (``ELOOP``),
whatever it was at the check. Windows has no ``dir_fd``: there the open is by
path after the check, and some names are devices wherever they are. Hard links
are not detected anywhere (the tools never create links).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path, PurePosixPath

FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


def open_folder(name: str, parent: int, make: bool) -> int:
    """Open folder ``name`` inside the open folder ``parent``, following no link;
    ``make`` creates it when it is missing (``mkdir`` never follows a link either)."""
    try:
        return os.open(name, FOLDER, dir_fd=parent)
    except FileNotFoundError:
        if not make:
            raise
        try:
            os.mkdir(name, 0o777, dir_fd=parent)
        except FileExistsError:  # made meanwhile: fine, it is opened without following
            pass
        return os.open(name, FOLDER, dir_fd=parent)
    except NotADirectoryError:  # Linux says this for a link to a folder: call it one
        if stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), name) from None
        raise


def open_by_path(target: Path, flags: int, make_folders: bool) -> int:
    """Where there is no ``dir_fd`` (Windows): the check before was all we have."""
    if target.is_dir():  # Windows says "permission denied" for opening a folder
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), target.name)
    if make_folders:
        os.makedirs(target.parent, exist_ok=True)
    return os.open(target, flags | getattr(os, "O_BINARY", 0), 0o666)


# Names Windows gives to devices, in any folder and with any extension.
WINDOWS_DEVICES = frozenset(
    ["CON", "PRN", "AUX", "NUL"] + [f"{p}{n}" for p in ("COM", "LPT") for n in range(1, 10)]
)


def windows_trouble(path: PurePosixPath) -> bool:
    """A colon (a drive, or ``file:stream``) or a device name, which Windows
    opens as the device wherever it is (``notes/NUL.txt`` is the null device)."""
    for part in path.parts:
        stem = part.split(".")[0].rstrip(" ").upper()
        if ":" in part or stem in WINDOWS_DEVICES:
            return True
    return False
