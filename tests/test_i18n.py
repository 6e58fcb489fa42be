"""Every message people read exists in Chinese and English, and is used.

The catalog (``agentlab/i18n.py``) is one dict of (Chinese, English) pairs.
These tests read the package's source (and its HTML templates) for
``tr("key", ...)`` calls, so a message added without its pair, or with
different placeholders, fails here.
"""

from __future__ import annotations

import ast
import errno
import json
import re
import ssl
from pathlib import Path

import pytest

import agentlab
from agentlab import OUTCOMES, STOP_REASONS, Budget, run_agent
from agentlab.clients import scripted
from agentlab.i18n import CATALOG, language, placeholders, set_language, tr
from agentlab.tools import sales_tools
from agentlab.tools.result import TOOL_ERROR_CLASSES

PACKAGE = Path(agentlab.__file__).parent
CJK = re.compile(r"[\u4e00-\u9fff]")
TEMPLATES = sorted(PACKAGE.rglob("templates/*.html"))  # Jinja2: strings in single quotes
# Keys looked up with a computed name: tr("term." + code); exercise texts by exercise id
# (tests/test_exercises.py checks each of those is reachable); a grading status, mark or
# its reason by its code (tests/ops/test_grade.py checks each of those exists)
DYNAMIC_PREFIXES = (
    "term.",
    "exercise.",
    "budget.kind.",
    "grade.status.",
    "grade.mark.",
    "grade.reason.",
)


def tr_calls_in_source() -> set[str]:
    """The keys of every ``tr("literal", ...)`` call in the package."""
    keys = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "tr"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                keys.add(node.args[0].value)
    for path in TEMPLATES:
        keys.update(re.findall(r"\btr\('([^']+)'", path.read_text(encoding="utf-8")))
    return keys


