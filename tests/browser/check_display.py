"""The run display and the trace viewer, as a reader sees them in a real browser.

1. With the course's ``.venv``, ``tests/display_scenarios.py`` plays every
   scenario of chapters 01–03 with traces on, writes ``agentlab trace`` pages
   for each run, one page holding every run's ``run_html``, and what each page
   must show (``expected.json``).
2. Each fault scenario's viewer page is opened from ``file://`` in headless
   Chromium with the network cut off (any request that is not ``file:`` is
   aborted and counted: there must be none). For each page: a screenshot, and
   DOM assertions — the badges carry the run's status / outcome / stop reason
   (and phase) codes, there is one step section per step, each tool call shows
   its error code in order, a truncated result shows its marker, no
   ``<script>``, nothing wider than the page (also at a phone's width), and
   the Chinese labels are drawn with a CJK font (asked of Chromium itself).
3. The same assertions for every run's ``run_html`` fragment on one page.
4. ``tests/notebooks/display_demo.ipynb`` run in JupyterLab: no cell shows an
   error, every fragment renders inside the notebook with its badges and a
   CJK font, and the notebook's own look is untouched (one screenshot).

Screenshots go to ``browser-screenshots/display/``.

    make browser-test   # runs check_notebooks.py, then this
    .venv-browser/bin/python tests/browser/check_display.py --help
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

from check_notebooks import NOT_COPIED, run_all
from playwright.sync_api import Page, sync_playwright
from shared import CJK_FONT, ROOT, Lab, fontconfig_with_cjk, launch, platform_fonts

PHONE_WIDTH = 420
GUARD_CODES = ("REPEATED_CALL", "TOO_MANY_CALLS", "NOT_RUN")

# Facts about one .al-run fragment, read from the DOM.
FRAGMENT_JS = """(root) => {
  const text = (sel) => [...root.querySelectorAll(sel)].map(e => e.textContent.trim());
  const badge = (f) => root.querySelector(`.al-badge[data-field=${f}] .al-code`)?.textContent || '';
  const box = root.getBoundingClientRect();
  const wide = [...root.querySelectorAll('*')].filter(e => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && (r.right > box.right + 1 || r.left < box.left - 1);
  }).map(e => e.className || e.tagName).slice(0, 5);
  return {
    status: badge('status'), outcome: badge('outcome'), stop_reason: badge('stop_reason'),
    phase: badge('phase'),
    meanings: text('.al-badge .al-mean'),
    steps: root.querySelectorAll('.al-step').length,
    calls: [...root.querySelectorAll('.al-call')].map(c => ({
      step: Number(c.closest('.al-step').dataset.step), code: c.dataset.code,
      kind: c.dataset.kind, tool: c.querySelector('.al-tool').textContent.trim(),
    })),
    truncation: root.querySelectorAll('.al-trunc').length,
    // the marker inside the result text, where the result text was recorded
    marks: root.querySelectorAll('.al-trunc-mark').length,
    unrecorded: root.querySelectorAll('.al-call .al-result .al-quiet').length,
    guards: root.querySelectorAll('.al-guard').length,
    spans: root.querySelectorAll('.al-span').length,
    bars_outside: [...root.querySelectorAll('.al-span')].filter(s => {
      const track = s.parentElement.getBoundingClientRect(), bar = s.getBoundingClientRect();
      return bar.right > track.right + 0.5 || bar.left < track.left - 0.5;
    }).length,
    scripts: document.querySelectorAll('script').length,
    // the stylesheet applies (JupyterLab drops it from untrusted outputs)
    styled: getComputedStyle(root.querySelector('.al-sep') || root).display === 'none',
    overflowing: wide,
  };
}"""


def check_fragment(facts: dict, want: dict) -> list[str]:
    """What is wrong with one rendered run, compared with what it must show."""
    problems = []
    for key in ("status", "outcome", "stop_reason", "phase"):
        if facts[key] != want[key]:
            problems.append(f"{key} badge says {facts[key]!r}, the run says {want[key]!r}")
    if any(not m for m in facts["meanings"]):
        problems.append("a badge has no words next to its code")
    if facts["steps"] != want["steps"]:
        problems.append(f"{facts['steps']} step sections for {want['steps']} steps")
    shown = [(c["step"], c["tool"], c["code"]) for c in facts["calls"]]
    expected = [(c["step"], c["tool"], c["code"]) for c in want["calls"]]
    if shown != expected:
        problems.append(f"tool calls shown {shown}, the run made {expected}")
    guarded = sum(c["code"] in GUARD_CODES for c in want["calls"])
    if facts["guards"] != guarded:
        problems.append(f"{facts['guards']} guard notes for {guarded} refused or unrun calls")
    if want["truncated"] and not facts["truncation"]:
        problems.append("a truncated result is not marked as truncated")
    if want["truncated"] and not facts["marks"] and not facts["unrecorded"]:
        problems.append("a truncated result does not show the truncation marker the model saw")
    if not facts["styled"]:
        problems.append("the run's stylesheet is not applied")
    if facts["scripts"]:
        problems.append(f"{facts['scripts']} <script> element(s) on the page")
    if facts["bars_outside"]:
        problems.append(f"{facts['bars_outside']} timeline bar(s) stick out of their track")
    if facts["overflowing"]:
        problems.append(f"wider than the run's box: {facts['overflowing']}")
    return problems


def cjk_problem(page: Page, selector: str) -> str | None:
    fonts = platform_fonts(page, selector)
    if not any(CJK_FONT.search(f) for f in fonts):
        return f"Chinese text is not drawn with a CJK font: {fonts or 'none'}"
    return None


def page_too_wide(page: Page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth > window.innerWidth + 1")


def check_viewer(page: Page, path: Path, want: dict, shots: Path) -> list[str]:
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(path.as_uri())
    root = page.locator(".al-run")
    if root.count() != 1:
        return [f"{root.count()} .al-run elements on the page"]
    problems = check_fragment(root.evaluate(FRAGMENT_JS), want)
    if not page.locator(".al-events tbody tr").count():
        problems.append("the viewer has no event table")
    problem = cjk_problem(page, ".al-run .al-section-title")
    if problem:
        problems.append(problem)
    page.screenshot(path=shots / f"trace-{want['task_id']}.png", full_page=True)
    page.set_viewport_size({"width": PHONE_WIDTH, "height": 900})
    wide = root.evaluate(FRAGMENT_JS)["overflowing"]
    if page_too_wide(page) or wide:
        problems.append(f"content overflows sideways at {PHONE_WIDTH}px: {wide}")
    return problems


def check_display_page(page: Page, path: Path, expected: dict, shots: Path) -> dict[str, list]:
    page.set_viewport_size({"width": 1100, "height": 900})
    page.goto(path.as_uri())
    results: dict[str, list] = {}
    fragments = page.locator(".al-run")
    runs = [k for k in expected if not k.startswith("_")]
    if fragments.count() != len(runs):
        return {"display.html": [f"{fragments.count()} fragments for {len(runs)} runs"]}
    for i, task_id in enumerate(runs):
        fragment = fragments.nth(i)
        results[task_id] = check_fragment(fragment.evaluate(FRAGMENT_JS), expected[task_id])
        fragment.screenshot(path=shots / f"display-{task_id}.png")
    problem = cjk_problem(page, ".al-run .al-section-title")
    if problem:
        results["display.html"] = [problem]
    page.set_viewport_size({"width": PHONE_WIDTH, "height": 900})
    if page_too_wide(page):
        results.setdefault("display.html", []).append(f"overflows sideways at {PHONE_WIDTH}px")
    return results


def check_in_lab(context, lab: Lab, expected: dict, shots: Path) -> list[str]:
    """The demo notebook in JupyterLab: every fragment renders inside the notebook."""
    page = context.new_page()
    try:
        cells = run_all(page, lab, "display_demo.ipynb", folder="tests/notebooks")
        problems = [
            f"cell {c['index']} shows an error: {message}" for c in cells for message in c["errors"]
        ]
        if problems:
            return problems
        panel = ".jp-NotebookPanel:not(.lm-mod-hidden)"
        fragments = page.locator(f"{panel} .jp-OutputArea-output .al-run")
        runs = [k for k in expected if not k.startswith("_")]
        if fragments.count() != len(runs):
            return [f"{fragments.count()} run displays in the notebook for {len(runs)} runs"]
        for i, task_id in enumerate(runs):
            facts = fragments.nth(i).evaluate(FRAGMENT_JS)
            facts["scripts"] = 0  # JupyterLab's own scripts are not ours
            problems += [f"{task_id}: {p}" for p in check_fragment(facts, expected[task_id])]
        problem = cjk_problem(page, f"{panel} .al-run .al-section-title")
        if problem:
            problems.append(problem)
        # Our styles are scoped: a markdown heading of the notebook keeps JupyterLab's font size.
        sizes = page.evaluate(
            """(panel) => [...document.querySelectorAll(panel + ' .jp-RenderedMarkdown h1')]
                .map(h => getComputedStyle(h).fontSize)""",
            panel,
        )
        if sizes and float(sizes[0].rstrip("px")) < 20:
            problems.append(f"the notebook's heading shrank to {sizes[0]}: styles leaked")
        fragments.nth(0).evaluate("e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=shots / "lab-display_demo.png")
    finally:
        page.close()
    return problems


def without_outputs(path: Path) -> None:
    """Drop the stored outputs: every fragment checked must come from the live run
    (stored outputs are shown untrusted, and could be mistaken for a finished run)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    path.write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")


