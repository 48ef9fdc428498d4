"""What the planning account may not read (`LiveState.unread`, 403 answers): the plan says,
by resource, what it could not compare, and is a plan with errors only where a declared
field depends on what was not read (README: a reviewer's read-only account)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from reconciler.address_forms import TASK_RUN
from reconciler.kind import registered, unread_part
from reconciler.operations import READS, ReadName
from reconciler.plan.draft import Draft
from reconciler.state import LiveState


def task_runs(user: str) -> str:
    return f"{TASK_RUN.below(user)}/*"


def _read_of(part: str) -> ReadName:
    owned = unread_part(part)
    if owned is not None:
        return owned.read
    return ReadName.TASKS  # the one part no kind owns: a task's runs (TaskRun/<user>/*)


def needs(part: str) -> str:
    """ "reading it needs an organization administrator or a holder of ..." """
    return f"reading it needs {READS[_read_of(part)].access.text}"


def _declared_on(draft: Draft, part: str) -> list[str]:
    """Addresses of declared resources whose fields cannot be compared without `part`."""
    desired = draft.desired
    owned = unread_part(part)
    if owned is not None and owned.declared is not None:
        return owned.declared(desired)
    if part.startswith("TaskRun/"):
        return [part] if any(task_runs(p.user) == part for p in desired.retention) else []
    return []


def report_not_compared(draft: Draft) -> None:
    """An error for each declared resource that depends on a part not read, a warning
    for each part not read that nothing declared depends on. A kind whose `Unread` has
    no `declared` says its own in its plan (what the webhook settings send depends on
    which fields are declared)."""
    who = draft.live.portal.username or "the signed-in account"
    for part, why in sorted(draft.live.unread.items()):
        owned = unread_part(part)
        if owned is not None and owned.declared is None:
            continue
        dependents = _declared_on(draft, part)
        for address in dependents:
            draft.error(
                address,
                f"cannot compare: {who} may not read {part} ({why}); {needs(part)}",
            )
        if not dependents:
            draft.warn(part, f"not compared: {who} may not read it ({why}); {needs(part)}")


def as_planned(live: LiveState, not_compared: Mapping[str, str]) -> LiveState:
    """`live` without the parts a saved plan's account could not read, so an account that
    reads more (the administrator applying a reviewer's plan) compares the state the plan
    was made on, and plans the same calls from it."""
    if not not_compared:
        return live
    parts = set(not_compared)
    users = {part.split("/")[1] for part in parts if part.startswith("TaskRun/")}
    planned = replace(
        live,
        tasks={user: tasks for user, tasks in live.tasks.items() if user not in users},
        unread={**live.unread, **not_compared},
    )
    for kind in registered():
        if kind.unread is not None:
            own = {p: why for p, why in not_compared.items() if kind.unread.covers(p)}
            if own:
                planned = kind.unread.forget(planned, own)
    return planned
