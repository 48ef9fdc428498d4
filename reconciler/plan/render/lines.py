"""What the text and markdown renderers both say about a change, a call and the plan,
line by line; each renderer only decides how a line looks."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from reconciler.export.summary import counted
from reconciler.manifest.models import Meaning
from reconciler.plan.elements import (
    ADMIN_PREFIX,
    Elements,
    field_elements,
    granted_admin,
    granted_privileges,
)
from reconciler.plan.model import Action, Call, Change, Holders, Ignored, Plan, PlanProblem
from reconciler.plan.normalize import AS_IS, Fields, fields_at
from reconciler.plan.render import Mode
from reconciler.shown import safe

SIGNS = {Action.CREATE: "+", Action.UPDATE: "~", Action.DELETE: "-"}


def show(value: Any, name: str = "", fields: Fields = AS_IS) -> str:
    """A field's value for people: JSON, with epoch-millisecond times (as its kind's
    `fields` say) as ISO 8601 UTC, and no character that could reorder the line or drive
    a terminal (`reconciler.shown`)."""
    return safe(_SHOWN.encode(_readable(name, value, fields)))


# json.dumps with these options would make an encoder per value: a plan shows thousands.
_SHOWN = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def _readable(name: str, value: Any, fields: Fields) -> Any:
    if isinstance(value, dict):
        return {key: _readable(key, item, fields) for key, item in value.items()}
    timed = fields.meanings.get(name) is Meaning.TIME
    if timed and isinstance(value, int) and not isinstance(value, bool):
        moment = datetime.fromtimestamp(value / 1000, tz=UTC)
        return moment.isoformat(timespec="seconds").replace("+00:00", "Z")
    return value


@dataclass(frozen=True, slots=True)
class FieldPart:
    """One field of a change as shown: a value (create, delete), a scalar's before and
    after (`old` None when unknown), or a set-like field's elements."""

    name: str
    value: str = ""
    old: str | None = None
    elements: Elements | None = None
    scalar_update: bool = False


def field_parts(change: Change) -> Iterator[FieldPart]:
    before = change.before or {}
    after = change.after or {}
    sets = field_elements(change)
    fields = fields_at(change.address)
    for name in sorted({*before, *after}):
        if change.action is Action.CREATE:
            yield FieldPart(name, show(after.get(name), name, fields))
        elif change.action is Action.DELETE:
            yield FieldPart(name, show(before.get(name), name, fields))
        elif name in sets:
            yield FieldPart(name, elements=sets[name])
        else:
            old = show(before[name], name, fields) if name in before else None
            yield FieldPart(name, show(after.get(name), name, fields), old, scalar_update=True)


def field_lines(change: Change, mode: Mode = "plan") -> Iterator[str]:
    """`name: before → after` for a scalar, the added and removed elements of a set-like
    field under `name: N unchanged`; one side only on create and delete. A role's
    privileges say who holds the role (`holders_note`). A drift report says each
    element from the portal's side: on the portal only, or in Git only."""
    for part in field_parts(change):
        note = _note(change, part.name)
        if part.elements is not None:
            yield f"{part.name}: {_unchanged(part.elements, mode)}{note}"
            yield from _element_lines(part.elements, mode)
        elif part.scalar_update:
            yield f"{part.name}: {part.old or '(unknown)'} → {part.value}"
        else:
            yield f"{part.name}: {part.value}{note}"


# Level-1 holders named in a line; the plan JSON names them all.
NAMED_HOLDERS = 5


def holders_note(holders: Holders) -> str:
    """` (held by 2 members; 1 at level 1 (erin), where portal:user:shareToGroup stays
    disabled)`: who holds the role once the plan is applied."""
    text = f"held by {counted(holders.total, 'member')}" if holders.total else "held by no member"
    if holders.at_level_one:
        text += f"; {holders.at_level_one} at level 1"
    if holders.disabledPrivileges:
        names = list(holders.disabledFor[:NAMED_HOLDERS])
        more = len(holders.disabledFor) - len(names)
        named = ", ".join(names) + (f" and {more} more" if more else "")
        privileges = ", ".join(holders.disabledPrivileges)
        verb = "stays" if len(holders.disabledPrivileges) == 1 else "stay"
        text += f" ({named}), where {privileges} {verb} disabled"
    return safe(f" ({text})")


def _note(change: Change, name: str) -> str:
    return holders_note(change.holders) if name == "privileges" and change.holders else ""


def diff_lines(change: Change, mode: Mode = "plan") -> Iterator[str]:
    """The change as a unified diff body: every changed line starts with `+` or `-` (so a
    `diff` code block colours it), a context line with a space. In a drift report, `-`
    is what the portal has and `+` what Git declares, and the counts say so."""
    sign = SIGNS[change.action]
    for part in field_parts(change):
        note = _note(change, part.name)
        if part.elements is not None:
            yield f"      {part.name}: {_unchanged(part.elements, mode)}{note}"
            yield from (f"+       {show(v)}" for v in part.elements.added)
            yield from (f"-       {show(v)}" for v in part.elements.removed)
        elif part.scalar_update:
            yield f"-     {part.name}: {part.old or '(unknown)'}"
            yield f"+     {part.name}: {part.value}"
        else:
            yield f"{sign}     {part.name}: {part.value}{note}"


