"""Privileges the portal shows against orgctl's catalog (`reconciler.catalog`) for the
release it runs.

Live roles may hold privileges the catalog does not know for that release (a vendor adds
one): validate would refuse a manifest naming it, and a plan could not compare it. And
where the portal can tell, catalog privileges it does not have: the built-in
Administrator holds every privilege the portal offers, so when `portals/self` lists the
signed-in Administrator's privileges, a catalog privilege missing from them is one that
manifests may declare and the portal would refuse.
"""

from __future__ import annotations

from collections.abc import Iterator

from reconciler.catalog import privilege_problem, privileges_for
from reconciler.doctor.findings import Check, Finding, Severity
from reconciler.kind import registered
from reconciler.plan.capabilities import is_default_admin
from reconciler.state import LiveState

SHOWN = 8  # privileges named in one finding before "and N more"


def privilege_findings(live: LiveState, extra: frozenset[str]) -> Iterator[Finding]:
    yield from _unknown(live, extra)
    yield from _unconfirmed(live, extra)


def _unknown(live: LiveState, extra: frozenset[str]) -> Iterator[Finding]:
    platform = live.portal.platform
    holders: dict[str, list[str]] = {}
    for address, held in _held(live):
        for privilege in sorted(held):
            if privilege_problem(privilege, platform, extra) is not None:
                holders.setdefault(privilege, []).append(address)
    caller = live.portal.caller
    if caller is not None:
        for privilege in sorted(caller.privileges or ()):
            if privilege_problem(privilege, platform, extra) is not None:
                holders.setdefault(privilege, []).append(f"the signed-in {caller.username}")
    for privilege, held_by in sorted(holders.items()):
        problem = privilege_problem(privilege, platform, extra)
        yield Finding(
            Check.PRIVILEGES,
            Severity.DIFFERENCE,
            f"{privilege!r} is held by {', '.join(held_by)} on the portal, but orgctl's"
            f" catalog for {platform} says: {problem}",
            "if the portal's release has it, declare it in the Portal's"
            " spec.extraPrivileges (or keep it with spec.ignorePrivileges); a plan cannot"
            " manage it otherwise",
        )


def _held(live: LiveState) -> Iterator[tuple[str, frozenset[str]]]:
    """Each live resource that holds privileges of its own (a role), by address."""
    for kind in registered():
        if kind.privileges is not None:
            yield from kind.privileges(live)


def _unconfirmed(live: LiveState, extra: frozenset[str]) -> Iterator[Finding]:
    caller = live.portal.caller
    if caller is None or caller.privileges is None or not is_default_admin(caller):
        return  # only the built-in Administrator's list says what the portal offers
    platform = live.portal.platform
    missing = sorted(privileges_for(platform) - caller.privileges - extra)
    if not missing:
        yield Finding(
            Check.PRIVILEGES,
            Severity.OK,
            f"the {len(privileges_for(platform))} catalog privileges of {platform} are all"
            f" held by the built-in Administrator {caller.username}",
        )
        return
    named = ", ".join(missing[:SHOWN]) + (
        f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
    )
    yield Finding(
        Check.PRIVILEGES,
        Severity.DIFFERENCE,
        f"{len(missing)} privilege(s) of orgctl's catalog for {platform} are not among the"
        f" built-in Administrator {caller.username}'s privileges: {named}",
        "the portal may not offer them: a role declaring one would be refused at apply;"
        " check the Portal's version, and leave them out of the manifests",
    )
