"""Shared fixtures: a private copy of the teaching data for every test."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import httpx2
import openai
import pytest
from hypothesis import settings

from agentlab.tools.sales import COURSE_DATA_DIR

# The same examples on every run, so `make test` cannot pass or fail by luck.
# HYPOTHESIS_PROFILE=explore searches afresh (what `make soak` does at scale).
settings.register_profile("course", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "course"))

REPO = Path(__file__).resolve().parents[1]
SEED_QUESTION = "分析 data/input/sales.csv，告诉我销售额最高的类别、各类别销售额和总销售额。"


def interrupted(
    args: list[str], busy: Callable[[IO[str]], Any], *, group: bool = False, **popen: Any
) -> tuple[int, str]:
    """Start ``args``; once ``busy`` has read from its stdout the sign that it is at
    work, press Ctrl-C (to its whole process group with ``group``, as a terminal
    does). Returns the exit code and stderr; the child never outlives a failed check."""
    child = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=group,  # its own process group, as a terminal's foreground job
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        **popen,
    )

    def press(signal_number: int) -> None:
        if group:
            os.killpg(child.pid, signal_number)
        else:
            child.send_signal(signal_number)

    try:
        busy(child.stdout)
        press(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            press(signal.SIGKILL)
            child.communicate()
    return child.returncode, err


def stderr_when_the_reader_leaves(args: list[str], **popen: Any) -> str:
    """What ``args`` writes on stderr when its stdout's reader goes away at once,
    as ``| head`` does once it has its lines."""
    child = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen)
    child.stdout.close()
    with child.stderr:
        err = child.stderr.read().decode("utf-8")
    child.wait(timeout=60)
    return err


def can_symlink() -> bool:
    """Windows lets a process create symbolic links only with Developer Mode on."""
    with tempfile.TemporaryDirectory() as folder:
        try:
            os.symlink(folder, Path(folder) / "link", target_is_directory=True)
        except (OSError, NotImplementedError):
            return False
    return True


needs_symlinks = pytest.mark.skipif(
    not can_symlink(), reason="no symbolic links here (Windows without Developer Mode)"
)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A copy of the course data (agentlab/data/) that a test may change freely."""
    copy = tmp_path / "data"
    shutil.copytree(COURSE_DATA_DIR, copy)
    return copy


def plain_client(handler: Callable[[httpx2.Request], httpx2.Response], **options) -> openai.OpenAI:
    """An ordinary ``openai.OpenAI`` (not one of ours) whose service is ``handler``."""
    options.setdefault("max_retries", 0)
    return openai.OpenAI(
        api_key="k",
        base_url="http://service.invalid/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        **options,
    )


def write_csv(data_dir: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = data_dir / "input" / name
    path.write_text(text, encoding=encoding)
    return path


def assert_well_formed(messages: list[dict]) -> None:
    """Every tool message answers exactly one earlier call, and every call is answered."""
    asked: list[str] = []
    answered: list[str] = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            assert call["id"], message
            asked.append(call["id"])
        if message["role"] == "tool":
            assert message["tool_call_id"] in asked, message
            answered.append(message["tool_call_id"])
    assert sorted(asked) == sorted(answered)
    assert len(set(asked)) == len(asked)


@pytest.fixture
def english(monkeypatch: pytest.MonkeyPatch) -> None:
    """Messages in English, for tests that check what a message says
    (both languages of every message are checked in test_i18n.py)."""
    monkeypatch.setenv("AGENTLAB_LANG", "en")


@pytest.fixture
def no_threads(monkeypatch: pytest.MonkeyPatch):
    """No thread can start here, as in Pyodide."""
    import threading

    from agentlab.deadline import threads_available

    def refuse_to_start(self) -> None:
        raise RuntimeError("can't start new thread")

    threads_available.cache_clear()
    monkeypatch.setattr(threading.Thread, "start", refuse_to_start)
    yield
    threads_available.cache_clear()