def _held(change: Change) -> str:
    """`, 2 holders` in a compact line (how many members hold the role once applied)."""
    if change.holders is None:
        return ""
    return f", {counted(change.holders.total, 'holder')}"


def _element_lines(diff: Elements, mode: Mode) -> Iterator[str]:
    """A plan's `+` added and `-` removed elements; a drift report's, from the portal's
    side: what the portal has that Git does not, then the reverse."""
    if mode == "drift":
        yield from (f"  on the portal only: {show(v)}" for v in diff.removed)
        yield from (f"  in Git only: {show(v)}" for v in diff.added)
    else:
        yield from (f"  + {show(v)}" for v in diff.added)
        yield from (f"  - {show(v)}" for v in diff.removed)


def _unchanged(diff: Elements, mode: Mode = "plan") -> str:
    """`1 added, 2 removed, 3 unchanged` in a plan (what it will do); in a drift report,
    from the portal's side: `2 on the portal only, 1 in Git only, 3 in both` (the
    portal granted 2 that Git does not declare)."""
    if mode == "drift":
        return (
            f"{len(diff.removed)} on the portal only, {len(diff.added)} in Git only,"
            f" {diff.unchanged} in both"
        )
    return f"{len(diff.added)} added, {len(diff.removed)} removed, {diff.unchanged} unchanged"


def compact_line(change: Change, mode: Mode = "plan") -> str:
    """The change in one line, for a comment too small for every field's value:
    `+ Role/Name: description, privileges (11)`; an update's sets as `(+1 -2)`, in a
    drift report from the portal's side as `(2 on the portal only, 1 in Git only)`."""
    names = []
    for part in field_parts(change):
        held = _held(change) if part.name == "privileges" else ""
        if part.elements is not None:
            added, removed = len(part.elements.added), len(part.elements.removed)
            counts = (
                f"{removed} on the portal only, {added} in Git only"
                if mode == "drift"
                else f"+{added} -{removed}"
            )
            names.append(f"{part.name} ({counts}{held})")
        elif part.value.startswith("["):
            count = part.value.count(", ") + 1 if part.value != "[]" else 0
            names.append(f"{part.name} ({count}{held})")
        else:
            names.append(part.name)
    line = f"{address_line(change)}: {', '.join(safe(n) for n in names)}"
    return f"@@ {line} @@" if change.action is Action.UPDATE else line


ADMINISTRATIVE_DRIFT = "administrative privileges granted outside Git"

# What a reviewer must see first, and what a comment too short for the whole plan leaves
# out last (README: Pull-request comments): administrative privileges the portal grants
# outside Git are in use now; deletions cannot be undone; privileges
# granted widen what people may do, administrative ones most; a new role is a new set of
# privileges; a level change can disable privileges and free or take a quota seat; a
# member's role move is the everyday change, numerous and reviewed in bulk.
OVERDUE_REVOCATION = "expired grants the portal still gives"
RISK_ORDER = (
    OVERDUE_REVOCATION,
    ADMINISTRATIVE_DRIFT,
    "deletions",
    "administrative privilege grants",
    "other privilege grants",
    "creations",
    "level changes",
    "role assignments",
    "other changes",
)


def risk(change: Change) -> int:
    """The change's place in `RISK_ORDER` (0 riskiest): first what the portal grants
    that Git does not (an administrative privilege granted outside Git is in use now,
    whatever the plan will do about it), and before it access that should have ended
    and has not (an overdue revocation of a time-bound grant)."""
    if change.overdue is not None:
        return 0
    if change.administrative is not None:
        return 1
    if change.action is Action.DELETE:
        return 2
    granted = granted_privileges(change)
    if any(p.startswith(ADMIN_PREFIX) for p in granted):
        return 3
    if granted:
        return 4
    if change.action is Action.CREATE:
        return 5
    before, after = change.before or {}, change.after or {}
    changed = {name for name in after if before.get(name) != after[name]}
    if "level" in changed:
        return 6
    return 7 if "role" in changed else 8


def riskiest_first(changes: tuple[Change, ...]) -> list[Change]:
    """Changes in `RISK_ORDER`, by address within each."""
    return sorted(changes, key=lambda c: (risk(c), c.address))


@dataclass(frozen=True, slots=True)
class Hunk:
    """One resource's change as the Markdown and HTML reports show it: its heading line
    (`address_line`) and its fields as a diff body (`diff_lines`)."""

    change: Change
    head: str
    lines: tuple[str, ...]


def hunks(plan: Plan, mode: Mode = "plan") -> list[Hunk]:
    """Each changed resource, riskiest first, with its fields' values."""
    return [
        Hunk(change, address_line(change), tuple(diff_lines(change, mode)))
        for change in riskiest_first(plan.changes)
    ]


def kind_counts(changes: Iterable[Change]) -> dict[str, dict[Action, int]]:
    """Per kind of resource (the address's first part), sorted: how many of each action."""
    rows: dict[str, dict[Action, int]] = {}
    for change in changes:
        counts = rows.setdefault(change.address.split("/", 1)[0], dict.fromkeys(Action, 0))
        counts[change.action] += 1
    return dict(sorted(rows.items()))


