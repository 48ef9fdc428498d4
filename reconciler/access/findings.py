"""What an access review looks at first.

- admin-custom-role: a member uses administrative privileges (`portal:admin:*`) through a
  custom role, which the portal's own Administrator role does not account for.
- admin-disabled: a disabled account still holds administrative privileges.
- admin-stale: an enabled account holding them has not signed in for more than the
  stale period, or never has (an administrator account nobody uses is the classic one to
  revoke). A member whose last sign-in the portal does not report is not judged.
- role-unheld: a custom role that no member holds (pre-built and built-in roles cannot
  be deleted, so they are not reported).
- default-admin: a default administrator, a member assigned the built-in Administrator
  role (org_admin): who alone creates, changes and deletes roles (docs/rules.md §5). The
  last one is marked: the portal refuses to move it out of the role.
- level-one-disabled: a level-1 member whose role holds privileges the level disables.
- policy: a violation of one of the manifests' policies (kind: Policy), judged on the
  live state alone: the after-values equal the before-values, nothing gained or lost.

The first three and policy are warnings, the rest information. A level-1 member's disabled
administrative privileges are not usable: they count in level-one-disabled, not in the
administrative findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from reconciler.access.holdings import Holding
from reconciler.kinds.forms import MEMBER, ROLE
from reconciler.state import NEVER_SIGNED_IN, Member

ADMIN_CUSTOM_ROLE = "admin-custom-role"
ADMIN_DISABLED = "admin-disabled"
ADMIN_STALE = "admin-stale"
ROLE_UNHELD = "role-unheld"
DEFAULT_ADMIN = "default-admin"
LEVEL_ONE_DISABLED = "level-one-disabled"
POLICY = "policy"

FINDING_KINDS: tuple[str, ...] = (
    ADMIN_CUSTOM_ROLE,
    ADMIN_DISABLED,
    ADMIN_STALE,
    ROLE_UNHELD,
    DEFAULT_ADMIN,
    LEVEL_ONE_DISABLED,
    POLICY,
)
WARNINGS = frozenset({ADMIN_CUSTOM_ROLE, ADMIN_DISABLED, ADMIN_STALE, POLICY})
SEVERITY_ORDER = ("warning", "info")
DAY_MS = 86_400_000


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    subject: str
    message: str
    member: str | None
    role: str | None
    privileges: tuple[str, ...]

    @property
    def severity(self) -> str:
        return "warning" if self.kind in WARNINGS else "info"

    def sort_key(self) -> tuple[int, str, str]:
        return SEVERITY_ORDER.index(self.severity), self.kind, self.subject


@dataclass(frozen=True, slots=True)
class Judged:
    """A member with its role and what it holds, as the findings judge it."""

    member: Member
    role: Holding | None
    administrative: tuple[str, ...]  # the administrative privileges its level leaves usable
    disabled_by_level: tuple[str, ...]  # the role's privileges its level disables


def member_findings(
    judged: Judged, default_admins: frozenset[str], now_ms: int, stale_days: int
) -> list[Finding]:
    member, role = judged.member, judged.role
    name = member.username
    role_name = role.name if role else member.role
    found: list[Finding] = []

    def add(kind: str, message: str, privileges: Sequence[str]) -> None:
        found.append(Finding(kind, MEMBER.of(name), message, name, role_name, tuple(privileges)))

    admin = judged.administrative
    counted = _count(admin, "administrative privilege")
    if admin and role is not None and role.type == "custom":
        add(ADMIN_CUSTOM_ROLE, f"{name} holds {counted} through the custom role {role.name}", admin)
    if admin and member.disabled:
        add(ADMIN_DISABLED, f"{name} is disabled and still holds {counted}", admin)
    if admin and not member.disabled:
        stale = staleness(member.lastLogin, now_ms, stale_days)
        if stale is not None:
            add(ADMIN_STALE, f"{name} {stale} and holds {counted}", admin)
    if name in default_admins:
        last = ", the portal's last one" if len(default_admins) == 1 else ""
        add(DEFAULT_ADMIN, f"{name} is a default administrator (org_admin){last}", admin)
    disabled = judged.disabled_by_level
    if disabled:
        what = _count(disabled, "privilege")
        message = f"{name} is at level 1, which disables {what} of the role {role_name}"
        add(LEVEL_ONE_DISABLED, message, disabled)
    return found


def staleness(last_login: int | None, now_ms: int, stale_days: int) -> str | None:
    """How the last sign-in is stale ("has never signed in"), or None when it is not or
    the portal does not say."""
    if last_login is None:
        return None
    if last_login == NEVER_SIGNED_IN:
        return "has never signed in"
    if now_ms - last_login <= stale_days * DAY_MS:
        return None
    days = (now_ms - last_login) // DAY_MS
    when = datetime.fromtimestamp(last_login / 1000, UTC).strftime("%Y-%m-%d")
    return f"last signed in on {when}, {days} days ago (stale after {stale_days}),"


def unheld_roles(roles: Iterable[Holding], holders: dict[str, int]) -> list[Finding]:
    return [
        Finding(
            ROLE_UNHELD,
            ROLE.of(role.name),
            f"no member holds the custom role {role.name}",
            None,
            role.name,
            tuple(sorted(role.privileges)),
        )
        for role in roles
        if role.type == "custom" and not holders.get(role.name)
    ]


def _count(items: Sequence[str], noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def policy_finding(policy: str, enforcement: str, subject: str, message: str) -> Finding:
    """A policy's violation on the live portal; `subject` is its address (Member/gina,
    Role/Analyst, Portal/hq)."""
    kind, _, name = subject.partition("/")
    return Finding(
        POLICY,
        subject,
        f"policy {policy} ({enforcement}): {message}",
        name if kind == MEMBER.head else None,
        name if kind == ROLE.head else None,
        (),
    )
