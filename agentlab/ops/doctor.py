"""``agentlab doctor``: check a student's set-up and say what to fix.

From a terminal (``agentlab doctor [--ping]``, exit code 0 when nothing
failed) or a notebook cell (``from agentlab.ops.doctor import doctor; doctor()``),
in order: the Python version; the installed packages (against
``requirements.lock`` in a checkout, else against what the package declares);
the CJK font the charts use; the ``.env`` file (a line that does not parse,
names that look like a typo); which real model is configured (never the key),
its preset, and a retired model name; a proxy variable, when one is set; and
only with ``ping=True`` one tiny chat request, saying what its failure means.

Each check gives a :class:`Finding` (``ok``, ``warn`` or ``fail``, what was
found and how to fix it). It only reads and reports: it installs, edits and
retries nothing, and the key never appears in what it prints.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path
from urllib.parse import urlparse

from packaging.requirements import Requirement
from packaging.version import Version

from ..clients.real import (
    PROVIDERS,
    VARIABLES,
    ModelConfigError,
    ModelSettings,
    Provider,
    check_proxies,
    env_file_text,
    load_settings,
    proxies_shown,
    proxy_variables,
    read_env_file,
)
from ..i18n import tr

# How services say a model name is unknown or retired: DeepSeek "Model Not Exist" and "The
# supported API model names are ..., but you passed deepseek-chat" (raycast/extensions issue
# 29730), OpenAI "The model `x` does not exist" (model_not_found), SiliconFlow's own words.
MODEL_MISSING = re.compile(
    r"model\W[^.\n]{0,60}?(?:does not exist|doesn't exist|not exist|not found|no longer|retired"
    r"|deprecated|decommissioned|not supported)|supported (?:api )?model names|model_not_found",
    re.IGNORECASE,
)
MIN_PYTHON = (3, 11)
CHINESE_SAMPLE = "中文销售额步数"  # glyphs the charts draw
MAX_LISTED = 6  # packages named in one finding; the rest are counted
INDENT = "       "  # a finding's further lines and its fix, under its message
KNOWN_VARIABLES = [*VARIABLES, "AGENTLAB_OFFLINE", "AGENTLAB_LANG", "AGENTLAB_RUNS_DIR"]


@dataclass(frozen=True)
class Finding:
    """What one check found: ``level`` is ``ok``, ``warn`` or ``fail``."""

    check: str
    level: str
    message: str
    fix: str = ""


def doctor(ping: bool = False) -> None:
    """Check the set-up and print what was found (for a notebook's first cell)."""
    print(render(check_setup(ping=ping)))


def main(ping: bool = False) -> int:
    """``agentlab doctor``: print the findings; exit code 1 when one failed."""
    findings = check_setup(ping=ping)
    print(render(findings))
    return 1 if any(f.level == "fail" for f in findings) else 0


def check_setup(
    ping: bool = False,
    *,
    env_file: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    timeout: float = 20.0,
) -> list[Finding]:
    """Every check, in order; ``ping`` adds one request to the configured model."""
    environ = os.environ if environ is None else environ
    lock = find_lock()
    findings = [check_python(), check_packages(lock), check_font(lock=lock)]
    env = check_env_file(env_file)
    findings += env
    if any(f.level == "fail" for f in env):
        return findings  # the provider check would only repeat the same error
    provider, settings = check_provider(env_file, environ)
    findings.append(provider)
    if environ.get("AGENTLAB_OFFLINE"):
        findings.append(Finding("offline", "warn", tr("doctor.offline"), tr("doctor.offline_fix")))
    proxy = check_proxy(environ)
    findings += [proxy] if proxy else []
    if ping and proxy and proxy.level == "fail":  # building the client would fail the same way
        skipped = tr("envcheck.doctor.ping_skipped")
        findings.append(Finding("ping", "warn", skipped, tr("envcheck.doctor.ping_skipped_fix")))
    elif ping:
        findings.append(check_ping(settings, environ, timeout))
    return findings


def render(findings: list[Finding]) -> str:
    """The findings as lines a person reads, ending with a one-line verdict."""
    lines = [tr("doctor.title")]
    for f in findings:
        level, check = tr(f"doctor.level.{f.level}"), tr(f"doctor.check.{f.check}")
        lines.append(tr("doctor.line", level=level, check=check, message=f.message))
        if f.fix:
            lines.append(INDENT + tr("doctor.fix", fix=f.fix))
    failed = sum(f.level == "fail" for f in findings)
    warned = sum(f.level == "warn" for f in findings)
    if failed:
        lines.append(tr("doctor.summary.fail", n=failed))
    elif warned:
        lines.append(tr("doctor.summary.warn", n=warned))
    else:
        lines.append(tr("doctor.summary.clean"))
    return "\n".join(lines)


# -- Python and packages -----------------------------------------------------------------------


def check_python(version: tuple[int, ...] | None = None) -> Finding:
    version = tuple(version or sys.version_info[:3])
    shown = ".".join(str(part) for part in version)
    if version[:2] >= MIN_PYTHON:
        return Finding("python", "ok", f"Python {shown}")
    return Finding(
        "python", "fail", tr("doctor.python.old", version=shown), tr("doctor.python.old_fix")
    )


def find_lock() -> Path | None:
    """``requirements.lock`` of the checkout agentlab runs from (an editable
    install), or of the working folder or its parent; ``None`` for a wheel."""
    checkout = Path(__file__).resolve().parents[2]  # agentlab/ops/doctor.py -> the checkout
    for folder in (checkout, Path.cwd(), Path.cwd().parent):
        if (folder / "requirements.lock").is_file() and (folder / "pyproject.toml").is_file():
            return folder / "requirements.lock"
    return None


def read_lock(lock: Path) -> dict[str, str]:
    """``{name: version}`` from ``name==version`` lines."""
    pinned = {}
    for line in lock.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.split("#")[0].strip().partition("==")
        if sep:
            pinned[name.strip()] = version.strip()
    return pinned


def installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def check_packages(lock: Path | None, declared: list[str] | None = None) -> Finding:
    """Missing or too old run-time dependencies fail; versions that differ from the lock warn."""
    if declared is None:  # the run-time dependencies agentlab declares (no extras)
        try:
            declared = [r for r in metadata.requires("agentlab") or [] if ";" not in r]
        except metadata.PackageNotFoundError:  # a checkout run without installing it
            declared = []
    problems = []
    for requirement in map(Requirement, declared):
        have = installed_version(requirement.name)
        need = next((s.version for s in requirement.specifier if s.operator == ">="), None)
        if have is None:
            problems.append(tr("doctor.packages.missing_one", name=requirement.name))
        elif need and Version(have) < Version(need):
            problems.append(
                tr("doctor.packages.old_one", name=requirement.name, have=have, need=need)
            )
    install = tr("doctor.packages.fix_lock") if lock else tr("doctor.packages.fix_wheel")
    if problems:
        message = tr("doctor.packages.broken", problems=listed(problems))
        return Finding("packages", "fail", message, install)
    if lock is None:
        return Finding("packages", "ok", tr("doctor.packages.ok_declared", n=len(declared)))
    pinned = read_lock(lock)
    differ = []
    for name, want in pinned.items():
        have = installed_version(name)
        if have != want:
            key = "doctor.packages.differs_one" if have else "doctor.packages.absent_one"
            differ.append(tr(key, name=name, have=have, want=want))
    if differ:
        message = tr("doctor.packages.differ", n=len(differ), problems=listed(differ))
        return Finding("packages", "warn", message, install)
    return Finding("packages", "ok", tr("doctor.packages.ok_lock", n=len(pinned)))


def listed(items: list[str]) -> str:
    more = tr("doctor.and_more", n=len(items) - MAX_LISTED) if len(items) > MAX_LISTED else ""
    return tr("list.sep").join(items[:MAX_LISTED]) + more


# -- the chart font ----------------------------------------------------------------------------


def check_font(font_file: str | Path | None = None, lock: Path | None = None) -> Finding:
    """The bundled CJK font exists, matplotlib can read it, and it has Chinese glyphs."""
    wanted = read_lock(lock).get("mplfonts") if lock else None
    fix = tr("doctor.font.fix", spec=f"mplfonts=={wanted}" if wanted else "mplfonts")
    try:
        from matplotlib.ft2font import FT2Font

        from ..course.report import CJK_FONT_FILE

        path = Path(font_file or resources.files("mplfonts") / "fonts" / CJK_FONT_FILE)
    except ImportError as exc:
        return Finding("font", "fail", tr("doctor.font.no_package", name=exc.name), fix)
    if not path.is_file():
        return Finding("font", "fail", tr("doctor.font.no_file", name=path.name), fix)
    try:
        font = FT2Font(str(path))
        glyphs = font.get_charmap()
    except (OSError, RuntimeError, ValueError) as exc:
        return Finding("font", "fail", tr("doctor.font.unreadable", name=path.name, error=exc), fix)
    if not all(ord(char) in glyphs for char in CHINESE_SAMPLE):
        return Finding("font", "fail", tr("doctor.font.no_chinese", name=font.family_name), fix)
    return Finding("font", "ok", tr("doctor.font.ok", name=font.family_name))


# -- .env and the configured model --------------------------------------------------------------


def check_env_file(env_file: str | Path | None = None) -> list[Finding]:
    """``.env`` parses (else the bad line), and its names are ones agentlab reads."""
    from dotenv import find_dotenv

    path = Path(env_file) if env_file else Path(find_dotenv(usecwd=True) or ".env")
    if not path.is_file():
        return [Finding("env_file", "ok", tr("doctor.env.none"))]
    try:
        values = read_env_file(path)
    except ModelConfigError as exc:
        message, fix = tr("doctor.env.broken", path=path, error=exc), tr("doctor.env.broken_fix")
        return [Finding("env_file", "fail", message, fix)]
    findings = [Finding("env_file", "ok", tr("doctor.env.ok", path=path, n=len(values)))]
    lines = env_file_text(path).splitlines()  # read above, so it decodes
    for name in values:
        close = difflib.get_close_matches(name, KNOWN_VARIABLES, n=1, cutoff=0.8)
        if close and name not in KNOWN_VARIABLES:
            assigns = re.compile(rf"\s*(export\s+)?{re.escape(name)}\s*=")
            line = next((i for i, text in enumerate(lines, 1) if assigns.match(text)), 0)
            message = tr("doctor.env.typo", name=name, line=line, suggestion=close[0])
            fix = tr("doctor.env.typo_fix", name=name, suggestion=close[0])
            findings.append(Finding("env_file", "warn", message, fix))
    return findings


def host_of(url: str) -> str:
    """``https://user:pw@api.example.com:8443/v1`` -> ``api.example.com:8443``."""
    parsed = urlparse(url)
    return f"{parsed.hostname}:{parsed.port}" if parsed.port else str(parsed.hostname)


def check_provider(
    env_file: str | Path | None, environ: Mapping[str, str]
) -> tuple[Finding, ModelSettings | None]:
    """Which real model is configured (never the key), or what is wrong with the settings."""
    # Checked even when AGENTLAB_OFFLINE is set: that switch is reported on its own.
    settings_env = {k: v for k, v in environ.items() if k != "AGENTLAB_OFFLINE"}
    try:
        settings = load_settings(env_file, environ=settings_env)
    except ModelConfigError as exc:
        if str(exc) == tr("config.nothing"):
            lines = [tr("provider.presets_title"), *map(preset_line, PROVIDERS)]
            table = "".join(f"\n{INDENT}{line}" for line in lines)
            return Finding("provider", "ok", tr("doctor.provider.none") + table), None
        return Finding("provider", "fail", str(exc), tr("doctor.provider.broken_fix")), None
    preset = preset_of(settings)
    message = tr(
        "doctor.provider.ok",
        provider=settings.provider,
        host=host_of(settings.base_url),
        model=settings.model,
    )
    message += f"\n{INDENT}{preset_line(preset)}"
    current = preset.retired.get(settings.model)
    if current:
        retired = tr(
            "provider.retired_model", model_var=preset.model_var, model=settings.model,
            provider=preset.name, retired_on=preset.retired_on,
        )  # fmt: skip
        fix = tr(
            "provider.retired_model_fix", model_var=preset.model_var, current=current,
            default=preset.default_model,
        )  # fmt: skip
        return Finding("provider", "fail", f"{message}\n{INDENT}{retired}", fix), settings
    return Finding("provider", "ok", message), settings


def preset_of(settings: ModelSettings) -> Provider:
    return next(p for p in PROVIDERS if p.name == settings.provider)


def preset_line(preset: Provider) -> str:
    """One preset as a line: its variables, defaults, request fields and when it was checked."""
    variables = [v for v in (preset.key_var, preset.url_var, preset.model_var) if v]
    shown = json.dumps(preset.request, ensure_ascii=False)
    return tr(
        "provider.preset_line", name=preset.name, variables=tr("list.sep").join(variables),
        model=preset.default_model or tr("provider.preset_no_default"),
        fields=tr("provider.request_fields", fields=shown) if preset.request else "",
        checked=preset.checked, source=preset.source,
    )  # fmt: skip


def check_proxy(environ: Mapping[str, str]) -> Finding | None:
    """The proxy the requests to a real model go through, if a variable sets one."""
    try:
        proxies = check_proxies(environ)
    except ModelConfigError as exc:
        names = " ".join(proxy_variables(environ))
        return Finding("proxy", "fail", str(exc), tr("envcheck.doctor.proxy_fix", names=names))
    if not proxies:
        return None
    return Finding("proxy", "ok", tr("envcheck.doctor.proxy_ok", proxies=proxies_shown(proxies)))


# -- the test request --------------------------------------------------------------------------


def check_ping(
    settings: ModelSettings | None, environ: Mapping[str, str], timeout: float = 20.0
) -> Finding:
    """One chat request of one token to the configured model; a failure says what to fix."""
    import openai

    from ..model.failures import ModelFailure, failure_from, shown_safely
    from ..model.framing import other_framing, turn_from_text
    from ..model.turn import turn_from_completion

    if environ.get("AGENTLAB_OFFLINE"):
        return Finding("ping", "warn", tr("doctor.ping.offline"), tr("doctor.offline_fix"))
    if settings is None:
        return Finding("ping", "warn", tr("doctor.ping.nothing"), tr("doctor.ping.nothing_fix"))
    provider = preset_of(settings)
    host = host_of(settings.base_url)
    key = settings.api_key
    unreachable = unreachable_fix(provider.url_var, provider.name, proxy_variables(environ))
    started = time.perf_counter()
    try:
        with settings.client(timeout=timeout) as client:  # closes its connection
            reply = client.chat.completions.create(
                model=settings.model, messages=[{"role": "user", "content": "ping"}], max_tokens=1
            )
    except openai.APITimeoutError:
        message = tr("doctor.ping.timeout", host=host, seconds=timeout)
        return Finding("ping", "fail", message, unreachable)
    except openai.APIConnectionError as exc:
        failed = failure_from(exc, secret=key)
        if failed.kind == "bad_reply":  # a reply came but could not be decoded: not the network
            return Finding("ping", "fail", failed.message, tr("doctor.ping.status_fix"))
        return Finding("ping", "fail", tr("doctor.ping.unreachable", host=host), unreachable)
    except openai.APIStatusError as exc:
        status = exc.status_code
        if status in (401, 403):  # the service's own text may quote the key: not shown
            message = tr("doctor.ping.key", status=status, host=host)
        elif status in (400, 404) and model_missing(exc.body):
            return missing_model(settings, provider, status, exc.body)
        elif status == 404:
            message = tr("doctor.ping.not_found", model=settings.model)
        else:
            message = failure_from(exc, secret=key).message
        return Finding("ping", message=message, **level_and_fix(status, provider))
    except ModelConfigError as exc:  # no client to send with: a proxy it cannot use
        return Finding("ping", "fail", str(exc), tr("envcheck.doctor.ping_skipped_fix"))
    except Exception as exc:  # a reply the SDK cannot read: say so, never crash
        if not (isinstance(exc, json.JSONDecodeError) and other_framing(exc.doc)):
            message = failure_from(exc, secret=key).message
            return Finding("ping", "fail", message, tr("doctor.ping.status_fix"))
        reply = exc.doc  # labelled JSON but is not (a page, SSE): read below
    # HTTP 200 is not yet an answer: a web page (base_url at a site) or an error body
    turn = turn_from_text(reply) if isinstance(reply, str) else turn_from_completion(reply)
    if isinstance(turn, ModelFailure):
        message = shown_safely(turn.message, key)
        if turn.kind == "bad_reply":  # not the API at all: a web page, say
            fix = tr("doctor.ping.not_api_fix", url_var=provider.url_var)
            return Finding("ping", "fail", message, fix)
        # the API itself answered with an error (e.g. an unknown model): its code says more
        return Finding("ping", message=message, **level_and_fix(turn.status_code, provider))
    ms = round((time.perf_counter() - started) * 1000)
    return Finding("ping", "ok", tr("doctor.ping.ok", model=settings.model, host=host, ms=ms))


def model_missing(body: object) -> bool:
    """Does an error body say the model does not exist or was retired (:data:`MODEL_MISSING`)?"""
    from ..model.failures import error_code, error_detail

    said = f"{error_detail(body) or ''} {error_code(body) or ''}"
    code = body.get("code") if isinstance(body, dict) else None
    return bool(MODEL_MISSING.search(said)) or code == 20012  # SiliconFlow's number for it


def missing_model(settings: ModelSettings, preset: Provider, status: int, body: object) -> Finding:
    """A model the service does not know: name the current one when the preset knows it."""
    from ..model.failures import error_detail, shown_safely

    detail = shown_safely(error_detail(body) or "", settings.api_key)
    message = tr("provider.model_missing", model=settings.model, status=status, detail=detail)
    current = preset.retired.get(settings.model) or preset.default_model
    if current and current != settings.model:
        fix = tr(
            "provider.model_missing_fix", model_var=preset.model_var, current=current,
            provider=preset.name, source=preset.source,
        )  # fmt: skip
    else:
        fix = tr("provider.model_missing_fix_list", model_var=preset.model_var)
    return Finding("ping", "fail", message, fix)


def level_and_fix(status: int | None, provider: Provider) -> dict[str, str]:
    """How bad a refused request is, and what to fix, by its HTTP status (or the
    numeric code of an error body sent with HTTP 200)."""
    if status in (401, 403):
        return {
            "level": "fail",
            "fix": tr("doctor.ping.key_fix", name=provider.key_var or "API Key"),
        }
    if status == 404:
        urls = {"model_var": provider.model_var, "url_var": provider.url_var}
        return {"level": "fail", "fix": tr("doctor.ping.not_found_fix", **urls)}
    if status in (429, 400):
        key = "doctor.ping.rate_limited_fix" if status == 429 else "doctor.ping.rejected_fix"
        return {"level": "warn", "fix": tr(key)}
    return {"level": "fail", "fix": tr("doctor.ping.status_fix")}


def unreachable_fix(url_var: str, provider: str, proxies: Mapping[str, str]) -> str:
    """What to check when no reply came: Ollama not started; else the proxy, when
    one is set (a Clash switched off is the usual cause); then the address."""
    if provider == "Ollama":
        return tr("doctor.ping.ollama_fix", url_var=url_var)
    if proxies:
        shown, names = proxies_shown(proxies), " ".join(proxies)
        return tr("doctor.ping.proxy_unreachable_fix", proxies=shown, names=names, url_var=url_var)
    return tr("doctor.ping.unreachable_fix", url_var=url_var)
