"""The grading page, as an instructor sees it, and a check cell, as a student sees it.

1. With the course's ``.venv``, ``tests/ops/grade_class.py`` writes the generated
   class of submissions (right, wrong, unfinished and every broken kind),
   grades it with ``python -m agentlab grade`` and says what each submission
   must get (``expected.json``).
2. ``grades.html`` is opened from ``file://`` in headless Chromium with the
   network cut off (any request that is not ``file:`` is aborted and
   counted: there must be none). DOM assertions: one heat-map row per
   submission with its status; every square has the mark the submission
   must get, the colour of that mark (one colour per mark, four different
   ones), its symbol and the check's line on hover; each exercise's pass-rate
   bar is as long as its pass rate, and its most common feedback lines are
   listed; every submission that is not ``graded`` or has a broken exercise
   has its section with a reason, none a traceback; every link to a run copy
   opens a file that exists; no ``<script>``; nothing wider than the window
   (also at a phone's width: the heat map scrolls inside its box); the
   Chinese is drawn with a CJK font. Screenshots of the page.
3. In JupyterLab, a scratch notebook with a check cell beside a cell that
   prints the same line: the check's output is drawn as text (no "No
   renderer could be found"), says exactly that line, and looks like the
   printed one (same font, size, colour, background, spacing).

Screenshots go to ``browser-screenshots/grade/``.

    make browser-test   # runs check_notebooks.py, check_explorer.py, check_display.py, this
    .venv-browser/bin/python tests/browser/check_grade.py --help
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote

from check_display import PHONE_WIDTH, cjk_problem, page_too_wide, report
from check_notebooks import NOT_COPIED, run_all
from playwright.sync_api import Page, sync_playwright
from shared import ROOT, Lab, fontconfig_with_cjk, launch

PAGE_JS = """() => {
  const rows = [...document.querySelectorAll('table.heat tbody tr')].map(r => ({
    name: r.dataset.submission, status: r.dataset.status,
    marks: Object.fromEntries([...r.querySelectorAll('td.mark')].map(td => [td.dataset.exercise, {
      mark: td.dataset.mark, color: getComputedStyle(td).backgroundColor,
      symbol: td.textContent.trim(), title: td.title}])),
  }));
  const exercises = [...document.querySelectorAll('table.exercises tbody tr')].map(r => {
    const track = r.querySelector('.bar').getBoundingClientRect();
    const bar = r.querySelector('.bar span').getBoundingClientRect();
    return {id: r.dataset.exercise, passed: Number(r.dataset.passed),
            total: Number(r.dataset.total), share: track.width ? bar.width / track.width : -1,
            feedback: [...r.querySelectorAll('.feedback li')].map(li => Number(li.dataset.count))};
  });
  const problems = [...document.querySelectorAll('section.problem')].map(s => ({
    name: s.dataset.submission, status: s.dataset.status, text: s.innerText,
    links: [...s.querySelectorAll('a')].map(a => a.getAttribute('href'))}));
  return {rows, exercises, problems, scripts: document.querySelectorAll('script').length};
}"""


def check_page(page: Page, out: Path, expected: dict, shots: Path) -> list[str]:
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.goto((out / "grades" / "grades.html").as_uri())
    facts = page.evaluate(PAGE_JS)
    problems = []
    rows = {r["name"]: r for r in facts["rows"]}
    if set(rows) != set(expected):
        problems.append(f"rows {sorted(set(rows) ^ set(expected))} differ from the class")
    colors: dict[str, set[str]] = {}
    symbols: dict[str, set[str]] = {}
    for name, want in expected.items():
        row = rows.get(name)
        if row is None:
            continue
        if row["status"] != want["status"]:
            problems.append(f"{name}: status {row['status']}, must be {want['status']}")
        shown = {k: v["mark"] for k, v in row["marks"].items()}
        if shown != want["marks"]:
            problems.append(f"{name}: squares say {shown}, must be {want['marks']}")
        for exercise, square in row["marks"].items():
            colors.setdefault(square["mark"], set()).add(square["color"])
            symbols.setdefault(square["mark"], set()).add(square["symbol"])
            if exercise not in square["title"] or len(square["title"]) < len(exercise) + 5:
                problems.append(f"{name} {exercise}: the square's hover text says nothing")
    if any(len(c) != 1 for c in colors.values()) or len(set().union(*colors.values())) != 4:
        problems.append(f"marks and colours do not match one to one: {colors}")
    if any(len(s) != 1 or "" in s for s in symbols.values()) or len(symbols) != 4:
        problems.append(f"marks and symbols do not match one to one: {symbols}")
    for x in facts["exercises"]:
        if abs(x["share"] - x["passed"] / x["total"]) > 0.02:
            problems.append(f"{x['id']}: bar at {x['share']:.2f} for {x['passed']}/{x['total']}")
    if not any(x["feedback"] for x in facts["exercises"]):
        problems.append("no exercise lists its most common feedback")
    listed = {p["name"]: p for p in facts["problems"]}
    for name, want in expected.items():
        troubled = want["status"] != "graded" or "broken" in want["marks"].values()
        if troubled and name not in listed:
            problems.append(f"{name} is not among the notebooks that broke")
    for p in facts["problems"]:
        if len(p["text"]) < len(p["name"]) + 10 or "Traceback" in p["text"]:
            problems.append(f"{p['name']}: its section says {p['text'][:80]!r}")
        for href in p["links"]:
            if not (out / "grades" / unquote(href)).is_file():
                problems.append(f"{p['name']}: link {href} opens nothing")
    if facts["scripts"]:
        problems.append(f"{facts['scripts']} <script> element(s) on the page")
    problem = cjk_problem(page, "h1")
    if problem:
        problems.append(problem)
    if page_too_wide(page):
        problems.append("the page is wider than the window")
    page.screenshot(path=shots / "grades.png", full_page=True)
    page.locator("table.heat").screenshot(path=shots / "heat-map.png")
    page.set_viewport_size({"width": PHONE_WIDTH, "height": 900})
    if page_too_wide(page):
        problems.append(f"the page overflows sideways at {PHONE_WIDTH}px")
    page.screenshot(path=shots / "grades-phone.png")
    return problems


CHECK_NOTEBOOK_CELLS = [
    "from agentlab.course.exercises import check\nimport contextlib, io\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    line = check('01-loop', None).message",
    "print(line)",
    "check('01-loop', None)",
]

OUTPUT_JS = """(panel) => {
  const cells = [...document.querySelectorAll(panel + ' .jp-CodeCell')];
  const look = (cell) => {
    const out = cell.querySelector('.jp-OutputArea-output');
    if (!out) return null;
    const s = getComputedStyle(out.querySelector('pre') || out);
    return {mime: out.getAttribute('data-mime-type'), text: out.innerText.trim(),
            style: ['fontFamily', 'fontSize', 'color', 'backgroundColor', 'lineHeight',
                    'paddingTop', 'paddingLeft', 'marginTop', 'whiteSpace'].map(k => s[k])};
  };
  return {printed: look(cells[1]), checked: look(cells[2]),
          no_renderer: document.body.innerText.includes('No renderer')};
}"""


def check_in_lab(context, lab: Lab, shots: Path) -> list[str]:
    page = context.new_page()
    try:
        cells = run_all(page, lab, "check_cell.ipynb", folder="scratch")
        problems = [f"cell {c['index']} shows an error: {e}" for c in cells for e in c["errors"]]
        panel = ".jp-NotebookPanel:not(.lm-mod-hidden)"
        facts = page.evaluate(OUTPUT_JS, panel)
        printed, checked = facts["printed"], facts["checked"]
        if facts["no_renderer"]:
            problems.append('JupyterLab says "No renderer could be found"')
        if not printed or not checked:
            return problems + [f"outputs missing: printed {printed}, checked {checked}"]
        if checked["mime"] != "text/plain" or not checked["text"].startswith("还没完成："):
            problems.append(f"the check cell shows {checked['mime']}: {checked['text'][:80]!r}")
        if checked["text"] != printed["text"]:
            problems.append(f"check shows {checked['text']!r}, print shows {printed['text']!r}")
        if checked["style"] != printed["style"]:
            problems.append(f"looks unlike a printed line: {checked['style']} {printed['style']}")
        page.locator(f"{panel} .jp-CodeCell").nth(2).screenshot(path=shots / "lab-check-cell.png")
    finally:
        page.close()
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lab-python", default=str(ROOT / ".venv" / "bin" / "python"))
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--screenshots", default=str(ROOT / "browser-screenshots"))
    parser.add_argument("--no-lab", action="store_true", help="skip the JupyterLab part")
    args = parser.parse_args()
    shots = Path(args.screenshots) / "grade"
    shots.mkdir(parents=True, exist_ok=True)

    home = Path(tempfile.mkdtemp(prefix="agentlab-grade-check-"))
    failures: list[str] = []
    lab = None
    try:
        started = time.monotonic()
        out = home / "class"
        out.mkdir()
        env = {**os.environ, "AGENTLAB_OFFLINE": "1", "PYTHONHASHSEED": "0"}
        subprocess.run(
            [args.lab_python, "-m", "tests.ops.grade_class", str(out)],
            check=True,
            env=env,
            cwd=ROOT,
        )
        expected = json.loads((out / "expected.json").read_text(encoding="utf-8"))
        print(f"graded {len(expected)} submissions in {time.monotonic() - started:.0f} s")
        os.environ["FONTCONFIG_FILE"] = str(fontconfig_with_cjk(home, args.lab_python))
        with sync_playwright() as playwright:
            context = launch(playwright, home / "chromium-profile", args.chromium)
            blocked: list[str] = []

            def offline(route) -> None:
                if route.request.url.startswith("file:"):
                    route.continue_()
                else:
                    blocked.append(route.request.url)
                    route.abort()

            try:
                page = context.new_page()
                page.route("**/*", offline)
                report("grades.html", check_page(page, out, expected, shots), failures)
                if blocked:
                    report("offline", [f"the page asked the network for {blocked[:3]}"], failures)
                page.close()
                if not args.no_lab:
                    root = home / "repo"
                    shutil.copytree(ROOT, root, ignore=NOT_COPIED)
                    scratch = root / "scratch"
                    scratch.mkdir()
                    notebook = {
                        "cells": [
                            {"cell_type": "code", "execution_count": None, "id": f"c{i}",
                             "metadata": {}, "outputs": [], "source": source}
                            for i, source in enumerate(CHECK_NOTEBOOK_CELLS)
                        ],
                        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
                        "nbformat": 4,
                        "nbformat_minor": 5,
                    }  # fmt: skip
                    (scratch / "check_cell.ipynb").write_text(json.dumps(notebook), "utf-8")
                    lab = Lab(args.lab_python, root, home)
                    lab.start()
                    report("JupyterLab check cell", check_in_lab(context, lab, shots), failures)
            finally:
                context.close()
    finally:
        if lab is not None:
            lab.stop()
        shutil.rmtree(home, ignore_errors=True)
    print(f"grading page checked in the browser, {len(failures)} failure(s); screenshots: {shots}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