def make_pages(lab_python: str, out: Path) -> dict:
    """Play the scenarios with the course's .venv; return expected.json."""
    env = {**os.environ, "AGENTLAB_OFFLINE": "1", "PYTHONHASHSEED": "0"}
    script = ROOT / "tests" / "display_scenarios.py"
    subprocess.run([lab_python, str(script), str(out)], check=True, env=env, cwd=ROOT)
    return json.loads((out / "expected.json").read_text(encoding="utf-8"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lab-python", default=str(ROOT / ".venv" / "bin" / "python"))
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--screenshots", default=str(ROOT / "browser-screenshots"))
    parser.add_argument("--no-lab", action="store_true", help="skip the JupyterLab part")
    args = parser.parse_args()
    shots = Path(args.screenshots) / "display"
    shots.mkdir(parents=True, exist_ok=True)

    home = Path(tempfile.mkdtemp(prefix="agentlab-display-"))
    failures: list[str] = []
    lab = None
    try:
        started = time.monotonic()
        expected = make_pages(args.lab_python, home / "pages")
        print(f"played {len(expected) - 1} runs in {time.monotonic() - started:.0f} s", flush=True)
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
                for task_id in expected["_fault_scenarios"]:
                    path = home / "pages" / "viewer" / f"{task_id}.html"
                    problems = check_viewer(page, path, expected[task_id], shots)
                    report(f"viewer {task_id}", problems, failures)
                for name, problems in check_display_page(
                    page, home / "pages" / "display.html", expected, shots
                ).items():
                    report(f"run_html {name}", problems, failures)
                if blocked:
                    report("offline", [f"the pages asked the network for {blocked[:3]}"], failures)
                page.close()
                if not args.no_lab:
                    root = home / "repo"
                    shutil.copytree(ROOT, root, ignore=NOT_COPIED)
                    without_outputs(root / "tests" / "notebooks" / "display_demo.ipynb")
                    lab = Lab(args.lab_python, root, home)
                    lab.start()
                    problems = check_in_lab(context, lab, expected, shots)
                    report("JupyterLab display_demo.ipynb", problems, failures)
            finally:
                context.close()
    finally:
        if lab is not None:
            lab.stop()
        shutil.rmtree(home, ignore_errors=True)
    print(f"display checked in the browser, {len(failures)} failure(s); screenshots in {shots}")
    return 1 if failures else 0


def report(name: str, problems: list[str], failures: list[str]) -> None:
    if problems:
        failures.append(name)
        print(f"FAIL {name}")
        for problem in problems:
            print(f"     - {problem}")
    else:
        print(f"ok   {name}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
