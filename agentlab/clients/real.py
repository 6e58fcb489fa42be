"""Real model clients from ``.env`` or the environment.

:func:`from_env` builds an ``openai.OpenAI`` for any OpenAI-compatible
service. The sets of variables it understands are data, the presets in
``agentlab/data/presets.toml`` (LLM_*, DashScope, DeepSeek, Ollama, each with
the day it was checked against the provider's docs; ``agentlab doctor`` shows
them). The first complete set wins; the process environment wins over a
hosted notebook's secret store (Colab's ``google.colab.userdata``), which wins
over ``.env``. A preset may add fields to every chat request (DeepSeek's
``thinking`` switch): the client is then a :class:`PresetClient`.

Anything missing or malformed, including a proxy variable the HTTP library
cannot use, raises :class:`ModelConfigError` with one readable line naming
what to fix. The key never appears in a message, a ``repr`` or a trace. When
``AGENTLAB_OFFLINE`` is set (``make test`` sets it) real models are refused
outright, so a student's ``.env`` can never change test results or spend money.

This module does not retry, stream or call anything: it only configures.
"""

from __future__ import annotations

import codecs
import datetime
import io
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx2
from dotenv import dotenv_values, find_dotenv
from dotenv.parser import parse_stream
from openai import OpenAI

from ..i18n import tr


@dataclass(frozen=True)
class Provider:
    """One preset: how the settings are named, and what it defaults to."""

    name: str
    url_var: str
    model_var: str
    key_var: str | None = None
    """``None``: the service needs no key (Ollama)."""
    default_url: str | None = None
    default_model: str | None = None
    request: dict[str, Any] = field(default_factory=dict)
    """Fields added to every chat request (DeepSeek: ``{"thinking": {"type": "disabled"}}``)."""
    retired: dict[str, str] = field(default_factory=dict)
    """Model names the provider retired, and the name that replaced each."""
    retired_on: str | None = None
    checked: str = ""
    """The day this entry was compared with ``source``, the provider's documentation."""
    source: str = ""

    def variables(self) -> list[str]:
        """The variables that must be set (those without a default)."""
        wanted = [self.key_var] if self.key_var else []
        if self.default_url is None:
            wanted.append(self.url_var)
        if self.default_model is None:
            wanted.append(self.model_var)
        return wanted


def load_presets(text: str | None = None) -> list[Provider]:
    """The presets of ``agentlab/data/presets.toml`` (or of ``text``), in order."""
    if text is None:
        text = resources.files("agentlab").joinpath("data/presets.toml").read_text("utf-8")
    presets = []
    for entry in tomllib.loads(text)["preset"]:
        # TOML reads 2026-07-24 as a date; a preset keeps it as that text.
        fields = {k: str(v) if isinstance(v, datetime.date) else v for k, v in entry.items()}
        fields["default_url"] = fields.pop("base_url", None)
        fields["default_model"] = fields.pop("model", None)
        presets.append(Provider(**fields))
    return presets


PROVIDERS = load_presets()
VARIABLES = [v for p in PROVIDERS for v in (p.key_var, p.url_var, p.model_var) if v]
NO_KEY_NEEDED = "ollama"  # Ollama ignores the key, but the SDK wants one
PLACEHOLDER_MARKERS = ("replace-with", "your-api-key", "你的key")
# The variables the SDK's HTTP library takes a proxy from (urllib's getproxies: any case).
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")
# What building a client raises for a proxy it cannot use: ImportError for SOCKS without
# socksio, ValueError for a scheme it does not know (socks4://), InvalidURL for a typo.
PROXY_ERRORS = (ImportError, ValueError, httpx2.InvalidURL)


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
"""A name a ``.env`` line may give alone, without ``=`` (python-dotenv: set, no value)."""


class ModelConfigError(ValueError):
    """The real-model settings are missing or unusable (the message says which)."""


