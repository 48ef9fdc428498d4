"""The plan as a plain value (the plan file of the README). Renderers and the applier
read it; none of them walks the diff again."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from reconciler.operations import OPERATIONS, Operation, OperationName, segment

FORMAT_VERSION = 1

# A value known only after an earlier call, e.g. "${Role/Field Analyst.id}".
PLACEHOLDER = re.compile(r"\$\{(?P<address>[^}]+)\.(?P<attribute>[A-Za-z]+)\}")


class Action(StrEnum):
    CREATE = "create"
    UPDATE = "update"
    DELETE = "delete"


@dataclass(frozen=True, slots=True)
class Holders:
    """Who holds a role once the plan is applied (`reconciler.kinds.members.reach`): how many
    members, how many at each level the portal reports, and, when some of the privileges
    the change adds are beyond the level-1 set, which stay disabled for which level-1
    holders."""

    total: int
    byLevel: Mapping[str, int] = field(default_factory=dict)
    disabledPrivileges: tuple[str, ...] = ()
    disabledFor: tuple[str, ...] = ()  # the level-1 holders, by username

    @property
    def at_level_one(self) -> int:
        return self.byLevel.get("1", 0)

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"total": self.total, "byLevel": dict(self.byLevel)}
        if self.disabledPrivileges:
            shown["levelOneDisabled"] = {
                "privileges": list(self.disabledPrivileges),
                "members": list(self.disabledFor),
            }
        return shown

    @classmethod
    def from_json(cls, item: Mapping[str, Any]) -> Holders:
        disabled = item.get("levelOneDisabled", {})
        if not isinstance(disabled, Mapping):
            raise TypeError("holders.levelOneDisabled must be an object")
        return cls(
            int(item["total"]),
            {str(level): int(count) for level, count in dict(item["byLevel"]).items()},
            tuple(str(p) for p in disabled.get("privileges", ())),
            tuple(str(m) for m in disabled.get("members", ())),
        )


@dataclass(frozen=True, slots=True)
class LiveAdmin:
    """Administrative privileges a live role grants that the manifests do not declare
    (granted on the portal, not in Git: drift's riskiest finding), and the members who
    hold the role on the portal now, by username."""

    privileges: tuple[str, ...]
    holders: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GrantNote:
    """A time-bound grant as a plan names it (README: Temporary access): the address it
    applies to, what it gives (`role org_publisher`), until when (RFC 3339, UTC), why."""

    address: str
    grants: str
    until: str
    reason: str

    def __str__(self) -> str:
        return f"{self.address}: {self.grants} until {self.until} ({self.reason})"

    def to_json(self) -> dict[str, str]:
        return {
            "address": self.address,
            "grants": self.grants,
            "until": self.until,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, item: Mapping[str, Any]) -> GrantNote:
        return cls(
            str(item["address"]), str(item["grants"]), str(item["until"]), str(item["reason"])
        )


@dataclass(frozen=True, slots=True)
class Change:
    """One resource that differs; `before`/`after` hold only managed fields. `holders`:
    for a change of a role's privileges, who holds the role once applied. `renamedFrom`:
    the live name of a role this update renames in place (metadata.previousNames).
    `administrative`: the administrative privileges the live role holds and the manifests
    do not (a role's: `reconciler.kinds.role.live_admin`; a member's:
    `reconciler.kinds.members.live_admin`)."""

    address: str
    action: Action
    before: dict[str, Any] | None
    after: dict[str, Any] | None
    holders: Holders | None = None
    renamedFrom: str | None = None
    administrative: LiveAdmin | None = None
    # The expired grant the live resource still holds: this change is its overdue
    # revocation (`reconciler.plan.grants`), drift's riskiest finding.
    overdue: GrantNote | None = None

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"address": self.address, "action": str(self.action)}
        if self.renamedFrom is not None:
            shown["renamedFrom"] = self.renamedFrom
        shown.update(before=self.before, after=self.after)
        if self.holders is not None:
            shown["holders"] = self.holders.to_json()
        if self.overdue is not None:
            shown["overdueRevocation"] = self.overdue.to_json()
        return shown


@dataclass(frozen=True, slots=True)
class Ref:
    """A value known only after an earlier call: the `attribute` that the call for
    `address` produced (createRole's role id). Shown as `${<address>.<attribute>}`; only a
    Ref is ever substituted, so text that merely looks like one is sent as written."""

    address: str
    attribute: str = "id"

    @property
    def text(self) -> str:
        return "${" + f"{self.address}.{self.attribute}" + "}"

    @classmethod
    def parse(cls, text: str) -> Ref | None:
        match = PLACEHOLDER.fullmatch(text)
        return cls(match.group("address"), match.group("attribute")) if match else None


# A call's path argument or field: plain text, or a reference to an earlier call's result.
Value = str | Ref


def shown(value: Value) -> str:
    return value.text if isinstance(value, Ref) else value


@dataclass(frozen=True, slots=True)
class Call:
    """One POST, in send order; `dependsOn` lists the seqs that must succeed first.

    The operation's row in `reconciler.operations` says where it goes and how to send
    it; `root` is the portal's sharing or admin root URL and `arguments` fill the path.
    """

    seq: int
    address: str
    operation: OperationName
    root: str
    arguments: Mapping[str, Value]
    params: Mapping[str, Value]
    dependsOn: tuple[int, ...] = ()

    @property
    def spec(self) -> Operation:
        return OPERATIONS[self.operation]

    @property
    def method(self) -> str:
        return self.spec.method

    @property
    def produces(self) -> str | None:
        return self.spec.produces

    @property
    def url(self) -> str:
        """The URL as shown: each argument quoted, a reference as `${...}`."""
        encoded = {
            name: value.text if isinstance(value, Ref) else segment(value)
            for name, value in self.arguments.items()
        }
        return f"{self.root.rstrip('/')}/{self.spec.path.fill(encoded)}"

    @property
    def shown_params(self) -> dict[str, str]:
        return {name: shown(value) for name, value in self.params.items()}

    def references(self) -> dict[str, dict[str, str]]:
        """Where the call holds references, so a saved plan reads them back as such."""
        found = {}
        for part, values in (("url", self.arguments), ("params", self.params)):
            refs = {name: v.text for name, v in values.items() if isinstance(v, Ref)}
            if refs:
                found[part] = refs
        return found

    def to_json(self) -> dict[str, Any]:
        references = self.references()
        return {
            "seq": self.seq,
            "address": self.address,
            "operation": str(self.operation),
            "method": self.method,
            "url": self.url,
            "params": self.shown_params,
            "dependsOn": list(self.dependsOn),
            **({"references": references} if references else {}),
        }


@dataclass(frozen=True, slots=True)
class PlanProblem:
    """Why a plan cannot be applied (error) or what the user should know (warning)."""

    address: str
    message: str

    def __str__(self) -> str:
        return f"{self.address}: {self.message}"

    def to_json(self) -> dict[str, str]:
        return {"address": self.address, "message": self.message}


class PolicyStatus(StrEnum):
    INTRODUCED = "introduced"
    EXISTING = "existing"
    CURED = "cured"


@dataclass(frozen=True, slots=True)
class PolicyVerdict:
    """One violation of a policy (reconciler.policy), as plan JSON `policies` lists it:
    `subject` is an address, `cause` the planned change introducing or curing it (None
    for an existing one)."""

    policy: str
    enforcement: str  # advisory | mandatory
    subject: str
    message: str
    cause: str | None
    status: PolicyStatus

    def to_json(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "enforcement": self.enforcement,
            "subject": self.subject,
            "message": self.message,
            "cause": self.cause,
            "status": str(self.status),
        }

    @classmethod
    def from_json(cls, shown: dict[str, Any]) -> PolicyVerdict:
        cause = shown.get("cause")
        return cls(
            str(shown["policy"]),
            str(shown["enforcement"]),
            str(shown["subject"]),
            str(shown["message"]),
            None if cause is None else str(cause),
            PolicyStatus(shown["status"]),
        )


# Kept privileges, and resources whose difference is ignored, named in an ignored line;
# the plan JSON names them all.
NAMED_IN_LINE = 5


@dataclass(frozen=True, slots=True)
class Hidden:
    """A resource whose live value differs in fields an ignoreChanges path names, or
    (`deleted`, no fields) that the document as declared would delete."""

    address: str
    fields: tuple[str, ...]  # `description`, `schedule.startTime`
    deleted: bool = False

    def __str__(self) -> str:
        return f"{self.address} ({'deleted' if self.deleted else ', '.join(self.fields)})"

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"address": self.address, "fields": list(self.fields)}
        return {**shown, "deleted": True} if self.deleted else shown

    @classmethod
    def from_json(cls, item: Mapping[str, Any]) -> Hidden:
        fields = item["fields"]
        if not isinstance(fields, list):
            raise TypeError("ignored differs fields must be a list")
        return cls(str(item["address"]), tuple(str(f) for f in fields), item.get("deleted") is True)


@dataclass(frozen=True, slots=True)
class Ignored:
    """What the plan left alone at `address` by an ignore rule (`reason`, the manifest
    field): the spec `paths` ignoreChanges names (and `differs`, the resources whose live
    value differs there), or the live `privileges` kept because they match `patterns`
    (ignorePrivileges)."""

    address: str
    reason: str
    paths: tuple[str, ...] = ()
    privileges: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    differs: tuple[Hidden, ...] = ()

    def __str__(self) -> str:
        return f"{self.address}: {self.what}"

    @property
    def what(self) -> str:
        """What was ignored, without the address."""
        if self.privileges:
            count = len(self.privileges)
            return (
                f"ignored {count} live privilege{'s' if count > 1 else ''} matching"
                f" {', '.join(self.patterns)} ({self.reason}): {_named(self.privileges)}"
            )
        rule = f"ignoring {', '.join(self.paths)} ({self.reason})"
        if not self.differs:
            return f"{rule}; the live values match"
        return f"{rule}; live differs at {_named(tuple(str(h) for h in self.differs))}"

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"address": self.address, "reason": self.reason}
        if self.privileges:
            shown.update(privileges=list(self.privileges), patterns=list(self.patterns))
        else:
            shown.update(paths=list(self.paths), differs=[h.to_json() for h in self.differs])
        return shown

    @classmethod
    def from_json(cls, item: Mapping[str, Any]) -> Ignored:
        def listed(key: str) -> list[Any]:
            found = item.get(key, [])
            if not isinstance(found, list):
                raise TypeError(f"ignored {key} must be a list")
            return found

        def texts(key: str) -> tuple[str, ...]:
            return tuple(str(value) for value in listed(key))

        differs = tuple(Hidden.from_json(dict(h)) for h in listed("differs"))
        return cls(
            str(item["address"]),
            str(item["reason"]),
            texts("paths"),
            texts("privileges"),
            texts("patterns"),
            differs,
        )


def _named(items: tuple[str, ...]) -> str:
    more = len(items) - NAMED_IN_LINE
    return ", ".join(items[:NAMED_IN_LINE]) + (f" and {more} more" if more > 0 else "")


@dataclass(frozen=True, slots=True)
class PortalRef:
    url: str
    portalId: str
    deployment: str
    version: str

    def to_json(self) -> dict[str, str]:
        return {
            "url": self.url,
            "portalId": self.portalId,
            "deployment": self.deployment,
            "version": self.version,
        }


@dataclass(frozen=True, slots=True)
class Plan:
    portal: PortalRef
    changes: tuple[Change, ...] = ()
    calls: tuple[Call, ...] = ()
    errors: tuple[PlanProblem, ...] = ()
    warnings: tuple[PlanProblem, ...] = ()
    liveFingerprint: str = ""
    # Per-resource digests of the live state planned on, to name what a stale plan missed.
    liveDigests: Mapping[str, str] = field(default_factory=dict)
    # The manifests the plan was made from, as given on the command line: `apply --plan`
    # reads them again for the credentials' variable names and what to re-read.
    manifests: str | None = None
    # The --target addresses the plan was limited to; `apply --plan` verifies within them.
    targets: tuple[str, ...] = ()
    # Parts of the portal the planning account may not read, by address or kind: why.
    # `apply --plan` leaves them out of the state it compares, as the plan did.
    notCompared: Mapping[str, str] = field(default_factory=dict)
    # What ignore rules left alone, one entry per resource (not changes: an empty plan
    # may have some).
    ignored: tuple[Ignored, ...] = ()
    # The live custom roles no manifest declares, left alone (no spec.pruneRoles): what
    # a drift report mentions as information, never as drift.
    undeclaredRoles: tuple[str, ...] = ()
    # The deletions `--allow-deletes` allowed beyond safety.maxDeletes, by address:
    # `apply --plan` allows exactly these again, and no other.
    allowedDeletes: tuple[str, ...] = ()
    # Every violation of the manifests' policies, before or after the plan; None when the
    # manifests declare no policy.
    policies: tuple[PolicyVerdict, ...] | None = None
    # The time the plan was judged at (RFC 3339, UTC), recorded when the manifests hold
    # time-bound grants or the plan is a preview (`preview`: made with --at, which
    # `apply --plan` refuses); the grants in force then, which a saved plan depends on;
    # and those of them that end within --expiring-within.
    evaluationTime: str | None = None
    preview: bool = False
    grantDeadlines: tuple[GrantNote, ...] = ()
    expiringGrants: tuple[GrantNote, ...] = ()

    def with_manifests(self, manifests: str) -> Plan:
        return replace(self, manifests=manifests)

    @property
    def empty(self) -> bool:
        return not self.changes and not self.calls

    def summary(self) -> dict[str, int]:
        counts = {action.value: 0 for action in Action}
        for change in self.changes:
            counts[change.action.value] += 1
        return {**counts, "calls": len(self.calls)}
