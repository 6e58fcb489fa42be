"""One spelling per call: the repeat guard's key."""

from __future__ import annotations

import pytest

from agentlab.tools.canonical import call_key, canonical_arguments


@pytest.mark.parametrize("blank", ["", " ", "\n", " \t\r\n ", None])
def test_blank_arguments_are_the_empty_object(blank):
    """As the registry reads them: no arguments."""
    assert call_key("now", blank) == call_key("now", "{}") == "now:{}"


def test_order_spaces_and_path_spellings_do_not_make_another_call():
    assert canonical_arguments('{ "b": 1, "relative_path": "./sales.csv" }') == (
        '{"b":1,"relative_path":"sales.csv"}'
    )
    assert canonical_arguments('{"rows": [{"rel_path": "a//b.md"}]}') == (
        '{"rows":[{"rel_path":"a/b.md"}]}'
    )
    assert canonical_arguments('{"job": "./a"}') == '{"job":"./a"}'  # not a path
    assert canonical_arguments('{"名字": "键盘"}') == '{"名字":"键盘"}'  # UTF-8, not \\u


@pytest.mark.parametrize("text", ['{"a":', "[" * 100_000, '{"n": ' + "9" * 5000 + "}"])
def test_text_that_is_not_json_is_kept_as_sent(text):
    assert canonical_arguments(f"  {text} ") == text
