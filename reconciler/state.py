"""Normalized portal state: the one shape the planner diffs.

The manifests produce a `DesiredState`, the live reader a `LiveState`; both use the
same leaf records (`Role`, `Member`, `Workspace`, ...), already normalized: privilege
sets, real booleans and integers, epoch-millisecond times, defaults applied, fields the
server manages dropped. In a desired record a field that is `None` is *not managed*:
the planner neither changes it nor reports drift on it.

Attribute names inside records are the service's own (camelCase) so the spec, the
manifests, the plan's `before`/`after` and this code all read alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import Any, Generic, Literal, Self, TypeVar, cast

from reconciler.versions import Platform
from reconciler.windows import Window

# --- where a declaration came from ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Source:
    """A place in a manifest file, for messages that name file and line."""

    file: str
    line: int
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


# --- leaf records, shared by desired and live ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Role:
    name: str
    description: str | None = None
    privileges: frozenset[str] | None = None
    present: bool = True  # desired: False deletes the role
    id: str | None = None  # live only
    editable: bool = True  # live: the pre-built Viewer and Data Editor roles are not


@dataclass(frozen=True, slots=True)
class Member:
    username: str
    role: str | None = None  # a built-in role id or a custom role's *name*
    level: int | None = None
    # Live only, for the access report; never planned, diffed or fingerprinted. None: the
    # portal did not say (or said something that is not a flag or a time).
    disabled: bool | None = None
    lastLogin: int | None = None  # Unix milliseconds; NEVER_SIGNED_IN when never


NEVER_SIGNED_IN = -1  # `lastLogin` of a member who never signed in, as portals answer it


@dataclass(frozen=True, slots=True)
class Grant:
    """Time-bound access (README: Temporary access): until `until`, the member at
    `address` holds `role` and/or `level` (a Members entry's grant), or the role at
    `address` holds `privileges` too (a Role's temporaryPrivileges). Resolved into plain
    records at an evaluation time (`reconciler.manifest.grants`); the planner never
    sees one."""

    address: str  # Member/<username> or Role/<name>
    until: datetime
    reason: str
    role: str | None = None
    level: int | None = None
    privileges: frozenset[str] = frozenset()
    source: Source | None = None


@dataclass(frozen=True, slots=True)
class MemberDetail:
    """Live facts about one member, read only for members whose level changes."""

    username: str
    ownedItems: int
    ownedGroups: int
    privileges: frozenset[str]


@dataclass(frozen=True, slots=True)
class Schedule:
    startTime: int | None = None  # Unix milliseconds
    interval: int | None = None  # hours
    repeatCount: int | None = None  # -1 repeats forever
    timesTriggered: int | None = None  # live only


@dataclass(frozen=True, slots=True)
class GroupLink:
    """This portal's link of a workspace to one of its groups (guest side)."""

    portalGroupId: str | None = None
    enableRealtimeSync: bool | None = None
    copyFeatureServiceData: bool | None = None
    enableFeatureServiceBidirectionalSync: bool | None = None


@dataclass(frozen=True, slots=True)
class Workspace:
    id: str
    name: str | None = None
    description: str | None = None
    maxItemSizeInMB: int | float | None = None
    maxReplicationPackageSizeInMB: int | float | None = None
    copyByRefIfCopyFail: bool | None = None
    groupLink: GroupLink | None = None
    schedule: Schedule | None = None


@dataclass(frozen=True, slots=True)
class Collaboration:
    id: str
    name: str | None = None
    workspaces: Mapping[str, Workspace] = field(default_factory=dict)
    present: bool = True  # desired: False deletes (host) or leaves (guest)
    invalidInvitations: frozenset[str] = frozenset()  # desired: must be invalid
    hostPortalId: str | None = None  # live
    invitations: Mapping[str, str] = field(default_factory=dict)  # live: id -> status


# This portal's side of a collaboration: what decides which of its calls it may make.
Side = Literal["host", "guest"]


@dataclass(frozen=True, slots=True)
class Webhook:
    id: str
    name: str
    active: bool = True


@dataclass(frozen=True, slots=True)
class TaskRun:
    runId: str
    status: str
    created: int  # Unix milliseconds


@dataclass(frozen=True, slots=True)
class Task:
    id: str
    owner: str
    runs: tuple[TaskRun, ...] = ()


@dataclass(frozen=True, slots=True)
class Auth:
    """Names of environment variables; never the secrets themselves."""

    tokenEnv: str | None = None
    usernameEnv: str | None = None
    passwordEnv: str | None = None


@dataclass(frozen=True, slots=True)
class PortalTarget:
    """The Portal document: where the portal is and what it runs."""

    name: str
    url: str
    platform: Platform
    auth: Auth
    adminUrl: str | None = None
    extraPrivileges: frozenset[str] = frozenset()
    # Privilege patterns every declared role keeps live (spec.ignorePrivileges).
    ignorePrivileges: tuple[str, ...] = ()
    maxDeletes: int = 10
    applyWindows: tuple[Window, ...] = ()  # empty: applies always allowed
    applier: str | None = None  # the member whose capabilities a plan predicts
    pruneRoles: bool = False  # delete the custom roles no manifest declares
    keepRoles: frozenset[str] = frozenset()  # never pruned: names (any case) or ids
    selfHeal: bool = False  # spec.agent.selfHeal: `orgctl agent --allow-apply` may apply


@dataclass(frozen=True, slots=True)
class IgnoredPaths:
    """A document's metadata.ignoreChanges: the spec paths, the addresses of the
    resources the document declares (where a difference it hides may be) and its kind
    (a policy, such as OrganizationWebhooks, declares no address of what it deletes)."""

    paths: tuple[str, ...]
    addresses: frozenset[str]
    kind: str


# --- a kind's own part of the state -----------------------------------------------------------

T = TypeVar("T")


@dataclass(frozen=True, slots=True, eq=False)
class StateKey(Generic[T]):
    """A kind's own slot in a `DesiredState` or `LiveState`: its module declares one per
    thing it keeps (`POLICIES: StateKey[list[Policy]] = StateKey("Policy", list)`), and
    `state.get(POLICIES)` is typed as that thing, as a built-in field is. Keys compare by
    identity, so two kinds' keys of one name never share a slot."""

    name: str  # said in a repr and a message
    empty: Callable[[], T]  # the slot before the kind declares or reads anything


@dataclass(slots=True)
class KindSlots:
    """The slots of the kinds beyond the state's own fields, by `StateKey`."""

    kinds: dict[StateKey[Any], Any] = field(default_factory=dict, kw_only=True)

    def get(self, key: StateKey[T]) -> T:
        """The kind's slot, made empty on first use so a kind can add to it."""
        if key not in self.kinds:
            self.kinds[key] = key.empty()
        return cast(T, self.kinds[key])

    def put(self, key: StateKey[T], value: T) -> None:
        self.kinds[key] = value

    def with_slot(self, key: StateKey[T], value: T) -> Self:
        """A copy whose slot `key` holds `value`; this state keeps its own."""
        return replace(self, kinds={**self.kinds, key: value})

    def has(self, key: StateKey[Any]) -> bool:
        """Whether the kind put anything there (a desired state without the kind's
        documents has no slot for it)."""
        return key in self.kinds


@dataclass(slots=True)
class DesiredState(KindSlots):
    """Everything the manifests declare, keyed by identity; `sources` maps a resource
    address (README: plan JSON) to where it was declared."""

    portal: PortalTarget
    roles: dict[str, Role] = field(default_factory=dict)
    members: dict[str, Member] = field(default_factory=dict)
    # Each declared role's earlier names (metadata.previousNames), by its name: a live role
    # of one of them is that role, renamed in place (reconciler.kinds.role.renames).
    previousNames: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)
    # Ignore rules (reconciler.manifest.ignoring): a role's own privilege patterns, by
    # name; what each document ignores, by the document's address.
    ignorePrivileges: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ignoring: dict[str, IgnoredPaths] = field(default_factory=dict)
    # The documents with ignoreChanges, every field as declared (None: nothing is
    # ignored): what a resource orgctl creates is created with, and what the plan
    # compares to name the differences the rules hide.
    declared: DesiredState | None = None
    # Time-bound grants by the address they apply to, in declared order; `members` and
    # `roles` hold what each falls back to once its grants have expired.
    grants: dict[str, tuple[Grant, ...]] = field(default_factory=dict)


# --- live --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Caller:
    """The signed-in member as `portals/self` describes it (its `user`): what decides
    which calls it may make (`reconciler.plan.capabilities`)."""

    username: str
    role: str | None = None  # org_admin, org_publisher or org_user; a custom role's base
    roleId: str | None = None  # a custom role's id, or the built-in role's own name
    privileges: frozenset[str] | None = None  # None: the portal did not say


@dataclass(frozen=True, slots=True)
class PortalInfo:
    """`portals/self`, plus the caller's identity."""

    id: str
    name: str
    platform: Platform
    username: str
    # How many members each level may hold, from the Portal Administrator API's licenses
    # resource (docs/rules.md §A); read only when a plan changes levels.
    levelQuotas: Mapping[int, int] = field(default_factory=dict)
    # Why the quotas could not be read (the plan says they were not checked); None: read,
    # or not needed.
    levelQuotasUnread: str | None = None
    caller: Caller | None = None  # None: unknown, and no call is refused for its caller


@dataclass(slots=True)
class LiveState(KindSlots):
    portal: PortalInfo
    roles: dict[str, Role] = field(default_factory=dict)  # by name
    members: dict[str, Member] = field(default_factory=dict)  # by username
    memberDetails: dict[str, MemberDetail] = field(default_factory=dict)
    # Resources the portal answered with values orgctl cannot read, by address: why.
    unreadable: dict[str, str] = field(default_factory=dict)
    # Parts the signed-in member may not read (403), by address or kind ("Collaboration/*"):
    # why. Planned as unknown: the plan says what it could not compare.
    unread: dict[str, str] = field(default_factory=dict)
    # The member the Portal's spec.applier names, as the member listing and the roles
    # describe it (None: no applier named, or not a member).
    applier: Caller | None = None


def managed_fields(record: Any) -> dict[str, Any]:
    """The fields of a record that are managed (not None), by their service names.

    Live-only bookkeeping (ids, flags) is left out; nested records are expanded.
    """
    skip = {"id", "editable", "present", "timesTriggered", "hostPortalId", "invitations"}
    skip |= {"disabled", "lastLogin"}
    out: dict[str, Any] = {}
    for f in fields(record):
        value = getattr(record, f.name)
        if f.name in skip or value is None:
            continue
        if hasattr(value, "__dataclass_fields__"):
            value = managed_fields(value)
        elif isinstance(value, frozenset):
            value = sorted(value)
        out[f.name] = value
    return out
