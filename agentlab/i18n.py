"""Messages people read: Chinese by default, English behind one switch.

Everything the package says to a person — warnings, stop messages, tool
error messages, hints to the model, table labels, exercise feedback — is
looked up here by key (:func:`reason` says why a file could not be read or
written, for the errors a student meets most)::

    tr("guard.max_steps", cap=4)   # 达到步数上限 max_steps=4，仍未得到最终回答

The switch is the environment variable ``AGENTLAB_LANG`` (``zh``, the
default, or ``en``); :func:`set_language` sets it. Keeping the choice in the
environment means child processes (isolated tools, sweep workers, notebook
kernels started from a shell) speak the same language as their parent.

Codes a program reads (``stop_reason``, ``outcome``, error ``code``) are not
messages: they never change with the language.

Why a catalog module and not stdlib ``gettext``: gettext reads compiled
``.mo`` files, which need a build step (``msgfmt`` is not installed with
Python) or a committed binary, and it picks the language from the system
locale, whereas this course speaks Chinese whatever the machine's locale.
A dict of (Chinese, English) pairs has no build step, keeps both versions of
a message side by side for review, and a test checks every pair is complete.

This module looks texts up and, in :func:`reason`, picks the text for an
OS error; it does not decide what to say about anything else.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import ssl
import string
import sys

ENV_VAR = "AGENTLAB_LANG"
LANGUAGES = ("zh", "en")


def language() -> str:
    """The language messages are shown in: ``"zh"`` unless ``AGENTLAB_LANG`` says ``en``."""
    value = os.environ.get(ENV_VAR, "").strip().lower()
    return "en" if value.startswith("en") else "zh"


def set_language(lang: str) -> None:
    """Show messages in ``lang`` (``"zh"`` or ``"en"``) from now on, here and in children."""
    if lang not in LANGUAGES:
        raise ValueError(tr("language.unknown", allowed=" / ".join(LANGUAGES), got=repr(lang)))
    os.environ[ENV_VAR] = lang


def tr(key: str, /, **fields: object) -> str:
    """The message ``key`` in the current language, with ``fields`` filled in.

    Example: ``tr("guard.max_steps", cap=4)`` ->
    ``"达到步数上限 max_steps=4，仍未得到最终回答"``.
    """
    zh, en = CATALOG[key]
    return (en if language() == "en" else zh).format(**fields)


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


def placeholders(template: str) -> set[str]:
    """The ``{names}`` a template fills in (used by the catalog's own test)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# key: (Chinese, English). Keys are grouped by the module that uses them.
CATALOG: dict[str, tuple[str, str]] = {
    # -- i18n.py, reason(): why a file could not be read or written, or a service reached --
    "os.not_found": ("文件或文件夹不存在", "no such file or directory"),
    "os.permission": ("没有权限", "permission denied"),
    "os.is_a_folder": ("这是一个文件夹，不是文件", "it is a folder, not a file"),
    "os.not_a_folder": ("路径中有一段不是文件夹", "a part of the path is not a folder"),
    "os.disk_full": ("磁盘已满", "no space left on the disk"),
    "os.read_only": ("只读的文件系统", "read-only file system"),
    "os.name_too_long": ("文件名太长", "file name too long"),
    "os.link_loop": ("符号链接层数太多", "too many levels of symbolic links"),
    "os.bad_json": (
        "不是合法的 JSON（第 {line} 行第 {column} 列）",
        "not valid JSON (line {line}, column {column})",
    ),
    "os.not_utf8": ("不是 UTF-8 文本", "not UTF-8 text"),
    "json.expecting_value": ("这里应该是一个值", "a value should come here"),
    "json.expecting_name": (
        "这里应该是用双引号括起来的键名",
        "a key in double quotes should come here",
    ),
    "json.expecting_colon": ("键名后面少了冒号 :", "the key is not followed by ':'"),
    "json.expecting_comma": ("两项之间少了逗号 ,", "a ',' is missing between two items"),
    "json.unterminated_string": (
        "字符串从这里开始，却没有结束",
        "a string starts here and never ends",
    ),
    "json.control_character": (
        "字符串里有不能直接出现的控制字符（如换行）",
        "a control character (such as a line break) stands unescaped in a string",
    ),
    "json.extra_data": ("一个完整的值后面还有多余的内容", "more text follows a complete value"),
    "json.invalid_escape": (
        "反斜杠 \\ 后面跟的不是合法的转义（路径里的 \\ 要写成 \\\\）",
        "a backslash starts an escape JSON does not know (a \\ in a path is written \\\\)",
    ),
    "json.invalid_unicode_escape": (
        "这个转义后面应该正好跟 4 位十六进制数字",
        "\\u must be followed by exactly four hex digits",
    ),
    "json.trailing_comma": ("最后一项后面多了一个逗号 ,", "a ',' follows the last item"),
    "os.refused": (
        "连接被拒绝（这个地址和端口上没有服务在运行）",
        "connection refused (no service is running at that address and port)",
    ),
    "os.reset": ("连接被对方重置", "the connection was reset by the other side"),
    "os.aborted": (
        "连接被本机中止（常见原因：防火墙、杀毒软件或代理）",
        "the connection was aborted on this machine (often a firewall, antivirus or proxy)",
    ),
    "os.timed_out": (
        "连接超时：对方一直没有回应",
        "the connection timed out: the other side never answered",
    ),
    "os.no_route": ("网络不通，到不了这个主机", "the network cannot reach that host"),
    "os.tls": ("TLS（HTTPS）握手失败：{detail}", "the TLS (HTTPS) handshake failed: {detail}"),
    "os.no_such_host": (
        "找不到这个主机名（检查 base_url 的拼写和网络）",
        "no such host name (check the spelling of base_url, and the network)",
    ),
    # -- i18n.py, set_language() --
    "language.unknown": (
        "语言只能是 {allowed} 之一，收到的是 {got}",
        "language must be one of {allowed}, got {got}",
    ),
    # -- shared punctuation --
    "list.sep": ("、", ", "),
    # -- clients/scripted.py, clients/script.py: the in-process "service" --
    "scripted.ran_out": (
        "脚本只准备了 {turns} 个回复，已经用完",
        "the script has only {turns} turn(s)",
    ),
    "scripted.policy_raised": (
        "脚本化模型的策略函数抛出了异常：{error}",
        "the scripted policy raised {error}",
    ),
    "scripted.no_such_path": (
        "脚本化服务没有 {path} 这个接口",
        "the scripted service has no {path}",
    ),
    "scripted.http_error": ("脚本化服务返回的 HTTP 错误", "scripted HTTP error"),
    "scripted.late_answer": ("（一个迟到很久的回答）", "(a very late answer)"),
    "scripted.bad_turn": (
        "脚本化模型的策略返回了 {got}，不是一个回合：用 say(...)、call(...)、HttpError(...) "
        "或 Hang(...)",
        "the scripted policy returned {got}, not a turn: use say(...), call(...), "
        "HttpError(...) or Hang(...)",
    ),
    "scripted.needs_script": (
        "ScriptedClient 需要一个脚本：一串回合（turn），或者一个 policy 函数",
        "ScriptedClient needs a script: a list of turns or a policy",
    ),
    "scripted.unknown_behaviour": (
        "没有叫 {name} 的脚本化行为；可用的有：{known}",
        "unknown scripted behaviour {name}; known: {known}",
    ),
    "scripted.bad_chunk_size": ("分块大小至少是 1", "chunk sizes must be at least 1"),
    "replay.unreadable_body": (
        "（{size} 字节的压缩或二进制回复，没有保存：在里面查不出密钥）",
        "({size} bytes of compressed or binary reply, not kept: the key cannot be searched "
        "for in it)",
    ),
    "replay.needs_recording": (
        "ReplayClient 需要一份录制：文件路径，或已经读进来的 dict",
        "ReplayClient needs a recording: a path or a loaded dict",
    ),
    # -- tools/registry.py: whitelist, argument check, running a call --
    "registry.no_tools": ("（没有）", "(none)"),
    "registry.none": ("无", "none"),
    "registry.duplicate_tool": (
        "已经注册过名为 {name!r} 的工具",
        "a tool named {name!r} is already registered",
    ),
    "registry.unknown_tool": (
        "没有名为 {name!r} 的工具；白名单里的工具：{allowed}",
        "no tool named {name!r}; allowed tools: {allowed}",
    ),
    "registry.bad_json": (
        "参数不是合法的 JSON（位置 {position}：{reason}）：{shown}",
        "arguments are not valid JSON ({reason} at position {position}): {shown}",
    ),
    "registry.too_deep": (
        "参数嵌套得太深（超过 {limit} 层），无法读取",
        "the arguments are nested too deeply to read (more than {limit} levels)",
    ),
    "registry.result_too_deep": (
        "{name} 返回的结果嵌套超过 {limit} 层，模型读不了",
        "{name} returned a result nested more than {limit} levels deep, too deep for the model",
    ),
    "registry.bad_number": (
        "参数里有无法读取的数字：{error}",
        "the arguments hold a number that cannot be read: {error}",
    ),
    "registry.not_json": (
        "{name} 返回的结果里有不能写成 JSON 的值（例如日期对象或集合）",
        "{name} returned a result holding a value JSON cannot hold (a date object or a set, say)",
    ),
    "registry.not_an_object": (
        "参数必须是一个 JSON 对象，收到的是 {type}",
        "arguments must be a JSON object, got {type}",
    ),
    "registry.missing_required": ("缺少必填参数：{names}", "missing required argument(s): {names}"),
    "registry.unexpected": (
        "有未定义的参数：{names}（允许的参数：{allowed}）",
        "unexpected argument(s): {names} (allowed: {allowed})",
    ),
    "registry.field": ("{name}：{problem}", "{name}: {problem}"),
    "registry.item": ("第 {index} 项：{problem}", "item {index}: {problem}"),
    "registry.wrong_type": (
        "应为 {expected}，实际是 {actual}",
        "expected {expected}, got {actual}",
    ),
    "registry.not_in_enum": (
        "必须是 {allowed} 之一，实际是 {value}",
        "must be one of {allowed}, got {value}",
    ),
    "registry.not_const": (
        "必须等于 {expected}，实际是 {value}",
        "must equal {expected}, got {value}",
    ),
    "registry.too_small": (
        "不能小于 {limit}，实际是 {value}",
        "must be at least {limit}, got {value}",
    ),
    "registry.too_large": (
        "不能大于 {limit}，实际是 {value}",
        "must be at most {limit}, got {value}",
    ),
    "registry.not_above": (
        "必须大于 {limit}，实际是 {value}",
        "must be above {limit}, got {value}",
    ),
    "registry.not_below": (
        "必须小于 {limit}，实际是 {value}",
        "must be below {limit}, got {value}",
    ),
    "registry.too_short": (
        "至少要 {limit} 个字符，实际只有 {length} 个",
        "must have at least {limit} characters, got {length}",
    ),
    "registry.too_long": (
        "最多 {limit} 个字符，实际有 {length} 个",
        "must have at most {limit} characters, got {length}",
    ),
    "registry.no_match": ("不符合格式 {pattern}", "does not match the pattern {pattern}"),
    "registry.too_few_items": (
        "至少要 {limit} 项，实际只有 {count} 项",
        "must have at least {limit} items, got {count}",
    ),
    "registry.too_many_items": (
        "最多 {limit} 项，实际有 {count} 项",
        "must have at most {limit} items, got {count}",
    ),
    "registry.schema_not_dict": (
        "工具 {name} 的参数 schema 应是一个字典（JSON schema，例如 "
        '{{"properties": {{...}}, "required": [...]}}），你给的是 {got}',
        "the parameter schema of tool {name} should be a dict (a JSON schema, e.g. "
        '{{"properties": {{...}}, "required": [...]}}); it is {got}',
    ),
    "registry.schema_placeholder": (
        "...（起始代码里的占位符）",
        "... (the starter's placeholder)",
    ),
    "registry.bad_schema": (
        "工具 {name} 的参数 schema 不能用来检查参数"
        "（支持 JSON Schema draft 7 的关键字）：{problem}",
        "the parameter schema of tool {name} cannot check arguments (JSON Schema draft 7 "
        "keywords are supported): {problem}",
    ),
    "registry.breaks_rule": (
        "不符合参数 schema 里的 {rule} 规则",
        "does not satisfy the schema's {rule} rule",
    ),
    "registry.raised": ("{name} 抛出了异常：{error}", "{name} raised {error}"),
    "registry.not_a_result": (
        "{name} 返回的不是工具结果（应含 status、data、source、error）",
        "{name} returned something that is not a tool result (status, data, source, error)",
    ),
    "registry.abandoned": (
        "{name} 在运行的截止时间前没有返回；运行已放弃等待，但它仍在后台继续执行（线程无法被杀死）",
        "{name} did not return before the run's deadline; it was abandoned but is still "
        "running in the background (a thread cannot be killed)",
    ),
    "registry.killed": (
        "{name} 在截止时间到时被杀死（{how}）",
        "{name} was killed ({how}) when the run's deadline came",
    ),
    # -- budget.py: the guards --
    "guard.max_steps": (
        "达到步数上限 max_steps={cap}，仍未得到最终回答",
        "reached the step cap max_steps={cap} without a final answer",
    ),
    "guard.deadline": (
        "已经到了运行的 {seconds} 秒截止时间，第 {step} 步没有开始",
        "the run's {seconds} s deadline passed before step {step}",
    ),
    "guard.max_tokens": (
        "已用 {used} 个 token，超过预算 {cap}",
        "used {used} tokens of a budget of {cap}",
    ),
    "guard.too_many_calls": (
        "每轮最多执行 {cap} 个工具调用；{name} 这次没有执行。需要的话请在下一轮再调用。",
        "only {cap} tool call(s) per turn are executed; {name} was skipped. "
        "Ask for it again in the next turn if needed.",
    ),
    "guard.repeat_stop": (
        "第 {count} 次出现完全相同的调用：{key}",
        "identical call number {count}: {key}",
    ),
    "guard.repeat_hint": (
        "完全相同的调用已经执行过 {before} 次，这次不再执行。请换个思路，或者直接给出最终回答。",
        "this exact call was already made {before} time(s) and was not run again. "
        "Change strategy or give your final answer.",
    ),
    "guard.no_progress": (
        "连续 {steps} 步没有得到任何新信息；卡在 {where}",
        "{steps} step(s) in a row brought nothing new; stuck at {where}",
    ),
    "guard.rejected": ("被完成检查驳回的回答", "answers the check rejected"),
    "guard.deadline_near": (
        "运行的 {seconds} 秒截止时间快到了，剩下的时间不够再做完整的一步",
        "the run's {seconds} s deadline is near: not enough time left for another full step",
    ),
    # -- budget.py: what each limit must be --
    "budget.bad_value": (
        "Budget 的 {name} 应是{rule}，收到的是 {value!r}",
        "Budget's {name} must be {rule}, got {value!r}",
    ),
    "budget.kind.count": ("不小于 1 的整数", "a whole number of at least 1"),
    "budget.kind.repeat": (
        "不小于 2 的整数（第 2 次完全相同的调用才算重复），或 None（不设这项限制）",
        "a whole number of at least 2 (the 2nd identical call is the first repeat) or None",
    ),
    "budget.kind.retries": ("不小于 0 的整数", "a whole number of at least 0"),
    "budget.kind.output_chars": (
        "不小于 {least} 的整数（或 None 表示不截断）",
        "a whole number of at least {least} (or None: no truncation)",
    ),
    "budget.kind.seconds": (
        "大于 0 的有限秒数（或 None 表示不限时）",
        "a finite number of seconds above 0 (or None: no limit)",
    ),
    "budget.kind.backoff": ("不小于 0 的有限秒数", "a finite number of seconds, 0 or more"),
    "budget.kind.bool": ("True 或 False", "True or False"),
    # -- loop.py: the loop, the tool phase, the completion check --
    "loop.empty_task": ("任务是空的：没有发出任何请求", "the task is empty: no request was made"),
    "loop.bad_task_id": (
        "task_id 只能由字母、数字、汉字、点、下划线和连字符组成（1–64 个字符，不能是 . 或 ..），"
        "因为它是轨迹文件夹的名字；收到的是 {task_id!r}",
        "task_id names the trace folder, so it may hold only letters, digits, '.', '_' and '-' "
        "(1-64 characters, not . or ..); got {task_id!r}",
    ),
    "loop.bad_fold": (
        "fold_after_steps 应是不小于 1 的整数（或 None 表示不折叠），收到的是 {value!r}",
        "fold_after_steps must be a whole number of at least 1 (or None: no folding), "
        "got {value!r}",
    ),
    "loop.bad_tools": (
        "tools 必须是一个 ToolRegistry（例如 sales_tools() 或 ToolRegistry([...])），"
        "收到的是 {type}",
        "tools must be a ToolRegistry (e.g. sales_tools() or ToolRegistry([...])), not {type}",
    ),
    "loop.display_failed": (
        "显示回调（on_text 或 on_reasoning）出错，之后不再调用它：{error}",
        "a display callback (on_text or on_reasoning) raised and is no longer called: {error}",
    ),
    "loop.bad_permission_errors": (
        "permission_errors 只能是 'stop' 或 'feed_back'，收到的是 {value!r}",
        "permission_errors must be 'stop' or 'feed_back', got {value!r}",
    ),
    "loop.not_done": ("还没有完成：{reason}", "Not done yet: {reason}"),
    "loop.empty_answer": (
        "模型的回复是空的：既没有文字，也没有工具调用；运行按“已回答”结束，答案为空",
        "the model's reply was empty: no text and no tool calls; the run ends as answered, "
        "with an empty answer",
    ),
    "loop.not_run": ("运行已停止：{message}", "the run stopped: {message}"),
    "loop.stopped_first": (
        "运行先停止了（{reason}），这个调用没有执行",
        "the run stopped ({reason}) first; this call was not run",
    ),
    "loop.refused": ("{name} 被拒绝：{reason}", "{name} was refused: {reason}"),
    "loop.check_raised": ("完成检查抛出了异常：{error}", "the completion check raised {error}"),
    "loop.check_failed": ("完成检查没有通过", "the completion check failed"),
    "loop.check_not_a_verdict": (
        "完成检查应返回 True、False 或一句说明缺什么的话，却返回了 {shown}；按没有完成处理",
        "the completion check should return True, False or a sentence saying what is "
        "missing, but returned {shown}; taken as not done",
    ),
    "loop.wrap_up": (
        "预算即将用完（{reason}）。不要再调用工具。请只根据目前已经得到的信息，"
        "说明已经完成了什么、还差什么；这不是最终答案。",
        "The budget is about to run out ({reason}). Do not call any more tools. Using only "
        "what you have so far, say what is done and what is still missing; this is not a "
        "final answer.",
    ),
    "loop.no_tools_now": (
        "这一步不能再调用工具：预算已经用完",
        "no tools can be called in this step: the budget has run out",
    ),
    # -- deadline stops, by phase --
    "deadline.decide": (
        "模型没有在运行的 {seconds} 秒截止时间内回复",
        "the model did not answer within the run's {seconds} s deadline",
    ),
    "deadline.tool": (
        "{name} 没有在运行的 {seconds} 秒截止时间内返回",
        "{name} did not return within the run's {seconds} s deadline",
    ),
    "deadline.complete": (
        "完成检查没有在运行的 {seconds} 秒截止时间内结束",
        "the completion check did not finish within the run's {seconds} s deadline",
    ),
    "deadline.no_time_to_retry": (
        "来不及重试：下一次尝试要等 {wait} 秒，超出了运行的 {seconds} 秒截止时间",
        "cannot retry: the next attempt is {wait} s away, not within the run's {seconds} s "
        "deadline",
    ),
    # -- request.py, retry.py: the model request --
    "model.no_usage": (
        "模型服务没有返回 usage，token 计数偏低",
        "the model service reported no usage; token counts are too low",
    ),
    "model.cut_off": (
        "有一个回复被截断了（finish_reason=length）：文字或工具参数可能不完整",
        "a reply was cut off (finish_reason=length): its text or tool arguments may be incomplete",
    ),
    "model.call_id_renamed": (
        "一个工具调用的 id 缺失或与之前重复（{id}），已重新命名",
        "a tool call came with a missing or repeated id ({id}); renamed",
    ),
    "model.not_json": (
        "模型服务的回复不是 JSON（{detail}）：请检查 base_url 是否指向 OpenAI 兼容的 API"
        "（通常以 /v1 结尾），而不是一个网页",
        "the model service's reply is not JSON ({detail}): check that base_url points at the "
        "OpenAI-compatible API (usually ending in /v1), not at a web page",
    ),
    "model.empty_body": ("回复是空的", "an empty body"),
    "model.no_choices": ("模型服务的回复里没有 choices", "the model service returned no choices"),
    "model.timed_out": ("模型请求超时", "the model request timed out"),
    "model.unreachable": ("连不上模型服务：{error}", "could not reach the model service: {error}"),
    "model.connection_dropped": (
        "模型服务没有发完回复就断开了连接",
        "the model service closed the connection before its reply was complete",
    ),
    "model.closed_without_reply": (
        "模型服务没有回复就断开了连接",
        "the model service closed the connection without replying",
    ),
    "model.bad_reply": ("无法使用的回复：{error}", "unusable reply: {error}"),
    "model.http_status": (
        "模型服务返回 HTTP {status}：{detail}",
        "HTTP {status} from the model service: {detail}",
    ),
    "model.attempts": ("（共尝试 {n} 次）", " after {n} attempts"),
    "model.failed": (
        "模型请求失败（{kind}）{attempts}：{detail}",
        "model request failed ({kind}){attempts}: {detail}",
    ),
    "model.check_key": (
        "（服务拒绝了凭据：请检查 .env 里的 API Key）",
        " (the service refused the credentials: check the API key in .env)",
    ),
    "model.stream_error": (
        "模型服务在回复途中报错：{detail}",
        "the model service failed partway through its reply: {detail}",
    ),
    "model.error_body": (
        "模型服务的回复里只有一个错误：{detail}",
        "the model service replied with an error only: {detail}",
    ),
    "model.check_quota": (
        "（账户额度或余额用完了：请检查服务商控制台里的套餐和账单，重试没有用）",
        " (the account is out of credit or quota: check the plan and billing in the "
        "provider's console; retrying will not help)",
    ),
    "model.finish_blocked": (
        "服务商的内容审核拦下了这次回复（finish_reason={reason}）",
        "the provider's content moderation blocked this reply (finish_reason={reason})",
    ),
    "model.finish_service_error": (
        "模型服务没能生成完这次回复（finish_reason={reason}）",
        "the model service failed to finish this reply (finish_reason={reason})",
    ),
    "model.call_as_text": (
        "模型把工具调用写成了普通文字（<tool_call>…、[TOOL_CALLS]… 或一个 JSON 调用），"
        "而且写得残缺、读不出来；服务没有把它转成 tool_calls："
        "请检查服务是否开启了工具调用解析（例如 vLLM 的 --enable-auto-tool-choice 和 "
        "--tool-call-parser，或 Ollama 里这个模型的模板是否支持工具）",
        "the model wrote its tool call as plain text (<tool_call>…, [TOOL_CALLS]… or a JSON "
        "call), cut or broken so that it cannot be read, and the service did not turn it into "
        "tool_calls: check that the server parses tool calls (vLLM: --enable-auto-tool-choice "
        "and --tool-call-parser; Ollama: a model template with tools)",
    ),
    "model.empty_stream": (
        "流式回复里什么也没有：没有文字、没有工具调用，也没有结束原因",
        "the streamed reply held nothing: no text, no tool calls, no finish_reason",
    ),
    "model.no_finish_reason": (
        "流式回复没有说明为什么结束（没有 finish_reason）：连接可能中途断了，回答可能不完整",
        "the streamed reply never said why it ended (no finish_reason): the connection may "
        "have closed early and the answer may be incomplete",
    ),
    "model.unknown_finish_reason": (
        "模型服务给出了一个不认识的结束原因 finish_reason={reason}：回答可能不完整",
        "the model service gave an unknown finish_reason={reason}: the answer may be incomplete",
    ),
    "model.wait_too_long": (
        "模型请求失败：{detail}；服务要求等待 {wait} 秒后再重试",
        "model request failed: {detail}; the service asked to wait {wait} s before retrying",
    ),
    # -- result.py --
    "result.answered_after_error": (
        "模型在工具出错之后直接给出了回答（{codes}）",
        "the model answered right after a tool error ({codes})",
    ),
    "result.partial_answer": (
        "预算用完前，模型按要求给出了阶段性总结（partial_answer）；它不是最终回答",
        "before the budget ran out the model summed up what it had (partial_answer); "
        "it is not a final answer",
    ),
    # -- trace.py --
    "trace.write_failed": (
        "无法写入运行轨迹（{folder}：{error}）；本次运行没有轨迹文件",
        "could not write the run trace ({folder}: {error}); this run has no trace file",
    ),
    "trace.listener_failed": (
        "on_event 回调出错（{error}），之后的事件不再交给它；运行照常继续",
        "the on_event callback raised ({error}); it gets no more events, the run went on",
    ),
    "trace.none": (
        "这次运行没有轨迹文件（trace_dir=False，或文件夹写不进去）：事件都在 result.events 里",
        "this run has no trace file (trace_dir=False, or the folder could not be written): "
        "its events are in result.events",
    ),
    "trace.bad_line": (
        "{path} 的第 {line} 行不是一条完整的 JSON 事件（文件被改过，或写到一半被中断）",
        "line {line} of {path} is not a whole JSON event (the file was edited, "
        "or writing it was cut short)",
    ),
    # -- context.py: truncation and folding --
    "context.note": (
        "工具输出过长（{total} 个字符），这里只保留了一部分。{where}",
        "the tool output was too long ({total} characters); only part of it is kept here. {where}",
    ),
    "context.saved_as": (
        "完整输出保存在运行轨迹旁的 {path}",
        "The full output is saved beside the run trace as {path}",
    ),
    "context.not_saved": ("完整输出没有保存。", "The full output was not saved."),
    "context.marker": (
        "…[已截断：删去 {total} 个字符中的 {removed} 个，保留关键行 {keys} 行]",
        "…[truncated: removed {removed} of {total} characters, kept {keys} key line(s)]",
    ),
    "context.more_items": ("…[还有 {count} 项未显示]", "…[{count} more item(s) not shown]"),
    "context.more_keys": ("还有 {count} 个字段未显示", "{count} more field(s) not shown"),
    "context.object": ("…[含 {count} 个字段的对象]", "…[an object with {count} field(s)]"),
    "context.list": ("…[含 {count} 项的列表]", "…[a list of {count} item(s)]"),
    "context.text": ("…[{count} 个字符]", "…[{count} characters]"),
    "context.folded_ok": (
        "[已折叠] {call} -> ok（{size} 个字符的数据，保存在轨迹里）",
        "[folded] {call} -> ok ({size} characters of data, kept in the trace)",
    ),
    "context.folded_error": (
        "[已折叠] {call} -> error {code}：{message}",
        "[folded] {call} -> error {code}: {message}",
    ),
    # -- tools/sandbox.py --
    "sandbox.refused": ("{why}：{path}", "{why}: {path}"),
    "sandbox.outside": ("{path} 指向允许的目录之外", "{path} leads outside the allowed folder"),
    "sandbox.empty": ("路径必须是非空的相对路径", "the path must be a non-empty relative path"),
    "sandbox.nul": ("路径里有 NUL 字节", "the path contains a NUL byte"),
    "sandbox.not_text": (
        "路径里有无法写成 UTF-8 的字符（孤立的代理码位，例如 JSON 转义 \\ud800）",
        "the path holds a character with no UTF-8 form (a lone surrogate, e.g. the JSON "
        "escape \\ud800)",
    ),
    "sandbox.backslash": (
        "请用 '/' 作分隔符，不允许反斜杠",
        "use '/' as the separator; backslashes are not allowed",
    ),
    "sandbox.absolute": ("只允许相对路径", "only relative paths are allowed"),
    "sandbox.dotdot": ("路径里不允许出现 '..'", "'..' is not allowed in a path"),
    "sandbox.secret_file": (
        "这是 .env 文件或指向它的链接：.env 存放 API Key，工具不读也不写它",
        "this is a .env file or a link to one: .env holds API keys, and the tools neither read "
        "nor write it",
    ),
    "sandbox.link_loop": (
        "{path} 是循环的符号链接（绕一圈又指回自己），打不开",
        "{path} is a symbolic link loop (it leads back to itself) and cannot be opened",
    ),
    "sandbox.too_long": (
        "路径超过 {chars} 个字符或 {parts} 层目录",
        "the path is longer than {chars} characters or {parts} folders",
    ),
    # -- tools/sales.py: analyze_csv --
    "csv.not_found": ("input/ 里没有名为 {name} 的 CSV 文件", "no CSV file named {name} in input/"),
    "csv.too_large": (
        "文件有 {size} 字节；analyze_csv 最多读取 {limit} 字节",
        "the file has {size} bytes; analyze_csv reads at most {limit}",
    ),
    "csv.empty_file": ("文件是空的", "the file is empty"),
    "csv.no_rows": ("CSV 只有表头，没有数据行", "the CSV has a header but no data rows"),
    "csv.missing_columns": (
        "缺少列：{columns}（文件的表头是：{header}）",
        "missing column(s): {columns} (the file's header is: {header})",
    ),
    "csv.repeated_columns": (
        "列 {columns} 在表头里出现了不止一次，不知道该用哪一列",
        "column(s) {columns} appear more than once in the header: which one to use is unclear",
    ),
    "csv.count_too_long": (
        "{column} 的数字超过 {digits} 位，不像是真实的数量或单价",
        "{column} has more than {digits} digits: not a plausible quantity or price",
    ),
    "csv.bad_row": ("第 {line} 行：{problem}", "line {line}: {problem}"),
    "csv.not_utf8": ("文件不是 UTF-8 文本", "the file is not UTF-8 text"),
    "csv.unreadable": ("无法读取 CSV：{error}", "could not read the CSV: {error}"),
    "csv.too_many_fields": ("这一行的字段比表头多", "the row has more fields than the header"),
    "csv.empty_category": ("category 为空", "the category is empty"),
    "csv.control_character": (
        "category 里有控制字符（例如 NUL 或换行）：{value}",
        "the category holds a control character (such as NUL or a line break): {value}",
    ),
    "csv.bad_structure": (
        "从第 {line} 行开始的这条记录格式有误：引号不成对（例如开头的引号没有闭合），"
        "或某个字段超过 {limit} 个字符",
        "the record starting at line {line} is broken: quotes that do not pair up (e.g. an "
        "opening quote never closed), or a field longer than {limit} characters",
    ),
    "csv.not_a_count": (
        "{column} 必须是非负整数，实际是 {value}",
        "{column} must be a non-negative integer, got {value}",
    ),
    # -- tools/files.py --
    "files.names_not_text": (
        "还有 {n} 个文件的名字不是合法的 UTF-8 文本（例如在 Windows 上用 GBK 编码的"
        "压缩包解出来的），没有列出：工具打不开它们，请先改名",
        "{n} more file(s) have names that are not valid UTF-8 text (for example unzipped "
        "from a GBK-encoded Windows archive) and are not listed: no tool can open them; "
        "rename them first",
    ),
    "files.text_not_text": (
        "要写入的文字里有无法写成 UTF-8 的字符（孤立的代理码位，例如 JSON 转义 \\ud83d）",
        "the text holds a character with no UTF-8 form (a lone surrogate, e.g. the JSON "
        "escape \\ud83d)",
    ),
    "files.sandbox_not_a_folder": (
        "沙盒 {path!r} 不是一个目录",
        "the sandbox {path!r} is not a folder",
    ),
    "files.unknown_tools": (
        "没有这些文件工具：{names}（可用的有：{known}）",
        "no such file tool(s): {names} (available: {known})",
    ),
    "files.no_folder": ("沙盒里没有名为 {name} 的目录", "no folder named {name} in the sandbox"),
    "files.no_file": ("沙盒里没有名为 {name} 的文件", "no file named {name} in the sandbox"),
    "files.not_utf8": ("{name} 不是 UTF-8 文本", "{name} is not UTF-8 text"),
    "files.read_failed": ("无法读取 {name}：{error}", "could not read {name}: {error}"),
    "files.is_folder": ("{name} 是一个目录", "{name} is a folder"),
    "files.write_failed": ("无法写入 {name}：{error}", "could not write {name}: {error}"),
    "files.shown_part": (
        "…[已截断：只显示 {total} 个字符中的 {shown} 个]",
        "…[truncated: showing {shown} of {total} characters]",
    ),
    # -- faults.py --
    "faults.service_down": ("报表服务暂时不可用", "the report service is down"),
    "faults.delete_denied": ("不允许删除 {path}", "deleting {path} is not allowed"),
    "faults.busy": ("服务繁忙", "busy"),
    "faults.slow_down": ("请求太多，请放慢速度", "too many requests, slow down"),
    # -- experiments.py --
    "experiments.no_value": ("查不到 {key} 的值", "no value for {key}"),
    "experiments.unknown_kind": (
        "未知的任务类型（unknown kind）：{unknown}；可用的有：{known}",
        "unknown kind(s): {unknown}; known: {known}",
    ),
    "experiments.bad_caps": ("caps 必须是正整数", "caps must be positive integers"),
    # -- clients/real.py: .env and the environment --
    "config.offline": (
        "真实模型已关闭（设置了 AGENTLAB_OFFLINE，自动测试时总是如此）；"
        "要用真实模型，请在 .env 里配置一个服务（见 .env.example）",
        "real models are switched off (AGENTLAB_OFFLINE is set, as in the automated tests); "
        "to use a real model, configure a service in .env (see .env.example)",
    ),
    "config.nothing": (
        "没有配置真实模型：请在 .env 里设置 LLM_API_KEY、LLM_BASE_URL 和 LLM_MODEL，"
        "或 DASHSCOPE_API_KEY、MODEL_BASE_URL 和 MODEL_NAME，或 DEEPSEEK_API_KEY，"
        "或 OLLAMA_MODEL（见 .env.example）",
        "no real model configured: in .env set LLM_API_KEY, LLM_BASE_URL and LLM_MODEL, "
        "or DASHSCOPE_API_KEY, MODEL_BASE_URL and MODEL_NAME, or DEEPSEEK_API_KEY, "
        "or OLLAMA_MODEL (see .env.example)",
    ),
    "config.incomplete": (
        "{provider} 的设置不完整：缺少 {missing}",
        "{provider} settings are incomplete: missing {missing}",
    ),
    "config.see_example": ("{problems}（见 .env.example）", "{problems} (see .env.example)"),
    "config.no_env_file": ("env 文件 {path!r} 不存在", "env file {path!r} does not exist"),
    "config.unreadable": ("无法读取 {name}：{error}", "cannot read {name}: {error}"),
    "config.url_with_endpoint": (
        "{name} 只写到 /v1 这样的前缀为止：去掉末尾的 /chat/completions（SDK 会自己加上）",
        "{name} should stop at a prefix such as /v1: drop the trailing /chat/completions "
        "(the SDK adds it)",
    ),
    "config.not_utf8": (
        "{name} 不是 UTF-8 文本：请用 UTF-8 编码重新保存它（例如在记事本里“另存为”时选 UTF-8）",
        "{name} is not UTF-8 text: save it again as UTF-8 (e.g. Notepad's Save As, encoding UTF-8)",
    ),
    "config.bad_line": (
        "{name} 第 {line} 行不是 KEY=VALUE 的形式",
        "{name} line {line} is not of the form KEY=VALUE",
    ),
    "config.placeholder": (
        "{name} 还是 .env.example 里的占位内容",
        "{name} still holds the placeholder from .env.example",
    ),
    "config.bad_key": (
        "{name} 里有空格或看不见的字符（常见于复制粘贴）：重新复制一次密钥",
        "{name} holds a space or an invisible character (often from copy and paste): copy the "
        "key again",
    ),
    "config.bad_url": (
        "{name} 必须是 http(s) 开头、写明主机名的 URL（端口在 1–65535 之间，不含空格），"
        "通常以 /v1 之类结尾",
        "{name} must be an http(s) URL naming a host (a port from 1 to 65535, no spaces), "
        "usually ending in /v1 or similar",
    ),
    # -- cli.py: agentlab run | demo | sweep --
    "cli.description": (
        "在终端里运行课程的 Agent 循环（没有配置 .env 时使用脚本化模型）。",
        "Run the course's agent loop from a terminal (keyless unless .env is set).",
    ),
    "cli.run.help": (
        "问一个问题，以 JSON 打印结果",
        "ask one question and print the result as JSON",
    ),
    "cli.run.question": (
        '任务，例如 "分析 data/input/sales.csv，哪个类别销售额最高？"',
        'the task, e.g. "分析 data/input/sales.csv，哪个类别销售额最高？"',
    ),
    "cli.run.max_steps": ("步数上限（默认 {default}）", "step cap (default {default})"),
    "cli.run.scripted": (
        "即使配置了真实模型，也使用这个脚本化模型",
        "use this scripted model even if a real one is configured",
    ),
    "cli.run.tools": (
        "sales：读取 data/input/ 的 analyze_csv；files：一份新的沙盒副本",
        "sales: analyze_csv over data/input/; files: a fresh sandbox copy",
    ),
    "cli.run.stream": ("流式输出回复（文字打印到 stderr）", "stream the reply (text to stderr)"),
    "cli.demo.help": (
        "依次播放各种结局的场景，最后打印一张表",
        "play the outcome scenarios and print a table",
    ),
    "cli.demo.stream": ("实时显示每个阶段和流式文字", "show every phase and text live"),
    "cli.sweep.help": (
        "让一群任务在许多步数上限下各跑一遍，写出 CSV 和图表",
        "run a population over many caps; write CSV + charts",
    ),
    "cli.sweep.caps": (
        "要试的上限，例如 1-30 或 1,2,5,10（默认 1-30）",
        "caps to try, e.g. 1-30 or 1,2,5,10 (default 1-30)",
    ),
    "cli.sweep.seed": ("任务群的随机种子（默认 0）", "population seed (default 0)"),
    "cli.sweep.n": (
        "任务群里的任务数（默认 200；第 5 章的笔记本用 30）",
        "tasks in the population (default 200; chapter 05's notebook uses 30)",
    ),
    "cli.sweep.workers": ("使用的进程数（默认 1）", "processes to use (default 1)"),
    "cli.sweep.target": (
        "推荐的上限必须达到的完成率（默认 0.95）",
        "completion rate the recommended cap must reach (default 0.95)",
    ),
    "cli.sweep.repeat_guard": (
        "同时打开重复调用守卫：第 3 次相同调用被拒绝，第 4 次停止",
        "also refuse the 3rd identical call and stop at the 4th (seed table)",
    ),
    "cli.sweep.out": ("写 CSV 和图表的目录", "folder for the CSV and charts"),
    "cli.bad_caps": (
        "上限写法无效 {text}：请用 1-30 这样的范围或 1,2,5 这样的列表",
        "invalid caps {text}: use a range like 1-30 or a list like 1,2,5",
    ),
    "cli.caps_positive": ("上限必须是正整数", "caps must be positive integers"),
    "cli.not_positive": (
        "需要一个正整数，收到的是 {text}",
        "expected a positive integer, got {text}",
    ),
    "cli.out_not_folder": (
        "--out {path!r} 已存在，但不是目录",
        "--out {path!r} exists and is not a folder",
    ),
    "cli.bad_target": (
        "--target 必须是 0 到 1 之间的完成率",
        "--target must be a completion rate between 0 and 1",
    ),
    "cli.scripted_asked": (
        "使用脚本化模型 {name!r}（按要求）",
        "using the scripted model {name!r} (asked for)",
    ),
    "cli.scripted_fallback": (
        "使用脚本化模型 {name!r}：{reason}",
        "using the scripted model {name!r}: {reason}",
    ),
    "cli.real_model": (
        "使用真实模型 {model!r}（{provider}）",
        "using the real model {model!r} ({provider})",
    ),
    "cli.col.scenario": ("场景", "scenario"),
    "cli.col.steps": ("步数", "steps"),
    "cli.col.requests": ("模型请求", "model requests"),
    "cli.step": ("第 {step} 步", "step {step}"),
    "cli.demo.ok": ("正常完成", "completes"),
    "cli.demo.missing_file": ("文件缺失", "missing file"),
    "cli.demo.never_stops": ("永不停止", "never stops"),
    "cli.demo.repeats": ("重复调用", "repeated call"),
    "cli.demo.model_hangs": ("模型不返回", "model hangs"),
    "cli.demo.tool_hangs": ("工具挂住", "tool hangs"),
    "cli.demo.model_fails": ("模型服务出错", "model service fails"),
    "cli.answer": ("回答", "answer"),
    "cli.stopped": (
        "→ 停止：{stop_reason}（结局 {outcome}）",
        "-> stopped: {stop_reason} (outcome {outcome})",
    ),
    "cli.stopped_why": (
        "→ 停止：{stop_reason}（结局 {outcome}）：{warning}",
        "-> stopped: {stop_reason} (outcome {outcome}): {warning}",
    ),
    "cli.sweep.done": (
        "共 {runs} 次运行，{steps} 步 -> {out}/",
        "{runs} runs, {steps} steps -> {out}/",
    ),
    "cli.sweep.files": (
        "文件：sweep.csv summary.csv outcome_share.png steps_at_cap.png cap_tradeoff.png",
        "files: sweep.csv summary.csv outcome_share.png steps_at_cap.png cap_tradeoff.png",
    ),
    "cli.sweep.no_cap": (
        "{low}..{high} 之间没有哪个上限的完成率达到 {target}",
        "no cap in {low}..{high} reaches {target} completion",
    ),
    "cli.sweep.best": (
        "完成率达到 {target} 的最小上限：{cap}（完成率 {rate}，浪费 {wasted} 步）",
        "smallest cap reaching {target} completion: {cap} (completion {rate}, wasted steps "
        "{wasted})",
    ),
    # -- cli_parser.py: argparse's own words --
    "cli.argparse.usage": ("用法：", "usage: "),
    "cli.argparse.positionals": ("位置参数", "positional arguments"),
    "cli.argparse.options": ("选项", "options"),
    "cli.argparse.commands": ("命令", "commands"),
    "cli.argparse.help": ("显示这条帮助并退出", "show this help message and exit"),
    "cli.argparse.error": ("{prog}：错误：{message}", "{prog}: error: {message}"),
    "cli.argparse.argument": ("参数 {name}：{message}", "argument {name}: {message}"),
    "cli.argparse.required": (
        "缺少必需的参数：{names}",
        "the following arguments are required: {names}",
    ),
    "cli.argparse.unrecognized": ("无法识别的参数：{args}", "unrecognized arguments: {args}"),
    "cli.argparse.choice": (
        "没有 {value} 这个选择（可选：{choices}）",
        "invalid choice: {value} (choose from {choices})",
    ),
    "cli.argparse.value": ("{value} 不是合法的 {type} 值", "invalid {type} value: {value}"),
    "cli.argparse.expected_one": ("需要一个值", "expected one argument"),
    "cli.argparse.ambiguous": (
        "选项 {option} 有歧义，可能是 {matches}",
        "ambiguous option: {option} could match {matches}",
    ),
    "cli.argparse.explicit": (
        "这个开关不接受值（收到 {value}）",
        "ignored explicit argument {value}",
    ),
    # -- the course's codes and what they mean (chapter 02's glossary, legends, badges) --
    "term.code_and_meaning": ("{code} {meaning}", "{code} ({meaning})"),
    "term.completed": ("正常完成", "answered, no tool error left"),
    "term.tool_error": ("工具报错", "ended on a tool error"),
    "term.budget_exhausted": ("预算耗尽", "a budget ran out"),
    "term.model_error": ("模型服务失败", "the model service failed"),
    "term.invalid_task": ("任务无效", "invalid task"),
    "term.failed": ("失败", "the task was not done"),
    "term.ok": ("成功", "succeeded"),
    "term.error": ("出错", "returned an error"),
    "term.answered": ("模型给出了最终回答", "the model gave its final answer"),
    "term.policy_denied": ("被权限或策略拦截", "stopped by a permission or policy refusal"),
    "term.max_steps": ("达到步数上限", "the step cap was reached"),
    "term.deadline": ("截止时间到了", "the deadline passed"),
    "term.repeat_call": (
        "重复同一个调用（工具和参数都相同）",
        "the same call (tool and arguments) again",
    ),
    "term.no_progress": ("连续几步没有新进展", "several steps with nothing new"),
    "term.max_tokens": ("token 预算用完", "the token budget ran out"),
    "term.decide": ("模型决策", "the model request"),
    "term.tool": ("工具执行", "a tool execution"),
    "term.complete": ("完成检查", "the completion check"),
    "term.transient": ("瞬时错误", "a passing failure, worth retrying"),
    "term.invalid_input": ("参数错误", "invalid input"),
    "term.permission": ("权限错误", "not permitted"),
    "term.logic": ("逻辑错误", "a logic error: the task is not done yet"),
    # -- report.py: tables and charts --
    "report.named_outcome": ("{name}（{outcome}）", "{name} ({outcome})"),
    "report.col.scenario": ("场景", "scenario"),
    "report.col.status": ("运行状态", "status"),
    "report.col.outcome": ("结局", "outcome"),
    "report.col.stop_reason": ("停止原因", "stop reason"),
    "report.col.steps": ("步数", "steps"),
    "report.col.model_requests": ("模型请求", "model requests"),
    "report.col.tool_calls": ("工具调用", "tool calls"),
    "report.col.tool_errors": ("工具错误", "tool errors"),
    "report.col.phase": ("阶段", "phase"),
    "report.col.tokens": ("token", "tokens"),
    "report.col.elapsed": ("用时", "elapsed"),
    "report.col.answer": ("回答", "answer"),
    "report.col.cap": ("步数上限", "cap"),
    "report.col.completion_rate": ("完成率", "completion rate"),
    "report.col.wasted_steps": ("浪费的步数", "wasted steps"),
    "report.col.tokens_per_completed": ("每个完成任务的 token", "tokens per completed task"),
    "report.legend.outcome": ("结局", "outcome"),
    "report.legend.phase": ("阶段", "phase"),
    "report.axis.steps": ("步数（模型请求轮数）", "steps (model requests)"),
    "report.axis.ms": ("从运行开始算起的时间（毫秒）", "time since the run started (ms)"),
    "report.axis.cap": ("步数上限 max_steps", "step cap max_steps"),
    "report.axis.share": ("运行占比", "share of runs"),
    "report.axis.used_steps": ("实际用掉的步数", "steps used"),
    "report.cap_line": ("步数上限 max_steps={cap}", "step cap max_steps={cap}"),
    "report.deadline_line": ("截止时间 {ms} ms", "deadline {ms} ms"),
    "report.completion_line": (
        "完成率（能完成的任务中）",
        "completion rate (of tasks that could complete)",
    ),
    "report.waste_line": (
        "预算耗尽的运行浪费的步数",
        "steps wasted by runs that ran out of budget",
    ),
    "report.best_cap": (
        "最小够用上限 {cap}（完成率 ≥ {target}）",
        "smallest good cap {cap} (completion ≥ {target})",
    ),
    "report.title.steps": (
        "每次运行用了几步，以什么结局结束",
        "Steps per run, and how each run ended",
    ),
    "report.title.timeline": (
        "一个截止时间，三个阶段分着用",
        "One deadline, shared by three phases",
    ),
    "report.title.share": ("步数上限越大，结局怎样变化", "How outcomes change as the cap grows"),
    "report.title.tradeoff": (
        "完成率与浪费的步数：选一个够用的最小上限",
        "Completion against wasted steps: the smallest cap that is enough",
    ),
    "report.axis.request": ("第几次模型请求（步）", "model request (step)"),
    "report.axis.messages_sent": (
        "到这次请求为止一共发出的消息条数",
        "messages sent so far, all requests together",
    ),
    "report.axis.kind": ("任务类型", "kind of task"),
    "report.legend.run": ("运行（结局）", "run (outcome)"),
    "report.title.history": (
        "每一步都把整段历史重新发一遍：累计发出的消息按平方增长",
        "Every step re-sends the whole history: messages sent grow with the square of the steps",
    ),
    "report.cut_off": ("{n}/{total} 耗尽", "{n}/{total} ran out"),
    "report.marked_cap": ("上限 {cap}", "cap {cap}"),
    "report.recommended": ("推荐上限 {cap}（留了余量）", "recommended cap {cap} (with a margin)"),
    "report.target_line": ("目标完成率 {target}", "target completion {target}"),
    "report.interval": (
        "重抽样得到的最小够用上限：{low} 到 {high}",
        "smallest good cap over resamples: {low} to {high}",
    ),
    "report.title.steps_at_cap": (
        "上限为 {cap} 时：每次运行用了几步、以什么结局结束",
        "At cap {cap}: steps used by each run, and how it ended",
    ),
    # -- isolation: child processes, per-tool time caps, no threads, the sandbox's opens --
    "isolation.no_threads": (
        "这里无法启动线程：截止时间（{seconds} 秒）只能在两个阶段之间检查，"
        "无法中途打断正在进行的模型请求、工具调用或完成检查",
        "no thread can be started here: the deadline ({seconds} s) is checked only between "
        "phases and cannot interrupt a model request, tool call or completion check under way",
    ),
    "isolation.unavailable": (
        "{name} 需要在子进程里运行，但这里无法启动子进程（{reason}），这个工具在当前环境中不可用",
        "{name} must run in a child process, but no process can be started here ({reason}); "
        "the tool is not available in this environment",
    ),
    "isolation.cannot_send": (
        "{name} 无法发送到子进程：{error}（隔离工具的函数必须定义在模块顶层，参数必须能被 pickle）",
        "{name} cannot be sent to a child process: {error} (an isolated tool's function must "
        "be defined at module level, its arguments picklable)",
    ),
    "isolation.bad_timeout": (
        "工具 {name} 的 timeout 必须是正数（秒），实际是 {timeout}",
        "tool {name}: timeout must be a positive number of seconds, got {timeout}",
    ),
    "isolation.timeout_abandoned": (
        "{name} 超过了它自己的时限 timeout={seconds} 秒，已放弃等待；"
        "它仍在后台继续执行（线程无法被杀死）",
        "{name} took longer than its own timeout={seconds} s and was abandoned; it is still "
        "running in the background (a thread cannot be killed)",
    ),
    "isolation.timeout_late": (
        "{name} 超过了它自己的时限 timeout={seconds} 秒（这里无法启动线程，时限没能中途打断它），"
        "结果已丢弃",
        "{name} took longer than its own timeout={seconds} s (no thread could be started here, "
        "so the cap could not interrupt it); its result was discarded",
    ),
    "isolation.timeout_killed": (
        "{name} 超过了它自己的时限 timeout={seconds} 秒，已被杀死（{how}）",
        "{name} took longer than its own timeout={seconds} s and was killed ({how})",
    ),
    "isolation.child_died": (
        "子进程没有返回结果就结束了",
        "the child process ended without an answer",
    ),
    "isolation.server_died": (
        "负责启动子进程的 fork 服务进程意外结束了",
        "the fork server that starts the child processes ended unexpectedly",
    ),
    "isolation.result_unsendable": (
        "结果无法传回父进程：{error}",
        "the result cannot be sent back to the parent process: {error}",
    ),
    "isolation.link_on_the_way": (
        "{path} 在打开时，路径上出现了符号链接（可能在检查之后被换掉了），拒绝跟随",
        "{path}: a symbolic link was met on the way while opening it (maybe swapped in after "
        "the check); not followed",
    ),
    "isolation.changed": (
        "{path} 在检查时发生了变化，无法确定它指向哪里",
        "{path} changed while it was being checked; where it leads cannot be told",
    ),
    "isolation.windows_name": (
        "Windows 上不允许的文件名（含冒号，或是 CON、NUL 这类设备名）",
        "a name Windows does not allow (a colon, or a device name such as CON or NUL)",
    ),
    # -- exercises --
    "exercise.result.passed": ("✅ 通过：{detail}", "✅ Passed: {detail}"),
    "exercise.result.not_done": ("还没完成：{detail}", "Not done yet: {detail}"),
    "exercise.result.wrong": ("不对：{detail}", "Not right: {detail}"),
    "exercise.unknown": (
        "没有编号为 {id} 的练习。已有的练习：{known}",
        "There is no exercise {id}. The exercises are: {known}",
    ),
    "exercise.show.header": ("【{id}】{title}", "[{id}] {title}"),
    "exercise.hint.header": ("提示（{id}）：", "Hint ({id}):"),
    "exercise.kind.code": ("写代码", "write code"),
    "exercise.kind.predict": ("先预测，再运行", "predict, then run"),
    "exercise.not_done.starter": (
        "这还是起始代码：「{task}」还没有写。把 raise NotImplementedError 那一行换成你的代码；"
        '卡住了可以运行 hint("{id}")',
        "this is still the starter code: “{task}” is not written yet. Replace the raise "
        'NotImplementedError line with your code; if stuck, run hint("{id}")',
    ),
    "exercise.not_done.helper": (
        "你的代码调用的 {name} 还是起始代码（raise NotImplementedError）：先把 {name} 写完",
        "{name}, which your code calls, is still the starter (raise NotImplementedError): "
        "write {name} first",
    ),
    "exercise.not_done.missing": (
        "{name} 还没有写（现在是 None 或 ...）",
        "{name} is not written yet (it is None or ...)",
    ),
    "exercise.not_done.prediction": (
        "还没有写预测：把 ... 换成你预测的值",
        "no prediction yet: replace the ... with the values you predict",
    ),
    "exercise.not_done.fields": (
        "这些字段还是 ...：{fields}",
        "these fields are still ...: {fields}",
    ),
    "exercise.need_callable": (
        "{name} 应该是一个函数（或类），你给的是 {got}",
        "{name} should be a function (or a class); you gave {got}",
    ),
    "exercise.need_dict": (
        "预测应该是一个字典（dict），你给的是 {got}",
        "the prediction should be a dict; you gave {got}",
    ),
    "exercise.need_int_list": (
        "应返回一个整数列表，你返回的是 {got}",
        "it should return a list of integers; you returned {got}",
    ),
    "exercise.need_dict_list": (
        "应返回一个字典列表，你返回的是 {got}",
        "it should return a list of dicts; you returned {got}",
    ),
    "exercise.predict.missing_keys": (
        "预测里少了这些键：{keys}",
        "the prediction lacks these keys: {keys}",
    ),
    "exercise.predict.mismatch": (
        "{field}：你预测 {predicted}，实际是 {actual}。{why}",
        "{field}: you predicted {predicted}, the run gave {actual}. {why}",
    ),
    "exercise.predict.type_quoted": (
        "值对了，类型不同：数字和布尔值直接写（5、True），不要加引号",
        "The value is right, the type is not: write numbers and booleans as they are (5, "
        "True), without quotes",
    ),
    "exercise.predict.type_bool": (
        "值对了，类型不同：这里要写布尔值 True 或 False，不是 1 或 0",
        "The value is right, the type is not: write the boolean True or False here, not 1 or 0",
    ),
    "exercise.predict.type_list": (
        "值对了，类型不同：这里要写一个值，不要放进列表",
        "The value is right, the type is not: write a single value here, not a list",
    ),
    "exercise.predict.all_match": (
        "每一项都和真实运行一致：{values}",
        "every field matches the real run: {values}",
    ),
    "exercise.timeout": (
        "{what}：超过检查的时间上限还没结束（死循环？还是在等一个永远不来的结果？）",
        "{what}: still running when the check's time ran out (an endless loop? waiting for "
        "something that never comes?)",
    ),
    "exercise.raised": ("{what}：抛出了 {error}", "{what}: raised {error}"),
    "exercise.runaway": (
        "模型被请求了 {requests} 次还没停：没有步数上限",
        "the model was asked {requests} times and it still did not stop: there is no step cap",
    ),
    "exercise.check_failed": (
        "检查你的答案时出错：{error}",
        "checking your answer failed: {error}",
    ),
    "exercise.verify.line": (
        "{mark} {id:<22} {label}：{message}",
        "{mark} {id:<22} {label}: {message}",
    ),
    "exercise.verify.reference": ("参考答案", "reference"),
    "exercise.verify.starter": ("起始代码", "starter"),
    "exercise.verify.wrong": ("错误答案 {n}（{label}）", "wrong answer {n} ({label})"),
    "exercise.verify.same_message": (
        "和另一个错误答案的反馈相同",
        "same feedback as another wrong answer",
    ),
    "exercise.verify.summary": (
        "{count} 个练习，{checks} 次判定，{misjudged} 次判错",
        "{count} exercises, {checks} verdicts, {misjudged} misjudged",
    ),
    "exercise.verify.expected_pass": ("应通过却没有通过", "should pass but did not"),
    "exercise.verify.expected_not_done": (
        "应判“还没完成”",
        "should be judged “not done yet”",
    ),
    "exercise.verify.expected_wrong": ("应判“不对”", "should be judged “not right”"),
    # shared by the loop exercises (01-loop, 02-capped-loop, 02-stub-test)
    "exercise.scenario.honest": (
        "正常完成（读 → 写 → 汇报）",
        "honest finish (read → write → report)",
    ),
    "exercise.scenario.tool_error": (
        "文件名写错，错误交回模型",
        "wrong file name, the error fed back",
    ),
    "exercise.scenario.two_calls": (
        "一次回复里两个工具调用",
        "two tool calls in one reply",
    ),
    "exercise.scenario.unknown_tool": (
        "要一个不存在的工具",
        "asks for a tool that does not exist",
    ),
    "exercise.scenario.never_stops": ("从不停下的模型", "a model that never stops"),
    "exercise.scenario.never_stops_two_calls": (
        "从不停下、每轮都要两个工具的模型",
        "a model that never stops and asks for two tools every turn",
    ),
    "exercise.scenario.answers_at_cap": (
        "正好在上限那一步给出答案",
        "answers exactly at the cap",
    ),
    "exercise.scenario.cap_one": ("上限只有 1 步", "a cap of 1 step"),
    "exercise.loop.in_scenario": (
        "在场景「{scenario}」里运行 {name}",
        "running {name} in the scenario “{scenario}”",
    ),
    "exercise.loop.scenario_says": (
        "场景「{scenario}」：{detail}",
        "scenario “{scenario}”: {detail}",
    ),
    "exercise.loop.nothing": ("（没有）", "(nothing)"),
    "exercise.loop.no_task": (
        "第 1 次请求里，system 消息之后应该是 role=user 的任务消息（content 就是 task）",
        "in request 1, the system message should be followed by the task as a role=user "
        "message (its content is task)",
    ),
    "exercise.loop.leftover_history": (
        "第 1 次请求里，任务消息之前已经有 {k} 条别的消息：这是上一次运行留下的历史。"
        "每次调用都在函数里新建 messages，别用全局变量或默认参数保存它",
        "in request 1, {k} other messages come before the task: history left over from an "
        "earlier run. Build a new messages list inside the function on every call; do not "
        "keep it in a global variable or a default argument",
    ),
    "exercise.loop.no_tools": (
        "第 1 次请求没有带 tools=tools.schemas()：模型不知道有哪些工具可用",
        "request 1 did not pass tools=tools.schemas(): the model cannot know which tools exist",
    ),
    "exercise.loop.no_assistant": (
        "第 {n} 次请求的历史里，没有上一次回复的 assistant 消息（它带着 tool_calls：{ids}）："
        "模型看不到自己要过哪些工具，多数服务会直接返回 400",
        "in the history of request {n}, the assistant message of the previous reply (with "
        "tool_calls {ids}) is missing: the model cannot see what it asked for, and most "
        "services answer 400",
    ),
    "exercise.loop.call_not_dict": (
        "第 {n} 次请求的历史里，有一个 tool_call 不是字典，而是 {kind}：{value}。每个 tool_call "
        '都要写成 {{"id": ..., "type": "function", "function": {{"name": ..., "arguments": ...}}}}',
        "in the history of request {n}, a tool_call is not a dict but a {kind}: {value}; write "
        'each one as {{"id": ..., "type": "function", "function": {{"name": ..., '
        '"arguments": ...}}}}',
    ),
    "exercise.loop.return_call_not_dict": (
        "返回的 messages 里，第 {i} 条消息有一个 tool_call 不是字典，而是 {kind}：{value}",
        "in the returned messages, message {i} has a tool_call that is not a dict but a "
        "{kind}: {value}",
    ),
    "exercise.loop.call_type": (
        '第 {n} 次请求的历史里，tool_call {id} 的 "type" 是 {got}，应为 "function"：'
        "兼容 OpenAI 的服务缺了它会直接返回 400",
        'in the history of request {n}, tool_call {id} has "type" {got}; it must be '
        '"function": OpenAI-compatible services answer 400 without it',
    ),
    "exercise.loop.tool_before_assistant": (
        "第 {n} 次请求的历史里，role=tool 消息排在了它所回答的 assistant 消息（tool_calls：{ids}）"
        "前面：先放 assistant，再放 tool",
        "in the history of request {n}, the role=tool messages come before the assistant "
        "message they answer (tool_calls {ids}): the assistant message goes first",
    ),
    "exercise.loop.assistant_without_calls": (
        "第 {n} 次请求的历史里，上一次回复的 assistant 消息没有带 tool_calls（应有 {ids}）："
        "要把模型发来的 tool_calls 原样放回去",
        "in the history of request {n}, the assistant message of the previous reply lacks "
        "its tool_calls ({ids}): put them back exactly as the model sent them",
    ),
    "exercise.loop.tool_id_missing": (
        "第 {n} 次请求的历史里，有一条 role=tool 消息没有 tool_call_id（它应该是 {id}）",
        "in the history of request {n}, a role=tool message has no tool_call_id (it should "
        "be {id})",
    ),
    "exercise.loop.tool_unanswered": (
        "第 {n} 次请求的历史里，tool_call_id={id} 没有对应的 role=tool 消息",
        "in the history of request {n}, tool_call_id={id} has no matching role=tool message",
    ),
    "exercise.loop.tool_content_not_json": (
        "第 {n} 次请求的历史里，tool_call_id={id} 的 content 不是 JSON："
        "用 json.dumps(result, ensure_ascii=False) 把工具结果交回去",
        "in the history of request {n}, the content for tool_call_id={id} is not JSON: "
        "send the tool result back with json.dumps(result, ensure_ascii=False)",
    ),
    "exercise.loop.tool_content_differs": (
        "第 {n} 次请求的历史里，tool_call_id={id} 的 content 和工具真正返回的结果不一样："
        "把 tools.call(...) 的结果原样交回",
        "in the history of request {n}, the content for tool_call_id={id} is not what the "
        "tool returned: send back the result of tools.call(...) as it is",
    ),
    "exercise.loop.extra_message": (
        "第 {n} 次请求的历史末尾多了一条消息：{got}",
        "the history of request {n} ends with an extra message: {got}",
    ),
    "exercise.loop.history_differs": (
        "第 {n} 次请求的历史里，第 {i} 条消息不对：应为 {expected}，实际是 {got}",
        "in the history of request {n}, message {i} is off: expected {expected}, got {got}",
    ),
    "exercise.loop.no_cap": (
        "没有步数上限：max_steps={cap}，模型每次都要工具，你的循环请求了 {got} 次还没停"
        "（是检查器叫停的）",
        "no step cap: with max_steps={cap} and a model that always asks for a tool, your "
        "loop made {got} requests and kept going (the check stopped it)",
    ),
    "exercise.loop.one_too_many": (
        "max_steps={cap}，你的循环却发出了 {got} 次模型请求（多了 {extra} 次）："
        "在发请求之前检查上限",
        "max_steps={cap}, yet your loop made {got} model requests ({extra} too many): check "
        "the cap before the request, not after",
    ),
    "exercise.loop.after_answer": (
        "模型第 {k} 次回复已经是最终回答（没有 tool_calls），你的循环却又请求了一次",
        "reply {k} was already the final answer (no tool_calls), yet your loop asked again",
    ),
    "exercise.loop.no_request": (
        "你的循环一次模型请求都没有发",
        "your loop made no model request at all",
    ),
    "exercise.loop.too_few_requests": (
        "max_steps={cap} 时，一个从不停下的模型应该被请求正好 {cap} 次，你的循环只请求了 {got} 次",
        "with max_steps={cap}, a model that never stops should be asked exactly {cap} time(s); "
        "your loop asked {got} time(s)",
    ),
    "exercise.loop.stopped_on_content": (
        "第 {k} 次回复既有文字又有 tool_calls（{names}），你的循环却在这里停了："
        "停不停只看有没有 tool_calls，不看 content",
        "reply {k} had both text and tool_calls ({names}), yet your loop stopped there: "
        "whether to stop depends on tool_calls, not on content",
    ),
    "exercise.loop.one_short_of_cap": (
        "max_steps={cap} 时，一个从不停下的模型应该被请求正好 {cap} 次，你的循环只请求了 "
        "{got} 次。range(1, max_steps) 只循环 max_steps - 1 次，range(max_steps) 才是 "
        "max_steps 次",
        "with max_steps={cap} a model that never stops should be asked exactly {cap} times; "
        "your loop asked {got} time(s). range(1, max_steps) runs max_steps - 1 times; "
        "range(max_steps) runs max_steps times",
    ),
    "exercise.loop.one_short": (
        "第 {k} 次回复还要调用工具（{names}），你的循环却停了：上限是 {cap} 次请求，"
        "它只发了 {k} 次。range(1, max_steps) 只循环 max_steps - 1 次，"
        "range(max_steps) 才是 max_steps 次",
        "reply {k} still asked for tools ({names}), yet your loop stopped: the cap is {cap} "
        "requests and it sent {k}. range(1, max_steps) runs max_steps - 1 times; "
        "range(max_steps) runs max_steps times",
    ),
    "exercise.loop.stopped_early": (
        "第 {k} 次回复还要调用工具（{names}），你的循环却停了",
        "reply {k} still asked for tools ({names}), yet your loop stopped",
    ),
    "exercise.loop.return_type": (
        "{name} 应返回 messages 列表，你返回的是 {got}",
        "{name} should return the list of messages; it returned {got}",
    ),
    "exercise.loop.return_missing_tools": (
        "返回的 messages 少了最后一步的 {count} 条 role=tool 消息：用完上限的那一步，"
        "模型要的工具照样执行，每个调用的结果也要放回 messages",
        "the returned messages lack the last step's {count} role=tool message(s): in the step "
        "that uses up the cap the tools the model asked for still run, and each result goes "
        "back into messages",
    ),
    "exercise.loop.return_missing_last": (
        "返回的 messages 少了最后一条：{expected}",
        "the returned messages lack the last one: {expected}",
    ),
    "exercise.loop.return_differs": (
        "返回的 messages 和模型最后看到的历史对不上：第 {i} 条应为 {expected}，实际是 {got}",
        "the returned messages do not match the history: message {i} should be {expected}, "
        "got {got}",
    ),
    # chapter 01
    "exercise.01-loop.title": ("写出你自己的 Agent 循环", "Write your own agent loop"),
    "exercise.01-loop.prompt": (
        "**写出你自己的 Agent 循环。** 补全 `my_loop(task, client, tools, max_steps)`，"
        "返回完整的 `messages` 列表：\n\n"
        "1. 从 `[system, user]` 两条消息开始；\n"
        "2. 每一步请求一次模型：`client.chat.completions.create(model=..., messages=messages, "
        "tools=tools.schemas())`，最多请求 `max_steps` 次；\n"
        "3. 把 assistant 消息放回 `messages`：`role`、`content`，有工具调用时再带上 "
        '`tool_calls`（每个是 `{{"id", "type": "function", "function": {{"name", '
        '"arguments"}}}}`）；\n'
        "4. 回复里没有 `tool_calls`：这就是最终回答，返回 `messages`；\n"
        "5. 否则按顺序执行每个调用：`tools.call(名字, 参数 JSON 字符串)`（未知工具、坏参数、"
        "工具抛异常，它都会变成结构化的错误结果），每个调用追加一条 `role: tool` 消息，"
        "带上 `tool_call_id` 和 `json.dumps(result, ensure_ascii=False)`；\n"
        "6. 用完 `max_steps` 次请求还没有最终回答，也返回 `messages`。\n\n"
        "检查会用脚本化模型跑 6 个场景：正常完成、工具出错、一次两个调用、未知工具、"
        "从不停下的模型（每次一个调用、每次两个调用各一个）。"
        "它看模型**每一次**收到的历史，和参考循环 "
        "`agentlab.loop.minimal` 逐条比较，指出第一处不对。",
        "**Write your own agent loop.** Complete `my_loop(task, client, tools, max_steps)` "
        "so that it returns the full list of `messages`:\n\n"
        "1. start from two messages, `[system, user]`;\n"
        "2. each step makes one model request, `client.chat.completions.create(model=..., "
        "messages=messages, tools=tools.schemas())`, at most `max_steps` times;\n"
        "3. put the assistant message back into `messages`: `role`, `content`, and "
        '`tool_calls` when there are any (each `{{"id", "type": "function", '
        '"function": {{"name", "arguments"}}}}`);\n'
        "4. a reply without `tool_calls` is the final answer: return `messages`;\n"
        "5. otherwise run each call in order with `tools.call(name, arguments_json)` (an "
        "unknown tool, bad arguments or a tool that raises all come back as structured error "
        "results) and append one `role: tool` message per call, with its `tool_call_id` and "
        "`json.dumps(result, ensure_ascii=False)`;\n"
        "6. when `max_steps` requests brought no final answer, return `messages` too.\n\n"
        "The check runs 6 scripted scenarios: an honest finish, a tool error, two calls in one "
        "reply, an unknown tool, and two models that never stop (one asks for one call a turn, "
        "the other for two). "
        "It looks at the history the model "
        "received at **every** request, compares it with the reference loop "
        "`agentlab.loop.minimal` and names the first difference.",
    ),
    "exercise.01-loop.hint": (
        "先写最简单的情况：请求一次，没有 tool_calls 就返回；再加上执行工具、追加 tool 消息。"
        "三件事最容易错：tool 消息要放在它回答的 assistant 消息之后；一次回复可能有好几个 "
        "tool_calls，每个都要回一条 tool 消息；上限用 for _ in range(max_steps)，"
        "在发请求之前就决定还能不能再问。停不停只看 tool_calls，content 有文字不代表结束。",
        "Start with the simplest case: one request, return if there are no tool_calls; then "
        "run the tools and append tool messages. Three things go wrong most: a tool message "
        "comes after the assistant message it answers; one reply may hold several tool_calls "
        "and each needs its own tool message; the cap is a for _ in range(max_steps), decided "
        "before the request. Stop on tool_calls only: text in content does not mean done.",
    ),
    "exercise.01-loop.passed": (
        "{count} 个场景（{names}）里，模型每次收到的历史都和参考循环一模一样",
        "in all {count} scenarios ({names}) the model received exactly the history the "
        "reference loop sends",
    ),
    "exercise.01-history.title": (
        "动手清单 1：看历史怎样一轮轮长起来",
        "Checklist 1: watch the history grow",
    ),
    "exercise.01-history.prompt": (
        "**动手清单 1：看历史怎样一轮轮长起来。** 写 `history_lengths(task, client, tools)`："
        "用 `run_agent` 跑一遍 `task`，返回每一次模型请求时 `messages` 的条数（整数列表）。"
        "`ScriptedClient` 把收到的每次请求记在 `client.requests` 里。检查会在 TODO 任务、"
        "“文件名写错”的任务和一个一轮要两个工具的任务上各跑一次，和真实的请求比较。跑通之后想一想："
        "每多一轮，历史多出几条？由什么决定？",
        "**Checklist 1: watch the history grow.** Write `history_lengths(task, client, "
        "tools)`: run `task` with `run_agent` and return the number of `messages` the model "
        "received at each request (a list of integers). `ScriptedClient` records every request "
        "in `client.requests`. The check runs it on the TODO task and on the wrong-file-name "
        "task and compares with the real requests. Then think: why exactly 2 more per round?",
    ),
    "exercise.01-history.hint": (
        "run_agent(task, client=client, tools=tools) 跑完后，client.requests 里每个元素的 "
        ".messages 就是那一次发给模型的完整历史，取 len 即可。",
        "After run_agent(task, client=client, tools=tools), each item of client.requests has "
        ".messages, the whole history sent that time; take its len.",
    ),
    "exercise.01-history.what": (
        "对任务「{task}」运行 history_lengths",
        "running history_lengths on the task “{task}”",
    ),
    "exercise.01-history.count": (
        "任务「{task}」一共请求了模型 {requests} 次，你给了 {got} 个数：每次请求一个数",
        "the task “{task}” made {requests} model requests and you gave {got} number(s): one "
        "number per request",
    ),
    "exercise.01-history.length": (
        "任务「{task}」第 {k} 次请求时模型收到 {expected} 条消息，你写的是 {got}",
        "for the task “{task}”, request {k} carried {expected} messages; you said {got}",
    ),
    "exercise.01-history.passed": (
        "TODO 任务每次请求的消息条数是 {lengths}：每一轮多出一条 assistant 消息，"
        "再加上每个工具调用各一条 tool 消息",
        "the TODO task's requests carried {lengths} messages: each round adds one assistant "
        "message, plus one tool message for each tool call",
    ),
    "exercise.01-predict-missing.title": (
        "动手清单 2：读一个不存在的文件（先预测）",
        "Checklist 2: read a file that does not exist (predict first)",
    ),
    "exercise.01-predict-missing.prompt": (
        "**动手清单 2：故意读一个不存在的文件。** 任务写的是 `meeting-notes.md`，沙盒里只有 "
        '`meeting.md`。用 `scripted("todo_clerk")` 和默认预算运行之前，先在 '
        "`prediction_missing` 里写下预测：运行状态、结局、停止原因、步数，以及按顺序调用了"
        "哪些工具。检查会真的跑一遍，逐项比较，并解释不一样的地方。",
        "**Checklist 2: read a file that does not exist.** The task names `meeting-notes.md`; "
        'the sandbox only has `meeting.md`. Before running `scripted("todo_clerk")` with the '
        "default budget, write your prediction in `prediction_missing`: run status, outcome, "
        "stop reason, steps, and the tools called, in order. The check really runs it, "
        "compares field by field and explains any difference.",
    ),
    "exercise.01-predict-missing.hint": (
        "工具出错不会让循环停下：FILE_NOT_FOUND 作为普通结果交回模型。文员拿到它之后会做什么？"
        "看一眼 inspect.getsource(todo_clerk)。",
        "A tool error does not stop the loop: FILE_NOT_FOUND goes back to the model as a "
        "result. What does the clerk do with it? Look at inspect.getsource(todo_clerk).",
    ),
    "exercise.01-predict-missing.why": (
        "文员拿到 FILE_NOT_FOUND 没有放弃：先 list_dir 看看有哪些文件，再用最接近的名字 "
        "meeting.md 重读，写完 todo-list.md 才汇报，一共 5 步。中途有过工具错误，但最后一批工具"
        "结果都是 ok，所以结局仍是 completed。这种“自我纠正”是 todo_clerk 脚本里写好的策略，"
        "真实模型常常也会这样做，但不保证。",
        "The clerk does not give up on FILE_NOT_FOUND: it lists the folder, rereads with the "
        "closest name, meeting.md, writes todo-list.md and only then reports: 5 steps. A tool "
        "failed on the way, but the last batch of tool results is all ok, so the outcome is "
        "still completed. This “self-correction” is a strategy written into the todo_clerk "
        "script; real models often do the same, with no guarantee.",
    ),
    "exercise.01-predict-cap2.title": (
        "动手清单 3：max_steps=2 跑三步的任务（先预测）",
        "Checklist 3: max_steps=2 on a three-step task (predict first)",
    ),
    "exercise.01-predict-cap2.prompt": (
        "**动手清单 3：上限比任务需要的步数少。** 读 → 写 → 汇报 需要 3 步。用 "
        "`Budget(max_steps=2)` 跑 TODO 任务之前，在 `prediction_cap2` 里预测结果，"
        "包括 `todo-list.md` 有没有被写出来。",
        "**Checklist 3: a cap below what the task needs.** Read → write → report takes 3 "
        "steps. Before running the TODO task with `Budget(max_steps=2)`, predict the result "
        "in `prediction_cap2`, including whether `todo-list.md` gets written.",
    ),
    "exercise.01-predict-cap2.hint": (
        "一步 = 一次模型请求加上它要的工具调用。第 2 步做了什么？第 3 次请求还会发出吗？",
        "One step = one model request plus the tool calls it asked for. What happens in step "
        "2? Is a third request ever made?",
    ),
    "exercise.01-predict-cap2.why": (
        "第 1 步读文件，第 2 步写文件，写入已经发生；第 3 步本该汇报，但上限只允许 2 次请求，"
        "循环在发出第 3 次请求之前停下。于是文件写了、回答没有：failed、budget_exhausted、"
        "max_steps。运行失败不会撤销已经做过的写操作，会写文件的 Agent 要记住这一点。",
        "Step 1 reads, step 2 writes: the file is written. Step 3 would report, but the cap "
        "allows 2 requests, so the loop stops before the third. The file exists and there is "
        "no answer: failed, budget_exhausted, max_steps. A failed run does not undo the writes "
        "it made; an agent that writes files must keep that in mind.",
    ),
    "exercise.01-predict-escape.title": (
        "动手清单 4：读 ../mini_agent.py（先预测）",
        "Checklist 4: read ../mini_agent.py (predict first)",
    ),
    "exercise.01-predict-escape.prompt": (
        "**动手清单 4：给沙盒外的路径下手。** 任务是“读一下 ../mini_agent.py”。用 "
        "`run_agent` 的默认设置（不传 `permission_errors`）运行之前，在 `prediction_escape` "
        "里预测：工具结果的错误码、停止原因、结局、步数。",
        "**Checklist 4: reach outside the sandbox.** The task asks to read "
        "../mini_agent.py. Before running it with `run_agent`'s defaults (no "
        "`permission_errors`), predict in `prediction_escape`: the tool result's error code, "
        "the stop reason, the outcome and the steps.",
    ),
    "exercise.01-predict-escape.hint": (
        "路径检查在工具层（resolve_inside）。被拒绝的路径属于哪一类错误？run_agent 默认怎么处理"
        "这一类？",
        "The path check lives in the tool (resolve_inside). What class of error is a refused "
        "path, and what does run_agent do with that class by default?",
    ),
    "exercise.01-predict-escape.why": (
        "read_text 先用 resolve_inside 检查路径，'..' 直接被拒绝：PATH_NOT_ALLOWED。它是权限类"
        "错误，run_agent 默认把权限错误当作策略拦截，立刻停止（policy_denied），所以只有 1 步，"
        '结局 tool_error。种子文章的循环会把拒绝交回模型，传 permission_errors="feed_back" '
        "就是那种做法。",
        "read_text checks the path with resolve_inside first and '..' is refused: "
        "PATH_NOT_ALLOWED. That is a permission error, and run_agent treats permission errors as "
        "a policy refusal and stops at once (policy_denied): 1 step, outcome tool_error. The "
        "seed's loop feeds the refusal back to the model instead; "
        'permission_errors="feed_back" does that.',
    ),
    "exercise.01-append-text.title": (
        "动手清单 5：自己写 append_text 工具",
        "Checklist 5: write the append_text tool yourself",
    ),
    "exercise.01-append-text.prompt": (
        "**动手清单 5：加一个工具 `append_text`。** 补全 `add_append_text(registry, box)`，"
        "三处都自己写：\n\n"
        "1. **函数** `append_text(rel_path, text)`：先用 `resolve_inside(box, rel_path)` 检查"
        "路径，它返回 `Path`，或一个 `PATH_NOT_ALLOWED` 错误结果（dict，直接返回它）；文件不存在"
        "就创建，存在就在末尾追加；返回 `ok(...)`；\n"
        "2. **schema**：`rel_path` 和 `text` 两个字符串参数，都写进 `required`；\n"
        '3. **注册**：`registry.register(Tool("append_text", 说明, schema, append_text))`。\n\n'
        "不要导入库里现成的 `append_text` / `write_text`。检查在沙盒副本上通过注册表调用你的"
        "工具：追加到 `meeting.md`，创建 `new.md`，拒绝 `../escape.md` 和绝对路径。",
        "**Checklist 5: add a tool, `append_text`.** Complete `add_append_text(registry, "
        "box)`, writing all three parts yourself:\n\n"
        "1. **function** `append_text(rel_path, text)`: check the path with "
        "`resolve_inside(box, rel_path)`, which returns a `Path` or a `PATH_NOT_ALLOWED` "
        "error result (a dict: return it as it is); create the file if missing, append to its "
        "end otherwise; return `ok(...)`;\n"
        "2. **schema**: two string parameters, `rel_path` and `text`, both `required`;\n"
        '3. **registration**: `registry.register(Tool("append_text", description, schema, '
        "append_text))`.\n\n"
        "Do not import the library's ready-made `append_text` / `write_text`. The check calls "
        "your tool through the registry on a sandbox copy: append to `meeting.md`, create "
        "`new.md`, refuse `../escape.md` and an absolute path.",
    ),
    "exercise.01-append-text.hint": (
        "path = resolve_inside(box, rel_path)；if isinstance(path, dict): return path。"
        '然后 with path.open("a", encoding="utf-8") as f: f.write(text)。模式 "a" '
        '会在文件不存在时创建它，"w" 会清空原来的内容。',
        "path = resolve_inside(box, rel_path); if isinstance(path, dict): return path. Then "
        'with path.open("a", encoding="utf-8") as f: f.write(text). Mode "a" creates a '
        'missing file; "w" would wipe the old content.',
    ),
    "exercise.01-append-text.what_register": (
        "调用 add_append_text(registry, box)",
        "calling add_append_text(registry, box)",
    ),
    "exercise.01-append-text.what_call": (
        "通过注册表调用 append_text（rel_path={path}）",
        "calling append_text through the registry (rel_path={path})",
    ),
    "exercise.01-append-text.body_starter": (
        "append_text 已经注册好了，但函数体还是起始代码（raise NotImplementedError）："
        "写出先检查路径、再追加文字的那几行",
        "append_text is registered, but its body is still the starter (raise "
        "NotImplementedError): write the lines that check the path, then append the text",
    ),
    "exercise.01-append-text.not_registered": (
        "注册表里没有名为 append_text 的工具（现在只有 {names}）",
        "the registry has no tool named append_text (only {names})",
    ),
    "exercise.01-append-text.not_required": (
        "schema 的 required 里没有 {field}：模型可能不传它",
        "{field} is not in the schema's required list: the model may leave it out",
    ),
    "exercise.01-append-text.not_string": (
        "schema 里 {field} 的类型应是 string",
        "{field} should have type string in the schema",
    ),
    "exercise.01-append-text.library": (
        "工具函数直接用了库里现成的 {names}：这次要自己写（resolve_inside，再以追加模式打开文件）",
        "the tool function uses the library's ready-made {names}: write it yourself this time "
        "(resolve_inside, then open the file in append mode)",
    ),
    "exercise.01-append-text.said": ("{code}（{message}）", "{code} ({message})"),
    "exercise.01-append-text.failed": (
        "追加到 {path} 失败，工具返回 {result}",
        "appending to {path} failed: the tool returned {result}",
    ),
    "exercise.01-append-text.overwrote": (
        '追加之后 meeting.md 原来的内容不见了：要用追加模式 "a" 打开，而不是 "w"',
        'after appending, meeting.md lost its old content: open it in append mode "a", not "w"',
    ),
    "exercise.01-append-text.not_appended": (
        "追加之后 meeting.md 的结尾不是追加的文本（结尾是 {got}）",
        "after appending, meeting.md does not end with the appended text (it ends with {got})",
    ),
    "exercise.01-append-text.not_created": (
        "new.md 不存在时应该创建它，你的工具返回了 {result}",
        "new.md does not exist and should be created; your tool returned {result}",
    ),
    "exercise.01-append-text.escaped_relative": (
        "沙盒外的路径 {path} 没有被拒绝（工具返回 {result}）：先用 resolve_inside 检查路径，"
        "它返回 dict（PATH_NOT_ALLOWED）时把这个结果原样返回",
        "{path}, outside the sandbox, was not refused (the tool returned {result}): check the "
        "path with resolve_inside first, and when it returns a dict (PATH_NOT_ALLOWED) return "
        "that result as it is",
    ),
    "exercise.01-append-text.escaped_prefix": (
        "沙盒外的路径 {path} 没有被拒绝（工具返回 {result}）：只比较路径字符串的开头不够，"
        "沙盒旁边名字开头相同的文件也会通过；用 resolve_inside 检查路径",
        "{path}, outside the sandbox, was not refused (the tool returned {result}): comparing "
        "only the start of the path text is not enough, a file beside the sandbox whose name "
        "starts the same gets through; check the path with resolve_inside",
    ),
    "exercise.01-append-text.escape_other_error": (
        "沙盒外的路径 {path} 应该被拒绝，返回 PATH_NOT_ALLOWED；你的工具返回了 {result}："
        "先用 resolve_inside 检查路径，它返回 dict 时原样返回，别再往下执行",
        "{path}, outside the sandbox, should be refused with PATH_NOT_ALLOWED; your tool "
        "returned {result}: check the path with resolve_inside first and return the dict it "
        "gives back as it is, without going on",
    ),
    "exercise.01-append-text.escaped_absolute": (
        "绝对路径 {path} 没有被拒绝（工具返回 {result}）：只允许沙盒里的相对路径",
        "the absolute path {path} was not refused (the tool returned {result}): only relative "
        "paths inside the sandbox are allowed",
    ),
    "exercise.01-append-text.passed": (
        "append_text 会追加、会创建新文件，越界路径和绝对路径都被 PATH_NOT_ALLOWED 拒绝",
        "append_text appends, creates new files, and refuses paths outside the sandbox and "
        "absolute paths with PATH_NOT_ALLOWED",
    ),
    "exercise.01-fragments.title": (
        "把流式碎片拼回工具调用",
        "Join streamed fragments into tool calls",
    ),
    "exercise.01-fragments.prompt": (
        "**拼回流式碎片。** 流式回复里，`tool_calls` 是一片一片到的：第一片带 `index`、`id` 和"
        "工具名，后面的片只带一截参数，几个并行调用的碎片还会交替到达。写 "
        "`join_fragments(fragments)`：`fragments` 是按到达顺序排列的字典，每个有 `index`、`id`、"
        "`name`、`arguments`（这一片没带的字段是 `None`）；按 `index` 把它们拼回完整调用，"
        "返回按 `index` 排序的列表，每个元素是有 `id`、`name`、`arguments` 三个键的字典。"
        "检查用脚本化模型真正的流式输出（经过 openai SDK 解析）来喂你的函数。",
        "**Join streamed fragments.** In a streamed reply `tool_calls` arrive in pieces: the "
        "first piece carries `index`, `id` and the tool name, later pieces only a slice of the "
        "arguments, and the pieces of parallel calls take turns. Write "
        "`join_fragments(fragments)`: `fragments` are dicts in arrival order, each with "
        "`index`, `id`, `name`, `arguments` (`None` where the piece has none); join them by "
        "`index` and return a list sorted by `index` of dicts with the keys `id`, `name`, "
        "`arguments`. The check feeds your function the scripted model's real stream, as "
        "parsed by the openai SDK.",
    ),
    "exercise.01-fragments.hint": (
        '用字典记住正在拼的调用，键是 index：calls.setdefault(piece["index"], ...)。带 id 和 '
        "name 的那一片填 id 和 name；每一片的 arguments 都接到同一个 index 后面；最后按 index "
        "排序。不要按 id 拼：后续碎片不带 id。",
        "Keep the calls being assembled in a dict keyed by index: "
        'calls.setdefault(piece["index"], ...). The piece with an id and a name fills them '
        "in; every piece's arguments are appended to the same index; sort by index at the end. "
        "Do not join by id: later pieces carry none.",
    ),
    "exercise.01-fragments.what": ("拼第 {n} 组碎片", "joining fragment set {n}"),
    "exercise.01-fragments.count": (
        "第 {n} 组 {pieces} 片碎片应拼出 {expected} 个调用，你拼出了 {got} 个",
        "the {pieces} fragments of set {n} make {expected} calls; you made {got}",
    ),
    "exercise.01-fragments.field": (
        "第 {n} 组里 {call} 的 {field} 拼出来是 {got}，应为 {expected}",
        "in set {n}, the {field} of {call} came out as {got}; it should be {expected}",
    ),
    "exercise.01-fragments.none_arguments": (
        "第 {n} 组碎片的第一片 arguments 是 None（这一片没带参数文本），你的函数在这里出错了："
        '拼接之前把 None 当作空字符串，例如 piece["arguments"] or ""',
        "in set {n} the first piece's arguments is None (it carries no argument text) and "
        'your function failed on it: treat None as an empty string, e.g. piece["arguments"] '
        'or ""',
    ),
    "exercise.01-fragments.what_late": (
        "拼第 2 个调用的碎片先到的那一组",
        "joining the set where the second call's pieces come first",
    ),
    "exercise.01-fragments.order": (
        "第 2 个调用（index 1）的碎片先到时，你返回的调用依次是 {got}：要按 index 排序，"
        "不是按到达的顺序",
        "when the second call's (index 1) pieces come first you returned {got}: sort the "
        "calls by index, not by arrival",
    ),
    "exercise.01-fragments.passed": (
        "{n} 组碎片（交替到达的，第一片 arguments 是 None 的）都按 index 拼对了",
        "all {n} sets of fragments (interleaved ones, one whose first piece has arguments "
        "None) joined correctly by index",
    ),
    # chapter 02
    "exercise.02-predict-cap1.title": (
        "max_steps=1 跑一个两步的任务（先预测）",
        "max_steps=1 on a two-step task (predict first)",
    ),
    "exercise.02-predict-cap1.prompt": (
        "**一个诚实的两步任务，只给 1 步。** 诚实的分析员先调用 `analyze_csv`，下一步才回答。"
        "用 `Budget(max_steps=1)` 运行本章的问题之前，在 `prediction_cap1` 里预测运行状态、"
        "结局、停止原因、步数，以及 `analyze_csv` 执行了几次（`tool_calls`）。",
        "**An honest two-step task with 1 step.** The honest analyst calls `analyze_csv` "
        "first and answers in the next step. Before running the chapter's question with "
        "`Budget(max_steps=1)`, predict in `prediction_cap1` the run status, outcome, stop "
        "reason, steps, and how many times `analyze_csv` ran (`tool_calls`).",
    ),
    "exercise.02-predict-cap1.hint": (
        "一步 = 一次模型请求 + 它要的工具调用。第 1 步里工具执行了吗？第 2 次请求会发出吗？",
        "One step = one model request + the tool calls it asked for. Does the tool run in "
        "step 1? Is a second request made?",
    ),
    "exercise.02-predict-cap1.why": (
        "第 1 步里模型要了 analyze_csv，工具照常执行（tool_calls=1，而且是 ok）；回答要在第 2 次"
        "请求里才来，但上限只允许 1 次。工具状态全是 ok，运行状态仍是 failed：结局 "
        "budget_exhausted，停止原因 max_steps。上限不看任务诚不诚实，只数请求。",
        "In step 1 the model asks for analyze_csv and the tool runs (tool_calls=1, ok); the "
        "answer would come with request 2, but the cap allows 1. Every tool status is ok and "
        "the run status is still failed: budget_exhausted, max_steps. The cap does not care "
        "whether a task is honest; it counts requests.",
    ),
    "exercise.02-predict-four-ok.title": (
        "4 次工具调用都 ok，max_steps=4：运行状态是？（先预测）",
        "4 tool calls, all ok, max_steps=4: run status? (predict first)",
    ),
    "exercise.02-predict-four-ok.prompt": (
        "**工具状态 ≠ 运行状态。** 一个测试桩模型连续 4 次调用 `analyze_csv`（每次都成功），"
        "第 5 次才会回答；`max_steps=4`。在 `prediction_four_ok` 里预测运行状态、结局、停止原因、"
        "步数和工具错误数。",
        "**Tool status ≠ run status.** A stub model calls `analyze_csv` 4 times in a row (each "
        "succeeds) and would answer on the 5th; `max_steps=4`. Predict in "
        "`prediction_four_ok` the run status, outcome, stop reason, steps and tool errors.",
    ),
    "exercise.02-predict-four-ok.hint": (
        "工具状态说的是一次工具执行，运行状态说的是整个运行。第 5 次请求会发出吗？",
        "Tool status is about one tool execution, run status about the whole run. Is a fifth "
        "request ever made?",
    ),
    "exercise.02-predict-four-ok.why": (
        "4 次工具调用全是 ok（tool_errors=0），但回答要等第 5 次请求，上限只有 4 次：运行 failed，"
        "结局 budget_exhausted，停止原因 max_steps，步数 4。“每个工具都成功”不等于“任务完成”。",
        "All 4 tool calls are ok (tool_errors=0), but the answer needs a 5th request and the "
        "cap is 4: the run failed, budget_exhausted, max_steps, 4 steps. “Every tool "
        "succeeded” is not “the task is done”.",
    ),
    "exercise.02-predict-recover.title": (
        "先错后对，再回答：结局是？（先预测）",
        "Wrong file, then the right one, then an answer: outcome? (predict first)",
    ),
    "exercise.02-predict-recover.prompt": (
        "**中途出错的运行。** 模型先读不存在的 `sales_2023.csv`（FILE_NOT_FOUND），再改读 "
        "`sales.csv`，然后根据工具结果回答；`max_steps=4`。在 `prediction_recover` 里预测运行"
        "状态、结局、停止原因、步数和工具错误数。",
        "**A run with an error on the way.** The model first reads the missing "
        "`sales_2023.csv` (FILE_NOT_FOUND), then `sales.csv`, then answers from the tool "
        "result; `max_steps=4`. Predict in `prediction_recover` the run status, outcome, stop "
        "reason, steps and tool errors.",
    ),
    "exercise.02-predict-recover.hint": (
        "本课程的规则：只有最近一批工具结果里还有没解决的错误，才算 tool_error。",
        "The course's rule: only an error left unresolved in the most recent batch of tool "
        "results makes the outcome tool_error.",
    ),
    "exercise.02-predict-recover.why": (
        "第 1 步的 FILE_NOT_FOUND 计入 tool_errors=1，但第 2 步改读 sales.csv 成功了，第 3 步"
        "根据数据回答。最近一批工具结果没有错误，所以结局是 completed、运行状态 completed。"
        "这是本课程的设计选择：错误被后面的成功调用解决了，就不算失败。",
        "The FILE_NOT_FOUND of step 1 counts (tool_errors=1), but step 2 reads sales.csv "
        "successfully and step 3 answers from the data. The latest batch of tool results has "
        "no error, so the outcome and the run status are completed. That is a design choice of "
        "this course: an error resolved by a later successful call is not a failure.",
    ),
    "exercise.02-boundary.title": (
        "analyze_csv 的边界用例：错误码是？（先预测）",
        "analyze_csv's boundary cases: which error code? (predict first)",
    ),
    "exercise.02-boundary.prompt": (
        "**边界用例。** 只看一次正常回答，证明不了工具靠得住。在 `prediction_boundary` 里预测 "
        '`analyze_csv` 读每个文件时返回的错误码（没有错误写 `"ok"`）：空文件、只有表头、'
        "少一列、有一行数量为负、文件不存在、路径在 `input/` 外面。检查会在一份数据副本上"
        "真的读一遍。",
        "**Boundary cases.** One correct answer proves little about a tool. Predict in "
        '`prediction_boundary` the error code `analyze_csv` returns for each file (`"ok"` '
        "when there is no error): an empty file, a header only, a missing column, a row with a "
        "negative quantity, a missing file, a path outside `input/`. The check really reads "
        "them from a copy of the data.",
    ),
    "exercise.02-boundary.hint": (
        "错误码有：FILE_NOT_FOUND、PATH_NOT_ALLOWED、EMPTY_CSV、INVALID_CSV、INVALID_ROW。"
        "哪些是“文件本身不对”，哪些是“某一行不对”？",
        "The codes are FILE_NOT_FOUND, PATH_NOT_ALLOWED, EMPTY_CSV, INVALID_CSV, INVALID_ROW. "
        "Which mean “the file is wrong”, which “one row is wrong”?",
    ),
    "exercise.02-boundary.why": (
        "analyze_csv 从不猜：0 字节和只有表头都是 EMPTY_CSV（没有数据行）；少了 unit_price 列是 "
        "INVALID_CSV；数量为负是 INVALID_ROW，并说出第几行；不存在是 FILE_NOT_FOUND；'..' 在"
        "读文件之前就被 resolve_inside 拒绝，是 PATH_NOT_ALLOWED。每个错误都作为结构化结果"
        "交回模型。",
        "analyze_csv never guesses: 0 bytes and a header only are both EMPTY_CSV (no data "
        "rows); a missing unit_price column is INVALID_CSV; a negative quantity is INVALID_ROW, "
        "naming the line; a missing file is FILE_NOT_FOUND; '..' is refused by resolve_inside "
        "before any file is opened: PATH_NOT_ALLOWED. Each comes back to the model as a "
        "structured result.",
    ),
    "exercise.02-dispatch.title": ("自己写白名单分发", "Write whitelist dispatch yourself"),
    "exercise.02-dispatch.prompt": (
        "**白名单分发。** 模型只会“点名”一个工具并给出 JSON 参数，把点名变成一次 Python 调用是"
        "宿主的事。写 `dispatch(tools, name, arguments_json)`，`tools` 是 `{{工具名: 函数}}` 的"
        "字典。它**永远返回结构化结果、永远不抛异常**：名字不在字典里 → `UNKNOWN_TOOL`；参数不是"
        "合法 JSON 或不是 JSON 对象 → `INVALID_ARGUMENTS`（空字符串当作 `{{}}`）；函数自己抛了"
        "异常 → `TOOL_EXCEPTION`；否则返回函数的结果。用 `error(code, message)` 构造错误结果。",
        "**Whitelist dispatch.** The model only *names* a tool and sends JSON arguments; "
        "turning that into a Python call is the host's job. Write `dispatch(tools, name, "
        "arguments_json)`, where `tools` is a `{{name: function}}` dict. It **always returns "
        "a structured result and never raises**: a name not in the dict → `UNKNOWN_TOOL`; "
        "arguments that are not valid JSON or not a JSON object → `INVALID_ARGUMENTS` (an "
        "empty string counts as `{{}}`); a function that raises → `TOOL_EXCEPTION`; otherwise "
        "the function's result. Build errors with `error(code, message)`.",
    ),
    "exercise.02-dispatch.hint": (
        "按顺序三道关：if name not in tools；try json.loads 并检查 isinstance(arguments, dict)；"
        "try tools[name](**arguments) except Exception。每道关失败都 return error(...)。",
        "Three gates in order: if name not in tools; try json.loads and check "
        "isinstance(arguments, dict); try tools[name](**arguments) except Exception. Each "
        "failed gate returns error(...).",
    ),
    "exercise.02-dispatch.probe.good": (
        "调用 {name}（参数 {arguments}）",
        "calling {name} with {arguments}",
    ),
    "exercise.02-dispatch.probe.unknown": (
        "调用名单外的工具 {name}",
        "calling {name}, a tool not on the list",
    ),
    "exercise.02-dispatch.probe.bad_json": (
        "用不完整的 JSON {arguments} 调用 {name}",
        "calling {name} with the broken JSON {arguments}",
    ),
    "exercise.02-dispatch.probe.not_object": (
        "用不是对象的 JSON {arguments} 调用 {name}",
        "calling {name} with JSON that is not an object, {arguments}",
    ),
    "exercise.02-dispatch.boom": ("数据库连不上", "cannot connect to the database"),
    "exercise.02-dispatch.probe.raises": (
        "调用会抛异常的工具 {name}",
        "calling {name}, a tool that raises",
    ),
    "exercise.02-dispatch.probe.null": (
        "用参数 {arguments} 调用 {name}（合法的 JSON，但不是对象）",
        "calling {name} with {arguments} (valid JSON, but not an object)",
    ),
    "exercise.02-dispatch.probe.raises_key_error": (
        "调用名单里的工具 {name}（参数 {arguments}），它自己抛出 KeyError",
        "calling {name}, a listed tool, with {arguments}: it raises a KeyError of its own",
    ),
    "exercise.02-dispatch.probe.empty": (
        "用空参数字符串调用 {name}",
        "calling {name} with an empty argument string",
    ),
    "exercise.02-dispatch.result": (
        "{what}：应返回工具的结果 {expected}，你返回了 {got}",
        "{what}: it should return the tool's result {expected}; you returned {got}",
    ),
    "exercise.02-dispatch.code": (
        "{what}：应返回 status=error、code={code} 的结果，你返回了 {got}",
        "{what}: it should return a result with status=error and code={code}; you returned {got}",
    ),
    "exercise.02-dispatch.not_a_result": (
        "{what}：你返回的 {got} 不是结构化的工具结果（没有 status）："
        '用 error("{code}", 说明) 构造它，它带齐 status、data、source、error',
        "{what}: what you returned, {got}, is not a structured tool result (no status): "
        'build it with error("{code}", message), which has status, data, source and error',
    ),
    "exercise.02-dispatch.passed": (
        "名单外的工具、坏 JSON、不是对象的参数（包括 null）、抛异常的工具（包括抛 KeyError 的），"
        "都变成了结构化错误结果",
        "an unlisted tool, broken JSON, non-object arguments (null included) and raising tools "
        "(one raising KeyError included) all became structured error results",
    ),
    "exercise.02-capped-loop.title": (
        "给循环装上步数上限，并报告结局",
        "Give the loop a step cap and report how it ended",
    ),
    "exercise.02-capped-loop.prompt": (
        "**步数上限写在宿主代码里。** 从第 1 章的 `my_loop` 出发，写 "
        "`capped_loop(task, client, tools, max_steps)`，返回 `(messages, ending)`："
        '`ending` 是 `"answered"`（拿到最终回答）或 `"max_steps"`（用完上限）。模型最多被请求 '
        '`max_steps` 次；正好在第 `max_steps` 步回答也算 `"answered"`；到了上限不要抛异常，'
        "而是返回。检查会跑六个场景：正常完成、未知工具、正好在上限回答、上限只有 1 步，"
        "以及从不停下的模型（每次一个调用、每次两个调用各一个）。",
        "**The step cap lives in host code.** Starting from chapter 01's `my_loop`, write "
        "`capped_loop(task, client, tools, max_steps)` returning `(messages, ending)`: "
        '`ending` is `"answered"` (a final answer came) or `"max_steps"` (the cap ran '
        "out). The model is asked at most `max_steps` times; an answer exactly at step "
        '`max_steps` is still `"answered"`; at the cap, return, do not raise. The check runs '
        "six scenarios: honest finish, unknown tool, an answer exactly at the cap, a cap of 1, "
        "and two models that never stop (one asks for one call a turn, the other for two).",
    ),
    "exercise.02-capped-loop.hint": (
        "for _ in range(max_steps): 请求、追加 assistant；没有 tool_calls 就 return messages, "
        '"answered"；否则执行工具。循环自然结束（for 之后）才 return messages, "max_steps"。',
        "for _ in range(max_steps): ask, append the assistant message; with no tool_calls "
        'return messages, "answered"; otherwise run the tools. Only after the for loop ends '
        'return messages, "max_steps".',
    ),
    "exercise.02-capped-loop.return_pair": (
        "场景「{scenario}」：capped_loop 应返回 (messages, ending) 两项，你返回的是 {got}",
        "scenario “{scenario}”: capped_loop should return (messages, ending); it returned {got}",
    ),
    "exercise.02-capped-loop.reversed": (
        "场景「{scenario}」：返回的两项顺序反了：应是 (messages, ending)，你返回的是 "
        "(ending, messages)，第一项是 {got}",
        "scenario “{scenario}”: the two items are the wrong way round: return (messages, "
        "ending), not (ending, messages); your first item is {got}",
    ),
    "exercise.02-capped-loop.ending_answered": (
        "场景「{scenario}」：模型在第 {steps} 步给出了最终回答（max_steps={cap}），ending 应是 "
        "'answered'，你返回了 {got}：正好在上限那一步回答也算回答了",
        "scenario “{scenario}”: the model answered at step {steps} (max_steps={cap}), so ending "
        "should be 'answered'; you returned {got}: an answer at the last allowed step is an "
        "answer",
    ),
    "exercise.02-capped-loop.ending_max_steps": (
        "场景「{scenario}」：用完 max_steps={cap} 步还没有最终回答，ending 应是 'max_steps'，"
        "你返回了 {got}",
        "scenario “{scenario}”: the cap max_steps={cap} ran out with no final answer, so ending "
        "should be 'max_steps'; you returned {got}",
    ),
    "exercise.02-capped-loop.passed": (
        "{count} 个场景里，请求次数从不超过上限，结局也报告对了",
        "in all {count} scenarios the requests stayed within the cap and the ending was right",
    ),
    "exercise.02-stub-test.title": (
        "写一个测试桩单元测试",
        "Write a unit test with a stub client",
    ),
    "exercise.02-stub-test.prompt": (
        "**不花模型额度也能测上限。** 写 `test_step_cap(loop)`：用一个每次都返回工具调用的 "
        "`ScriptedClient` 测试桩跑 `loop(task, client, tools, max_steps)`（它返回 "
        "`(messages, ending)`，就像 `capped_loop`），然后 `assert`：模型请求次数 "
        '`len(stub.requests)` 不超过上限，结局是 `"max_steps"`。检查会把三个循环交给你的测试：'
        "正确的循环必须通过；多请求一次的循环、谎报结局的循环必须让它失败。",
        "**Test the cap without paying for a model.** Write `test_step_cap(loop)`: run "
        "`loop(task, client, tools, max_steps)` (it returns `(messages, ending)`, like "
        "`capped_loop`) on a `ScriptedClient` stub that always answers with a tool call, then "
        "`assert` that the model was asked at most the cap (`len(stub.requests)`) and that the "
        'ending is `"max_steps"`. The check hands three loops to your test: the correct one '
        "must pass; one that asks once too often and one that lies about its ending must fail.",
    ),
    "exercise.02-stub-test.hint": (
        'messages, ending = loop("分析 sales.csv", stub, sales_tools(), cap)，然后 '
        'assert len(stub.requests) <= cap 和 assert ending == "max_steps"。两个断言缺一不可。',
        'messages, ending = loop("analyse sales.csv", stub, sales_tools(), cap), then assert '
        'len(stub.requests) <= cap and assert ending == "max_steps". You need both.',
    ),
    "exercise.02-stub-test.loop.correct": (
        "用正确的循环运行 test_step_cap",
        "running test_step_cap on the correct loop",
    ),
    "exercise.02-stub-test.loop.one_extra": (
        "用多请求一次的循环运行 test_step_cap",
        "running test_step_cap on a loop that asks once too often",
    ),
    "exercise.02-stub-test.loop.lies": (
        "用谎报结局的循环运行 test_step_cap",
        "running test_step_cap on a loop that lies about its ending",
    ),
    "exercise.02-stub-test.fails_correct": (
        "你的测试在正确的循环上失败了（{detail}）：正确的循环请求正好 max_steps 次，结局是 "
        "'max_steps'",
        "your test fails on the correct loop ({detail}): the correct loop asks exactly "
        "max_steps times and ends with 'max_steps'",
    ),
    "exercise.02-stub-test.missed.one_extra": (
        "你的测试放过了多请求一次的循环（max_steps=4 却请求了 5 次）：断言请求次数不超过上限",
        "your test let through a loop that asks once too often (5 requests with max_steps=4): "
        "assert that the requests stay within the cap",
    ),
    "exercise.02-stub-test.missed.lies": (
        "你的测试放过了谎报结局的循环（用完上限却说 'answered'）：断言结局是 'max_steps'",
        "your test let through a loop that lies about its ending (out of steps, yet "
        "'answered'): assert that the ending is 'max_steps'",
    ),
    "exercise.02-stub-test.returned": (
        "。你的测试返回了 {got}：测试要靠 assert 失败，return False 不算失败",
        ". Your test returned {got}: a test fails through a failing assert; returning False "
        "is not failing",
    ),
    "exercise.02-stub-test.caught": (
        "。你的测试自己接住了 AssertionError：测试要靠 assert 失败，自己 except 掉就不算失败了",
        ". Your test catches its own AssertionError: a test fails through a failing assert; "
        "one it catches itself does not count",
    ),
    "exercise.02-stub-test.passed": (
        "你的测试让正确的循环通过，抓住了多请求一次和谎报结局的循环",
        "your test passes the correct loop and catches the loops that ask once too often or "
        "lie about their ending",
    ),
    # chapter 03
    "exercise.03-repeat-key.title": (
        "重复调用的键：归一化之后再比较",
        "The repeat key: normalise, then compare",
    ),
    "exercise.03-repeat-key.prompt": (
        "**重复检测先归一化。** 模型可能用不同的写法发出同一个调用：JSON 里的空格、键的顺序、"
        "路径前面的 `./`。按原始字符串比较，重复检测就形同虚设。写 "
        "`repeat_key(name, arguments_json)`，返回一个字符串：同一个调用（不管怎么写）得到同一个"
        "键，不同的调用得到不同的键。只有名字以 `path` 结尾的参数才按路径规范化"
        "（`posixpath.normpath`）；参数不是合法 JSON 时不能抛异常。",
        "**Normalise before detecting repeats.** A model may spell the same call differently: "
        "whitespace in the JSON, the order of keys, a `./` before a path. Compared as raw "
        "strings, repeats go unnoticed. Write `repeat_key(name, arguments_json)` returning a "
        "string: the same call, however spelled, gets the same key; different calls get "
        "different keys. Only arguments whose name ends in `path` are normalised as paths "
        "(`posixpath.normpath`); arguments that are not valid JSON must not raise.",
    ),
    "exercise.03-repeat-key.hint": (
        'json.loads 之后再 json.dumps(..., sort_keys=True, separators=(",", ":"))：空格和'
        "键的顺序就都没了。路径参数先 posixpath.normpath。最后在前面拼上工具名。",
        'json.loads, then json.dumps(..., sort_keys=True, separators=(",", ":")): '
        "whitespace and key order are gone. Normalise path arguments with posixpath.normpath "
        "first. Put the tool name in front.",
    ),
    "exercise.03-repeat-key.what": ("计算 {call} 的键", "computing the key of {call}"),
    "exercise.03-repeat-key.not_str": (
        "repeat_key 应返回字符串，你返回的是 {got}",
        "repeat_key should return a string; it returned {got}",
    ),
    "exercise.03-repeat-key.same": (
        "{a} 和 {b} 是同一个调用（{reason}），你的键却不同",
        "{a} and {b} are the same call ({reason}), yet your keys differ",
    ),
    "exercise.03-repeat-key.different": (
        "{a} 和 {b} 是不同的调用（{reason}），你的键却相同",
        "{a} and {b} are different calls ({reason}), yet your keys are equal",
    ),
    "exercise.03-repeat-key.reason.spaces": (
        "只是 JSON 里的空格不同",
        "only the whitespace in the JSON differs",
    ),
    "exercise.03-repeat-key.reason.key_order": (
        "只是键的顺序不同",
        "only the order of the keys differs",
    ),
    "exercise.03-repeat-key.reason.dot_path": (
        "./sales.csv 和 sales.csv 是同一个文件",
        "./sales.csv and sales.csv are the same file",
    ),
    "exercise.03-repeat-key.reason.other_file": (
        "读的是两个不同的文件",
        "they read two different files",
    ),
    "exercise.03-repeat-key.reason.other_tool": ("工具不同", "the tools differ"),
    "exercise.03-repeat-key.reason.parent_dir": (
        "../secret.md 在上一层目录，和 secret.md 不是同一个文件",
        "../secret.md is one folder up: not the same file as secret.md",
    ),
    "exercise.03-repeat-key.reason.types": (
        '数字 1 和字符串 "1" 不是同一个参数',
        'the number 1 and the string "1" are different arguments',
    ),
    "exercise.03-repeat-key.reason.not_a_path": (
        'text 不是路径，"./x" 和 "x" 是两段不同的文本',
        'text is not a path: "./x" and "x" are different texts',
    ),
    "exercise.03-repeat-key.reason.broken_text": (
        "两段不同的坏 JSON：解析不了时，用它原来的文本（连同工具名）做键",
        "two different pieces of broken JSON: when it does not parse, its own text (with the "
        "tool's name) is the key",
    ),
    "exercise.03-repeat-key.reason.broken_tool": (
        "同一段坏 JSON 发给了两个不同的工具：键里也要有工具名",
        "the same broken JSON sent to two different tools: the key holds the tool's name too",
    ),
    "exercise.03-repeat-key.passed": (
        "空格、键的顺序、./ 都看穿了，不同的文件、工具、类型和文本（包括坏 JSON）也没有混为一谈",
        "it sees through whitespace, key order and ./, and keeps different files, tools, types "
        "and texts (broken JSON included) apart",
    ),
    "exercise.03-no-progress.title": (
        "无进展计数器",
        "A no-progress counter",
    ),
    "exercise.03-no-progress.prompt": (
        "**无进展：每一步都换个说法，却什么新东西也没得到。** 写一个类 `NoProgress(limit)`，"
        "方法 `after_step(fingerprints)` 在每一步结束时被调用一次，`fingerprints` 是这一步所有"
        "工具结果的指纹（字符串列表，没有工具调用的步是空列表）。一个指纹在**整次运行里**第一次"
        "出现，才算进展；连续 `limit` 步没有进展，就返回 `True`（该停了），否则返回 `False`。"
        "有进展的一步会把计数清零。",
        "**No progress: a new wording every step, nothing new learnt.** Write a class "
        "`NoProgress(limit)` whose method `after_step(fingerprints)` is called once at the end "
        "of each step; `fingerprints` are the fingerprints of that step's tool results (a list "
        "of strings, empty for a step without tool calls). A fingerprint is progress only the "
        "first time it appears **in the whole run**; after `limit` steps in a row without "
        "progress, return `True` (time to stop), otherwise `False`. A step with progress "
        "resets the count.",
    ),
    "exercise.03-no-progress.hint": (
        "记两样东西：见过的指纹集合 seen，和连续没有进展的步数 streak。这一步有 seen 里没有的"
        "指纹，streak 清零，否则加一；然后把它们加进 seen；streak >= limit 就返回 True。"
        "“和上一步不一样”不是进展：a、b、a、b 交替也是在原地打转。",
        "Keep two things: the set of fingerprints seen so far, and the streak of steps without "
        "progress. A step with a fingerprint not in seen resets the streak, otherwise it grows "
        "by one; then add them to seen; return True once streak >= limit. “Different from the "
        "step before” is not progress: a, b, a, b is going round in circles too.",
    ),
    "exercise.03-no-progress.what": (
        "用 limit={limit} 跑序列 {sequence}",
        "running the sequence {sequence} with limit={limit}",
    ),
    "exercise.03-no-progress.not_a_counter": (
        "NoProgress({limit}) 得到的是 {got}，不是一个有 after_step 方法的对象："
        "NoProgress 要写成 class，状态存在 self 上",
        "NoProgress({limit}) gave {got}, not an object with an after_step method: write "
        "NoProgress as a class that keeps its state on self",
    ),
    "exercise.03-no-progress.never": (
        "序列 {sequence}（limit={limit}）：应在第 {expected} 步叫停，你的计数器一直没有叫停",
        "sequence {sequence} (limit={limit}): it should stop at step {expected}; your counter "
        "never did",
    ),
    "exercise.03-no-progress.early": (
        "序列 {sequence}（limit={limit}）：应在第 {expected} 步叫停，你在第 {got} 步就叫停了",
        "sequence {sequence} (limit={limit}): it should stop at step {expected}; yours stopped "
        "already at step {got}",
    ),
    "exercise.03-no-progress.late": (
        "序列 {sequence}（limit={limit}）：应在第 {expected} 步叫停，你到第 {got} 步才叫停",
        "sequence {sequence} (limit={limit}): it should stop at step {expected}; yours waited "
        "until step {got}",
    ),
    "exercise.03-no-progress.passed": (
        "{count} 个序列都在正确的那一步叫停（包括 a、b 交替的原地打转）",
        "all {count} sequences stop at the right step (alternating a, b included)",
    ),
    "exercise.03-deadline.title": (
        "一个绝对截止时间，三个阶段共用",
        "One absolute deadline, shared by every phase",
    ),
    "exercise.03-deadline.prompt": (
        "**截止时间只定一次。** 补全 `SharedDeadline(seconds, clock=time.monotonic)`：创建时"
        "用 `self.clock()` 定下**一个**绝对截止时间；`left()` 返回还剩多少秒（不小于 0）；"
        "`run(work, name)` 已经写好，它把 `left()` 交给 `agentlab.deadline.run_within`。"
        "决策（模型请求）、工具、完成检查三个阶段都通过同一个对象的 `run` 运行，所以后面的阶段"
        "只拿到前面用剩的时间。\n\n"
        "最常见的错法是“每个阶段各给一个新超时”：每个阶段都拿到完整的 `seconds`，三个阶段"
        "加起来可能用掉三倍的时间。检查先用一个假时钟看 `left()` 的数值，再用一个先花 50 ms、"
        "然后要一个挂住的工具的脚本化模型（`Hang`），以及一个一直不返回的模型，真的跑一遍。",
        "**Set the deadline once.** Complete `SharedDeadline(seconds, clock=time.monotonic)`: "
        "on creation, read `self.clock()` and fix **one** absolute deadline; `left()` returns "
        "the seconds left (never below 0); `run(work, name)` is already written and hands "
        "`left()` to `agentlab.deadline.run_within`. The decide (model request), tool and "
        "complete phases all run through the same object's `run`, so later phases only get "
        "what earlier ones left over.\n\n"
        "The usual mistake is “a fresh timeout per phase”: every phase gets the full "
        "`seconds`, and three phases may take three times as long. The check first reads "
        "`left()` under a fake clock, then really runs a scripted model that takes 50 ms and "
        "asks for a hanging tool (`Hang`), and a model that never answers.",
    ),
    "exercise.03-deadline.hint": (
        "__init__ 里 self.at = clock() + seconds，只算这一次；left() 里 return max(0.0, "
        "self.at - self.clock())。不要在 left() 里重新记开始时间。",
        "In __init__, self.at = clock() + seconds, computed once; in left(), return max(0.0, "
        "self.at - self.clock()). Do not restart the clock inside left().",
    ),
    "exercise.03-deadline.what_fake": (
        "用假时钟创建 SharedDeadline 并调用 left()",
        "creating a SharedDeadline on a fake clock and calling left()",
    ),
    "exercise.03-deadline.what_real": (
        "用真实时间运行挂住的模型和工具",
        "running a hanging model and tool in real time",
    ),
    "exercise.03-deadline.no_clock": (
        "SharedDeadline 没有读传入的 clock：读时间一律用 self.clock()，检查才能用假时钟验证它",
        "SharedDeadline never reads the clock it was given: always read the time with "
        "self.clock(), so the check can test it with a fake clock",
    ),
    "exercise.03-deadline.full_no_clock": (
        "过了 30 ms、60 ms、1 s，left() 每次都还是完整的 {budget} s，而且从没读过 self.clock()："
        "预算一点也没有减少。截止时间要在创建时用 self.clock() 定一次，left() 里再用 "
        "self.clock() 现读现算还剩多少",
        "after 30 ms, 60 ms and 1 s, left() still gives the full {budget} s and never reads "
        "self.clock(): the budget never shrinks. Fix the deadline once on creation with "
        "self.clock(), and work out what is left inside left() by reading self.clock() again",
    ),
    "exercise.03-deadline.not_number": (
        "left() 应返回秒数（一个数），你返回的是 {got}",
        "left() should return seconds (a number); it returned {got}",
    ),
    "exercise.03-deadline.per_phase": (
        "过了 30 ms、60 ms，left() 每次都还是完整的 {budget} s：这是“每个阶段一个新超时”，"
        "预算被反复重置了，两个阶段加起来会用掉约 2 倍的时间。截止时间要在创建时定一次，"
        "之后只给剩下的部分",
        "after 30 ms and 60 ms, left() still gives the full {budget} s each time: that is “a "
        "fresh timeout per phase”, the budget is reset again and again and two phases take "
        "about twice the time. Fix the deadline once, on creation, and hand out only what is "
        "left",
    ),
    "exercise.03-deadline.lazy_start": (
        "第一次调用 left() 时才开始计时：截止时间要在创建时定下，创建之后用掉的时间也算",
        "the clock starts at the first left() call: fix the deadline on creation; the time "
        "spent since then counts too",
    ),
    "exercise.03-deadline.negative": (
        "时间用完之后 left() 给出了负数 {got}：剩余时间不能小于 0",
        "after the time is up, left() gave a negative number, {got}: the time left is never "
        "below 0",
    ),
    "exercise.03-deadline.left": (
        "创建之后过了 {after} s，left() 应为 {expected}，你给出 {got}",
        "{after} s after creation, left() should be {expected}; yours gave {got}",
    ),
    "exercise.03-deadline.decide_cut": (
        "模型只用了 50 ms，远在截止时间之前就回答了，run() 却没有拿到它的回复",
        "the model answered after 50 ms, well before the deadline, yet run() did not get the reply",
    ),
    "exercise.03-deadline.per_phase_real": (
        "模型阶段已经用掉至少 {model} s，工具阶段拿到的却还是接近完整的 {budget} s：后面的阶段"
        "只能拿前面用剩的时间",
        "the model phase already used at least {model} s, yet the tool phase still gets about "
        "the full {budget} s: later phases only get what the earlier ones left",
    ),
    "exercise.03-deadline.tool_waited": (
        "工具挂住时，run() 一直等到它自己返回（{hang} s 之后）：要用 run_within 只给它剩余的时间",
        "with a hanging tool, run() waited until it returned by itself ({hang} s later): use "
        "run_within with the time left",
    ),
    "exercise.03-deadline.model_waited": (
        "模型不回答时，run() 没有在截止时间放弃，一直等了 {hang} s",
        "with a model that does not answer, run() did not give up at the deadline and waited "
        "{hang} s",
    ),
    "exercise.03-deadline.run_not_left": (
        "假时钟下只剩 {left} 秒时，run() 还是让一个要 {job} 秒的工作跑完了：run() 要用 "
        "left() 算出的剩余时间，而不是整个预算",
        "under the fake clock, with {left} s left, run() still let a {job} s job finish: run() "
        "must use the time left() gives, not the whole budget",
    ),
    "exercise.03-deadline.swallowed": (
        "时间到了，run() 却正常返回了（工作还没做完）：run_within 抛出的 TimedOut 被你接住吞掉了，"
        "调用方就不知道已经超时；别用 except 接住它，让它抛出去",
        "time ran out, yet run() returned normally (the work had not finished): the TimedOut "
        "run_within raised was caught and dropped, so the caller never learns the time is up; "
        "do not catch it, let it propagate",
    ),
    "exercise.03-deadline.passed": (
        "假时钟下 left() 只给剩余时间、从不为负，run() 只给工作剩下的时间；真实运行里模型用掉的 "
        "50 ms 从工具阶段扣掉了，挂住的工具和模型都在截止时间被放弃",
        "under the fake clock left() gives only what is left and never goes negative, and run() "
        "gives a job only that; in the real runs the model's 50 ms came out of the tool phase, "
        "and the hanging tool and model were both abandoned at the deadline",
    ),
    "exercise.03-predict-alternate.title": (
        "交替轮询 a、b：哪个守卫先叫停？（先预测）",
        "Polling a, b in turn: which guard stops it first? (predict first)",
    ),
    "exercise.03-predict-alternate.prompt": (
        '**两个守卫，谁先到？** 模型交替轮询两个任务：`same_result(job="a")`、'
        '`same_result(job="b")`、a、b……从不回答。预算是 `Budget.seed_table()`：同一个调用第 3 次'
        "被拒绝（REPEATED_CALL）、第 4 次停止；连续 4 步没有新指纹也停止。在 "
        "`prediction_alternate` 里预测停止原因、步数和被拒绝的次数。",
        "**Two guards: which comes first?** The model polls two jobs in turn: "
        '`same_result(job="a")`, `same_result(job="b")`, a, b ... never answering. The '
        "budget is `Budget.seed_table()`: the 3rd identical call is refused (REPEATED_CALL), "
        "the 4th stops the run; 4 steps in a row without a new fingerprint stop it too. Predict "
        "in `prediction_alternate` the stop reason, the steps and the number of refusals.",
    ),
    "exercise.03-predict-alternate.hint": (
        "逐步写下来：第几步调用的是 a 还是 b？那是它的第几次？这一步的结果指纹以前见过吗？"
        "被拒绝的调用没有执行，也就没有新指纹。",
        "Write it out step by step: is it a or b, and its how-manieth call? Has this step's "
        "result fingerprint been seen before? A refused call does not run, so it brings no new "
        "fingerprint.",
    ),
    "exercise.03-predict-alternate.why": (
        "a、b 各自的第 3 次出现在第 5、6 步，都被 REPEATED_CALL 拒绝；第 4 次要到第 7、8 步才会"
        "触发 repeat_call。可从第 3 步起每一步都没有新指纹（a 和 b 的结果早就见过，被拒绝的调用"
        "没有指纹），第 3、4、5、6 步连续 4 步无进展，第 6 步 no_progress 先叫停。两个守卫同时"
        "开着，先到的那个说了算。",
        "The 3rd call of a and of b come at steps 5 and 6, both refused with REPEATED_CALL; "
        "their 4th calls, which would trigger repeat_call, would come at steps 7 and 8. But "
        "from step 3 on no step brings a new fingerprint (a's and b's results were seen "
        "before, and refused calls have none): steps 3, 4, 5, 6 make 4 in a row, and "
        "no_progress stops the run at step 6. With two guards on, the first to trigger wins.",
    ),
    "exercise.03-predict-no-progress.title": (
        "max_no_progress=2：第几步停？（先预测）",
        "max_no_progress=2: at which step does it stop? (predict first)",
    ),
    "exercise.03-predict-no-progress.prompt": (
        "**参数每次都不一样，结果每次都一样。** 模型每一步换一个镜像调用 `always_fails`"
        '（`mirror="option-1"`、`"option-2"`……），重复检测抓不到它；工具每次都返回同一个错误。'
        "预算是 `Budget.seed_table(max_no_progress=2)`。在 `prediction_no_progress` 里预测停止"
        "原因、步数和工具错误数。",
        "**New arguments every time, the same result every time.** Each step the model calls "
        '`always_fails` on another mirror (`mirror="option-1"`, `"option-2"` ...), so '
        "repeat detection cannot catch it; the tool returns the same error every time. The "
        "budget is `Budget.seed_table(max_no_progress=2)`. Predict in "
        "`prediction_no_progress` the stop reason, the steps and the tool errors.",
    ),
    "exercise.03-predict-no-progress.hint": (
        "第 1 步的失败算不算新信息？之后的每一步呢？",
        "Is the failure of step 1 new information? And those after it?",
    ),
    "exercise.03-predict-no-progress.why": (
        "第 1 步的失败是新信息（第一次见到这个错误的指纹）；第 2、3 步参数不同，但返回的是同一个"
        "错误，没有新指纹：连续 2 步无进展，第 3 步 no_progress。三次调用都失败了，"
        "tool_errors=3。",
        "The failure of step 1 is new (the first time that error's fingerprint appears); steps "
        "2 and 3 use other arguments but get the same error, with no new fingerprint: 2 steps "
        "without progress, no_progress at step 3. All three calls failed: tool_errors=3.",
    ),
    "exercise.03-predict-threshold.title": (
        "阈值策略：第几次被拒绝，第几次停止？（先预测）",
        "The threshold policy: refused when, stopped when? (predict first)",
    ),
    "exercise.03-predict-threshold.prompt": (
        '**同一个调用，换着写法。** 模型每一轮都轮询同一个任务 `same_result(job="nightly")`，'
        "只是写法不同（JSON 里的空格和缩进）。预算是 `Budget.seed_table()`。在 "
        "`prediction_threshold` 里预测停止原因、步数，以及第几步的调用被 REPEATED_CALL 拒绝。",
        "**The same call, spelled differently.** Every round the model polls the same job, "
        '`same_result(job="nightly")`, spelled differently (JSON spaces, indentation). '
        "The budget is `Budget.seed_table()`. Predict in `prediction_threshold` the stop "
        "reason, the steps, and at which step a call is refused with REPEATED_CALL.",
    ),
    "exercise.03-predict-threshold.hint": (
        "重复检测比较的是归一化之后的键。seed_table：第 3 次相同调用拒绝，第 4 次停止。",
        "Repeat detection compares normalised keys. seed_table: the 3rd identical call is "
        "refused, the 4th stops the run.",
    ),
    "exercise.03-predict-threshold.why": (
        "归一化之后四次都是同一个调用：第 1、2 次照常执行；第 3 次不执行，模型收到 REPEATED_CALL "
        "提示“换个思路或直接回答”；第 4 次直接停止：repeat_call，4 步。轮询这类合理的重复也会被"
        "拦下，所以阈值要按任务调。",
        "Once normalised, all four are the same call: calls 1 and 2 run; call 3 does not, the "
        "model gets a REPEATED_CALL hint to change strategy or answer; call 4 stops the run: "
        "repeat_call, 4 steps. Legitimate repeats such as polling get stopped too, so the "
        "threshold must suit the task.",
    ),
    "exercise.03-predict-abandon.title": (
        "放弃等待 vs 杀掉进程（先预测）",
        "Abandoning vs killing a hung tool (predict first)",
    ),
    "exercise.03-predict-abandon.prompt": (
        "**停止等待 ≠ 停止工作。** 同一个挂住的工具跑两次，两次都有截止时间：一次是进程内的 "
        "`hang`，一次是声明了 `isolated=True` 的 `hang_isolated`（在子进程里运行）。在 "
        "`prediction_abandon` 里预测：停止原因、卡住的阶段、两次的错误码、进程内那个工具在运行"
        "返回之后还在不在跑，以及子进程的退出码。",
        "**Stopping the wait ≠ stopping the work.** The same hanging tool runs twice, each "
        "time under a deadline: once in process (`hang`), once declared `isolated=True` "
        "(`hang_isolated`, run in a child process). Predict in `prediction_abandon`: the stop "
        "reason, the phase it was stuck in, the two error codes, whether the in-process tool "
        "is still running after the run returned, and the child's exit code.",
    ),
    "exercise.03-predict-abandon.hint": (
        "Python 能杀掉一个线程吗？能杀掉一个子进程吗？SIGKILL 的编号是 9（在 Windows 上，"
        "Python 把强行结束的子进程的退出码记为 -15）。",
        "Can Python kill a thread? A child process? SIGKILL is signal 9 (on Windows, Python "
        "gives a child it terminated the exit code -15).",
    ),
    "exercise.03-predict-abandon.why": (
        "两次运行都按时停下：deadline，卡在 tool 阶段。区别在工具本身：进程内的工具只是被放弃"
        "（TOOL_ABANDONED），线程杀不掉，它还在后台跑；隔离的工具在子进程里，时间一到被 SIGKILL "
        "杀掉（TOOL_KILLED，退出码 -9；Windows 上是 -15）。要真正停下不受控的工作，只能用进程。",
        "Both runs stop on time: deadline, stuck in the tool phase. The tools differ: the "
        "in-process one is only abandoned (TOOL_ABANDONED): a thread cannot be killed and it "
        "keeps running; the isolated one runs in a child process that is killed with SIGKILL "
        "when time is up (TOOL_KILLED, exit code -9; -15 on Windows). Only a process can "
        "really stop work that "
        "ignores every request to stop.",
    ),
    # chapter 04
    "exercise.need_dict_result": (
        "应返回一个字典，你返回的是 {got}",
        "it should return a dict; you returned {got}",
    ),
    "exercise.04-classify.title": ("给失败分类", "Classify failures"),
    "exercise.04-classify.prompt": (
        "**错误分类比错误重试更重要。** 写 `error_class(failure)`：`failure` 是模型服务返回的 "
        "HTTP 状态码（int）或工具结果里的错误码（str），返回四类之一：\n\n"
        "| 类别 | HTTP 状态码 | 工具错误码 |\n| --- | --- | --- |\n"
        "| `transient`（瞬时） | 408、409、429、所有 5xx | TIMEOUT、UNAVAILABLE、RATE_LIMITED |\n"
        "| `permission`（权限） | 401、403 | PATH_NOT_ALLOWED、PERMISSION_DENIED、POLICY_DENIED |\n"
        "| `logic`（逻辑） | — | TESTS_FAILED、CHECK_FAILED |\n"
        "| `invalid_input`（参数） | 其余 4xx | 其余所有错误码 |\n\n"
        "检查会拿你的结果和 `agentlab` 的循环自己用的分类比较。",
        "**Classifying errors matters more than retrying them.** Write "
        "`error_class(failure)`: `failure` is an HTTP status from the model service (an int) "
        "or an error code from a tool result (a str); return one of four classes:\n\n"
        "| class | HTTP status | tool error code |\n| --- | --- | --- |\n"
        "| `transient` | 408, 409, 429, every 5xx | TIMEOUT, UNAVAILABLE, RATE_LIMITED |\n"
        "| `permission` | 401, 403 | PATH_NOT_ALLOWED, PERMISSION_DENIED, POLICY_DENIED |\n"
        "| `logic` | — | TESTS_FAILED, CHECK_FAILED |\n"
        "| `invalid_input` | any other 4xx | every other code |\n\n"
        "The check compares your classes with the ones `agentlab`'s own loop uses.",
    ),
    "exercise.04-classify.hint": (
        "先用 isinstance(failure, int) 分开两种输入。不认识的工具错误码归为 invalid_input："
        "把错误交回模型，而不是盲目重试。",
        "Split the two kinds of input with isinstance(failure, int) first. An unknown tool "
        "code is invalid_input: hand it back to the model rather than retry blindly.",
    ),
    "exercise.04-classify.what": ("给 {failure} 分类", "classifying {failure}"),
    "exercise.04-classify.mismatch": (
        "{failure} 应归为 {expected}（{why}），你归为 {got}",
        "{failure} is {expected} ({why}); yours said {got}",
    ),
    "exercise.04-classify.why.transient": (
        "等一等再试，可能就好了",
        "wait and try again, it may well work",
    ),
    "exercise.04-classify.why.permission": (
        "重试没用：权限不会自己变，立即停止",
        "retrying is useless: permissions do not change by themselves; stop at once",
    ),
    "exercise.04-classify.why.invalid_input": (
        "原样再试还是错：把错误交回模型，让它换个做法",
        "the same call fails the same way: hand the error to the model to change its approach",
    ),
    "exercise.04-classify.why.logic": (
        "任务本身还没做对：这是正常的工作反馈，不是工具故障",
        "the work is not right yet: normal feedback, not a broken tool",
    ),
    "exercise.04-classify.passed": (
        "{count} 个状态码和错误码都分对了",
        "all {count} statuses and codes classified right",
    ),
    "exercise.04-should-retry.title": ("要不要重试？", "Retry or not?"),
    "exercise.04-should-retry.prompt": (
        "**只重试值得重试的。** 写 `should_retry(error_class, attempt, max_retries, wait_s, "
        "time_left_s)`：一次模型请求刚刚失败，要不要退避之后再试？只有 `transient` 值得重试；"
        "`attempt` 是刚刚失败的那次尝试的序号（第一次请求是 1），`max_retries` 是第一次之外最多"
        "再试几次；等待也要从截止时间里扣：等 `wait_s` 秒之后如果已经过了截止时间"
        "（`time_left_s`，`None` 表示没有截止时间），就不要再试。",
        "**Retry only what is worth retrying.** Write `should_retry(error_class, attempt, "
        "max_retries, wait_s, time_left_s)`: a model request just failed; wait and try again? "
        "Only `transient` failures are worth it; `attempt` is the number of the attempt that "
        "just failed (the first request is 1) and `max_retries` the retries allowed after the "
        "first; the wait comes out of the deadline too: if waiting `wait_s` seconds would pass "
        "the deadline (`time_left_s`; `None` means no deadline), do not retry.",
    ),
    "exercise.04-should-retry.hint": (
        '三个条件都满足才重试：error_class == "transient"；attempt <= max_retries；'
        "time_left_s is None or wait_s < time_left_s。",
        'Retry only when all three hold: error_class == "transient"; attempt <= '
        "max_retries; time_left_s is None or wait_s < time_left_s.",
    ),
    "exercise.04-should-retry.mismatch": (
        "{call} 应为 {expected}（{why}），你返回 {got}",
        "{call} should be {expected} ({why}); yours returned {got}",
    ),
    "exercise.04-should-retry.why.first_retry": (
        "瞬时错误，重试次数还没用",
        "a transient error, and no retry used yet",
    ),
    "exercise.04-should-retry.why.second_retry": (
        "第 2 次尝试失败后还能再试 1 次：max_retries=2 是第一次之外再试 2 次",
        "after the 2nd attempt fails one retry is left: max_retries=2 means 2 tries after the "
        "first",
    ),
    "exercise.04-should-retry.why.used_up": (
        "第一次加 2 次重试都用完了",
        "the first attempt and both retries are used up",
    ),
    "exercise.04-should-retry.why.input": (
        "参数错误原样再试还是错",
        "an input error fails the same way again",
    ),
    "exercise.04-should-retry.why.permission": (
        "权限不会自己变",
        "permissions do not change by themselves",
    ),
    "exercise.04-should-retry.why.logic": (
        "逻辑错误是工作反馈，交给模型，不重试",
        "a logic error is feedback for the model, not something to retry",
    ),
    "exercise.04-should-retry.why.past_deadline": (
        "等 0.5 s 之后，只剩 0.3 s 的截止时间已经过了",
        "after waiting 0.5 s the deadline, 0.3 s away, has passed",
    ),
    "exercise.04-should-retry.why.before_deadline": (
        "等 0.2 s 之后还在 0.3 s 的截止时间之内",
        "after waiting 0.2 s we are still within the 0.3 s left",
    ),
    "exercise.04-should-retry.why.no_retries": (
        "max_retries=0：不重试",
        "max_retries=0: no retries",
    ),
    "exercise.04-should-retry.why.no_time_left": (
        "离截止时间还剩 0 秒：0.0 是一个截止时间（已经到了），不是“没有截止时间”；"
        "只有 None 才表示没有截止时间，别用 if time_left_s 判断",
        "0 s left before the deadline: 0.0 is a deadline (already reached), not “no "
        "deadline”; only None means no deadline, so do not test it with if time_left_s",
    ),
    "exercise.04-should-retry.passed": (
        "只重试瞬时错误，次数不多不少，也不会睡过截止时间",
        "only transient errors are retried, the right number of times, never sleeping past the "
        "deadline",
    ),
    "exercise.04-done-when.title": (
        "写一个独立的完成判据",
        "Write an independent completion check",
    ),
    "exercise.04-done-when.prompt": (
        "**工具返回 ok ≠ 任务完成，模型说“写好了”也不算。** 写 `make_done_when(box, "
        'expected_total)`，返回一个 `done_when(answer)`：只有 `box/"report.md"` 存在、并且'
        "里面有一行 `总销售额 <expected_total>` 时才返回 `True`；否则返回一句话，说明还缺什么"
        "（`run_agent` 会把这句话交回模型，循环在预算内继续）。检查会直接调用它，再把它交给 "
        "`run_agent(done_when=...)`，跑一个第一步就谎称“写好了”的模型。",
        "**A tool's ok is not “done”, and neither is the model saying so.** Write "
        "`make_done_when(box, expected_total)` returning a `done_when(answer)` that returns "
        '`True` only when `box/"report.md"` exists and holds the total revenue line, '
        "`总销售额 <expected_total>` (e.g. `总销售额 9692`); otherwise a sentence saying what "
        "is missing "
        "(`run_agent` hands it back to the model and the loop goes on within budget). The "
        "check calls it directly, then passes it to `run_agent(done_when=...)` with a model "
        "that claims to be done at step 1.",
    ),
    "exercise.04-done-when.hint": (
        '不要看 answer：看文件。report = box / "report.md"；不存在就返回一句原因；存在就按行'
        '读，找 f"总销售额 {{expected_total}}"。找不到也返回一句原因，而不是 False。',
        'Do not look at answer: look at the file. report = box / "report.md"; if it is '
        "missing, return a reason; otherwise read its lines and look for the line, e.g. "
        'f"总销售额 {{expected_total}}". Not found: return a reason too, not False.',
    ),
    "exercise.04-done-when.what": ("调用你的完成判据", "calling your completion check"),
    "exercise.04-done-when.what_run": (
        "用你的完成判据运行 run_agent",
        "running run_agent with your completion check",
    ),
    "exercise.04-done-when.returned_none": (
        "make_done_when 返回了 None：在它的最后要 return done_when（返回内层函数本身，不是调用它）",
        "make_done_when returned None: end it with return done_when (the inner function "
        "itself, not a call to it)",
    ),
    "exercise.04-done-when.trusts_answer": (
        "report.md 还不存在，你的判据却因为模型说“报告写好了”就返回了 True：不能相信模型的自述",
        "report.md does not exist, yet your check returned True because the model said it was "
        "done: do not trust the model's own word",
    ),
    "exercise.04-done-when.no_reason": (
        "没完成时应返回一句话说明还缺什么（它会交回模型），你返回了 {got}",
        "when not done it should return a sentence saying what is missing (it goes back to "
        "the model); yours returned {got}",
    ),
    "exercise.04-done-when.wrong_total": (
        "report.md 里写的是“总销售额 {wrong}”，不是 {total}，你的判据却说完成了：要检查内容，"
        "不只是文件在不在",
        "report.md gives a total revenue of {wrong}, not {total}, yet your check said done: "
        "check the "
        "content, not only that the file exists",
    ),
    "exercise.04-done-when.rejects_good": (
        "report.md 里有“总销售额 {total}”，应返回 True，你返回了 {got}",
        "report.md holds the line for a total of {total}, so it should return True; yours "
        "returned {got}",
    ),
    "exercise.04-done-when.hard_coded": (
        "expected_total 换成 {other} 之后你的判据不认了：不要把 {total} 写死，用参数 expected_tot"
        "al",
        "with expected_total={other} your check no longer accepts the report: do not write "
        "{total} into the check, use the expected_total argument",
    ),
    "exercise.04-done-when.run": (
        "交给 run_agent 之后，结局是 {outcome}、{steps} 步；应该是 completed、3 步"
        "（第 1 步的“写好了”被判据驳回，第 2 步写文件，第 3 步通过）",
        "inside run_agent the outcome was {outcome} after {steps} step(s); it should be "
        "completed after 3 (the claim of step 1 rejected, the file written in step 2, accepted "
        "in step 3)",
    ),
    "exercise.04-done-when.passed": (
        "你的判据不信自述、会说明缺什么、会检查数字；交给 run_agent 后，谎称完成的那一步被驳回，"
        "第 3 步才完成",
        "your check ignores the model's claims, says what is missing and checks the number; "
        "inside run_agent the false claim was rejected and the run completed at step 3",
    ),
    "exercise.04-truncate.title": (
        "截断：保留头、尾和关键行",
        "Truncation: keep the head, the tail and the key lines",
    ),
    "exercise.04-truncate.prompt": (
        "**上下文也会失控。** 一次构建日志有 5 万多个字符，全塞给模型既贵又会淹没重点。写 "
        "`shrink(text, limit)`：不超过 `limit` 个字符就原样返回；否则在 `limit` 个字符以内保留"
        "开头几行、结尾几行和所有关键行（匹配 `KEY_LINE` 的整行：error、fail、exception、"
        "traceback），在删掉内容的地方放一行标记，写明 `truncated`（或“省略”）和删了多少。"
        "保留的行按原来的顺序，每行完整。",
        "**Context gets out of hand too.** A build log of over 50,000 characters is costly "
        "and buries what matters. Write `shrink(text, limit)`: text within `limit` characters "
        "comes back unchanged; otherwise keep, within `limit` characters, the first lines, the "
        "last lines and every key line (whole lines matching `KEY_LINE`: error, fail, "
        "exception, traceback), with a marker line where something was removed, saying "
        "`truncated` and how much. Kept lines stay in their order, each one whole.",
    ),
    "exercise.04-truncate.hint": (
        "先按行切开，找出关键行；用 limit 减去关键行和几行标记的长度，剩下的一半给开头、一半给结"
        "尾；"
        "按行号排序拼回去，跳过的地方插一行标记。",
        "Split into lines and find the key lines; take limit minus the key lines and a few "
        "marker lines, give half of what is left to the head and half to the tail; join the "
        "kept lines by line number with a marker wherever lines were skipped.",
    ),
    "exercise.04-truncate.case.short": ("短文本", "a short text"),
    "exercise.04-truncate.case.build_log": ("5 万字符的构建日志", "a 50,000-character build log"),
    "exercise.04-truncate.case.traceback": (
        "带 Traceback 的测试日志",
        "a test log with a traceback",
    ),
    "exercise.04-truncate.case.long_lines": (
        "每行 150 个字符的日志",
        "a log whose lines are 150 characters long",
    ),
    "exercise.04-truncate.what": ("截断 {case}", "truncating {case}"),
    "exercise.04-truncate.not_str": (
        "shrink 应返回字符串，你返回的是 {got}",
        "shrink should return a string; it returned {got}",
    ),
    "exercise.04-truncate.changed_short": (
        "{case}没有超过 limit={limit}，应原样返回，你却改了它",
        "{case} is within limit={limit} and should come back unchanged; yours changed it",
    ),
    "exercise.04-truncate.too_long": (
        "{case}：结果有 {length} 个字符，超过了 limit={limit}：保留几行要按字符数算"
        "（行有长有短），不能是固定的行数",
        "{case}: the result has {length} characters, more than limit={limit}: how many lines "
        "to keep depends on their length in characters, not on a fixed number of lines",
    ),
    "exercise.04-truncate.no_head": (
        "{case}：第一行 {line} 不见了：开头说明了这是什么输出",
        "{case}: the first line {line} is gone: the head says what this output is",
    ),
    "exercise.04-truncate.no_tail": (
        "{case}：最后一行 {line} 不见了（或被切断了）：结尾常常就是结论",
        "{case}: the last line {line} is gone (or cut): the end is often the conclusion",
    ),
    "exercise.04-truncate.no_key_line": (
        "{case}：关键行 {line} 不见了：模型最需要看到的就是它",
        "{case}: the key line {line} is gone: it is what the model most needs to see",
    ),
    "exercise.04-truncate.no_marker": (
        "{case}：没有标记说明删了内容：模型会以为这就是全部输出",
        "{case}: no marker says something was removed: the model will take this for the whole "
        "output",
    ),
    "exercise.04-truncate.out_of_order": (
        "{case}：{line} 不是原文里按顺序出现的完整一行",
        "{case}: {line} is not a whole line of the original, in order",
    ),
    "exercise.04-truncate.too_few_ends": (
        "{case}：开头和结尾要各留几行，{line} 不见了：只留一行，往往看不出上下文",
        "{case}: keep a few lines at the start and at the end; {line} is missing: one line "
        "alone rarely shows the context",
    ),
    "exercise.04-truncate.marker_no_count": (
        "{case}：标记 {line} 没写删了多少：写上删掉的行数或字符数，模型才知道少了多少",
        "{case}: the marker {line} does not say how much was removed: give the lines or "
        "characters removed, so the model knows how much is missing",
    ),
    "exercise.04-truncate.marker_misplaced": (
        "{case}：标记 {line} 放的地方没有删掉任何东西：标记要放在被删掉的那些行原来的位置",
        "{case}: nothing was removed where the marker {line} stands: put each marker where "
        "the removed lines were",
    ),
    "exercise.04-truncate.passed": (
        "短文本原样返回；长日志在 limit 之内保住了开头、结尾、每一条关键行，并标明删了多少",
        "short text untouched; long logs fit the limit and keep the head, the tail, every key "
        "line and a marker saying what was removed",
    ),
    "exercise.04-trace.title": ("读懂一份运行轨迹", "Read a run's trace"),
    "exercise.04-trace.prompt": (
        "**停下来之后还能复盘。** 每次运行都写一份 JSONL 轨迹，每行一个事件（字典）："
        "`event` 是 `start`、`phase`、`warning` 或 `stop`；`phase` 事件的 `phase` 是 `decide`、"
        "`tool` 或 `complete`，其中工具事件有 `tool`、`status`、`error_code`；`stop` 事件有 "
        "`step` 和 `stop_reason`。写 `trace_story(events)`，返回 `steps`（停在第几步）、"
        "`stop_reason`、`tools`（每个工具事件的工具名，按顺序：执行过的、被拒绝的、因为运行停止"
        "而没有执行的 `NOT_RUN` 都算）和 `error_codes`（出错的工具调用的错误码，按顺序）。"
        "检查会在三次真实运行的轨迹上比较，其中一次有一个被重试的模型请求。",
        "**Review a run after it stopped.** Every run writes a JSONL trace, one event (a dict) "
        "per line: `event` is `start`, `phase`, `warning` or `stop`; a `phase` event's "
        "`phase` is `decide`, `tool` or `complete`, and tool events carry `tool`, `status`, "
        "`error_code`; the `stop` event carries `step` and `stop_reason`. Write "
        "`trace_story(events)` returning `steps` (the step it stopped at), `stop_reason`, "
        "`tools` (the tool name of every tool event, in order: calls that ran, calls refused, "
        "and calls never run because the run stopped, `NOT_RUN`) and `error_codes` (the codes "
        "of the tool calls that failed, in order). The check compares on the traces of three "
        "real runs, one with a retried model request.",
    ),
    "exercise.04-trace.hint": (
        "步数和停止原因都在最后那个 stop 事件里；不要数 decide 事件：被重试的请求也会留下一个。"
        "error_codes 只收 status 为 error 的工具事件。",
        "The steps and the stop reason are in the final stop event; do not count decide "
        "events: a retried request leaves one too. error_codes takes only tool events whose "
        "status is error.",
    ),
    "exercise.04-trace.scenario.missing_file": (
        "文件名写错后恢复",
        "recovering from a wrong file name",
    ),
    "exercise.04-trace.scenario.repeats": ("重复调用被叫停", "repeated calls stopped"),
    "exercise.04-trace.scenario.retry": ("429 之后重试成功", "a retry after a 429"),
    "exercise.04-trace.what": (
        "读「{scenario}」的轨迹",
        "reading the trace of “{scenario}”",
    ),
    "exercise.04-trace.missing": (
        "返回的字典里没有 {field}",
        "the returned dict has no {field}",
    ),
    "exercise.04-trace.mismatch": (
        "「{scenario}」的轨迹：{field} 应为 {expected}，你读出的是 {got}",
        "the trace of “{scenario}”: {field} should be {expected}; yours read {got}",
    ),
    "exercise.04-trace.passed": (
        "三份轨迹都读对了：步数、停止原因、工具和错误码",
        "all three traces read right: steps, stop reason, tools and error codes",
    ),
    "exercise.04-predict-retry.title": (
        "一次 429：重试与不重试（先预测）",
        "One 429: with and without retries (predict first)",
    ),
    "exercise.04-predict-retry.prompt": (
        "**重试也要花钱。** 网关对第一次请求回 HTTP 429，之后正常。同一个分析员跑两次：A 用默认"
        "预算（不重试），B 用 `Budget(max_retries=2, retry_backoff_s=0.01)`。在 "
        "`prediction_retry` 里预测 A 的停止原因，以及 B 的结局、步数和模型请求次数。",
        "**Retries cost money too.** The gateway answers the first request with HTTP 429, "
        "then works. The same analyst runs twice: A with the default budget (no retries), B "
        "with `Budget(max_retries=2, retry_backoff_s=0.01)`. Predict in `prediction_retry` "
        "A's stop reason, and B's outcome, steps and model requests.",
    ),
    "exercise.04-predict-retry.hint": (
        "一步 = 一次成功的决策加上它的工具调用；model_requests 数的是真正发出去的每一次请求。",
        "A step = one decision plus its tool calls; model_requests counts every request "
        "really sent.",
    ),
    "exercise.04-predict-retry.why": (
        "不重试时，一次 429 就让 A 以 model_error 结束（SDK 自己的重试是关掉的，好让计数诚实）。"
        "B 的第 1 步请求失败后退避再试，第二次成功；第 2 步拿到回答：2 步、completed，但模型请求"
        "是 3 次。重试的那一次也花了钱，必须如实计数。",
        "Without retries one 429 ends A with model_error (the SDK's own retries are off, so "
        "the counts stay honest). B's first request fails, it backs off and tries again, "
        "which works; step 2 brings the answer: 2 steps, completed, but 3 model requests. The "
        "retried request cost money too and is counted.",
    ),
    "exercise.04-predict-logic.title": (
        "测试先失败后通过：算工具错误吗？（先预测）",
        "Tests fail, then pass: a tool error? (predict first)",
    ),
    "exercise.04-predict-logic.prompt": (
        '**逻辑错误是正常反馈。** 工具 `run_tests` 第一次返回 `error("TESTS_FAILED", ...)`，'
        "第二次返回 `ok`；模型看到通过后回答。在 `prediction_logic` 里预测结局、工具错误数，"
        "以及第一次结果的错误类别。",
        "**A logic error is normal feedback.** The tool `run_tests` first returns "
        '`error("TESTS_FAILED", ...)`, then `ok`; the model answers once they pass. Predict '
        "in `prediction_logic` the outcome, the tool errors and the class of the first result.",
    ),
    "exercise.04-predict-logic.hint": (
        "TESTS_FAILED 属于哪一类？那一类算不算工具失败？",
        "Which class is TESTS_FAILED in, and does that class count as a tool failure?",
    ),
    "exercise.04-predict-logic.why": (
        "TESTS_FAILED 是逻辑错误：工具好好地工作了，只是任务还没做对。它计入步数，但不算工具失败，"
        "所以 tool_errors=0、结局 completed。把“测试没通过”当成工具故障去重试，是最常见的预算"
        "浪费。",
        "TESTS_FAILED is a logic error: the tool worked fine, the task is just not done yet. "
        "It costs a step but is no tool failure: tool_errors=0, outcome completed. Retrying "
        "“tests failed” as if the tool were broken is the most common way to waste budget.",
    ),
    # chapter 05
    "exercise.kind.read": ("读数据", "read the data"),
    "exercise.05.case.real": ("种子 0 的真实扫描", "the real sweep of seed 0"),
    "exercise.05.case.guarded": (
        "种子 0 加上重复调用守卫的扫描（有的运行在上限之前就被停下）",
        "the sweep of seed 0 with the repeat guard (some runs stopped before the cap)",
    ),
    "exercise.05.case.only_runaways": (
        "只有失控任务的扫描",
        "a sweep of runaway tasks only",
    ),
    "exercise.05.case.two_of_three": (
        "3 个能完成的任务里完成了 2 个的扫描",
        "a sweep where 2 of the 3 tasks that could complete did",
    ),
    "exercise.05.what_measure": (
        "在{case}上算 {name}(results, {cap})",
        "computing {name}(results, {cap}) on {case}",
    ),
    "exercise.05.what_pick": ("在「{case}」上选上限", "picking a cap for “{case}”"),
    "exercise.05.what_robust": ("在 {count} 张表上选上限", "picking a cap over {count} tables"),
    "exercise.05.not_number": (
        "{name} 应返回一个数，你返回的是 {got}",
        "{name} should return a number; it returned {got}",
    ),
    "exercise.05.returned_by": ("{name} 返回的值", "the value {name} returned"),
    "exercise.05.value_of": ("{name} 的值", "the value of {name}"),
    "exercise.05.one_element": (
        "{name}是一个只有一个元素的 {kind}，不是一个数：用 .item() 取出里面的那个数",
        "{name} is a {kind} holding one element, not a number: take the number out with .item()",
    ),
    "exercise.05.many_elements": (
        "{name}是一个有 {size} 个元素的 {kind}，不是一个数：先筛出你要的那一行，"
        "再用 .item() 取出一个数",
        "{name} is a {kind} of {size} elements, not a number: select the one row you need, "
        "then take the number out with .item()",
    ),
    "exercise.05.cap_not_int": (
        "种子 {seed}：上限应是一个正整数，你给的是 {got}。",
        "seed {seed}: a cap is a positive integer; you gave {got}.",
    ),
    "exercise.05.cap_too_small": (
        "种子 {seed}：上限 {cap} 时完成率只有 {rate}，还没达到 {target}，推荐值应该更大。",
        "seed {seed}: at cap {cap} the completion rate is only {rate}, below {target}: the "
        "cap must be larger.",
    ),
    "exercise.05.cap_not_smallest": (
        "种子 {seed}：上限 {smaller} 时完成率已经是 {rate}，达到了 {target}，所以 {cap} 不是最小"
        "的。",
        "seed {seed}: at cap {smaller} the completion rate is already {rate}, reaching "
        "{target}, so {cap} is not the smallest.",
    ),
    "exercise.05-completion-rate.title": ("算完成率", "Compute the completion rate"),
    "exercise.05-completion-rate.prompt": (
        "**完成率只看本来能完成的任务。** `results` 是 `sweep()` 返回的整洁表，每行一次运行"
        "（列有 `cap`、`could_complete`、`outcome`、`steps`……）。写 "
        "`completion_rate(results, cap)`：在上限为 `cap` 的运行里，分母是本来能完成的任务"
        "（`could_complete` 为 True），分子是其中结局为 `completed` 的；一个能完成的任务都没有时"
        "返回 `0.0`。检查会拿它和 `summarize()` 比较。",
        "**The completion rate counts only tasks that could complete.** `results` is the tidy "
        "table `sweep()` returns, one run per row (columns `cap`, `could_complete`, "
        "`outcome`, `steps` ...). Write `completion_rate(results, cap)`: among the runs at "
        "that `cap`, divide those with outcome `completed` by those that could complete "
        "(`could_complete` is True); return `0.0` when none could. The check compares with "
        "`summarize()`.",
    ),
    "exercise.05-completion-rate.hint": (
        '先 results[results["cap"] == cap]，再取 could_complete 为 True 的行，'
        '(able["outcome"] == "completed").mean()。',
        'First results[results["cap"] == cap], then the rows where could_complete is True, '
        'then (able["outcome"] == "completed").mean().',
    ),
    "exercise.05-completion-rate.mismatch": (
        "{case}：上限 {cap} 时完成率应为 {expected}，你算出 {got}",
        "{case}: at cap {cap} the completion rate is {expected}; yours gave {got}",
    ),
    "exercise.05-completion-rate.passed": (
        "每个上限的完成率都和 summarize() 一致，连一个能完成的任务都没有的情况也对",
        "every cap's completion rate matches summarize(), the case with no completable task "
        "included",
    ),
    "exercise.05-wasted-steps.title": ("算浪费的步数", "Compute the wasted steps"),
    "exercise.05-wasted-steps.prompt": (
        "**浪费的步数：没换来任何结果的步。** 写 `wasted_steps(results, cap)`：在上限为 `cap` "
        "的运行里，把结局为 `budget_exhausted` 的那些运行用掉的步数（`steps`）加起来，返回整数。"
        "检查会拿它和 `summarize()` 比较。",
        "**Wasted steps: steps that bought nothing.** Write `wasted_steps(results, cap)`: "
        "among the runs at that `cap`, add up the `steps` of those whose outcome is "
        "`budget_exhausted`, and return an integer. The check compares with `summarize()`.",
    ),
    "exercise.05-wasted-steps.hint": (
        '先选 cap，再选 outcome == "budget_exhausted" 的行，对 steps 求和。'
        "以 tool_error 结束的运行不算浪费：它至少诚实地报告了失败。",
        'Select the cap, then the rows with outcome == "budget_exhausted", and sum steps. '
        "Runs ending in tool_error are not waste: they reported their failure honestly.",
    ),
    "exercise.05-wasted-steps.mismatch": (
        "{case}：上限 {cap} 时浪费的步数应为 {expected}，你算出 {got}",
        "{case}: at cap {cap} the wasted steps are {expected}; yours gave {got}",
    ),
    "exercise.05-wasted-steps.passed": (
        "每个上限浪费的步数都和 summarize() 一致",
        "every cap's wasted steps match summarize()",
    ),
    "exercise.05-pick-cap.title": (
        "从数据里选出最小够用的上限",
        "Pick the smallest cap that is enough",
    ),
    "exercise.05-pick-cap.prompt": (
        "**够用的最小上限。** `summary` 是 `summarize()` 的表，每行一个上限（`cap`），"
        "有 `completion_rate` 列。写 `pick_cap(summary, target)`：返回完成率**达到** `target`"
        "（`>=`）的最小上限；哪个上限都达不到就返回 `None`。不要假设表是按 cap 排好序的。",
        "**The smallest cap that is enough.** `summary` is the table `summarize()` returns, "
        "one row per cap (`cap`), with a `completion_rate` column. Write `pick_cap(summary, "
        "target)`: return the smallest cap whose completion rate **reaches** `target` (`>=`); "
        "return `None` when no cap does. Do not assume the rows are sorted by cap.",
    ),
    "exercise.05-pick-cap.hint": (
        'reached = summary[summary["completion_rate"] >= target]；为空就返回 None，否则 '
        'int(reached["cap"].min())。',
        'reached = summary[summary["completion_rate"] >= target]; None if it is empty, else '
        'int(reached["cap"].min()).',
    ),
    "exercise.05-pick-cap.case.exact": (
        "完成率正好等于目标",
        "a completion rate exactly at the target",
    ),
    "exercise.05-pick-cap.case.lower": ("目标低一些", "a lower target"),
    "exercise.05-pick-cap.case.all": ("目标是 100%", "a target of 100%"),
    "exercise.05-pick-cap.case.reversed": ("行按 cap 倒序排列", "rows in reverse cap order"),
    "exercise.05-pick-cap.case.unreachable": ("目标达不到", "an unreachable target"),
    "exercise.05-pick-cap.mismatch": (
        "「{case}」：目标 {target} 时应为 {expected}，你给出 {got}",
        "“{case}”: for target {target} it should be {expected}; yours gave {got}",
    ),
    "exercise.05-pick-cap.passed": (
        "正好达到目标也算、不依赖行的顺序、达不到时返回 None",
        "reaching the target exactly counts, row order does not matter, None when out of reach",
    ),
    "exercise.05-robust-cap.title": (
        "留余量：每个样本都够用的上限",
        "A margin: a cap that is enough for every sample",
    ),
    "exercise.05-robust-cap.prompt": (
        "**一个样本给出的推荐值会随种子跳动。** 本章的余量这样定：用同一个任务生成器、不同的随机"
        "种子各扫一遍，取在**每个**样本里都能达到目标的最小上限，也就是各个样本推荐值里最大的"
        "那个。写 `robust_cap(summaries, target)`：`summaries` 是几张 `summarize()` 的表；"
        "只要有一张达不到目标，就返回 `None`。",
        "**The cap one sample recommends jumps with the seed.** This chapter's margin: sweep "
        "the same task generator with several seeds and take the smallest cap that reaches "
        "the target in **every** sample, that is the largest of the per-sample caps. Write "
        "`robust_cap(summaries, target)`: `summaries` are several `summarize()` tables; if "
        "any of them never reaches the target, return `None`.",
    ),
    "exercise.05-robust-cap.hint": (
        "对每张表用 pick_cap；有 None 就返回 None；否则取 max。不是 min，也不是平均：平均会让"
        "一部分样本达不到目标。",
        "Apply pick_cap to each table; any None means None; otherwise take the max. Not the "
        "min and not the mean: with the mean some samples miss the target.",
    ),
    "exercise.05-robust-cap.mismatch": (
        "各张表自己的最小上限是 {caps}，应返回 {expected}，你给出 {got}",
        "the tables' own smallest caps are {caps}; it should return {expected}; yours gave {got}",
    ),
    "exercise.05-robust-cap.passed": (
        "取的是每个样本都够用的上限，有样本达不到时返回 None",
        "it takes the cap that is enough for every sample, and None when one never gets there",
    ),
    "exercise.05-predict-seeds.title": (
        "换个种子，推荐值变了吗？（先预测）",
        "Another seed, another cap? (predict first)",
    ),
    "exercise.05-predict-seeds.prompt": (
        "**样本会骗人。** 本章的推荐值来自种子 0：`make_population(30, seed=0)`，上限 1 到 24，"
        "目标完成率 0.95。换成种子 1、2、3，完成率第一次达到 0.95 的最小上限各是多少？先在 "
        "`prediction_seeds` 里猜，再用 `sweep` 和 `summarize` 跑出来。检查会用真实的循环验证"
        "你给的每个上限：它够用，而且比它小 1 就不够。",
        "**Samples mislead.** The chapter's cap comes from seed 0: `make_population(30, "
        "seed=0)`, caps 1 to 24, target completion 0.95. With seeds 1, 2 and 3, what is the "
        "smallest cap that first reaches 0.95? Guess in `prediction_seeds`, then run `sweep` "
        "and `summarize`. The check verifies each cap with the real loop: it is enough, and "
        "one less is not.",
    ),
    "exercise.05-predict-seeds.hint": (
        "每个种子：summary = summarize(sweep(make_population(30, seed=s), range(1, 25)))，"
        "再用你的 pick_cap(summary, 0.95)。",
        "For each seed: summary = summarize(sweep(make_population(30, seed=s), range(1, 25))), "
        "then your pick_cap(summary, 0.95).",
    ),
    "exercise.05-predict-seeds.why": (
        "同一个任务生成器，换个种子就是另一群任务：能完成的任务只有十几个，其中一个长任务"
        "就能让推荐值跳两三步。所以一个样本的结果要留余量，或者取几个样本里最大的那个。",
        " The same generator with another seed is another set of tasks: with only a dozen or "
        "so completable tasks, one long task moves the cap by two or three steps. So leave a "
        "margin on one sample's result, or take the largest over several samples.",
    ),
    "exercise.05-predict-seeds.passed": (
        "三个种子的最小上限是 {caps}：同一个生成器，推荐值随样本跳动，这就是要留余量的原因",
        "the three seeds' smallest caps are {caps}: one generator, and the cap jumps with the "
        "sample, which is why a margin is needed",
    ),
    "exercise.05-read-sweep.title": ("读懂扫描结果", "Read the sweep"),
    "exercise.05-read-sweep.prompt": (
        "**从表里读数，而不是凭印象。** 用本章种子 0 的扫描结果 `summary`，用代码取出三个数填进 "
        "`reading`：上限 8 时的完成率、上限 24 时浪费的步数、完成率第一次达到 0.95 的最小上限。"
        "检查会重新跑需要的那几个上限来核对。",
        "**Read numbers from the table, not from memory.** From the chapter's seed-0 sweep "
        "`summary`, take three numbers with code and put them in `reading`: the completion "
        "rate at cap 8, the wasted steps at cap 24, and the smallest cap whose completion first "
        "reaches 0.95. The check reruns the caps it needs to verify them.",
    ),
    "exercise.05-read-sweep.hint": (
        'row = summary.set_index("cap")；row.loc[8, "completion_rate"]、'
        'row.loc[24, "wasted_steps"]；最小上限用你的 pick_cap。',
        'row = summary.set_index("cap"); row.loc[8, "completion_rate"], '
        'row.loc[24, "wasted_steps"]; the smallest cap with your pick_cap.',
    ),
    "exercise.05-read-sweep.completion": (
        "completion_at_8：上限 8 时的完成率是 {expected}（只算本来能完成的任务），你写的是 {got}",
        "completion_at_8: the completion rate at cap 8 is {expected} (of the tasks that could "
        "complete); you wrote {got}",
    ),
    "exercise.05-read-sweep.wasted": (
        "wasted_at_24：上限 24 时浪费了 {expected} 步，你写的是 {got}",
        "wasted_at_24: {expected} steps are wasted at cap 24; you wrote {got}",
    ),
    "exercise.05-read-sweep.passed": (
        "三个数都读对了：完成率、浪费的步数和最小够用的上限",
        "all three numbers are right: completion, wasted steps and the smallest cap that is enough",
    ),
    # -- doctor: agentlab doctor, checking a set-up --
    "doctor.title": ("agentlab 环境检查", "agentlab set-up check"),
    "doctor.line": ("[{level}] {check}：{message}", "[{level}] {check}: {message}"),
    "doctor.fix": ("怎么办：{fix}", "fix: {fix}"),
    "doctor.level.ok": ("通过", "ok"),
    "doctor.level.warn": ("提醒", "warn"),
    "doctor.level.fail": ("失败", "FAIL"),
    "doctor.check.python": ("Python", "Python"),
    "doctor.check.packages": ("依赖包", "packages"),
    "doctor.check.font": ("中文字体", "CJK font"),
    "doctor.check.env_file": (".env 文件", ".env file"),
    "doctor.check.provider": ("真实模型", "real model"),
    "doctor.check.offline": ("离线开关", "offline switch"),
    "doctor.check.ping": ("连接测试", "test request"),
    "doctor.summary.clean": (
        "一切正常，可以从 notebooks/01_agent_loop.ipynb 开始了",
        "all good: start with notebooks/01_agent_loop.ipynb",
    ),
    "doctor.summary.warn": (
        "没有必须修复的问题；上面有 {n} 条提醒",
        "nothing must be fixed; warnings above: {n}",
    ),
    "doctor.summary.fail": (
        "有 {n} 个问题需要先修复（见每项的“怎么办”）",
        "problems to fix first: {n} (see each fix)",
    ),
    "doctor.and_more": ("，另外还有 {n} 个", ", and {n} more"),
    "doctor.python.old": (
        "Python {version} 太旧：agentlab 需要 3.11 或更新的版本",
        "Python {version} is too old: agentlab needs 3.11 or newer",
    ),
    "doctor.python.old_fix": (
        "安装 Python 3.11 或更新版本，再用它重建环境：make PYTHON=python3.11 lab；"
        "Windows 上 py -3.11 -m venv .venv；或 conda env create -f environment.yml",
        "install Python 3.11 or newer and rebuild the environment with it: "
        "make PYTHON=python3.11 lab; on Windows py -3.11 -m venv .venv; "
        "or conda env create -f environment.yml",
    ),
    "doctor.packages.missing_one": ("{name} 没有安装", "{name} is not installed"),
    "doctor.packages.old_one": (
        "{name} {have}（至少要 {need}）",
        "{name} {have} (needs {need} or newer)",
    ),
    "doctor.packages.broken": (
        "课程需要的包有问题：{problems}",
        "packages the course needs are not right: {problems}",
    ),
    "doctor.packages.differs_one": (
        "{name} {have}（锁定 {want}）",
        "{name} {have} (locked {want})",
    ),
    "doctor.packages.absent_one": (
        "{name} 没有安装（锁定 {want}）",
        "{name} not installed (locked {want})",
    ),
    "doctor.packages.differ": (
        "{n} 个包与 requirements.lock 不一致：{problems}",
        "{n} package(s) differ from requirements.lock: {problems}",
    ),
    "doctor.packages.ok_lock": (
        "{n} 个包的版本都与 requirements.lock 一致",
        "all {n} packages match requirements.lock",
    ),
    "doctor.packages.ok_declared": (
        "agentlab 声明的 {n} 个依赖都已安装（这里没有 requirements.lock，按声明的依赖检查）",
        "the {n} dependencies agentlab declares are installed "
        "(no requirements.lock here: checked against the declared ones)",
    ),
    "doctor.packages.fix_lock": (
        "在仓库目录运行 make lab（按 requirements.lock 重建 .venv）；"
        "不用 make 时：pip install -r requirements.lock，然后 pip install -e .",
        "run make lab in the repository (it rebuilds .venv from requirements.lock); "
        "without make: pip install -r requirements.lock, then pip install -e .",
    ),
    "doctor.packages.fix_wheel": (
        "重新安装课程包，让 pip 补齐依赖：pip install --force-reinstall <课程包的 .whl 文件>"
        "（或你当初安装 agentlab 的那条命令）",
        "reinstall the course package so pip brings the dependencies: "
        "pip install --force-reinstall <the course .whl file> "
        "(or the command you installed it with)",
    ),
    "doctor.font.fix": (
        "pip install --force-reinstall {spec}（字体随 mplfonts 安装，不需要系统字体）",
        "pip install --force-reinstall {spec} "
        "(the font comes with mplfonts, no system font needed)",
    ),
    "doctor.font.no_package": (
        "没有安装 {name}，图表无法显示",
        "{name} is not installed: charts cannot be drawn",
    ),
    "doctor.font.no_file": (
        "找不到中文字体文件 {name}（mplfonts 不完整），图表里的中文会变成方框",
        "the CJK font file {name} is missing (mplfonts is incomplete): "
        "Chinese in charts would show as boxes",
    ),
    "doctor.font.unreadable": (
        "matplotlib 读不了字体 {name}：{error}",
        "matplotlib cannot read the font {name}: {error}",
    ),
    "doctor.font.no_chinese": (
        "字体 {name} 里没有中文字形，图表里的中文会变成方框",
        "the font {name} has no Chinese glyphs: Chinese in charts would show as boxes",
    ),
    "doctor.font.ok": (
        "图表使用 {name}，中文可以正常显示",
        "charts use {name}: Chinese renders",
    ),
    "doctor.env.none": (
        "没有 .env 文件（只用脚本化模型时不需要）",
        "no .env file (not needed with scripted models)",
    ),
    "doctor.env.ok": ("{path} 可以正常读取（{n} 个变量）", "{path} reads fine ({n} variable(s))"),
    "doctor.env.broken": ("{error}（{path}）", "{error} ({path})"),
    "doctor.env.broken_fix": (
        "打开 .env 改正那一行：每行一个 名字=值（例如 DEEPSEEK_MODEL=deepseek-v4-flash）；"
        "值里有空格或 # 时加引号；注释行以 # 开头",
        "open .env and correct that line: one NAME=value per line "
        "(e.g. DEEPSEEK_MODEL=deepseek-v4-flash); quote a value holding spaces or #; "
        "comment lines start with #",
    ),
    "doctor.env.typo": (
        "第 {line} 行的 {name} 不是 agentlab 会读的变量，是不是想写 {suggestion}？",
        "{name} on line {line} is not a variable agentlab reads: did you mean {suggestion}?",
    ),
    "doctor.env.typo_fix": ("把 {name} 改成 {suggestion}", "rename {name} to {suggestion}"),
    "doctor.provider.none": (
        "未配置，笔记本使用脚本化模型，不需要 API Key"
        "（想用真实模型，把 .env.example 复制为 .env 并填好一组设置）",
        "none configured: the notebooks use scripted models and need no key "
        "(for a real model, copy .env.example to .env and fill in one block)",
    ),
    "doctor.provider.ok": (
        "{provider}：服务 {host}，模型 {model}（Key 已设置，不显示）",
        "{provider}: service {host}, model {model} (key set, not shown)",
    ),
    "doctor.provider.broken_fix": (
        "对照 .env.example 补全或改正这一组变量（在 Colab 上也可以放进左侧的“密钥”面板）",
        "complete or correct that block against .env.example "
        "(on Colab the Secrets panel on the left works too)",
    ),
    "doctor.offline": (
        "设置了 AGENTLAB_OFFLINE：笔记本和 agentlab run 不会使用真实模型",
        "AGENTLAB_OFFLINE is set: the notebooks and agentlab run will not use a real model",
    ),
    "doctor.offline_fix": (
        "要用真实模型，先去掉这个环境变量（make test 会自动设置它，那时这是正常的）",
        "to use a real model, unset it (make test sets it on purpose)",
    ),
    "doctor.ping.offline": (
        "设置了 AGENTLAB_OFFLINE，没有发送测试请求",
        "AGENTLAB_OFFLINE is set: no test request sent",
    ),
    "doctor.ping.nothing": (
        "没有配置真实模型，没有可以测试的服务",
        "no real model configured: nothing to send a request to",
    ),
    "doctor.ping.nothing_fix": (
        "先把 .env.example 复制为 .env 并填好一组设置",
        "copy .env.example to .env and fill in one block first",
    ),
    "doctor.ping.ok": (
        "模型 {model} 在 {host} 回答了测试请求（{ms} ms）",
        "model {model} at {host} answered the test request ({ms} ms)",
    ),
    "doctor.ping.timeout": (
        "{seconds} 秒内没有收到 {host} 的回复",
        "no reply from {host} within {seconds} s",
    ),
    "doctor.ping.unreachable": ("连不上 {host}", "cannot connect to {host}"),
    "doctor.ping.unreachable_fix": (
        "检查 {url_var} 是否写对（一般以 /v1 结尾），以及网络或代理是否可用",
        "check {url_var} (it usually ends in /v1) and that the network or proxy works",
    ),
    "doctor.ping.proxy_unreachable_fix": (
        "请求经过代理 {proxies}：先确认代理软件（Clash、V2Ray 等）在运行，"
        "或者在这个终端里取消 {names} 再试；再检查 {url_var} 是否写对（一般以 /v1 结尾）",
        "requests go through the proxy {proxies}: check that the proxy (Clash, V2Ray ...) "
        "is running, or unset {names} in this terminal and try again; then check {url_var} "
        "(it usually ends in /v1)",
    ),
    "doctor.ping.ollama_fix": (
        "先在终端运行 ollama serve，并用 ollama pull 下载模型；地址不是默认值时设置 {url_var}",
        "start ollama serve in a terminal and ollama pull the model; "
        "set {url_var} if it is not the default address",
    ),
    "doctor.ping.key": (
        "{host} 拒绝了这个 Key（HTTP {status}）",
        "{host} refused the key (HTTP {status})",
    ),
    "doctor.ping.key_fix": (
        "检查 {name}：是否完整复制、是否属于这个服务（DashScope 的 Key 还要和地域、工作空间对应），"
        "是否已过期或停用",
        "check {name}: copied whole, belongs to this service (a DashScope key also to its "
        "region and workspace), not expired or disabled",
    ),
    "doctor.ping.not_found": (
        "服务找不到模型 {model}（HTTP 404）",
        "the service does not know the model {model} (HTTP 404)",
    ),
    "doctor.ping.not_found_fix": (
        "检查 {model_var} 是不是这个服务提供的模型名，以及 {url_var} 是否是兼容 OpenAI 的地址"
        "（例如以 /v1 或 compatible-mode/v1 结尾）",
        "check that {model_var} names a model this service offers and that {url_var} is its "
        "OpenAI-compatible address (ending in /v1 or compatible-mode/v1, for example)",
    ),
    "doctor.ping.rate_limited_fix": (
        "服务能连通，Key 也被接受，只是请求太多或额度用完：稍等再试，或检查账户余额",
        "the service is reachable and took the key, but is rate-limiting or out of quota: "
        "wait and retry, or check the account balance",
    ),
    "doctor.ping.rejected_fix": (
        "服务能连通，Key 也被接受，但拒绝了这个测试请求；"
        "运行一个笔记本的真实模型单元格看完整的报错",
        "the service is reachable and took the key but refused this test request; "
        "run a notebook's real-model cell to see the full error",
    ),
    "doctor.ping.not_api_fix": (
        "检查 .env 里的 {url_var}：它要指向服务的 OpenAI 兼容接口（通常以 /v1 结尾）",
        "check {url_var} in .env: it must point at the service's OpenAI-compatible API "
        "(usually ending in /v1)",
    ),
    "doctor.ping.status_fix": (
        "看上面服务返回的说明；多半是服务暂时不可用，稍后用 agentlab doctor --ping 再试",
        "read the service's explanation above; it is often a passing outage: "
        "retry later with agentlab doctor --ping",
    ),
    "doctor.help": (
        "检查 Python、依赖包、中文字体、.env 和模型设置，告诉你怎么修",
        "check Python, packages, the CJK font, .env and the model settings, and say what to fix",
    ),
    "doctor.ping_help": (
        "再向配置好的模型发一个极小的测试请求（只消耗极少的 token）",
        "also send one tiny test request to the configured model (costs a token or two)",
    ),
    # -- providers --
    "provider.json_for_stream": (
        "请求的是流式回复，模型服务却一次性返回了 JSON："
        "已按普通回复读取（文字一次性显示，不会逐字出现）",
        "a streamed reply was asked for, but the model service sent one JSON document: read "
        "as a plain reply (its text was shown at once, not as it streamed)",
    ),
    "provider.sse_for_plain": (
        "请求的是普通回复，模型服务却按流式（SSE）格式返回：已按它实际的格式读取",
        "a plain reply was asked for, but the model service sent it framed as a stream (SSE): "
        "read as it came",
    ),
    "provider.legacy_function_call": (
        "模型用的是已弃用的 function_call 格式（不是 tool_calls）：按一个工具调用处理",
        "the model answered with the deprecated function_call (not tool_calls); read as one "
        "tool call",
    ),
    "provider.cut_off_calls": (
        "回复在工具调用参数写到一半时被截断（finish_reason=length）：其中的工具调用一个也没有执行"
        "（共 {n} 个），以免执行不完整的指令；请调大模型的输出上限或缩短上下文",
        "the reply was cut off inside its tool call arguments (finish_reason=length): no tool "
        "call from it was run ({n} in the reply), so no half-written instruction is carried out; "
        "raise the model's output limit or shorten the context",
    ),
    "replay.diverged": (
        "回放的第 {number} 个请求与录制时不同：{where} 录制时是 {recorded}，这次是 {replayed}",
        "request {number} of the replay differs from the recording at {where}: recorded "
        "{recorded}, now {replayed}",
    ),
    "replay.absent": ("（没有）", "(absent)"),
    "replay.ran_out": (
        "回放的第 {number} 个请求超出了录制：录制里只有 {count} 个请求",
        "request {number} of the replay goes beyond the recording, which holds {count} requests",
    ),
    "replay.recorded_error": (
        "录制时第 {number} 个请求就没有得到回复（{error}）",
        "request {number} got no reply when it was recorded ({error})",
    ),
    "replay.bad_file": (
        "无法读取录制文件 {path}：{reason}",
        "cannot read the recording {path}: {reason}",
    ),
    "replay.not_a_recording": (
        "{path} 不是 agentlab 的录制文件（缺少 format: {format} 或 exchanges）",
        "{path} is not an agentlab recording (no format: {format} or no exchanges)",
    ),
    "replay.cli_record": (
        "把这次运行的每个模型请求和回复录制到 FILE（不含 API Key），之后可以用 --replay 离线回放",
        "record every model request and reply of this run to FILE (no API key), to replay "
        "offline later with --replay",
    ),
    "replay.cli_replay": (
        "不用 Key、不联网，回放 FILE 里录制的运行（问题、模型和工具默认与录制时相同）",
        "replay the run recorded in FILE, keyless and offline (question, model and tools "
        "default to the recorded ones)",
    ),
    "cli.trace_at": (
        "运行轨迹：{path}（用 agentlab trace {path} 生成网页）",
        "run trace: {path} (agentlab trace {path} makes a web page of it)",
    ),
    "replay.cli_recording_to": (
        "正在把这次运行录制到 {path}（不含 API Key）",
        "recording this run to {path} (no API key in it)",
    ),
    "replay.cli_replaying": (
        "正在回放录制 {path}（{provider}，模型 {model}）：不需要 Key，也不联网",
        "replaying the recording {path} ({provider}, model {model}): no key, no network",
    ),
    "replay.cli_matched": (
        "回放与录制一致：每个请求（共 {n} 个）都和录制时相同",
        "the replay matched the recording: every request ({n} in all) was the same",
    ),
    "replay.cli_need_question": (
        "缺少参数 question：请给出问题，或者用 --replay FILE 回放一个录制",
        "the argument question is missing: give one, or replay a recording with --replay FILE",
    ),
    "replay.cli_record_and_replay": (
        "--record 和 --replay 不能同时使用",
        "--record and --replay cannot be used together",
    ),
    "replay.cli_scripted_and_replay": (
        "--scripted 和 --replay 不能同时使用：回放时回答来自录制文件",
        "--scripted and --replay cannot be used together: a replay answers from the recording",
    ),
    # -- otel --
    "otel.missing": (
        "导出 OpenTelemetry span 需要可选依赖（缺少 {module}）："
        "请运行 pip install 'agentlab[otel]'",
        "Exporting OpenTelemetry spans needs the optional extra (missing {module}): "
        "pip install 'agentlab[otel]'",
    ),
    "otel.bad_source": (
        "export_trace 需要轨迹事件列表、trace.jsonl 的路径或 RunResult，收到的是 {kind}",
        "export_trace needs a list of trace events, the path of a trace.jsonl or a RunResult, "
        "not {kind}",
    ),
    "otel.no_trace": (
        "运行 {task_id} 既没有内存里的轨迹事件，也没有轨迹文件，无法导出",
        "run {task_id} has neither trace events in memory nor a trace file: nothing to export",
    ),
    # -- explorer --
    "explorer.title": (
        "拖动滑块，看步数上限 max_steps 怎样改变结局和浪费",
        "Move the slider: how the step cap max_steps changes outcomes and waste",
    ),
    "explorer.slider": ("步数上限 max_steps", "step cap max_steps"),
    "explorer.mix_title": ("各结局占比，步数上限 =", "Outcome mix at step cap ="),
    "explorer.curve_title": (
        "完成率（● 圆点）与预算耗尽的运行浪费的步数（■ 方块），虚线为当前上限",
        "Completion rate (● dots) and steps wasted by exhausted runs (■ squares); dashed: the cap",
    ),
    "explorer.share_axis": ("运行占比", "share of runs"),
    "explorer.cap_axis": ("步数上限 max_steps", "step cap max_steps"),
    "explorer.rate_axis": (
        "完成率（能完成的任务中）",
        "completion rate (of tasks that can finish)",
    ),
    "explorer.waste_axis": ("浪费的步数", "wasted steps"),
    "explorer.readout_rate": ("完成率", "completion"),
    "explorer.readout_waste": ("浪费步数", "wasted steps"),
    "explorer.outcome_tip": ("结局", "outcome"),
    "explorer.runs_tip": ("运行次数", "runs"),
    "explorer.text": (
        "步数上限探索器：一张带滑块的 Vega-Lite 图（在 JupyterLab 或支持 Vega-Lite 的页面里显示）",
        "Step-cap explorer: a Vega-Lite chart with a slider (shown by JupyterLab or any page "
        "that renders Vega-Lite)",
    ),
    "explorer.empty": (
        "没有扫描结果：先用 experiments.sweep() 跑一遍",
        "no sweep results: run experiments.sweep() first",
    ),
    "explorer.bad_cap": (
        "初始上限 {cap} 不在扫描过的上限里（{low} 到 {high}）",
        "initial cap {cap} is not one of the swept caps ({low} to {high})",
    ),
    # -- display --
    "display.title": ("运行记录", "Run record"),
    "display.viewer_title": ("运行轨迹：{name}", "Run trace: {name}"),
    "display.viewer_note": (
        "由 agentlab trace 从 JSONL 运行轨迹生成；离线可读，不含脚本。",
        "Made by agentlab trace from a JSONL run trace; readable offline, no scripts.",
    ),
    "display.field.status": ("运行状态", "run status"),
    "display.field.outcome": ("结局", "outcome"),
    "display.field.stop_reason": ("停止原因", "stop reason"),
    "display.field.phase": ("截止时所在阶段", "phase at the deadline"),
    "display.count.steps": ("步数", "steps"),
    "display.count.model_requests": ("模型请求", "model requests"),
    "display.count.tool_calls": ("工具调用", "tool calls"),
    "display.count.tool_errors": ("工具错误", "tool errors"),
    "display.count.tokens": ("token", "tokens"),
    "display.count.elapsed": ("用时", "elapsed"),
    "display.task": ("任务", "Task"),
    "display.model": ("模型", "model"),
    "display.answer": ("最终回答", "Final answer"),
    "display.no_answer": ("没有最终回答", "no final answer"),
    "display.answer_not_recorded": (
        "这个轨迹没有记录最终回答（较早的轨迹格式）",
        "this trace does not record the final answer (an older trace format)",
    ),
    "display.partial_answer": ("阶段性总结", "Partial answer"),
    "display.system_prompt": ("系统提示词", "System prompt"),
    "display.conversation": ("逐步过程", "Step by step"),
    "display.step": ("第 {n} 步", "Step {n}"),
    "display.assistant": ("模型", "Model"),
    "display.user": ("用户", "User"),
    "display.reasoning": ("思考过程", "Reasoning"),
    "display.no_reply": ("这一步没有得到模型的回复。", "This step got no reply from the model."),
    "display.empty_reply": ("（模型的回复是空的）", "(the reply was empty)"),
    "display.call": ("工具调用", "tool call"),
    "display.arguments": ("参数", "arguments"),
    "display.no_arguments": ("无参数", "no arguments"),
    "display.invalid_json": (
        "参数不是能读的 JSON（不合法或嵌套太深），按原文显示",
        "the arguments are not readable JSON (invalid or nested too deep): shown as sent",
    ),
    "display.result": ("工具结果", "tool result"),
    "display.error_message": ("错误信息", "error"),
    "display.source": ("来源", "source"),
    "display.fold": ("展开全部 {n} 个字符", "show all {n} characters"),
    "display.truncated": (
        "已截断：删去 {n} 个字符，模型只看到了开头、关键行和结尾",
        "truncated: {n} characters removed; the model saw the head, key lines and tail",
    ),
    "display.saved_to": ("完整输出保存在 {path}", "full output saved to {path}"),
    "display.no_result_content": (
        "这个轨迹没有记录模型收到的工具结果内容",
        "this trace did not record the tool result the model received",
    ),
    "display.process": ("子进程退出码 {exitcode}", "child process exit code {exitcode}"),
    "display.process_killed": ("子进程已被杀死（{how}）", "child process killed ({how})"),
    "display.guard.REPEATED_CALL": (
        "守卫拒绝：重复调用，这次没有执行，模型收到了换个做法的提示",
        "refused by a guard: a repeated call, not run; the model was told to change strategy",
    ),
    "display.guard.TOO_MANY_CALLS": (
        "守卫拒绝：超过每轮工具调用数上限，这次没有执行",
        "refused by a guard: over the calls-per-turn limit, not run",
    ),
    "display.guard.NOT_RUN": (
        "运行已经停止，这次调用没有执行",
        "the run had stopped: this call was not run",
    ),
    "display.refused_by": ("决定者：{guard}", "decided by {guard}"),
    "display.decide_error": (
        "模型请求失败（第 {attempt} 次尝试，{error_class}）：{message}",
        "model request failed (attempt {attempt}, {error_class}): {message}",
    ),
    "display.decide_timeout": (
        "模型没有在截止时间前回答（第 {attempt} 次尝试）",
        "the model did not answer before the deadline (attempt {attempt})",
    ),
    "display.check": ("完成检查", "completion check"),
    "display.warning": ("警告", "warning"),
    "display.end": ("结束", "End"),
    "display.stopped_at": ("运行在第 {step} 步后结束", "the run ended after step {step}"),
    "display.colon": ("：", ": "),
    "display.deadline_phase": (
        "截止时间到达时所在的阶段：{phase}",
        "phase when the deadline passed: {phase}",
    ),
    "display.warnings": ("运行结束时的警告", "Warnings at the end"),
    "display.timeline": ("阶段时间线", "Phase timeline"),
    "display.timeline_note": (
        "每一行是一步，条的长短是这一阶段用掉的时间（同一个时间轴）",
        "one row per step; bar length is the time a phase used (one shared time axis)",
    ),
    "display.deadline": ("截止时间 {seconds} s", "deadline {seconds} s"),
    "display.deadline_far": (
        "截止时间 {seconds} s，远在这张图的右边之外",
        "deadline {seconds} s, far to the right of this chart",
    ),
    "display.no_timeline": ("没有轨迹事件，画不出时间线", "no trace events: no timeline"),
    "display.events": ("完整事件列表", "All events"),
    "display.col.t": ("时间", "time"),
    "display.col.event": ("事件", "event"),
    "display.col.step": ("步", "step"),
    "display.col.status": ("状态", "status"),
    "display.col.detail": ("详情", "detail"),
    "display.no_stop": (
        "轨迹里没有 stop 事件：运行没有结束，或者文件不完整",
        "the trace has no stop event: the run did not finish, or the file is incomplete",
    ),
    "display.status.refused": ("被守卫拒绝", "refused by a guard"),
    "display.status.not_run": ("没有执行", "not run"),
    "display.status.done": ("已完成", "done"),
    "display.status.not_done": ("还没完成", "not done"),
    "display.status.timeout": ("超时", "timed out"),
    "display.wrap_up": (
        "预算即将用完（{reason}：{meaning}）：这是留出的最后一步，不再提供工具，只请模型总结已有的结果",
        "the budget was about to run out ({reason}: {meaning}): this is the reserved last step, "
        "with no tools on offer, asking the model to sum up what it has",
    ),
    "display.cli.help": (
        "把一次运行的轨迹（JSONL）写成一个 HTML 页面",
        "write a run trace (JSONL) as one HTML page",
    ),
    "display.cli.file": (
        "轨迹文件，例如 runs/<task_id>/trace.jsonl",
        "a trace file, e.g. runs/<task_id>/trace.jsonl",
    ),
    "display.cli.out": (
        "写到哪个 HTML 文件（默认：FILE 改成 .html）",
        "the HTML file to write (default: FILE with .html)",
    ),
    "display.cli.cannot_read": ("读不了 {path!r}：{reason}", "cannot read {path!r}: {reason}"),
    "display.cli.not_a_trace": ("{path!r} 不是运行轨迹", "{path!r} is not a run trace"),
    "display.cli.cannot_write": ("写不了 {path!r}：{reason}", "cannot write {path!r}: {reason}"),
    "replay.no_transcript": (
        "课程的服务商语料里没有 {name}（见 agentlab/data/providers）",
        "the course's provider corpus has no {name} (see agentlab/data/providers)",
    ),
    "cli.exercises.help": (
        "练习：list 列出所有练习，verify 检验每个练习的检查",
        "exercises: list prints them, verify checks every check",
    ),
    "exercise.cli.list": ("列出所有练习", "print every exercise"),
    "exercise.cli.verify": (
        "用参考答案、起始代码和错误答案检验每个练习的检查",
        "check every check against its reference, starter and wrong answers",
    ),
    "exercise.cli.chapter": ("只看这一章（01..05）", "only this chapter (01..05)"),
    "exercise.cli.verbose": ("打印每一次判定", "print every verdict"),
    # -- secrets: the API key never kept (review 9) --
    "secret.reply_not_kept": (
        "录制时没有保存这条回复：流式分片拼起来含有 API Key，无法只涂掉 Key",
        "this reply was not kept when recording: its stream chunks, joined, hold the API key, "
        "which could not be blanked out on its own",
    ),
    # -- clients/real.py and doctor.py: proxies, secrets in the URL, .env encodings --
    "envcheck.proxy_unusable": (
        "代理设置用不了：{proxies}"
        "（只支持 http://、https://、socks5:// 或 socks5h:// 加 主机:端口）；"
        "改正它，或者在这个终端里取消 {names}"
        "（bash：unset 变量名；PowerShell：Remove-Item Env:变量名）",
        "the proxy setting cannot be used: {proxies} (supported: http://, https://, socks5:// or "
        "socks5h:// followed by host:port); fix it, or unset {names} in this terminal "
        "(bash: unset NAME; PowerShell: Remove-Item Env:NAME)",
    ),
    "envcheck.proxy_no_socksio": (
        "{proxies} 是 SOCKS 代理，需要 socksio 包，但它没有安装："
        "运行 pip install -r requirements.lock（或 pip install socksio）；"
        "不需要这个代理时，在这个终端里取消 {names}",
        "{proxies} is a SOCKS proxy, which needs the socksio package, and it is not installed: "
        "run pip install -r requirements.lock (or pip install socksio); or, if you do not need "
        "the proxy, unset {names} in this terminal",
    ),
    "envcheck.client_failed": (
        "无法建立访问模型的 HTTP 客户端（{error}）：检查 base_url 的写法和系统的代理设置",
        "cannot build the HTTP client for the model ({error}): check how base_url is written "
        "and the system's proxy settings",
    ),
    "envcheck.doctor.check_proxy": ("代理", "proxy"),
    "envcheck.doctor.proxy_ok": (
        "请求真实模型时经过代理 {proxies}",
        "requests to a real model go through the proxy {proxies}",
    ),
    "envcheck.doctor.proxy_fix": (
        "改正代理地址（Clash、V2Ray 一般是 socks5://127.0.0.1:7890 或 http://127.0.0.1:7890），"
        "或者在这个终端里取消 {names} 再运行",
        "correct the proxy address (Clash and V2Ray usually listen on socks5://127.0.0.1:7890 or "
        "http://127.0.0.1:7890), or unset {names} in this terminal and run again",
    ),
    "envcheck.doctor.ping_skipped": (
        "代理设置用不了，没有发送测试请求",
        "the proxy setting cannot be used: no test request sent",
    ),
    "envcheck.doctor.ping_skipped_fix": (
        "先按上面“代理”一行改正，再运行 agentlab doctor --ping",
        "fix the proxy as the line above says, then run agentlab doctor --ping again",
    ),
    "envcheck.url_query": (
        "{name} 里不能有 ? 或 # 之后的部分（查询参数、片段）："
        "SDK 会把 /chat/completions 接在它后面，这样的地址永远用不了。"
        "Key 放进自己的 *_API_KEY 变量，{name} 只写到路径为止"
        "（例如 https://api.deepseek.com/v1）",
        "{name} must not have a query (?...) or a fragment (#...): the SDK appends "
        "/chat/completions after it, so such an address never works. Put the key in its own "
        "*_API_KEY variable and write {name} up to its path only (e.g. https://api.deepseek.com/v1)",
    ),
    "envcheck.url_userinfo": (
        "{name} 里不能有 user:password@：SDK 会把它当作 HTTP Basic 认证发出去，顶替掉 {key}，"
        "服务就收不到 Key。去掉 @ 之前的部分，Key 放进 {key}",
        "{name} must not hold user:password@: the SDK sends it as HTTP Basic authentication in "
        "place of {key}, so the service never gets the key. Drop the part before the @ and put "
        "the key in {key}",
    ),
    "envcheck.env_nul": (
        "{name} 第 {line} 行有一个空字节（NUL，\\x00），这不是普通的文本：用编辑器把它另存为 UTF-8",
        "{name} line {line} holds a NUL byte (\\x00), which plain text never does: save it "
        "again as UTF-8 in an editor",
    ),
    # -- providers: replies read from text (request.py, failures.py) --
    "provider.stream_mislabelled": (
        "请求的是流式回复，模型服务也按流式（SSE）发送了，却把 content-type 标成了别的格式："
        "已整体读取（文字一次性显示，不会逐字出现）",
        "a streamed reply was asked for and the model service sent a stream (SSE), but "
        "labelled it with another content-type: read whole (its text was shown at once, not "
        "as it streamed)",
    ),
    "provider.json_too_deep": ("JSON 嵌套太深，无法读取", "JSON nested too deep to read"),
    # -- exercises: what students tried (the attempts review) --
    "exercise.02-capped-loop.ending_not_str": (
        "场景「{scenario}」：ending 应是字符串 'answered' 或 'max_steps'，说明循环是怎么结束的；"
        "你返回了 {got}（{kind}）",
        "scenario “{scenario}”: ending should be the string 'answered' or 'max_steps', saying "
        "how the loop ended; you returned {got} ({kind})",
    ),
    "exercise.03-no-progress.not_bool": (
        "序列 {sequence}：第 {step} 步 after_step 返回了 {got}：应返回 True（该停了）"
        "或 False（继续）。if 只看真假：'continue' 这样的字符串也算“真”，None 永远算“假”",
        "sequence {sequence}: at step {step} after_step returned {got}; it should return "
        "True (stop now) or False (go on). An if only sees true or false: a string such as "
        "'continue' counts as true, None always as false",
    ),
    "exercise.03-no-progress.class_state": (
        "NoProgress.{name} 是类属性：所有计数器共用同一个 {name}，新的计数器一开始就带着"
        "别的计数器见过的指纹。在 __init__ 里为每个计数器新建它：self.{name} = …",
        "NoProgress.{name} is kept on the class: every counter shares one {name}, so a new "
        "counter starts with the fingerprints other counters saw. Make a new one for each "
        "counter in __init__: self.{name} = …",
    ),
    "exercise.03-deadline.left_no_clock": (
        "left() 没有读 self.clock()：检查把假时钟往前拨了，left() 却看不到时间在走。"
        "剩余时间要在 left() 里用 self.clock() 现读现算",
        "left() never reads self.clock(): the check moved the fake clock on, and left() "
        "cannot see time pass. Work out the time left inside left(), reading self.clock()",
    ),
    "exercise.05.case.answered_after_error": (
        "一个能完成的任务在工具出错后直接回答（停止原因 answered，结局 tool_error）、"
        "一次运行重试过模型请求的扫描",
        "a sweep where a task that could complete answered right after a tool error (stop "
        "reason answered, outcome tool_error) and one run retried a model request",
    ),
    "exercise.loop.no_tools_later": (
        "第 {n} 次请求没有带 tools=tools.schemas()：这一次模型看不到工具，也就没法再要工具。"
        "每一次请求都要带上 tools",
        "request {n} did not pass tools=tools.schemas(): this time the model sees no tools, so "
        "it cannot ask for one. Pass tools with every request",
    ),
    "exercise.loop.arguments_not_str": (
        "第 {n} 次请求的历史里，tool_call {id} 的 function.arguments 是 {kind}：应是模型发来的"
        "那段 JSON 文本，原样放回（兼容 OpenAI 的服务收到别的类型会返回 400）",
        "in the history of request {n}, tool_call {id} has function.arguments as a {kind}; it "
        "must be the JSON text the model sent, put back as it came (OpenAI-compatible services "
        "answer 400 to anything else)",
    ),
    "exercise.loop.return_pair": (
        "{name} 应只返回 messages 列表，你返回的是一对（messages, {got}）：报告结局是第 2 章 "
        "capped_loop 的事",
        "{name} should return the list of messages alone; it returned a pair (messages, {got}): "
        "reporting the ending is chapter 02's capped_loop",
    ),
    "exercise.01-append-text.wrote_in_cwd": (
        "沙盒里的 meeting.md 没有变，你的工具却在当前目录下写了一个 meeting.md：rel_path 是"
        "相对于沙盒 box 的路径，不是相对于笔记本所在的目录。先用 resolve_inside(box, rel_path) "
        "得到沙盒里的路径，再打开它",
        "meeting.md in the sandbox did not change, yet your tool wrote a meeting.md in the "
        "current folder: rel_path is relative to the sandbox box, not to the notebook's folder. "
        "Get the path inside the sandbox with resolve_inside(box, rel_path) first, then open it",
    ),
    "exercise.03-deadline.none_left_ran": (
        "截止时间已过，run() 却把工作一直跑完了，没有任何时间限制"
        "（left() 为 0 时变成了“不限时”？）。"
        "没有剩余时间时 run() 应抛出 TimedOut（run_within 拿到 0 秒时就会这样做）",
        "the deadline had passed, yet run() ran the work to the end with no limit at all (did "
        "0 s left become 'no limit'?). With no time left run() should raise TimedOut "
        "(run_within does when given 0 s)",
    ),
    "exercise.03-deadline.none_left_skipped": (
        "截止时间已过，run() 返回了 None、没有运行工作：调用方会以为这一阶段正常结束了。"
        "没有剩余时间时 run() 应抛出 TimedOut（run_within 拿到 0 秒时就会这样做）",
        "the deadline had passed and run() returned None without running the work: the caller "
        "will take the phase for finished. With no time left run() should raise TimedOut "
        "(run_within does when given 0 s)",
    ),
    "exercise.03-deadline.other_timeout": (
        "时间到了，run() 抛出的是 TimeoutError，不是 TimedOut：循环只接 TimedOut。run() 应抛出 "
        "TimedOut，用 run_within 运行工作，让它的 TimedOut 原样抛出去",
        "time ran out and run() raised a TimeoutError, not TimedOut: the loop only catches "
        "TimedOut. run() should raise TimedOut: run the work with run_within and let its "
        "TimedOut propagate",
    ),
    "exercise.01-history.client_unused": (
        "任务「{task}」：传进来的 client 一次也没有被请求。用参数里的这个 client 跑 run_agent，"
        "它的 client.requests 才会记下每一次请求",
        "the task “{task}”: the client passed in was never asked. Run run_agent with this "
        "client, the parameter: only its client.requests records each request",
    ),
    "exercise.01-fragments.nested": (
        '第 {n} 组：拼好的调用要把 "id"、"name"、"arguments" 放在字典的最外层，'
        '不用放回历史时那种 {{"function": {{...}}}} 嵌套',
        'set {n}: each joined call keeps "id", "name" and "arguments" at the top level of '
        'its dict, not nested in {{"function": {{...}}}} as in the history',
    ),
    # -- tinker: caller slips an instructor makes live (loop.py, registry.py, files.py) --
    "loop.bad_budget": (
        "budget 必须是一个 Budget（例如 Budget(max_steps=4)），收到的是 {type}",
        "budget must be a Budget (e.g. Budget(max_steps=4)), not {type}",
    ),
    "loop.bad_client": (
        'client 必须是一个 openai.OpenAI 客户端（例如 scripted("honest_analyst")），'
        "收到的是 {type}",
        'client must be an openai.OpenAI client (e.g. scripted("honest_analyst")), not {type}',
    ),
    "loop.bad_done_when": (
        "done_when 必须是一个函数：收到回答，返回 True、False 或一句说明还缺什么的话；"
        "收到的是 {type}",
        "done_when must be a function: given the answer, it returns True, False or a sentence "
        "saying what is missing; got {type}",
    ),
    "loop.task_not_text": (
        "任务应是一段文字（str），收到的是 {type}：没有发出任何请求",
        "the task should be text (str), got {type}: no request was made",
    ),
    "registry.arguments_not_text": (
        "参数应是 JSON 文本（str），收到的是 {type}；"
        "手动调用时请写成 tools.call(名字, json.dumps(参数, ensure_ascii=False))",
        "arguments should be JSON text (str), got {type}; when calling by hand, write "
        "tools.call(name, json.dumps(arguments))",
    ),
    "experiments.caps_not_a_list": (
        "caps 应是要试的一串上限（例如 range(1, 25) 或 [4, 8, 12]），收到的是 {type}",
        "caps should be the caps to try (e.g. range(1, 25) or [4, 8, 12]), got {type}",
    ),
    "experiments.bad_target": (
        "target 是目标完成率，应在 0 到 1 之间（例如 0.95 表示 95%），收到的是 {target!r}",
        "target is the completion rate to reach, between 0 and 1 (e.g. 0.95 for 95%), "
        "got {target!r}",
    ),
    "experiments.no_caps": (
        "没有可用的上限：caps 是空的（例如 bootstrap_caps 的 draws=0）",
        "no caps to read: the list is empty (e.g. bootstrap_caps with draws=0)",
    ),
    "report.runs_not_a_dict": (
        "runs 应是一个字典 {{名字: RunResult}}（名字就是表格和图里的标签），收到的是 {type}",
        "runs should be a dict {{name: RunResult}} (the names label the table and the chart), "
        "got {type}",
    ),
    "loop.bad_trace_dir": (
        "trace_dir 应是一个文件夹路径、None（默认：$AGENTLAB_RUNS_DIR 或 runs/）或 False"
        "（不写轨迹文件），收到的是 {value!r}",
        "trace_dir should be a folder path, None (the default: $AGENTLAB_RUNS_DIR or runs/) "
        "or False (no trace file), got {value!r}",
    ),
    "experiments.bad_budget": (
        "budget 应是一个函数：收到上限 cap，返回一个 Budget（例如 with_repeat_guard，"
        "或 lambda cap: Budget(max_steps=cap, max_seconds=5)）；这里得到的是 {type}",
        "budget should be a function: given a cap, it returns a Budget (e.g. "
        "with_repeat_guard, or lambda cap: Budget(max_steps=cap, max_seconds=5)); got {type}",
    ),
    "registry.bad_tool_name": (
        "工具名 {name!r} 只能由英文字母、数字、下划线和连字符组成（1–64 个字符）："
        "模型服务会拒绝中文、空格或点号（HTTP 400）；说明可以用中文写在 description 里",
        "tool name {name!r} may hold only letters, digits, underscores and hyphens (1-64 "
        "characters): model services refuse other names (HTTP 400); describe it in any "
        "language in the description",
    ),
    "registry.not_callable": (
        "工具 {name} 的 function 必须是一个可以调用的函数，收到的是 {type}",
        "the function of tool {name} must be something to call, got {type}",
    ),
    "registry.not_a_list": (
        "ToolRegistry 要的是一串 Tool（一个列表），收到的是 {type}：写成 ToolRegistry([tool])，"
        "多个工具就是 ToolRegistry([tool1, tool2])",
        "a ToolRegistry takes a list of Tool objects, not a {type}: write ToolRegistry([tool]), "
        "or ToolRegistry([tool1, tool2]) for more",
    ),
    "registry.not_a_tool": (
        "ToolRegistry 里只能放 Tool（例如 ToolRegistry([Tool(名字, 说明, schema, 函数)])），"
        "收到的是 {type}",
        "a ToolRegistry holds Tool objects (e.g. ToolRegistry([Tool(name, description, "
        "schema, function)])), got {type}",
    ),
    "scripted.bad_status": (
        "HttpError 的 status 应是 400 到 599 之间的 HTTP 错误码（例如 429、500），"
        "收到的是 {status!r}",
        "HttpError's status should be an HTTP error code from 400 to 599 (e.g. 429, 500), "
        "got {status!r}",
    ),
    "scripted.bad_hang": (
        "Hang 的 seconds 应是不小于 0 的有限秒数，收到的是 {seconds!r}",
        "Hang's seconds should be a finite number of seconds, at least 0, got {seconds!r}",
    ),
    "cli.record_no_folder": (
        "--record {path!r}：它所在的文件夹不存在，先建好文件夹再录制",
        "--record {path!r}: its folder does not exist; make the folder first",
    ),
    "cli.record_is_folder": (
        "--record {path!r} 是一个文件夹：请给出录制文件的名字，例如 {path}/demo.json",
        "--record {path!r} is a folder: name the recording file, e.g. {path}/demo.json",
    ),
    "cli.interrupted": (
        "{prog}：已中断（Ctrl-C），没有运行完，最后的结果没有打印",
        "{prog}: interrupted (Ctrl-C) before it finished; its final result was not printed",
    ),
    "cli.out_unwritable": (
        "--out {path!r} 建不起来：{error}",
        "--out {path!r} cannot be made: {error}",
    ),
    "faults.bad_seconds": (
        "{name} 应是不小于 0 的有限秒数（例如 600），收到的是 {value!r}",
        "{name} should be a finite number of seconds, at least 0 (e.g. 600), got {value!r}",
    ),
    "loop.bad_model": (
        'model 应是模型的名字（例如 settings.model 或 "deepseek-v4-flash"），收到的是 {value!r}',
        'model should be the model\'s name (e.g. settings.model or "deepseek-v4-flash"), got '
        "{value!r}",
    ),
    "loop.bad_system_prompt": (
        "system_prompt 应是一段文字（可以是空字符串），收到的是 {type}",
        "system_prompt should be text (an empty string will do), got {type}",
    ),
    # ==== providers as they answer today (new keys of one change, kept together so
    # they can move to the TOML catalog as one block) ====
    "provider.calls_from_text": (
        "模型把 {n} 个工具调用写进了回复文字（服务没有把它们转成 tool_calls），已按调用读出并执行。"
        "这说明服务端没有开启工具调用解析：vLLM 要加 --enable-auto-tool-choice 和 "
        "--tool-call-parser，Ollama 要换一个模板支持工具的模型",
        "the model wrote {n} tool call(s) into its text (the service did not turn them into "
        "tool_calls); read and run as calls. The server does not parse tool calls: start vLLM "
        "with --enable-auto-tool-choice and --tool-call-parser, or use an Ollama model whose "
        "template supports tools",
    ),
    "provider.refused": (
        "模型拒绝了这个请求：“{text}”。换一种说法或检查任务内容；原样重试也会被拒绝",
        'the model declined the request: "{text}". Rephrase it or check the task; the same '
        "request would be declined again",
    ),
    "provider.malformed_call": (
        "模型想调用工具，却没能写出合法的调用（finish_reason={reason}），回复里既没有调用也没有回答。"
        "可以重试；经常出现时，减少或简化工具的参数说明",
        "the model tried to call a tool but could not write a valid call "
        "(finish_reason={reason}); the reply holds neither a call nor an answer. Retrying may "
        "help; if it keeps happening, offer fewer or simpler tool parameters",
    ),
    "provider.call_announced": (
        "回复说要调用工具（finish_reason={reason}），却没有带任何工具调用，也没有回答："
        "服务端没能解析模型的调用。自己部署的服务请检查工具调用解析器"
        "（vLLM 的 --tool-call-parser）是否和模型匹配",
        "the reply announced a tool call (finish_reason={reason}) but holds none, and no "
        "answer: the server could not parse the model's call. On a server you run, check that "
        "the tool-call parser (vLLM: --tool-call-parser) matches the model",
    ),
    "provider.call_announced_text": (
        "回复说要调用工具（finish_reason={reason}），却只有一段开场白、没有工具调用："
        "这段话不是回答，调用在服务端丢了。自己部署的服务请检查工具调用解析器"
        "（vLLM 的 --tool-call-parser）是否和模型匹配",
        "the reply announced a tool call (finish_reason={reason}) but holds only a preamble "
        "and no call: that text is no answer, the call was lost on the server. On a server you "
        "run, check that the tool-call parser (vLLM: --tool-call-parser) matches the model",
    ),
    "provider.split_choices": (
        "模型服务把一个回复拆成了 {n} 个 choices（文字和工具调用各放一处）：已合并成一个回复来读",
        "the model service split one reply over {n} choices (text and tool calls apart): "
        "read as one reply",
    ),
    "provider.bad_encoding": (
        "模型服务的回复声明是压缩过的（Content-Encoding），内容却不是（{error}）。这多半是中间的代理或网关"
        "加错了响应头：检查代理设置，或让 base_url 直接指向服务；重试没有用",
        "the model service's reply says it is compressed (Content-Encoding) but is not "
        "({error}). A proxy or gateway in between usually adds the wrong header: check the "
        "proxy, or point base_url at the service itself; retrying will not help",
    ),
    "provider.unsendable": (
        "请求发不出去：历史里有一段 UTF-8 无法表示的文字（{error}，通常是半个 emoji），"
        "多半来自某个工具的结果。让工具只返回正常的文字",
        "the request could not be sent: the history holds text UTF-8 cannot carry ({error}, "
        "usually half an emoji), most likely from a tool's result. Make the tool return "
        "ordinary text",
    ),
    "provider.presets_title": (
        "可用的预设（核对日期：依据服务商文档核对的那一天）",
        "the presets (checked: the day each was compared with the provider's documentation)",
    ),
    "provider.preset_line": (
        "{name}：{variables}；默认模型 {model}；{fields}核对于 {checked}（{source}）",
        "{name}: {variables}; default model {model}; {fields}checked {checked} ({source})",
    ),
    "provider.preset_no_default": ("无", "none"),
    "provider.request_fields": (
        "每个请求附加 {fields}；",
        "every request adds {fields}; ",
    ),
    "provider.retired_model": (
        "{model_var}={model}：{provider} 已于 {retired_on} 停用这个模型名，请求会失败",
        "{model_var}={model}: {provider} retired this model name on {retired_on}; requests "
        "will fail",
    ),
    "provider.retired_model_fix": (
        "把 {model_var} 改成 {current}，或者删掉这一行（默认就是 {default}）",
        "set {model_var} to {current}, or delete the line (the default is {default})",
    ),
    "provider.model_missing": (
        "服务说模型 {model} 不存在或已停用（HTTP {status}：{detail}）",
        "the service says the model {model} does not exist or is retired (HTTP {status}: {detail})",
    ),
    "provider.model_missing_fix": (
        "把 {model_var} 改成 {current}（{provider} 现在的模型名，见 {source}）",
        "set {model_var} to {current} ({provider}'s current model name, see {source})",
    ),
    "provider.model_missing_fix_list": (
        "把 {model_var} 改成这个服务现在提供的模型名（看服务商的模型列表）",
        "set {model_var} to a model this service offers now (see the provider's model list)",
    ),
    # -- agentlab grade (agentlab/ops/grade*.py, agentlab/ops/templates/grade.html) --------
    "grade.cli.help": (
        "给一个文件夹里交上来的笔记本评分：每份都重新运行，写出一张 CSV 表和一页 HTML",
        "grade a folder of submitted notebooks: each is run afresh, then a CSV table and "
        "an HTML page are written",
    ),
    "grade.cli.submissions": (
        "交上来的笔记本所在的文件夹（子文件夹里的也算）",
        "the folder holding the submitted notebooks (subfolders included)",
    ),
    "grade.cli.out": (
        "写 grades.csv、grades.html 和运行后副本的文件夹（默认：它旁边的 <文件夹名>-grades）",
        "where grades.csv, grades.html and the run copies go "
        "(default: <folder name>-grades beside it)",
    ),
    "grade.cli.workers": (
        "同时运行几份笔记本（默认 {default}，每份占一个 CPU 核）",
        "how many notebooks run at once (default {default}; each keeps a CPU core busy)",
    ),
    "grade.cli.time_limit": (
        "每份笔记本最多运行多少秒（默认 {default}）",
        "seconds each notebook may run (default {default})",
    ),
    "grade.cli.max_output": (
        "每份笔记本的输出最多保留多少个字符，超过就停下（默认 {default}）",
        "characters of output kept per notebook; past them it is stopped (default {default})",
    ),
    "grade.cli.not_a_folder": ("{path!r} 不是一个文件夹", "{path!r} is not a folder"),
    "grade.cli.no_notebooks": (
        "{path!r} 里没有 .ipynb 文件（隐藏文件夹和 __MACOSX 不算）",
        "{path!r} holds no .ipynb file (hidden folders and __MACOSX do not count)",
    ),
    "grade.cli.not_positive": (
        "--workers、--time-limit 和 --max-output 都要大于 0",
        "--workers, --time-limit and --max-output must be more than 0",
    ),
    "grade.cli.out_unwritable": (
        "--out {path!r} 建不起来：{error}",
        "--out {path!r} cannot be made: {error}",
    ),
    "grade.cli.no_nbclient": (
        "评分要用 nbclient（随 JupyterLab 安装）：pip install 'agentlab[lab]'",
        "grading needs nbclient (installed with JupyterLab): pip install 'agentlab[lab]'",
    ),
    "grade.starting": (
        "评分：{count} 份笔记本，同时运行 {workers} 份，每份最多 {limit} 秒",
        "grading {count} notebook(s), {workers} at a time, {limit} s at most each",
    ),
    "grade.progress.line": (
        "[{done}/{total}] {name}：{summary}（{seconds} 秒）",
        "[{done}/{total}] {name}: {summary} ({seconds} s)",
    ),
    "grade.progress.passed": ("通过 {passed}/{count}", "{passed}/{count} passed"),
    "grade.done": (
        "{count} 份笔记本评完，用时 {seconds} 秒：{statuses}",
        "{count} notebook(s) graded in {seconds} s: {statuses}",
    ),
    "grade.files": ("表格：{csv}\n页面：{html}", "table: {csv}\npage: {html}"),
    "grade.list_separator": ("；", "; "),
    "grade.cell": ("第 {number} 个单元格（{line}）", "cell {number} ({line})"),
    "grade.status.graded": ("已评分", "graded"),
    "grade.status.old_course": ("旧版课程", "older course"),
    "grade.status.timeout": ("超时", "timed out"),
    "grade.status.output_too_large": ("输出过多", "too much output"),
    "grade.status.kernel_died": ("内核退出", "kernel died"),
    "grade.status.kernel_not_started": ("内核没有启动", "kernel did not start"),
    "grade.status.not_a_notebook": ("不是笔记本", "not a notebook"),
    "grade.status.no_exercises": ("没有练习", "no exercises"),
    "grade.status.grading_failed": ("评分出错", "grading failed"),
    "grade.reason.old_course": (
        "{cell} 导入失败：{error}。这份笔记本多半来自旧版课程：请学生下载新版笔记本，把答案抄过去",
        "{cell} failed to import: {error}. The notebook is probably from an older version of "
        "the course: ask the student to copy their answers into the current notebook",
    ),
    "grade.reason.timeout": (
        "整份笔记本超过了 {limit} 秒的时限，停在{cell}（死循环？）",
        "the notebook ran past its {limit} s limit and was stopped at {cell} (an endless loop?)",
    ),
    "grade.reason.output_too_large": (
        "输出超过了 {chars} 个字符，停在{cell}；后面的输出没有保留",
        "its output passed {chars} characters at {cell}; it was stopped and the rest not kept",
    ),
    "grade.reason.kernel_died": (
        "内核在{cell}退出了（os._exit、崩溃，或者内存用光了）",
        "the kernel exited at {cell} (os._exit, a crash, or it ran out of memory)",
    ),
    "grade.reason.kernel_not_started": (
        "内核没有启动起来：{error}",
        "the kernel did not start: {error}",
    ),
    "grade.reason.not_a_notebook": (
        "读不出这份笔记本：{error}",
        "this file cannot be read as a notebook: {error}",
    ),
    "grade.reason.no_exercises": (
        "里面没有本课程的 check(...) 检查单元格",
        "it holds none of the course's check(...) cells",
    ),
    "grade.reason.grading_failed": (
        "评分程序自己出错了（不是学生的问题）：{error}",
        "the grader itself failed (not the student's fault): {error}",
    ),
    "grade.broken.check_missing": (
        "找不到 {call} 这个检查单元格：被删掉了，或者改了题号",
        "no {call} check cell: it was deleted, or its exercise id was changed",
    ),
    "grade.broken.not_run": (
        "笔记本在这之前就停了（{status}），没有运行到检查单元格",
        "the notebook stopped before its check cell ({status})",
    ),
    "grade.broken.error": ("{cell} 出错：{error}", "{cell} raised {error}"),
    "grade.broken.error_after": (
        "{cell} 出错：{error}；之前{cause_cell} 先出错：{cause}",
        "{cell} raised {error}; before it, {cause_cell} raised {cause}",
    ),
    "grade.broken.no_verdict": (
        "{cell} 运行了，却没有给出结论（check 被注释掉或改写了？）",
        "{cell} ran but gave no verdict (check commented out or redefined?)",
    ),
    "grade.note.unknown_id": (
        "调用了本课程没有的练习：{ids}",
        "it checks exercises the course does not have: {ids}",
    ),
    "grade.note.older_run": (
        "学生上次运行用的是课程 {versions}，这次用 {now} 重新运行",
        "the student last ran it with course version {versions}; it was run again with {now}",
    ),
    "grade.note.checked_again": (
        "{id} 检查了 {n} 次，结论不同，以最后一次为准",
        "{id} was checked {n} times with different verdicts; the last one counts",
    ),
    "grade.mark.passed": ("通过", "passed"),
    "grade.mark.wrong": ("不对", "wrong"),
    "grade.mark.not attempted": ("未作答", "not attempted"),
    "grade.mark.broken": ("出错", "broken"),
    "grade.html.lang": ("zh-CN", "en"),
    "grade.html.title": ("练习成绩：{folder}", "Exercise grades: {folder}"),
    "grade.html.about": (
        "{count} 份笔记本 · 课程版本 {version} · {when} 评分 · 用时 {seconds} 秒",
        "{count} notebook(s) · course version {version} · graded {when} · took {seconds} s",
    ),
    "grade.html.how": (
        "每份笔记本都在自己的内核里从头重新运行（不用 API Key）；成绩就是每个检查单元格里 "
        "check() 给学生看的那句话。",
        "Every notebook was run afresh in a kernel of its own (no API key); the marks are the "
        "lines check() showed the student in each check cell.",
    ),
    "grade.html.heatmap": ("全班一览", "The class at a glance"),
    "grade.html.heatmap_note": (
        "每行一份笔记本，每列一道练习；鼠标停在格子上，可以看到 check() 说的那句话。",
        "A row per notebook, a column per exercise; hover over a square to read what check() said.",
    ),
    "grade.html.submission": ("笔记本", "Notebook"),
    "grade.html.status": ("状态", "Status"),
    "grade.html.passed": ("通过", "Passed"),
    "grade.html.chapter": ("第 {chapter} 章", "Chapter {chapter}"),
    "grade.html.exercises": ("每道练习", "Each exercise"),
    "grade.html.exercise": ("练习", "Exercise"),
    "grade.html.pass_rate": ("通过率", "Pass rate"),
    "grade.html.counts": ("通过 / 不对 / 未作答 / 出错", "passed / wrong / not attempted / broken"),
    "grade.html.common": ("答错时最常见的反馈", "Most common feedback on wrong answers"),
    "grade.html.how_many": ("{n} 份", "{n}×"),
    "grade.html.colon": ("：", ": "),
    "grade.html.no_wrong": ("没有人答错", "nobody got it wrong"),
    "grade.html.problems": ("哪些笔记本出了问题", "What broke, per notebook"),
    "grade.html.no_problems": (
        "每份笔记本都从头运行完了，每道练习都有结论。",
        "Every notebook ran to the end and every exercise has a verdict.",
    ),
    "grade.html.executed": ("打开运行后的副本", "open the copy as it ran"),
    # -- end of agentlab grade ---------------------------------------------------------------
}
