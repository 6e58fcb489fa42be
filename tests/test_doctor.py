"""agentlab doctor: every broken set-up gets its finding and its fix; a clean one is clean.

The test request (``--ping``) goes to the loopback server of
``tests/fault_server.py``, which can refuse the key (echoing it back, as
some services do), not know the model, rate-limit, fail or hang. A
recognisable fake key is searched for in everything the doctor prints.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import types
from pathlib import Path

import matplotlib
import pytest

from agentlab.clients import ModelConfigError, load_settings
from agentlab.i18n import tr
from agentlab.ops.doctor import (
    Finding,
    check_env_file,
    check_font,
    check_packages,
    check_ping,
    check_provider,
    check_python,
    check_setup,
    find_lock,
    installed_version,
    render,
)

from .fault_server import FaultServer

KEY = "sk-doctor-canary-5f1e2d3c4b1a"


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A working folder with no .env in it or above it."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def server():
    with FaultServer() as running:
        yield running


def llm(server: FaultServer, model: str = "tiny-model") -> dict[str, str]:
    return {"LLM_API_KEY": KEY, "LLM_BASE_URL": server.base_url, "LLM_MODEL": model}


def only(findings: list[Finding], check: str) -> Finding:
    (finding,) = [f for f in findings if f.check == check]
    return finding


def levels(findings: list[Finding]) -> dict[str, str]:
    return {f.check: f.level for f in findings}


# -- a clean set-up ----------------------------------------------------------------------------


def test_the_checkout_s_lock_is_found_from_any_folder(home):
    """An editable install compares against its own checkout's lock, wherever the shell is."""
    assert find_lock() == Path(__file__).resolve().parents[1] / "requirements.lock"


def test_a_clean_setup_is_clean_and_says_so_in_chinese(home):
    findings = check_setup(environ={})
    assert set(levels(findings).values()) == {"ok"}, render(findings)
    assert [f.check for f in findings] == ["python", "packages", "font", "env_file", "provider"]
    text = render(findings)
    assert "环境检查" in text and "一切正常" in text and "怎么办" not in text


def test_a_clean_setup_with_a_real_model_and_a_ping(home, server):
    findings = check_setup(ping=True, environ=llm(server))
    assert set(levels(findings).values()) == {"ok"}, render(findings)
    provider = only(findings, "provider")
    assert "LLM" in provider.message and "tiny-model" in provider.message
    assert f"127.0.0.1:{server.httpd.server_address[1]}" in provider.message
    assert "/v1" not in provider.message  # the host, not the whole URL
    (request,) = server.requests
    assert request["body"]["max_tokens"] == 1 and request["body"]["model"] == "tiny-model"
    assert KEY not in render(findings)


# -- Python and packages -----------------------------------------------------------------------


def test_an_old_python_fails_with_the_fix():
    finding = check_python((3, 10, 12))
    assert finding.level == "fail" and "3.10.12" in finding.message
    assert "3.11" in finding.fix and "environment.yml" in finding.fix
    assert check_python((3, 11, 0)).level == "ok" and check_python((3, 13, 1)).level == "ok"


def test_versions_that_differ_from_the_lock_are_named(tmp_path):
    lock = tmp_path / "requirements.lock"
    openai_version = installed_version("openai")
    lock.write_text(
        f"openai=={openai_version}\npandas==0.0.1\nnot-a-real-package-xyz==1.0\n", "utf-8"
    )
    finding = check_packages(lock, declared=["openai", "pandas"])
    assert finding.level == "warn"
    assert "pandas" in finding.message and "0.0.1" in finding.message
    assert "not-a-real-package-xyz" in finding.message and "openai" not in finding.message
    assert "requirements.lock" in finding.fix


def test_a_lock_that_matches_is_ok(tmp_path):
    lock = tmp_path / "requirements.lock"
    lock.write_text(f"openai=={installed_version('openai')}\n", "utf-8")
    assert check_packages(lock, declared=["openai"]).level == "ok"


