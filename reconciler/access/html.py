"""The access report as HTML: findings first, then the role × privilege matrix, every
member with their effective privileges, and every privilege with who holds it.

It renders the JSON document of `orgctl access --format json` (README: "Access
reviews"); every value in it came from the portal and is treated as untrusted: a missing
or mistyped field shows as empty, never as an error or as markup.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import IO, Any

from reconciler.access.view import Held, held_by
from reconciler.html.page import Markup, join, page, page_frame, text
from reconciler.html.tables import Cell, Column, Ids, cell, number, table, write_table
from reconciler.plan.elements import ADMIN_PREFIX

TITLE = "orgctl access"
# Names a list shows before "and N more", as the text report names a finding's privileges.
FEW = 5


def render_access_html(document: Mapping[str, Any]) -> str:
    """One portal's access report as a self-contained page."""
    out = io.StringIO()
    write_access_html(document, out)
    return out.getvalue()


def write_access_html(document: Mapping[str, Any], out: IO[str]) -> None:
    """`render_access_html` written to `out` as it is made: the members' table, one row
    per member, is never one string."""
    portal = _mapping(document.get("portal"))
    title = f"{TITLE}: {_name(portal)}"
    opening, closing = page_frame(title)
    out.write(f"{opening}<h1>{text(title)}</h1>\n")
    write_access_body(document, Ids(), 2, out)
    out.write(closing)


def access_body(document: Mapping[str, Any], ids: Ids, level: int) -> Markup:
    """Everything under the page's heading, headings at `level`."""
    out = io.StringIO()
    write_access_body(document, ids, level, out)
    return Markup(out.getvalue())


def write_access_body(document: Mapping[str, Any], ids: Ids, level: int, out: IO[str]) -> None:
    findings = _mappings(document.get("findings"))
    roles = _mappings(document.get("roles"))
    members = _mappings(document.get("members"))
    privileges = _mappings(document.get("privileges"))
    head = [
        _facts(document),
        f'<p class="summary">{text(_summary(findings, roles, members))}</p>',
        _heading(level, f"Findings ({len(findings):,})"),
        "",
    ]
    out.write("\n".join(head))
    _write_findings(findings, ids, out)
    before = [
        "",
        _heading(level, f"Roles × privileges ({len(roles):,} roles)"),
        _matrix(roles, _strings(document.get("privilegeFilter")), ids),
        _heading(level, f"Members ({len(members):,})"),
        '<p class="muted">Struck through: held through the role but disabled at the'
        " member's level.</p>",
        "",
    ]
    out.write("\n".join(before))
    _write_members(members, held_by(document), ids, out)
    after = [
        "",
        _heading(level, f"Privileges ({len(privileges):,})"),
        _privileges(privileges, ids),
    ]
    out.write("\n".join(after))


def _heading(level: int, title: str) -> str:
    return f"<h{level}>{text(title)}</h{level}>"


def _facts(document: Mapping[str, Any]) -> str:
    portal = _mapping(document.get("portal"))
    facts = [f"Portal {_string(portal.get('url')) or _name(portal)}"]
    if _string(portal.get("manifests")):
        facts.append(f"manifests {_string(portal.get('manifests'))}")
    if _string(document.get("generatedAt")):
        facts.append(f"read {_string(document.get('generatedAt'))}")
    if _integer(document.get("staleDays")) is not None:
        facts.append(f"stale after {_integer(document.get('staleDays'))} days")
    patterns = _strings(document.get("privilegeFilter"))
    if patterns:
        facts.append(f"privileges matching {', '.join(patterns)}")
    return f'<p class="muted">{text(" · ".join(facts))}</p>'


def _summary(findings: list[Mapping[str, Any]], roles: list[Any], members: list[Any]) -> str:
    warnings = sum(_string(f.get("severity")) == "warning" for f in findings)
    return (
        f"{len(members):,} member(s), {len(roles):,} role(s); {len(findings):,} finding(s),"
        f" {warnings:,} of them warning(s)."
    )


