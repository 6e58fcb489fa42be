"""analyze_csv: the numbers, every error code, and the folder it may not leave."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentlab.tools import sales_tools
from agentlab.tools.sales import analyze_csv

from ..conftest import needs_symlinks, write_csv

pytestmark = pytest.mark.usefixtures("english")  # these tests read messages


def run(data_dir, relative_path):
    return sales_tools(data_dir).call("analyze_csv", json.dumps({"relative_path": relative_path}))


def test_seed_numbers_from_the_repository_data():
    result = sales_tools().call("analyze_csv", '{"relative_path": "sales.csv"}')
    assert result["status"] == "ok"
    data = result["data"]
    assert data["row_count"] == 5
    assert data["revenue_by_category"] == [
        {"category": "显示器", "revenue": 4495},
        {"category": "键盘", "revenue": 2985},
        {"category": "鼠标", "revenue": 2212},
    ]
    assert (data["total_revenue"], data["top_category"], data["top_revenue"]) == (
        9692,
        "显示器",
        4495,
    )
    assert result["source"] == ["input/sales.csv"]
    assert result["error"] is None


def test_reads_utf8_with_bom(data_dir):
    write_csv(data_dir, "bom.csv", "category,quantity,unit_price\n笔,2,10\n", encoding="utf-8-sig")
    result = run(data_dir, "bom.csv")
    assert result["status"] == "ok"
    assert result["data"]["revenue_by_category"] == [{"category": "笔", "revenue": 20}]


def test_ties_sort_by_name(data_dir):
    write_csv(data_dir, "tie.csv", "category,quantity,unit_price\nb,1,5\na,5,1\n")
    data = run(data_dir, "tie.csv")["data"]
    assert [r["category"] for r in data["revenue_by_category"]] == ["a", "b"]


OUTSIDE = ["/etc/passwd", "../input/sales.csv", "sub/../../x.csv", "a\x00.csv", "..\\sales.csv"]


def test_paths_outside_input_are_refused(data_dir):
    codes = {
        path: (run(data_dir, path)["error"] or {}).get("code") for path in [*OUTSIDE, "", "C:x"]
    }
    assert {path: code for path, code in codes.items() if code != "PATH_NOT_ALLOWED"} == {}


@needs_symlinks
def test_symlink_leading_out_is_refused(data_dir, tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("category,quantity,unit_price\nsecret,1,1\n", encoding="utf-8")
    os.symlink(secret, data_dir / "input" / "link.csv")
    result = run(data_dir, "link.csv")
    assert result["error"]["code"] == "PATH_NOT_ALLOWED"
    assert "secret" not in json.dumps(result)


def test_missing_file(data_dir):
    result = run(data_dir, "missing.csv")
    assert result["error"]["code"] == "FILE_NOT_FOUND"
    assert result["source"] == ["input/missing.csv"]


@pytest.mark.parametrize(
    "text, code, where",
    [
        ("category,qty,unit_price\n键盘,1,1\n", "INVALID_CSV", "quantity"),
        ("category,quantity,unit_price\n", "EMPTY_CSV", ""),
        ("", "EMPTY_CSV", ""),
        ("category,quantity,unit_price\n键盘,1,1\n,2,3\n", "INVALID_ROW", "line 3"),
        ("category,quantity,unit_price\n键盘,1.5,1\n", "INVALID_ROW", "line 2"),
        ("category,quantity,unit_price\n键盘,-1,1\n", "INVALID_ROW", "line 2"),
        ("category,quantity,unit_price\n键盘,1,abc\n", "INVALID_ROW", "unit_price"),
        ("category,quantity,unit_price\n键盘,1,2,3\n", "INVALID_ROW", "more fields"),
        # a second quantity column: DictReader would keep the last one silently
        ("category,quantity,unit_price,quantity\n键盘,1,2,3\n", "INVALID_CSV", "more than once"),
        ("category;quantity;unit_price\n键盘;1;2\n", "INVALID_CSV", "header is: category;"),
        ("\n\n\n", "EMPTY_CSV", "empty"),
        ("category,quantity,unit_price\n键盘," + "9" * 5000 + ",2\n", "INVALID_ROW", "12 digits"),
        ("category,quantity,unit_price\n键盘," + "0" * 4400 + "1,2\n", "INVALID_ROW", "12 digits"),
    ],
)
def test_bad_csv_content(data_dir, text, code, where):
    write_csv(data_dir, "bad.csv", text)
    result = run(data_dir, "bad.csv")
    assert result["status"] == "error"
    assert result["error"]["code"] == code
    assert where in result["error"]["message"]


def test_undecodable_file(data_dir):
    (data_dir / "input" / "gbk.csv").write_bytes(
        "category,quantity,unit_price\n键盘,1,1\n".encode("gbk")
    )
    assert run(data_dir, "gbk.csv")["error"]["code"] == "INVALID_CSV"


def test_a_directory_is_not_a_file(data_dir):
    (data_dir / "input" / "folder.csv").mkdir()
    assert run(data_dir, "folder.csv")["error"]["code"] == "FILE_NOT_FOUND"


rows = st.lists(
    st.tuples(
        st.sampled_from(["键盘", "鼠标", "显示器", "耳机", "a,b"]),
        st.integers(0, 10_000),
        st.integers(0, 10_000),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(rows=rows)
def test_matches_a_reference_sum(tmp_path_factory, rows):
    """Against the plainest possible reference: add up quantity * price."""
    import csv
    import io

    input_dir = tmp_path_factory.mktemp("data") / "input"
    input_dir.mkdir()
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["category", "quantity", "unit_price"])
    writer.writerows(rows)
    (input_dir / "r.csv").write_text(buffer.getvalue(), encoding="utf-8")

    expected: dict[str, int] = {}
    for category, quantity, price in rows:
        expected[category] = expected.get(category, 0) + quantity * price

    data = analyze_csv(input_dir, "r.csv")["data"]
    assert {r["category"]: r["revenue"] for r in data["revenue_by_category"]} == expected
    assert data["total_revenue"] == sum(expected.values())
    assert data["row_count"] == len(rows)
    assert data["top_revenue"] == max(expected.values())
    revenues = [r["revenue"] for r in data["revenue_by_category"]]
    assert revenues == sorted(revenues, reverse=True)


# -- CSV edge cases: the right result or the right error ------------------------------------

EDGE_ROWS = "category,quantity,unit_price\n键盘,2,10\n鼠标,1,5\n"


@pytest.mark.parametrize(
    "name, raw",
    [
        ("bom", ("\ufeff" + EDGE_ROWS).encode("utf-8")),
        ("crlf", EDGE_ROWS.replace("\n", "\r\n").encode("utf-8")),
        ("trailing_blank_lines", (EDGE_ROWS + "\n\n\r\n").encode("utf-8")),
        ("leading_blank_lines", ("\ufeff\n\r\n" + EDGE_ROWS).encode("utf-8")),
        (
            "extra_columns",
            b"id,category,note,quantity,unit_price\n" + "1,键盘,x,2,10\n2,鼠标,y,1,5\n".encode(),
        ),
        ("quoted_fields", 'category,quantity,unit_price\n"键盘",2,"10"\n鼠标,"1",5\n'.encode()),
    ],
)
def test_edge_cases_that_still_hold_good_data(data_dir, name, raw):
    (data_dir / "input" / f"{name}.csv").write_bytes(raw)
    result = run(data_dir, f"{name}.csv")
    assert result["status"] == "ok", result
    assert result["data"]["revenue_by_category"] == [
        {"category": "键盘", "revenue": 20},
        {"category": "鼠标", "revenue": 5},
    ]
    assert result["data"]["row_count"] == 2


def test_blank_lines_above_the_header_keep_the_line_numbers_of_bad_rows(data_dir):
    write_csv(data_dir, "b.csv", "\n\ncategory,quantity,unit_price\n键盘,2,10\n鼠标,x,5\n")
    result = run(data_dir, "b.csv")
    assert result["error"]["code"] == "INVALID_ROW"
    assert "line 5" in result["error"]["message"]


def test_a_quoted_comma_stays_inside_its_field(data_dir):
    write_csv(data_dir, "q.csv", 'category,quantity,unit_price\n"键盘, 无线",2,10\n')
    assert run(data_dir, "q.csv")["data"]["top_category"] == "键盘, 无线"
    write_csv(data_dir, "q2.csv", 'category,quantity,unit_price\n键盘,"1,200",10\n')
    result = run(data_dir, "q2.csv")
    assert result["error"]["code"] == "INVALID_ROW" and "'1,200'" in result["error"]["message"]


def test_a_long_file_is_summed_exactly(data_dir):
    rows = [(f"c{i % 7}", i % 13, i % 101) for i in range(200_000)]
    text = "category,quantity,unit_price\n" + "".join(f"{c},{q},{p}\n" for c, q, p in rows)
    write_csv(data_dir, "long.csv", text)
    result = run(data_dir, "long.csv")
    assert result["data"]["row_count"] == len(rows)
    assert result["data"]["total_revenue"] == sum(q * p for _, q, p in rows)


def test_a_huge_file_is_refused_without_reading_it(data_dir):
    with open(data_dir / "input" / "huge.csv", "wb") as handle:
        handle.write(EDGE_ROWS.encode())
        handle.truncate(21 * 1024 * 1024)  # sparse: instant, no 21 MB written
    result = run(data_dir, "huge.csv")
    assert result["error"]["code"] == "FILE_TOO_LARGE"


def test_a_giant_field_is_an_error_not_a_crash(data_dir):
    write_csv(data_dir, "field.csv", 'category,quantity,unit_price\n"' + "x" * 200_000 + '",1,1\n')
    result = run(data_dir, "field.csv")
    assert result["error"]["code"] == "INVALID_CSV" and "field" in result["error"]["message"]


def test_non_utf8_names_the_problem(data_dir):
    (data_dir / "input" / "latin1.csv").write_bytes(b"category,quantity,unit_price\ncaf\xe9,1,1\n")
    result = run(data_dir, "latin1.csv")
    assert result["error"] == {"code": "INVALID_CSV", "message": "the file is not UTF-8 text"}


# -- what the security review found (review9) -------------------------------------


def test_an_unclosed_quote_is_named_not_taken_for_a_bad_count(data_dir):
    """A quote left open swallowed the rest of the file into one category and
    the error blamed quantity; now it says the quotes do not pair up."""
    text = 'category,quantity,unit_price\n耳机,2,99\n"键盘,3,10\n鼠标,1,5\n'
    write_csv(data_dir, "quote.csv", text)
    error = run(data_dir, "quote.csv")["error"]
    assert error["code"] == "INVALID_CSV"
    assert "quotes" in error["message"] and "quantity" not in error["message"]
    assert "line 3" in error["message"]  # where the broken record starts
    write_csv(data_dir, "stray.csv", 'category,quantity,unit_price\n"键盘"x,1,1\n')
    assert "line 2" in run(data_dir, "stray.csv")["error"]["message"]


@pytest.mark.parametrize("category", ["键\x00", '"耳\n机"', "鼠\x1b[31m标"])
def test_a_control_character_in_a_category_is_a_bad_row(data_dir, category):
    """NUL, a line break (inside quotes) or an escape sequence is not a category name."""
    write_csv(data_dir, "ctl.csv", f"category,quantity,unit_price\n耳机,2,99\n{category},1,5\n")
    error = run(data_dir, "ctl.csv")["error"]
    assert error["code"] == "INVALID_ROW" and "control character" in error["message"]


@needs_symlinks
def test_a_symlink_loop_in_input_is_refused_without_the_absolute_path(data_dir):
    os.symlink("loop.csv", data_dir / "input" / "loop.csv")
    result = run(data_dir, "loop.csv")
    assert result["error"]["code"] == "PATH_NOT_ALLOWED"
    assert str(data_dir) not in json.dumps(result, ensure_ascii=False)