def strings_in_source() -> set[str]:
    """Every string literal outside the catalog (keys kept in tables, e.g. report's
    columns, or i18n.OS_REASONS)."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path.name == "i18n.py":  # the catalog's own keys do not count as uses
            tree.body = [n for n in tree.body if "CATALOG" not in ast.unparse(n)[:30]]
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    for path in TEMPLATES:
        found.update(re.findall(r"'([^'\n]*)'", path.read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize("key", sorted(CATALOG))
def test_every_message_has_both_languages_with_the_same_placeholders(key):
    zh, en = CATALOG[key]
    assert zh.strip() and en.strip()
    assert placeholders(zh) == placeholders(en), key
    if CJK.search(en):  # English must not quote Chinese, except sample tasks
        assert "e.g." in en or "例如" in zh, key


def test_chinese_messages_are_chinese():
    not_chinese = [k for k, (zh, en) in CATALOG.items() if not CJK.search(zh) and zh == en]
    # only pure punctuation/format templates may be the same in both languages
    assert all(re.fullmatch(r"[{}a-z_ .:,;()|\-\[\]…/0-9A-Z]*", CATALOG[k][0]) for k in not_chinese)


def test_every_key_used_exists_and_every_key_is_used():
    assert tr_calls_in_source() - set(CATALOG) == set(), "tr() of a key the catalog lacks"
    used = strings_in_source() | tr_calls_in_source()  # i18n.py itself uses a few
    unused = {k for k in set(CATALOG) - used if not k.startswith(DYNAMIC_PREFIXES)}
    assert unused == set(), "catalog entries nothing looks up"


def test_every_code_has_a_meaning_in_the_glossary():
    codes = set(OUTCOMES) | set(STOP_REASONS) | {"decide", "tool", "complete"}
    codes |= set(TOOL_ERROR_CLASSES.values()) | {"invalid_input"}
    assert {f"term.{c}" for c in codes} <= set(CATALOG)


def test_chinese_by_default_english_behind_one_switch(monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "")  # so that set_language's change is undone after
    assert language() == "zh"

    def warning() -> str:
        result = run_agent(
            "分析 data/input/sales.csv",
            client=scripted("never_stops"),
            tools=sales_tools(),
            budget=Budget(max_steps=1),
            trace_dir=False,
        )
        return result.warnings[-1]

    assert warning() == "达到步数上限 max_steps=1，仍未得到最终回答"
    set_language("en")  # the function sets the environment variable children inherit
    assert language() == "en"
    assert warning() == "reached the step cap max_steps=1 without a final answer"
    assert tr("guard.max_steps", cap=1) == warning()
    with pytest.raises(ValueError):
        set_language("fr")


def test_why_a_file_failed_is_said_in_the_course_language(tmp_path):
    from agentlab.i18n import reason

    with pytest.raises(OSError) as missing:
        (tmp_path / "nope.txt").read_text()
    with pytest.raises(OSError) as folder:
        tmp_path.read_text()
    with pytest.raises(ValueError) as broken:
        json.loads('{"a": 1,\n  oops}')
    assert reason(missing.value) == "文件或文件夹不存在"
    assert reason(folder.value) == "这是一个文件夹，不是文件"
    assert reason(broken.value) == "不是合法的 JSON（第 2 行第 3 列）"
    assert reason(OSError(errno.EXDEV, "Invalid cross-device link")) == "Invalid cross-device link"
    set_language("en")
    try:
        assert reason(missing.value) == "no such file or directory"
    finally:
        set_language("zh")


@pytest.mark.parametrize(
    "error, key",
    [
        (ConnectionRefusedError(10061, "No connection could be made"), "os.refused"),  # WSA
        (ConnectionResetError(10054, "An existing connection was forcibly closed"), "os.reset"),
        (FileNotFoundError(3, "The system cannot find the path specified"), "os.not_found"),
        (PermissionError(5, "Access is denied"), "os.permission"),  # Windows' own codes
        (IsADirectoryError("a folder"), "os.is_a_folder"),  # no errno at all
        (NotADirectoryError(267, "The directory name is invalid"), "os.not_a_folder"),
        (OSError(errno.ENOSPC, "No space left on device"), "os.disk_full"),  # no class: errno
        (OSError(errno.EHOSTUNREACH, "No route to host"), "os.no_route"),
        (ConnectionAbortedError(10053, "An established connection was aborted"), "os.aborted"),
        (TimeoutError(10060, "A connection attempt failed"), "os.timed_out"),  # WSAETIMEDOUT
    ],
    ids=[
        "refused",
        "reset",
        "not-found",
        "permission",
        "folder",
        "not-folder",
        "full",
        "route",
        "aborted",
        "timed-out",
    ],  # fmt: skip
)
def test_an_os_error_is_named_by_its_class_whatever_its_code(error, key):
    """Windows gives a refused connection errno 10061 (WSAECONNREFUSED), not
    ECONNREFUSED; Python still raises ConnectionRefusedError. Constructed errors."""
    from agentlab.i18n import reason

    assert reason(error) == tr(key)


def test_an_unreachable_model_is_named_by_the_os_error_under_it():
    """What the SDK raises over a refused connection on Windows (constructed)."""
    import httpx2
    import openai

    from agentlab.model.failures import failure_from

    request = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    try:
        try:
            raise ConnectionRefusedError(10061, "No connection could be made")
        except OSError as refused:
            raise openai.APIConnectionError(request=request) from refused
    except openai.APIConnectionError as exc:
        failure = failure_from(exc)
    assert failure.message == tr("model.unreachable", error=tr("os.refused"))


def test_a_tls_failure_is_not_mistaken_for_a_file_error():
    """ssl.SSLError is an OSError whose errno is an SSL code (1 would read "permission")."""
    from agentlab.i18n import reason

    failure = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] verify failed")
    assert reason(failure).startswith(tr("os.tls", detail="")) and "CERTIFICATE" in reason(failure)


# "1 steps", "1 times" ... but not "max_steps - 1 times", a formula
ONE_OF = re.compile(
    r"(?<!- )\b1 (?:model |tool )?(?:steps|times|numbers|requests|calls|variables)\b"
)


COUNTS_OF_ONE = [
    ("guard.repeat_hint", "before"),  # Budget(max_repeats=2): refused at the 2nd call
    ("guard.no_progress", "steps"),  # Budget(max_no_progress=1)
    ("exercise.01-history.count", "got"),  # one number for a three-request task
    ("exercise.loop.too_few_requests", "got"),
    ("exercise.loop.one_short_of_cap", "got"),  # range(1, 2) with max_steps=2
    ("exercise.02-capped-loop.ending_max_steps", "cap"),  # the "cap of 1" scenario
    ("exercise.04-done-when.run", "steps"),  # a check that accepts the claim at step 1
    ("replay.cli_matched", "n"),  # a recording of a run answered at once
    ("doctor.env.ok", "n"),  # a .env holding only OLLAMA_MODEL
    ("provider.cut_off_calls", "n"),  # a reply cut off inside its only call
]


@pytest.mark.parametrize("key, one", COUNTS_OF_ONE)
def test_english_counts_of_one_are_not_plural(key, one, monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    fields = {name: 3 for name in placeholders(CATALOG[key][1])}
    shown = tr(key, **{**fields, one: 1})
    assert not ONE_OF.search(shown), shown


# "none of its 1 tool call", "1 个工具调用都": "all of them" said of a single one
ALL_OF_ONE = {
    "en": re.compile(r"\bnone of (?:its |the )?1\b"),
    "zh": re.compile(r"\b1 个[^，。；（）]*都"),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("key, one", COUNTS_OF_ONE)
def test_a_count_of_one_is_not_called_all_of_them(key, one, lang, monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", lang)
    fields = {name: 3 for name in placeholders(CATALOG[key][1])}
    shown = tr(key, **{**fields, one: 1})
    assert not ALL_OF_ONE[lang].search(shown), shown
