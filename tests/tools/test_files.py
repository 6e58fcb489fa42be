"""The file tools: they work inside the sandbox and nothing escapes it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentlab.i18n import tr
from agentlab.tools import file_tools, sandbox_copy
from agentlab.tools import sandbox as sandbox_module
from agentlab.tools.sales import COURSE_DATA_DIR
from agentlab.tools.sandbox import MAX_PATH_CHARS, MAX_PATH_PARTS

from ..conftest import needs_symlinks


@pytest.fixture
def sandbox(tmp_path):
    root = tmp_path / "sandbox"
    root.mkdir()
    (root / "meeting.md").write_text("TODO a\n结论 b\nTODO c\n", encoding="utf-8")
    (tmp_path / "outside.txt").write_text("secret", encoding="utf-8")
    return root


def call(registry, name, **arguments):
    return registry.call(name, json.dumps(arguments, ensure_ascii=False))


def test_list_read_write_append(sandbox):
    tools = file_tools(sandbox)
    assert tools.names == ["list_dir", "read_text", "write_text", "append_text"]
    assert call(tools, "list_dir")["data"]["files"] == ["meeting.md"]
    assert call(tools, "read_text", rel_path="meeting.md")["data"]["text"].startswith("TODO a")
    assert call(tools, "write_text", rel_path="out/todo.md", text="一\n")["status"] == "ok"
    assert (
        call(tools, "append_text", rel_path="out/todo.md", text="二\n")["data"]["action"]
        == "appended"
    )
    assert (sandbox / "out" / "todo.md").read_text(encoding="utf-8") == "一\n二\n"
    assert call(tools, "list_dir")["data"]["files"] == ["meeting.md", "out/todo.md"]
    assert call(tools, "list_dir", rel_path="out")["data"]["files"] == ["out/todo.md"]


def test_results_show_no_absolute_paths(sandbox):
    tools = file_tools(sandbox)
    results = [
        call(tools, "list_dir"),
        call(tools, "read_text", rel_path="meeting.md"),
        call(tools, "read_text", rel_path="nope.md"),
        call(tools, "write_text", rel_path="x.md", text="x"),
    ]
    assert str(sandbox.parent) not in json.dumps(results, ensure_ascii=False)


PAYLOADS = [
    "../outside.txt",
    "a/../../outside.txt",
    "/etc/passwd",
    "..\\outside.txt",
    "sub\\..\\..\\outside.txt",
    "meeting.md\x00.txt",
    "C:/Windows/win.ini",
    "",
]


def test_every_payload_is_refused_by_every_tool(sandbox):
    before = sorted(p.name for p in sandbox.parent.iterdir())
    tools, let_through = file_tools(sandbox), []
    for tool in ("read_text", "write_text", "append_text", "list_dir"):
        for path in PAYLOADS:
            arguments = {"rel_path": path}
            if tool in ("write_text", "append_text"):
                arguments["text"] = "pwned"
            result = call(tools, tool, **arguments)
            if tool == "list_dir" and path == "":
                refused = result["status"] == "ok"  # "" means the sandbox root itself
            else:
                refused = (result["error"] or {}).get("code") == "PATH_NOT_ALLOWED"
            if not refused:
                let_through.append((tool, path, result))
    assert let_through == []
    assert sorted(p.name for p in sandbox.parent.iterdir()) == before
    assert (sandbox.parent / "outside.txt").read_text(encoding="utf-8") == "secret"


@needs_symlinks
def test_symlinks_leading_out_are_refused(sandbox):
    os.symlink(sandbox.parent / "outside.txt", sandbox / "link.txt")
    os.symlink(sandbox.parent, sandbox / "up")
    os.symlink(sandbox.parent / "new.txt", sandbox / "dangling.txt")
    tools = file_tools(sandbox)
    assert call(tools, "read_text", rel_path="link.txt")["error"]["code"] == "PATH_NOT_ALLOWED"
    assert (
        call(tools, "read_text", rel_path="up/outside.txt")["error"]["code"] == "PATH_NOT_ALLOWED"
    )
    assert (
        call(tools, "write_text", rel_path="up/x.txt", text="x")["error"]["code"]
        == "PATH_NOT_ALLOWED"
    )
    assert (
        call(tools, "write_text", rel_path="dangling.txt", text="x")["error"]["code"]
        == "PATH_NOT_ALLOWED"
    )
    assert not (sandbox.parent / "new.txt").exists()
    assert "link.txt" not in call(tools, "list_dir")["data"]["files"]


def test_missing_files_and_folders(sandbox):
    tools = file_tools(sandbox)
    assert call(tools, "read_text", rel_path="nope.md")["error"]["code"] == "FILE_NOT_FOUND"
    assert call(tools, "list_dir", rel_path="nope")["error"]["code"] == "FILE_NOT_FOUND"
    assert call(tools, "write_text", rel_path=".", text="x")["error"]["code"] == "NOT_A_FILE"


def test_a_path_ending_in_a_slash_names_a_folder_not_a_file(sandbox):
    """Path("new/") is Path("new"): without a check, write_text("new/") made a file."""
    tools = file_tools(sandbox)
    for tool in ("write_text", "append_text"):
        wrote = call(tools, tool, rel_path="new/", text="x")
        assert wrote["error"]["code"] == "NOT_A_FILE", wrote
    assert sorted(p.name for p in sandbox.iterdir()) == ["meeting.md"]
    read = call(tools, "read_text", rel_path="meeting.md/")
    assert read["error"]["code"] == "FILE_NOT_FOUND", read


def test_large_reads_are_capped_with_a_marker(sandbox):
    (sandbox / "big.txt").write_text("x" * 10_000, encoding="utf-8")
    data = call(file_tools(sandbox, max_read_chars=100), "read_text", rel_path="big.txt")["data"]
    assert data["truncated"] is True and data["chars"] == 10_000
    assert data["text"].startswith("x" * 100)
    assert data["text"].endswith(tr("files.shown_part", shown=100, total=10000))
    assert len(data["text"]) < 200


def test_non_utf8_is_an_error(sandbox):
    (sandbox / "gbk.txt").write_bytes("中文".encode("gbk"))
    assert call(file_tools(sandbox), "read_text", rel_path="gbk.txt")["error"]["code"] == "NOT_UTF8"


def test_sandbox_copy_is_fresh_and_leaves_the_course_data_alone():
    original = (COURSE_DATA_DIR / "sandbox" / "meeting.md").read_bytes()
    first, second = sandbox_copy(), sandbox_copy()
    assert first != second
    call(file_tools(first), "write_text", rel_path="meeting.md", text="changed")
    assert (second / "meeting.md").read_bytes() == original
    assert (COURSE_DATA_DIR / "sandbox" / "meeting.md").read_bytes() == original
    assert not (COURSE_DATA_DIR / "sandbox" / "todo-list.md").exists()


def test_unknown_names_and_missing_sandbox_are_errors(tmp_path):
    with pytest.raises(ValueError):
        file_tools(tmp_path, names=("rm",))
    with pytest.raises(ValueError):
        file_tools(tmp_path / "nope")


path_text = st.lists(
    st.sampled_from(list("ab./\\\x00:~ 中") + ["..", "../", "/.."]), max_size=12
).map("".join)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(path=path_text)
def test_nothing_outside_is_ever_created(sandbox, path):
    """Whatever path a model sends, writes land inside the sandbox or nowhere."""
    outside_before = sorted(str(p) for p in sandbox.parent.iterdir())
    result = call(file_tools(sandbox), "write_text", rel_path=path, text="x")
    assert sorted(str(p) for p in sandbox.parent.iterdir()) == outside_before
    if result["status"] == "ok":
        written = (sandbox / path).resolve()
        assert written.is_relative_to(sandbox.resolve()) and written.is_file()
    else:
        assert result["error"]["code"] in {"PATH_NOT_ALLOWED", "NOT_A_FILE", "WRITE_FAILED"}
    assert Path(sandbox.parent / "outside.txt").read_text(encoding="utf-8") == "secret"


def test_a_lone_surrogate_in_a_path_or_text_is_refused_not_raised(sandbox):
    """A model's JSON may hold "\\ud800": no UTF-8 form, so no file name and no text."""
    tools = file_tools(sandbox)
    for name, text in (("write_text", ', "text": "x"'), ("read_text", ""), ("list_dir", "")):
        result = tools.call(name, '{"rel_path": "\\ud800.md"' + text + "}")
        assert result["error"]["code"] == "PATH_NOT_ALLOWED", name
        assert tr("sandbox.not_text") in result["error"]["message"]
    result = tools.call("write_text", '{"rel_path": "a.md", "text": "好\\ud83d"}')
    assert result["error"] == {"code": "INVALID_ARGUMENTS", "message": tr("files.text_not_text")}
    assert not (sandbox / "a.md").exists()


