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
            return say(tr("scripted.reply.which_csv"))
        return call("analyze_csv", relative_path=name)
    if result.get("status") != "ok":
        return say(tr("scripted.reply.analysis_failed", **_error_of(result)))
    return say(describe_sales(result["data"]))


SALES_FIELDS = ("row_count", "top_category", "top_revenue", "revenue_by_category", "total_revenue")


def describe_sales(data: dict) -> str:
    """A summary built only from ``analyze_csv``'s data.

    When the output was cut before the model saw it (``max_tool_output_chars``),
    it says which parts it did not see instead of guessing them.
    """
    listed = data.get("revenue_by_category") or []
    rows = [r for r in listed if isinstance(r, dict) and {"category", "revenue"} <= r.keys()]
    per_category = tr("scripted.reply.category_sep").join(
        f"{row['category']} {row['revenue']}" for row in rows
    )
    missing = [key for key in SALES_FIELDS if key not in data]
    if not missing and len(rows) == len(listed):
        return tr(
            "scripted.reply.sales",
            rows=data["row_count"],
            top=data["top_category"],
            top_revenue=data["top_revenue"],
            per_category=per_category,
            total=data["total_revenue"],
        )
    seen = [
        f"{key} = {data[key]}"
        for key in SALES_FIELDS
        if key in data and key != "revenue_by_category"
    ]
    if per_category:
        seen.append(tr("scripted.reply.seen_categories", per_category=per_category))
    return tr(
        "scripted.reply.cut",
        seen=tr("scripted.reply.seen_sep").join(seen) or tr("scripted.reply.nothing_seen"),
        missing=tr("list.sep").join(missing) or tr("scripted.reply.some_categories"),
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
        tr("scripted.reply.cut_short", path=data["path"], chars=data["chars"]) for data in cut
    )


def _after_read(last: Exchange, target: str | None, history: list[Exchange]) -> Turn:
    path = last.arguments.get("rel_path")
    if last.ok:
        text = last.result["data"]["text"]
        if target is None:
            return say(tr("scripted.reply.file_content", path=path, text=text))
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
    listed = tr("list.sep").join(files) or tr("scripted.reply.none")
    return say(tr("scripted.reply.no_such_file", wanted=wanted, files=listed))


def _report_failure(last: Exchange) -> Turn:
    path = last.arguments.get("rel_path", "")
    return say(tr("scripted.reply.failed", tool=last.tool, path=path, **_error_of(last.result)))


def _error_of(result: dict | None) -> dict[str, str]:
    """The ``code`` and ``message`` of a tool's error result, as a reply quotes them."""
    error = (result or {}).get("error") or {}
    return {"code": error.get("code", "?"), "message": error.get("message", "")}


def sum_up(conversation: Conversation) -> Turn:
    """What a model says when asked to sum up with no tools left: which calls
    it made, how they went, and what the data said, if it has any."""
    history = conversation.exchanges()
    calls = tr("list.sep").join(
        tr("scripted.reply.call", tool=e.tool, status="ok" if e.ok else e.error_code)
        for e in history
    )
    text = tr("scripted.reply.sum_up", calls=calls or tr("scripted.reply.none"))
    sales = [e for e in history if e.ok and e.tool == "analyze_csv"]
    if sales:
        text += tr("scripted.reply.data_so_far", sales=describe_sales(sales[-1].result["data"]))
    else:
        text += tr("scripted.reply.no_data")
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
