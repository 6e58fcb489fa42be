"""A symlink swapped in between the check and the open must not let a tool out.

``resolve_inside`` checks a path, then the tool opens it. If a folder on
the way is replaced by a symlink to the outside *between* the two, a tool
that opens by path follows it. Here another process keeps swapping, as fast
as it can:

- ``sandbox/real/`` between a real folder and a symlink to ``outside/``;
- ``sandbox/note.txt`` between a real file and a symlink to the canary;

while the file tools and ``analyze_csv`` read, write, append and list
through those names. Nothing outside may ever be read (the canary text never
appears in a result) or written (the outside folder is the same after).

The sandbox's own folder is not swapped: it is what the developer chose, and
it is taken as it is on every call.

The swapper is a process, not a thread: a thread would only swap when the
tools' thread lets go of the GIL, which makes the race rare; a process swaps
in parallel, as an attacker would.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agentlab.tools import file_tools, sales_tools
from agentlab.tools.sandbox import NOFOLLOW_OPENS

CANARY = "CANARY-7f3a-outside-the-sandbox"
SECONDS = 3.0  # how long the tools run against the swapper

pytestmark = pytest.mark.skipif(
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


def fingerprint(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        if p.is_file()
        else "dir"
        for p in sorted(folder.rglob("*"))
    }


@pytest.fixture
def world(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "canary.txt").write_text(CANARY, encoding="utf-8")
    (outside / "data.txt").write_text(CANARY, encoding="utf-8")
    (outside / "sales.csv").write_text(
        f"category,quantity,unit_price\n{CANARY},1,1\n", encoding="utf-8"
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


def test_a_symlink_swapped_in_while_tools_run_never_lets_them_out(world):
    sandbox, outside = world["sandbox"], world["outside"]
    before = fingerprint(outside)
    files, sales = file_tools(sandbox), sales_tools(sandbox.parent)  # both in data/input
    codes: set[str | None] = set()

    def attempt() -> list:
        leaks = []
        for name, arguments in CALLS:
            result = files.call(name, json.dumps(arguments))
            codes.add((result.get("error") or {}).get("code"))
            if CANARY in json.dumps(result, ensure_ascii=False):
                leaks.append((name, arguments, result))
        result = sales.call("analyze_csv", json.dumps({"relative_path": "real/sales.csv"}))
        codes.add((result.get("error") or {}).get("code"))
        if CANARY in json.dumps(result, ensure_ascii=False):
            leaks.append(("analyze_csv", result))
        return leaks

    with swapping(sandbox, outside):
        leaks, rounds = race(SECONDS, attempt)
    assert leaks == []
    assert fingerprint(outside) == before  # nothing written, created or appended outside
    assert None in codes and "PATH_NOT_ALLOWED" in codes, codes  # the race was really on
    assert rounds > 50


def test_the_race_catches_a_tool_that_checks_then_opens_by_path(world):
    """The same swapper against a naive check-then-open: it does get out."""
    sandbox, outside = world["sandbox"], world["outside"]

    def attempt() -> list:
        try:
            target = (sandbox / "real" / "data.txt").resolve()
            if not target.is_relative_to(sandbox.resolve()):
                return []  # the check said no
            text = target.read_text(encoding="utf-8")
        except OSError:
            return []
        return [text] if CANARY in text else []

    with swapping(sandbox, outside):
        leaks, _ = race(20.0, attempt, first=True)  # usually found within 3 s
    assert leaks
