"""The access report as CSV, for a spreadsheet: one row per member and privilege (a
member holding none gets one row with the privilege empty), a header row first.

A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (or a tab or carriage
return, which some strip first) as a formula: such a cell gets a leading apostrophe, so
a role named `=HYPERLINK(...)` is shown as text, never run (OWASP: CSV injection).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from reconciler.access.holdings import is_administrative

Json = dict[str, Any]

HEADER = (
    "portal",
    "username",
    "role",
    "roleType",
    "level",
    "disabled",
    "lastLogin",
    "privilege",
    "administrative",
    "disabledByLevel",
)
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def render_csv(documents: Sequence[Json]) -> str:
    """The rows of each portal's report, under one header."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for document in documents:
        writer.writerows(_guarded(row) for row in rows(document))
    return out.getvalue()


def rows(document: Json) -> Iterator[tuple[object, ...]]:
    portal = document["portal"]["name"]
    for m in document["members"]:
        who = (
            portal,
            m["username"],
            m["role"],
            m["roleType"],
            m["level"],
            m["disabled"],
            m["lastLogin"],
        )
        if not m["privileges"]:
            yield (*who, None, None, None)
        for p in m["privileges"]:
            yield (*who, p["name"], is_administrative(p["name"]), p["disabledByLevel"])


def _guarded(row: Iterable[object]) -> list[str]:
    return [guard(_cell(value)) for value in row]


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def guard(cell: str) -> str:
    """`cell`, with a leading apostrophe when a spreadsheet would read it as a formula."""
    return "'" + cell if cell.startswith(_FORMULA_STARTS) else cell
