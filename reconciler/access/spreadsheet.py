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
from typing import IO, Any

from reconciler.access.holdings import is_administrative
from reconciler.access.view import held_by

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
    write_csv(documents, out)
    return out.getvalue()


def write_csv(documents: Iterable[Json], out: IO[str]) -> None:
    """`render_csv` written row by row, never held whole."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    for document in documents:
        writer.writerows(rows(document))


def rows(document: Json) -> Iterator[tuple[str, ...]]:
    """Every row, its cells already text and guarded. A member's cells are made once for
    all its rows, and a privilege's once for the whole report: a 10,000-member report has
    some 200,000 rows but only a few hundred distinct privilege cells."""
    portal = cells(document["portal"]["name"])
    held: dict[tuple[str, bool], tuple[str, ...]] = {}
    holds = held_by(document)
    for m in document["members"]:
        who = portal + cells(
            m["username"], m["role"], m["roleType"], m["level"], m["disabled"], m["lastLogin"]
        )
        privileges = holds(m)
        if not privileges:
            yield (*who, "", "", "")
        for key in privileges:
            if key not in held:
                held[key] = cells(key[0], is_administrative(key[0]), key[1])
            yield who + held[key]


def cells(*values: object) -> tuple[str, ...]:
    return tuple(guard(_cell(value)) for value in values)


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def guard(cell: str) -> str:
    """`cell`, with a leading apostrophe when a spreadsheet would read it as a formula."""
    return "'" + cell if cell.startswith(_FORMULA_STARTS) else cell
