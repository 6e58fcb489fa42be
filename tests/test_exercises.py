"""The exercise checker: every check judges its reference, starter and wrong answers right,
never raises, says the same thing twice, and speaks English when asked.

Each exercise's verdicts on its own answers are computed once (``verdicts``)
and shared by the tests that look at them, so the whole file stays quick.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import gc
import json
import re
import subprocess
import sys
import threading
import time

import pytest

import agentlab.course.exercises as api
import agentlab.tools.files as library_module
from agentlab.course.exercises import CheckResult, check, exercises, hint, show
from agentlab.course.exercises.core import NOT_DONE, PASSED, WRONG, Exercise, Verdict, judge, passed
from agentlab.course.exercises.texts import TEXTS, tr
from agentlab.ops.exercises import main, starter_answer
from agentlab.tools import Tool

from .conftest import REPO, interrupted, stderr_when_the_reader_leaves

EXERCISES = exercises()
IDS = [e.id for e in EXERCISES]
CHAPTERS = ("01", "02", "03", "04", "05")


@pytest.fixture(autouse=True)
def quiet_runs(tmp_path_factory, monkeypatch):
    """Chinese by default, and traces of runs made by answers go to a temporary folder."""
    monkeypatch.delenv("AGENTLAB_LANG", raising=False)
    monkeypatch.setenv("AGENTLAB_RUNS_DIR", str(tmp_path_factory.getbasetemp() / "runs"))


@functools.cache
def verdicts(exercise_id: str) -> dict[str, object]:
    exercise = api.get(exercise_id)
    return {
        "reference": judge(exercise, exercise.reference),
        "starter": judge(exercise, starter_answer(exercise)),
        "wrong": [judge(exercise, bad.answer) for bad in exercise.wrong],
    }


def has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_every_chapter_has_at_least_five_exercises():
    assert len(IDS) == len(set(IDS)) >= 25
    for chapter in CHAPTERS:
        mine = exercises(chapter)
        assert len(mine) >= 5, chapter
        assert all(e.id.startswith(chapter + "-") for e in mine)
    assert {e.chapter for e in EXERCISES} == set(CHAPTERS)
    assert exercises(1) == exercises("01")


@pytest.mark.parametrize("exercise_id", IDS)
def test_the_reference_answer_passes(exercise_id):
    verdict = verdicts(exercise_id)["reference"]
    assert verdict.status == PASSED, verdict.detail


@pytest.mark.parametrize("exercise_id", IDS)
def test_the_starter_runs_quietly_and_is_not_done_yet(exercise_id, capsys):
    exercise = api.get(exercise_id)
    namespace: dict[str, object] = {}
    exec(exercise.starter, namespace)  # as the committed notebook cell would
    assert capsys.readouterr() == ("", "")
    assert exercise.answer_name in namespace
    verdict = verdicts(exercise_id)["starter"]
    assert verdict.status == NOT_DONE, verdict.detail
    assert api.render(verdict).startswith("还没完成：")
    if exercise.kind == "code":  # says what is still to write, and where the hint is
        assert exercise.title in verdict.detail and f'hint("{exercise.id}")' in verdict.detail


def test_a_finished_answer_calling_an_unfinished_helper_is_told_which_one():
    def pick_cap(summary, target):
        raise NotImplementedError("在这里写")

    def robust_cap(summaries, target):
        return pick_cap(summaries[0], target)

    verdict = judge(api.get("05-robust-cap"), robust_cap)
    assert verdict.status == NOT_DONE
    assert "pick_cap" in verdict.detail and "留余量" not in verdict.detail


def test_a_registered_tool_whose_body_is_the_starter_is_told_which_part_is_left():
    def add_append_text(registry, box):
        def append_text(rel_path, text):
            raise NotImplementedError("在这里写函数")

        text = {"type": "string"}
        schema = {"properties": {"rel_path": text, "text": text}, "required": ["rel_path", "text"]}
        registry.register(Tool("append_text", "追加文字", schema, append_text))

    verdict = judge(api.get("01-append-text"), add_append_text)
    assert verdict.status == NOT_DONE
    assert "已经注册好了，但函数体还是起始代码" in verdict.detail


@pytest.mark.parametrize("exercise_id", IDS)
def test_each_wrong_answer_fails_in_its_own_words(exercise_id):
    exercise = api.get(exercise_id)
    assert len(exercise.wrong) >= 2
    found = verdicts(exercise_id)["wrong"]
    for bad, verdict in zip(exercise.wrong, found, strict=True):
        assert verdict.status == WRONG, (bad.label, verdict.detail)
        assert api.render(verdict).startswith("不对：")
    details = [v.detail for v in found]
    assert len(set(details)) == len(details), details


def raises(*args, **kwargs):
    raise ValueError("boom")


def loops_forever(*args, **kwargs):
    while True:
        pass


def sleeps(*args, **kwargs):
    time.sleep(60)


def swallows_everything(*args, **kwargs):
    """The checker's own stop included: only a line tracer gets it out (core.py)."""
    while True:
        try:
            while True:
                pass
        except:  # noqa: E722
            pass