@dataclass(frozen=True)
class ModelSettings:
    """Where and what to call. The key is kept out of ``repr``."""

    provider: str
    base_url: str
    model: str
    api_key: str = field(repr=False)
    request: dict[str, Any] = field(default_factory=dict)
    """Fields the preset adds to every chat request."""

    def __repr__(self) -> str:
        url = url_without_secrets(self.base_url)
        shown = f"provider={self.provider!r}, base_url={url!r}, model={self.model!r}"
        return f"ModelSettings({shown}{f', request={self.request!r}' if self.request else ''})"

    def client(self, timeout: float = 60.0) -> OpenAI:
        """The client; :class:`ModelConfigError` when a proxy variable is unusable."""
        try:
            # max_retries=0: the agent loop counts and retries requests itself.
            options = dict(api_key=self.api_key, base_url=self.base_url, max_retries=0)
            if self.request:
                return PresetClient(request_fields=self.request, timeout=timeout, **options)
            return OpenAI(timeout=timeout, **options)
        except PROXY_ERRORS as exc:  # the HTTP library read the proxy variables just now
            raise proxy_problem(exc) from None


class PresetClient(OpenAI):
    """An ``openai.OpenAI`` that adds a preset's fields to every chat request
    (DeepSeek's ``thinking`` switch), unless the request sets them itself.
    Copies (``with_options``, a recording client) keep the fields."""

    def __init__(self, *, request_fields: Mapping[str, Any], **options: Any) -> None:
        super().__init__(**options)
        self.request_fields = dict(request_fields)

    def post(self, path: str, *, body: Any = None, **options: Any) -> Any:
        if path.rstrip("/").endswith("/chat/completions") and isinstance(body, Mapping):
            body = {**self.request_fields, **body}
        return super().post(path, body=body, **options)

    def copy(self, **options: Any) -> PresetClient:
        extra = {**options.pop("_extra_kwargs", {}), "request_fields": self.request_fields}
        return super().copy(**options, _extra_kwargs=extra)

    with_options = copy


def load_settings(
    env_file: str | Path | None = None, environ: Mapping[str, str] | None = None
) -> ModelSettings:
    """Read the settings from ``environ`` (default ``os.environ``) and ``.env``.

    A variable set in the environment wins over ``.env``; Colab's secrets
    fill in what neither has. The first provider whose variables are all
    present is used (the order of ``PROVIDERS``).
    """
    environ = os.environ if environ is None else environ
    if environ.get("AGENTLAB_OFFLINE"):
        raise ModelConfigError(tr("config.offline"))
    values = {
        **read_env_file(env_file),
        **read_colab_secrets(v for v in VARIABLES if not environ.get(v)),
        **{k: v for k, v in environ.items() if v},
    }

    partial = []
    for provider in PROVIDERS:
        wanted = provider.variables()
        present = [v for v in wanted if values.get(v, "").strip()]
        if len(present) == len(wanted):
            return _checked(provider, values)
        if present:
            missing = tr("list.sep").join(v for v in wanted if v not in present)
            partial.append(tr("config.incomplete", provider=provider.name, missing=missing))
    if partial:
        raise ModelConfigError(tr("config.see_example", problems="; ".join(partial)))
    raise ModelConfigError(tr("config.nothing"))


def from_env(env_file: str | Path | None = None, timeout: float = 60.0) -> OpenAI:
    """An ``openai.OpenAI`` for the configured service (see :func:`load_settings`).

    Raises :class:`ModelConfigError` (a message saying which variable is
    missing or malformed, never its value) when nothing usable is set, or
    when ``AGENTLAB_OFFLINE`` is; the notebooks catch it and stay scripted.
    The client does not carry the model's name: pass ``load_settings().model``
    to ``run_agent(model=...)``, as chapter 04 does.
    """
    return load_settings(env_file).client(timeout=timeout)


