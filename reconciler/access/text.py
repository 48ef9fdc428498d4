"""The access report as a person reads it in a terminal or a CI log: the findings first,
then compact tables of roles, members and privileges. Every name is shown with control
and bidirectional characters as escapes (`shown.safe`)."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import IO, Any

from reconciler.access.holdings import is_administrative
from reconciler.access.view import Held, held_by
from reconciler.shown import safe

Json = dict[str, Any]


def render_text(document: Json) -> str:
    out = io.StringIO()
    write_text(document, out)
    return out.getvalue()


def write_text(document: Json, out: IO[str]) -> None:
    """The report written line by line: the members' table is never one string."""
    lines: Iterable[str] = [*_head(document), "", *_findings(document["findings"])]
    lines = [*lines, "", *_roles(document["roles"]), ""]
    out.writelines(safe(line) + "\n" for line in lines)
    out.writelines(safe(line) + "\n" for line in _members(document))
    out.write("\n")
    out.writelines(safe(line) + "\n" for line in _privileges(document["privileges"]))


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


def table(
    title: str, header: Sequence[str], rows: Callable[[], Iterable[Sequence[str]]]
) -> Iterator[str]:
    """Columns as wide as their widest cell (the last one left ragged). `rows` makes the
    rows afresh: once to measure the columns, once to lay them out, so a table of 100,000
    rows is never held whole."""
    widths = [len(h) for h in header[:-1]]
    empty = True
    for row in rows():
        empty = False
        for i, c in enumerate(row[:-1]):
            widths[i] = max(widths[i], len(safe(c)))
    if empty:
        yield f"{title}: none."
        return
    yield f"{title}:"
    for row in _chain([header], rows()):
        cells = [f"{safe(c):<{w}}" for c, w in zip(row, widths, strict=False)]
        yield ("  " + "  ".join([*cells, row[-1]])).rstrip()


def _chain(
    first: Iterable[Sequence[str]], rest: Iterable[Sequence[str]]
) -> Iterator[Sequence[str]]:
    yield from first
    yield from rest


def _roles(roles: Sequence[Json]) -> Iterator[str]:
    def rows() -> Iterator[tuple[str, ...]]:
        for r in roles:
            yield (
                r["name"],
                r["type"],
                str(r["holders"]),
                str(len(r["privileges"])),
                "yes" if r["administrative"] else "no",
            )

    return table("Roles", ("role", "type", "holders", "privileges", "administrative"), rows)


def member_cells(
    document: Json, cell: Callable[[str], str] = str, note: Callable[[str], str] = str
) -> Callable[[], Iterator[tuple[str, ...]]]:
    """The members' rows (name and role through `cell`, the privilege count through
    `note`), made afresh on each call."""
    held = held_by(document)

    def rows() -> Iterator[tuple[str, ...]]:
        for m in document["members"]:
            yield (
                cell(m["username"]),
                cell(m["role"]) if m["role"] else "-",
                "-" if m["level"] is None else str(m["level"]),
                {True: "disabled", False: "enabled", None: "-"}[m["disabled"]],
                m["lastLogin"] or "-",
                note(privilege_count(held(m))),
            )

    return rows


MEMBER_HEADER = ("member", "role", "level", "account", "last sign-in", "privileges")


def _members(document: Json) -> Iterator[str]:
    return table("Members", MEMBER_HEADER, member_cells(document))


def privilege_count(privileges: Held) -> str:
    admin = sum(is_administrative(name) for name, _ in privileges)
    off = sum(disabled for _, disabled in privileges)
    notes = [f"{admin} administrative"] if admin else []
    notes += [f"{off} disabled by level"] if off else []
    return f"{len(privileges)}" + (f" ({', '.join(notes)})" if notes else "")


def _privileges(privileges: Sequence[Json]) -> Iterator[str]:
    def rows() -> Iterator[tuple[str, ...]]:
        for p in privileges:
            yield (p["name"], str(p["holders"]), through_roles(p["roles"]))

    return table("Privileges", ("privilege", "holders", "through roles"), rows)


def through_roles(roles: Sequence[Mapping[str, Any]]) -> str:
    """Each role the holders hold it through, with how many (and how many of them have
    it disabled by their level)."""
    parts = []
    for r in roles:
        off = r["disabledByLevel"]
        note = f", {off} disabled by level" if off else ""
        parts.append(f"{r['name']} ({r['holders']}{note})")
    return ", ".join(parts)
