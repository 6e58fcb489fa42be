"""from_env: clear one-line errors, the right service, and a key that never shows."""

from __future__ import annotations

import sys

import openai
import pytest

from agentlab.clients import ModelConfigError, ModelSettings, from_env, load_settings

pytestmark = pytest.mark.usefixtures("english")  # these tests read messages

SECRET = "sk-test-0123456789abcdefSECRET"
GENERIC = {"LLM_API_KEY": SECRET, "LLM_BASE_URL": "https://llm.example/v1", "LLM_MODEL": "m1"}
DASHSCOPE = {
    "DASHSCOPE_API_KEY": SECRET,
    "MODEL_BASE_URL": "https://dash.example/compatible-mode/v1",
    "MODEL_NAME": "qwen-x",
}


@pytest.fixture
def no_env_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no .env above a fresh temp folder
    return tmp_path


def test_offline_mode_refuses_even_with_settings(no_env_file):
    with pytest.raises(ModelConfigError, match="AGENTLAB_OFFLINE"):
        load_settings(environ={**GENERIC, "AGENTLAB_OFFLINE": "1"})


def test_nothing_configured_says_what_to_set(no_env_file):
    with pytest.raises(ModelConfigError) as info:
        load_settings(environ={})
    message = str(info.value)
    assert "LLM_API_KEY" in message and "DASHSCOPE_API_KEY" in message
    assert "\n" not in message


def test_partial_settings_name_what_is_missing(no_env_file):
    with pytest.raises(ModelConfigError, match="missing MODEL_NAME") as info:
        load_settings(environ={k: v for k, v in DASHSCOPE.items() if k != "MODEL_NAME"})
    assert SECRET not in str(info.value)


def test_the_missing_names_are_listed_the_chinese_way_in_chinese(no_env_file, monkeypatch):
    monkeypatch.setenv("AGENTLAB_LANG", "zh")
    with pytest.raises(ModelConfigError, match="缺少 LLM_BASE_URL、LLM_MODEL"):
        load_settings(environ={"LLM_API_KEY": SECRET})


@pytest.mark.parametrize(
    "settings, provider, model", [(GENERIC, "LLM", "m1"), (DASHSCOPE, "DashScope", "qwen-x")]
)
def test_either_set_of_variables_works(no_env_file, settings, provider, model):
    loaded = load_settings(environ=settings)
    assert (loaded.provider, loaded.model) == (provider, model)
    assert SECRET not in repr(loaded)
    client = loaded.client()
    assert isinstance(client, openai.OpenAI)
    assert client.max_retries == 0
    assert str(client.base_url).startswith(
        settings.get("LLM_BASE_URL", DASHSCOPE["MODEL_BASE_URL"])
    )


def test_env_file_is_read_and_environment_wins(no_env_file):
    (no_env_file / ".env").write_text(
        "LLM_API_KEY=from-file-key\nLLM_BASE_URL=https://file.example/v1\nLLM_MODEL=file-model\n",
        encoding="utf-8",
    )
    assert load_settings(environ={}).model == "file-model"
    assert load_settings(environ={"LLM_MODEL": "env-model"}).model == "env-model"