def call_line(call: Call) -> str:
    after = f" [after {', '.join(str(s) for s in call.dependsOn)}]" if call.dependsOn else ""
    params = ", ".join(f"{k}={v}" for k, v in call.shown_params.items())
    line = f"{call.seq}. {call.method} {call.url}{after}" + (f" {params}" if params else "")
    return safe(line)


def address_line(change: Change) -> str:
    """`~ Role/Name`, with the name a role is renamed from, flagged when the change grants
    administrative privileges, or when the portal grants some that Git does not."""
    admin = granted_admin(change)
    flag = f"  (grants administrative privileges: {_some(admin, 3)})" if admin else ""
    renamed = f" (renamed from {change.renamedFrom})" if change.renamedFrom is not None else ""
    line = f"{SIGNS[change.action]} {change.address}{renamed}{flag}"
    return safe(line + live_admin_flag(change) + overdue_flag(change))


def overdue_flag(change: Change) -> str:
    """`  [overdue revocation] role org_admin expired at 2026-12-01T00:00:00Z (cover)`."""
    grant = change.overdue
    if grant is None:
        return ""
    return f"  [overdue revocation] {grant.grants} expired at {grant.until} ({grant.reason})"


def grant_lines(plan: Plan) -> list[str]:
    """What a plan says of time-bound grants: a preview's time, and the grants in force
    that end soon (README: Temporary access); nothing when it depends on none."""
    if plan.evaluationTime is None:
        return []
    lines = []
    if plan.preview:
        lines.append(f"Preview at {plan.evaluationTime} (--at): apply --plan refuses it.")
    if plan.expiringGrants:
        lines.append(f"Grants expiring soon (judged at {plan.evaluationTime}):")
        lines += [f"  - {grant}" for grant in plan.expiringGrants]
    return [safe(line) for line in lines]


def live_admin_flag(change: Change) -> str:
    """`  [administrative] portal:admin:deleteUsers granted on the portal, not in Git;
    held by carol, dave`, or nothing."""
    live = change.administrative
    if live is None:
        return ""
    held = f"held by {_some(live.holders, NAMED_HOLDERS)}" if live.holders else "held by nobody"
    return (
        f"  [administrative] {_some(live.privileges, 3)} granted on the portal, not in Git; {held}"
    )


def _some(names: Sequence[str], shown: int) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


IGNORED_TITLE = "Ignored by the manifests' ignore rules (neither changed nor drift):"


def ignored_line(ignored: Ignored) -> str:
    return safe(str(ignored))


def problem_line(problem: PlanProblem) -> str:
    return safe(str(problem))


def summary_line(plan: Plan, mode: Mode) -> str:
    line = _drift_line(plan) if mode == "drift" else _plan_line(plan)
    if not plan.errors:
        return line
    # A plan with errors did not compare everything: never claim the portal matches.
    refusal = f"{len(plan.errors)} error(s): nothing can be applied until they are fixed."
    return f"{line} {refusal}" if plan.changes else f"{_NAMES[mode]} has {refusal}"


_NAMES: dict[Mode, str] = {"plan": "Plan", "drift": "Drift check"}

# Undeclared roles named in a line; the JSON report names them all.
NAMED_ROLES = 20


def information_line(plan: Plan, mode: Mode) -> str | None:
    """`Information: 2 custom roles are not declared: A, B` in a drift report: roles
    left alone (no spec.pruneRoles), which are not drift."""
    roles = plan.undeclaredRoles
    if mode != "drift" or not roles:
        return None
    named = ", ".join(roles[:NAMED_ROLES])
    more = f" and {len(roles) - NAMED_ROLES} more" if len(roles) > NAMED_ROLES else ""
    verb = "is" if len(roles) == 1 else "are"
    return safe(
        f"Information: {counted(len(roles), 'custom role')} {verb} not declared: {named}{more}"
    )


def _drift_line(plan: Plan) -> str:
    counts = plan.summary()
    if not plan.changes:
        return "No drift. The portal matches the manifests."
    line = (
        f"Drift: {len(plan.changes)} resource(s) differ: {counts['create']} missing, "
        f"{counts['update']} changed, {counts['delete']} to remove."
    )
    administrative = sum(1 for c in plan.changes if c.administrative is not None)
    if administrative:
        line += f" {administrative} administrative: privileges granted on the portal, not in Git."
    overdue = sum(1 for c in plan.changes if c.overdue is not None)
    if overdue:
        line += f" {overdue} overdue: expired grants the portal still gives."
    return line


def _plan_line(plan: Plan) -> str:
    counts = plan.summary()
    if plan.empty and plan.targets:
        return "No changes within the targets (--target); the rest was not compared."
    if plan.empty:
        return "No changes. The portal matches the manifests."
    calls = "call" if counts["calls"] == 1 else "calls"
    return (
        f"Plan: {counts['create']} to create, {counts['update']} to update, "
        f"{counts['delete']} to delete, {counts['calls']} {calls}."
    )
