"""The access report as Markdown (a pull-request or issue comment, a wiki page): findings
first, then tables of roles, members and privileges. Names are inline code (a `|`
escaped, so a role name can neither end a cell nor be markup) and messages are
backslash-escaped prose, as `shown` escapes them for every Markdown output."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reconciler.access.text import few, privilege_count, through_roles
from reconciler.shown import markdown_text, table_cell

Json = dict[str, Any]


def render_markdown(document: Json) -> str:
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
    lines += ["", *_roles(document["roles"]), "", *_members(document["members"])]
    lines += ["", *_privileges(document["privileges"])]
    return "\n".join(lines) + "\n"


def _table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    if not rows:
        return [f"### {title}", "", "None."]
    return [
        f"### {title} ({len(rows)})",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def _findings(findings: Sequence[Json]) -> list[str]:
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
    return _table("Findings", ("severity", "kind", "subject", "message", "privileges"), rows)


def _roles(roles: Sequence[Json]) -> list[str]:
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
    return _table("Roles", ("role", "type", "holders", "privileges", "administrative"), rows)


def _members(members: Sequence[Json]) -> list[str]:
    rows = [
        (
            table_cell(m["username"]),
            table_cell(m["role"]) if m["role"] else "-",
            "-" if m["level"] is None else str(m["level"]),
            {True: "disabled", False: "enabled", None: "-"}[m["disabled"]],
            m["lastLogin"] or "-",
            markdown_text(privilege_count(m["privileges"])),
        )
        for m in members
    ]
    header = ("member", "role", "level", "account", "last sign-in", "privileges")
    return _table("Members", header, rows)


def _privileges(privileges: Sequence[Json]) -> list[str]:
    rows = [
        (table_cell(p["name"]), str(len(p["holders"])), markdown_text(through_roles(p["holders"])))
        for p in privileges
    ]
    return _table("Privileges", ("privilege", "holders", "through roles"), rows)