JUNK = {
    "None": None,
    "int": 42,
    "str": "x",
    "raises": raises,
    "loops": loops_forever,
    "sleeps": sleeps,
    "swallows": swallows_everything,
    "garbage": lambda *a, **k: object(),
    "class": type("Junk", (), {}),
}


@pytest.mark.parametrize("exercise_id", IDS)
def test_junk_answers_never_raise(exercise_id, capsys):
    for name, junk in JUNK.items():
        result = check(exercise_id, junk, time_limit_s=0.02)
        printed = capsys.readouterr()
        assert isinstance(result, CheckResult), name
        assert not result.passed, name
        assert printed.err == "", name
        assert printed.out == result.message + "\n", name
        assert result.message.startswith(("还没完成：", "不对：")), (name, result.message)


@pytest.mark.parametrize("exercise_id", IDS)
def test_feedback_is_the_same_every_time(exercise_id, capsys):
    exercise = api.get(exercise_id)
    first = api.render(verdicts(exercise_id)["wrong"][0])
    check(exercise_id, exercise.wrong[0].answer)
    assert capsys.readouterr().out == first + "\n"


@pytest.mark.parametrize("exercise_id", IDS)
def test_english_feedback_behind_one_switch(exercise_id, monkeypatch):
    exercise = api.get(exercise_id)
    monkeypatch.setenv("AGENTLAB_LANG", "zh")
    chinese = api.render(judge(exercise, exercise.wrong[0].answer))
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    verdict = judge(exercise, exercise.wrong[0].answer)
    message = api.render(verdict)
    assert message.startswith("Not right: ")
    assert message != chinese
    assert api.render(judge(exercise, starter_answer(exercise))).startswith("Not done yet: ")
    assert not has_cjk(exercise.title), exercise.title
    assert exercise.prompt and exercise.hint


@pytest.mark.parametrize("exercise_id", ["01-loop", "02-capped-loop"])
def test_a_right_loop_still_passes_after_switching_language(exercise_id, monkeypatch):
    """The reference loop's run is cached; its tool messages are in the language of the
    moment, so a cache made in Chinese must not judge a run made in English."""
    exercise = api.get(exercise_id)
    for lang in ("zh", "en", "zh"):
        monkeypatch.setenv("AGENTLAB_LANG", lang)
        verdict = judge(exercise, exercise.reference)
        assert verdict.status == PASSED, (lang, api.render(verdict))


def test_english_names_what_raised_apart_from_what_was_being_done(monkeypatch):
    """The feedback read "calling boom, a tool that raises raised ValueError"."""
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    exercise = api.get("02-dispatch")
    escapes = next(bad for bad in exercise.wrong if "exception escapes" in bad.label)
    message = api.render(judge(exercise, escapes.answer))
    assert "a tool that raises: raised ValueError: cannot connect" in message, message


def test_every_exercise_has_its_texts():
    """Both languages hold the same keys with the same fields (tests/test_i18n.py)."""
    texts = TEXTS.messages("zh")
    missing = [
        f"exercise.{exercise.id}.{part}"
        for exercise in EXERCISES
        for part in ("title", "prompt", "hint")
        + (("why",) if exercise.kind == "predict" and exercise.id != "05-predict-seeds" else ())
        if f"exercise.{exercise.id}.{part}" not in texts
    ]
    assert missing == []


def test_exercise_texts_name_real_exercises():
    """``exercise.<id>.*`` keys belong to an exercise that exists (tests/test_i18n.py
    checks that every key is looked up somewhere)."""
    strays = [
        key
        for key in TEXTS.messages("zh")
        if re.fullmatch(r"\d\d-.+", key.split(".")[1]) and key.split(".")[1] not in IDS
    ]
    assert strays == []


def test_a_check_cell_shows_its_message_once(capsys):
    from IPython.core.formatters import DisplayFormatter

    result = check("01-loop", api.get("01-loop").reference)
    printed = capsys.readouterr().out
    assert printed.startswith("✅ 通过：") and printed.count("\n") == 1
    assert result.passed and result.status == "passed" and result.message == printed.strip()
    assert repr(result) == "CheckResult('01-loop', passed=True)"
    # What IPython shows for a cell ending with check(...): nothing more.
    assert DisplayFormatter().format(result) == ({}, {})


def test_unknown_ids_are_answered_not_raised(capsys):
    result = check("99-nope", 1)
    assert not result.passed and "99-nope" in result.message
    hint("99-nope")
    show("99-nope")
    out = capsys.readouterr().out
    assert out.count("99-nope") == 3 and "01-loop" in out


def test_hint_and_show_print_the_catalog_text(capsys):
    hint("03-deadline")
    show("03-deadline")
    out = capsys.readouterr().out
    exercise = api.get("03-deadline")
    assert exercise.hint in out and exercise.prompt in out and exercise.title in out


