"""Every call orgctl makes and the reference service answers, as data: one table of
writes (`OPERATIONS`) and one of reads (`READS`).

Both products are built from these tables, so a path, a gate or a capability is stated
once: the service routes requests by them and checks gates and capabilities before a
handler runs; the planner builds URLs and orders calls by them; the applier decides from
them whether a call may be sent again and how to settle a call whose reply was lost; the
plan file names each call's operation. The rules behind each row are docs/rules.md §4,
§5 and §9; the reads are §A.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from types import MappingProxyType
from urllib.parse import quote

from reconciler.catalog import (
    ALWAYS,
    GROUP_LINK_GATES,
    WORKSPACE_INFO_GATES,
    Availability,
    Bound,
    Feature,
    Gate,
    feature_problem,
    since,
)
from reconciler.errors import UserError
from reconciler.text_rules import REFUSED_IN_NAMES
from reconciler.versions import Platform


class Root(StrEnum):
    """Which root a path is under: the portal's sharing REST root or its admin root."""

    SHARING = "sharing"
    ADMIN = "admin"
    PORTAL_ADMIN = "portaladmin"  # the Portal Administrator API, `<portal>/portaladmin`


class Capability(StrEnum):
    """Who may call an operation (docs/rules.md §5); the text is what a refusal names."""

    ORG_ADMIN = "an organization administrator"
    # Every member assigned the built-in Administrator role (docs/rules.md §5).
    DEFAULT_ADMIN = "a default administrator (the built-in org_admin role)"
    ROLE_ASSIGNER = "an organization administrator or a holder of portal:admin:changeUserRoles"
    HOST_ADMIN = "an administrator of the collaboration's host portal"
    GUEST_ADMIN = "an administrator of a guest portal of the collaboration"
    # The spec says "collaboration guests"; a guest portal acts through its administrator.
    COLLABORATION_GUEST = "an administrator of a guest portal of the collaboration"
    WEBHOOK_ADMIN = "a default administrator (org_admin) or a holder of portal:admin:manageWebhooks"
    TASK_OWNER_OR_ADMIN = "the task's owner or an organization administrator"
    LICENSE_MANAGER = "an organization administrator or a holder of portal:admin:manageLicenses"


class Phase(IntEnum):
    """Send order of a plan's calls, before the address and the row's `rank`: roles,
    privileges, member roles, levels, collaborations, delivery settings; deletions come
    last, roles last of all (after no member holds them)."""

    ROLES = 1
    ROLE_PRIVILEGES = 2
    MEMBER_ROLES = 3
    MEMBER_LEVELS = 4
    COLLABORATIONS = 5
    SETTINGS = 6
    DELETE_TASK_RUNS = 7
    DELETE_WEBHOOKS = 8
    DELETE_COLLABORATIONS = 9
    DELETE_ROLES = 10


class OperationName(StrEnum):
    UPDATE_USER_LEVEL = "updateUserLevel"
    CREATE_ROLE = "createRole"
    UPDATE_ROLE = "updateRole"
    SET_PRIVILEGES = "setPrivileges"
    UPDATE_USER_ROLE = "updateUserRole"
    UPDATE_INFO = "updateInfo"
    UPDATE_GROUP_LINK = "updatePortalGroupLink"
    UPDATE_SCHEDULE = "updateSchedule"
    INVALIDATE_INVITATION = "invalidateInvitation"
    IMPORT_INVITATION_RESPONSE = "importInvitationResponse"
    WEBHOOK_SETTINGS = "webhookSettings"
    DELETE_TASK_RUN = "deleteTaskRun"
    DELETE_WEBHOOK = "deleteWebhook"
    REMOVE_PARTICIPATION = "removeParticipation"
    DELETE_COLLABORATION = "deleteCollaboration"
    DELETE_ROLE = "deleteRole"
    # The portal's own delivery settings for organization webhooks (not docs/rules.md §4.12).
    UPDATE_PORTAL_WEBHOOK_SETTINGS = "updatePortalWebhookSettings"
    # The portal's file resources; orgctl keeps its apply lock as one (README: the lock).
    ADD_RESOURCE = "addResource"
    REMOVE_RESOURCE = "removeResource"
    # Writes the vendor's clients send beside the spec's; orgctl never sends them.
    PAUSE_SCHEDULE = "pauseSchedule"
    RESUME_SCHEDULE = "resumeSchedule"
    DELETE_SCHEDULE = "deleteSchedule"
    ACTIVATE_WEBHOOK = "activateWebhook"
    DEACTIVATE_WEBHOOK = "deactivateWebhook"
    UPDATE_WEBHOOK = "updateWebhook"
    UPDATE_USER_LICENSE_TYPE = "updateUserLicenseType"


