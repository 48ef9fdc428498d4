"""build_plan: desired and live state in, a `Plan` value out. Pure: no I/O, no clock
unless `now` is left out."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from reconciler import catalog
from reconciler.kind import grouped, registered
from reconciler.operations import OPERATIONS
from reconciler.plan.capabilities import applying_member, check_capabilities
from reconciler.plan.draft import Draft, PendingCall
from reconciler.plan.fingerprint import live_summary
from reconciler.plan.ignored import ignored_changes
from reconciler.plan.model import Action, Ignored, Plan, PlanProblem, PortalRef
from reconciler.plan.order import order_calls
from reconciler.plan.unread import report_not_compared
from reconciler.state import DesiredState, LiveState


def build_plan(
    desired: DesiredState,
    live: LiveState,
    *,
    allow_deletes: bool | frozenset[str] = False,
    targets: Sequence[str] = (),
    now: float | None = None,
    check_caller: bool = True,
    signed_in_applies: bool = False,
    live_admin: bool = False,
    judge_policies: bool = True,
    judged_at: float | None = None,
) -> Plan:
    """The ordered calls that converge `live` on `desired`, with every predicted error.

    `now` (Unix seconds, default the current time) dates task-run ages and completed
    schedules, so a plan is reproducible in tests. `allow_deletes`: more deletions than
    safety.maxDeletes are allowed (True), or only these addresses (a saved plan's
    allowance). `check_caller`: report the calls the
    applying member may not make (a drift report, which sends nothing, leaves it out);
    `signed_in_applies`: the signed-in member sends the calls now (`apply`), so it is
    the one checked, whatever `spec.applier` says. `live_admin`: mark each role change
    whose live role holds administrative privileges the manifests do not declare (a
    drift report's riskiest finding). `judge_policies`: judge the policies on the live
    state and after the plan (a drift report judges them on the live state alone, as
    findings, instead).
    """
    moment = time.time() if now is None else now
    draft = Draft(
        desired, live, int(moment * 1000), judge_policies=judge_policies, live_admin=live_admin
    )
    _check_platform(draft)
    if draft.errors:
        # Another kind of portal altogether: a plan of changes against it means nothing.
        return Plan(portal=_portal_ref(desired, live), errors=tuple(draft.errors))
    kinds = registered()
    for kind in kinds:
        if kind.prepare is not None:
            kind.prepare(draft)
    for kind in kinds:
        kind.plan(draft)
    for kind in kinds:
        if kind.plan_last is not None:
            kind.plan_last(draft)
    report_not_compared(draft)
    _leave_out_unreadable(draft)
    # Compared with every change, before --target leaves some out.
    ignored = [*draft.ignored, *ignored_changes(desired, draft.live, draft.now_ms, draft.changes)]
    if targets:
        _limit_to_targets(draft, targets)
    _check_gates(draft)
    for check in draft.on_kept:
        check(draft)
    if check_caller:
        who = applying_member(draft, signed_in_applies)
        if who is not None:
            check_capabilities(draft, who)
            draft.applying = (who.caller, who.label)
    # Once every member change is known and the targets applied (a role's holders): on
    # the live state as the plan names it, where the digests below take it as read (a
    # renamed role by its old name).
    for kind in kinds:
        if kind.annotate is not None:
            kind.annotate(draft)
    allowed = _check_deletes(draft, allow_deletes)
    changes = tuple(sorted(draft.changes, key=lambda c: c.address))
    touched = {c.address for c in changes} | {c.address for c in draft.calls.values()}
    touched |= {old for old, new in draft.filed.items() if new in touched}
    fingerprint, digests = live_summary(live, touched)
    return Plan(
        portal=_portal_ref(desired, live),
        changes=changes,
        calls=order_calls(draft.calls),
        errors=tuple(draft.errors),
        warnings=tuple(draft.warnings),
        liveFingerprint=fingerprint,
        liveDigests=digests,
        targets=tuple(targets),
        notCompared=dict(sorted(live.unread.items())),
        ignored=_ignored(ignored, targets),
        undeclaredRoles=draft.undeclared_roles,
        policies=None if draft.policies is None else tuple(draft.policies),
        allowedDeletes=allowed,
    )


def _portal_ref(desired: DesiredState, live: LiveState) -> PortalRef:
    platform = live.portal.platform
    return PortalRef(
        desired.portal.url, live.portal.id, str(platform.deployment), str(platform.release)
    )


def _leave_out_unreadable(draft: Draft) -> None:
    """A resource whose live values could not be read is an error of its own, with no
    change or call planned for it (its live state is unknown), while the rest is planned
    as usual so the plan still shows everything else."""
    unreadable = draft.live.unreadable
    for address, why in sorted(unreadable.items()):
        draft.error(address, why)
    if not unreadable:
        return
    draft.changes = [c for c in draft.changes if c.address not in unreadable]
    draft.calls = {k: c for k, c in draft.calls.items() if c.address not in unreadable}


def _check_platform(draft: Draft) -> None:
    """The Portal's `version` is the release the manifests were validated against: the
    portal may run another (an upgrade must not turn CI red), as long as everything the
    manifests declare exists there, which `_check_gates` and the kinds' own checks (a
    role's privileges) verify, naming what is missing. Another deployment kind is another
    portal altogether."""
    declared = draft.desired.portal.platform
    actual = draft.live.portal.platform
    if declared.deployment != actual.deployment:
        draft.error(
            "Portal",
            f"the manifests declare {declared} but the portal runs {actual}; "
            "correct the Portal's deployment/version",
        )
    elif declared != actual:
        draft.warn(
            "Portal",
            f"the manifests are validated against {declared} but the portal runs {actual};"
            " everything they declare exists there (set version to match when convenient)",
        )


def _ignored(found: list[Ignored], targets: Sequence[str]) -> tuple[Ignored, ...]:
    """One entry per resource, by address; within the targets, when given (a Members
    document's entry, with the targeted members whose ignored fields differ)."""
    heads = tuple(grouped())
    shown = []
    for ignored in found:
        if not targets or matches(ignored.address, targets, heads):
            shown.append(ignored)
            continue
        differs = tuple(h for h in ignored.differs if matches(h.address, targets, heads))
        if differs:
            shown.append(replace(ignored, differs=differs))
    return tuple(sorted(shown, key=lambda i: (i.address, i.reason)))


def _check_gates(draft: Draft) -> None:
    """Re-check each call against the platform the portal really runs."""
    platform = draft.live.portal.platform
    seen: set[str] = set()
    for call in draft.calls.values():
        operation = OPERATIONS[call.operation]
        problem = operation.problem(platform)
        if problem and problem not in seen:
            seen.add(problem)
            draft.error(call.address, problem)
        for name in call.params:
            reason = operation.parameter_problem(name, platform)
            if reason:
                draft.error(call.address, reason)
        _warn_views_not_copied(draft, call)


def _warn_views_not_copied(draft: Draft, call: PendingCall) -> None:
    """Before 10.7 copyFeatureServiceData copies feature services but not hosted feature
    layer views (docs/rules.md §9): legal, but maybe not what the author expects."""
    if call.params.get("copyFeatureServiceData") != "true":
        return
    platform = draft.live.portal.platform
    feature = catalog.Feature.COPY_HOSTED_VIEW_DATA
    reason = catalog.feature_problem(catalog.Feature.COPY_FEATURE_SERVICE_DATA, platform)
    if reason is None and catalog.feature_problem(feature, platform):
        draft.warn(
            call.address,
            f"copyFeatureServiceData copies feature service data only: {platform} does not "
            "copy hosted feature layer views (10.7 and later do)",
        )


def _check_deletes(draft: Draft, allow_deletes: bool | frozenset[str]) -> tuple[str, ...]:
    """An error for more deletions than safety.maxDeletes unless allowed; the deletions
    the allowance covered (what a saved plan records, to allow exactly these again)."""
    deletes = sorted(c.address for c in draft.changes if c.action is Action.DELETE)
    allowance = frozenset(deletes) if allow_deletes is True else allow_deletes or frozenset()
    allowed = [a for a in deletes if a in allowance]
    limit = draft.desired.portal.maxDeletes
    beyond = [a for a in deletes if a not in allowed]
    if len(deletes) <= limit or not beyond:
        return tuple(allowed)
    message = f"the plan deletes {len(deletes)} resources, more than safety.maxDeletes ({limit}); "
    if allow_deletes:
        message += (
            f"the saved plan's allowedDeletes does not allow {', '.join(beyond)}; run orgctl"
            " plan -o --allow-deletes again and review it"
        )
    else:
        message += "review it and pass --allow-deletes"
    draft.error("Portal", message)
    return tuple(allowed)


def matches(address: str, targets: Sequence[str], heads: tuple[str, ...] | None = None) -> bool:
    """Exact address, or a grouped address below a target prefix ("Workspace/c1"): only
    kinds whose identity has several parts group (`registry.grouped`, or `heads` when the
    caller asked it once); other names may contain "/" themselves ("Role/Ops/Admin" is
    not below "Role/Ops")."""
    heads = tuple(grouped()) if heads is None else heads
    return any(
        address == t or (t.startswith(heads) and address.startswith(t.rstrip("/") + "/"))
        for t in targets
    )


def _limit_to_targets(draft: Draft, targets: Sequence[str]) -> None:
    """Keep the targeted resources and, transitively, every resource a kept call depends
    on, whole (all its calls: a role that is needed is created *and* given privileges)."""
    by_address: dict[str, list[str]] = {}
    for key, call in draft.calls.items():
        by_address.setdefault(call.address, []).append(key)
    heads = tuple(grouped())
    kept = {address for address in by_address if matches(address, targets, heads)}
    queue = list(kept)
    while queue:
        for key in by_address[queue.pop()]:
            for need in draft.calls[key].after:
                needed = draft.calls[need].address if need in draft.calls else None
                if needed is not None and needed not in kept:
                    kept.add(needed)
                    queue.append(needed)

    def keep(address: str) -> bool:
        return address in kept or matches(address, targets, heads)

    draft.calls = {k: c for k, c in draft.calls.items() if c.address in kept}
    draft.changes = [c for c in draft.changes if keep(c.address)]
    draft.errors = [p for p in draft.errors if _global(p) or keep(p.address)]
    draft.warnings = [p for p in draft.warnings if keep(p.address)]
    touched = {c.address for c in draft.changes} | {c.address for c in draft.calls.values()}
    for target in targets:
        if not any(matches(address, [target], heads) for address in touched):
            draft.warn(
                target,
                "--target matches nothing this plan would change (addresses are"
                " case-sensitive: Role/<name>, Member/<username>, Workspace/<id>/<id>, ...)",
            )


def _global(problem: PlanProblem) -> bool:
    return problem.address == "Portal"