def test_a_check_outside_the_main_thread_is_bounded_too():
    found: list[CheckResult] = []
    worker = threading.Thread(
        target=lambda: found.append(check("01-loop", loops_forever, time_limit_s=0.1))
    )
    started = time.monotonic()
    worker.start()
    worker.join(5)
    assert not worker.is_alive() and time.monotonic() - started < 5
    assert not found[0].passed and found[0].message.startswith("不对：")


def test_a_check_outside_the_main_thread_leaves_no_code_running():
    """A bare ``except:`` swallows the one exception a thread can be sent: the line
    tracer must get it out there too, or it spins on after the check has answered."""
    found: list[CheckResult] = []
    worker = threading.Thread(
        target=lambda: found.append(check("01-loop", swallows_everything, time_limit_s=0.1))
    )
    worker.start()
    worker.join(5)
    assert found and not found[0].passed
    deadline = time.monotonic() + 2  # generous: the student's thread ends at its next line
    while time.monotonic() < deadline and any(
        t.name == "agentlab-exercise" for t in threading.enumerate()
    ):
        time.sleep(0.01)
    assert not [t for t in threading.enumerate() if t.name == "agentlab-exercise"]


def test_code_that_starts_after_the_time_is_up_is_not_stopped(capsys):
    """Only the student's code still running is stopped, not a garbage-collector
    callback (or any other code) that happens to start afterwards."""
    seen: list[object] = []

    def callback(phase: str, info: dict) -> None:
        try:
            seen.append(phase)
        except BaseException as exc:  # noqa: BLE001  what the checker must not do
            seen.append(exc)

    def churns_and_swallows(*args, **kwargs):
        while True:
            try:
                while True:
                    cycle: list = []
                    cycle.append(cycle)  # garbage with a cycle: the collector runs often
            except:  # noqa: E722
                pass

    gc.callbacks.append(callback)
    try:
        result = check("01-loop", churns_and_swallows, time_limit_s=0.2)
    finally:
        gc.callbacks.remove(callback)
    assert not result.passed and seen
    assert not [s for s in seen if isinstance(s, BaseException)]


def test_time_up_inside_a_library_wait_is_a_timeout_not_a_broken_lock():
    """The standard library's own cleanup (a Condition re-taking its lock) must run."""

    def waits(*args, **kwargs):
        while True:
            try:
                threading.Event().wait(60)
            except:  # noqa: E722
                pass

    started = time.monotonic()
    result = check("01-loop", waits, time_limit_s=0.2)
    assert time.monotonic() - started < 5  # generous: it took minutes before
    assert not result.passed and "RuntimeError" not in result.message
    assert tr("exercise.timeout", what="").strip("：:")[:8] in result.message


def test_the_loop_check_names_the_missing_tool_call_id():
    """The example from issue 15, word for word."""
    detail = verdicts("01-loop")["wrong"][3].detail  # only the first of two calls answered
    assert "第 2 次请求的历史里，tool_call_id=call_1_1 没有对应的 role=tool 消息" in detail


def test_the_deadline_check_has_its_own_words_for_per_phase_timeouts():
    exercise = api.get("03-deadline")
    per_phase = next(w for w in exercise.wrong if w.label.startswith("per-phase"))
    assert "每个阶段一个新超时" in judge(exercise, per_phase.answer).detail


@pytest.mark.parametrize("exercise_id", ["01-loop", "02-capped-loop"])
def test_a_loop_one_request_short_of_its_cap_is_told_about_range(exercise_id):
    """range(1, max_steps) is the off-by-one students write; the feedback names it."""
    capped = api.get("02-capped-loop").wrong
    one_short = next(w for w in capped if w.label.startswith("range(1, max_steps)")).answer
    answer = one_short if exercise_id == "02-capped-loop" else lambda *a: one_short(*a)[0]
    assert "range(1, max_steps)" in judge(api.get(exercise_id), answer).detail


@pytest.mark.parametrize("exercise_id", ["01-loop", "02-capped-loop"])
def test_a_loop_that_counts_tool_calls_is_not_told_about_range(exercise_id):
    """Two tool calls a reply and a cap of 3 also stop it one request short; the
    range(1, max_steps) hint would send the student after the wrong bug."""
    [counts_calls] = [
        w for w in api.get(exercise_id).wrong if w.label.startswith("counts tool calls")
    ]
    detail = judge(api.get(exercise_id), counts_calls.answer).detail
    assert "range(1, max_steps)" not in detail


class Speechless(ValueError):
    def __str__(self):
        raise RuntimeError("no words")


def test_an_answer_raising_an_exception_that_cannot_be_written_out_is_blamed_on_the_answer():
    def completion_rate(results, cap):
        raise Speechless()

    verdict = judge(api.get("05-completion-rate"), completion_rate)
    assert verdict.status == WRONG and "Speechless" in verdict.detail, verdict
    assert "RuntimeError" not in verdict.detail


