"""Named mistakes made from the reference (agentlab/course/exercises/mistakes.py)."""

from __future__ import annotations

import json

import pytest

from agentlab.course.exercises.mistakes import Mistake, edited


def repeat_key(name, arguments_json):
    return f"{name}:{json.dumps(json.loads(arguments_json), sort_keys=True)}"


def test_an_edit_replaces_every_place_its_text_occurs_and_keeps_the_modules_imports():
    wrong = edited(repeat_key, {"sort_keys=True": "sort_keys=False", "name": "tool"})
    assert wrong("t", '{"b": 1, "a": 2}') == 't:{"b": 1, "a": 2}'  # json: this module's import
    assert wrong.__name__ == "repeat_key" and wrong is not repeat_key


def test_an_edit_whose_text_is_not_in_the_reference_is_refused():
    with pytest.raises(ValueError, match="sort_keys=Flase"):
        edited(repeat_key, {"sort_keys=Flase": "sort_keys=True"})


def test_a_mistake_is_read_from_its_table_in_a_unit():
    code = Mistake.read({"label": "unsorted", "edits": [["True", "False"]], "says": "顺序"})
    assert code == Mistake("unsorted", {"True": "False"}, "顺序")
    assert code.answer(repeat_key)("t", '{"b": 1, "a": 2}') == 't:{"b": 1, "a": 2}'
    seeds = Mistake.read({"label": "one short", "fields": {"1": 12}, "says": "种子 1"})
    assert seeds.answer({1: 13, 2: 13}) == {1: 12, 2: 13}  # TOML keys are text: "1" is seed 1
