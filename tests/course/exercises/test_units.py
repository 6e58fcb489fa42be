"""Each exercise as a unit (units/<id>.toml with its chapter's check and reference): every
answer of its own is judged as it should be, in both languages, and the notebook holds the
unit's cells."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re

import agentlab.course.exercises as api
from agentlab.course.exercises import exercises
from agentlab.course.exercises.core import NOT_DONE, PASSED, WRONG
from agentlab.course.exercises.running import judge
from agentlab.course.exercises.texts import TEXTS, UNITS
from agentlab.ops.exercises import starter_answer

from ...conftest import REPO
from ...exercise_cells import cells, revealing
from .conftest import has_cjk, verdicts

CHAPTERS = ("01", "02", "03", "04", "05")


def test_every_answer_of_every_unit_is_judged_as_it_should_be():
    """The reference passes; the starter runs quietly, defines the answer's name and is "not
    done yet" (for code, naming the task and its hint); every named mistake is "not right",
    in words of its own that hold what the mistake ``says``."""
    offenders = []
    for exercise in exercises():
        found = verdicts(exercise.id)
        if found["reference"].status != PASSED:
            offenders.append(f"{exercise.id} reference: {found['reference'].detail}")
        printed, namespace = io.StringIO(), {}
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            exec(exercise.starter, namespace)  # as the committed notebook cell would
        starter = found["starter"]
        if printed.getvalue() or exercise.answer_name not in namespace:
            offenders.append(f"{exercise.id} starter prints or lacks {exercise.answer_name}")
        if starter.status != NOT_DONE or not api.render(starter).startswith("还没完成："):
            offenders.append(f"{exercise.id} starter: {starter.detail}")
        if exercise.kind == "code" and not (
            exercise.title in starter.detail and f'hint("{exercise.id}")' in starter.detail
        ):
            offenders.append(f"{exercise.id} starter does not name the task: {starter.detail}")
        if len(exercise.mistakes) < 2:
            offenders.append(f"{exercise.id}: fewer than two mistakes")
        for mistake, verdict in zip(exercise.mistakes, found["wrong"], strict=True):
            said = api.render(verdict)
            if verdict.status != WRONG or not said.startswith("不对：") or mistake.says not in said:
                offenders.append(f"{exercise.id} {mistake.label}: {said}")
        details = [v.detail for v in found["wrong"]]
        if len(set(details)) != len(details):
            offenders.append(f"{exercise.id}: two mistakes get the same feedback")
    assert not offenders, "\n".join(offenders)


def test_english_feedback_behind_one_switch(monkeypatch):
    offenders = []
    for exercise in exercises():
        _, answer = exercise.wrong[0]
        monkeypatch.setenv("AGENTLAB_LANG", "zh")
        chinese = api.render(judge(exercise, answer))
        monkeypatch.setenv("AGENTLAB_LANG", "en")
        english = api.render(judge(exercise, answer))
        starter = api.render(judge(exercise, starter_answer(exercise)))
        if not english.startswith("Not right: ") or english == chinese:
            offenders.append(f"{exercise.id}: {english}")
        if not starter.startswith("Not done yet: "):
            offenders.append(f"{exercise.id} starter: {starter}")
        if has_cjk(exercise.title) or not (exercise.prompt and exercise.hint):
            offenders.append(f"{exercise.id} texts: {exercise.title}")
    assert not offenders, "\n".join(offenders)


FULL_WIDTH = re.compile("[（）：，。]")
QUOTED = re.compile(r"“[^”]*”|'[^'\n]*'")  # a task, a file's text: data, Chinese or not


def test_english_feedback_has_no_full_width_punctuation(monkeypatch):
    """Every verdict on every exercise's own answers, in English: our words use ASCII
    punctuation (quoted values, such as a Chinese task, are left out)."""
    monkeypatch.setenv("AGENTLAB_LANG", "en")
    offenders = []
    for exercise in exercises():
        answers = [exercise.reference, starter_answer(exercise), *(a for _, a in exercise.wrong)]
        for answer in answers:
            message = api.render(judge(exercise, answer))
            if FULL_WIDTH.search(QUOTED.sub("", message)):
                offenders.append(message)
    assert not offenders, "\n".join(offenders)


def test_every_exercise_has_its_texts_in_its_unit():
    """Title, prompt and hint (and a prediction's why) in both languages, in the unit; the
    shared catalog holds no exercise's own text, and every unit is an exercise's.
    (tests/test_i18n.py lints these texts with the other catalogs.)"""
    offenders = []
    for lang in ("zh", "en"):
        texts = UNITS.messages(lang)
        for exercise in exercises():
            parts = ["title", "prompt", "hint"]
            if exercise.kind == "predict" and exercise.id != "05-predict-seeds":
                parts.append("why")
            offenders += [k for p in parts if (k := f"exercise.{exercise.id}.{p}") not in texts]
    ids = {e.id for e in exercises()}
    offenders += [k for k in TEXTS.messages("zh") if re.fullmatch(r"\d\d-.+", k.split(".")[1])]
    offenders += [p.stem for p in UNITS.folder.glob("*.toml") if p.stem not in ids]
    assert not offenders, offenders


# -- the notebooks hold the units' cells ------------------------------------------------


def notebook_cells(chapter: str) -> list[dict]:
    [path] = (REPO / "notebooks").glob(f"{chapter}_*.ipynb")
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def test_each_notebook_holds_its_exercises_cells_as_the_unit_makes_them():
    """The prompt (with its heading), the starter and the check cell of every exercise are
    in its chapter's notebook, one after the other, exactly as ``tests/exercise_cells.py``
    makes them from the unit (run it to write them)."""
    offenders = []
    for exercise in exercises():
        found = notebook_cells(exercise.chapter)
        heading = f"### 练习 {exercise.id}\u3000"
        at = [i for i, c in enumerate(found) if "".join(c["source"]).startswith(heading)]
        if len(at) != 1:
            offenders.append(f"{exercise.id}: {len(at)} cells start with {heading}")
            continue
        written = ["".join(c["source"]) for c in found[at[0] : at[0] + 3]]
        kinds = [c["cell_type"] for c in found[at[0] : at[0] + 3]]
        if written != list(cells(exercise)) or kinds != ["markdown", "code", "code"]:
            offenders.append(f"{exercise.id}: the notebook's cells differ from the unit's")
    assert not offenders, "\n".join(offenders)


# JupyterLab's collapsed bar shows one line: a markdown cell's first source line, or the
# first non-empty line of a code cell's first output, taken in this order of types.
BAR_TYPES = ("text/html", "image/svg+xml", "application/pdf", "text/markdown", "text/plain")
BAR_CHARS = 30


def collapsed_bar(cell: dict) -> str:
    """The text JupyterLab shows on ``cell``'s collapsed bar."""
    if cell["cell_type"] == "markdown":
        return "".join(cell["source"]).split("\n")[0]
    if not cell["outputs"]:
        return ""
    first = cell["outputs"][0]
    data = first.get("data") or {"text": first.get("text", "")}
    kind = next((k for k in (*BAR_TYPES, "text") if k in data), None)
    text = "".join(data[kind]) if kind else ""
    return next((line for line in text.split("\n") if line), "")


def test_predictions_stay_folded_until_the_student_acts():
    """The cells that show a prediction's answer (``exercise_cells.revealing``) are
    collapsed in JupyterLab: the real run's outputs (``jupyter.outputs_hidden``, and
    ``collapsed``, which JupyterLab writes beside it) and the explanation's text
    (``jupyter.source_hidden``); running the cell or clicking its bar opens it. The bar
    still shows one line, so that line must be a short lead that tells nothing."""
    offenders = []
    for exercise in exercises():
        if exercise.kind != "predict":
            continue
        found = notebook_cells(exercise.chapter)
        shown = revealing(found, exercise.id)
        if [found[i]["cell_type"] for i in shown] != ["code", "markdown"]:
            offenders.append(f"{exercise.id}: no real run and explanation after it ({shown})")
            continue
        run, explanation = (found[i] for i in shown)
        folded = run["metadata"].get("jupyter", {}).get("outputs_hidden")
        if not (folded and run["metadata"].get("collapsed")):
            offenders.append(f"{exercise.id}: the outputs of cell {shown[0]} are not folded")
        if not explanation["metadata"].get("jupyter", {}).get("source_hidden"):
            offenders.append(f"{exercise.id}: the explanation, cell {shown[1]}, is not folded")
        for i in shown:
            if len(bar := collapsed_bar(found[i])) > BAR_CHARS:
                offenders.append(f"{exercise.id}: cell {i}'s collapsed bar shows {bar[:60]!r}")
    assert not offenders, "\n".join(offenders)


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


def test_no_cell_rebinds_a_name_an_earlier_cell_imported():
    """A student who finishes the chapter and goes back to re-run an exercise's check
    must get the same verdict: a later cell that turns ``error`` or ``call`` into a
    dict would make a right answer that calls it fail with "'dict' object is not
    callable"."""
    clashes = []
    for chapter in CHAPTERS:
        imported: dict[str, int] = {}
        for index, cell in enumerate(notebook_cells(chapter)):
            if cell["cell_type"] != "code":
                continue
            lines = "".join(cell["source"]).splitlines()
            tree = ast.parse("\n".join(line for line in lines if not line.startswith("%")))
            for name in sorted(_top_level_bindings(tree)):
                if name in imported and imported[name] < index:
                    clashes.append(f"{chapter} cell {index} rebinds {name} (cell {imported[name]})")
            for node in tree.body:
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    for alias in node.names:
                        imported.setdefault((alias.asname or alias.name).split(".")[0], index)
    assert not clashes, clashes
