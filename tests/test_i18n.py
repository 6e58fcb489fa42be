"""Messages are data: every one exists in Chinese and English, with the same fields,
and is looked up somewhere; Python modules hold no Chinese text of their own.

The catalogs are ``agentlab/locale/<lang>.toml`` (read by ``agentlab/i18n.py``) and
``agentlab/course/exercises/locale/<lang>.toml`` (the exercises' texts). The lints
read the package's source (and its HTML templates) for the keys it looks up; each
is one test that lists every offender.
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
from agentlab.course.exercises.texts import TEXTS, UNITS
from agentlab.i18n import (
    CATALOG,
    LANGUAGES,
    PLURAL_CATEGORIES,
    Catalog,
    language,
    placeholders,
    plural_category,
    set_language,
    tr,
)
from agentlab.tools import sales_tools
from agentlab.tools.result import TOOL_ERROR_CLASSES

PACKAGE = Path(agentlab.__file__).parent
CATALOGS = {"core": CATALOG, "exercises": TEXTS, "units": UNITS}
TEMPLATES = sorted(PACKAGE.rglob("templates/*.html"))  # Jinja2: strings in single quotes
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")

# Keys in the catalog before the code that looks them up, and why (none today).
NOT_YET_LOOKED_UP: dict[str, str] = {}
# Chinese text a Python module may hold, by module, and why.
ALLOWED_CHINESE = {
    "i18n.py": "the loader: printable_output() tries whether a stream can print 中文",
    "clients/real.py": "'你的key' is a placeholder people leave in a copied .env: matched in input",
    "loop/context.py": "words marking a key line in a tool's output (错误, 失败): matched in data",
    "ops/doctor.py": "the glyphs the CJK font check draws, not a message",
    "clients/behaviours.py:todo_clerk": "chapter 01 prints its source (inspect.getsource)",
    "loop/minimal.py": "chapter 01's loop imports nothing of agentlab: its prompt is its own",
    **dict.fromkeys(
        [f"course/exercises/ch0{n}.py" for n in range(1, 5)] + ["course/exercises/loops.py"],
        "the reference answers, written as a student's notebook cell would be, and scenario "
        "data (tasks and replies of the exercises' scripted models)",
    ),
}


def sources() -> dict[str, ast.Module]:
    """Every module of the package, parsed, by its path inside the package."""
    return {
        path.relative_to(PACKAGE).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes in ``tree`` (attribute docstrings included)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    }


def strings(tree: ast.Module) -> list[ast.Constant]:
    """The string literals of ``tree`` that are not docstrings (f-string parts included)."""
    skip = docstrings(tree)
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
    ]


def computed_keys(tree: ast.Module) -> list[re.Pattern]:
    """Keys built at run time, as patterns: ``f"term.{code}"``, ``"term." + code``."""
    patterns = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = node.values
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            parts = [node.left, node.right]
        else:
            continue
        head = parts[0].value if isinstance(parts[0], ast.Constant) else None
        if isinstance(head, str) and re.fullmatch(r"[a-z_]+\.[\w.-]*", head):
            patterns.append(
                re.compile(
                    "".join(
                        re.escape(p.value) if isinstance(p, ast.Constant) else "[^.]+"
                        for p in parts
                    )
                )
            )
    return patterns


def fields(message: str | dict[str, str]) -> set[str]:
    """The fields a message fills in (a plural table: those of all its forms)."""
    if isinstance(message, str):
        return placeholders(message)
    return set().union(*(placeholders(v) for k, v in message.items() if k != "count"))


def texts(message: str | dict[str, str]) -> list[str]:
    """The templates of a message (a plural table: each form)."""
    if isinstance(message, str):
        return [message]
    return [v for k, v in message.items() if k != "count"]


def test_both_languages_hold_the_same_messages_with_the_same_fields():
    offenders = []
    for name, catalog in CATALOGS.items():
        zh, en = catalog.messages("zh"), catalog.messages("en")
        offenders += [f"{name}: {key} only in zh" for key in zh.keys() - en.keys()]
        offenders += [f"{name}: {key} only in en" for key in en.keys() - zh.keys()]
        for key in zh.keys() & en.keys():
            if fields(zh[key]) != fields(en[key]):
                offenders.append(f"{name}: {key} fills {fields(zh[key])} / {fields(en[key])}")
            if not all(t.strip() for t in texts(zh[key]) + texts(en[key])):
                offenders.append(f"{name}: {key} is empty")
            # English does not quote Chinese, except a sample (e.g. a task to type)
            if any(CJK.search(t) for t in texts(en[key])) and "例如" not in str(zh[key]):
                if not any("e.g." in t for t in texts(en[key])):
                    offenders.append(f"{name}: {key} has Chinese in English")
    assert offenders == [], "\n".join(offenders)


def test_chinese_messages_are_chinese():
    """A Chinese message with no Chinese in it is punctuation or a format, the same in
    English (``list.sep`` is not: 、 against ", ")."""
    offenders = [
        key
        for catalog in CATALOGS.values()
        for key, zh in catalog.messages("zh").items()
        if not CJK.search(str(zh))
        and zh == catalog.messages("en")[key]
        and not re.fullmatch(r"[{}a-z_ .:,;()|\-\[\]…/0-9A-Z]*", str(zh))
    ]
    assert offenders == [], "\n".join(offenders)


def test_every_key_looked_up_exists_and_every_key_is_looked_up():
    """Keys are found as string literals (a ``tr("...")`` call, a table of keys, a
    template's ``tr('...')``) or as keys built from a literal head (``f"term.{code}"``);
    exercise texts (``exercise.*``) live in the exercises' catalogs (the shared one and
    the units'), every other key in the core one."""
    core, exercise = CATALOG.messages("zh"), TEXTS.messages("zh") | UNITS.messages("zh")
    literals, patterns, looked_up = set(), [], set()
    for tree in sources().values():
        literals |= {node.value for node in strings(tree)}
        patterns += computed_keys(tree)
        looked_up |= {
            node.args[0].value
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "tr"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        }
    for path in TEMPLATES:
        template = path.read_text(encoding="utf-8")
        literals |= set(re.findall(r"'([^'\n]*)'", template))
        looked_up |= set(re.findall(r"\btr\('([^']+)'", template))
    offenders = [f"{key}: not in any catalog" for key in looked_up - core.keys() - exercise.keys()]
    offenders += [
        f"{key}: an exercise text in the core catalog"
        for key in core
        if key.startswith("exercise.")
    ]
    offenders += [
        f"{key}: not an exercise text" for key in exercise if not key.startswith("exercise.")
    ]
    unused = {
        key
        for key in [*core, *exercise]
        if key not in literals and not any(p.fullmatch(key) for p in patterns)
    }
    offenders += [f"{key}: nothing looks it up" for key in unused - NOT_YET_LOOKED_UP.keys()]
    offenders += [f"{key}: looked up now" for key in NOT_YET_LOOKED_UP.keys() - unused]
    assert offenders == [], "\n".join(offenders)


def test_plural_tables_have_the_forms_of_their_language():
    """A plural table names its count field and has exactly the language's CLDR
    categories; no English text works around a count with "(s)"."""
    offenders = []
    works_around = re.compile(r"\{\w+\}(?: [\w=-]+){0,3}\(s\)")
    for name, catalog in CATALOGS.items():
        for lang in LANGUAGES:
            for key, message in catalog.messages(lang).items():
                if isinstance(message, dict):
                    forms = set(message) - {"count"}
                    if forms != set(PLURAL_CATEGORIES[lang]):
                        offenders.append(f"{name}/{lang}: {key} has forms {sorted(forms)}")
                    if message.get("count") not in fields(message):
                        offenders.append(f"{name}/{lang}: {key} counts {message.get('count')!r}")
                elif lang == "en" and works_around.search(message):
                    offenders.append(f"{name}/{lang}: {key} says {message!r}")
    assert offenders == [], "\n".join(offenders)


def test_a_count_picks_the_form_of_its_plural_category(tmp_path, monkeypatch):
    """CLDR: English 1 is ``one``, 0, 2 and 21 are ``other``; Chinese is always ``other``."""
    assert [plural_category("en", n) for n in (0, 1, 2, 21)] == ["other", "one", "other", "other"]
    assert {plural_category("zh", n) for n in (0, 1, 2)} == {"other"}
    (tmp_path / "en.toml").write_text(
        '[run]\nsteps.count = "n"\nsteps.one = "{n} step"\nsteps.other = "{n} steps"\n',
        encoding="utf-8",
    )
    (tmp_path / "zh.toml").write_text('[run]\nsteps = "{n} 步"\n', encoding="utf-8")
    catalog = Catalog(tmp_path)
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert [catalog.tr("run.steps", n=n) for n in (0, 1, 2)] == ["0 steps", "1 step", "2 steps"]
    monkeypatch.setenv("AGENTLAB_LANG", "zh")
    assert catalog.tr("run.steps", n=1) == "1 步"
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert tr("guard.no_progress", steps=1, where="x") != tr(
        "guard.no_progress", steps=2, where="x"
    )


def test_no_chinese_text_in_python_outside_the_catalogs():
    """Everything a person or the model reads is in the catalogs; Chinese left in a
    module is an offender unless ALLOWED_CHINESE names the module (or ``module:function``)
    and says why (docstrings and comments do not count). An entry nothing needs is one too."""
    found: dict[str, list[str]] = {}  # where -> "line: text"
    for path, tree in sources().items():
        for top in tree.body:
            where = f"{path}:{top.name}" if hasattr(top, "name") else path
            for node in strings(ast.Module(body=[top], type_ignores=[])):
                if CJK.search(node.value):
                    found.setdefault(where, []).append(f"{node.lineno}: {node.value[:40]!r}")
    allowed = [w for w in found if w in ALLOWED_CHINESE or w.split(":")[0] in ALLOWED_CHINESE]
    offenders = [f"{w}:{text}" for w in found if w not in allowed for text in found[w]]
    offenders += [
        f"{entry}: allowed, but holds no Chinese"
        for entry in ALLOWED_CHINESE
        if not any(w == entry or w.split(":")[0] == entry for w in allowed)
    ]
    assert offenders == [], "\n".join(offenders)


def test_every_code_has_a_meaning_in_the_glossary():
    codes = set(OUTCOMES) | set(STOP_REASONS) | {"decide", "tool", "complete"}
    codes |= set(TOOL_ERROR_CLASSES.values()) | {"invalid_input"}
    assert {f"term.{c}" for c in codes} - set(CATALOG.messages("zh")) == set()


def test_chapter_01_gives_the_words_before_it_asks_for_predictions_in_them():
    """Chapter 01 asks for outcomes and stop reasons before chapter 02's generated glossary:
    its own table, above its first prediction, has a row for every code with the catalog's
    meaning, so the two never disagree."""
    notebook = PACKAGE.parent / "notebooks" / "01_agent_loop.ipynb"
    cells = ["".join(c["source"]) for c in json.loads(notebook.read_text("utf-8"))["cells"]]
    first = next(i for i, text in enumerate(cells) if re.match(r"### 练习 \S+-predict-", text))
    rows = [line for text in cells[:first] for line in text.splitlines() if line.startswith("|")]
    meanings = CATALOG.messages("zh")
    missing = [
        code
        for code in dict.fromkeys((*OUTCOMES, *STOP_REASONS))
        if not any(f"`{code}`" in row and meanings[f"term.{code}"] in row for row in rows)
    ]
    assert missing == [], missing


def test_the_catalogs_are_read_on_first_use_not_at_import():
    import subprocess
    import sys

    code = "import agentlab, agentlab.i18n as i; print(i._read.cache_info().currsize)"
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert shown.stdout.strip() == "0", shown


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


def test_what_the_model_reads_follows_the_switch(monkeypatch):
    """The system prompt, the tool descriptions and the scripted models' replies speak
    the run's language: an English run talks to the model in one language."""
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    described = sales_tools().schemas()[0]["function"]["description"]
    result = run_agent(
        "analyse data/input/sales.csv",
        client=scripted("honest_analyst"),
        tools=sales_tools(),
        trace_dir=False,
    )
    assert not CJK.search(described) and not CJK.search(tr("loop.system_prompt"))
    assert result.answer.startswith("From analyze_csv's figures over 5 rows of data"), result.answer
    assert result.messages[0] == {"role": "system", "content": tr("loop.system_prompt")}


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
