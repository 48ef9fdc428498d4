"""What the planning account may not read (`LiveState.unread`, 403 answers): the plan says,
by resource, what it could not compare, and is a plan with errors only where a declared
field depends on what was not read (README: a reviewer's read-only account)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from reconciler.kind import registered, unread_part
from reconciler.operations import READS
from reconciler.plan.draft import Draft
from reconciler.state import LiveState


def needs(part: str) -> str:
    """ "reading it needs an organization administrator or a holder of ..." """
    owned = unread_part(part)
    if owned is None:  # every part the reads keep is a kind's; a saved plan's may not be
        return "reading it needs an account that may read it"
    return f"reading it needs {READS[owned.read].access.text}"


def _declared_on(draft: Draft, part: str) -> list[str]:
    """Addresses of declared resources whose fields cannot be compared without `part`."""
    owned = unread_part(part)
    if owned is not None and owned.declared is not None:
        return owned.declared(draft.desired, part)
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
    planned = replace(live, unread={**live.unread, **not_compared})
    for kind in registered():
        if kind.unread is not None:
            own = {p: why for p, why in not_compared.items() if kind.unread.covers(p)}
            if own:
                planned = kind.unread.forget(planned, own)
    return planned