def _write_findings(findings: list[Mapping[str, Any]], ids: Ids, out: IO[str]) -> None:
    # The message first: it names who and what, so on a phone it is what shows before
    # scrolling sideways.
    columns = (
        Column("Message"),
        Column("Severity"),
        Column("Finding"),
        Column("Subject"),
        Column("Privileges"),
    )
    rows = (_finding_row(finding) for finding in findings)
    write_table(out, len(findings), ids.next(), "findings", columns, rows, empty="No findings.")


def _finding_row(finding: Mapping[str, Any]) -> list[Cell]:
    severity = _string(finding.get("severity"))
    named = _strings(finding.get("privileges"))
    return [
        cell(_string(finding.get("message"))),
        cell(severity, css="warning" if severity == "warning" else ""),
        cell(_string(finding.get("kind"))),
        cell(_string(finding.get("subject"))),
        Cell(few([text(n) for n in named]), str(len(named)), "list"),
    ]


def few(names: list[Markup]) -> Markup:
    """The first `FEW` of a list, then "and N more" that opens the rest: a finding or a
    member of 30 privileges keeps a short row. The rest stays in the page, so filtering
    finds every name."""
    shown = join(names[:FEW], ", ")
    if len(names) <= FEW:
        return shown
    rest = join(names[FEW:], ", ")
    more = f"and {len(names) - FEW:,} more"
    return Markup(f'{shown}<details class="more"><summary>{more}</summary>{rest}</details>')


def _matrix(roles: list[Mapping[str, Any]], patterns: list[str], ids: Ids) -> Markup:
    """One row per role, one column per privilege some role grants (those matching the
    report's --privilege patterns, when it has any)."""
    granted = {p for role in roles for p in _strings(role.get("privileges"))}
    if patterns:
        granted = {p for p in granted if any(fnmatchcase(p, pattern) for pattern in patterns)}
    names = sorted(granted)
    # The role, then its marks in narrow columns (64 fit a desktop's width), then the
    # role's facts; the role stays in sight when the matrix scrolls sideways.
    columns = [
        Column("Role", css="sticky"),
        *(Column(n, vertical=True, css=_admin_css(n)) for n in names),
        Column("Type"),
        Column("Holders", numeric=True),
        Column("Administrative"),
    ]
    rows = []
    for role in roles:
        held = set(_strings(role.get("privileges")))
        marks = [
            Cell(Markup("✓"), "1", "mark") if n in held else Cell(Markup(""), "0", "mark")
            for n in names
        ]
        rows.append(
            [
                cell(_string(role.get("name")), css="sticky"),
                *marks,
                cell(_string(role.get("type"))),
                number(_integer(role.get("holders"))),
                _flag(role.get("administrative"), "admin"),
            ]
        )
    return table(ids.next(), "roles", columns, rows, empty="No roles.")


def _admin_css(privilege: str) -> str:
    return "admin" if privilege.startswith(ADMIN_PREFIX) else ""


def _write_members(
    members: list[Mapping[str, Any]],
    held: Callable[[Mapping[str, Any]], Held],
    ids: Ids,
    out: IO[str],
) -> None:
    columns = (
        Column("Username"),
        Column("Role"),
        Column("Role type"),
        Column("Level", numeric=True),
        Column("Disabled"),
        Column("Last sign-in"),
        Column("Administrative", numeric=True),
        Column("Privileges"),
    )
    rows = (_member_row(member, held(member)) for member in members)
    write_table(out, len(members), ids.next(), "members", columns, rows, empty="No members.")


def _member_row(member: Mapping[str, Any], names: Held) -> list[Cell]:
    admin = sum(1 for name, off in names if name.startswith(ADMIN_PREFIX) and not off)
    shown = few([_privilege(name, off) for name, off in names])
    level = _integer(member.get("level"))
    return [
        cell(_string(member.get("username"))),
        cell(_string(member.get("role"))),
        cell(_string(member.get("roleType"))),
        number(level),
        _flag(member.get("disabled"), "error"),
        cell(_string(member.get("lastLogin")) or "never", sort=_string(member.get("lastLogin"))),
        Cell(text(admin) if admin else Markup(""), str(admin), "num admin" if admin else "num"),
        Cell(shown, str(len(names)), "list"),
    ]


