"""Nothing escapes the sandbox: a corpus of traversal payloads, a fuzzer, and a race.

Every payload is sent, as a model would send it (a JSON arguments string),
to ``analyze_csv`` and to every file tool. What counts is what happened on
the file system, not what the tools said:

- a Python audit hook records every file the process opens, lists, creates,
  renames or removes while a tool runs; each one must lie inside the
  sandbox (after resolving symlinks). The tools open one path component at
  a time relative to the folder opened before (``dir_fd``); the hook is not
  told which folder, so such an open must carry ``O_NOFOLLOW`` and name a
  single component, and the chain starts with an absolute open that is
  checked like any other. Folders created or listed through a descriptor
  are placed with ``/proc/self/fd`` (Linux);
- the world around the sandbox is fingerprinted (every path, size and
  content hash) before and after, and must not change;
- the canary text planted outside never shows up in any tool result.

The world has traps: symlinks inside the sandbox pointing out (to a file, to
a folder, to ``/etc``), and tools whose sandbox root is itself reached
through a symlinked parent folder.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentlab.tools import file_tools, sales_tools
from agentlab.tools.sandbox import NOFOLLOW_OPENS

from ..conftest import needs_symlinks

pytestmark = needs_symlinks  # the worlds these tests build have links in them

CANARY = "CANARY-d41d8cd98f00-outside-the-sandbox"
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
MUTATING_EVENTS = {
    "os.mkdir",
    "os.rename",
    "os.replace",
    "os.remove",
    "os.rmdir",
    "os.symlink",
    "os.truncate",
    "os.chmod",
    "os.link",
    "os.utime",
}
LISTING_EVENTS = {"os.listdir", "os.scandir"}

# -- watching the file system ---------------------------------------------------------------


class Watch:
    """Collects file-system audit events while ``active`` (audit hooks cannot be removed,
    so one hook is installed for the whole session and switched on and off)."""

    active = False
    events: list[tuple[str, str, bool, int]] = []  # (event, path, writes, open flags)


def _fd_path(fd: int) -> str:
    """Where an open descriptor points (Linux); unknown elsewhere."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return f"<descriptor {fd}>"


def _audit(event: str, args: tuple) -> None:
    if not Watch.active:
        return
    flags = 0
    if event == "open":
        path, mode, flags = args
        flags = flags or 0
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool(
            flags & WRITE_FLAGS
        )
        if isinstance(path, int):  # open(fd): wraps a descriptor already opened (and checked)
            return
    elif event in MUTATING_EVENTS or event in LISTING_EVENTS:
        path, writes = args[0], event in MUTATING_EVENTS
        if isinstance(path, int):  # os.scandir(fd)
            path = _fd_path(path)
        dir_fd = args[2] if event == "os.mkdir" and len(args) > 2 else None
        if dir_fd is not None and isinstance(path, (str, bytes)):
            path = os.path.join(_fd_path(dir_fd), os.fsdecode(path))
    else:
        return
    if isinstance(path, (str, bytes, os.PathLike)):
        Watch.events.append((event, os.fsdecode(path), writes, flags))
    if event in ("os.rename", "os.replace", "os.symlink", "os.link"):
        Watch.events.append((event, os.fsdecode(args[1]), True, 0))


sys.addaudithook(_audit)

# Reading Python's own files (a lazy import) is not a tool reading the disk.
PYTHON_FILES = tuple({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)})


def escapes(sandbox: Path) -> list[tuple[str, str, bool]]:
    inside = os.path.realpath(sandbox)
    bad = []
    for event, path, writes, flags in Watch.events:
        if event == "open" and not os.path.isabs(path):
            # One component, relative to a folder opened before, not following links.
            if flags & os.O_NOFOLLOW and "/" not in path and path not in ("", ".", ".."):
                continue
        else:
            real = os.path.realpath(path)
            if real == inside or real.startswith(inside + os.sep):
                continue
            if not writes and real.startswith(PYTHON_FILES):
                continue
        bad.append((event, path, writes))
    return bad


def fingerprint(folder: Path, skip: Path) -> dict[str, str]:
    """Every path under ``folder`` except ``skip``: its kind and content hash.
    (Symlinks are recorded, never followed.)"""
    seen = {}
    for top, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = [d for d in dirs if Path(top, d) != skip]
        for name in dirs + files:
            path = Path(top, name)
            if path.is_symlink():
                seen[str(path)] = "link->" + os.readlink(path)
            elif path.is_file():
                seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                seen[str(path)] = "dir"
    return seen


