"""Messages people read: Chinese by default, English behind one switch.

Everything the package says to a person or to the model — warnings, stop
messages, tool error messages, tool descriptions, hints to the model, table
labels — is looked up by key (:func:`reason` says why a file could not be read
or written, for the errors a student meets most)::

    tr("guard.max_steps", cap=4)   # 达到步数上限 max_steps=4，仍未得到最终回答

The switch is the environment variable ``AGENTLAB_LANG`` (``zh``, the
default, or ``en``); :func:`set_language` sets it. Keeping the choice in the
environment means child processes (isolated tools, sweep workers, notebook
kernels started from a shell) speak the same language as their parent.
Codes a program reads (``stop_reason``, ``outcome``, error ``code``) are not
messages: they never change with the language.

The messages are data, one TOML file per language in ``agentlab/locale/``
(``zh.toml``, ``en.toml``), read with the standard library's ``tomllib`` the
first time a message of that language is looked up, then kept for the life of
the process. TOML and not gettext (with Babel): ``tomllib`` reads the files as
they are committed, with no build step, whereas gettext reads compiled ``.mo``
files (``msgfmt`` or Babel must run first, or binaries be committed) and picks
the language from the system locale, while this course speaks Chinese whatever
the machine's locale is. The exercises keep their own texts in a folder of the
same shape, read by the same :class:`Catalog`.

A key's dots are TOML tables: ``guard.max_steps`` is ``max_steps`` in the
``[guard]`` table. A message is a ``str.format`` template, or, where its words
depend on a number, a plural table that names the field holding the number in
``count`` and gives one template per CLDR plural category of the language::

    [guard]
    no_progress.count = "steps"
    no_progress.one = "{steps} step in a row brought nothing new; stuck at {where}"
    no_progress.other = "{steps} steps in a row brought nothing new; stuck at {where}"

English has ``one`` (the number 1) and ``other``; Chinese has only ``other``,
so a Chinese message is always a plain string.

This module looks texts up and, in :func:`reason`, picks the text for an
OS error; it does not decide what to say about anything else.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import socket
import ssl
import string
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "AGENTLAB_LANG"
LANGUAGES = ("zh", "en")
PLURAL_CATEGORIES = {"zh": ("other",), "en": ("one", "other")}
"""The CLDR plural categories of whole numbers, by language: the forms a plural table has."""

Message = str | dict[str, str]  # a template, or a plural table


def language() -> str:
    """The language messages are shown in: ``"zh"`` unless ``AGENTLAB_LANG`` says ``en``."""
    value = os.environ.get(ENV_VAR, "").strip().lower()
    return "en" if value.startswith("en") else "zh"


def set_language(lang: str) -> None:
    """Show messages in ``lang`` (``"zh"`` or ``"en"``) from now on, here and in children."""
    if lang not in LANGUAGES:
        raise ValueError(tr("language.unknown", allowed=" / ".join(LANGUAGES), got=repr(lang)))
    os.environ[ENV_VAR] = lang


def plural_category(lang: str, n: object) -> str:
    """The CLDR plural category of the whole number ``n`` in ``lang``: English says
    "1 step" (``one``) but "0 steps", "2 steps" (``other``); Chinese has one form."""
    return "one" if lang == "en" and n == 1 else "other"


@dataclass(frozen=True)
class Catalog:
    """The messages in one folder of ``<language>.toml`` files."""

    folder: Path

    def messages(self, lang: str) -> dict[str, Message]:
        """Every message of ``lang``, by dotted key (the file is read once per process)."""
        return _read(self.folder, lang)

    def __contains__(self, key: str) -> bool:
        return key in self.messages(language())

    def tr(self, key: str, /, **fields: object) -> str:
        """The message ``key`` in the current language, with ``fields`` filled in."""
        lang = language()
        message = self.messages(lang)[key]
        if isinstance(message, dict):
            message = message[plural_category(lang, fields[message["count"]])]
        return message.format(**fields)


@functools.cache
def _read(folder: Path, lang: str) -> dict[str, Message]:
    with (folder / f"{lang}.toml").open("rb") as file:
        return dict(_flatten(tomllib.load(file)))


def _flatten(table: dict, prefix: str = "") -> Iterator[tuple[str, Message]]:
    """(dotted key, message) pairs; a table holding ``other`` is a message, not a group."""
    for name, value in table.items():
        if isinstance(value, dict) and "other" not in value:
            yield from _flatten(value, f"{prefix}{name}.")
        else:
            yield prefix + name, value


CATALOG = Catalog(Path(__file__).parent / "locale")


def tr(key: str, /, **fields: object) -> str:
    """The message ``key`` in the current language, with ``fields`` filled in.

    Example: ``tr("guard.max_steps", cap=4)`` ->
    ``"达到步数上限 max_steps=4，仍未得到最终回答"``.
    """
    return CATALOG.tr(key, **fields)


def placeholders(template: str) -> set[str]:
    """The ``{names}`` a template fills in (used by the catalogs' own tests)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def printable_output() -> None:
    """Let a command print Chinese wherever its output goes.

    A Windows pipe or redirect uses the locale's code page, and cp1252
    cannot encode Chinese: such a stream is switched to UTF-8 instead of
    crashing at the first message; GBK and UTF-8 streams keep their encoding.
    """
    for stream in (sys.stdout, sys.stderr):
        if not hasattr(stream, "reconfigure"):
            continue
        try:
            "中文".encode(stream.encoding or "utf-8")
            encoding = None  # keep it
        except (UnicodeEncodeError, LookupError):
            encoding = "utf-8"
        # a lone surrogate a model sent (JSON "\ud83d") is printed as that escape
        stream.reconfigure(encoding=encoding, errors="backslashreplace")


OS_REASON_CLASSES = {
    FileNotFoundError: "os.not_found",
    PermissionError: "os.permission",
    IsADirectoryError: "os.is_a_folder",
    NotADirectoryError: "os.not_a_folder",
    ConnectionRefusedError: "os.refused",
    ConnectionResetError: "os.reset",
    ConnectionAbortedError: "os.aborted",
    TimeoutError: "os.timed_out",
}
"""The file and network errors a student meets most, by class: Python picks the class
from the code on every system (Windows refuses a connection with 10061, not
ECONNREFUSED). The system's own text (``strerror``) is in the machine's locale,
English on most set-ups."""
OS_REASONS = {
    errno.ENOSPC: "os.disk_full",
    errno.EROFS: "os.read_only",
    errno.ENAMETOOLONG: "os.name_too_long",
    errno.ELOOP: "os.link_loop",
    errno.ENETUNREACH: "os.no_route",
    errno.EHOSTUNREACH: "os.no_route",
}
"""The ones Python has no class for, by errno."""


JSON_REASONS = {
    "Expecting value": "json.expecting_value",
    "Expecting property name enclosed in double quotes": "json.expecting_name",
    "Expecting ':' delimiter": "json.expecting_colon",
    "Expecting ',' delimiter": "json.expecting_comma",
    "Unterminated string starting at": "json.unterminated_string",
    "Invalid control character at": "json.control_character",
    "Extra data": "json.extra_data",
    "Invalid \\escape": "json.invalid_escape",
    "Invalid \\uXXXX escape": "json.invalid_unicode_escape",
    # Python 3.13 names a comma before } or ] itself (older ones: "Expecting ...")
    "Illegal trailing comma before end of object": "json.trailing_comma",
    "Illegal trailing comma before end of array": "json.trailing_comma",
}
"""Python's JSON decoder messages (``JSONDecodeError.msg``), by catalog key."""


def json_reason(exc: json.JSONDecodeError) -> str:
    """Why text is not JSON, in the current language when it is a message we know."""
    key = JSON_REASONS.get(exc.msg)
    return tr(key) if key else exc.msg


def described(exc: BaseException) -> str:
    """``"ValueError: bad value"``: what a tool or a check raised, in one line of text,
    even when the exception's own ``__str__`` fails (then its class name alone)."""
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:
        return type(exc).__name__


def reason(exc: BaseException) -> str:
    """Why a file could not be read or written, or a service reached, in the
    current language when we know the error (a bad JSON line says where), else
    the system's own words."""
    if isinstance(exc, json.JSONDecodeError):
        return tr("os.bad_json", line=exc.lineno, column=exc.colno)
    if isinstance(exc, UnicodeError):
        return tr("os.not_utf8")
    if isinstance(exc, socket.gaierror):
        return tr("os.no_such_host")
    if isinstance(exc, ssl.SSLError):  # its errno is an SSL code, not the system's
        return tr("os.tls", detail=getattr(exc, "reason", None) or exc)
    key = next((k for cls, k in OS_REASON_CLASSES.items() if isinstance(exc, cls)), None)
    key = key or OS_REASONS.get(getattr(exc, "errno", None))
    if key is not None:
        return tr(key)
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
