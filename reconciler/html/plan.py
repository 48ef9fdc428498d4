"""The plan and drift reports as HTML: what the Markdown report says (the same summary,
kinds, problems, and each resource's change riskiest first, from `render.lines`), in
tables a reader sorts and filters; and a fleet's report, one row per portal linking to
its changes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reconciler.html.page import Markup, join, page, text
from reconciler.html.tables import Cell, Column, Ids, cell, number, table
from reconciler.plan.elements import granted_admin
from reconciler.plan.model import Action, Plan
from reconciler.plan.render import Mode
from reconciler.plan.render.lines import (
    RISK_ORDER,
    Hunk,
    call_line,
    grant_lines,
    hunks,
    information_line,
    kind_counts,
    risk,
    summary_line,
)

TITLES: dict[Mode, str] = {"plan": "orgctl plan", "drift": "orgctl drift"}
# Up to this many changes, each one's fields are shown unfolded.
OPEN_UP_TO = 50


def render_html(plan: Plan, mode: Mode = "plan") -> str:
    """One portal's plan or drift report as a self-contained page."""
    title = f"{TITLES[mode]}: {plan.portal.url}"
    body = Markup(f"<h1>{text(title)}</h1>\n{plan_body(plan, mode, Ids(), 2)}")
    return page(title, body)


def plan_body(plan: Plan, mode: Mode, ids: Ids, level: int) -> Markup:
    """Everything under the page's heading, headings at `level`."""
    parts = [_facts(plan), f'<p class="summary">{text(summary_line(plan, mode))}</p>']
    if plan.changes:
        parts += [_heading(level, "By kind"), _kinds(plan, mode, ids)]
    information = information_line(plan, mode)
    if information:
        parts.append(f"<p>{text(information)}</p>")
    columns = (Column("Resource"), Column("Message"))
    for title, problems in (("Errors", plan.errors), ("Warnings", plan.warnings)):
        if problems:
            rows = [[cell(p.address), cell(p.message)] for p in problems]
            parts += [_heading(level, title), table(ids.next(), title.lower(), columns, rows)]
    if plan.ignored:
        rows = [[cell(i.address), cell(i.what)] for i in plan.ignored]
        title = "Ignored by the manifests' ignore rules (neither changed nor drift)"
        parts += [_heading(level, title), table(ids.next(), "ignored", columns, rows)]
    if plan.preview:
        parts.append(f"<p>{text(grant_lines(plan)[0])}</p>")
    if plan.expiringGrants:
        grants = (Column("Resource"), Column("Grants"), Column("Until"), Column("Reason"))
        rows = [
            [cell(g.address), cell(g.grants), cell(g.until), cell(g.reason)]
            for g in plan.expiringGrants
        ]
        title = f"Grants expiring soon (judged at {plan.evaluationTime})"
        parts += [_heading(level, title), table(ids.next(), "expiring", grants, rows)]
    if plan.changes:
        what = "Changes" if mode == "plan" else "Differences (live → desired)"
        parts += [_heading(level, f"{what} ({len(plan.changes):,})"), _changes(plan, mode, ids)]
    if mode == "plan" and plan.calls and not plan.errors:
        parts += [_heading(level, f"Calls, in order ({len(plan.calls):,})"), _calls(plan, ids)]
    return join([Markup(p) for p in parts], "\n")


def _heading(level: int, title: str) -> str:
    return f"<h{level}>{text(title)}</h{level}>"


def _facts(plan: Plan) -> str:
    facts = [f"Portal {plan.portal.url}"]
    if plan.portal.version:
        facts.append(f"version {plan.portal.version}")
    if plan.manifests:
        facts.append(f"manifests {plan.manifests}")
    if plan.targets:
        facts.append(f"limited to {', '.join(plan.targets)}")
    return f'<p class="muted">{text(" · ".join(facts))}</p>'


def _kinds(plan: Plan, mode: Mode, ids: Ids) -> Markup:
    """Per kind: created, updated, deleted (a plan: and its calls), as the Markdown's table."""
    with_calls = mode == "plan" and not plan.errors
    calls: dict[str, int] = {}
    for call in plan.calls:
        kind = call.address.split("/", 1)[0]
        calls[kind] = calls.get(kind, 0) + 1
    columns = [Column("Kind"), *(Column(a.value, numeric=True) for a in Action)]
    rows = []
    for kind, counts in kind_counts(plan.changes).items():
        row = [cell(kind), *(number(counts[a]) for a in Action)]
        rows.append(row + ([number(calls.get(kind, 0))] if with_calls else []))
    if with_calls:
        columns.append(Column("calls", numeric=True))
    return table(ids.next(), "kinds", columns, rows)


def _changes(plan: Plan, mode: Mode, ids: Ids) -> Markup:
    folded = len(plan.changes) > OPEN_UP_TO
    # The change itself first: on a phone it is what shows before scrolling sideways.
    columns = (Column("Change"), Column("Action"), Column("Risk"))
    rows = [_change_row(hunk, folded) for hunk in hunks(plan, mode)]
    return table(ids.next(), "changes", columns, rows)