# -- the world ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict[str, Path]:
    """outside/ (the canary), sandbox/ (with traps), and alias -> sandbox."""
    root = tmp_path_factory.mktemp("world")
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(CANARY, encoding="utf-8")
    (outside / "secret.csv").write_text(
        f"category,quantity,unit_price\n{CANARY},1,1\n", encoding="utf-8"
    )
    sandbox = root / "sandbox"
    (sandbox / "notes").mkdir(parents=True)
    (sandbox / "notes" / "meeting.md").write_text("TODO ok\n", encoding="utf-8")
    (sandbox / "link_dir").symlink_to(outside, target_is_directory=True)
    (sandbox / "link_file.md").symlink_to(outside / "secret.txt")
    (sandbox / "link_etc").symlink_to("/etc", target_is_directory=True)
    (sandbox / "notes" / "up").symlink_to("../..", target_is_directory=True)
    data_input = sandbox / "data" / "input"
    data_input.mkdir(parents=True)
    (data_input / "sales.csv").write_text("category,quantity,unit_price\nA,1,2\n", "utf-8")
    (data_input / "evil.csv").symlink_to(outside / "secret.csv")
    (data_input / "evil_dir").symlink_to(outside, target_is_directory=True)
    alias = root / "alias"  # the sandbox reached through a symlinked parent
    alias.symlink_to(sandbox, target_is_directory=True)
    return {"root": root, "outside": outside, "sandbox": sandbox, "alias": alias}


def registries(world: dict[str, Path]):
    for base in (world["sandbox"], world["alias"]):
        yield file_tools(base), {"list_dir", "read_text", "write_text", "append_text"}
        yield sales_tools(base / "data"), {"analyze_csv"}


# -- the corpus ----------------------------------------------------------------------------------

UP = [
    "..",
    ".%2e",
    "%2e%2e",
    "%2E%2E",
    "%252e%252e",
    "..%00",
    "．．",
    "‥",
    "..;",
    "....",
    "...",
    ". .",
    "..\u200b",
    "\u002e\u002e",
    "..\uff0f..",
    "%c0%ae%c0%ae",
    "..%c0%af",
]
SEPARATORS = ["/", "\\", "%2f", "%5c", "\u2215", "\uff0f", "//", "/./"]
TARGETS = ["secret.txt", "outside/secret.txt", "outside/secret.csv", "etc/passwd", ""]
FIXED = [
    "/etc/passwd",
    "/",
    "//etc/passwd",
    "/proc/self/environ",
    "C:\\Windows\\win.ini",
    "C:/Windows/win.ini",
    "c:",
    "\\\\server\\share\\x",
    "\\etc\\passwd",
    "~/.ssh/id_rsa",
    "~root/.bashrc",
    "file:///etc/passwd",
    "a\x00.md",
    "../x\x00.md",
    "\x00",
    "",
    " ",
    ".",
    "./",
    "notes/../../outside/secret.txt",
    "notes/./../../outside",
    "x" * 300,
    "a/" * 2000,
    "a" * 5000,
    "link_dir/secret.txt",
    "link_dir",
    "link_file.md",
    "link_etc/passwd",
    "link_etc",
    "notes/up/outside/secret.txt",
    "notes/up/sandbox/notes/meeting.md",
    "evil.csv",
    "evil_dir/secret.csv",
    "evil_dir",
    "./link_dir/../secret.txt",
    "link_dir/../outside/secret.txt",
    "notes/meeting.md/../../..",
    "%2e%2e%2fsecret.txt",
]


def corpus() -> Iterator[str]:
    yield from FIXED
    for up, sep, target, depth in itertools.product(UP, SEPARATORS[:4], TARGETS, (1, 3)):
        yield (up + sep) * depth + target
    for up, sep in itertools.product(UP, SEPARATORS[4:]):
        yield f"notes{sep}{up}{sep}{up}{sep}outside{sep}secret.txt"


PAYLOADS = list(dict.fromkeys(corpus()))


def arguments_for(tool: str, path: str) -> str:
    if tool == "analyze_csv":
        return json.dumps({"relative_path": path})
    if tool in ("write_text", "append_text"):
        return json.dumps({"rel_path": path, "text": "written by the fuzzer\n"})
    return json.dumps({"rel_path": path})


def probe(world: dict[str, Path], path: str) -> list[str]:
    """Send ``path`` to every tool; return what escaped (empty when nothing did)."""
    problems = []
    for registry, names in registries(world):
        for name in sorted(names):
            Watch.events.clear()
            Watch.active = True
            try:
                result = registry.call(name, arguments_for(name, path))
            finally:
                Watch.active = False
            assert result["status"] in ("ok", "error"), result
            bad = escapes(world["sandbox"])
            if bad:
                problems.append(f"{name}({path!r}) touched {bad}")
            if CANARY in json.dumps(result, ensure_ascii=False):
                problems.append(f"{name}({path!r}) returned the canary")
    return problems


