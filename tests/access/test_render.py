"""The formats render the one document: CSV a spreadsheet cannot be made to run, Markdown
and text a role name cannot subvert, JSON exactly the document."""

from __future__ import annotations

import csv
import io
import json

from reconciler.access import render_access
from reconciler.access.spreadsheet import HEADER, guard
from reconciler.state import Role

from .portal import member, portal, report

HOSTILE = "<script>alert(1)</script> | =cmd|' /C calc'!A0"


def hostile_report() -> dict[str, object]:
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