def env_file_text(path: Path) -> str:
    """The text of a ``.env``: UTF-8 (with or without a byte-order mark) or UTF-16
    (with or without one). A NUL in it is an error naming its line: read on, it
    would become part of a name or a value."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ModelConfigError(
            tr("config.unreadable", name=path.name, error=type(exc).__name__)
        ) from None
    try:
        text = raw.decode(env_file_encoding(raw))
    except UnicodeDecodeError:
        raise ModelConfigError(tr("config.not_utf8", name=path.name)) from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise ModelConfigError(tr("envcheck.env_nul", name=path.name, line=line))
    return text


def env_file_encoding(raw: bytes) -> str:
    """``utf-16`` after a byte-order mark (Windows PowerShell 5's ``echo ... > .env``);
    ``utf-16-le``/``-be`` without one when most high bytes are NUL, as in ASCII
    names and values; else ``utf-8-sig`` (UTF-8 with or without its mark)."""
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    even, odd = raw[0::2].count(0), raw[1::2].count(0)
    if odd > len(raw) // 4 and odd > even:
        return "utf-16-le"
    if even > len(raw) // 4 and even > odd:
        return "utf-16-be"
    return "utf-8-sig"


def read_env_file(env_file: str | Path | None = None) -> dict[str, str]:
    """The ``KEY=VALUE`` pairs of ``.env`` (searched upwards from the working
    directory when not given); an unreadable or malformed file is an error."""
    path = Path(env_file) if env_file else Path(find_dotenv(usecwd=True) or ".env")
    if not path.is_file():
        if env_file:
            raise ModelConfigError(tr("config.no_env_file", path=str(path)))
        return {}
    text = env_file_text(path)
    for binding in parse_stream(io.StringIO(text)):
        # A line with no "=" is a name without a value to the parser, the whole line
        # being the name: LLM_API_KEY＝sk-... (a full-width ＝ from a Chinese input
        # method) or a key pasted on a line of its own would vanish without a word.
        if binding.error or (
            binding.key and binding.value is None and not ENV_NAME.fullmatch(binding.key)
        ):
            # The parser counts blank lines before a bad line as part of it.
            text = binding.original.string
            line = binding.original.line + text[: len(text) - len(text.lstrip())].count("\n")
            raise ModelConfigError(tr("config.bad_line", name=path.name, line=line))
    values = dotenv_values(stream=io.StringIO(text))
    return {k: v for k, v in values.items() if v}


def read_colab_secrets(names: Iterable[str]) -> dict[str, str]:
    """The secrets among ``names`` that Colab keeps for this notebook; ``{}``
    anywhere else. A secret that is missing or not shared with the notebook
    is skipped, like an unset variable."""
    try:
        from google.colab import userdata  # only importable inside Colab
    except ImportError:
        return {}
    found = {}
    for name in names:
        try:
            value = userdata.get(name)
        except Exception as exc:  # SecretNotFoundError, NotebookAccessError, ...
            if type(exc).__name__ == "TimeoutException":
                break  # no Colab page to ask (an exported run): each name would wait 10 s
            continue
        if isinstance(value, str) and value.strip():
            found[name] = value
    return found


def url_without_secrets(url: str) -> str:
    """``scheme://host[:port]/path``: a key pasted into a URL (``https://user:KEY@host``,
    ``?key=KEY``) is left out; ``"?"`` for a URL ``urlsplit`` cannot read. (Settings
    from :func:`load_settings` have neither; ``ModelSettings`` built by hand may.)"""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "?"
    return urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))


def proxy_variables(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The proxy variables set in ``environ`` (default ``os.environ``) that the
    HTTP library reads: ``ALL_PROXY``, ``all_proxy``, ``HTTPS_PROXY`` ..."""
    environ = os.environ if environ is None else environ
    return {k: v for k, v in environ.items() if k.lower() in PROXY_VARIABLES and v.strip()}


def proxy_shown(value: str) -> str:
    """``scheme://host:port`` of a proxy URL: ``user:password@`` and anything after
    the host left out (a password may hold ``/`` or ``@``, so cut at the last ``@``)."""
    scheme, sep, rest = value.strip().partition("://")
    if not sep:
        scheme, rest = "", scheme
    return scheme + sep + re.split(r"[/?#]", rest.rpartition("@")[2])[0]


