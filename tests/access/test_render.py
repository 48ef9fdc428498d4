"""The formats render the one document: CSV a spreadsheet cannot be made to run, Markdown
and text a role name cannot subvert, JSON exactly the document."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from reconciler.access import FORMATS, render_access
from reconciler.access.render import write_access
from reconciler.access.spreadsheet import HEADER, guard
from reconciler.html.page import SHOWN
from reconciler.html.tables import Column, cell, number, table, write_table
from reconciler.state import Role

from .portal import member, portal, report

HOSTILE = "<script>alert(1)</script> | =cmd|' /C calc'!A0"


def hostile_report() -> dict[str, Any]:
    roles = {HOSTILE: Role(HOSTILE, "", frozenset({"portal:user:joinGroup"}), id="r9")}
    return report(portal(member("mal", HOSTILE), member("-bob", "org_user"), roles=roles))


def test_json_is_the_document() -> None:
    document = hostile_report()
    assert json.loads(render_access(document, "json")) == document


def test_csv_has_a_header_and_a_row_per_member_and_privilege() -> None:
    document = report(portal(member("olga", "Ops"), member("x", "Gone")))
    rows = list(csv.reader(io.StringIO(render_access(document, "csv"))))
    assert tuple(rows[0]) == HEADER
    olga = [r for r in rows[1:] if r[1] == "olga"]
    assert [(r[7], r[8], r[9]) for r in olga] == [
        ("portal:admin:deleteUsers", "true", "false"),
        ("portal:admin:viewUsers", "true", "false"),
        ("portal:user:joinGroup", "false", "false"),
    ]
    assert olga[0][:7] == ["hq", "olga", "Ops", "custom", "2", "false", "2026-10-31T00:00:00Z"]
    # A member holding nothing known still has its row.
    assert [r[7] for r in rows[1:] if r[1] == "x"] == [""]


def test_csv_cells_that_a_spreadsheet_would_run_start_with_an_apostrophe() -> None:
    rows = list(csv.reader(io.StringIO(render_access(hostile_report(), "csv"))))
    cells = [cell for row in rows for cell in row]
    assert "'-bob" in cells
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells)
    assert [guard(c) for c in ("=1+1", "+1", "-1", "@SUM(A1)", "\tx", "plain")] == [
        "'=1+1",
        "'+1",
        "'-1",
        "'@SUM(A1)",
        "'\tx",
        "plain",
    ]


def test_markdown_shows_a_hostile_role_name_as_code_in_its_own_cell() -> None:
    text = render_access(hostile_report(), "markdown")
    role_row = next(line for line in text.splitlines() if line.startswith("| `<script>"))
    assert role_row == (
        "| `<script>alert(1)</script> \\| =cmd\\|' /C calc'!A0` | custom | 1 | 1 | no |"
    )
    for line in text.splitlines():
        if line.startswith("|"):
            # outside code spans no raw markup and no unescaped pipe splits a cell
            outside = "".join(line.split("`")[0::2])
            assert "<script>" not in outside, line
    through = next(
        line for line in text.splitlines() if line.startswith("| `portal:user:joinGroup`")
    )
    assert "\\<script\\>" in through and "<script>" not in through


def test_text_shows_control_characters_as_escapes_and_findings_first() -> None:
    name = "Ops\x1b[31m\nAdmin"
    roles = {name: Role(name, "", frozenset({"portal:admin:viewUsers"}), id="r9")}
    text = render_access(report(portal(member("olga", name), roles=roles)), "text")
    assert "\x1b" not in text and "Ops\\x1b[31m\\nAdmin" in text
    assert text.index("Findings") < text.index("Roles:") < text.index("Members:")
    assert text.index("Members:") < text.index("Privileges:")
    assert "admin-custom-role" in text.split("Roles:")[0]


class Chunks(io.StringIO):
    """A stream that keeps the size of every write it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.sizes: list[int] = []

    def write(self, s: str, /) -> int:
        self.sizes.append(len(s))
        return super().write(s)


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_is_written_as_it_is_made_never_as_one_string(fmt: str) -> None:
    levels = (1, 2, 2)
    members = [member(f"u{n:04d}", ("Ops", "org_user")[n % 2], levels[n % 3]) for n in range(600)]
    document = report(portal(*members))
    out = Chunks()
    write_access(document, fmt, out)
    whole = out.getvalue()
    assert whole == render_access(document, fmt)
    # Every member's row is a write of its own: no write holds more than a few rows.
    assert len(out.sizes) > len(members)
    assert max(out.sizes) < len(whole) / 20


def test_a_streamed_html_table_is_the_table_made_whole() -> None:
    columns = (Column("Name"), Column("Count", numeric=True))
    rows = [[cell(f"<b>{n}</b>"), number(n)] for n in range(SHOWN + 3)]
    for made in (rows, []):
        out = Chunks()
        write_table(out, len(made), "t1", "rows", columns, iter(made), empty="Nothing.")
        assert out.getvalue() == table("t1", "rows", columns, made, empty="Nothing.")
