"""``analyze_csv``: the read-only sales tool of chapter 02.

It reads a CSV with the columns ``category,quantity,unit_price`` from the
``input/`` folder of a data directory (the course data shipped inside the
package unless told otherwise) and returns revenue per category, the total
and the top category. It never reads outside that folder and never guesses:
a bad file or row is an error result naming the problem (and the line).
"""

from __future__ import annotations

import csv
import os
import unicodedata
from importlib import resources
from pathlib import Path

from ..i18n import reason, tr
from .registry import Tool, ToolRegistry
from .result import ToolResult, error, ok
from .sandbox import link_refusal, open_inside, resolve_inside

REQUIRED_COLUMNS = ("category", "quantity", "unit_price")
MAX_CSV_BYTES = 20 * 1024 * 1024  # a teaching tool; a bigger file is a mistake, not data
MAX_COUNT_DIGITS = 12  # a quantity or price longer than this is a typo, not a sale
# The teaching data is package data: found the same way from a checkout or a
# wheel installed anywhere. Read it, never write it (sandbox_copy() copies first).
COURSE_DATA_DIR = Path(str(resources.files("agentlab") / "data"))


def analyze_csv(input_dir: Path, relative_path: str) -> ToolResult:
    """Revenue by category for ``input_dir / relative_path``."""
    path = resolve_inside(input_dir, relative_path)
    if isinstance(path, dict):  # the path broke a sandbox rule: PATH_NOT_ALLOWED
        return path
    source = [f"input/{path.relative_to(input_dir.resolve()).as_posix()}"]
    try:  # utf-8-sig reads files with and without a byte-order mark alike
        with open_inside(input_dir, path, encoding="utf-8-sig", newline="") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_CSV_BYTES:
                message = tr("csv.too_large", size=size, limit=MAX_CSV_BYTES)
                return error("FILE_TOO_LARGE", message, source)
            # strict: a quote left open must not swallow the rest of the file as one field
            reader = csv.DictReader(handle, strict=True)
            counted = _revenue(reader, source)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return error("FILE_NOT_FOUND", tr("csv.not_found", name=repr(relative_path)), source)
    except UnicodeDecodeError:
        return error("INVALID_CSV", tr("csv.not_utf8"), source)
    except csv.Error:  # quotes that do not pair up, or one field beyond the module's limit
        # line_num still names the last row read: the broken record starts on the next line
        message = tr("csv.bad_structure", line=reader.line_num + 1, limit=csv.field_size_limit())
        return error("INVALID_CSV", message, source)
    except OSError as exc:  # a link swapped in on the way, or the disk said no
        refused = link_refusal(exc, relative_path)
        return refused or error("INVALID_CSV", tr("csv.unreadable", error=reason(exc)), source)
    if isinstance(counted, dict):  # an error result: the file is not sales data
        return counted
    revenue, rows = counted
    ranked = sorted(revenue.items(), key=lambda item: (-item[1], item[0]))
    data = {
        "row_count": rows,
        "revenue_by_category": [{"category": c, "revenue": r} for c, r in ranked],
        "total_revenue": sum(revenue.values()),
        "top_category": ranked[0][0],
        "top_revenue": ranked[0][1],
    }
    return ok(data, source)


def _revenue(reader: csv.DictReader, source: list[str]) -> tuple[dict[str, int], int] | ToolResult:
    """Revenue per category and the number of rows; or the error that stops the count."""
    # DictReader takes the first row it meets for the header, and a blank line is an
    # empty row: set fieldnames back to None and it reads the next one instead.
    while reader.fieldnames == []:
        reader.fieldnames = None
    header = reader.fieldnames
    if header is None:  # no bytes, or only blank lines
        return error("EMPTY_CSV", tr("csv.empty_file"), source)
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        shown = ",".join(header)
        shown = shown if len(shown) <= 120 else shown[:117] + "..."
        message = tr("csv.missing_columns", columns=", ".join(missing), header=shown)
        return error("INVALID_CSV", message, source)
    twice = [c for c in REQUIRED_COLUMNS if header.count(c) > 1]
    if twice:  # DictReader would silently keep the last one: never guess
        return error("INVALID_CSV", tr("csv.repeated_columns", columns=", ".join(twice)), source)
    revenue: dict[str, int] = {}
    rows = 0
    for row in reader:
        problem = _row_problem(row)
        if problem:
            message = tr("csv.bad_row", line=reader.line_num, problem=problem)
            return error("INVALID_ROW", message, source)
        category = row["category"].strip()
        revenue[category] = revenue.get(category, 0) + int(row["quantity"]) * int(row["unit_price"])
        rows += 1
    if rows == 0:
        return error("EMPTY_CSV", tr("csv.no_rows"), source)
    return revenue, rows


def _row_problem(row: dict[str, str | None]) -> str | None:
    if None in row:
        return tr("csv.too_many_fields")
    category = (row.get("category") or "").strip()
    if not category:
        return tr("csv.empty_category")
    if any(unicodedata.category(char) == "Cc" for char in category):  # Cc: control characters
        return tr("csv.control_character", value=repr(category[:40]))
    for column in ("quantity", "unit_price"):
        text = (row.get(column) or "").strip()
        if not (text.isascii() and text.isdigit()):
            return tr("csv.not_a_count", column=column, value=repr(text[:40]))
        if len(text) > MAX_COUNT_DIGITS:
            return tr("csv.count_too_long", column=column, digits=MAX_COUNT_DIGITS)
    return None


def sales_tools(data_dir: str | Path | None = None) -> ToolRegistry:
    """A registry holding ``analyze_csv`` over ``<data_dir>/input/``."""
    input_dir = Path(data_dir or COURSE_DATA_DIR) / "input"

    def run(relative_path: str) -> ToolResult:
        return analyze_csv(input_dir, relative_path)

    path = {"type": "string", "description": tr("csv.describe.relative_path")}
    schema = {"properties": {"relative_path": path}, "required": ["relative_path"]}
    return ToolRegistry([Tool("analyze_csv", tr("csv.describe.analyze_csv"), schema, run)])