@pytest.mark.skipif(os.name == "nt", reason="Windows file names are UTF-16, never undecodable")
def test_a_file_name_that_is_not_utf8_is_left_out_of_the_listing_and_said_so(sandbox):
    """What unzipping a Windows (GBK) archive leaves: Python reads such a name with
    lone surrogates, which no tool call could name back."""
    (sandbox / os.fsdecode("会议纪要.md".encode("gbk"))).write_text("y", encoding="utf-8")
    data = call(file_tools(sandbox), "list_dir")["data"]
    assert data == {"files": ["meeting.md"], "not_listed": tr("files.names_not_text", n=1)}


def test_a_name_too_long_for_the_disk_is_a_structured_error_without_the_sandbox_path(sandbox):
    tools, name = file_tools(sandbox), "n" * 300 + ".md"
    for tool in ("write_text", "append_text", "list_dir", "read_text"):
        result = call(tools, tool, rel_path=name, text="x")
        assert result["status"] == "error", tool
        assert result["error"]["code"] != "TOOL_EXCEPTION", tool
        assert str(sandbox) not in json.dumps(result, ensure_ascii=False), tool


def test_misused_file_tools_say_so_in_the_course_language(tmp_path):
    with pytest.raises(ValueError, match="不是一个目录"):
        file_tools(tmp_path / "missing")
    with pytest.raises(ValueError, match="没有这些文件工具：rm"):
        file_tools(tmp_path, names=("rm",))


