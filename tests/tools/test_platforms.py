"""The sandbox's platform-dependent branches (``_platforms.py``), run here with the
platform faked.

- Where ``os.open`` takes no ``dir_fd`` (Windows), the tools open by path
  after the check: everything still works, and links leading out are still
  refused by the check.
- On Windows, names that mean something else there are refused: drive
  letters, UNC paths, ``name:stream``, device names (``CON``, ``nul.txt``).
  On POSIX those last two are ordinary file names.
- On POSIX, a link met while opening is refused even when the check said yes.
"""

from __future__ import annotations

import errno
import json
import os
import sys

import pytest

from agentlab.tools import file_tools, sales_tools, sandbox
from agentlab.tools.sandbox import link_refusal, open_inside, resolve_inside

from ..conftest import needs_symlinks

pytestmark = needs_symlinks  # the worlds these tests build have links in them


def call(registry, name, **arguments):
    return registry.call(name, json.dumps(arguments, ensure_ascii=False))


@pytest.fixture
def root(tmp_path):
    folder = tmp_path / "sandbox"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "meeting.md").write_text("TODO a\n", encoding="utf-8")
    (folder / "input").mkdir()
    (folder / "input" / "sales.csv").write_text("category,quantity,unit_price\nA,2,3\n", "utf-8")
    (tmp_path / "outside.txt").write_text("secret", encoding="utf-8")
    (folder / "out.md").symlink_to(tmp_path / "outside.txt")
    return folder


@pytest.fixture
def no_dir_fd(monkeypatch):
    monkeypatch.setattr(sandbox, "NOFOLLOW_OPENS", False)


@pytest.fixture
def windows(monkeypatch, no_dir_fd):
    monkeypatch.setattr("sys.platform", "win32")


def test_without_dir_fd_the_tools_open_by_path_after_the_check(root, no_dir_fd):
    tools = file_tools(root)
    assert call(tools, "read_text", rel_path="notes/meeting.md")["data"]["text"] == "TODO a\n"
    assert call(tools, "write_text", rel_path="new/deep/x.md", text="一")["status"] == "ok"
    assert call(tools, "append_text", rel_path="new/deep/x.md", text="二")["status"] == "ok"
    assert (root / "new" / "deep" / "x.md").read_text(encoding="utf-8") == "一二"
    assert call(tools, "list_dir")["data"]["files"] == [
        "input/sales.csv",
        "new/deep/x.md",
        "notes/meeting.md",
    ]
    assert call(tools, "read_text", rel_path="out.md")["error"]["code"] == "PATH_NOT_ALLOWED"
    assert call(tools, "read_text", rel_path="notes")["error"]["code"] == "FILE_NOT_FOUND"
    assert call(tools, "write_text", rel_path="notes", text="x")["error"]["code"] == "NOT_A_FILE"
    result = call(sales_tools(root), "analyze_csv", relative_path="sales.csv")
    assert result["data"]["total_revenue"] == 6


WINDOWS_ONLY = ["notes.md:hidden", "CON", "nul.txt", "notes/AUX", "com1.md", "LPT9", "con .md"]
EVERYWHERE = [
    "C:\\Windows\\win.ini",
    "C:/Windows/win.ini",
    "c:",
    "C:x",
    "\\\\server\\share\\x",
    "//server/share/x",
    "notes\\meeting.md",
    "\\etc\\passwd",
]


def test_windows_style_paths_are_refused_on_windows(root, windows):
    let_through = []
    for path in WINDOWS_ONLY + EVERYWHERE:
        for tool in ("read_text", "write_text", "list_dir"):
            arguments = {"rel_path": path, **({"text": "x"} if tool == "write_text" else {})}
            result = call(file_tools(root), tool, **arguments)
            if (result["error"] or {}).get("code") != "PATH_NOT_ALLOWED":
                let_through.append((path, tool, result))
    assert let_through == []
    assert sorted(p.name for p in root.iterdir()) == ["input", "notes", "out.md"]


def test_drive_letters_and_backslashes_are_refused_everywhere(root):
    results = {path: resolve_inside(root, path) for path in EVERYWHERE}
    assert [path for path, result in results.items() if not isinstance(result, dict)] == []
    assert {result["error"]["code"] for result in results.values()} == {"PATH_NOT_ALLOWED"}


@pytest.mark.skipif(os.name != "posix", reason="POSIX only")
def test_names_only_windows_minds_are_ordinary_files_on_posix(root):
    results = {
        path: call(file_tools(root), "write_text", rel_path=path, text="x") for path in WINDOWS_ONLY
    }
    assert {path: result for path, result in results.items() if result["status"] != "ok"} == {}


def test_ordinary_names_that_look_like_devices_are_fine_on_windows(root, windows):
    tools = file_tools(root)
    for name in ("console.md", "nullable.txt", "com10.md", "a.b.md"):
        assert call(tools, "write_text", rel_path=name, text="x")["status"] == "ok", name


@pytest.mark.skipif(not sandbox.NOFOLLOW_OPENS, reason="POSIX only")
def test_a_link_met_while_opening_is_refused_even_if_the_check_said_yes(root, tmp_path):
    checked = resolve_inside(root, "notes/meeting.md")  # the check: inside
    (root / "notes").rename(root / "notes.away")  # ... then a link takes the folder's place
    (root / "notes").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(OSError) as met:
        open_inside(root, checked)
    assert met.value.errno == errno.ELOOP
    assert link_refusal(met.value, "notes/meeting.md")["error"]["code"] == "PATH_NOT_ALLOWED"
    (root / "meeting.md").symlink_to(tmp_path / "outside.txt")
    with pytest.raises(OSError) as met:  # the last component too
        open_inside(root, root.resolve() / "meeting.md")
    assert met.value.errno == errno.ELOOP
    for mode in ("w", "a"):  # and a folder to be created
        with pytest.raises(OSError):
            open_inside(root, root.resolve() / "notes" / "new.md", mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["outside.txt", "sandbox"]


@pytest.mark.skipif(sys.platform == "win32", reason="Windows opens by path after the check")
def test_posix_opens_every_part_of_a_path_without_following_links():
    """The second line of defence the race tests rely on: they skip when it is off,
    so its absence must fail here rather than pass there unseen."""
    assert sandbox.NOFOLLOW_OPENS