@pytest.mark.parametrize(
    "declared, named",
    [(["not-a-real-package-xyz"], "not-a-real-package-xyz"), (["openai>=99.1"], "99.1")],
)
def test_a_missing_or_old_dependency_fails(declared, named):
    finding = check_packages(None, declared=["pandas", *declared])
    assert finding.level == "fail" and named in finding.message
    assert ".whl" in finding.fix  # no lock: reinstall the course package
    assert "requirements.lock" in check_packages(Path("x.lock"), declared=declared).fix


def test_without_a_lock_the_declared_dependencies_are_checked():
    finding = check_packages(None)
    assert finding.level == "ok" and "requirements.lock" in finding.message


# -- the chart font ----------------------------------------------------------------------------


def test_the_bundled_cjk_font_is_found():
    finding = check_font()
    assert finding.level == "ok" and "Noto Sans CJK SC" in finding.message


def test_broken_fonts_fail_with_the_fix(tmp_path):
    (tmp_path / "junk.otf").write_bytes(b"not a font at all")
    latin = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    for font, named in [
        (tmp_path / "missing.otf", "missing.otf"),
        (tmp_path / "junk.otf", "junk.otf"),
        (latin, "DejaVu Sans"),  # readable, but no Chinese glyphs
    ]:
        finding = check_font(font)
        assert finding.level == "fail" and named in finding.message, finding
        assert "mplfonts" in finding.fix


# -- .env --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, line",
    [
        ("LLM_MODEL=m\nLLM_BASE_URL=https://x/v1\nLLM_API_KEY sk-no-equals\n", 3),
        ("# comment\n\n=no-name\n", 3),
        ("LLM_API_KEY='unterminated\nLLM_MODEL=m\n", 1),
    ],
)
def test_an_env_file_that_does_not_parse_names_its_line(home, text, line):
    (home / ".env").write_text(text, "utf-8")
    findings = check_setup(environ={})
    env = only(findings, "env_file")
    assert env.level == "fail" and f" {line} " in env.message
    assert "=" in env.fix and "#" in env.fix
    assert "provider" not in levels(findings)  # not the same error twice
    assert "sk-no-equals" not in render(findings)


@pytest.mark.parametrize(  # utf-16: PowerShell 5's `echo >`; -le/-be: the same without a BOM
    "encoding", ["utf-8", "utf-16", "utf-16-le", "utf-16-be"]
)
def test_a_misspelled_variable_is_pointed_out(home, encoding):
    (home / ".env").write_text("# mine\nDASHSCOP_API_KEY=sk-x\nMY_OWN_THING=1\n", encoding)
    findings = check_env_file()
    assert [f.level for f in findings] == ["ok", "warn"]
    typo = findings[1]
    assert "DASHSCOP_API_KEY" in typo.message and " 2 " in typo.message
    assert "DASHSCOPE_API_KEY" in typo.fix
    assert not any("MY_OWN_THING" in f.message for f in findings)  # not like any of ours


def test_a_nul_byte_in_the_env_file_fails_naming_its_line(home):
    """It read as fine (3 variables) while load_settings saw a different set."""
    (home / ".env").write_bytes(b"LLM_API_KEY=sk-x\nLLM_BASE_URL=https://x/v1\nLLM_\x00MODEL=m\n")
    findings = check_setup(environ={})
    env = only(findings, "env_file")
    assert env.level == "fail" and "NUL" in env.message and " 3 " in env.message
    assert "provider" not in levels(findings)


# -- the configured model ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "environ, named",
    [
        ({"LLM_API_KEY": KEY}, "LLM_BASE_URL"),
        ({"DASHSCOPE_API_KEY": "replace-with-your-api-key", "MODEL_BASE_URL": "https://d/v1",
          "MODEL_NAME": "q"}, "DASHSCOPE_API_KEY"),
        ({"DEEPSEEK_API_KEY": KEY, "DEEPSEEK_BASE_URL": "api.deepseek.com"}, "DEEPSEEK_BASE_URL"),
    ],
)  # fmt: skip
def test_settings_that_cannot_work_fail_naming_the_variable(home, environ, named):
    finding, settings = check_provider(None, environ)
    assert finding.level == "fail" and named in finding.message and settings is None
    assert ".env.example" in finding.fix
    assert KEY not in finding.message