def test_the_corpus_is_big_and_varied():
    assert len(PAYLOADS) >= 200
    assert any("\x00" in p for p in PAYLOADS) and any("\\" in p for p in PAYLOADS)
    assert any(len(p) > 1000 for p in PAYLOADS) and any(p.startswith("/") for p in PAYLOADS)


def test_no_payload_reads_or_writes_outside(world):
    # Warm up once, so lazy imports are not mistaken for tool activity.
    probe(world, "notes/meeting.md")
    before = fingerprint(world["root"], skip=world["sandbox"])
    problems = [p for path in PAYLOADS for p in probe(world, path)]
    assert problems == []
    assert fingerprint(world["root"], skip=world["sandbox"]) == before
    # The watch itself works: a legitimate read and write were seen, inside.
    Watch.events.clear()
    Watch.active = True
    file_tools(world["sandbox"]).call("write_text", arguments_for("write_text", "ok.md"))
    Watch.active = False
    assert any(e[2] and e[1].endswith("ok.md") for e in Watch.events)


def test_the_watch_sees_an_escape(world):
    """A tool that does escape is caught, so a clean result above means something."""
    Watch.events.clear()
    Watch.active = True
    (world["outside"] / "secret.txt").read_text(encoding="utf-8")
    Watch.active = False
    assert escapes(world["sandbox"])
    # An open relative to a folder descriptor that would follow a link is caught too.
    folder = os.open(world["sandbox"], os.O_RDONLY)
    try:
        Watch.events.clear()
        Watch.active = True
        os.close(os.open("link_file.md", os.O_RDONLY, dir_fd=folder))
        Watch.active = False
    finally:
        os.close(folder)
    assert escapes(world["sandbox"]) == [("open", "link_file.md", False)]


path_parts = st.sampled_from(
    [
        "..",
        ".",
        "/",
        "\\",
        "%2e",
        "%2f",
        ":",
        "~",
        "\x00",
        "．",
        "／",
        "link_dir",
        "link_etc",
        "notes",
        "up",
        "evil.csv",
        "evil_dir",
        "outside",
        "secret.txt",
        "data",
        "input",
        "a",
    ]
)


@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(path=st.one_of(st.lists(path_parts, max_size=10).map("".join), st.text(max_size=40)))
def test_fuzzed_paths_never_escape(world, path):
    before = fingerprint(world["root"], skip=world["sandbox"])
    assert probe(world, path) == []
    assert fingerprint(world["root"], skip=world["sandbox"]) == before


# -- a symlink swapped in between the check and the open -----------------------------------
#
# A symlink swapped in between the check and the open must not let a tool out.
#
# ``resolve_inside`` checks a path, then the tool opens it. If a folder on
# the way is replaced by a symlink to the outside *between* the two, a tool
# that opens by path follows it. Here another process keeps swapping, as fast
# as it can:
#
# - ``sandbox/real/`` between a real folder and a symlink to ``outside/``;
# - ``sandbox/note.txt`` between a real file and a symlink to the canary;
#
# while the file tools and ``analyze_csv`` read, write, append and list
# through those names. Nothing outside may ever be read (the canary text never
# appears in a result) or written (the outside folder is the same after).
#
# The sandbox's own folder is not swapped: it is what the developer chose, and
# it is taken as it is on every call.
#
# The swapper is a process, not a thread: a thread would only swap when the
# tools' thread lets go of the GIL, which makes the race rare; a process swaps
# in parallel, as an attacker would.

RACE_CANARY = "CANARY-7f3a-outside-the-sandbox"
SECONDS = 3.0  # how long the tools run against the swapper
posix_opens = pytest.mark.skipif(
    not NOFOLLOW_OPENS, reason="POSIX only: elsewhere the open is by path after the check"
)

SWAPPER = r"""
import os, shutil, sys
from pathlib import Path

sandbox, outside = Path(sys.argv[1]), Path(sys.argv[2])
real, away, link = sandbox / "real", sandbox / "real.away", sandbox / "real.link"
note, note_link, note_file = sandbox / "note.txt", sandbox / "note.link", sandbox / "note.file"


def swap():
    os.symlink(outside, link, target_is_directory=True)
    os.rename(real, away)  # the folder steps aside ...
    os.rename(link, real)  # ... and a link to the outside takes its name
    os.unlink(real)
    os.rename(away, real)  # the folder is back
    os.symlink(outside / "canary.txt", note_link)
    os.replace(note_link, note)  # the file becomes a link to the canary ...
    note_file.write_text("inside\n")
    os.replace(note_file, note)  # ... and a file again


def settle():
    # A tool may create "real" while the folder is away: put the folder back.
    if os.path.islink(real):
        os.unlink(real)
    if os.path.lexists(away):
        if os.path.isdir(real):
            shutil.rmtree(real, ignore_errors=True)
        os.rename(away, real)
    for leftover in (link, note_link):
        if os.path.lexists(leftover):
            os.unlink(leftover)


print("swapping", flush=True)
while True:
    try:
        swap()
    except OSError:
        try:
            settle()
        except OSError:
            pass
"""