def test_from_env_builds_a_client_from_an_env_file(no_env_file, monkeypatch):
    monkeypatch.delenv("AGENTLAB_OFFLINE", raising=False)
    for name in ("LLM_API_KEY", "LLM_BASE_URL", "LLM_MODEL", "DASHSCOPE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    env = no_env_file / "custom.env"
    env.write_text("".join(f"{k}={v}\n" for k, v in GENERIC.items()), encoding="utf-8")
    client = from_env(env)
    assert isinstance(client, openai.OpenAI)
    assert SECRET not in repr(client)


@pytest.mark.parametrize(
    "text, fragment",
    [
        (
            "LLM_API_KEY=replace-with-your-api-key\nLLM_BASE_URL=https://x/v1\nLLM_MODEL=m\n",
            "placeholder",
        ),
        (f"LLM_API_KEY={SECRET}\nLLM_BASE_URL=ftp://x\nLLM_MODEL=m\n", "http(s) URL"),
        (f"LLM_API_KEY={SECRET}\nLLM_BASE_URL=https://\nLLM_MODEL=m\n", "http(s) URL"),
        (f"LLM_API_KEY={SECRET}\u200b\nLLM_BASE_URL=https://x/v1\nLLM_MODEL=m\n", "invisible"),
        (
            f"LLM_API_KEY={SECRET[:4]} {SECRET[4:]}\nLLM_BASE_URL=https://x/v1\nLLM_MODEL=m\n",
            "a space",
        ),
        (
            f"DASHSCOPE_API_KEY={SECRET}\nMODEL_BASE_URL=https://YOUR_WORKSPACE_ID.x/v1\nMODEL_NAME=m\n",
            "placeholder",
        ),
        ("LLM_API_KEY='unterminated\nLLM_MODEL=m\n", "line 1"),
        (f"LLM_MODEL=m\nLLM_BASE_URL=https://x/v1\nLLM_API_KEY {SECRET}\n", "line 3"),
        ("# comment\n\n=no-name\n", "line 3"),
        ("LLM_MODEL=m\n  stray words here\n", "line 2"),
        # no "=" on the line, so python-dotenv reads a name without a value: the whole
        # line is the name, and the key the student wrote was silently not there
        (f"LLM_BASE_URL=https://x/v1\nLLM_MODEL=m\nLLM_API_KEY\uff1d{SECRET}\n", "line 3"),
        (f"LLM_BASE_URL=https://x/v1\nLLM_MODEL=m\nLLM_API_KEY\uff1a{SECRET}\n", "line 3"),
        (f"LLM_BASE_URL=https://x/v1\nLLM_MODEL=m\n\n{SECRET}\n", "line 4"),
    ],
)
def test_bad_env_files_give_one_clear_line(no_env_file, text, fragment):
    (no_env_file / ".env").write_text(text, encoding="utf-8")
    with pytest.raises(
        ModelConfigError, match=fragment.replace("(", r"\(").replace(")", r"\)")
    ) as info:
        load_settings(environ={})
    assert SECRET not in str(info.value)


@pytest.mark.parametrize(
    "url",
    [
        "https://api.example.com:99999/v1",
        "https://api.example.com:0/v1",
        "https://[::1/v1",
        "https://api.example.com /v1",
    ],
    ids=["port-out-of-range", "port-0", "broken-ipv6", "space"],
)
def test_a_url_the_sdk_could_not_use_is_refused_when_configured(no_env_file, url):
    """Each typo raised a bare ValueError somewhere (or failed at the first request)."""
    environ = {"LLM_API_KEY": SECRET, "LLM_BASE_URL": url, "LLM_MODEL": "m"}
    with pytest.raises(ModelConfigError, match="LLM_BASE_URL") as info:
        load_settings(environ=environ)
    assert SECRET not in str(info.value)


def test_a_url_ending_in_the_endpoint_says_to_drop_it(no_env_file):
    environ = {"LLM_API_KEY": SECRET, "LLM_BASE_URL": "https://x/v1/chat/completions/"}
    with pytest.raises(ModelConfigError, match="drop the trailing /chat/completions"):
        load_settings(environ={**environ, "LLM_MODEL": "m"})


def test_a_key_pasted_into_the_url_stays_out_of_the_settings_repr():
    url = f"https://user:{SECRET}@api.example.com:8443/v1?key={SECRET}"
    settings = ModelSettings("LLM", url, "m", "other-key")  # load_settings refuses such a URL
    assert SECRET not in repr(settings) and SECRET not in str(settings)
    assert "https://api.example.com:8443/v1" in repr(settings)


@pytest.mark.parametrize(
    "url, fragment",
    [
        (f"https://api.example.com/v1?key={SECRET}", "query"),
        (f"https://api.example.com/v1?api_key={SECRET}&x=1", "query"),
        ("https://api.example.com/v1?", "query"),
        (f"https://api.example.com/v1#{SECRET}", "query"),
        (f"https://user:{SECRET}@api.example.com/v1", "user:password@"),
        (f"https://{SECRET}@api.example.com/v1", "user:password@"),
    ],
    ids=["query", "two-params", "bare-question-mark", "fragment", "userinfo", "user-only"],
)
def test_a_url_carrying_a_key_is_refused_without_showing_it(no_env_file, url, fragment):
    """The SDK garbles a query (``/v1/?key=...chat/completions``) and sends user:password
    as HTTP Basic instead of the key: neither URL could work, and a service's error
    echoing the URL would show the key."""
    environ = {"LLM_API_KEY": "other-key-123456", "LLM_BASE_URL": url, "LLM_MODEL": "m"}
    with pytest.raises(ModelConfigError, match="LLM_BASE_URL") as info:
        load_settings(environ=environ)
    message = str(info.value)
    assert fragment in message and SECRET not in message and SECRET[-8:] not in message


def test_the_settings_repr_never_raises_even_for_a_url_it_cannot_read():
    settings = ModelSettings("llm", "https://[::1/v1", "m", SECRET)
    assert SECRET not in repr(settings) and "'m'" in repr(settings)


def test_undecodable_env_file(no_env_file):
    (no_env_file / ".env").write_bytes(b"LLM_MODEL=\xff\xfe\n")
    with pytest.raises(ModelConfigError, match="not UTF-8 text: save it again as UTF-8"):
        load_settings(environ={})


def test_an_env_file_powershell_wrote_as_utf16_is_read(no_env_file):
    """Windows PowerShell 5's `echo ... > .env` writes UTF-16 with a byte-order mark."""
    text = f"LLM_API_KEY={SECRET}\r\nLLM_BASE_URL=https://x/v1\r\nLLM_MODEL=m\r\n"
    (no_env_file / ".env").write_bytes(text.encode("utf-16"))
    settings = load_settings(environ={})
    assert (settings.base_url, settings.model) == ("https://x/v1", "m")


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_an_env_file_in_utf16_without_a_byte_order_mark_is_read(no_env_file, encoding):
    """Some editors and tools write UTF-16 without the mark: it read as no settings at all."""
    text = f"# 我的设置\r\nLLM_API_KEY={SECRET}\r\nLLM_BASE_URL=https://x/v1\r\nLLM_MODEL=模型\r\n"
    (no_env_file / ".env").write_bytes(text.encode(encoding))
    settings = load_settings(environ={})
    assert (settings.base_url, settings.model, settings.api_key) == ("https://x/v1", "模型", SECRET)


@pytest.mark.parametrize(
    "data, line",
    [
        (f"LLM_API_KEY={SECRET}\nLLM_BASE_URL=https://x/v1\nLLM_\x00MODEL=m\n".encode(), 3),
        (f"LLM_API_KEY={SECRET}\x00\nLLM_BASE_URL=https://x/v1\nLLM_MODEL=m\n".encode(), 1),
        (b"\x00" * 8, 1),
        (f"LLM_API_KEY={SECRET}\nLLM_MODEL=m\x00\n".encode("utf-16"), 2),
        (f"LLM_API_KEY={SECRET}\nLLM_MODEL=m\x00\n".encode("utf-16-le"), 2),
    ],
    ids=["in-a-name", "after-the-key", "only-nuls", "utf16-bom", "utf16-no-bom"],
)
def test_a_nul_in_the_env_file_is_an_error_naming_its_line(no_env_file, data, line):
    """A NUL was read as part of a name or value (or the file as having no settings)."""
    (no_env_file / ".env").write_bytes(data)
    with pytest.raises(ModelConfigError, match=f"NUL.* line {line}|line {line}.*NUL") as info:
        load_settings(environ={})
    assert SECRET not in str(info.value)


def test_named_env_file_must_exist(no_env_file):
    with pytest.raises(ModelConfigError, match="does not exist"):
        load_settings(no_env_file / "nope.env", environ={})


def test_deepseek_needs_only_a_key(no_env_file):
    """A model that exists (deepseek-chat was retired on 2026-07-24), thinking switched
    explicitly (V4 thinks by default: api-docs.deepseek.com/guides/thinking_mode)."""
    loaded = load_settings(environ={"DEEPSEEK_API_KEY": SECRET})
    assert (loaded.provider, loaded.model) == ("DeepSeek", "deepseek-v4-flash")
    assert loaded.request == {"thinking": {"type": "disabled"}}
    assert loaded.base_url.startswith("https://")
    assert "deepseek-v4-flash" in repr(loaded) and SECRET not in repr(loaded)


def test_ollama_needs_no_key(no_env_file):
    loaded = load_settings(environ={"OLLAMA_MODEL": "qwen2.5:7b"})
    assert loaded.provider == "Ollama"
    assert loaded.base_url == "http://localhost:11434/v1"
    assert isinstance(loaded.client(), openai.OpenAI)


def test_generic_settings_win_over_provider_specific_ones(no_env_file):
    loaded = load_settings(environ={**GENERIC, "OLLAMA_MODEL": "x"})
    assert loaded.provider == "LLM"


# -- proxies: Clash and V2Ray set ALL_PROXY=socks5://127.0.0.1:7890 ----------------------------

PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)