class ReadName(StrEnum):
    ROOT = "root"
    INFO = "info"
    GENERATE_TOKEN = "generateToken"
    ADMIN_GENERATE_TOKEN = "adminGenerateToken"
    PORTAL = "portal"
    ROLES = "roles"
    ROLE = "role"
    ROLE_PRIVILEGES = "rolePrivileges"
    MEMBERS = "members"
    MEMBER = "member"
    MEMBER_ITEMS = "memberItems"
    COLLABORATIONS = "collaborations"
    COLLABORATION = "collaboration"
    WORKSPACES = "workspaces"
    WORKSPACE = "workspace"
    SCHEDULE = "schedule"
    PARTICIPANTS = "participants"
    INVITATIONS = "invitations"
    ORG_WEBHOOKS = "orgWebhooks"
    TASKS = "tasks"
    TASK = "task"
    RUNS = "runs"
    ITEM_RESOURCES = "itemResources"
    SERVICE_WEBHOOKS = "serviceWebhooks"
    WEBHOOK_SETTINGS = "webhookSettings"
    ORG_WEBHOOK = "orgWebhook"
    PORTAL_WEBHOOK_SETTINGS = "portalWebhookSettings"
    RUN = "run"
    INVITATION = "invitation"
    USER_SEARCH = "userSearch"
    SELF = "self"  # community/self: the member a token names
    ORG_USER_SEARCH = "orgUserSearch"
    ORG_USER_SEARCH_AS_DOCUMENTED = "orgUserSearchAsDocumented"  # `portal/`, singular
    ALL_SCHEDULED_TASKS = "allScheduledTasks"
    SERVERS = "servers"
    LANGUAGES = "languages"  # portals/languages: the vendor's client reads it to update a user
    # community/users/<u>/update: a member's profile (the vendor's User.update); a POST
    # that changes state, kept here beside generateToken as orgctl never sends it
    UPDATE_USER = "updateUser"
    PORTAL_ADMIN = "portalAdmin"
    SYSTEM_LICENSES = "systemLicenses"
    USER_TYPE_LICENSE = "userTypeLicense"
    RESOURCES = "resources"
    RESOURCE = "resource"
    # Reads the vendor's clients make beside orgctl's own (docs/rules.md §D).
    PARTICIPANT = "participant"
    WEBHOOK_NOTIFICATIONS = "webhookNotifications"
    USER_LICENSE_TYPES = "userLicenseTypes"
    MEMBER_LICENSE_TYPE = "memberLicenseType"
    PORTAL_SETTINGS = "portalSettings"
    SUBSCRIPTION_INFO = "subscriptionInfo"
    MEMBER_TAGS = "memberTags"
    MEMBER_INVITATIONS = "memberInvitations"
    MEMBER_NOTIFICATIONS = "memberNotifications"
    GROUP_SEARCH = "groupSearch"
    ITEM = "item"
    VALIDATE_APP_ACCESS = "validateAppAccess"


_ARGUMENT = re.compile(r"\{([A-Za-z]+)\}")


@dataclass(frozen=True, slots=True)
class Path:
    """A path template under a root; each `{name}` is exactly one path segment."""

    root: Root
    template: str

    def __post_init__(self) -> None:
        # `fill` hands the template to str.format_map: no brace may stand but an argument's.
        if "{" in _ARGUMENT.sub("", self.template) or "}" in _ARGUMENT.sub("", self.template):
            raise ValueError(f"path {self.template!r} holds a brace outside an argument")

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self.template.split("/")) if self.template else ()

    @property
    def arguments(self) -> tuple[str, ...]:
        return tuple(_ARGUMENT.findall(self.template))

    def fill(self, encoded: Mapping[str, str]) -> str:
        """The path with each argument replaced by its already-encoded segment: a
        `{name}` is format syntax, so one format_map fills them all (every call shown)."""
        return self.template.format_map(encoded)

    def build(self, arguments: Mapping[str, str]) -> str:
        """The path with each argument quoted as one segment: `a/b c` -> `a%2Fb%20c`."""
        return self.fill({name: segment(value) for name, value in arguments.items()})

    def match(self, given: list[str]) -> dict[str, str] | None:
        """The arguments `given` segments (already decoded) hold, or None if no match.
        Fixed segments match regardless of case, as the service's paths do."""
        pattern = self.segments
        if len(given) != len(pattern):
            return None
        found: dict[str, str] = {}
        for part, value in zip(pattern, given, strict=True):
            if part.startswith("{"):
                if not value:
                    return None
                found[part[1:-1]] = value
            elif part.lower() != value.lower():
                return None
        return found