def proxies_shown(proxies: Mapping[str, str]) -> str:
    """``NAME=scheme://host:port`` for each proxy variable, without credentials."""
    return tr("list.sep").join(f"{name}={proxy_shown(value)}" for name, value in proxies.items())


def proxy_problem(exc: Exception, environ: Mapping[str, str] | None = None) -> ModelConfigError:
    """What to say when the HTTP client cannot be built: the proxy variables
    that are set (shown without credentials), and what to do about them."""
    proxies = proxy_variables(environ)
    if not proxies:  # a system-wide proxy (Windows, macOS settings), or something else
        return ModelConfigError(tr("envcheck.client_failed", error=type(exc).__name__))
    shown = proxies_shown(proxies)
    key = "envcheck.proxy_no_socksio" if isinstance(exc, ImportError) else "envcheck.proxy_unusable"
    return ModelConfigError(tr(key, proxies=shown, names=" ".join(proxies)))


def check_proxies(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The proxy variables that are set, each tried as the HTTP library would use it
    (without sending anything); :class:`ModelConfigError` names one it cannot use."""
    proxies = proxy_variables(environ)
    for name, value in proxies.items():
        url = value if "://" in value else f"http://{value}"  # as httpx2 reads the environment
        try:
            httpx2.Client(proxy=url, trust_env=False).close()
        except PROXY_ERRORS as exc:
            raise proxy_problem(exc, {name: value}) from None
    return proxies


def _usable_url(url: str) -> bool:
    """``http(s)://`` with a host, a port in range and no spaces. ``urlsplit``
    itself raises for some typos (``https://[::1/v1``), ``.port`` for others
    (``:99999``): each would otherwise fail later, as a traceback."""
    if not url.startswith(("http://", "https://")) or any(c.isspace() for c in url):
        return False
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    return bool(parts.hostname) and port != 0


def _checked(provider: Provider, values: dict[str, str]) -> ModelSettings:
    key = values[provider.key_var].strip() if provider.key_var else NO_KEY_NEEDED
    url = (values.get(provider.url_var) or provider.default_url or "").strip()
    model = (values.get(provider.model_var) or provider.default_model or "").strip()
    if provider.key_var and any(marker in key.lower() for marker in PLACEHOLDER_MARKERS):
        raise ModelConfigError(tr("config.placeholder", name=provider.key_var))
    # A key pasted with a space or an invisible character fails only at the first request,
    # as an encoding error: say so now (without showing the key).
    if provider.key_var and not (key.isascii() and key.isprintable() and " " not in key):
        raise ModelConfigError(tr("config.bad_key", name=provider.key_var))
    if not _usable_url(url):
        raise ModelConfigError(tr("config.bad_url", name=provider.url_var))
    # A key pasted into the URL never works (the SDK appends its path after a query, and
    # sends user:password@ as HTTP Basic in place of the key) and would be echoed back in
    # a service's error: refused, and the URL is not shown.
    if "?" in url or "#" in url:
        raise ModelConfigError(tr("envcheck.url_query", name=provider.url_var))
    if "@" in urlsplit(url).netloc:
        key_var = provider.key_var or "API Key"
        raise ModelConfigError(tr("envcheck.url_userinfo", name=provider.url_var, key=key_var))
    if url.rstrip("/").endswith("/chat/completions"):  # the SDK adds that part itself
        raise ModelConfigError(tr("config.url_with_endpoint", name=provider.url_var))
    if any(marker in url.upper() for marker in ("YOUR_", "REPLACE")):
        raise ModelConfigError(tr("config.placeholder", name=provider.url_var))
    if "replace-with" in model:
        raise ModelConfigError(tr("config.placeholder", name=provider.model_var))
    return ModelSettings(
        provider=provider.name, base_url=url, model=model, api_key=key, request=provider.request
    )
