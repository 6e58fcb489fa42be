"""Messages people read: Chinese by default, English behind one switch.

Everything the package says to a person — warnings, stop messages, tool
error messages, hints to the model, table labels, exercise feedback — is
looked up here by key::

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

This module only looks texts up; it does not decide what to say.
"""

from __future__ import annotations

import os
import string

ENV_VAR = "AGENTLAB_LANG"
LANGUAGES = ("zh", "en")


def language() -> str:
    """The language messages are shown in: ``"zh"`` unless ``AGENTLAB_LANG`` says ``en``."""
    value = os.environ.get(ENV_VAR, "").strip().lower()
    return "en" if value.startswith("en") else "zh"


def set_language(lang: str) -> None:
    """Show messages in ``lang`` (``"zh"`` or ``"en"``) from now on, here and in children."""
    if lang not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, got {lang!r}")
    os.environ[ENV_VAR] = lang


def tr(key: str, /, **fields: object) -> str:
    """The message ``key`` in the current language, with ``fields`` filled in.

    Example: ``tr("guard.max_steps", cap=4)`` ->
    ``"达到步数上限 max_steps=4，仍未得到最终回答"``.
    """
    zh, en = CATALOG[key]
    return (en if language() == "en" else zh).format(**fields)


def placeholders(template: str) -> set[str]:
    """The ``{names}`` a template fills in (used by the catalog's own test)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# key: (Chinese, English). Keys are grouped by the module that uses them.
CATALOG: dict[str, tuple[str, str]] = {
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
    # -- tools/registry.py: whitelist, argument check, running a call --
    "registry.no_tools": ("（没有）", "(none)"),
    "registry.none": ("无", "none"),
    "registry.unknown_tool": (
        "没有名为 {name!r} 的工具；白名单里的工具：{allowed}",
        "no tool named {name!r}; allowed tools: {allowed}",
    ),
    "registry.bad_json": (
        "参数不是合法的 JSON（位置 {position}：{reason}）：{shown}",
        "arguments are not valid JSON ({reason} at position {position}): {shown}",
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
    "registry.unchecked_schema": (
        "工具 {name} 的参数 schema 用了参数检查不支持的关键字：{keywords}。"
        "请只用 type、enum、const、properties、required、items 以及数值、长度和格式约束",
        "the parameter schema of tool {name} uses keywords the argument check does not "
        "support: {keywords}. Use only type, enum, const, properties, required, items and "
        "bounds on numbers, lengths and patterns",
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
        "{name} 在运行时间用完时被杀死（{how}）",
        "{name} was killed ({how}) when the run's time ran out",
    ),
    # -- budget.py: the guards --
    "guard.max_steps": (
        "达到步数上限 max_steps={cap}，仍未得到最终回答",
        "reached the step budget max_steps={cap} without a final answer",
    ),
    "guard.deadline": (
        "运行的 {seconds} 秒已经用完，第 {step} 步没有开始",
        "the run's {seconds} s are used up before step {step}",
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
        "this exact call was already made {before} times and was not run again. "
        "Change strategy or give your final answer.",
    ),
    "guard.no_progress": (
        "连续 {steps} 步没有得到任何新信息；卡在 {where}",
        "{steps} steps in a row brought nothing new; stuck at {where}",
    ),
    "guard.rejected": ("被完成检查驳回的回答", "answers the check rejected"),
    # -- loop.py: the loop, the tool phase, the completion check --
    "loop.empty_task": ("任务是空的：没有发出任何请求", "the task is empty: no request was made"),
    "loop.not_done": ("还没有完成：{reason}", "Not done yet: {reason}"),
    "loop.not_run": ("运行已停止：{message}", "the run stopped: {message}"),
    "loop.stopped_first": (
        "运行先停止了（{reason}），这个调用没有执行",
        "the run stopped ({reason}) first; this call was not run",
    ),
    "loop.refused": ("{name} 被拒绝：{reason}", "{name} was refused: {reason}"),
    "loop.check_raised": ("完成检查抛出了异常：{error}", "the completion check raised {error}"),
    "loop.check_failed": ("完成检查没有通过", "the completion check failed"),
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
    "model.no_choices": ("模型服务的回复里没有 choices", "the model service returned no choices"),
    "model.timed_out": ("模型请求超时", "the model request timed out"),
    "model.unreachable": ("连不上模型服务：{error}", "could not reach the model service: {error}"),
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
    "model.wait_too_long": (
        "模型请求失败：{detail}；服务要求等待 {wait} 秒后再重试",
        "model request failed: {detail}; the service asked to wait {wait} s before retrying",
    ),
    # -- result.py --
    "result.answered_after_error": (
        "模型在工具出错之后直接给出了回答（{codes}）",
        "the model answered right after a tool error ({codes})",
    ),
    # -- trace.py --
    "trace.write_failed": (
        "无法写入运行轨迹（{folder}：{error}）；本次运行没有轨迹文件",
        "could not write the run trace ({folder}: {error}); this run has no trace file",
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
    "sandbox.backslash": (
        "请用 '/' 作分隔符，不允许反斜杠",
        "use '/' as the separator; backslashes are not allowed",
    ),
    "sandbox.absolute": ("只允许相对路径", "only relative paths are allowed"),
    "sandbox.dotdot": ("路径里不允许出现 '..'", "'..' is not allowed in a path"),
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
    "csv.missing_columns": ("缺少列：{columns}", "missing column(s): {columns}"),
    "csv.bad_row": ("第 {line} 行：{problem}", "line {line}: {problem}"),
    "csv.not_utf8": ("文件不是 UTF-8 文本", "the file is not UTF-8 text"),
    "csv.unreadable": ("无法读取 CSV：{error}", "could not read the CSV: {error}"),
    "csv.too_many_fields": ("这一行的字段比表头多", "the row has more fields than the header"),
    "csv.empty_category": ("category 为空", "the category is empty"),
    "csv.not_a_count": (
        "{column} 必须是非负整数，实际是 {value}",
        "{column} must be a non-negative integer, got {value}",
    ),
    # -- tools/files.py --
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
    "config.bad_line": (
        "{name} 第 {line} 行不是 KEY=VALUE 的形式",
        "{name} line {line} is not of the form KEY=VALUE",
    ),
    "config.placeholder": (
        "{name} 还是 .env.example 里的占位内容",
        "{name} still holds the placeholder from .env.example",
    ),
    "config.bad_url": (
        "{name} 必须是 http(s) 开头、以 /v1 之类结尾的 URL",
        "{name} must be an http(s) URL ending in /v1 or similar",
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
    "cli.sweep.n": ("任务群里的任务数", "tasks in the population"),
    "cli.sweep.workers": ("使用的进程数", "processes to use"),
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
    "cli.col.requests": ("模型请求", "requests"),
    "cli.step": ("第 {step} 步", "step {step}"),
    "cli.answer": ("回答", "answer"),
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
    # -- the course's codes and what they mean (chapter 02's glossary, legends, badges) --
    "term.completed": ("正常完成", "completed"),
    "term.tool_error": ("工具报错", "ended on a tool error"),
    "term.budget_exhausted": ("预算耗尽", "a budget ran out"),
    "term.model_error": ("模型服务失败", "the model service failed"),
    "term.invalid_task": ("任务无效", "invalid task"),
    "term.failed": ("失败", "failed"),
    "term.ok": ("成功", "succeeded"),
    "term.error": ("出错", "failed"),
    "term.answered": ("模型给出了最终回答", "the model gave its final answer"),
    "term.policy_denied": ("被权限或策略拦截", "stopped by a permission or policy refusal"),
    "term.max_steps": ("步数用完", "the step budget ran out"),
    "term.deadline": ("截止时间到了", "the deadline passed"),
    "term.repeat_call": ("重复调用同一个工具", "the same call again and again"),
    "term.no_progress": ("连续几步没有新进展", "several steps with nothing new"),
    "term.max_tokens": ("token 预算用完", "the token budget ran out"),
    "term.decide": ("模型决策", "the model request"),
    "term.tool": ("工具执行", "a tool execution"),
    "term.complete": ("完成检查", "the completion check"),
    "term.transient": ("瞬时错误", "transient"),
    "term.invalid_input": ("参数错误", "invalid input"),
    "term.permission": ("权限错误", "permission"),
    "term.logic": ("逻辑错误", "logic"),
    # -- report.py: tables and charts --
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
    "report.col.elapsed": ("耗时", "elapsed"),
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
    "report.runs": ("{n} 次运行", "{n} runs"),
    "report.completion_line": (
        "完成率（能完成的任务中）",
        "completion rate (of tasks that could complete)",
    ),
    "report.waste_line": (
        "预算耗尽的运行浪费的步数",
        "steps wasted by runs that ran out of budget",
    ),
    "report.best_cap": (
        "最小够用上限 {cap}\n（完成率 ≥ {target}）",
        "smallest good cap {cap}\n(completion ≥ {target})",
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
}
