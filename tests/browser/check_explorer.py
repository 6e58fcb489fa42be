"""The cap explorer's slider really redraws the chart, in JupyterLab, in Chromium.

``agentlab.course.explorer.cap_explorer`` promises a chart whose slider works with
no kernel behind it. This check, run by ``make browser-test`` after
``check_notebooks.py`` (whose JupyterLab and browser helpers it reuses):

1. writes a small notebook into a temporary copy of the repository: a sweep
   of 30 tasks over caps 1–24 (as in chapter 05) and the explorer starting
   at cap 4;
2. runs it in JupyterLab in headless Chromium, with every request that is
   not for 127.0.0.1 refused and recorded, so the chart must be drawn by
   JupyterLab's built-in Vega renderer, not by scripts from a CDN;
3. checks the output is ``application/vnd.vegalite.v5+json`` drawn as a chart
   of real size, screenshots it, clicks the slider's track where cap 13 is
   (as a person would), screenshots it again, and passes only if the
   displayed value changed to 13 and the two pictures differ in the chart
   area — while two screenshots with nothing moved in between are identical
   (so the difference is the slider's doing, not noise).

Screenshots: ``browser-screenshots/explorer-before.png`` and ``-after.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from io import BytesIO
from pathlib import Path
from urllib.parse import urlparse

from PIL import Image, ImageChops
from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_notebooks import NOT_COPIED, run_all  # noqa: E402 (scripts beside this one)
from shared import CHROMIUM_FLAGS, ROOT, Lab, fontconfig_with_cjk  # noqa: E402

NOTEBOOK = "zz_cap_explorer.ipynb"
START_CAP, TARGET_CAP = 4, 13  # the slider starts at 4 and is dragged to 13
CELLS = [
    "from agentlab.course.experiments import make_population, sweep\n"
    "from agentlab.course.explorer import cap_explorer\n"
    "\n"
    "results = sweep(make_population(30, seed=0), range(1, 25))",
    f"cap_explorer(results, initial_cap={START_CAP})",
]
MIN_CHANGED = 0.002  # share of the chart's pixels that must change when the slider moves


def write_notebook(path: Path) -> None:
    cells = [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": f"explorer-{n}",
            "metadata": {},
            "outputs": [],
            "source": source,
        }
        for n, source in enumerate(CELLS, 1)
    ]
    # The chapter notebooks' metadata, so JupyterLab picks the kernel without asking.
    chapter = json.loads((ROOT / "notebooks" / "05_choosing_a_cap.ipynb").read_text("utf-8"))
    notebook = {"cells": cells, "metadata": chapter["metadata"], "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(notebook, ensure_ascii=False), encoding="utf-8")


def shot(page: Page, selector: str) -> Image.Image:
    return Image.open(BytesIO(page.locator(selector).screenshot())).convert("RGB")


def changed_share(a: Image.Image, b: Image.Image) -> float:
    """Share of pixels that differ between two pictures of the same size."""
    if a.size != b.size:
        return 1.0
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 16 else 0)
    return sum(diff.histogram()[255:]) / (a.width * a.height)


def settle(page: Page, selector: str, timeout_s: float = 10.0) -> Image.Image:
    """A screenshot taken once two in a row agree (Vega draws asynchronously)."""
    last = shot(page, selector)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        time.sleep(0.3)
        current = shot(page, selector)
        if changed_share(last, current) == 0.0:
            return current
        last = current
    return last


def check(page: Page, lab: Lab, shots: Path, outside: list[str]) -> list[str]:
    problems: list[str] = []
    cells = run_all(page, lab, NOTEBOOK)
    for cell in cells:
        for message in cell["errors"]:
            problems.append(f"cell {cell['index']} shows an error: {message}")
    if problems:
        return problems

    # JupyterLab's own Vega-Lite renderer (it takes the v5 mimetype) marks its output so.
    output = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output.jp-RenderedVegaLite"
    if page.locator(output).count() != 1:
        kinds = page.locator(".jp-OutputArea-output").evaluate_all(
            "els => els.map(e => e.className)"
        )
        return [f"no output drawn by JupyterLab's Vega-Lite renderer; outputs are {kinds}"]
    # The drawing itself, without the slider below it (which moves whatever the chart does).
    chart = f"{output} .vega-embed canvas.marks"
    page.wait_for_selector(chart, timeout=30_000)
    box = page.locator(chart).bounding_box()
    if not box or box["width"] < 600 or box["height"] < 250:
        problems.append(f"the chart is not drawn at a real size: {box}")

    slider = page.locator(f"{output} input[type=range]")
    value = page.locator(f"{output} input[type=range] + span")  # vega shows the value here
    if slider.count() != 1:
        return problems + [f"expected one slider, found {slider.count()}"]
    low, high = slider.get_attribute("min"), slider.get_attribute("max")
    if (low, high) != ("1", "24"):
        problems.append(f"the slider spans {low}..{high}, the sweep 1..24")
    before_value = value.inner_text().strip()
    before = settle(page, chart)
    again = settle(page, chart)
    if changed_share(before, again) != 0.0:
        problems.append("the chart changes with nothing moved: a pixel diff would prove nothing")

    # Click the track where TARGET_CAP sits (the thumb's centre travels across the
    # track minus one thumb width; 16 px in Chromium).
    track = slider.bounding_box()
    thumb = 16
    along = (TARGET_CAP - int(low)) / (int(high) - int(low))
    page.mouse.click(
        track["x"] + thumb / 2 + along * (track["width"] - thumb),
        track["y"] + track["height"] / 2,
    )
    after = settle(page, chart)
    after_value = value.inner_text().strip()

    shots.mkdir(parents=True, exist_ok=True)
    before.save(shots / "explorer-before.png")
    after.save(shots / "explorer-after.png")
    wanted = str(TARGET_CAP)
    if (before_value, after_value) != (str(START_CAP), wanted):
        problems.append(
            f"the slider shows {before_value!r} then {after_value!r}, "
            f"expected {START_CAP!r} then {wanted!r}"
        )
    share = changed_share(before, after)
    if share < MIN_CHANGED:
        problems.append(f"moving the slider changed {share:.2%} of the chart, not a redraw")
    if outside:
        problems.append(f"the page asked for {len(outside)} outside resource(s): {outside[:3]}")
    if not problems:
        print(
            f"ok   cap explorer: slider {before_value} -> {after_value}, {share:.1%} of the "
            f"chart redrawn, nothing fetched from outside; screenshots in {shots.name}/"
        )
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lab-python", default=str(ROOT / ".venv" / "bin" / "python"))
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--screenshots", default=str(ROOT / "browser-screenshots"))
    args = parser.parse_args()
    shots = Path(args.screenshots)

    home = Path(tempfile.mkdtemp(prefix="agentlab-explorer-"))
    root = home / "repo"
    shutil.copytree(ROOT, root, ignore=NOT_COPIED)
    write_notebook(root / "notebooks" / NOTEBOOK)
    os.environ["FONTCONFIG_FILE"] = str(fontconfig_with_cjk(home, args.lab_python))

    lab = Lab(args.lab_python, root, home)
    problems: list[str] = []
    outside: list[str] = []
    try:
        lab.start()
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                str(home / "chromium-profile"),
                executable_path=args.chromium,
                args=CHROMIUM_FLAGS,
                headless=True,
                viewport={"width": 1400, "height": 1000},
            )

            def local_only(route) -> None:
                host = urlparse(route.request.url).hostname
                if host in ("127.0.0.1", "localhost") or route.request.url.startswith("data:"):
                    route.continue_()
                else:
                    outside.append(route.request.url)
                    route.abort()

            context.route("**/*", local_only)
            page = context.new_page()
            try:
                problems = check(page, lab, shots, outside)
            except Exception as exc:  # a missing element or a timeout is a failure, not a crash
                problems = [f"{type(exc).__name__}: {str(exc).splitlines()[0]}"]
                shots.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=shots / "explorer-failed.png")
                problems.append(f"what the page showed: {shots.name}/explorer-failed.png")
            finally:
                context.close()
    finally:
        lab.stop()
        shutil.rmtree(home, ignore_errors=True)
    for problem in problems:
        print(f"FAIL cap explorer: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