def test_completion_from_the_widest_runs_matches_a_real_sweep():
    """ch05 reads completion at any cap off one run per task at cap 24; a real sweep agrees."""
    from agentlab.course.exercises import ch05
    from agentlab.course.experiments import summarize

    caps = (5, 12)
    summary = summarize(ch05._results(ch05.CHAPTER_SEED, caps)).set_index("cap")
    for cap in caps:
        assert ch05.completion_at(ch05.CHAPTER_SEED, cap) == summary.loc[cap, "completion_rate"]


def test_importing_the_exercises_does_not_load_pandas():
    code = "import sys, agentlab.course.exercises; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False" and out.stderr == ""


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentlab", "exercises", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "AGENTLAB_RUNS_DIR": str(REPO / "runs")},
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_list_keeps_its_titles_in_one_column(lang, monkeypatch, capsys):
    """Every kind, "predict, then run" too, fits its column in either language."""
    import unicodedata

    monkeypatch.setenv("AGENTLAB_LANG", lang)
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    titles = {e.id: e.title for e in exercises()}

    def columns(text: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

    starts = {columns(line[: line.rindex(titles[line.split()[1]])]) for line in lines}
    assert len(starts) == 1, lines


def test_the_command_line_lists_and_verifies():
    listed = run_cli("list")
    assert listed.returncode == 0, listed.stderr
    assert len(listed.stdout.splitlines()) == len(IDS)
    verified = run_cli("verify", "--chapter", "02")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "0 次判错" in verified.stdout.splitlines()[-1]
    assert verified.stderr == ""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_the_command_line_stops_quietly_on_ctrl_c_and_on_a_closed_pipe():
    """`... list | head` and Ctrl-C during `verify` are one line at most, never a traceback."""
    command = [sys.executable, "-m", "agentlab", "exercises"]
    env = {"PATH": "/usr/bin:/bin", "AGENTLAB_RUNS_DIR": str(REPO / "runs")}
    err = stderr_when_the_reader_leaves([*command, "list"])
    assert "Traceback" not in err, err

    def busy(stdout):  # the first verdict is out: it is checking now
        stdout.readline()

    exit_code, err = interrupted([*command, "verify", "--verbose"], busy, cwd=REPO, env=env)
    assert exit_code == 130, err
    assert err.strip() == tr("cli.interrupted", prog="agentlab exercises verify")


def test_verify_fails_when_a_check_misjudges(monkeypatch, capsys):
    lenient = Exercise(
        "01-lenient",
        "01",
        "code",
        "anything",
        "anything = None\n",
        lambda answer: passed("always"),
        None,
        api.get("01-loop").wrong[:2],
    )
    monkeypatch.setattr(api, "EXERCISES", [lenient])
    assert main(["verify"]) == 1
    out = capsys.readouterr().out
    assert out.count("✗") == 3  # the starter and both wrong answers passed
    assert isinstance(lenient.check(None), Verdict)


@pytest.mark.parametrize("exercise", exercises(), ids=lambda e: e.id)
def test_each_exercise_is_in_its_chapter_with_its_starter_and_its_check(exercise):
    """The starter a student gets from ``show`` is the cell in the notebook, and
    the notebook checks the answer by the exercise's own id and answer name."""
    [path] = (REPO / "notebooks").glob(f"{exercise.chapter}_*.ipynb")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    assert any(exercise.starter.strip() in source for source in code), "starter not in notebook"
    assert any(f'check("{exercise.id}", {exercise.answer_name})' in source for source in code)


def _top_level_bindings(tree: ast.Module) -> set[str]:
    """Names a cell binds in the notebook's namespace: not inside a def, class or lambda."""
    found: set[str] = set()
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp)):
            continue
        if isinstance(node, ast.GeneratorExp):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return found


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_cell_rebinds_a_name_an_earlier_cell_imported(chapter):
    """A student who finishes the chapter and goes back to re-run an exercise's check
    must get the same verdict: a later cell that turns ``error`` or ``call`` into a
    dict would make a right answer that calls it fail with "'dict' object is not
    callable"."""
    [path] = (REPO / "notebooks").glob(f"{chapter}_*.ipynb")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    imported: dict[str, int] = {}
    clashes = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        lines = "".join(cell["source"]).splitlines()
        tree = ast.parse("\n".join(line for line in lines if not line.startswith("%")))
        for name in sorted(_top_level_bindings(tree)):
            if name in imported and imported[name] < index:
                clashes.append(f"cell {index} rebinds {name} (imported in cell {imported[name]})")
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    imported.setdefault((alias.asname or alias.name).split(".")[0], index)
    assert not clashes, clashes


# -- 01-append-text: the library's writer, however it is reached ---------------------------


def _through_the_module(registry, box):
    def append_text(rel_path, text):
        return library_module.append_text(box, rel_path, text)

    return append_text


def _through_an_inner_import(registry, box):
    from agentlab.tools.files import append_text as library

    def append_text(rel_path, text):
        return library(box, rel_path, text)

    return append_text


def _own_code_with_write_text(registry, box):
    from agentlab.tools import resolve_inside

    def append_text(rel_path, text):
        path = resolve_inside(box, rel_path)
        path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")

    return append_text