@pytest.fixture
def no_proxy(monkeypatch):
    for name in (*PROXY_VARIABLES, "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("name", ["ALL_PROXY", "all_proxy", "HTTPS_PROXY"])
@pytest.mark.parametrize("scheme", ["socks5", "socks5h"])
def test_a_socks_proxy_as_clash_sets_it_builds_a_client(
    no_env_file, no_proxy, monkeypatch, name, scheme
):
    monkeypatch.setenv(name, f"{scheme}://127.0.0.1:7890")
    assert isinstance(load_settings(environ=GENERIC).client(), openai.OpenAI)


@pytest.mark.parametrize(
    "name, value",
    [
        ("ALL_PROXY", "socks4://proxyuser:proxypass@127.0.0.1:7890"),
        ("https_proxy", "ftp://proxyuser:proxypass@127.0.0.1:21"),
        ("HTTP_PROXY", "http://proxyuser:proxypass@[::1:7890"),
    ],
    ids=["socks4", "ftp", "broken-ipv6"],
)
def test_a_proxy_the_http_library_cannot_use_is_a_config_error(
    no_env_file, no_proxy, monkeypatch, name, value
):
    """It raised ValueError (or httpx2.InvalidURL) from deep inside the SDK."""
    monkeypatch.setenv(name, value)
    with pytest.raises(ModelConfigError) as info:
        load_settings(environ=GENERIC).client()
    message = str(info.value)
    assert name in message and "unset" in message and "\n" not in message
    assert "proxypass" not in message and "proxyuser" not in message and SECRET not in message
    with pytest.raises(ModelConfigError, match=name):
        _from_env_with(monkeypatch)


def _from_env_with(monkeypatch):
    """from_env() as a notebook calls it, with GENERIC in the environment."""
    monkeypatch.delenv("AGENTLAB_OFFLINE", raising=False)
    for name, value in GENERIC.items():
        monkeypatch.setenv(name, value)
    return from_env()


def test_socks_without_its_package_says_what_to_install(no_env_file, no_proxy, monkeypatch):
    monkeypatch.setenv("ALL_PROXY", "socks5://u:proxypass@127.0.0.1:7890")
    monkeypatch.setitem(sys.modules, "socksio", None)  # `import socksio` raises ImportError
    with pytest.raises(ModelConfigError) as info:
        load_settings(environ=GENERIC).client()
    message = str(info.value)
    assert "ALL_PROXY=socks5://127.0.0.1:7890" in message and "socksio" in message
    assert "proxypass" not in message


def test_proxy_values_are_shown_without_their_credentials():
    from agentlab.clients.real import proxy_shown

    assert proxy_shown("socks5://user:pa@ss@127.0.0.1:7890") == "socks5://127.0.0.1:7890"
    assert proxy_shown("user:secret@127.0.0.1:7890") == "127.0.0.1:7890"
    assert proxy_shown("http://127.0.0.1:7890/") == "http://127.0.0.1:7890"
    assert proxy_shown("notaurl") == "notaurl"


# -- the presets: data with a date, and the request fields they add -----------------------


def test_the_presets_are_data_each_checked_on_a_day_against_a_source():
    from agentlab.clients.real import PROVIDERS, load_presets

    assert [p.name for p in PROVIDERS] == ["LLM", "DashScope", "DeepSeek", "Ollama"]
    assert load_presets() == PROVIDERS
    undated = [p.name for p in PROVIDERS if not (p.checked[:4].isdigit() and p.source)]
    assert undated == []
    deepseek = PROVIDERS[2]
    # every retired name points at a name the preset still serves by default
    assert set(deepseek.retired.values()) == {deepseek.default_model}
    assert deepseek.retired_on == "2026-07-24"


def test_a_preset_read_from_text_keeps_its_fields():
    from agentlab.clients.real import load_presets

    (preset,) = load_presets(
        '[[preset]]\nname = "X"\nurl_var = "X_URL"\nmodel_var = "X_MODEL"\n'
        'request = { a = { b = 1 } }\nchecked = 2026-01-02\nsource = "https://x"\n'
    )
    assert (preset.key_var, preset.request, preset.checked) == (None, {"a": {"b": 1}}, "2026-01-02")


def wire(client_options: dict, **request_fields) -> tuple[openai.OpenAI, list[dict]]:
    import json

    import httpx2

    from agentlab.clients.real import PresetClient

    seen: list[dict] = []

    def handler(request):
        seen.append(json.loads(request.content))
        return httpx2.Response(200, json={
            "id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "ok"}}]})  # fmt: skip

    client = PresetClient(
        request_fields=request_fields, api_key=SECRET, base_url="https://x.invalid/v1",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)), **client_options,
    )  # fmt: skip
    return client, seen


def test_a_preset_client_adds_its_fields_to_every_chat_request():
    from agentlab.model.request import request_turn

    client, seen = wire({}, thinking={"type": "disabled"})
    request_turn(client, "deepseek-v4-flash", [{"role": "user", "content": "hi"}], [])
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    client.with_options(timeout=5).chat.completions.create(model="m", messages=[])
    assert [body["thinking"] for body in seen] == [{"type": "disabled"}] * 3
    client.chat.completions.create(
        model="m", messages=[], extra_body={"thinking": {"type": "enabled"}}
    )
    assert seen[-1]["thinking"] == {"type": "enabled"}  # the request's own choice wins


def test_deepseeks_settings_build_a_preset_client_and_the_others_a_plain_one(no_env_file):
    from agentlab.clients.real import PresetClient

    deepseek = load_settings(environ={"DEEPSEEK_API_KEY": SECRET}).client()
    assert isinstance(deepseek, PresetClient) and isinstance(deepseek, openai.OpenAI)
    assert deepseek.request_fields == {"thinking": {"type": "disabled"}}
    assert type(load_settings(environ=GENERIC).client()) is openai.OpenAI


def test_a_recording_of_a_preset_client_keeps_its_fields(tmp_path):
    from agentlab.clients.recording import recording

    client, seen = wire({}, thinking={"type": "disabled"})
    recording(client, tmp_path / "run.json").chat.completions.create(model="m", messages=[])
    assert seen[-1]["thinking"] == {"type": "disabled"}