def call_key(operation: str, address: str) -> str:
    """The one name of a planned call: its operation and its resource's address (a call
    names the calls it waits for by theirs)."""
    return f"{operation} {address}"


class UnusableSegment(UserError):
    """A value that cannot stand as one segment of a request's path."""


_DOT_SEGMENTS = ("", ".", "..")
# Anything below that makes a string no segment, found in one search.
_UNUSABLE = re.compile(rf"{REFUSED_IN_NAMES.pattern}|[/\\]")
# What quote() never changes (RFC 3986's unreserved characters).
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]+")


def segment_problem(value: object) -> str | None:
    """Why `value` cannot stand as one segment of a request's path, or None when it can.

    Quoting keeps `/`, `?` and `#` inside one segment, but not `.` and `..`: HTTP clients
    and servers resolve those as dot segments (RFC 3986 §5.2.4), so a role id `..` would
    turn `portals/<id>/roles/../update` into the organization's own Update. No id a portal
    issues is one, nor holds a path separator (a server may decode `%2F`, or take `\\` for
    `/`) or a control character."""
    if type(value) is str and value not in _DOT_SEGMENTS and not _UNUSABLE.search(value):
        return None  # every username of a 100,000-member listing: one search
    if not isinstance(value, str):
        return f"a JSON {json_kind(value)}, not a string"
    if value in _DOT_SEGMENTS:
        return "empty" if not value else "a dot segment, which would move the request up the path"
    if "/" in value or "\\" in value:
        return "it holds a path separator"
    if REFUSED_IN_NAMES.search(value):
        return "it holds a control or bidirectional formatting character"
    return None


def checked_segment(value: object, what: str) -> str:
    """`value` when it can be one path segment; else `UnusableSegment` naming `what`."""
    problem = segment_problem(value)
    if problem is not None:
        raise UnusableSegment(
            f"{what} is {shown_value(value)}: not an id a portal issues ({problem})"
        )
    assert isinstance(value, str)
    return value


def segment(value: str) -> str:
    """`value` quoted as exactly one path segment; refused (`UnusableSegment`) when no
    quoting can keep it one, so no path is built from a value that would steer it."""
    if type(value) is str and value not in _DOT_SEGMENTS and _UNRESERVED.fullmatch(value):
        return value  # its own quoted form, and one segment: every id a portal issues
    return quote(checked_segment(value, "a path argument"), safe="")


