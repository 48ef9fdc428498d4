"""What the text and markdown renderers both say about a change, a call and the plan,
line by line; each renderer only decides how a line looks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from reconciler.plan.model import Action, Call, Change, Plan, PlanProblem
from reconciler.plan.normalize import TIME_FIELDS
from reconciler.plan.render import Mode
from reconciler.shown import safe

SIGNS = {Action.CREATE: "+", Action.UPDATE: "~", Action.DELETE: "-"}


def show(value: Any, name: str = "") -> str:
    """A field's value for people: JSON, with epoch-millisecond times as ISO 8601 UTC, and
    no character that could reorder the line or drive a terminal (`reconciler.shown`)."""
    text = json.dumps(_readable(name, value), ensure_ascii=False, separators=(", ", ": "))
    return safe(text)


def _readable(name: str, value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _readable(key, item) for key, item in value.items()}
    if name in TIME_FIELDS and isinstance(value, int) and not isinstance(value, bool):
        moment = datetime.fromtimestamp(value / 1000, tz=UTC)
        return moment.isoformat(timespec="seconds").replace("+00:00", "Z")
    return value


def field_lines(change: Change) -> Iterator[str]:
    """`name: before → after` for each field; one side only on create and delete."""
    before = change.before or {}
    after = change.after or {}
    for name in sorted({*before, *after}):
        if change.action is Action.CREATE:
            yield f"{name}: {show(after.get(name), name)}"
        elif change.action is Action.DELETE:
            yield f"{name}: {show(before.get(name), name)}"
        else:
            old = show(before[name], name) if name in before else "(unknown)"
            yield f"{name}: {old} → {show(after.get(name), name)}"


def call_line(call: Call) -> str:
    after = f" [after {', '.join(str(s) for s in call.dependsOn)}]" if call.dependsOn else ""
    params = ", ".join(f"{k}={v}" for k, v in call.shown_params.items())
    line = f"{call.seq}. {call.method} {call.url}{after}" + (f" {params}" if params else "")
    return safe(line)


def address_line(change: Change) -> str:
    return f"{SIGNS[change.action]} {safe(change.address)}"


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


def _drift_line(plan: Plan) -> str:
    counts = plan.summary()
    if not plan.changes:
        return "No drift. The portal matches the manifests."
    return (
        f"Drift: {len(plan.changes)} resource(s) differ: {counts['create']} missing, "
        f"{counts['update']} changed, {counts['delete']} to remove."
    )


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