@pytest.mark.parametrize(
    "answer, flagged",
    [
        (_through_the_module, True),
        (_through_an_inner_import, True),
        (_own_code_with_write_text, False),
    ],
)
def test_the_librarys_writer_is_found_however_it_is_reached(answer, flagged):
    from agentlab.course.exercises.ch01 import _library_functions_used

    assert bool(_library_functions_used(answer)) is flagged


# -- feedback a student can act on (review8/stud) -------------------------------------------


def test_history_left_over_from_an_earlier_run_is_named_as_such():
    from agentlab.course.exercises import wrong

    kept = [{"role": "system", "content": "助手"}]  # outlives one call, like a global

    def my_loop(task, client, tools, max_steps):
        messages = kept
        messages.append({"role": "user", "content": task})
        for _ in range(max_steps):
            reply = wrong._ask(client, messages, tools)
            messages.append(wrong._assistant(reply))
            if not reply.tool_calls:
                return messages
            for tc in reply.tool_calls:
                content = wrong._result(tools, tc)
                messages.append({"role": "tool", "tool_call_id": tc.id, "content": content})
        return messages

    verdict = judge(api.get("01-loop"), my_loop)
    assert verdict.status == WRONG
    assert "上一次运行留下的历史" in verdict.detail and "别用全局变量或默认参数" in verdict.detail


def test_a_series_where_a_number_belongs_is_told_to_use_item():
    import pandas as pd

    reading = {**api.get("05-read-sweep").reference}
    reading["wasted_at_24"] = pd.Series([reading["wasted_at_24"]], index=[23])
    verdict = judge(api.get("05-read-sweep"), reading)
    assert verdict.status == WRONG and ".item()" in verdict.detail, verdict.detail
    assert "dtype" not in verdict.detail


def test_the_loop_a_stub_test_gets_is_called_loop():
    def test_step_cap(loop):
        loop()  # forgot the arguments

    verdict = judge(api.get("02-stub-test"), test_step_cap)
    assert verdict.status == WRONG
    assert "loop() missing" in verdict.detail and "_unnamed" not in verdict.detail


def test_an_absolute_path_that_got_through_is_shown():
    from agentlab.tools import error, ok

    def add_append_text(registry, box):
        def append_text(rel_path, text):
            if ".." in rel_path:  # absolute paths get through
                return error("PATH_NOT_ALLOWED", "outside")
            with open(box / rel_path, "a", encoding="utf-8") as handle:
                handle.write(text)
            return ok({"path": rel_path})

        text = {"type": "string"}
        schema = {"properties": {"rel_path": text, "text": text}, "required": ["rel_path", "text"]}
        registry.register(Tool("append_text", "追加", schema, append_text))

    verdict = judge(api.get("01-append-text"), add_append_text)
    assert verdict.status == WRONG and "'/…/absolute.md'" in verdict.detail, verdict.detail


def _loop_whose_calls_are(convert):
    """Chapter 01's loop, with each tool call of the history written as ``convert(tc)``."""
    from agentlab.course.exercises import wrong

    def my_loop(task, client, tools, max_steps):
        messages = [{"role": "user", "content": task}]
        for _ in range(max_steps):
            reply = wrong._ask(client, messages, tools)
            assistant = {"role": "assistant", "content": reply.content}
            if reply.tool_calls:
                assistant["tool_calls"] = [convert(tc) for tc in reply.tool_calls]
            messages.append(assistant)
            if not reply.tool_calls:
                return messages
            for tc in reply.tool_calls:
                content = wrong._result(tools, tc)
                messages.append({"role": "tool", "tool_call_id": tc.id, "content": content})
        return messages

    return my_loop


@pytest.mark.parametrize(
    ("convert", "kind"),
    [
        (lambda tc: tc.model_dump_json(), "str"),
        (lambda tc: [tc.id, tc.function.name, tc.function.arguments], "list"),
    ],
    ids=["str", "list"],
)
def test_a_tool_call_that_is_not_a_dict_is_named_as_such(convert, kind, monkeypatch):
    verdict = judge(api.get("01-loop"), _loop_whose_calls_are(convert))
    assert verdict.status == WRONG
    assert f"不是字典，而是 {kind}" in verdict.detail, verdict.detail
    assert '"type" 是 None' not in verdict.detail and "500" not in verdict.detail
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    detail = judge(api.get("01-loop"), _loop_whose_calls_are(convert)).detail
    assert f"not a dict but a {kind}" in detail, detail


def test_a_tool_call_that_is_not_a_dict_gets_its_own_words_in_any_history():
    from agentlab.course.exercises.loops import _history_problem, normalise

    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    expected = normalise({"role": "assistant", "content": None, "tool_calls": [call]})
    got = normalise({"role": "assistant", "content": None, "tool_calls": ["call_1"]})
    key, fields = _history_problem(2, [got], [expected])
    assert key == "exercise.loop.call_not_dict" and fields["kind"] == "str", (key, fields)