def json_kind(value: object) -> str:
    """What JSON calls the type of a decoded value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    kinds: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return kinds.get(type(value), type(value).__name__)


def shown_value(value: object) -> str:
    """A decoded value for a one-line message: as JSON, control characters escaped, cut."""
    text = json.dumps(value, ensure_ascii=True, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True, slots=True)
class Adoption:
    """How to settle a non-idempotent call whose reply was lost: look for what it would
    have created in `listing`, by the entry whose `field` equals the call's `param`.

    `resend_when_absent`: when the lookup finds nothing the call may be sent again in the
    same run. Safe only where the portal refuses a second entry with the same `param`, so
    a first request that lands late makes one of the two fail instead of a duplicate."""

    listing: ReadName
    param: str
    field: str
    resend_when_absent: bool = False


@dataclass(frozen=True, slots=True)
class ParameterGate:
    """A parameter that needs a later release than its operation. `when_true`: the
    service refuses it only when it is sent as true (false is the old behaviour)."""

    feature: Feature
    when_true: bool = False


@dataclass(frozen=True, slots=True)
class Operation:
    """One write: where it is, who may call it, where it exists, how to send it safely."""

    name: OperationName
    path: Path
    capability: Capability
    phase: Phase  # where a plan sends it among the other operations
    rank: int  # send order within one address: create before privileges, and so on
    # Where the operation exists (docs/rules.md §9), by the name its refusal gives.
    available: Availability
    parameters: Mapping[str, ParameterGate] = field(default_factory=dict)
    idempotent: bool = True  # sending it twice leaves the portal as sending it once
    produces: str | None = None  # the reply attribute later calls refer to
    adoption: Adoption | None = None  # for a non-idempotent call whose reply was lost
    gone_when_missing: bool = False  # a delete: "not found" after a lost reply means done
    method: str = "POST"

    def url(self, root_url: str, arguments: Mapping[str, str]) -> str:
        return f"{root_url.rstrip('/')}/{self.path.build(arguments)}"

    def problem(self, platform: Platform) -> str | None:
        """Why the operation cannot be called on `platform`, or None when it can."""
        return self.available.problem(platform)

    def parameter_problem(self, name: str, platform: Platform) -> str | None:
        gate = self.parameters.get(name)
        return feature_problem(gate.feature, platform) if gate else None


@dataclass(frozen=True, slots=True)
class ReadAccess:
    """Who may make a read (README: a reviewer's read-only account): any signed-in member
    when `anyone`; else an organization administrator, a holder of one of `privileges`,
    or the member the path argument `own` names (a member reads its own account)."""

    privileges: tuple[str, ...] = ()
    own: str | None = None
    anyone: bool = False
    # Others get the public profile of the members they may see instead of a refusal
    # (the service's `visibility`); the rest of this row says who reads whole accounts.
    profiles: bool = False

    @property
    def text(self) -> str:
        if self.anyone:
            return "any signed-in member"
        who = ["the member itself"] if self.own else []
        who.append("an organization administrator")
        held = " or ".join(self.privileges)
        if held:
            who.append(f"a holder of {held}")
        return ", ".join(who[:-1]) + f" or {who[-1]}" if len(who) > 1 else who[0]


ANY_MEMBER = ReadAccess(anyone=True)
ADMINS_ONLY = ReadAccess()
VIEW_USERS = "portal:admin:viewUsers"
VIEW_ITEMS = "portal:admin:viewItems"
MANAGE_COLLABORATIONS = "portal:admin:manageCollaborations"
MANAGE_WEBHOOKS = "portal:admin:manageWebhooks"
# The vendor's documents give the collaboration resources to administrators ("Required
# Capability: Administrator"); the one administrative privilege for them is this one.
_COLLABORATION_READERS = ReadAccess((MANAGE_COLLABORATIONS,))
_WEBHOOK_READERS = ReadAccess((MANAGE_WEBHOOKS,))
_OWN_TASKS = ReadAccess(own="username")


@dataclass(frozen=True, slots=True)
class Read:
    """One read: where it is, the key of its entries when it is a paged listing, and who
    may make it."""

    name: ReadName
    path: Path
    entries: str | None = None
    signed_in: bool = True  # False: answered without a token (sign-in, server info)
    write: bool = False  # a POST that changes state (a token issued)
    # Addressed as `portals/self/...` by the vendor's client, so it can be read while
    # `portals/self` is still telling the portal's id (one round trip fewer before pages).
    by_self: bool = False
    access: ReadAccess = ANY_MEMBER

    def build(self, **arguments: str) -> str:
        return self.path.build(arguments)

    @property
    def needs_portal_id(self) -> bool:
        return "portalId" in self.path.arguments and not self.by_self


_PORTAL = "portals/{portalId}"
_COLLABORATION = _PORTAL + "/collaborations/{collaborationId}"
_WORKSPACE = _COLLABORATION + "/workspaces/{workspaceId}"
_TASK = "community/users/{username}/tasks/{taskId}"
_WEBHOOK_SETTINGS = Path(Root.ADMIN, "services/webhooks/settings")
_PORTAL_WEBHOOK_SETTINGS = _PORTAL + "/webhooks/settings"


def _sharing(template: str) -> Path:
    return Path(Root.SHARING, template)


# Parameters that need a later release than their operation; the catalog's tables of
# workspace fields hold the releases, and `config` went away at 10.6.
_INFO_GATES = {
    **{
        name: ParameterGate(feature)
        for name, feature in WORKSPACE_INFO_GATES.items()
        if feature is not None
    },
    "config": ParameterGate(Feature.UPDATE_INFO_CONFIG),
}
_GROUP_LINK_GATES = {
    name: ParameterGate(feature, when_true=True)
    for name, feature in GROUP_LINK_GATES.items()
    if feature is not None
}
# Operations every release has; organization webhooks came at 10.7 (one gate for the
# deletion and the portal's delivery settings, as the service has always named it).
_ANY_RELEASE = Availability("", ALWAYS)
_ORGANIZATION_WEBHOOKS = Availability("webhook delete", since("10.7"))
# Pausing and resuming a workspace's job came at 10.7, deleting it at 10.6 with the
# schedule itself (the vendor's pause, resume and delete-schedule pages).
_SCHEDULE_PAUSE = Availability("schedule pause and resume", since("10.7"))
_SCHEDULE_DELETE = Availability("schedule delete", since("10.6"))
# User types replaced member levels at 10.7 (hosted-cloud long since).
_USER_TYPES = Availability("user types", since("10.7"))

_OPERATION_ROWS = (
    Operation(
        OperationName.CREATE_ROLE,
        _sharing(_PORTAL + "/createRole"),
        Capability.DEFAULT_ADMIN,
        Phase.ROLES,
        rank=0,
        available=Availability("createRole", ALWAYS),
        idempotent=False,
        produces="id",
        # Role names are unique in an organization (ROLE_1001 for a second one).
        adoption=Adoption(ReadName.ROLES, param="name", field="name", resend_when_absent=True),
    ),
    Operation(
        OperationName.UPDATE_ROLE,
        _sharing(_PORTAL + "/roles/{roleId}/update"),
        Capability.DEFAULT_ADMIN,
        Phase.ROLES,
        rank=1,
        available=_ANY_RELEASE,
    ),
    Operation(
        OperationName.SET_PRIVILEGES,
        _sharing(_PORTAL + "/roles/{roleId}/setPrivileges"),
        Capability.DEFAULT_ADMIN,
        Phase.ROLE_PRIVILEGES,
        rank=2,
        available=Availability("setPrivileges", ALWAYS),
    ),
    Operation(
        OperationName.UPDATE_USER_ROLE,
        _sharing(_PORTAL + "/updateuserrole"),
        Capability.ROLE_ASSIGNER,
        Phase.MEMBER_ROLES,
        rank=3,
        available=_ANY_RELEASE,
    ),
    Operation(
        OperationName.UPDATE_USER_LEVEL,
        _sharing(_PORTAL + "/updateUserLevel"),
        Capability.ORG_ADMIN,
        Phase.MEMBER_LEVELS,
        rank=4,
        available=Availability("updateUserLevel", Gate(Bound(until="10.6.1"), None)),
    ),
    Operation(
        OperationName.UPDATE_INFO,
        _sharing(_WORKSPACE + "/updateInfo"),
        Capability.HOST_ADMIN,
        Phase.COLLABORATIONS,
        rank=7,
        available=Availability("updateInfo", since("10.5")),
        parameters=_INFO_GATES,
    ),
    Operation(
        OperationName.UPDATE_GROUP_LINK,
        _sharing(_WORKSPACE + "/updatePortalGroupLink"),
        Capability.GUEST_ADMIN,
        Phase.COLLABORATIONS,
        rank=8,
        available=Availability("updatePortalGroupLink", since("10.5")),
        parameters=_GROUP_LINK_GATES,
    ),
    Operation(
        OperationName.UPDATE_SCHEDULE,
        _sharing(_WORKSPACE + "/schedule/update"),
        Capability.COLLABORATION_GUEST,
        Phase.COLLABORATIONS,
        rank=9,
        available=Availability("schedule update", since("10.6")),
    ),
    Operation(
        OperationName.INVALIDATE_INVITATION,
        _sharing(_COLLABORATION + "/invitations/{invitationId}/invalidate"),
        Capability.HOST_ADMIN,
        Phase.COLLABORATIONS,
        rank=12,
        available=Availability("invalidate invitation", since("10.5")),
    ),
    Operation(
        # A guest's answer to an invitation, imported by the host; orgctl never sends it.
        OperationName.IMPORT_INVITATION_RESPONSE,
        _sharing(_COLLABORATION + "/importInvitationResponse"),
        Capability.HOST_ADMIN,
        Phase.COLLABORATIONS,
        rank=13,
        available=_ANY_RELEASE,
        idempotent=False,
    ),
    Operation(
        OperationName.WEBHOOK_SETTINGS,
        _WEBHOOK_SETTINGS,
        Capability.WEBHOOK_ADMIN,
        Phase.SETTINGS,
        rank=14,
        available=Availability("webhook settings", Gate(Bound(since="11.2"), None)),
    ),
    Operation(
        OperationName.DELETE_TASK_RUN,
        _sharing(_TASK + "/runs/{runId}/delete"),
        Capability.TASK_OWNER_OR_ADMIN,
        Phase.DELETE_TASK_RUNS,
        rank=18,
        available=Availability("task run delete", since("10.8.1")),
        gone_when_missing=True,
    ),
    Operation(
        OperationName.DELETE_WEBHOOK,
        _sharing(_PORTAL + "/webhooks/{webhookId}/delete"),
        Capability.WEBHOOK_ADMIN,
        Phase.DELETE_WEBHOOKS,
        rank=20,
        available=_ORGANIZATION_WEBHOOKS,
        gone_when_missing=True,
    ),
    Operation(
        OperationName.REMOVE_PARTICIPATION,
        _sharing(_COLLABORATION + "/removeParticipation"),
        Capability.GUEST_ADMIN,
        Phase.DELETE_COLLABORATIONS,
        rank=21,
        available=Availability("removeParticipation", since("10.5")),
        gone_when_missing=True,
    ),
    Operation(
        OperationName.DELETE_COLLABORATION,
        _sharing(_COLLABORATION + "/delete"),
        Capability.HOST_ADMIN,
        Phase.DELETE_COLLABORATIONS,
        rank=22,
        available=Availability("collaboration delete", ALWAYS),
        gone_when_missing=True,
    ),
    Operation(
        OperationName.DELETE_ROLE,
        _sharing(_PORTAL + "/roles/{roleId}/delete"),
        Capability.DEFAULT_ADMIN,
        Phase.DELETE_ROLES,
        rank=23,
        available=_ANY_RELEASE,
        gone_when_missing=True,
    ),
    Operation(
        # Sent by the vendor's client (WebhookManager.settings); orgctl never sends it.
        OperationName.UPDATE_PORTAL_WEBHOOK_SETTINGS,
        _sharing(_PORTAL_WEBHOOK_SETTINGS + "/update"),
        Capability.WEBHOOK_ADMIN,
        Phase.SETTINGS,
        rank=24,
        available=_ORGANIZATION_WEBHOOKS,
    ),
    Operation(
        # Writing a key that exists replaces its text, so sending it twice is harmless.
        OperationName.ADD_RESOURCE,
        _sharing(_PORTAL + "/addResource"),
        Capability.ORG_ADMIN,
        Phase.SETTINGS,
        rank=25,
        available=_ANY_RELEASE,
    ),
    Operation(
        OperationName.REMOVE_RESOURCE,
        _sharing(_PORTAL + "/removeResource"),
        Capability.ORG_ADMIN,
        Phase.SETTINGS,
        rank=26,
        available=_ANY_RELEASE,
        gone_when_missing=True,
    ),
    Operation(
        OperationName.PAUSE_SCHEDULE,
        _sharing(_WORKSPACE + "/schedule/pause"),
        Capability.COLLABORATION_GUEST,
        Phase.COLLABORATIONS,
        rank=10,
        available=_SCHEDULE_PAUSE,
    ),
    Operation(
        OperationName.RESUME_SCHEDULE,
        _sharing(_WORKSPACE + "/schedule/resume"),
        Capability.COLLABORATION_GUEST,
        Phase.COLLABORATIONS,
        rank=11,
        available=_SCHEDULE_PAUSE,
    ),
    Operation(
        OperationName.DELETE_SCHEDULE,
        _sharing(_WORKSPACE + "/schedule/delete"),
        Capability.COLLABORATION_GUEST,
        Phase.DELETE_COLLABORATIONS,
        rank=19,
        available=_SCHEDULE_DELETE,
        gone_when_missing=True,
    ),
    Operation(
        OperationName.DEACTIVATE_WEBHOOK,
        _sharing(_PORTAL + "/webhooks/{webhookId}/deactivate"),
        Capability.WEBHOOK_ADMIN,
        Phase.SETTINGS,
        rank=15,
        available=_ORGANIZATION_WEBHOOKS,
    ),
    Operation(
        OperationName.ACTIVATE_WEBHOOK,
        _sharing(_PORTAL + "/webhooks/{webhookId}/activate"),
        Capability.WEBHOOK_ADMIN,
        Phase.SETTINGS,
        rank=16,
        available=_ORGANIZATION_WEBHOOKS,
    ),
    Operation(
        OperationName.UPDATE_WEBHOOK,
        _sharing(_PORTAL + "/webhooks/{webhookId}/update"),
        Capability.WEBHOOK_ADMIN,
        Phase.SETTINGS,
        rank=17,
        available=_ORGANIZATION_WEBHOOKS,
    ),
    Operation(
        OperationName.UPDATE_USER_LICENSE_TYPE,
        _sharing(_PORTAL + "/updateUserLicenseType"),
        Capability.LICENSE_MANAGER,
        Phase.MEMBER_LEVELS,
        rank=5,
        available=_USER_TYPES,
    ),
)

OPERATIONS: Mapping[OperationName, Operation] = MappingProxyType(
    {op.name: op for op in _OPERATION_ROWS}
)

_READ_ROWS = (
    Read(ReadName.ROOT, _sharing(""), signed_in=False),
    Read(ReadName.INFO, _sharing("info"), signed_in=False),
    Read(ReadName.GENERATE_TOKEN, _sharing("generateToken"), signed_in=False, write=True),
    # Before the portal row: `languages` is matched as itself, not as a portal id.
    Read(ReadName.LANGUAGES, _sharing("portals/languages"), signed_in=False),
    Read(ReadName.PORTAL, _sharing(_PORTAL)),
    Read(ReadName.ROLES, _sharing(_PORTAL + "/roles"), entries="roles", by_self=True),
    Read(ReadName.ROLE, _sharing(_PORTAL + "/roles/{roleId}")),
    Read(ReadName.ROLE_PRIVILEGES, _sharing(_PORTAL + "/roles/{roleId}/privileges")),
    Read(
        ReadName.MEMBERS,
        _sharing(_PORTAL + "/users"),
        entries="users",
        by_self=True,
        access=ReadAccess((VIEW_USERS,)),
    ),
    Read(
        ReadName.MEMBER,
        _sharing("community/users/{username}"),
        access=ReadAccess((VIEW_USERS,), "username", profiles=True),
    ),
    Read(
        ReadName.MEMBER_ITEMS,
        _sharing("content/users/{username}"),
        entries="items",
        access=ReadAccess((VIEW_ITEMS,), "username"),
    ),
    Read(
        ReadName.COLLABORATIONS,
        _sharing(_PORTAL + "/collaborations"),
        "collaborations",
        access=_COLLABORATION_READERS,
    ),
    Read(ReadName.COLLABORATION, _sharing(_COLLABORATION), access=_COLLABORATION_READERS),
    Read(
        ReadName.WORKSPACES,
        _sharing(_COLLABORATION + "/workspaces"),
        entries="workspaces",
        access=_COLLABORATION_READERS,
    ),
    Read(ReadName.WORKSPACE, _sharing(_WORKSPACE), access=_COLLABORATION_READERS),
    Read(ReadName.SCHEDULE, _sharing(_WORKSPACE + "/schedule"), access=_COLLABORATION_READERS),
    Read(
        ReadName.PARTICIPANTS,
        _sharing(_COLLABORATION + "/participants"),
        access=_COLLABORATION_READERS,
    ),
    Read(
        ReadName.INVITATIONS,
        _sharing(_COLLABORATION + "/invitations"),
        entries="collaborationInvitations",
        access=_COLLABORATION_READERS,
    ),
    Read(
        ReadName.ORG_WEBHOOKS,
        _sharing(_PORTAL + "/webhooks"),
        entries="webhooks",
        access=_WEBHOOK_READERS,
    ),
    # Before the one-webhook row: `settings` is matched as itself, not as a webhook id.
    Read(
        ReadName.PORTAL_WEBHOOK_SETTINGS,
        _sharing(_PORTAL_WEBHOOK_SETTINGS),
        access=_WEBHOOK_READERS,
    ),
    Read(
        ReadName.ORG_WEBHOOK, _sharing(_PORTAL + "/webhooks/{webhookId}"), access=_WEBHOOK_READERS
    ),
    Read(
        ReadName.INVITATION,
        _sharing(_COLLABORATION + "/invitations/{invitationId}"),
        access=_COLLABORATION_READERS,
    ),
    Read(ReadName.USER_SEARCH, _sharing("community/users"), entries="results"),
    Read(
        ReadName.UPDATE_USER,
        _sharing("community/users/{username}/update"),
        write=True,
        access=ReadAccess(("portal:admin:updateUsers",), "username"),
    ),
    Read(ReadName.SELF, _sharing("community/self")),
    Read(ReadName.ORG_USER_SEARCH, _sharing(_PORTAL + "/users/search"), entries="results"),
    Read(
        ReadName.ORG_USER_SEARCH_AS_DOCUMENTED,
        _sharing("portal/{portalId}/users/search"),
        entries="results",
    ),
    Read(ReadName.ALL_SCHEDULED_TASKS, _sharing(_PORTAL + "/allScheduledTasks"), "tasks"),
    Read(ReadName.SERVERS, _sharing(_PORTAL + "/servers")),
    Read(ReadName.RUN, _sharing(_TASK + "/runs/{runId}"), access=_OWN_TASKS),
    Read(ReadName.PORTAL_ADMIN, Path(Root.PORTAL_ADMIN, "")),
    # Where the vendor publishes the level quotas (docs/rules.md §A): "Required Capability:
    # Administrator" up to 10.6.1; from 10.7 also the Manage licenses or Add members privilege.
    Read(ReadName.SYSTEM_LICENSES, Path(Root.PORTAL_ADMIN, "system/licenses"), access=ADMINS_ONLY),
    Read(
        ReadName.USER_TYPE_LICENSE,
        Path(Root.PORTAL_ADMIN, "license"),
        access=ReadAccess(("portal:admin:manageLicenses", "portal:admin:inviteUsers")),
    ),
    Read(
        ReadName.TASKS,
        _sharing("community/users/{username}/tasks"),
        entries="tasks",
        access=_OWN_TASKS,
    ),
    Read(ReadName.TASK, _sharing(_TASK), access=_OWN_TASKS),
    Read(ReadName.RUNS, _sharing(_TASK + "/runs"), entries="runs", access=_OWN_TASKS),
    Read(
        ReadName.ITEM_RESOURCES,
        _sharing("content/items/{itemId}/resources"),
        entries="resources",
    ),
    Read(
        ReadName.ADMIN_GENERATE_TOKEN,
        Path(Root.ADMIN, "generateToken"),
        signed_in=False,
        write=True,
    ),
    Read(
        ReadName.SERVICE_WEBHOOKS,
        Path(Root.ADMIN, "services/webhooks"),
        entries="webhooks",
        access=_WEBHOOK_READERS,
    ),
    Read(ReadName.WEBHOOK_SETTINGS, _WEBHOOK_SETTINGS, access=_WEBHOOK_READERS),
    Read(ReadName.RESOURCES, _sharing(_PORTAL + "/resources"), entries="resources"),
    Read(ReadName.RESOURCE, _sharing(_PORTAL + "/resources/{key}")),
    Read(
        ReadName.PARTICIPANT,
        _sharing(_COLLABORATION + "/participants/{participantId}"),
        access=_COLLABORATION_READERS,
    ),
    Read(
        ReadName.WEBHOOK_NOTIFICATIONS,
        _sharing(_PORTAL + "/webhooks/{webhookId}/notificationStatus"),
        entries="WebhookStatus",
        access=_WEBHOOK_READERS,
    ),
    Read(
        ReadName.USER_LICENSE_TYPES,
        _sharing(_PORTAL + "/userLicenseTypes"),
        entries="userLicenseTypes",
        by_self=True,
    ),
    Read(
        ReadName.MEMBER_LICENSE_TYPE,
        _sharing("community/users/{username}/userLicenseType"),
        access=ReadAccess((VIEW_USERS,), "username"),
    ),
    Read(ReadName.PORTAL_SETTINGS, _sharing(_PORTAL + "/settings"), by_self=True),
    Read(ReadName.SUBSCRIPTION_INFO, _sharing(_PORTAL + "/subscriptionInfo"), by_self=True),
    Read(
        ReadName.MEMBER_TAGS,
        _sharing("community/users/{username}/tags"),
        access=ReadAccess((VIEW_USERS,), "username"),
    ),
    Read(
        ReadName.MEMBER_INVITATIONS,
        _sharing("community/users/{username}/invitations"),
        access=ReadAccess(own="username"),
    ),
    Read(
        ReadName.MEMBER_NOTIFICATIONS,
        _sharing("community/users/{username}/notifications"),
        access=ReadAccess(own="username"),
    ),
    Read(ReadName.GROUP_SEARCH, _sharing("community/groups"), entries="results"),
    Read(ReadName.ITEM, _sharing("content/items/{itemId}")),
    Read(ReadName.VALIDATE_APP_ACCESS, _sharing("oauth2/validateAppAccess")),
)

READS: Mapping[ReadName, Read] = MappingProxyType({read.name: read for read in _READ_ROWS})


def availability_problem(needs: OperationName | Feature, platform: Platform) -> str | None:
    """Why an operation (its row's gate) or a parameter (its feature) is unavailable on
    `platform`, or None when it is available."""
    if isinstance(needs, OperationName):
        return OPERATIONS[needs].problem(platform)
    return feature_problem(needs, platform)
