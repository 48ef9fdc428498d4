"""The keys orgctl's readers take from each read, against what the portal answered.

Which keys the readers use is observed (`recording`): never listed here. What this module
holds is what the wire may carry under each key name the Sharing API uses: its JSON
types, and whether a portal may leave it out (the vendor's optional keys, and the
reference service's own ones that real portals never send). A key name the readers ask
that this table does not hold is named in the report as unchecked, and
tests/doctor/test_wire.py fails on it for every read of a whole `orgctl serve` portal.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from reconciler.doctor.findings import Check, Finding, Severity
from reconciler.doctor.recording import KeySeen, Observations, Where

NUMBER, STRING, BOOLEAN = frozenset({"number"}), frozenset({"string"}), frozenset({"boolean"})
OBJECT, ARRAY = frozenset({"object"}), frozenset({"array"})


@dataclass(frozen=True, slots=True)
class Wire:
    types: frozenset[str]
    optional: bool = False  # a portal may leave it out; the readers take it as unknown


def _required(types: frozenset[str]) -> Wire:
    return Wire(types)


def _optional(types: frozenset[str]) -> Wire:
    return Wire(types, optional=True)


KEYS: Mapping[str, Wire] = MappingProxyType(
    {
        # paging (docs/rules.md §A): `total` or `nextStart` says where a listing ends
        "total": _optional(NUMBER),
        "nextStart": _optional(NUMBER),
        # the entries of each listing
        **{
            key: _required(ARRAY)
            for key in (
                "roles",
                "users",
                "collaborations",
                "workspaces",
                "collaborationInvitations",
                "webhooks",
                "tasks",
                "runs",
                "resources",
            )
        },
        # identities, which later paths hold
        "id": _required(STRING),
        "username": _required(STRING),
        "runId": _required(STRING),
        "name": _required(STRING),
        # portals/self
        "isPortal": _required(BOOLEAN),
        "fullVersion": _optional(STRING),
        "enterpriseVersion": _optional(STRING),
        "currentVersion": _optional(STRING | NUMBER),
        "user": _required(OBJECT),
        # roles and members
        "description": _optional(STRING),
        "privileges": _required(ARRAY),
        "role": _required(STRING),
        "roleId": _optional(STRING),  # only members on a custom role carry one
        "level": _optional(STRING | NUMBER),  # a string on real portals; gone with user types
        "disabled": _optional(BOOLEAN),
        "lastLogin": _optional(NUMBER),
        "groups": _optional(ARRAY),
        "owner": _optional(STRING),
        "appLicenses": _optional(ARRAY),
        # collaborations, workspaces, schedules, invitations
        "collaborationHostPortalId": _required(STRING),
        "config": _optional(OBJECT),
        "participantGroupLinks": _optional(ARRAY),
        "portalId": _required(STRING),
        "portalGroupId": _optional(STRING),
        "enableRealtimeSync": _optional(BOOLEAN),
        "copyFeatureServiceData": _optional(BOOLEAN),
        "enableFeatureServiceBidirectionalSync": _optional(BOOLEAN),
        "maxItemSizeInMB": _optional(NUMBER),
        "maxReplicationPackageSizeInMB": _optional(NUMBER),
        "copyByRefIfCopyFail": _optional(BOOLEAN),
        "startTime": _optional(NUMBER),
        "interval": _optional(NUMBER),
        "repeatCount": _optional(NUMBER),
        "timesTriggered": _optional(NUMBER),
        "status": _optional(STRING),
        # webhooks and their settings
        "isActive": _optional(BOOLEAN),
        "active": _optional(BOOLEAN),
        "notificationAttempts": _required(NUMBER),
        "notificationTimeOutInSeconds": _required(NUMBER),
        "notificationElapsedTimeInSeconds": _required(NUMBER),
        "numberOfFailures": _required(NUMBER),
        "daysInPast": _required(NUMBER),
        # tasks, runs, item resources
        "created": _optional(NUMBER | STRING),
        "resource": _required(STRING),
    }
)


# Where one place differs from its key name's rule elsewhere, by `<object key>.<key>`.
AT: Mapping[str, Wire] = MappingProxyType(
    {
        # A member's privileges, in portals/self or the member listing (spec.applier's
        # entry): a portal may leave them out, and nothing is then refused on a guess
        # (`records.caller`); a role's are what it holds.
        "user.privileges": _optional(ARRAY),
        "users.[].privileges": _optional(ARRAY),
    }
)


def wire_of(where: Where) -> Wire | None:
    """The rule for the key at `where`: its place's own, else its name's."""
    for length in (3, 2):
        own = AT.get(".".join(where[-length:]))
        if own is not None:
            return own
    return KEYS.get(where[-1])


def shown(where: Where) -> str:
    """`roles: roles[].privileges`: the read, then the place in its answer."""
    read, *keys = where
    return f"{read}: {'.'.join(keys).replace('.[]', '[]')}"


def wire_findings(seen: Observations) -> Iterator[Finding]:
    """A difference for each key the readers asked that no answer held, or that came as
    another JSON type; a note for each key name this module cannot check."""
    for where, key in sorted(seen.keys.items()):
        wire = wire_of(where)
        if wire is None:
            yield Finding(
                Check.READS,
                Severity.NOTE,
                f"{shown(where)}: orgctl reads this key; its JSON type is not checked",
            )
            continue
        yield from _missing(where, key, wire, seen)
        yield from _other_type(where, key, wire)


def _missing(where: Where, key: KeySeen, wire: Wire, seen: Observations) -> Iterator[Finding]:
    if key.present or wire.optional or key.probed_only:
        return
    answers = seen.objects.get(where[:-1], 0)
    instead = _renamed(where, seen)
    hint = f"; the answers hold {instead!r} instead (renamed?)" if instead else ""
    yield Finding(
        Check.READS,
        Severity.DIFFERENCE,
        f"{shown(where)} is missing from all {answers} answer(s) orgctl read{hint}",
        "orgctl reads the key as unknown or empty: check the portal's release, or what"
        " stands between orgctl and the portal (a proxy or web adaptor rewriting answers)",
    )


def _other_type(where: Where, key: KeySeen, wire: Wire) -> Iterator[Finding]:
    other = sorted(key.types - wire.types - {"null"})
    if not other:
        return
    expected = " or ".join(sorted(wire.types))
    yield Finding(
        Check.READS,
        Severity.DIFFERENCE,
        f"{shown(where)} is a JSON {' and '.join(other)}; orgctl reads a {expected}",
        "orgctl may misread this value: check the portal's release and what rewrites its answers",
    )


def _renamed(where: Where, seen: Observations) -> str | None:
    """The key the answers hold, and no reader asks, that looks most like `where`'s."""
    asked = {w[-1] for w in seen.keys if w[:-1] == where[:-1]}
    extra = sorted(seen.held.get(where[:-1], set()) - asked)
    close = difflib.get_close_matches(where[-1], extra, n=1, cutoff=0.7)
    return close[0] if close else None


def extra_keys(seen: Observations) -> dict[str, list[str]]:
    """Per object of an answer, the keys it held that no reader asks (the JSON report
    lists them: a key the portal renamed shows here beside the missing one)."""
    extra: dict[str, list[str]] = {}
    for place, held in sorted(seen.held.items()):
        asked = {where[-1] for where in seen.keys if where[:-1] == place}
        unused = sorted(held - asked)
        if unused:
            extra[shown(place) if len(place) > 1 else f"{place[0]}: (answer)"] = unused
    return extra