def test_a_sandbox_copy_is_removed_when_the_process_exits():
    code = "from agentlab.tools import sandbox_copy; print(sandbox_copy())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    copy = Path(done.stdout.strip())
    assert copy.name == "sandbox" and not copy.parent.exists()


@pytest.mark.parametrize(
    "path, key",
    [("input/../meeting.md", "sandbox.dotdot"), ("   ", "sandbox.empty")],
    ids=["dotdot-inside", "blank"],
)
def test_a_path_is_refused_for_its_shape_even_when_it_would_stay_inside(sandbox, path, key):
    """``..`` anywhere and a blank name are refused before any lookup: the message
    says which rule, and the model learns the rule, not a lucky escape check."""
    result = call(file_tools(sandbox), "read_text", rel_path=path)
    assert result["error"]["code"] == "PATH_NOT_ALLOWED"
    assert tr(key) in result["error"]["message"]


# -- what the security review found (review9) -------------------------------------


def test_env_files_hold_keys_and_no_tool_touches_them(sandbox):
    """A `.env` in the sandbox (a project folder used as one) holds the API key:
    no tool reads or writes it, and the refusal does not show it."""
    env = sandbox / ".env"
    env.write_text("DEEPSEEK_API_KEY=sk-LEAKCHECK-0123456789abcdef\n", encoding="utf-8")
    tools, touched = file_tools(sandbox), []
    for tool in ("read_text", "write_text", "append_text"):
        for path in (".env", "app/.env", ".ENV", ".env.local", "cfg/.Env.prod/x"):
            arguments = (
                {"rel_path": path} if tool == "read_text" else {"rel_path": path, "text": "x"}
            )
            result = call(tools, tool, **arguments)
            refused = (result["error"] or {}).get("code") == "PATH_NOT_ALLOWED"
            if (
                not refused
                or ".env" not in result["error"]["message"]
                or "LEAKCHECK" in str(result)
            ):
                touched.append((tool, path, result))
    assert touched == []
    assert env.read_text(encoding="utf-8").endswith("abcdef\n")  # not overwritten