def test_sdk_tool_call_objects_in_the_returned_messages_count_as_their_dicts():
    """The SDK sends them as the same JSON, as it does a whole SDK message object."""
    verdict = judge(api.get("01-loop"), _loop_whose_calls_are(lambda tc: tc))
    assert verdict.status == PASSED, verdict.detail


def test_returned_messages_with_a_tool_call_that_is_not_a_dict_are_named_as_such():
    from agentlab.course.exercises.core import Judged
    from agentlab.course.exercises.loops import HONEST, check_returned_messages, reference_run

    ref, _ = reference_run(HONEST)
    returned = [dict(m) for m in ref.returned]
    second = next(m for m in returned if m.get("tool_calls"))
    second["tool_calls"] = [c["id"] for c in second["tool_calls"]]
    with pytest.raises(Judged) as judged:
        check_returned_messages(returned, ref, HONEST, "my_loop")
    assert "tool_call 不是字典，而是 str" in judged.value.verdict.detail
    assert "返回的 messages 里" in judged.value.verdict.detail


def test_a_stub_test_that_catches_its_own_assertion_is_told_so():
    from agentlab.course.exercises import wrong

    verdict = judge(api.get("02-stub-test"), wrong.stub_test_catches_its_assertion)
    assert verdict.status == WRONG and tr("exercise.02-stub-test.caught") in verdict.detail
    ending_only = judge(api.get("02-stub-test"), wrong.stub_test_checks_only_ending)
    assert tr("exercise.02-stub-test.caught") not in ending_only.detail


FULL_WIDTH = re.compile("[（）：，。]")
QUOTED = re.compile(r"“[^”]*”|'[^'\n]*'")  # a task, a file's text: data, Chinese or not


@pytest.mark.parametrize("exercise_id", IDS)
def test_english_feedback_has_no_full_width_punctuation(exercise_id, monkeypatch):
    """Every verdict on the exercise's own answers, in English: our words use ASCII
    punctuation (quoted values, such as a Chinese task, are left out)."""
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    exercise = api.get(exercise_id)
    answers = [exercise.reference, starter_answer(exercise), *(w.answer for w in exercise.wrong)]
    for answer in answers:
        message = api.render(judge(exercise, answer))
        assert not FULL_WIDTH.search(QUOTED.sub("", message)), message


# -- what students tried (the attempts review) ----------------------------------------------


def test_a_loop_that_swallows_the_checkers_stop_is_told_it_has_no_cap():
    from agentlab.course.exercises import wrong

    verdict = judge(api.get("01-loop"), wrong.loop_swallows_the_stop)
    assert verdict.status == WRONG and "没有步数上限" in verdict.detail, verdict.detail


def test_an_ending_that_is_not_a_string_is_told_so():
    from agentlab.course.exercises import wrong

    verdict = judge(api.get("02-capped-loop"), wrong.capped_ending_as_bool)
    assert verdict.status == WRONG, verdict.detail
    assert "True（bool）" in verdict.detail and "上限那一步" not in verdict.detail, verdict.detail


@pytest.mark.parametrize(
    ("name", "said"),
    [("NoProgressSaysWords", "返回了 'continue'"), ("NoProgressForgetsReturn", "返回了 None")],
)
def test_after_step_must_return_true_or_false(name, said):
    from agentlab.course.exercises import wrong

    verdict = judge(api.get("03-no-progress"), getattr(wrong, name))
    assert verdict.status == WRONG, verdict.detail
    assert "应返回 True（该停了）或 False（继续）" in verdict.detail and said in verdict.detail


def test_state_shared_through_the_class_is_named_every_time():
    from agentlab.course.exercises import wrong

    first, again = (judge(api.get("03-no-progress"), wrong.NoProgressSharedByClass) for _ in "12")
    assert first == again and first.status == WRONG
    assert "类属性" in first.detail and "self.seen" in first.detail, first.detail


def test_a_deadline_whose_left_ignores_the_clock_is_told_so():
    from agentlab.course.exercises import wrong

    verdict = judge(api.get("03-deadline"), wrong.DeadlineLeftReadsItsOwnClock)
    assert verdict.status == WRONG and "left()" in verdict.detail, verdict.detail
    assert "self.clock()" in verdict.detail


def test_a_later_request_without_tools_is_named():
    from agentlab.course.exercises import wrong

    verdict = judge(api.get("01-loop"), wrong.loop_tools_on_the_first_request_only)
    assert verdict.status == WRONG and "第 2 次请求没有带 tools=" in verdict.detail, verdict.detail


def test_arguments_sent_back_as_a_dict_are_named_not_a_scripted_model_error():
    from agentlab.course.exercises import wrong

    verdict = judge(api.get("01-loop"), wrong.loop_arguments_as_dicts)
    assert verdict.status == WRONG and "arguments 是 dict" in verdict.detail, verdict.detail
    assert "脚本化模型" not in verdict.detail and "500" not in verdict.detail


def test_a_loop_that_returns_a_pair_is_told_to_return_the_messages():
    from agentlab.course.exercises import wrong

    verdict = judge(api.get("01-loop"), wrong.loop_returns_a_pair)
    assert verdict.status == WRONG and "一对" in verdict.detail, verdict.detail
    assert "'answered'" in verdict.detail and "role=user" not in verdict.detail


