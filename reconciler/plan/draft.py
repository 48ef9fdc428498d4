"""The planner's working state: changes, calls not yet numbered, problems.

Each resource module (roles, members, collaborations, webhooks, retention) adds to one
`Draft`; `order` then numbers the calls. A pending call names its dependencies by key
(operation and address), since sequence numbers exist only once the order is known.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import IntEnum
from urllib.parse import quote

from reconciler import catalog
from reconciler.plan.model import PLACEHOLDER, Change, Problem
from reconciler.state import DesiredState, LiveState


class Group(IntEnum):
    """Send order of design §4; deletions come last, roles last of all."""

    ROLES = 1
    ROLE_PRIVILEGES = 2
    MEMBER_ROLES = 3
    MEMBER_LEVELS = 4
    COLLABORATIONS = 5
    WEBHOOK_SETTINGS = 6
    DELETE_TASK_RUNS = 7
    DELETE_WEBHOOKS = 8
    DELETE_COLLABORATIONS = 9
    DELETE_ROLES = 10


# What each operation yields for later placeholders.
PRODUCES: dict[str, str] = {"createRole": "id"}


@dataclass(frozen=True, slots=True)
class PendingCall:
    key: str
    group: Group
    address: str
    operation: str
    url: str
    params: dict[str, str]
    after: tuple[str, ...] = ()  # keys of calls that must succeed first


def call_key(operation: str, address: str) -> str:
    return f"{operation} {address}"


def placeholder(address: str, attribute: str = "id") -> str:
    return "${" + f"{address}.{attribute}" + "}"


def _path_value(value: str) -> str:
    # Placeholders are resolved at apply time, then quoted by the applier.
    return value if PLACEHOLDER.fullmatch(value) else quote(value, safe="")


@dataclass(slots=True)
class Draft:
    desired: DesiredState
    live: LiveState
    now_ms: int
    changes: list[Change] = field(default_factory=list)
    calls: dict[str, PendingCall] = field(default_factory=dict)
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    def error(self, address: str, message: str) -> None:
        self.errors.append(Problem(address, message))

    def warn(self, address: str, message: str) -> None:
        self.warnings.append(Problem(address, message))

    def url(self, operation: str, ids: Mapping[str, str]) -> str:
        op = catalog.OPERATIONS[operation]
        portal = self.desired.portal
        root = portal.url if op.root == "sharing" else (portal.adminUrl or "")
        values = {name: _path_value(value) for name, value in ids.items()}
        path = op.path.format(portalId=_path_value(self.live.portal.id), **values)
        return f"{root.rstrip('/')}/{path}"

    def call(
        self,
        group: Group,
        address: str,
        operation: str,
        params: Mapping[str, str],
        *,
        ids: Mapping[str, str] | None = None,
        after: tuple[str, ...] = (),
    ) -> str:
        """Add a call; returns its key for the calls that depend on it."""
        key = call_key(operation, address)
        url = self.url(operation, ids or {})
        self.calls[key] = PendingCall(key, group, address, operation, url, dict(params), after)
        return key

    def wait_for(self, key: str, first: str) -> None:
        """Make the call `key` depend on `first` as well, once both are known."""
        call = self.calls[key]
        self.calls[key] = replace(call, after=(*call.after, first))