def contents(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        if p.is_file()
        else "dir"
        for p in sorted(folder.rglob("*"))
    }


@pytest.fixture
def swap_world(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.txt").write_text(RACE_CANARY, encoding="utf-8")
    (outside / "data.txt").write_text(RACE_CANARY, encoding="utf-8")
    (outside / "sales.csv").write_text(
        f"category,quantity,unit_price\n{RACE_CANARY},1,1\n", encoding="utf-8"
    )
    sandbox = tmp_path / "data" / "input"  # analyze_csv's folder, and the file tools'
    (sandbox / "real").mkdir(parents=True)
    (sandbox / "real" / "data.txt").write_text("inside\n", encoding="utf-8")
    (sandbox / "real" / "sales.csv").write_text("category,quantity,unit_price\nA,1,2\n", "utf-8")
    (sandbox / "note.txt").write_text("inside\n", encoding="utf-8")
    return {"outside": outside, "sandbox": sandbox}


@contextmanager
def swapping(sandbox: Path, outside: Path) -> Iterator[None]:
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(sandbox), str(outside)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert swapper.stdout is not None and swapper.stdout.readline() == "swapping\n"
        yield
    finally:
        swapper.kill()
        swapper.wait()
        swapper.stdout.close()
        if not (sandbox / "real").is_dir() or (sandbox / "real").is_symlink():
            (sandbox / "real").unlink(missing_ok=True)
            (sandbox / "real.away").rename(sandbox / "real")


CALLS = [
    ("read_text", {"rel_path": "real/data.txt"}),
    ("read_text", {"rel_path": "note.txt"}),
    ("write_text", {"rel_path": "real/written.txt", "text": "x"}),
    ("write_text", {"rel_path": "real/deeper/written.txt", "text": "x"}),
    ("append_text", {"rel_path": "note.txt", "text": "x"}),
    ("append_text", {"rel_path": "real/data.txt", "text": "x"}),
    ("list_dir", {"rel_path": "real"}),
]


def race(seconds: float, attempt: Callable[[], list], first: bool = False) -> tuple[list, int]:
    """Call ``attempt`` until ``seconds`` pass (or, with ``first``, until one leak);
    the leaks it found, and how many rounds it made."""
    leaks, rounds, end = [], 0, time.monotonic() + seconds
    while time.monotonic() < end and not (first and leaks):
        leaks += attempt()
        rounds += 1
    return leaks, rounds


@posix_opens
def test_a_symlink_swapped_in_while_tools_run_never_lets_them_out(swap_world):
    sandbox, outside = swap_world["sandbox"], swap_world["outside"]
    before = contents(outside)
    files, sales = file_tools(sandbox), sales_tools(sandbox.parent)  # both in data/input
    codes: set[str | None] = set()

    def attempt() -> list:
        leaks = []
        for name, arguments in CALLS:
            result = files.call(name, json.dumps(arguments))
            codes.add((result.get("error") or {}).get("code"))
            if RACE_CANARY in json.dumps(result, ensure_ascii=False):
                leaks.append((name, arguments, result))
        result = sales.call("analyze_csv", json.dumps({"relative_path": "real/sales.csv"}))
        codes.add((result.get("error") or {}).get("code"))
        if RACE_CANARY in json.dumps(result, ensure_ascii=False):
            leaks.append(("analyze_csv", result))
        return leaks

    with swapping(sandbox, outside):
        leaks, rounds = race(SECONDS, attempt)
    assert leaks == []
    assert contents(outside) == before  # nothing written, created or appended outside
    assert None in codes and "PATH_NOT_ALLOWED" in codes, codes  # the race was really on
    assert rounds > 50


@posix_opens
def test_the_race_catches_a_tool_that_checks_then_opens_by_path(swap_world):
    """The same swapper against a naive check-then-open: it does get out."""
    sandbox, outside = swap_world["sandbox"], swap_world["outside"]

    def attempt() -> list:
        try:
            target = (sandbox / "real" / "data.txt").resolve()
            if not target.is_relative_to(sandbox.resolve()):
                return []  # the check said no
            text = target.read_text(encoding="utf-8")
        except OSError:
            return []
        return [text] if RACE_CANARY in text else []

    with swapping(sandbox, outside):
        leaks, _ = race(20.0, attempt, first=True)  # usually found within 3 s
    assert leaks
