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
   chart) under ``browser-screenshots/`` (git-ignored).

JupyterLab is shut down (API call, then terminate, then kill) whatever
happens. ``--self-check`` finally runs a scratch copy of the first notebook
with an exception added to one cell and passes only if that failure is
reported naming the cell: a check that cannot fail proves nothing.

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
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path

from PIL import Image
from playwright.sync_api import BrowserContext, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CJK_FONT = re.compile(r"CJK|Han Sans|Han Serif|WenQuanYi|Droid Sans Fallback|Hei|Song|Ming", re.I)
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv*", "runs", "__pycache__", ".pytest_cache", "browser-screenshots", "*.egg-info"
)
RUN_TIMEOUT_S = 240  # per notebook; the slowest chapter runs in ~15 s here


@dataclass
class Report:
    notebook: str
    problems: list[str] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)


# -- JupyterLab ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Lab:
    """A JupyterLab server on 127.0.0.1, serving ``root``, with private config."""

    python: str
    root: Path
    home: Path
    port: int = field(default_factory=free_port)
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    process: subprocess.Popen | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        settings = self.home / "settings"
        # No windowing: every cell stays in the page, so every output can be checked.
        write_json(
            settings / "@jupyterlab/notebook-extension/tracker.jupyterlab-settings",
            {"windowingMode": "none"},
        )
        # No news or update checks (and no toast covering the notebook).
        write_json(
            settings / "@jupyterlab/apputils-extension/notification.jupyterlab-settings",
            {"fetchNews": "false", "checkForUpdates": False},
        )
        env = {
            **os.environ,
            "JUPYTERLAB_SETTINGS_DIR": str(settings),
            "JUPYTERLAB_WORKSPACES_DIR": str(self.home / "workspaces"),
            "JUPYTER_CONFIG_DIR": str(self.home / "config"),
            "JUPYTER_RUNTIME_DIR": str(self.home / "runtime"),
            "JUPYTER_PREFER_ENV_PATH": "1",
            "AGENTLAB_OFFLINE": "1",
            "AGENTLAB_RUNS_DIR": str(self.home / "runs"),
        }
        command = [
            self.python,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={self.port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={self.token}",
            f"--ServerApp.root_dir={self.root}",
            "--LabApp.news_url=",
            "--ServerApp.allow_remote_access=False",
        ]
        if os.geteuid() == 0:
            command.append("--allow-root")
        log = open(self.home / "jupyterlab.log", "wb")  # noqa: SIM115 (closed with the process)
        self.process = subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"JupyterLab exited at start-up; see {self.home}/jupyterlab.log")
            try:
                with urllib.request.urlopen(self.api("status"), timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        raise SystemExit("JupyterLab did not answer within 60 s")

    def api(self, path: str) -> str:
        return f"{self.base}/api/{path}?token={self.token}"

    def stop(self) -> None:
        """Ask politely, then terminate, then kill: it never outlives the check."""
        if self.process is None or self.process.poll() is not None:
            return
        try:
            request = urllib.request.Request(self.api("shutdown"), method="POST")
            urllib.request.urlopen(request, timeout=5).close()
            self.process.wait(timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


def fontconfig_with_cjk(home: Path, lab_python: str) -> Path:
    """A fonts.conf: the system's fonts plus the Noto Sans CJK that mplfonts ships."""
    fonts = subprocess.run(
        [
            lab_python,
            "-c",
            "import mplfonts, pathlib; print(pathlib.Path(mplfonts.__file__).parent / 'fonts')",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    conf = home / "fonts.conf"
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
        f"  <dir>{fonts}</dir>\n  <cachedir>{home / 'fontcache'}</cachedir>\n</fontconfig>\n",
        encoding="utf-8",
    )
    return conf


# -- one notebook in the browser ---------------------------------------------------------


def menu(page: Page, top: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(f"^{top}$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(item)}$")).click()


CELL_STATE_JS = """() => {
  const cells = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')];
  return cells.map((cell, i) => {
    const code = cell.classList.contains('jp-CodeCell');
    const prompt = code ? (cell.querySelector('.jp-InputPrompt')?.textContent || '') : '';
    const bad = [...cell.querySelectorAll('.jp-OutputArea-output')].filter(o =>
      ['application/vnd.jupyter.stderr', 'application/vnd.jupyter.error']
        .includes(o.getAttribute('data-mime-type')));
    const source = (cell.querySelector('.cm-content')?.innerText || '').trim().split('\\n')[0];
    return {index: i + 1, code, prompt: prompt.trim(), source,
            errors: bad.map(o => o.innerText.trim().split('\\n').slice(-1)[0].slice(0, 200))};
  });
}"""


def run_all(page: Page, lab: Lab, notebook: str) -> list[dict]:
    # A workspace of its own per notebook: nothing restored from an earlier tab.
    workspace = re.sub(r"\W", "-", notebook)
    page.goto(f"{lab.base}/lab/workspaces/{workspace}/tree/notebooks/{notebook}?token={lab.token}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=60_000)
    panel = ".jp-NotebookPanel:not(.lm-mod-hidden)"
    idle = f"{panel} .jp-Notebook-ExecutionIndicator[data-status='idle']"
    # The indicator also says "idle" while the panel has no kernel yet ("No Kernel"),
    # and "Run All Cells" would then do nothing: wait for the kernel's name too.
    page.wait_for_function(
        """panel => {
          const name = document.querySelector(panel + ' .jp-Toolbar-kernelName');
          return name && name.textContent.trim() && !/No Kernel/.test(name.textContent);
        }""",
        arg=panel,
        timeout=60_000,
    )
    page.wait_for_selector(idle, timeout=60_000)  # the kernel has started
    menu(page, "Edit", "Clear Outputs of All Cells")
    menu(page, "Run", "Run All Cells")
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        cells = page.evaluate(CELL_STATE_JS)
        code = [c for c in cells if c["code"]]
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
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "[data-cjk-probe]"})
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
    cdp.detach()
    return [f"{f['familyName']} ({f['glyphCount']} glyphs)" for f in fonts]


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
        # the outcome column: "结局" in Chinese (the default), "outcome" in English
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
    os.environ["FONTCONFIG_FILE"] = str(fontconfig_with_cjk(home, args.lab_python))

    lab = Lab(args.lab_python, root, home)
    failures = 0
    try:
        lab.start()
        print(f"JupyterLab on 127.0.0.1:{lab.port} serving a copy in {root}", flush=True)
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                str(home / "chromium-profile"),  # a fresh --user-data-dir
                executable_path=args.chromium,
                args=CHROMIUM_FLAGS,
                headless=True,
                viewport={"width": 1400, "height": 1000},
            )
            try:
                for name in notebooks:
                    started = time.monotonic()
                    report = check_notebook(context, lab, root / "notebooks" / name, shots)
                    took = time.monotonic() - started
                    if report.problems:
                        failures += 1
                        print(f"FAIL {name} ({took:.0f} s)")
                        for problem in report.problems:
                            print(f"     - {problem}")
                    else:
                        print(f"ok   {name} ({took:.0f} s): {'; '.join(report.facts)}", flush=True)
                if broken_cell is not None:
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