def _recursive_loop(task, client, tools, max_steps, messages=None):
    """No system prompt, recursion for the loop, a "name" on each tool message."""
    from agentlab.course.exercises import wrong

    messages = messages or [{"role": "user", "content": task}]
    if max_steps == 0:
        return messages
    reply = wrong._ask(client, messages, tools)
    messages.append(wrong._assistant(reply))
    if not reply.tool_calls:
        return messages
    for tc in reply.tool_calls:
        result = json.dumps(tools.call(tc.function.name, tc.function.arguments))
        messages.append(
            {"role": "tool", "tool_call_id": tc.id, "name": tc.function.name, "content": result}
        )
    return _recursive_loop(task, client, tools, max_steps - 1, messages)


def _sdk_message_loop(task, client, tools, max_steps):
    """The SDK's own message object put back into the history, as many tutorials do."""
    from agentlab.course.exercises import wrong

    messages = [{"role": "user", "content": task}]
    for _ in range(max_steps):
        reply = wrong._ask(client, messages, tools)
        messages.append(reply)
        if not reply.tool_calls:
            break
        for tc in reply.tool_calls:
            content = wrong._result(tools, tc)
            messages.append({"role": "tool", "tool_call_id": tc.id, "content": content})
    return messages


def _ending_from_the_last_message(task, client, tools, max_steps):
    """Chapter 01's loop, the ending read off the last message, the pair as a list."""
    messages = _recursive_loop(task, client, tools, max_steps)
    last = messages[-1]
    answered = last["role"] == "assistant" and not last.get("tool_calls")
    return [messages, "answered" if answered else "max_steps"]


@dataclasses.dataclass
class _NoProgressAsADataclass:
    limit: int
    seen: set = dataclasses.field(default_factory=set)
    streak: int = 0

    def after_step(self, fingerprints):
        new = set(fingerprints) - self.seen
        self.seen |= set(fingerprints)
        self.streak = 0 if new else self.streak + 1
        return self.streak >= self.limit


def _done_when_as_a_callable_object(box, expected_total):
    class DoneWhen:
        def __call__(self, answer):
            report = box / "report.md"
            if not report.exists():
                return "还没有 report.md"
            lines = [line.strip() for line in report.read_text(encoding="utf-8").splitlines()]
            return True if f"总销售额 {expected_total}" in lines else "总销售额不对"

    return DoneWhen()


def _pick_cap_as_a_float(summary, target):
    for cap, rate in sorted(zip(summary["cap"], summary["completion_rate"], strict=True)):
        if rate >= target:
            return float(cap)  # 5.0: the same cap
    return None


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("01-loop", _recursive_loop),
        ("01-loop", _sdk_message_loop),
        ("02-capped-loop", _ending_from_the_last_message),
        ("03-no-progress", _NoProgressAsADataclass),
        ("04-done-when", _done_when_as_a_callable_object),
        ("05-pick-cap", _pick_cap_as_a_float),
    ],
)
def test_right_answers_written_another_way_pass(exercise_id, answer):
    """Students' own styles the checks must not reject: recursion, the SDK's message
    object, a list for the pair, a dataclass, a callable object, 5.0 for the cap 5."""
    verdict = judge(api.get(exercise_id), answer)
    assert verdict.status == PASSED, verdict.detail


def test_a_tool_that_forgets_the_box_is_told_so_and_writes_nothing_here(tmp_path, monkeypatch):
    from agentlab.course.exercises import wrong

    monkeypatch.chdir(tmp_path)  # the notebook's folder
    verdict = judge(api.get("01-append-text"), wrong.append_forgets_the_box)
    assert verdict.status == WRONG and "当前目录" in verdict.detail, verdict.detail
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("name", "said"),
    [("DeadlineSkipsWhenNoneLeft", "返回了 None"), ("DeadlineRaisesTimeoutError", "TimeoutError")],
)
def test_a_run_that_does_not_raise_timed_out_is_told_why(name, said):
    from agentlab.course.exercises import wrong

    verdict = judge(api.get("03-deadline"), getattr(wrong, name))
    assert verdict.status == WRONG and said in verdict.detail, verdict.detail
    assert "应抛出 TimedOut" in verdict.detail


def test_a_numpy_bool_from_after_step_is_a_bool():
    import numpy as np

    from agentlab.course.exercises import solutions

    class NoProgress(solutions.NoProgress):
        def after_step(self, fingerprints):
            return np.bool_(super().after_step(fingerprints))

    verdict = judge(api.get("03-no-progress"), NoProgress)
    assert verdict.status == PASSED, verdict.detail


def test_a_history_from_a_client_of_its_own_is_told_to_use_the_one_given():
    from agentlab.course.exercises import wrong

    verdict = judge(api.get("01-history"), wrong.history_of_its_own_client)
    assert verdict.status == WRONG and "传进来的 client" in verdict.detail, verdict.detail


