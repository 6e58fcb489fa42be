"""The student's view: every chapter notebook run in JupyterLab, in a real browser.

nbval proves a notebook's stored outputs; this proves what a student sees.
For each notebook it:

1. starts JupyterLab (from ``.venv``) on 127.0.0.1 with a random port and
   token, serving a temporary copy of the repository, with its own settings,
   workspace and runtime folders (nothing of the user's is read or written);
2. opens the notebook in headless Chromium (Debian's package, driven by
   Playwright through its executable path), clears all outputs, runs all
   cells from the *Run* menu and waits for every cell to finish and the
   kernel to go idle;
3. checks that no cell shows an error or stderr output (naming the cell if
   one does), that an outcome table renders as an HTML table, that every
   chart renders as an image of non-trivial size, and that the Chinese text
   is drawn with a CJK font (asked of Chromium itself through the DevTools
   protocol: the fonts it used for a Chinese heading), not as tofu boxes;
4. saves one screenshot per notebook (the outcome table above the first
   chart) under ``browser-screenshots/`` (git-ignored);
5. predictions stay unspoiled: before that run, on the notebook as saved, the
   cells that show a prediction's answer (found from the prediction
   exercises' headings, as ``tests/exercise_cells.py`` finds them, not from
   the metadata that folds them) show a collapsed bar and none of their text;
   a click on the bar shows the text. In the first such notebook it also
   runs every cell without clearing them first: running a folded cell opens
   it (the real run's output, and the explanation as Shift+Enter reaches it).

JupyterLab is shut down (API call, then terminate, then kill) whatever
happens. ``--self-check`` finally runs a scratch copy of the first notebook
with an exception added to one cell and passes only if that failure is
reported naming the cell, and checks a copy with its predictions unfolded,
which must be reported: a check that cannot fail proves nothing.
``--predictions-only`` runs step 5 alone (about a minute).

Chinese glyphs: the browser gets a fontconfig file that adds the Noto Sans
CJK font shipped by ``mplfonts`` (already in .venv for the charts), so no
system font package is needed.

    make browser-test            # what CI runs
    .venv-browser/bin/python tests/browser/check_notebooks.py --help
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

from PIL import Image
from playwright.sync_api import BrowserContext, Page, sync_playwright
from shared import CJK_FONT, ROOT, Lab, fontconfig_with_cjk, launch, platform_fonts

sys.path.insert(0, str(ROOT / "tests"))
from exercise_cells import revealing  # noqa: E402  (plain Python: no agentlab needed)

NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv*", "runs", "__pycache__", ".pytest_cache", "browser-screenshots", "*.egg-info"
)
RUN_TIMEOUT_S = 240  # per notebook; the slowest chapter runs in ~15 s here


@dataclass
class Report:
    notebook: str
    problems: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)


# -- one notebook in the browser ---------------------------------------------------------


def menu(page: Page, top: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{top}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$")).click()


CELL_STATE_JS = """() => {
  const cells = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')];
  return cells.map((cell, i) => {
    const code = cell.classList.contains('jp-CodeCell');
    const prompt = code ? (cell.querySelector('.jp-InputPrompt')?.textContent || '') : '';
    // a code cell whose source is folded shows a placeholder, and no execution count
    const folded = !!cell.querySelector('.jp-InputPlaceholder');
    const bad = [...cell.querySelectorAll('.jp-OutputArea-output')].filter(o =>
      ['application/vnd.jupyter.stderr', 'application/vnd.jupyter.error']
        .includes(o.getAttribute('data-mime-type')));
    const source = (cell.querySelector('.cm-content')?.innerText || '').trim().split('\\n')[0];
    return {index: i + 1, code, folded, prompt: prompt.trim(), source,
            errors: bad.map(o => o.innerText.trim().split('\\n').slice(-1)[0].slice(0, 200))};
  });
}"""


def run_all(page: Page, lab: Lab, notebook: str, folder: str = "notebooks") -> list[dict]:
    """Clear and run every cell of ``folder/notebook``; the state of each cell at the end."""
    # A workspace of its own per notebook: nothing restored from an earlier tab.
    workspace = re.sub(r"\W", "-", notebook)
    page.goto(f"{lab.base}/lab/workspaces/{workspace}/tree/{folder}/{notebook}?token={lab.token}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=60_000)
    panel = ".jp-NotebookPanel:not(.lm-mod-hidden)"
    idle = f"{panel} .jp-Notebook-ExecutionIndicator[data-status='idle']"
    # The indicator also says "idle" before any kernel exists ("No Kernel"); running
    # then opens the kernel dialog and nothing runs. Wait for a kernel that is idle.
    page.wait_for_function(
        """(panel) => {
          const p = document.querySelector(panel);
          const name = p?.querySelector('.jp-Toolbar-kernelName')?.textContent || '';
          const state = p?.querySelector('.jp-Notebook-ExecutionIndicator')?.dataset.status;
          return name.trim() && name.trim() !== 'No Kernel' && state === 'idle';
        }""",
        arg=panel,
        timeout=60_000,
    )
    menu(page, "Edit", "Clear Outputs of All Cells")
    menu(page, "Run", "Run All Cells")
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        cells = page.evaluate(CELL_STATE_JS)
        code = [c for c in cells if c["code"] and not c["folded"]]  # folded: no count shown
        finished = all(re.fullmatch(r"\[\d+\]:", c["prompt"]) for c in code)
        if finished and page.locator(idle).count():
            return cells
        if any(c["errors"] for c in cells) and page.locator(idle).count():
            return cells  # Run All stops at an error: no point waiting for the rest
        time.sleep(0.5)
    pending = [c for c in page.evaluate(CELL_STATE_JS) if c["code"] and "*" in c["prompt"]]
    raise TimeoutError(f"cells still running after {RUN_TIMEOUT_S} s: {pending[:3]}")


def expected_images(path: Path) -> int:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return sum("image/png" in o.get("data", {}) for c in cells for o in c.get("outputs", []))


def cjk_fonts(page: Page) -> list[str]:
    """The fonts Chromium used to draw the first Chinese heading or paragraph."""
    marked = page.evaluate("""() => {
      const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
      const el = [...panel.querySelectorAll('.jp-RenderedMarkdown h1, .jp-RenderedMarkdown p')]
        .find(e => /[\\u4e00-\\u9fff]/.test(e.textContent));
      if (!el) return false;
      el.setAttribute('data-cjk-probe', '1');
      return true;
    }""")
    if not marked:
        return []
    return platform_fonts(page, "[data-cjk-probe]")


def check_notebook(context: BrowserContext, lab: Lab, path: Path, shots: Path) -> Report:
    report = Report(path.name)
    page = context.new_page()
    try:
        cells = run_all(page, lab, path.name)
        for cell in cells:
            for message in cell["errors"]:
                where = f"cell {cell['index']} ({cell['prompt'] or 'not run'} `{cell['source']}`)"
                report.problems.append(f"{where} shows an error: {message}")
        if report.problems:
            return report

        output = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output"
        # the outcome column is headed 结局 (or "outcome" with AGENTLAB_LANG=en)
        tables = page.locator(f"{output} table").filter(has_text=re.compile("结局|outcome"))
        if tables.count() == 0:
            report.problems.append("no outcome table rendered as an HTML <table>")
        else:
            report.facts.append(f"{tables.count()} outcome table(s)")

        images = page.locator(f"{output} img")
        want = expected_images(path)
        sizes = images.evaluate_all(
            "imgs => imgs.map(i => [i.complete, i.naturalWidth, i.naturalHeight,"
            " i.getBoundingClientRect().width])"
        )
        if len(sizes) != want:
            report.problems.append(f"{len(sizes)} chart image(s) on screen, notebook has {want}")
        for n, (complete, width, height, shown) in enumerate(sizes, 1):
            if not complete or width < 200 or height < 150 or shown < 100:
                report.problems.append(f"chart {n} did not render ({width}x{height}, {shown}px)")
        report.facts.append(f"{len(sizes)} chart(s)")

        fonts = cjk_fonts(page)
        if not any(CJK_FONT.search(f) for f in fonts):
            report.problems.append(f"Chinese text is not drawn with a CJK font: {fonts or 'none'}")
        else:
            report.facts.append(f"Chinese drawn with {', '.join(fonts)}")

        save_screenshot(page, tables, images, shots / f"{path.stem}.png")
        report.facts.append(f"screenshot {shots.name}/{path.stem}.png")
    except Exception as exc:  # a hung kernel or a missing element is a failure, not a crash
        report.problems.append(f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=shots / f"{path.stem}-failed.png")
        report.problems.append(f"what the page showed: {shots.name}/{path.stem}-failed.png")
    finally:
        page.close()
    return report


def save_screenshot(page: Page, tables, images, target: Path) -> None:
    """One PNG: the viewport at the outcome table, above the viewport at the first chart."""
    parts = []
    for locator in (tables, images):
        if locator.count():
            locator.first.scroll_into_view_if_needed()
            parts.append(Image.open(BytesIO(page.screenshot())))
    if not parts:
        parts.append(Image.open(BytesIO(page.screenshot())))
    sheet = Image.new("RGB", (max(p.width for p in parts), sum(p.height for p in parts)), "white")
    top = 0
    for part in parts:
        sheet.paste(part, (0, top))
        top += part.height
    os.makedirs(target.parent, exist_ok=True)
    sheet.save(target)


# -- predictions stay folded until the student acts -----------------------------------

UNITS = ROOT / "agentlab" / "course" / "exercises" / "units"
PREDICTIONS = [
    unit.stem
    for unit in sorted(UNITS.glob("*.toml"))
    if tomllib.loads(unit.read_text(encoding="utf-8"))["kind"] == "predict"
]
CJK_RUN = re.compile(r"[\u4e00-\u9fff]{4,}")
# where a folded cell's text is drawn once it is open
SHOWN_IN = {"code": ".jp-OutputArea", "markdown": ".jp-RenderedMarkdown"}


def folded_cells(path: Path) -> list[tuple[int, str, str]]:
    """(index, cell type, a piece of its text) for each cell that shows a prediction's answer.

    The piece is a run of Chinese characters past the first line (the first line is what
    the collapsed bar shows): from the explanation's source, or from the real run's
    stored outputs (printed text, or an HTML output's text without its markup)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    ids = [e for e in PREDICTIONS if e[:2] == path.name[:2]]
    found = []
    for index in sorted({i for exercise in ids for i in revealing(cells, exercise)}):
        cell = cells[index]
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"])
        else:
            parts = []
            for output in cell["outputs"]:
                value = output.get("text") or output.get("data", {}).get("text/html", "")
                value = "".join(value)
                value = re.sub(r"<style[^>]*>.*?</style>", " ", value, flags=re.S)
                parts.append(re.sub(r"<[^>]+>", " ", value))
            text = "".join(parts)
        piece = CJK_RUN.search(text.split("\n", 1)[-1])
        found.append((index, cell["cell_type"], piece[0] if piece else ""))
    return found


def shows(cell, kind: str, piece: str) -> bool:
    """Whether ``piece`` of text is drawn in ``cell``'s output or rendered markdown."""
    found = cell.locator(SHOWN_IN[kind]).get_by_text(piece)
    return bool(found.count()) and found.first.is_visible()


def open_notebook(page: Page, lab: Lab, notebook: str, workspace: str) -> None:
    """Open ``notebook`` as saved, in a workspace of its own, and wait for a kernel."""
    page.goto(f"{lab.base}/lab/workspaces/{workspace}/tree/notebooks/{notebook}?token={lab.token}")
    page.wait_for_function(
        """() => {
          const p = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
          const name = p?.querySelector('.jp-Toolbar-kernelName')?.textContent || '';
          const state = p?.querySelector('.jp-Notebook-ExecutionIndicator')?.dataset.status;
          return name.trim() && name.trim() !== 'No Kernel' && state === 'idle';
        }""",
        timeout=60_000,
    )


def check_predictions(context: BrowserContext, lab: Lab, path: Path, run: bool) -> Report:
    """Each prediction's answer is out of sight until the student clicks (or runs) it."""
    report = Report(path.name)
    folded = folded_cells(path)
    if not folded:
        return report
    page = context.new_page()
    cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell")
    bar = {"code": ".jp-OutputPlaceholder", "markdown": ".jp-InputPlaceholder"}
    try:
        open_notebook(page, lab, path.name, "fold-" + re.sub(r"\W", "-", path.stem))
        for index, kind, piece in folded:
            cell = cells.nth(index)
            where = f"cell {index + 1} ({kind}, {piece!r})"
            if not piece:
                report.problems.append(f"{where}: no text to look for")
            elif shows(cell, kind, piece):
                report.problems.append(f"{where}: the answer is on screen before any action")
            elif not cell.locator(".jp-Placeholder").first.is_visible():
                report.problems.append(f"{where}: no collapsed bar to click")
            else:
                if kind == "code" and cell.locator(".jp-InputPlaceholder").is_visible():
                    cell.locator(".jp-InputPlaceholder").click()  # its code was folded too
                cell.locator(bar[kind]).first.click()
                shown = cell.locator(SHOWN_IN[kind]).get_by_text(piece).first
                shown.wait_for(state="visible", timeout=5_000)
        report.facts.append(f"{len(folded)} answer cell(s) folded, each opens on a click")
        if run:  # on a new page: the first one has cells opened by the clicks above
            page.close()
            page = context.new_page()
            cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell")
            open_notebook(page, lab, path.name, "fold-run-" + re.sub(r"\W", "-", path.stem))
            menu(page, "Run", "Run All Cells")
            # the saved prompts already read [n]: wait for the run to start, then to end
            prompts = """(done) => {
              const all = [...document.querySelectorAll(
                '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')];
              const busy = all.some(p => p.textContent.trim() === '[*]:');
              return done ? !busy : busy;
            }"""
            page.wait_for_function(prompts, arg=False, timeout=30_000)
            page.wait_for_function(prompts, arg=True, timeout=RUN_TIMEOUT_S * 1000)
            for index, kind, piece in folded:
                cell, where = cells.nth(index), f"after running, cell {index + 1} ({kind})"
                visible = shows(cell, kind, piece)
                if not visible:
                    report.problems.append(f"{where}: running it did not open it")
            report.facts.append("running the cells opens them too")
    except Exception as exc:  # a missing element is a failure, not a crash
        report.problems.append(f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
    finally:
        page.close()
    return report


def unfold(path: Path) -> None:
    """Remove every cell's folding from ``path`` (for the self-check)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        cell["metadata"].pop("jupyter", None)
        cell["metadata"].pop("collapsed", None)
    path.write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")


def break_notebook(path: Path) -> int:
    """Add an exception to the third code cell of ``path``; return that cell's number."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    code_cells = [i for i, c in enumerate(notebook["cells"]) if c["cell_type"] == "code"]
    index = code_cells[min(2, len(code_cells) - 1)]
    cell = notebook["cells"][index]
    source = "".join(cell["source"])
    cell["source"] = 'raise RuntimeError("deliberately broken by the self-check")\n' + source
    path.write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")
    return index + 1


# -- main -------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("notebooks", nargs="*", help="notebook files (default: notebooks/*.ipynb)")
    parser.add_argument("--lab-python", default=str(ROOT / ".venv" / "bin" / "python"))
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--screenshots", default=str(ROOT / "browser-screenshots"))
    parser.add_argument(
        "--self-check",
        action="store_true",
        help="also run a broken copy of the first notebook; it must fail",
    )
    parser.add_argument(
        "--predictions-only",
        action="store_true",
        help="only check that predictions stay folded (step 5)",
    )
    args = parser.parse_args()
    notebooks = [Path(n).name for n in args.notebooks] or sorted(
        p.name for p in (ROOT / "notebooks").glob("*.ipynb")
    )
    shots = Path(args.screenshots)

    home = Path(tempfile.mkdtemp(prefix="agentlab-browser-"))
    root = home / "repo"
    shutil.copytree(ROOT, root, ignore=NOT_COPIED)
    broken_cell = None
    if args.self_check:
        shutil.copy(root / "notebooks" / notebooks[0], root / "notebooks" / "zz_broken.ipynb")
        broken_cell = break_notebook(root / "notebooks" / "zz_broken.ipynb")
        unfolded = root / "notebooks" / f"{notebooks[0][:2]}_zz_unfolded.ipynb"  # same chapter
        shutil.copy(root / "notebooks" / notebooks[0], unfolded)
        unfold(unfolded)
    os.environ["FONTCONFIG_FILE"] = str(fontconfig_with_cjk(home, args.lab_python))

    lab = Lab(args.lab_python, root, home)
    failures = 0
    try:
        lab.start()
        print(f"JupyterLab on 127.0.0.1:{lab.port} serving a copy in {root}", flush=True)
        with sync_playwright() as playwright:
            context = launch(playwright, home / "chromium-profile", args.chromium)
            try:
                ran_one = False
                for name in notebooks:
                    started = time.monotonic()
                    path = root / "notebooks" / name
                    reports = [check_predictions(context, lab, path, run=not ran_one)]
                    ran_one = ran_one or bool(reports[0].facts)
                    if not args.predictions_only:
                        reports.append(check_notebook(context, lab, path, shots))
                    problems = [p for r in reports for p in r.problems]
                    facts = [f for r in reports for f in r.facts]
                    took = time.monotonic() - started
                    if problems:
                        failures += 1
                        print(f"FAIL {name} ({took:.0f} s)")
                        for problem in problems:
                            print(f"     - {problem}")
                    else:
                        print(f"ok   {name} ({took:.0f} s): {'; '.join(facts)}", flush=True)
                if args.self_check:
                    report = check_predictions(context, lab, unfolded, run=False)
                    spoiled = [p for p in report.problems if "on screen before" in p]
                    if spoiled:
                        print(f"ok   self-check: an unfolded copy fails: {spoiled[0]}")
                    else:
                        failures += 1
                        print(f"FAIL self-check: predictions unfolded, but {report.problems}")
                if broken_cell is not None and not args.predictions_only:
                    report = check_notebook(
                        context, lab, root / "notebooks" / "zz_broken.ipynb", home / "shots"
                    )
                    named = [p for p in report.problems if p.startswith(f"cell {broken_cell} ")]
                    if named and "deliberately broken" in named[0]:
                        print(f"ok   self-check: a broken copy fails, naming the cell: {named[0]}")
                    else:
                        failures += 1
                        print(
                            f"FAIL self-check: cell {broken_cell} was broken on purpose, "
                            f"but the report was {report.problems or 'clean'}"
                        )
            finally:
                context.close()
    finally:
        lab.stop()
        shutil.rmtree(home, ignore_errors=True)
    print(
        f"{len(notebooks)} notebook(s) checked in the browser, {failures} failure(s); "
        f"screenshots in {shots}"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
