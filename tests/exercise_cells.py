"""Write each exercise's three notebook cells from its unit (``python tests/exercise_cells.py``).

An exercise's cells in its chapter's notebook are made from its unit
(``agentlab/course/exercises/units/<id>.toml``), never written by hand:

1. a markdown cell: ``### 练习 <id>　<title>``, a blank line, the prompt (Chinese);
2. a code cell: the starter;
3. a code cell: ``check("<id>", <answer name>)``.

The script finds the markdown cell that starts with ``### 练习 <id>`` and rewrites it and
the two cells after it; outputs are left alone (re-run the notebook with ``make
notebooks NB=...`` if a starter changed). ``tests/course/exercises/test_units.py``
checks that every notebook holds exactly these cells.

A prediction ("predict, then run") is answered further down by cells that are not its
own: the next code cell with outputs that belongs to no exercise runs the scenario for
real (several predictions may share it), and the markdown cell after it explains what happened.
:func:`revealing` finds them; the notebook keeps them collapsed until the student acts.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def cells(exercise: Any) -> tuple[str, str, str]:
    """The markdown, starter and check cells of ``exercise``, in Chinese."""
    heading = f"### 练习 {exercise.id}\u3000{exercise.title}"  # as in "# 第 1 章\u3000…"
    check = f'check("{exercise.id}", {exercise.answer_name})'
    return f"{heading}\n\n{exercise.prompt}", exercise.starter.rstrip("\n"), check


def lines(text: str) -> list[str]:
    """A cell's source as the notebook format stores it: lines, each but the last with \\n."""
    return text.splitlines(keepends=True)


def revealing(found: list[dict], exercise_id: str) -> list[int]:
    """Indexes of the cells in ``found`` that show the answer to prediction ``exercise_id``:
    the first code cell with outputs after its check cell that is no exercise's own (the
    real run), and the markdown cell right after that one (the explanation), if any."""
    heading = f"### 练习 {exercise_id}\u3000"
    [at] = [i + 3 for i, c in enumerate(found) if "".join(c["source"]).startswith(heading)]
    while at < len(found):
        cell = found[at]
        if cell["cell_type"] == "markdown" and "".join(cell["source"]).startswith("### 练习 "):
            at += 3  # another exercise's prompt, starter and check
        elif cell["cell_type"] == "code" and cell["outputs"]:  # not a cell that only sets up
            after = found[at + 1 : at + 2]
            return [at] + ([at + 1] if after and after[0]["cell_type"] == "markdown" else [])
        else:
            at += 1
    return []


def main() -> int:
    os.environ["AGENTLAB_LANG"] = "zh"
    from agentlab.course.exercises import exercises

    for path in sorted(NOTEBOOKS.glob("0*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        found = notebook["cells"]
        for exercise in exercises(path.name[:2]):
            heading = f"### 练习 {exercise.id}\u3000"
            [at] = [i for i, c in enumerate(found) if "".join(c["source"]).startswith(heading)]
            for cell, text in zip(found[at : at + 3], cells(exercise), strict=True):
                cell["source"] = lines(text)
        text = json.dumps(notebook, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
        if text != path.read_text(encoding="utf-8"):
            path.write_text(text, encoding="utf-8")
            print(f"{path.name}: cells written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
