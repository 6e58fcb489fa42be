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

import difflib
import re
from collections.abc import Callable

from ..i18n import tr
from .script import Conversation, Exchange, Turn, call, say
from .scripted import ScriptedClient

CSV_NAME = re.compile(r"[\w\-./]*\w\.csv", re.ASCII)
FILE_NAME = re.compile(r"[\w\-./~]*\w\.[A-Za-z]\w*", re.ASCII)


def csv_named_in(task: str, default: str | None = None) -> str | None:
    """The CSV file a question names, relative to ``data/input/``.

    Only ASCII file names are recognised (``sales.csv``, not ``销售.csv``):
    the scripted models read the question with a plain pattern, not a parser.
    """
    match = CSV_NAME.search(task)
    if not match:
        return default
    name = match.group(0)
    for prefix in ("./", "data/input/", "input/"):  # ./data/input/x.csv -> x.csv
        name = name.removeprefix(prefix)
    return name


def honest_analyst(conversation: Conversation) -> Turn:
    """Call ``analyze_csv`` on the file the question names, then answer from
    the numbers the tool returned; report a tool error without any numbers."""
    if not conversation.tools:  # asked to sum up: no tools on offer
        return sum_up(conversation)
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


SALES_FIELDS = ("row_count", "top_category", "top_revenue", "revenue_by_category", "total_revenue")


def describe_sales(data: dict) -> str:
    """A Chinese summary built only from ``analyze_csv``'s data.

    When the output was cut before the model saw it (``max_tool_output_chars``),
    it says which parts it did not see instead of guessing them.
    """
    listed = data.get("revenue_by_category") or []
    rows = [r for r in listed if isinstance(r, dict) and {"category", "revenue"} <= r.keys()]
    per_category = "，".join(f"{row['category']} {row['revenue']}" for row in rows)
    missing = [key for key in SALES_FIELDS if key not in data]
    if not missing and len(rows) == len(listed):
        return (
            f"根据 analyze_csv 对 {data['row_count']} 行数据的计算："
            f"销售额最高的类别是{data['top_category']}，为 {data['top_revenue']}；"
            f"各类别销售额：{per_category}；总销售额为 {data['total_revenue']}。"
        )
    seen = [
        f"{key} = {data[key]}"
        for key in SALES_FIELDS
        if key in data and key != "revenue_by_category"
    ]
    if per_category:
        seen.append(f"能看到的类别销售额：{per_category}")
    return (
        f"analyze_csv 的输出被截断了，我只看到一部分：{'；'.join(seen) or '没有可用的数字'}。"
        f"其余部分（{'、'.join(missing) or '部分类别'}）我没有看到，不做猜测。"
    )


def never_stops(conversation: Conversation) -> Turn:
    """Ask for ``analyze_csv`` again on every turn, never answering (unless no
    tool is on offer: then it sums up what it got)."""
    if not conversation.tools:
        return sum_up(conversation)
    return call("analyze_csv", relative_path=csv_named_in(conversation.task, "sales.csv"))


def todo_clerk(conversation: Conversation) -> Turn:
    """The file agent of chapter 01, planning each turn from what it has seen.

    Task shape: "read <source>, collect every line starting with TODO into
    <target>, then report". The first file the task names is the source, the
    second the target. It reads the source (listing the sandbox first if the
    task names no file), writes the TODO lines it actually found, then
    reports what it wrote. A missing file makes it list the folder once and
    retry with the closest existing name; a refused path is reported as is.
    """
    names = FILE_NAME.findall(conversation.task)
    source = names[0] if names else None
    target = names[1] if len(names) > 1 else None
    history = conversation.exchanges()
    if not conversation.tools:
        return sum_up(conversation)
    if not history:
        return call("read_text", rel_path=source) if source else call("list_dir")

    last = history[-1]
    if last.tool == "read_text":
        return _after_read(last, target, history)
    if last.tool == "list_dir":
        return _after_listing(last, source, target, history)
    if last.tool in ("write_text", "append_text"):
        if not last.ok:
            return _report_failure(last)
        written = last.arguments.get("text", "")
        lines = [line for line in written.splitlines() if line.strip()]
        listing = "\n".join(lines) if lines else "（没有找到以 TODO 开头的行）"
        said = f"已把 {len(lines)} 条 TODO 写入 {last.arguments.get('rel_path')}：\n{listing}"
        return say(said + _cut_short(history))
    return say(f"我没有预料到工具 {last.tool} 的结果，先停在这里。")


