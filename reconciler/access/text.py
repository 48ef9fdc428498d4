"""The access report as a person reads it in a terminal or a CI log: the findings first,
then compact tables of roles, members and privileges. Every name is shown with control
and bidirectional characters as escapes (`shown.safe`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from reconciler.access.holdings import is_administrative
from reconciler.shown import safe

Json = dict[str, Any]


def render_text(document: Json) -> str:
    lines = [*_head(document), "", *_findings(document["findings"])]
    lines += ["", *_roles(document["roles"])]
    lines += ["", *_members(document["members"])]
    lines += ["", *_privileges(document["privileges"])]
    return "\n".join(safe(line) for line in lines) + "\n"


def _head(document: Json) -> list[str]:
    portal = document["portal"]
    counts = f"{len(document['members'])} member(s), {len(document['roles'])} role(s)"
    lines = [
        f"Access: {portal['name']} ({portal['url']}) at {document['generatedAt']}: {counts};"
        f" sign-ins older than {document['staleDays']} days are stale"
    ]
    if document["privilegeFilter"]:
        lines.append(
            "Only privileges matching: "
            + ", ".join(document["privilegeFilter"])
            + " (members holding none of them are left out)"
        )
    return lines


def summary_line(document: Json) -> str:
    """The report in one line: what `access -o FILE` prints beside the file it wrote."""
    portal = document["portal"]
    counts = f"{len(document['members'])} member(s), {len(document['roles'])} role(s)"
    findings = document["findings"]
    told = f"findings: {_severities(findings)}" if findings else "no findings"
    return safe(f"Access: {portal['name']}: {counts}; {told}.")


def _severities(findings: Sequence[Json]) -> str:
    severities = Counter(f["severity"] for f in findings)
    return ", ".join(
        f"{n} {s}{'s' if n != 1 and s == 'warning' else ''}" for s, n in severities.items()
    )


def _findings(findings: Sequence[Json]) -> list[str]:
    if not findings:
        return ["Findings: none."]
    lines = [f"Findings ({_severities(findings)}):"]
    for f in findings:
        named = few(f["privileges"])
        lines.append(f"  {f['severity']:<8} {f['kind']:<19} {f['message']}")
        if named:
            lines.append(f"  {'':<8} {'':<19}   {named}")
    return lines


FEW = 5  # privileges a finding names in a line; the JSON names them all


def few(privileges: Sequence[str], shown: Callable[[str], str] = str) -> str:
    """The first privileges, then how many more."""
    named = ", ".join(shown(p) for p in privileges[:FEW])
    return named + (f" and {len(privileges) - FEW} more" if len(privileges) > FEW else "")


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Columns as wide as their widest cell (the last one left ragged)."""
    if not rows:
        return [f"{title}: none."]
    rows = [[safe(cell) for cell in row] for row in rows]
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header) - 1)]
    out = [f"{title}:"]
    for row in (header, *rows):
        cells = [f"{c:<{w}}" for c, w in zip(row, widths, strict=False)]
        out.append(("  " + "  ".join([*cells, row[-1]])).rstrip())
    return out


def _roles(roles: Sequence[Json]) -> list[str]:
    rows = [
        (
            r["name"],
            r["type"],
            str(r["holders"]),
            str(len(r["privileges"])),
            "yes" if r["administrative"] else "no",
        )
        for r in roles
    ]
    return table("Roles", ("role", "type", "holders", "privileges", "administrative"), rows)


def _members(members: Sequence[Json]) -> list[str]:
    rows = [
        (
            m["username"],
            m["role"] or "-",
            "-" if m["level"] is None else str(m["level"]),
            {True: "disabled", False: "enabled", None: "-"}[m["disabled"]],
            m["lastLogin"] or "-",
            privilege_count(m["privileges"]),
        )
        for m in members
    ]
    header = ("member", "role", "level", "account", "last sign-in", "privileges")
    return table("Members", header, rows)


def privilege_count(privileges: Sequence[Json]) -> str:
    admin = sum(is_administrative(p["name"]) for p in privileges)
    off = sum(p["disabledByLevel"] for p in privileges)
    notes = [f"{admin} administrative"] if admin else []
    notes += [f"{off} disabled by level"] if off else []
    return f"{len(privileges)}" + (f" ({', '.join(notes)})" if notes else "")


def _privileges(privileges: Sequence[Json]) -> list[str]:
    rows = [(p["name"], str(len(p["holders"])), through_roles(p["holders"])) for p in privileges]
    return table("Privileges", ("privilege", "holders", "through roles"), rows)


def through_roles(holders: Sequence[Json]) -> str:
    """Each role the holders hold it through, with how many (and how many of them have
    it disabled by their level)."""
    counts = Counter(h["role"] for h in holders)
    off = Counter(h["role"] for h in holders if h["disabledByLevel"])
    parts = []
    for role, n in sorted(counts.items(), key=lambda item: str(item[0])):
        note = f", {off[role]} disabled by level" if off[role] else ""
        parts.append(f"{role} ({n}{note})")
    return ", ".join(parts)