@lru_cache(maxsize=4096)
def _privilege(name: str, off: bool) -> Markup:
    """A privilege in a member's list, struck through when their level disables it (the
    same few dozen names in every row of 10,000: escaped once each)."""
    return Markup(f'<s class="off">{text(name)}</s>') if off else text(name)


def _privileges(privileges: list[Mapping[str, Any]], ids: Ids) -> Markup:
    columns = (
        Column("Privilege"),
        Column("Administrative"),
        Column("Holders", numeric=True),
        Column("Disabled at their level", numeric=True),
        Column("Through roles"),
    )
    rows = []
    for privilege in privileges:
        holders = _integer(privilege.get("holders")) or 0
        off = _integer(privilege.get("disabledByLevel")) or 0
        through = sorted({_string(r.get("name")) for r in _mappings(privilege.get("roles"))} - {""})
        rows.append(
            [
                cell(_string(privilege.get("name"))),
                _flag(privilege.get("administrative"), "admin"),
                number(holders - off),
                number(off),
                cell(", ".join(through)),
            ]
        )
    return table(ids.next(), "privileges", columns, rows, empty="No privilege is held.")


def _flag(value: Any, css: str) -> Cell:
    """yes (marked), no, or empty when the document does not say."""
    if value is True:
        return cell("yes", css=css)
    return cell("no") if value is False else cell("")


# --- a fleet -----------------------------------------------------------------------------------


def render_access_fleet_html(document: Mapping[str, Any]) -> str:
    """A fleet's access report: one row per portal and its state, each linking to its
    section."""
    portals = _mappings(document.get("portals"))
    ids = Ids()
    anchors = [ids.next("portal-") for _ in portals]
    failed = sum(_string(p.get("state")) != "ok" for p in portals)
    summary = f"{len(portals):,} portal(s): {len(portals) - failed:,} read, {failed:,} failed."
    columns = (
        Column("Portal"),
        Column("Manifests"),
        Column("State"),
        Column("Findings", numeric=True),
        Column("Members", numeric=True),
        Column("Error"),
    )
    rows = [_fleet_row(p, a) for p, a in zip(portals, anchors, strict=True)]
    sections = [_section(p, a, ids) for p, a in zip(portals, anchors, strict=True)]
    body = [
        f"<h1>{text(TITLE)}</h1>",
        f'<p class="summary">{text(summary)}</p>',
        table(ids.next(), "portals", columns, rows, empty="No portals."),
        *sections,
    ]
    return page(f"{TITLE}: {summary}", join([Markup(b) for b in body], "\n"))


def _fleet_row(portal: Mapping[str, Any], anchor: str) -> list[Cell]:
    name = _string(portal.get("name"))
    state = _string(portal.get("state"))
    report = portal.get("report")
    members = len(_mappings(report.get("members"))) if isinstance(report, Mapping) else None
    return [
        Cell(Markup(f'<a href="#{anchor}">{text(name)}</a>'), name),
        cell(_string(portal.get("manifests"))),
        cell(state, css="" if state == "ok" else "error"),
        number(_integer(portal.get("findings"))),
        number(members),
        cell(_string(portal.get("error"))),
    ]


def _section(portal: Mapping[str, Any], anchor: str, ids: Ids) -> str:
    report = portal.get("report")
    heading = f"{_string(portal.get('name'))}: {_string(portal.get('state'))}"
    if isinstance(report, Mapping):
        inner = access_body(report, ids, 3)
    else:
        inner = Markup(
            f'<p class="error">Failed</p><pre>{text(_string(portal.get("error")))}</pre>'
        )
    return (
        f'<section class="portal" id="{anchor}"><details open>'
        f"<summary><h2>{text(heading)}</h2></summary>\n{inner}\n</details></section>"
    )


# --- reading an untrusted document ---------------------------------------------------------


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _mappings(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ("" if value is None else str(value))


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _name(portal: Mapping[str, Any]) -> str:
    return _string(portal.get("name")) or _string(portal.get("url")) or "portal"
