"""What the service allows, per deployment kind and release: the single source of truth.

The validator, the planner and the reference service all ask this module, so a rule
lives in one place. Everything here is the rules of docs/rules.md: privileges (§4.3),
the level-1 set (§2), limits and defaults (§2, §8) and availability of operations and
parameters by release (§9). Who may call each operation, and where it is, is the
operations table (`reconciler.operations`).
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from reconciler.versions import Deployment, Platform, Release

# --- privileges (docs/rules.md §4.3) --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Privilege:
    id: str
    cloud: bool
    self_hosted: bool
    grants: str
    group: str
    self_hosted_since: str | None = None


def _rows(group: str, rows: Iterable[tuple[str, str, str, str]]) -> list[Privilege]:
    return [Privilege(pid, c == "yes", s == "yes", grants, group) for pid, c, s, grants in rows]


_GENERAL_MEMBERS = _rows(
    "General, members and groups",
    [
        ("portal:user:viewOrgUsers", "yes", "yes", "view organization members"),
        ("portal:user:createGroup", "yes", "yes", "create, edit, delete own groups"),
        ("portal:user:joinGroup", "yes", "yes", "join groups in the organization"),
        ("portal:user:joinNonOrgGroup", "yes", "no", "join groups outside the organization"),
        ("portal:user:viewOrgGroups", "yes", "yes", "view groups shared with the organization"),
        (
            "portal:user:invitePartneredCollaborationMembers",
            "yes",
            "no",
            "invite members of partnered collaboration organizations to groups",
        ),
        (
            "portal:user:addExternalMembersToGroup",
            "yes",
            "no",
            "create groups open to outside members and invite them",
        ),
    ],
)
_GENERAL_CONTENT = _rows(
    "General, content",
    [
        ("portal:user:createItem", "yes", "yes", "create, edit, delete own content"),
        ("portal:publisher:publishFeatures", "yes", "yes", "publish hosted feature layers"),
        ("portal:publisher:publishTiles", "yes", "yes", "publish hosted tile layers"),
        ("portal:publisher:publishScenes", "yes", "yes", "publish hosted scene layers"),
        (
            "portal:publisher:publishDynamicImagery",
            "yes",
            "yes",
            "publish hosted dynamic imagery layers",
        ),
        (
            "portal:publisher:publishServerServices",
            "no",
            "yes",
            "publish web layers to federated servers",
        ),
        ("portal:publisher:publishKnowledgeGraph", "no", "yes", "publish hosted knowledge graphs"),
        ("portal:publisher:registerDataStores", "no", "yes", "add data store items"),
        (
            "portal:publisher:bulkPublishFromDataStores",
            "no",
            "yes",
            "publish layers from all accessible feature classes and tables",
        ),
        ("portal:user:viewOrgItems", "yes", "yes", "view content shared with the organization"),
        ("premium:publisher:createNotebooks", "yes", "yes", "create and edit notebooks"),
        ("premium:publisher:scheduleNotebooks", "yes", "yes", "schedule notebooks"),
        ("portal:user:viewTracks", "yes", "yes", "view member location tracks"),
        ("portal:user:reassignItems", "yes", "yes", "reassign own content"),
        ("portal:user:receiveItems", "yes", "yes", "receive content reassigned by another member"),
    ],
)
_GENERAL_SHARING = _rows(
    "General, sharing",
    [
        ("portal:user:shareToGroup", "yes", "yes", "share content to groups"),
        ("portal:user:shareToOrg", "yes", "yes", "share content to the organization"),
        ("portal:user:shareToPublic", "yes", "yes", "share content with everyone"),
        ("portal:user:shareGroupToOrg", "yes", "yes", "make groups discoverable by the org"),
        ("portal:user:shareGroupToPublic", "yes", "yes", "make groups visible to everyone"),
        ("opendata:user:designateGroup", "yes", "no", "designate groups for open data use"),
    ],
)
_GENERAL_PREMIUM = _rows(
    "General, premium content and analysis",
    [
        ("premium:user:geocode", "yes", "yes", "large-volume geocoding"),
        ("premium:user:networkanalysis", "yes", "yes", "routing and drive-time analysis"),
        ("premium:user:spatialanalysis", "yes", "yes", "spatial analysis tasks"),
        ("premium:user:geoenrichment", "yes", "yes", "geoenrich features"),
        ("premium:user:demographics", "yes", "no", "premium demographic data"),
        ("premium:user:featurereport", "yes", "no", "create feature reports in a survey app"),
        ("premium:user:places", "yes", "no", "places search"),
        (
            "premium:publisher:createAdvancedNotebooks",
            "yes",
            "yes",
            "advanced notebook runtimes",
        ),
        ("premium:publisher:geoanalytics", "no", "yes", "geoanalytics tasks"),
        ("premium:publisher:rasteranalysis", "no", "yes", "raster analysis tools"),
    ],
)
_GENERAL_FEATURES = _rows(
    "General, features, versions, webhooks",
    [
        ("features:user:edit", "yes", "yes", "edit features per layer edit options"),
        ("features:user:fullEdit", "yes", "yes", "add, delete, update features"),
        ("features:user:manageVersions", "no", "yes", "manage branch versions and locks"),
        (
            "portal:publisher:createFeatureWebhook",
            "no",
            "yes",
            "create, edit, delete own feature layer webhooks",
        ),
    ],
)
_ADMIN_MEMBERS = _rows(
    "Administrative, members",
    [
        ("portal:admin:viewUsers", "yes", "yes", "view full member account information"),
        ("portal:admin:updateUsers", "yes", "yes", "update member accounts"),
        ("portal:admin:deleteUsers", "yes", "yes", "delete member accounts"),
        ("portal:admin:inviteUsers", "yes", "yes", "invite or add members"),
        ("portal:admin:disableUsers", "yes", "yes", "enable and disable accounts"),
        ("portal:admin:changeUserRoles", "yes", "yes", "change a member's role"),
        ("portal:admin:manageLicenses", "yes", "yes", "assign or manage licenses"),
        (
            "portal:admin:updateMemberCategorySchema",
            "yes",
            "yes",
            "configure the member category schema",
        ),
    ],
)
_ADMIN_GROUPS = _rows(
    "Administrative, groups",
    [
        ("portal:admin:viewGroups", "yes", "yes", "view all groups"),
        ("portal:admin:updateGroups", "yes", "yes", "update groups"),
        ("portal:admin:deleteGroups", "yes", "yes", "delete groups"),
        ("portal:admin:reassignGroups", "yes", "yes", "reassign groups to other members"),
        ("portal:admin:assignToGroups", "yes", "yes", "add and remove group members"),
        (
            "portal:admin:manageEnterpriseGroups",
            "yes",
            "yes",
            "link group membership to an external group",
        ),
        (
            "portal:admin:createUpdateCapableGroup",
            "yes",
            "yes",
            "create and own groups with item update capability",
        ),
    ],
)
_ADMIN_CONTENT = _rows(
    "Administrative, content",
    [
        ("portal:admin:viewItems", "yes", "yes", "view all content"),
        ("portal:admin:updateItems", "yes", "yes", "update and categorize content"),
        ("portal:admin:deleteItems", "yes", "yes", "delete content"),
        ("portal:admin:reassignItems", "yes", "yes", "reassign content to other members"),
        (
            "portal:admin:updateItemCategorySchema",
            "yes",
            "yes",
            "configure the content category schema",
        ),
        ("portal:admin:shareToOrg", "yes", "yes", "share other members' content to the org"),
        ("portal:admin:shareToPublic", "yes", "yes", "share other members' content publicly"),
        (
            "portal:publisher:publishServerGPServices",
            "no",
            "yes",
            "publish web tools to a federated server or from a notebook",
        ),
    ],
)
_ADMIN_SETTINGS = _rows(
    "Administrative, marketplace, organization settings, open data, webhooks",
    [
        ("marketplace:admin:manage", "yes", "no", "manage listings and subscriptions"),
        ("marketplace:admin:purchase", "yes", "no", "request purchase information"),
        ("marketplace:admin:startTrial", "yes", "no", "start trial subscriptions"),
        ("portal:admin:manageSecurity", "yes", "yes", "manage security settings"),
        ("portal:admin:manageWebsite", "yes", "yes", "manage website settings"),
        ("portal:admin:manageCollaborations", "yes", "yes", "manage collaborations"),
        ("portal:admin:manageCredits", "yes", "no", "manage credit budgeting"),
        ("portal:admin:manageRoles", "yes", "yes", "manage member roles"),
        ("portal:admin:manageUtilityServices", "yes", "yes", "manage utility service settings"),
        ("portal:admin:manageServers", "no", "yes", "manage server settings"),
        ("portal:admin:manageWebhooks", "no", "yes", "manage organizational webhooks"),
        (
            "portal:admin:createGPWebhook",
            "no",
            "yes",
            "create, edit, delete geoprocessing webhooks",
        ),
        ("opendata:user:openDataAdmin", "yes", "no", "manage open data sites"),
    ],
)

# Introduced at self-hosted 11.0 (docs/rules.md §4.3 and §9); hosted cloud has them.
_SELF_HOSTED_SINCE = {"portal:user:reassignItems": "11.0", "portal:user:receiveItems": "11.0"}

PRIVILEGES: dict[str, Privilege] = {
    p.id: Privilege(p.id, p.cloud, p.self_hosted, p.grants, p.group, _SELF_HOSTED_SINCE.get(p.id))
    for p in (
        _GENERAL_MEMBERS
        + _GENERAL_CONTENT
        + _GENERAL_SHARING
        + _GENERAL_PREMIUM
        + _GENERAL_FEATURES
        + _ADMIN_MEMBERS
        + _ADMIN_GROUPS
        + _ADMIN_CONTENT
        + _ADMIN_SETTINGS
    )
}

# The only privileges a level-1 member can use (docs/rules.md §2). Two of them
# (joinNonOrgGroup, demographics) are hosted-cloud only while levels exist only on
# self-hosted <= 10.6.1: the set is kept exactly as the spec states it.
LEVEL_ONE_PRIVILEGES: frozenset[str] = frozenset(
    {
        "portal:user:joinGroup",
        "portal:user:viewOrgGroups",
        "portal:user:viewOrgItems",
        "portal:user:viewOrgUsers",
        "premium:user:geocode",
        "premium:user:networkanalysis",
        "premium:user:demographics",
        "premium:user:elevation",
        "portal:user:joinNonOrgGroup",
    }
)

BUILTIN_ROLES: tuple[str, ...] = ("org_admin", "org_publisher", "org_user")

# What each built-in role holds, by privilege prefix (the vendor's role documentation:
# the Administrator holds every privilege, the Publisher the user's and the publishing and
# premium ones, the User the user's and editing). None: every privilege offered.
_BUILTIN_PREFIXES: dict[str, tuple[str, ...] | None] = {
    "org_admin": None,
    "org_publisher": ("portal:user:", "portal:publisher:", "premium:", "features:user:"),
    "org_user": ("portal:user:",),
}


def builtin_role_privileges(role: str, offered: Iterable[str]) -> frozenset[str]:
    """The privileges a built-in role holds among those `offered` (the platform's catalog
    and the portal's extra privileges); an unknown role holds what org_user holds."""
    offered = frozenset(offered)
    prefixes = _BUILTIN_PREFIXES.get(role, _BUILTIN_PREFIXES["org_user"])
    if prefixes is None:
        return offered
    chosen = {p for p in offered if p.startswith(prefixes)}
    return frozenset(chosen | ({"features:user:edit"} & offered))


@dataclass(frozen=True, slots=True)
class PrebuiltRole:
    """A role every portal ships: listed with the custom roles, assignable by name or
    id, never editable or deletable."""

    id: str
    name: str
    description: str
    privileges: tuple[str, ...]


# Viewer holds what a level-1 member can use (those the platform offers).
_VIEWING = tuple(sorted(LEVEL_ONE_PRIVILEGES))
# The vendor's client names these ids (its role aliases `viewer` and `editor`).
PREBUILT_ROLES: tuple[PrebuiltRole, ...] = (
    PrebuiltRole("iAAAAAAAAAAAAAAA", "Viewer", "Views content and data", _VIEWING),
    PrebuiltRole(
        "iBBBBBBBBBBBBBBB", "Data Editor", "Views and edits data", (*_VIEWING, "features:user:edit")
    ),
)


def privilege_problem(privilege: str, platform: Platform, extra: Iterable[str] = ()) -> str | None:
    """Why `privilege` cannot be assigned on `platform`, or None when it can.

    `extra` lists privileges the portal declares beyond the catalog (the self-hosted
    catalog has one whose identifier the spec does not show).
    """
    if privilege in extra:
        return None
    entry = PRIVILEGES.get(privilege)
    if entry is None:
        if privilege in LEVEL_ONE_PRIVILEGES:
            # premium:user:elevation is named in the level-1 set but not in the catalog.
            return None
        hint = closest_privilege(privilege)
        suffix = f" (did you mean {hint!r}?)" if hint else ""
        return f"unknown privilege {privilege!r}{suffix}"
    if platform.self_hosted:
        if not entry.self_hosted:
            return f"privilege {privilege!r} exists only on hosted-cloud"
        if entry.self_hosted_since and platform.release < _self_hosted(entry.self_hosted_since):
            return (
                f"privilege {privilege!r} needs self-hosted {entry.self_hosted_since} or later"
                f" (portal is {platform.release})"
            )
        return None
    if not entry.cloud:
        return f"privilege {privilege!r} exists only on self-hosted"
    return None


def closest_privilege(privilege: str) -> str | None:
    matches = difflib.get_close_matches(privilege, list(PRIVILEGES), n=1, cutoff=0.6)
    return matches[0] if matches else None


def privileges_for(platform: Platform) -> frozenset[str]:
    """Every catalog privilege assignable on `platform`."""
    return frozenset(p for p in PRIVILEGES if privilege_problem(p, platform) is None)


# --- limits and defaults (docs/rules.md §2, §8) ---------------------------------------------------

ROLE_NAME_MAX = 128
ROLE_DESCRIPTION_MAX = 250
WORKSPACE_NAME_MAX = 100
WORKSPACE_DESCRIPTION_MAX = 250
LEVELS: tuple[int, ...] = (1, 2)

SCHEDULE_DEFAULT_INTERVAL_HOURS = 24
SCHEDULE_REPEAT_FOREVER = -1


@dataclass(frozen=True, slots=True)
class IntRange:
    default: int
    low: int
    high: int

    def problem(self, name: str, value: int) -> str | None:
        if self.low <= value <= self.high:
            return None
        return f"{name} must be from {self.low} to {self.high}, got {value}"


WEBHOOK_SETTINGS: dict[str, IntRange] = {
    "notificationAttempts": IntRange(3, 1, 5),
    "notificationTimeOutInSeconds": IntRange(10, 1, 60),
    "notificationElapsedTimeInSeconds": IntRange(5, 1, 60),
    "numberOfFailures": IntRange(5, 1, 30),
    "daysInPast": IntRange(5, 1, 30),
}


# Upper bounds the spec leaves open (it says only "positive", "no bound stated"), chosen
# so that any accepted value is one every client can show and compute with:
# - startTime up to 9999-12-31T23:59:59.999Z, the last instant of a four-digit year (and
#   of Python's datetime: a later one made plan, drift and export fail to show it);
MAX_START_TIME_MS = 253_402_300_799_999
# - interval up to a year of hours: a job synchronizing less often is not a schedule;
MAX_INTERVAL_HOURS = 8_760
# - repeatCount up to 2^31 - 1, the largest signed 32-bit count, far beyond any real job;
MAX_REPEAT_COUNT = 2**31 - 1
# - item and replication package sizes up to 1 TiB (1,048,576 MB).
MAX_SIZE_MB = 1_048_576


def schedule_problem(
    interval: int | None, repeat_count: int | None, start_time: int | None = None
) -> str | None:
    """docs/rules.md §2/§8: interval a positive integer; repeatCount a positive integer or
    -1; and the upper ends above, which the spec leaves open."""
    if interval is not None and not 1 <= interval <= MAX_INTERVAL_HOURS:
        if interval < 1:
            return f"interval must be a positive number of hours, got {interval}"
        return f"interval must be at most {MAX_INTERVAL_HOURS} hours (a year), got {interval}"
    if repeat_count is not None and repeat_count != SCHEDULE_REPEAT_FOREVER and repeat_count < 1:
        return f"repeatCount must be a positive integer or -1, got {repeat_count}"
    if repeat_count is not None and repeat_count > MAX_REPEAT_COUNT:
        return f"repeatCount must be at most {MAX_REPEAT_COUNT}, got {repeat_count}"
    if start_time is not None and not 0 <= start_time <= MAX_START_TIME_MS:
        return f"startTime must be a Unix time in milliseconds from 1970 to 9999, got {start_time}"
    return start_in_seconds_problem(start_time)


# Below this a `startTime` in milliseconds falls before 1973-03-03, no schedule anyone
# sets; above it in seconds it would fall after the year 5138. So a smaller value is a
# time in seconds, as the vendor's schedule sample writes it (`1615586200`).
SECONDS_BELOW = 100_000_000_000


def start_in_seconds_problem(start: int | None) -> str | None:
    """A `startTime` that reads as seconds: taken as milliseconds it would start the job in
    January 1970 and fire it at once; taken as seconds it would be a guess against the
    parameter's own table. The message names both readings."""
    if start is None or not 0 <= start < SECONDS_BELOW:
        return None
    as_ms = datetime.fromtimestamp(start / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    as_s = datetime.fromtimestamp(start, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return (
        f"startTime {start} is {as_ms} in milliseconds, the unit it takes; it looks like"
        f" seconds ({as_s}): send Unix time in milliseconds ({start * 1000})"
    )


# --- availability of operations and parameters (docs/rules.md §4, §9) -----------------------------


@dataclass(frozen=True, slots=True)
class Bound:
    """A release range on one deployment kind; None ends are open."""

    since: str | None = None
    until: str | None = None  # last release that has it
    removed: str | None = None  # first release that no longer has it

    def problem(self, platform: Platform) -> str | None:
        kind = platform.deployment
        if self.since and platform.release < Release.parse(kind, self.since):
            return f"needs {kind} {self.since} or later"
        if self.until and platform.release > Release.parse(kind, self.until):
            return f"exists only up to {kind} {self.until}"
        if self.removed and platform.release >= Release.parse(kind, self.removed):
            return f"was removed at {kind} {self.removed}"
        return None


@dataclass(frozen=True, slots=True)
class Gate:
    """Where a feature exists: a bound per deployment kind, None where it is absent."""

    self_hosted: Bound | None
    hosted_cloud: Bound | None

    def problem(self, feature: str, platform: Platform) -> str | None:
        bound = self.self_hosted if platform.self_hosted else self.hosted_cloud
        if bound is None:
            return f"{feature} is not available on {platform.deployment}"
        reason = bound.problem(platform)
        return f"{feature} {reason} (portal is {platform})" if reason else None


ALWAYS = Gate(Bound(), Bound())


def since(version: str) -> Gate:
    # A bare release number in docs/rules.md §9 names a self-hosted release; hosted cloud, always
    # on the newest release, has every such feature.
    return Gate(Bound(since=version), Bound())


class Feature(StrEnum):
    """Parameters whose availability depends on the platform beyond their operation's
    (an operation's own gate is on its row: `reconciler.operations`)."""

    UPDATE_INFO_SIZES = "updateInfo maxItemSizeInMB/maxReplicationPackageSizeInMB"
    UPDATE_INFO_COPY_BY_REF = "updateInfo copyByRefIfCopyFail"
    UPDATE_INFO_CONFIG = "updateInfo config"
    COPY_FEATURE_SERVICE_DATA = "copyFeatureServiceData"
    COPY_HOSTED_VIEW_DATA = "copyFeatureServiceData for hosted feature layer views"
    BIDIRECTIONAL_SYNC = "enableFeatureServiceBidirectionalSync"


GATES: dict[Feature, Gate] = {
    Feature.UPDATE_INFO_SIZES: since("10.6"),
    Feature.UPDATE_INFO_COPY_BY_REF: since("10.6"),
    Feature.UPDATE_INFO_CONFIG: Gate(Bound(since="10.5", removed="10.6"), None),
    Feature.COPY_FEATURE_SERVICE_DATA: since("10.5.1"),
    Feature.COPY_HOSTED_VIEW_DATA: since("10.7"),
    Feature.BIDIRECTIONAL_SYNC: Gate(Bound(since="10.9"), Bound(since="2021-03")),
}


@dataclass(frozen=True, slots=True)
class Availability:
    """Where an operation exists (its row's gate), and how a refusal names it."""

    name: str
    gate: Gate

    def problem(self, platform: Platform) -> str | None:
        return availability_problem(self, platform)


# Asked once per member whose level is managed (100,000 in a large organization) about
# the same portal: the answer depends on the two arguments alone.
@functools.lru_cache(maxsize=1024)
def feature_problem(feature: Feature, platform: Platform) -> str | None:
    """Why `feature` is unavailable on `platform`, or None when it is available."""
    return GATES[feature].problem(feature.value, platform)


@functools.lru_cache(maxsize=1024)
def availability_problem(availability: Availability, platform: Platform) -> str | None:
    """Why an operation is unavailable on `platform`, or None when it is available."""
    return availability.gate.problem(availability.name, platform)


# The feature each workspace field needs (docs/rules.md §9) beyond its operation's; None:
# its operation's alone (updateInfo, updatePortalGroupLink).
WORKSPACE_INFO_GATES: dict[str, Feature | None] = {
    "name": None,
    "description": None,
    "maxItemSizeInMB": Feature.UPDATE_INFO_SIZES,
    "maxReplicationPackageSizeInMB": Feature.UPDATE_INFO_SIZES,
    "copyByRefIfCopyFail": Feature.UPDATE_INFO_COPY_BY_REF,
}
GROUP_LINK_GATES: dict[str, Feature | None] = {
    "portalGroupId": None,
    "enableRealtimeSync": None,
    "copyFeatureServiceData": Feature.COPY_FEATURE_SERVICE_DATA,
    "enableFeatureServiceBidirectionalSync": Feature.BIDIRECTIONAL_SYNC,
}


def _self_hosted(version: str) -> Release:
    return Release.parse(Deployment.SELF_HOSTED, version)
