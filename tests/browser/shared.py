"""What the browser checks share: Chromium's flags, a private JupyterLab, CJK fonts.

- :data:`CHROMIUM_FLAGS` and :func:`launch`: Debian's chromium, headless, with
  a fresh profile, driven by Playwright through its executable path;
- :class:`Lab`: a JupyterLab server on 127.0.0.1 with its own settings,
  workspace and runtime folders, shut down whatever happens;
- :func:`fontconfig_with_cjk`: a fonts.conf adding the Noto Sans CJK font that
  ``mplfonts`` ships, so Chinese is drawn without a system font package;
- :func:`platform_fonts`: the fonts Chromium actually used for an element
  (DevTools ``CSS.getPlatformFontsForNode``), to tell CJK glyphs from tofu.

Used by ``check_notebooks.py`` and ``check_display.py``; checks nothing itself.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import BrowserContext, Page, Playwright

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
        # No autosave: a cell a check opened is not saved as opened.
        write_json(
            settings / "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings",
            {"autosave": False},
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


def launch(
    playwright: Playwright, profile: Path, chromium: str, width: int = 1400, height: int = 1000
) -> BrowserContext:
    """Headless Chromium with a fresh ``--user-data-dir`` at ``profile``."""
    return playwright.chromium.launch_persistent_context(
        str(profile),
        executable_path=chromium,
        args=CHROMIUM_FLAGS,
        headless=True,
        viewport={"width": width, "height": height},
    )


def platform_fonts(page: Page, selector: str) -> list[str]:
    """The fonts Chromium used to draw the first element matching ``selector``."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})
        if not node.get("nodeId"):
            return []
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
    finally:
        cdp.detach()
    return [f"{f['familyName']} ({f['glyphCount']} glyphs)" for f in fonts]
