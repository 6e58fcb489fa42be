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


def tr(key: str, **fields: object) -> str:
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
    "display.count.tool_errors": ("工具出错", "tool errors"),
    "display.count.tokens": ("tokens", "tokens"),
    "display.count.elapsed": ("用时", "elapsed"),
    "display.task": ("任务", "Task"),
    "display.model": ("模型", "model"),
    "display.answer": ("最终回答", "Final answer"),
    "display.no_answer": ("没有最终回答", "no final answer"),
    "display.answer_not_recorded": (
        "这个轨迹没有记录最终回答（较早的轨迹格式）",
        "this trace does not record the final answer (an older trace format)",
    ),
    "display.partial_answer": ("部分回答", "Partial answer"),
    "display.system_prompt": ("系统提示词", "System prompt"),
    "display.conversation": ("逐步过程", "Step by step"),
    "display.step": ("第 {n} 步", "Step {n}"),
    "display.assistant": ("模型", "Model"),
    "display.user": ("用户", "User"),
    "display.reasoning": ("推理过程", "Reasoning"),
    "display.no_reply": ("这一步没有得到模型的回复。", "This step got no reply from the model."),
    "display.empty_reply": ("（模型的回复是空的）", "(the reply was empty)"),
    "display.call": ("工具调用", "tool call"),
    "display.arguments": ("参数", "arguments"),
    "display.no_arguments": ("无参数", "no arguments"),
    "display.invalid_json": ("参数不是合法的 JSON", "the arguments are not valid JSON"),
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
    "display.process_killed": ("子进程已被杀死（SIGKILL）", "child process killed (SIGKILL)"),
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
    "display.deadline_phase": (
        "截止时间到达时，运行正处于{phase}",
        "when the deadline passed, the run was in the {phase}",
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
    "display.status.completed": ("运行完成", "the run completed"),
    "display.status.failed": ("运行失败", "the run failed"),
    "display.status.ok": ("成功", "ok"),
    "display.status.error": ("出错", "error"),
    "display.status.refused": ("被守卫拒绝", "refused by a guard"),
    "display.status.not_run": ("没有执行", "not run"),
    "display.status.done": ("已完成", "done"),
    "display.status.not_done": ("还没完成", "not done"),
    "display.status.timeout": ("超时", "timed out"),
    "display.outcome.completed": ("正常完成", "finished, no tool error left"),
    "display.outcome.tool_error": ("工具报错", "ended on a tool error"),
    "display.outcome.budget_exhausted": ("预算耗尽", "a budget ran out"),
    "display.outcome.model_error": ("模型服务失败", "the model service failed"),
    "display.outcome.invalid_task": ("任务无效", "the task was invalid"),
    "display.stop.answered": ("模型给出了最终回答", "the model gave its final answer"),
    "display.stop.policy_denied": ("工具调用被策略拒绝", "a tool call was refused by policy"),
    "display.stop.max_steps": ("达到步数上限", "the step cap was reached"),
    "display.stop.deadline": ("超过截止时间", "the deadline passed"),
    "display.stop.repeat_call": ("同一个调用重复太多次", "the same call was repeated too often"),
    "display.stop.no_progress": ("连续多步没有新进展", "several steps brought nothing new"),
    "display.stop.max_tokens": ("达到 token 上限", "the token budget ran out"),
    "display.stop.model_error": ("模型服务失败", "the model service failed"),
    "display.stop.invalid_task": (
        "任务无效，没有发出请求",
        "the task was invalid: no request made",
    ),
    "display.phase.decide": ("决策阶段（模型请求）", "decide phase (model request)"),
    "display.phase.tool": ("工具阶段", "tool phase"),
    "display.phase.complete": ("完成检查阶段", "completion check phase"),
}