def test_the_offline_switch_is_reported_and_no_request_is_sent(home, server):
    findings = check_setup(ping=True, environ={**llm(server), "AGENTLAB_OFFLINE": "1"})
    assert levels(findings)["provider"] == "ok"  # the settings are still checked
    assert levels(findings)["offline"] == "warn" and levels(findings)["ping"] == "warn"
    assert server.requests == []


def test_a_ping_with_nothing_configured_is_a_warning(home):
    assert levels(check_setup(ping=True, environ={}))["ping"] == "warn"


# -- the test request --------------------------------------------------------------------------


def ping(server: FaultServer, fault: str, model: str = "tiny-model", timeout: float = 5.0):
    server.faults[:] = [fault]
    environ = llm(server, model)
    _, settings = check_provider(None, environ)
    finding = check_ping(settings, environ, timeout=timeout)
    assert KEY not in render([finding])
    return finding


@pytest.mark.parametrize(
    "fault, level, in_message, in_fix",
    [
        ("401", "fail", "401", "LLM_API_KEY"),  # this server echoes the key back
        ("403", "fail", "403", "LLM_API_KEY"),
        ("404", "fail", "no-such-model", "LLM_MODEL"),
        ("429", "warn", "429", "Key"),
        ("400", "warn", "400", "Key"),
        ("500", "fail", "500", "--ping"),
    ],
)
def test_each_failed_request_says_what_it_means(home, server, fault, level, in_message, in_fix):
    finding = ping(server, fault, model="no-such-model")
    assert finding.level == level, finding
    assert in_message in finding.message and in_fix in finding.fix
    assert server.requests[0]["authorization"] == f"Bearer {KEY}"  # the key really was sent


@pytest.mark.parametrize("fault", ["page", "page:json"], ids=["html", "labelled-json"])
def test_a_web_page_with_http_200_is_not_a_working_model(home, server, fault):
    finding = ping(server, fault)
    assert finding.level == "fail" and "Model Studio" in finding.message
    assert "LLM_BASE_URL" in finding.fix


def test_json_cut_short_is_a_broken_reply_not_a_wrong_url(home, server):
    finding = ping(server, "cut")
    assert finding.level == "fail" and "JSONDecodeError" in finding.message
    assert finding.fix == tr("doctor.ping.status_fix")


@pytest.mark.parametrize(
    "fault, in_fix", [("error200", "--ping"), ("error200:404", "LLM_MODEL")], ids=["no-code", "404"]
)
def test_an_error_body_with_http_200_keeps_its_own_fix(home, server, fault, in_fix):
    """The service answered (HTTP 200) and named the model it does not know: base_url
    is right, so the fix is not "check the URL" (that is for a page, above)."""
    finding = ping(server, fault, model="no-such-model")
    assert finding.level == "fail" and "no-such-model" in finding.message
    assert in_fix in finding.fix
    assert finding.fix != tr("doctor.ping.not_api_fix", url_var="LLM_BASE_URL")


def test_a_silent_service_times_out(home, server):
    finding = ping(server, "hang", timeout=0.3)
    assert finding.level == "fail" and "0.3" in finding.message and "LLM_BASE_URL" in finding.fix


def test_an_unreachable_service_says_so(home):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    environ = {"LLM_API_KEY": KEY, "LLM_BASE_URL": f"http://127.0.0.1:{port}/v1", "LLM_MODEL": "m"}
    _, settings = check_provider(None, environ)
    finding = check_ping(settings, environ, timeout=5)
    assert finding.level == "fail" and f"127.0.0.1:{port}" in finding.message
    assert "LLM_BASE_URL" in finding.fix
    ollama = {"OLLAMA_MODEL": "qwen2.5:7b", "OLLAMA_BASE_URL": f"http://127.0.0.1:{port}/v1"}
    _, settings = check_provider(None, ollama)
    assert "ollama serve" in check_ping(settings, ollama, timeout=5).fix


