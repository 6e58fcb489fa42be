"""Truncation keeps what the model receives bounded, whatever the result's shape.

Issue 13: a result made of many small items once reached the model whole
(271,581 characters against a limit of 8,000), and a long log was cut to
1,355 characters where 3,000 were allowed. The hypothesis test below tries
results of every shape against ``fit_result``.
"""

from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentlab.course.faults import huge_log
from agentlab.i18n import tr
from agentlab.loop.context import fit_result, fold_history, shrink_text
from agentlab.tools import error, ok

pieces = st.sampled_from(list('abc xyz\n"\\\t') + ["错误", "销售额", "é", "ERROR fail\n"])
texts = st.lists(pieces, max_size=400).map("".join)
leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
values = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=60),
        st.dictionaries(st.text(max_size=12), children, max_size=40),
    ),
    max_leaves=150,
)
results = st.one_of(
    st.builds(lambda data: ok(data, ["input/x.csv"]), values),
    st.builds(lambda message: error("BAD", message), texts),
)


@settings(
    max_examples=int(os.environ.get("AGENTLAB_FIT_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(results, st.sampled_from([200, 300, 1000, 3000, 8000]))
def test_what_the_model_receives_is_bounded_valid_json_and_uses_its_room(result, limit):
    full = json.dumps(result, ensure_ascii=False)
    text, removed = fit_result(result, limit, "outputs/step1-call_1_0.json")
    assert len(text) <= limit
    received = json.loads(text)  # still valid JSON
    if len(full) <= limit:
        assert (text, removed) == (full, 0)
        return
    assert removed == len(full) - len(text) > 0
    assert received["status"] == result["status"] and "truncated" in received
    assert len(text) >= limit * 0.6, (len(text), limit)  # the room is used, not wasted


@pytest.mark.parametrize(
    "text",
    ["\\" * 30_000, '\\"\n' * 20_000, 'C:\\Users\\x\\a.py: "w"\n' * 3000],
    ids=["backslashes", "escapes", "windows-paths"],
)
@pytest.mark.parametrize("limit", [1000, 3000, 8000])
def test_text_that_doubles_when_escaped_still_fills_its_room(text, limit):
    # each character here takes two in JSON; the cut used to give up at ~170 characters
    out, _ = fit_result(ok(text), limit)
    assert limit * 0.9 <= len(out) <= limit
    assert json.loads(out)["truncated"]


def test_many_small_items_are_cut_with_a_count_of_what_was_left_out():
    rows = [{"category": f"类别{i}", "revenue": i * 7} for i in range(6000)]
    result = ok({"revenue_by_category": rows, "total_revenue": 1})
    text, removed = fit_result(result, 8000)
    received = json.loads(text)
    kept = received["data"]["revenue_by_category"]
    assert len(text) <= 8000 and len(text) >= 7000
    assert (
        kept[0] == rows[0] and isinstance(kept[-1], str) and str(6000 - len(kept) + 1) in kept[-1]
    )
    assert received["data"]["total_revenue"] == 1  # small fields survive beside the big list
    assert removed > 200_000


def test_a_long_log_keeps_head_key_lines_and_tail_and_fills_the_room():
    log = huge_log()
    text, _ = fit_result(ok({"log": log}), 3000)
    kept = json.loads(text)["data"]["log"]
    assert 2700 <= len(text) <= 3000
    assert kept.startswith("[0000] compiling") and kept.rstrip().endswith("build failed")
    assert "ERROR: module_17 failed" in kept and "ERROR: 3 tests failed" in kept


def test_deep_nesting_is_summarised():
    deep: dict = {"x": "y" * 50}
    for _ in range(30):
        deep = {"inner": deep, "pad": "z" * 40}
    text, _ = fit_result(ok(deep), 400)
    assert len(text) <= 400 and json.loads(text)["status"] == "ok"


def test_folding_replaces_old_tool_messages_and_is_idempotent():
    records = [
        {"call_id": "a", "step": 1, "tool": "t", "normalized_args": "{}", "status": "ok",
         "result": ok({"n": 1})},
        {"call_id": "b", "step": 3, "tool": "t", "normalized_args": "{}", "status": "ok",
         "result": ok({"n": 2})},
    ]  # fmt: skip
    messages = [
        {"role": "tool", "tool_call_id": "a", "content": "full a"},
        {"role": "tool", "tool_call_id": "b", "content": "full b"},
    ]
    fold_history(messages, records, current_step=3, keep_steps=2)
    once = [m["content"] for m in messages]
    fold_history(messages, records, current_step=3, keep_steps=2)
    assert [m["content"] for m in messages] == once
    assert once[1] == "full b" and once[0] != "full a" and "t({})" in once[0]


# -- rules the mutation audit (review 8) found unpinned -----------------------------------


def marker_counts(text: str) -> tuple[int, int, int]:
    """``(removed, total, keys)`` read off the marker ``shrink_text`` left in ``text``."""
    template = re.escape(tr("context.marker", removed="REMOVED", total="TOTAL", keys="KEYS"))
    for name in ("REMOVED", "TOTAL", "KEYS"):
        template = template.replace(name, rf"(?P<{name.lower()}>\d+)", 1)
    found = re.search(template, text)
    assert found, text
    return int(found["removed"]), int(found["total"]), int(found["keys"])


def test_a_result_exactly_as_long_as_the_limit_comes_back_whole():
    """max_chars is the longest JSON that is sent unchanged."""
    result = ok({"text": "x" * 400})
    full = json.dumps(result, ensure_ascii=False)
    assert fit_result(result, len(full)) == (full, 0)
    text, removed = fit_result(result, len(full) - 1)
    assert len(text) < len(full) and removed == len(full) - len(text)


def test_a_note_longer_than_the_limit_is_cut_too():
    """Even when the note alone would not fit, the JSON stays within max_chars."""
    long_path = "outputs/" + "x" * 300  # the note quotes it
    text, _ = fit_result(ok({"log": huge_log()}), 200, long_path)
    received = json.loads(text)
    assert len(text) <= 200 and received["status"] == "ok" and received["truncated"]


def test_a_cut_log_keeps_part_of_its_data_at_every_limit():
    """The note's room is set aside first, so the data is never squeezed out by it."""
    result = ok({"log": huge_log()})
    for limit in range(250, 801):  # from 250 the note (either language) leaves room for data
        text, _ = fit_result(result, limit)
        received = json.loads(text)
        assert len(text) <= limit and "log" in received.get("data", {}), limit


def test_the_count_of_fields_left_out_is_what_was_left_out():
    """An object with too many fields says how many were not shown: exactly those."""
    data = {f"field{i}": "v" * 50 for i in range(100)}
    received = json.loads(fit_result(ok(data), 1000)[0])["data"]
    shown = [key for key in received if key != "…"]
    assert 0 < len(shown) < 100 and all(received[key] == data[key] for key in shown)
    assert received["…"] == tr("context.more_keys", count=100 - len(shown))


@pytest.mark.parametrize(
    "word", ["error", "FAIL", "Exception", "Traceback", "fatal", "错误", "失败", "异常"]
)
def test_each_key_word_makes_a_middle_line_a_key_line(word):
    """A line from the middle of a long log is kept when it holds any one key word."""
    middle = f"==> {word} at line 250 <=="
    lines = [f"line {i} ok" for i in range(500)]
    log = "\n".join(lines[:250] + [middle] + lines[250:])
    kept = json.loads(fit_result(ok({"log": log}), 1000)[0])["data"]["log"]
    assert middle in kept and "line 250 ok" not in kept
    assert marker_counts(kept)[2] == 1


def test_the_marker_counts_exactly_the_characters_removed():
    """removed = the text's length minus the head, key lines and tail that were kept."""
    lines = [f"line {i} ok\n" for i in range(400)]
    lines[150] = "Traceback (most recent call last):\n"
    lines[250] = "操作错误：权限不足\n"
    text = "".join(lines)
    shrunk = shrink_text(text, 400)
    removed, total, keys = marker_counts(shrunk)
    marker_line = tr("context.marker", removed=removed, total=total, keys=keys) + "\n"
    assert (total, keys) == (len(text), 2) and lines[150] in shrunk and lines[250] in shrunk
    assert removed == len(text) - (len(shrunk) - len(marker_line))


def test_a_folded_ok_call_says_how_big_its_data_was():
    """The one-line conclusion gives the size of the data's JSON, in characters."""
    data = {"rows": ["销售额"] * 100}
    record = {"call_id": "a", "step": 1, "tool": "t", "normalized_args": "{}", "status": "ok",
              "result": ok(data)}  # fmt: skip
    messages = [{"role": "tool", "tool_call_id": "a", "content": "full a"}]
    fold_history(messages, [record], current_step=3, keep_steps=2)
    size = len(json.dumps(data, ensure_ascii=False))
    assert messages[0]["content"] == tr("context.folded_ok", call="t({})", size=size)
