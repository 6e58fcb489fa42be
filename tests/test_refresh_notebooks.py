"""`make notebooks` writes back only outputs that changed beyond what nbval masks."""

from __future__ import annotations

import nbformat

from .refresh_notebooks import coalesced, keep_changed, masked, maskers


def stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def test_outputs_that_differ_only_where_nbval_masks_are_the_same():
    rules = maskers()
    one = [{"output_type": "display_data", "data": {"text/html": 'x <span class="al-id">'
            'afdfe00f8c47</span> at 0x7f00aa11 ≈5ms'}, "metadata": {}}]  # fmt: skip
    two = [{"output_type": "display_data", "data": {"text/html": ['x <span class="al-id">',
            '58286b570248</span> at 0x7fbb2233 ≈12ms']}, "metadata": {}}]  # fmt: skip
    assert masked(one, rules) == masked(two, rules)
    three = [{"output_type": "display_data", "data": {"text/html": "y"}, "metadata": {}}]
    assert masked(one, rules) != masked(three, rules)


def test_a_stream_split_in_two_is_one_output():
    merged = coalesced([stream("a"), stream("b\n"), {"output_type": "error"}, stream("c")])
    assert [o.get("text") for o in merged] == ["ab\n", None, "c"]
    assert masked([stream("ab\n")], []) == masked(coalesced([stream("a"), stream("b\n")]), [])


def test_coalescing_leaves_the_outputs_as_they_were():
    outputs = [stream("a"), stream("b")]
    coalesced(outputs)
    assert outputs == [stream("a"), stream("b")]


def test_new_outputs_keep_the_cells_metadata():
    """A folded cell (a prediction's answer) stays folded when its outputs are refreshed."""
    folded = {"collapsed": True, "jupyter": {"outputs_hidden": True, "source_hidden": True}}
    stored = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    stored.cells[0].metadata.update(folded)
    stored.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="0\n")]
    fresh = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    fresh.cells[0].metadata["execution"] = {"iopub.status.idle": "2026-01-01T00:00:00Z"}
    fresh.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="1\n")]
    assert keep_changed(stored, fresh, maskers(), every=False) == 1
    assert stored.cells[0].outputs == fresh.cells[0].outputs
    assert stored.cells[0].metadata == folded


def test_a_cell_stored_without_an_execution_count_gets_one():
    """A cell with no output and no count was never run: nbval compares nothing for it."""
    stored = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    fresh = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    fresh.cells[0].execution_count = 7
    assert keep_changed(stored, fresh, maskers(), every=False) == 1
    assert stored.cells[0].execution_count == 7
    assert keep_changed(stored, fresh, maskers(), every=False) == 0  # now it has one