# -- the command -------------------------------------------------------------------------------


def doctor_cli(cwd: Path, *arguments: str, **env: str) -> subprocess.CompletedProcess:
    environ = {
        k: v for k, v in os.environ.items() if not k.endswith("_KEY") and k != "AGENTLAB_OFFLINE"
    }
    return subprocess.run(
        [sys.executable, "-m", "agentlab", "doctor", *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**environ, **env},
        timeout=120,
        check=False,
    )


def test_the_command_exits_0_when_clean_and_1_when_something_must_be_fixed(home, server):
    clean = doctor_cli(home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "一切正常" in clean.stdout and clean.stderr == ""

    (home / ".env").write_text("LLM_MODEL=m\n  stray words here\n", "utf-8")
    broken = doctor_cli(home)
    assert broken.returncode == 1 and " 2 " in broken.stdout and "怎么办" in broken.stdout

    (home / ".env").unlink()
    server.faults[:] = ["401"]
    refused = doctor_cli(home, "--ping", **llm(server))
    assert refused.returncode == 1 and "401" in refused.stdout
    assert KEY not in refused.stdout + refused.stderr
    assert len(server.requests) == 1  # one tiny request, no retries


# -- Colab's secret store ----------------------------------------------------------------------


@pytest.fixture
def colab(monkeypatch):
    """A stand-in for ``google.colab.userdata``; ``secrets`` is what it holds."""
    secrets: dict[str, str] = {}
    asked: list[str] = []

    class SecretNotFoundError(Exception):
        pass

    def get(name: str) -> str:
        asked.append(name)
        if name not in secrets:
            raise SecretNotFoundError(name)
        return secrets[name]

    userdata = types.ModuleType("google.colab.userdata")
    userdata.get = get
    package = types.ModuleType("google.colab")
    package.userdata = userdata
    monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", package)
    monkeypatch.setitem(sys.modules, "google.colab.userdata", userdata)
    return types.SimpleNamespace(secrets=secrets, asked=asked, module=userdata)


def test_colab_secrets_configure_a_real_model(home, colab):
    colab.secrets.update(DEEPSEEK_API_KEY=KEY, DEEPSEEK_MODEL="deepseek-v4-pro")
    settings = load_settings(environ={})
    assert (settings.provider, settings.model, settings.api_key) == (
        "DeepSeek",
        "deepseek-v4-pro",
        KEY,
    )
    assert KEY not in repr(settings)
    finding, _ = check_provider(None, {})
    assert finding.level == "ok" and "DeepSeek" in finding.message and KEY not in finding.message


def test_the_environment_wins_over_colab_secrets_which_win_over_env(home, colab):
    (home / ".env").write_text("LLM_MODEL=from-env-file\nLLM_BASE_URL=https://a.example/v1\n")
    colab.secrets.update(
        LLM_API_KEY=KEY, LLM_MODEL="from-colab", LLM_BASE_URL="https://b.example/v1"
    )
    settings = load_settings(environ={"LLM_BASE_URL": "https://c.example/v1"})
    assert (settings.model, settings.base_url) == ("from-colab", "https://c.example/v1")
    assert "LLM_BASE_URL" not in colab.asked  # set in the environment: not asked for


def test_a_colab_without_its_page_is_asked_once(home, colab):
    class TimeoutException(Exception):
        pass

    def no_page(name: str) -> str:
        colab.asked.append(name)
        raise TimeoutException(name)

    colab.module.get = no_page
    with pytest.raises(ModelConfigError):
        load_settings(environ={})
    assert len(colab.asked) == 1  # each further name would have waited 10 s


# -- proxies -----------------------------------------------------------------------------------


@pytest.fixture
def no_proxy(monkeypatch):
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


def closed_port() -> int:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_socks_proxy_is_named_without_its_password(home, no_proxy):
    environ = {"ALL_PROXY": "socks5://clash:proxypass@127.0.0.1:7890"}
    finding = only(check_setup(environ=environ), "proxy")
    assert finding.level == "ok" and "ALL_PROXY=socks5://127.0.0.1:7890" in finding.message
    assert "proxypass" not in render([finding]) and "clash" not in render([finding])


def test_a_proxy_that_cannot_work_fails_and_no_request_is_sent(home, server, no_proxy, monkeypatch):
    proxy = {"all_proxy": "socks4://clash:proxypass@127.0.0.1:7890"}
    monkeypatch.setenv("all_proxy", proxy["all_proxy"])  # what the SDK's HTTP library reads
    findings = check_setup(ping=True, environ={**llm(server), **proxy})
    proxy, ping_finding = only(findings, "proxy"), only(findings, "ping")
    assert proxy.level == "fail" and "all_proxy" in proxy.message and "all_proxy" in proxy.fix
    assert ping_finding.level == "warn" and tr("doctor.ping.status_fix") != ping_finding.fix
    assert server.requests == []
    assert "proxypass" not in render(findings)


def test_the_ping_alone_names_a_proxy_it_cannot_use(home, server, no_proxy, monkeypatch):
    """check_ping called on its own (not through check_setup) says what the proxy
    check says, not "the service is unavailable"."""
    monkeypatch.setenv("all_proxy", "socks4://clash:proxypass@127.0.0.1:7890")
    environ = llm(server)
    _, settings = check_provider(None, environ)
    finding = check_ping(settings, environ, timeout=5)
    assert finding.level == "fail" and "all_proxy" in finding.message
    assert finding.fix == tr("envcheck.doctor.ping_skipped_fix") and "proxypass" not in str(finding)
    assert server.requests == []


def test_a_request_through_a_socks_proxy_that_is_down_is_unreachable(home, no_proxy, monkeypatch):
    """Needs socksio: without it the client could not even be built (an ImportError)."""
    proxy = f"socks5://clash:proxypass@127.0.0.1:{closed_port()}"
    monkeypatch.setenv("ALL_PROXY", proxy)  # what the SDK's HTTP library reads
    environ = {"LLM_API_KEY": KEY, "LLM_BASE_URL": "http://model.example/v1", "LLM_MODEL": "m"}
    environ["ALL_PROXY"] = proxy
    _, settings = check_provider(None, environ)
    finding = check_ping(settings, environ, timeout=5)
    assert finding.level == "fail" and "model.example" in finding.message
    # the proxy is the likelier culprit (Clash switched off): named first, without its password
    assert "ALL_PROXY=socks5://127.0.0.1:" in finding.fix and "LLM_BASE_URL" in finding.fix
    assert "proxypass" not in str(finding)


# -- a key in the URL --------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["query", "userinfo"])
def test_a_key_in_the_base_url_fails_and_is_never_sent_or_shown(home, server, where):
    """It used to pass; the ping then showed the key, echoed in the service's error."""
    environ = llm(server)
    environ["LLM_API_KEY"] = "gateway-unused-key"
    url = environ["LLM_BASE_URL"]
    environ["LLM_BASE_URL"] = (
        f"{url}?key={KEY}" if where == "query" else url.replace("://", f"://u:{KEY}@")
    )
    server.faults[:] = ["401"]  # a service that echoes what it was sent
    findings = check_setup(ping=True, environ=environ)
    assert levels(findings)["provider"] == "fail" and "LLM_BASE_URL" in render(findings)
    assert server.requests == []
    assert KEY not in render(findings) and KEY[-8:] not in render(findings)


# -- presets, retired models, models that do not exist ---------------------------------------


def test_with_nothing_configured_the_preset_table_is_shown_with_its_dates(home):
    from agentlab.clients.real import PROVIDERS

    finding, _ = check_provider(None, {})
    assert finding.level == "ok"
    for preset in PROVIDERS:
        assert preset.name in finding.message and preset.checked in finding.message
    assert (
        '"thinking": {"type": "disabled"}' in finding.message
        and "deepseek-v4-flash" in finding.message
    )


@pytest.mark.parametrize("model", ["deepseek-chat", "deepseek-reasoner"])
def test_a_retired_deepseek_model_fails_before_any_request_and_names_the_current_one(home, model):
    """DeepSeek retired both names on 2026-07-24 (api-docs.deepseek.com/news/news260424)."""
    (home / ".env").write_text(f"DEEPSEEK_API_KEY={KEY}\nDEEPSEEK_MODEL={model}\n")
    finding, settings = check_provider(None, {})
    assert finding.level == "fail" and "2026-07-24" in finding.message
    assert "DEEPSEEK_MODEL" in finding.fix and "deepseek-v4-flash" in finding.fix
    assert settings is not None and KEY not in render([finding])


def test_a_key_alone_reaches_a_model_that_exists_with_thinking_switched(home):
    """A .env holding only DEEPSEEK_API_KEY: the request names deepseek-v4-flash and says
    thinking disabled (DeepSeek V4 thinks by default: its thinking_mode guide)."""
    from .providers.replay_server import TranscriptServer, final_answer

    with TranscriptServer([final_answer("pong")]) as server:
        environ = {"DEEPSEEK_API_KEY": KEY, "DEEPSEEK_BASE_URL": server.base_url}
        finding, settings = check_provider(None, environ)
        assert finding.level == "ok"
        assert check_ping(settings, environ, timeout=5).level == "ok"
    (body,) = server.requests
    assert (body["model"], body["thinking"]) == ("deepseek-v4-flash", {"type": "disabled"})


RETIRED_MESSAGE = (
    "The supported API model names are deepseek-v4-pro or deepseek-v4-flash, but you passed "
    "deepseek-chat."
)  # raycast/extensions issue 29730 quotes DeepSeek's words; the body around them is built


@pytest.mark.parametrize(
    "body",
    [
        "deepseek/model-not-exist-400",
        {"error": {"message": RETIRED_MESSAGE, "type": "invalid_request_error"}},
    ],
    ids=["model-not-exist-recorded", "retired-name-constructed"],
)
def test_the_ping_recognises_a_model_that_does_not_exist_and_names_the_current_one(home, body):
    import json

    from .providers.replay_server import Canned, TranscriptServer, canned
    from .providers.test_providers_replayed import CORPUS

    reply = (
        canned(CORPUS[body]) if isinstance(body, str)
        else Canned(400, "application/json", json.dumps(body).encode())
    )  # fmt: skip
    with TranscriptServer([reply]) as server:
        environ = {"DEEPSEEK_API_KEY": KEY, "DEEPSEEK_BASE_URL": server.base_url,
                   "DEEPSEEK_MODEL": "deepseek-v5-typo"}  # fmt: skip
        _, settings = check_provider(None, environ)
        finding = check_ping(settings, environ, timeout=5)
    assert finding.level == "fail"
    assert finding.message.startswith(tr("provider.model_missing", model="deepseek-v5-typo",
                                         status=400, detail="").split("（")[0])  # fmt: skip
    assert "DEEPSEEK_MODEL" in finding.fix and "deepseek-v4-flash" in finding.fix


def test_a_service_without_a_preset_model_is_told_to_check_its_list(home):
    """OpenAI's shape for it (constructed: ``model_not_found``, as its API reference names
    the code); a preset with no default has no current name to offer."""
    import json

    from .providers.replay_server import Canned, TranscriptServer

    message = "The model `gpt-9` does not exist or you do not have access to it."
    body = {
        "error": {"message": message, "type": "invalid_request_error", "code": "model_not_found"}
    }
    with TranscriptServer([Canned(404, "application/json", json.dumps(body).encode())]) as srv:
        environ = {"LLM_API_KEY": KEY, "LLM_BASE_URL": srv.base_url, "LLM_MODEL": "gpt-9"}
        _, settings = check_provider(None, environ)
        finding = check_ping(settings, environ, timeout=5)
    assert finding.level == "fail" and "gpt-9" in finding.message
    assert finding.fix == tr("provider.model_missing_fix_list", model_var="LLM_MODEL")
