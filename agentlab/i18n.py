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
        "运行 {task_id} 没有轨迹（trace_dir=False），无法导出",
        "run {task_id} has no trace (trace_dir=False): nothing to export",
    ),
    # -- explorer --
    "explorer.title": (
        "拖动滑块，看步数上限 max_steps 怎样改变结局和浪费",
        "Move the slider: how the step cap max_steps changes outcomes and waste",
    ),
    "explorer.slider": ("步数上限 max_steps", "step cap max_steps"),
    "explorer.mix_title": ("各结局占比，步数上限 =", "Outcome mix at step cap ="),
    "explorer.curve_title": (
        "完成率（绿）与预算耗尽的运行浪费的步数（红），虚线为当前上限",
        "Completion rate (green) and steps wasted on exhausted runs (red); dashed: chosen cap",
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
    "explorer.outcome.completed": ("completed 正常完成", "completed"),
    "explorer.outcome.tool_error": ("tool_error 工具报错", "tool_error"),
    "explorer.outcome.budget_exhausted": ("budget_exhausted 预算耗尽", "budget_exhausted"),
    "explorer.outcome.model_error": ("model_error 模型服务失败", "model_error"),
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
}
