"""The access report as Markdown (a pull-request or issue comment, a wiki page): findings
first, then tables of roles, members and privileges. Names are inline code (a `|`
escaped, so a role name can neither end a cell nor be markup) and messages are
backslash-escaped prose, as `shown` escapes them for every Markdown output."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, Any

from reconciler.access.text import MEMBER_HEADER, few, member_cells, through_roles
from reconciler.shown import markdown_text, table_cell

Json = dict[str, Any]


def render_markdown(document: Json) -> str:
    out = io.StringIO()
    write_markdown(document, out)
    return out.getvalue()


def write_markdown(document: Json, out: IO[str]) -> None:
    """The report written row by row: the members' table is never one string."""
    portal = document["portal"]
    lines = [
        f"## orgctl access: {markdown_text(portal['name'])}",
        "",
        f"{table_cell(portal['url'])} at {document['generatedAt']}:"
        f" {len(document['members'])} member(s), {len(document['roles'])} role(s);"
        f" sign-ins older than {document['staleDays']} days are stale.",
    ]
    if document["privilegeFilter"]:
        patterns = ", ".join(table_cell(p) for p in document["privilegeFilter"])
        lines += ["", f"Only privileges matching {patterns}."]
    lines += ["", *_findings(document["findings"])]
    lines += ["", *_roles(document["roles"]), ""]
    out.writelines(line + "\n" for line in lines)
    rows = member_cells(document, table_cell, markdown_text)
    out.writelines(line + "\n" for line in _table("Members", MEMBER_HEADER, rows))
    out.write("\n")
    out.writelines(line + "\n" for line in _privileges(document["privileges"]))


def _table(
    title: str, header: Sequence[str], rows: Callable[[], Iterable[Sequence[str]]]
) -> Iterator[str]:
    """`rows` makes the rows afresh: once to count them, once to write them."""
    count = sum(1 for _ in rows())
    if not count:
        yield from (f"### {title}", "", "None.")
        return
    yield from (f"### {title} ({count})", "", "| " + " | ".join(header) + " |")
    yield "|" + "---|" * len(header)
    yield from ("| " + " | ".join(row) + " |" for row in rows())


def _listed(rows: Sequence[Sequence[str]]) -> Callable[[], Sequence[Sequence[str]]]:
    return lambda: rows


def _findings(findings: Sequence[Json]) -> Iterator[str]:
    rows = [
        (
            f"**{f['severity']}**",
            table_cell(f["kind"]),
            table_cell(f["subject"]),
            markdown_text(f["message"]),
            few(f["privileges"], table_cell),
        )
        for f in findings
    ]
    header = ("severity", "kind", "subject", "message", "privileges")
    return _table("Findings", header, _listed(rows))


def _roles(roles: Sequence[Json]) -> Iterator[str]:
    rows = [
        (
            table_cell(r["name"]),
            r["type"],
            str(r["holders"]),
            str(len(r["privileges"])),
            "yes" if r["administrative"] else "no",
        )
        for r in roles
    ]
    header = ("role", "type", "holders", "privileges", "administrative")
    return _table("Roles", header, _listed(rows))


def _privileges(privileges: Sequence[Json]) -> Iterator[str]:
    rows = [
        (table_cell(p["name"]), str(p["holders"]), markdown_text(through_roles(p["roles"])))
        for p in privileges
    ]
    return _table("Privileges", ("privilege", "holders", "through roles"), _listed(rows))