@needs_symlinks
def test_a_link_to_the_env_file_is_refused_too(sandbox):
    """`notes.md` pointing at `.env` is the same secret under an innocent name."""
    (sandbox / ".env").write_text("LLM_API_KEY=sk-LEAKCHECK-0123456789abcdef\n", encoding="utf-8")
    os.symlink(".env", sandbox / "notes.md")
    result = call(file_tools(sandbox), "read_text", rel_path="notes.md")
    assert result["error"]["code"] == "PATH_NOT_ALLOWED" and "LEAKCHECK" not in json.dumps(result)
    assert "env.example" not in tr("sandbox.secret_file")  # only .env and .env.* are meant
    (sandbox / "env.example").write_text("LLM_API_KEY=\n", encoding="utf-8")
    assert call(file_tools(sandbox), "read_text", rel_path="env.example")["status"] == "ok"


@needs_symlinks
def test_a_symlink_loop_is_refused_by_name_and_the_rest_still_lists(sandbox):
    """A link loop is PATH_NOT_ALLOWED (not a tool exception showing the sandbox's
    absolute path), and one loop does not break listing the other files."""
    os.symlink("loop", sandbox / "loop")
    os.symlink("b", sandbox / "a")
    os.symlink("a", sandbox / "b")
    tools = file_tools(sandbox)
    for name in ("loop", "a", "loop/x.txt"):
        result = call(tools, "read_text", rel_path=name)
        assert result["error"]["code"] == "PATH_NOT_ALLOWED", result
        assert str(sandbox) not in json.dumps(result, ensure_ascii=False)
    written = call(tools, "write_text", rel_path="loop", text="x")
    assert written["error"]["code"] == "PATH_NOT_ALLOWED"
    assert call(tools, "list_dir")["data"]["files"] == ["meeting.md"]


def test_a_huge_file_is_cut_without_being_held_in_memory(sandbox):
    """read_text keeps at most a block beyond what it shows, and still counts
    every character (a 16 MB file, sparse so it costs no disk)."""
    import tracemalloc

    with open(sandbox / "huge.txt", "wb") as handle:
        handle.write(b"head ")
        handle.truncate(16 * 1024 * 1024)
    tools = file_tools(sandbox, max_read_chars=100)
    tracemalloc.start()
    try:
        data = call(tools, "read_text", rel_path="huge.txt")["data"]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert data["chars"] == 16 * 1024 * 1024 and data["truncated"] is True
    assert data["text"].startswith("head ")
    assert peak < 4 * 1024 * 1024, peak  # the whole file as a str would be 16 MB and more


# -- the path limits at their edges (mutation audit) --------------------------------

TOO_LONG = tr("sandbox.too_long", chars=MAX_PATH_CHARS, parts=MAX_PATH_PARTS)


def path_of(chars: int) -> str:
    """A relative path of exactly ``chars`` characters, in folders of 99 characters."""
    folders, rest = divmod(chars, 100)
    return "/".join(["d" * 99] * folders + ["f" * rest])


def test_a_path_of_max_path_chars_is_accepted_and_one_character_more_is_refused(sandbox):
    """Paths are limited to MAX_PATH_CHARS characters, and that many is still allowed."""
    tools = file_tools(sandbox)
    longest, too_long = path_of(MAX_PATH_CHARS), path_of(MAX_PATH_CHARS + 1)
    assert (len(longest), len(too_long)) == (MAX_PATH_CHARS, MAX_PATH_CHARS + 1)
    assert len(too_long.split("/")) <= MAX_PATH_PARTS  # refused for its length alone
    assert call(tools, "write_text", rel_path=longest, text="x")["status"] == "ok"
    assert call(tools, "read_text", rel_path=longest)["data"]["text"] == "x"
    for result in (
        call(tools, "write_text", rel_path=too_long, text="x"),
        call(tools, "read_text", rel_path=too_long),
    ):
        assert result["error"]["code"] == "PATH_NOT_ALLOWED", result
        assert TOO_LONG in result["error"]["message"]