def _cut_short(history: list[Exchange]) -> str:
    """A note when a file read was cut short: its TODOs past the cut were never seen."""
    cut = [e.result["data"] for e in history if e.tool == "read_text" and e.ok]
    cut = [data for data in cut if data.get("truncated")]
    return "".join(
        f"\n注意：{data['path']} 只读到了一部分（共 {data['chars']} 个字符），"
        "后面的 TODO 我没有看到，上面的清单可能不完整。"
        for data in cut
    )


def _after_read(last: Exchange, target: str | None, history: list[Exchange]) -> Turn:
    path = last.arguments.get("rel_path")
    if last.ok:
        text = last.result["data"]["text"]
        if target is None:
            return say(f"{path} 的内容如下：\n{text}")
        todos = [line.strip() for line in text.splitlines() if line.lstrip().startswith("TODO")]
        body = "".join(f"{line}\n" for line in todos)
        return call("write_text", rel_path=target, text=body)
    already_listed = any(e.tool == "list_dir" for e in history)
    if last.error_code == "FILE_NOT_FOUND" and not already_listed:
        return call("list_dir")  # look around before giving up
    return _report_failure(last)


def _after_listing(
    last: Exchange, source: str | None, target: str | None, history: list[Exchange]
) -> Turn:
    if not last.ok:
        return _report_failure(last)
    files = [f for f in last.result["data"]["files"] if f != target]
    tried = {e.arguments.get("rel_path") for e in history if e.tool == "read_text"}
    candidates = [f for f in files if f not in tried]
    wanted = source or "meeting.md"
    match = difflib.get_close_matches(wanted, candidates, n=1, cutoff=0.3)
    if match:
        return call("read_text", rel_path=match[0])
    return say(
        f"沙盒里没有和 {wanted} 相近的文件（现有文件：{'、'.join(files) or '无'}），任务无法完成。"
    )


def _report_failure(last: Exchange) -> Turn:
    error = (last.result or {}).get("error") or {}
    return say(
        f"{last.tool}({last.arguments.get('rel_path', '')}) 被拒绝或失败："
        f"{error.get('code', '?')}（{error.get('message', '')}）。我没有绕过它，任务到此为止。"
    )


def sum_up(conversation: Conversation) -> Turn:
    """What a model says when asked to sum up with no tools left: which calls
    it made, how they went, and what the data said, if it has any."""
    history = conversation.exchanges()
    calls = "、".join(f"{e.tool}（{'ok' if e.ok else e.error_code}）" for e in history) or "无"
    text = f"阶段性总结，不是最终答案。已经做过的工具调用：{calls}。"
    sales = [e for e in history if e.ok and e.tool == "analyze_csv"]
    if sales:
        text += f"目前拿到的数据：{describe_sales(sales[-1].result['data'])}"
    else:
        text += "还没有拿到可以回答问题的数据。"
    return say(text)


BEHAVIOURS: dict[str, Callable[[Conversation], Turn]] = {
    "honest_analyst": honest_analyst,
    "never_stops": never_stops,
    "todo_clerk": todo_clerk,
}


def scripted(behaviour: str | Callable[[Conversation], Turn]) -> ScriptedClient:
    """A scripted client playing a named behaviour (or any policy function)."""
    if callable(behaviour):
        return ScriptedClient(behaviour, name=getattr(behaviour, "__name__", "policy"))
    try:
        policy = BEHAVIOURS[behaviour]
    except KeyError:
        known = ", ".join(sorted(BEHAVIOURS))
        raise ValueError(
            tr("scripted.unknown_behaviour", name=repr(behaviour), known=known)
        ) from None
    return ScriptedClient(policy, name=behaviour)
