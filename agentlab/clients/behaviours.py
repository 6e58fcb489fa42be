"""Ready-made scripted behaviours (policies) for the chapter notebooks.

Each behaviour is a plain function ``Conversation -> Turn``. None of them
holds a canned answer: whatever they say about the data is read from the
tool results in the conversation, so changing ``sales.csv`` changes what
they say. Use them through :func:`scripted`::

    client = scripted("honest_analyst")

This module deliberately has no notion of budgets: a behaviour that never
stops really never stops, and it is the loop's job to end the run.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .scripted import Conversation, ScriptedClient, Turn, call, say

CSV_NAME = re.compile(r"[\w\-./]*\w\.csv", re.ASCII)


def csv_named_in(task: str, default: str | None = None) -> str | None:
    """The CSV file a question names, relative to ``data/input/``."""
    match = CSV_NAME.search(task)
    if not match:
        return default
    name = match.group(0)
    for prefix in ("data/input/", "input/", "./"):
        name = name.removeprefix(prefix)
    return name


def honest_analyst(conversation: Conversation) -> Turn:
    """Call ``analyze_csv`` on the file the question names, then answer from
    the numbers the tool returned; report a tool error without any numbers."""
    result = conversation.last_tool_result()
    if result is None:
        name = csv_named_in(conversation.task)
        if name is None:
            return say("请告诉我要分析 data/input/ 下的哪个 CSV 文件。")
        return call("analyze_csv", relative_path=name)
    if result.get("status") != "ok":
        err = result.get("error") or {}
        return say(
            f"无法完成分析：analyze_csv 返回错误 {err.get('code', '?')}"
            f"（{err.get('message', '')}）。没有可靠的数据，我不给出任何销售数字。"
        )
    return say(describe_sales(result["data"]))


def describe_sales(data: dict) -> str:
    """A Chinese summary built only from ``analyze_csv``'s data."""
    per_category = "，".join(
        f"{row['category']} {row['revenue']}" for row in data["revenue_by_category"]
    )
    return (
        f"根据 analyze_csv 对 {data['row_count']} 行数据的计算："
        f"销售额最高的类别是{data['top_category']}，为 {data['top_revenue']}；"
        f"各类别销售额：{per_category}；总销售额为 {data['total_revenue']}。"
    )


def never_stops(conversation: Conversation) -> Turn:
    """Ask for ``analyze_csv`` again on every turn, never answering."""
    return call("analyze_csv", relative_path=csv_named_in(conversation.task, "sales.csv"))


BEHAVIOURS: dict[str, Callable[[Conversation], Turn]] = {
    "honest_analyst": honest_analyst,
    "never_stops": never_stops,
}


def scripted(behaviour: str | Callable[[Conversation], Turn]) -> ScriptedClient:
    """A scripted client playing a named behaviour (or any policy function)."""
    if callable(behaviour):
        return ScriptedClient(behaviour, name=getattr(behaviour, "__name__", "policy"))
    try:
        policy = BEHAVIOURS[behaviour]
    except KeyError:
        known = ", ".join(sorted(BEHAVIOURS))
        raise ValueError(f"unknown scripted behaviour {behaviour!r}; known: {known}") from None
    return ScriptedClient(policy, name=behaviour)