def test_a_path_max_path_parts_deep_is_accepted_and_one_level_more_is_refused(sandbox):
    """Paths are limited to MAX_PATH_PARTS names deep, and that deep is still allowed."""
    tools = file_tools(sandbox)
    deepest = "/".join(["d"] * (MAX_PATH_PARTS - 1) + ["f.md"])
    assert call(tools, "write_text", rel_path=deepest, text="x")["status"] == "ok"
    assert call(tools, "read_text", rel_path=deepest)["data"]["text"] == "x"
    result = call(tools, "write_text", rel_path="d/" + deepest, text="x")
    assert result["error"]["code"] == "PATH_NOT_ALLOWED"
    assert TOO_LONG in result["error"]["message"]
    assert not (sandbox / "d" / deepest).exists()


@pytest.mark.parametrize("opens", ["one folder at a time", "by path"])
@pytest.mark.parametrize("listed", ["", "d", "d/d/d"])
def test_list_dir_lists_only_files_the_tools_accept(sandbox, monkeypatch, opens, listed):
    """A file deeper than MAX_PATH_PARTS is left out of every listing: no tool could read it."""
    if opens == "by path":  # what Windows does (no dir_fd)
        monkeypatch.setattr(sandbox_module, "NOFOLLOW_OPENS", False)
    for depth in (MAX_PATH_PARTS, MAX_PATH_PARTS + 1):  # made by hand: no tool writes there
        folder = sandbox.joinpath(*["d"] * (depth - 1))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"at{depth}.md").write_text(str(depth), encoding="utf-8")
    tools = file_tools(sandbox)
    files = call(tools, "list_dir", rel_path=listed)["data"]["files"]
    deepest = "/".join(["d"] * (MAX_PATH_PARTS - 1) + [f"at{MAX_PATH_PARTS}.md"])
    assert [name for name in files if name.endswith(".md") and "/" in name] == [deepest]
    for name in files:
        assert call(tools, "read_text", rel_path=name)["status"] == "ok", name


@needs_symlinks
@pytest.mark.parametrize("opens", ["one folder at a time", "by path"])
def test_list_dir_leaves_out_env_files_and_links_to_them(sandbox, monkeypatch, opens):
    """A listing names only files a tool would open: not `.env`, `.env.local`,
    nor an innocent name that links to one (the model would only be refused)."""
    if opens == "by path":
        monkeypatch.setattr(sandbox_module, "NOFOLLOW_OPENS", False)
    (sandbox / ".env").write_text("LLM_API_KEY=sk-x\n", encoding="utf-8")
    (sandbox / "sub").mkdir()
    (sandbox / "sub" / ".env.local").write_text("LLM_API_KEY=sk-y\n", encoding="utf-8")
    os.symlink(".env", sandbox / "link.md")
    tools = file_tools(sandbox)
    files = call(tools, "list_dir")["data"]["files"]
    assert files == ["meeting.md"]
    assert call(tools, "list_dir", rel_path="sub")["data"]["files"] == []


@pytest.mark.parametrize("where", ["", "  ", None])
def test_no_sandbox_given_is_refused_not_read_as_the_current_folder(where):
    """``Path("")`` is the working folder: an empty setting must not open it to the model."""
    with pytest.raises(ValueError, match=re.escape(tr("files.sandbox_not_a_folder", path=where))):
        file_tools(where)


def test_one_tool_name_given_as_text_is_that_tool_not_its_letters(sandbox):
    assert file_tools(sandbox, names="read_text").names == ["read_text"]


def test_a_missing_folder_to_copy_is_named_in_the_course_language(tmp_path):
    with pytest.raises(
        ValueError, match=tr("files.sandbox_not_a_folder", path=str(tmp_path / "x"))
    ):
        sandbox_copy(tmp_path / "x")