def test_fragments_joined_in_the_api_shape_are_told_the_shape_asked_for():
    from agentlab.course.exercises import wrong

    verdict = judge(api.get("01-fragments"), wrong.fragments_in_the_api_shape)
    assert verdict.status == WRONG and "最外层" in verdict.detail, verdict.detail


class OwnBaseError(BaseException):
    """What a student's code may raise that is not an Exception."""


@pytest.mark.parametrize("raised", [GeneratorExit, OwnBaseError, SystemExit])
def test_a_base_exception_from_student_code_is_a_verdict_not_a_crash(raised):
    def loop(task, client, tools, max_steps):
        raise raised("stopped here")

    verdict = judge(api.get("01-loop"), loop)
    assert verdict.status == WRONG and raised.__name__ in verdict.detail, verdict.detail


def test_an_answer_whose_comparison_raises_a_base_exception_still_gets_a_verdict():
    class Stubborn:
        def __eq__(self, other):
            raise OwnBaseError("no comparing me")

        __hash__ = object.__hash__

    compares = dataclasses.replace(api.get("01-loop"), check=lambda a: passed(str(a == 1)))
    verdict = judge(compares, Stubborn())
    assert verdict.status == "error" and "OwnBaseError" in verdict.detail, verdict.detail


def test_a_keyboard_interrupt_in_student_code_still_stops_the_check():
    def loop(task, client, tools, max_steps):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        judge(api.get("01-loop"), loop)


@pytest.mark.parametrize(
    "exercise_id, scenarios, zh, en",
    [
        (
            "01-loop",
            "agentlab.course.exercises.ch01:LOOP_SCENARIOS",
            "{n} 个场景",
            "{n} scripted scenarios",
        ),
        (
            "02-capped-loop",
            "agentlab.course.exercises.ch02:CAPPED_SCENARIOS",
            "{cn}个场景",
            "{word} scenarios",
        ),
    ],
)
def test_a_prompt_says_how_many_scenarios_its_check_runs(
    exercise_id, scenarios, zh, en, monkeypatch
):
    import importlib

    module, name = scenarios.split(":")
    n = len(getattr(importlib.import_module(module), name))
    words = {5: ("五", "five"), 6: ("六", "six"), 7: ("七", "seven")}[n]
    monkeypatch.setenv("AGENTLAB_LANG", "zh")
    assert zh.format(n=n, cn=words[0]) in api.get(exercise_id).prompt
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    assert en.format(n=n, word=words[1]) in api.get(exercise_id).prompt


def test_a_student_tool_that_never_returns_is_a_timeout_not_a_tool_exception():
    from types import SimpleNamespace

    from agentlab.course.exercises import solutions

    def endless(rel_path, text):
        while True:
            pass

    def add_append_text(registry, box):  # the reference's tool, with a body that never ends
        made: list[Tool] = []
        solutions.add_append_text(SimpleNamespace(register=made.append), box)
        registry.register(dataclasses.replace(made[0], function=endless))

    verdict = judge(api.get("01-append-text"), add_append_text, time_limit_s=0.5)
    assert verdict.status == WRONG and "TOOL_EXCEPTION" not in verdict.detail, verdict.detail
    assert "死循环" in verdict.detail, verdict.detail


def test_pick_cap_answered_with_the_library_itself_passes():
    # Every case's target is one smallest_cap accepts (0 < target <= 1).
    from agentlab.course.experiments import smallest_cap

    verdict = judge(api.get("05-pick-cap"), lambda summary, target: smallest_cap(summary, target))
    assert verdict.status == PASSED, verdict.detail


def test_a_deadline_that_runs_the_work_unlimited_at_zero_is_told_so_not_that_it_skipped():
    from agentlab.deadline import run_within

    class OrNone:
        def __init__(self, seconds, clock=time.monotonic):
            self.seconds, self.clock = seconds, clock
            self.at = clock() + seconds

        def left(self):
            return max(0.0, self.at - self.clock())

        def run(self, work, name):
            return run_within(work, self.left() or None, name)  # 0 s left: no limit

    verdict = judge(api.get("03-deadline"), OrNone)
    assert verdict.status == WRONG and "跑完" in verdict.detail, verdict.detail
    assert "没有运行工作" not in verdict.detail


def test_a_deadline_whose_left_is_always_the_full_budget_is_told_so():
    """`left()` that returns `self.seconds` never reads the clock, but "you did not read the
    clock you were given" sends a student who stored `self.clock = clock` looking in the
    wrong place: the budget never shrinks, and that is what they are told."""

    class Full:
        def __init__(self, seconds, clock=time.monotonic):
            self.seconds, self.clock = seconds, clock

        def left(self):
            return self.seconds

        def run(self, work, name):
            from agentlab.deadline import run_within

            return run_within(work, self.left(), name)

    verdict = judge(api.get("03-deadline"), Full)
    expected = tr("exercise.03-deadline.full_no_clock", budget=0.1)
    assert verdict.status == WRONG and verdict.detail == expected, verdict.detail