def _change_row(hunk: Hunk, folded: bool) -> list[Cell]:
    place = risk(hunk.change)
    admin = "admin" if granted_admin(hunk.change) or hunk.change.administrative else ""
    fields = join([_diff_line(line) for line in hunk.lines], "\n")
    count = f"{len(hunk.lines)} line" + ("" if len(hunk.lines) == 1 else "s")
    opened = "" if folded else " open"
    head = f'<span class="{admin}">{text(hunk.head)}</span>' if admin else text(hunk.head)
    details = f"<details{opened}><summary>{count}</summary><pre>{fields}</pre></details>"
    return [
        Cell(Markup(f"{head}{details}"), hunk.change.address, "wide"),
        cell(hunk.change.action.value, css=_ACTION_CSS[hunk.change.action]),
        cell(RISK_ORDER[place], sort=place),
    ]


_ACTION_CSS = {Action.CREATE: "add", Action.UPDATE: "", Action.DELETE: "del"}


def _diff_line(line: str) -> Markup:
    css = {"+": "add", "-": "del"}.get(line[:1])
    return Markup(f'<span class="{css}">{text(line)}</span>' if css else text(line))


def _calls(plan: Plan, ids: Ids) -> Markup:
    # The call first, numbered and wrapped to the window: on a phone it is what shows
    # before scrolling sideways, and it sorts in send order.
    columns = (Column("Call"), Column("Resource"))
    rows = [[cell(call_line(c), css="call", sort=c.seq), cell(c.address)] for c in plan.calls]
    return table(ids.next(), "calls", columns, rows)


# --- a fleet -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PortalReport:
    """One portal of a fleet: its name and folder, how it ended ("drifted", "failed",
    ...), and its plan, or the error that kept it from being made."""

    name: str
    manifests: str
    state: str
    plan: Plan | None
    error: str = ""


def render_fleet_html(portals: Sequence[PortalReport], mode: Mode, summary: str) -> str:
    """A fleet's report: one row per portal and its state, each linking to its section."""
    title = f"{TITLES[mode]}: {summary}"
    ids = Ids()
    anchors = [ids.next("portal-") for _ in portals]
    with_calls = mode == "plan"
    columns = [Column("Portal"), Column("Manifests"), Column("State")]
    columns += [Column(a.value, numeric=True) for a in Action]
    columns += [Column("errors", numeric=True), Column("warnings", numeric=True)]
    if with_calls:
        columns.append(Column("calls", numeric=True))
    rows = [_fleet_row(p, anchor, with_calls) for p, anchor in zip(portals, anchors, strict=True)]
    sections = [_section(p, anchor, mode, ids) for p, anchor in zip(portals, anchors, strict=True)]
    body = [
        f"<h1>{text(TITLES[mode])}</h1>",
        f'<p class="summary">{text(summary)}</p>',
        table(ids.next(), "portals", columns, rows),
        *sections,
    ]
    return page(title, join([Markup(b) for b in body], "\n"))


def _fleet_row(portal: PortalReport, anchor: str, with_calls: bool) -> list[Cell]:
    link = Cell(Markup(f'<a href="#{anchor}">{text(portal.name)}</a>'), portal.name)
    css = "error" if portal.plan is None or portal.plan.errors else ""
    row = [link, cell(portal.manifests), cell(portal.state, css=css)]
    plan = portal.plan
    if plan is None:
        return row + [number(None) for _ in range(5 + with_calls)]
    counts = plan.summary()
    row += [number(counts[a.value]) for a in Action]
    row += [number(len(plan.errors)), number(len(plan.warnings))]
    return row + ([number(counts["calls"])] if with_calls else [])


def _section(portal: PortalReport, anchor: str, mode: Mode, ids: Ids) -> str:
    heading = f"{portal.name}: {portal.state}"
    opened = " open" if portal.plan is None or not portal.plan.empty or portal.plan.errors else ""
    if portal.plan is None:
        error = join([text(line) for line in portal.error.splitlines()], "\n")
        inner = f'<p class="error">Failed</p><pre>{error}</pre>'
    else:
        inner = plan_body(portal.plan, mode, ids, 3)
    return (
        f'<section class="portal" id="{anchor}"><details{opened}>'
        f"<summary><h2>{text(heading)}</h2></summary>\n{inner}\n</details></section>"
    )


def render_failure_html(title: str, failed: str, lines: Sequence[str]) -> str:
    """The page of a report that could not be made: `failed` says so, `lines` why."""
    body = (
        f"<h1>{text(title)}</h1>\n"
        f'<p class="summary error">{text(failed)}</p>\n'
        f"<pre>{join([text(line) for line in lines], chr(10))}</pre>"
    )
    return page(title, Markup(body))
