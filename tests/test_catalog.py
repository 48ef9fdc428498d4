"""The catalog against the spec, row by row, transcribed here independently of catalog.py."""

from __future__ import annotations

import pytest

from reconciler import catalog
from reconciler.catalog import Feature
from reconciler.operations import OperationName, availability_problem
from reconciler.versions import Platform

# docs/rules.md §4.3, privilege catalog: (id, C, S), in the spec's order.
SPEC_PRIVILEGES: list[tuple[str, str, str]] = [
    ("portal:user:viewOrgUsers", "yes", "yes"),
    ("portal:user:createGroup", "yes", "yes"),
    ("portal:user:joinGroup", "yes", "yes"),
    ("portal:user:joinNonOrgGroup", "yes", "no"),
    ("portal:user:viewOrgGroups", "yes", "yes"),
    ("portal:user:invitePartneredCollaborationMembers", "yes", "no"),
    ("portal:user:addExternalMembersToGroup", "yes", "no"),
    ("portal:user:createItem", "yes", "yes"),
    ("portal:publisher:publishFeatures", "yes", "yes"),
    ("portal:publisher:publishTiles", "yes", "yes"),
    ("portal:publisher:publishScenes", "yes", "yes"),
    ("portal:publisher:publishDynamicImagery", "yes", "yes"),
    ("portal:publisher:publishServerServices", "no", "yes"),
    ("portal:publisher:publishKnowledgeGraph", "no", "yes"),
    ("portal:publisher:registerDataStores", "no", "yes"),
    ("portal:publisher:bulkPublishFromDataStores", "no", "yes"),
    ("portal:user:viewOrgItems", "yes", "yes"),
    ("premium:publisher:createNotebooks", "yes", "yes"),
    ("premium:publisher:scheduleNotebooks", "yes", "yes"),
    ("portal:user:viewTracks", "yes", "yes"),
    ("portal:user:reassignItems", "yes", "yes"),
    ("portal:user:receiveItems", "yes", "yes"),
    ("portal:user:shareToGroup", "yes", "yes"),
    ("portal:user:shareToOrg", "yes", "yes"),
    ("portal:user:shareToPublic", "yes", "yes"),
    ("portal:user:shareGroupToOrg", "yes", "yes"),
    ("portal:user:shareGroupToPublic", "yes", "yes"),
    ("opendata:user:designateGroup", "yes", "no"),
    ("premium:user:geocode", "yes", "yes"),
    ("premium:user:networkanalysis", "yes", "yes"),
    ("premium:user:spatialanalysis", "yes", "yes"),
    ("premium:user:geoenrichment", "yes", "yes"),
    ("premium:user:demographics", "yes", "no"),
    ("premium:user:featurereport", "yes", "no"),
    ("premium:user:places", "yes", "no"),
    ("premium:publisher:createAdvancedNotebooks", "yes", "yes"),
    ("premium:publisher:geoanalytics", "no", "yes"),
    ("premium:publisher:rasteranalysis", "no", "yes"),
    ("features:user:edit", "yes", "yes"),
    ("features:user:fullEdit", "yes", "yes"),
    ("features:user:manageVersions", "no", "yes"),
    ("portal:publisher:createFeatureWebhook", "no", "yes"),
    ("portal:admin:viewUsers", "yes", "yes"),
    ("portal:admin:updateUsers", "yes", "yes"),
    ("portal:admin:deleteUsers", "yes", "yes"),
    ("portal:admin:inviteUsers", "yes", "yes"),
    ("portal:admin:disableUsers", "yes", "yes"),
    ("portal:admin:changeUserRoles", "yes", "yes"),
    ("portal:admin:manageLicenses", "yes", "yes"),
    ("portal:admin:updateMemberCategorySchema", "yes", "yes"),
    ("portal:admin:viewGroups", "yes", "yes"),
    ("portal:admin:updateGroups", "yes", "yes"),
    ("portal:admin:deleteGroups", "yes", "yes"),
    ("portal:admin:reassignGroups", "yes", "yes"),
    ("portal:admin:assignToGroups", "yes", "yes"),
    ("portal:admin:manageEnterpriseGroups", "yes", "yes"),
    ("portal:admin:createUpdateCapableGroup", "yes", "yes"),
    ("portal:admin:viewItems", "yes", "yes"),
    ("portal:admin:updateItems", "yes", "yes"),
    ("portal:admin:deleteItems", "yes", "yes"),
    ("portal:admin:reassignItems", "yes", "yes"),
    ("portal:admin:updateItemCategorySchema", "yes", "yes"),
    ("portal:admin:shareToOrg", "yes", "yes"),
    ("portal:admin:shareToPublic", "yes", "yes"),
    ("portal:publisher:publishServerGPServices", "no", "yes"),
    ("marketplace:admin:manage", "yes", "no"),
    ("marketplace:admin:purchase", "yes", "no"),
    ("marketplace:admin:startTrial", "yes", "no"),
    ("portal:admin:manageSecurity", "yes", "yes"),
    ("portal:admin:manageWebsite", "yes", "yes"),
    ("portal:admin:manageCollaborations", "yes", "yes"),
    ("portal:admin:manageCredits", "yes", "no"),
    ("portal:admin:manageRoles", "yes", "yes"),
    ("portal:admin:manageUtilityServices", "yes", "yes"),
    ("portal:admin:manageServers", "no", "yes"),
    ("portal:admin:manageWebhooks", "no", "yes"),
    ("portal:admin:createGPWebhook", "no", "yes"),
    ("opendata:user:openDataAdmin", "yes", "no"),
]
SELF_HOSTED_11_0 = {"portal:user:reassignItems", "portal:user:receiveItems"}


def sh(version: str) -> Platform:
    return Platform.parse("self-hosted", version)


def cloud(version: str) -> Platform:
    return Platform.parse("hosted-cloud", version)


def test_the_spec_table_has_78_rows_and_the_catalog_the_same_ids() -> None:
    assert len(SPEC_PRIVILEGES) == 78
    assert [row[0] for row in SPEC_PRIVILEGES] == list(catalog.PRIVILEGES)


@pytest.mark.parametrize(
    ("privilege", "c", "s"), SPEC_PRIVILEGES, ids=[r[0] for r in SPEC_PRIVILEGES]
)
def test_each_privilege_row(privilege: str, c: str, s: str) -> None:
    entry = catalog.PRIVILEGES[privilege]
    assert (entry.cloud, entry.self_hosted) == (c == "yes", s == "yes")
    on_cloud = catalog.privilege_problem(privilege, cloud("2026-06"))
    on_self_hosted = catalog.privilege_problem(privilege, sh("11.3"))
    assert (on_cloud is None) == (c == "yes")
    assert (on_self_hosted is None) == (s == "yes")


@pytest.mark.parametrize("privilege", sorted(SELF_HOSTED_11_0))
def test_privileges_introduced_at_self_hosted_11_0(privilege: str) -> None:
    assert "11.0" in (catalog.privilege_problem(privilege, sh("10.9.1")) or "")
    assert catalog.privilege_problem(privilege, sh("11.0")) is None
    assert catalog.privilege_problem(privilege, cloud("2020-01")) is None


def test_only_the_11_0_privileges_depend_on_the_self_hosted_release() -> None:
    old = catalog.privileges_for(sh("10.5"))
    new = catalog.privileges_for(sh("11.3"))
    assert new - old == SELF_HOSTED_11_0


def test_unknown_privilege_suggests_the_closest() -> None:
    problem = catalog.privilege_problem("portal:user:createItm", sh("10.6.1"))
    assert problem == (
        "unknown privilege 'portal:user:createItm' (did you mean 'portal:user:createItem'?)"
    )
    assert catalog.privilege_problem("custom:x:y", sh("10.6.1"), extra=["custom:x:y"]) is None


def test_level_one_set_is_the_nine_of_spec_section_2() -> None:
    assert {
        "portal:user:joinGroup",
        "portal:user:viewOrgGroups",
        "portal:user:viewOrgItems",
        "portal:user:viewOrgUsers",
        "premium:user:geocode",
        "premium:user:networkanalysis",
        "premium:user:demographics",
        "premium:user:elevation",
        "portal:user:joinNonOrgGroup",
    } == catalog.LEVEL_ONE_PRIVILEGES


def test_limits_and_ranges_of_spec_section_8() -> None:
    assert (catalog.ROLE_NAME_MAX, catalog.ROLE_DESCRIPTION_MAX) == (128, 250)
    assert (catalog.WORKSPACE_NAME_MAX, catalog.WORKSPACE_DESCRIPTION_MAX) == (100, 250)
    ranges = {k: (r.default, r.low, r.high) for k, r in catalog.WEBHOOK_SETTINGS.items()}
    assert ranges == {
        "notificationAttempts": (3, 1, 5),
        "notificationTimeOutInSeconds": (10, 1, 60),
        "notificationElapsedTimeInSeconds": (5, 1, 60),
        "numberOfFailures": (5, 1, 30),
        "daysInPast": (5, 1, 30),
    }
    assert catalog.schedule_problem(1, -1) is None
    assert catalog.schedule_problem(0, None) is not None
    assert catalog.schedule_problem(None, 0) is not None
    assert catalog.schedule_problem(None, -2) is not None


# docs/rules.md §9, one row each: (feature, platform that lacks it, platform that has it).
VERSION_ROWS: list[tuple[OperationName | Feature, Platform | None, Platform | None]] = [
    (OperationName.UPDATE_USER_LEVEL, sh("10.6.2"), sh("10.6.1")),
    (OperationName.UPDATE_USER_LEVEL, cloud("2026-06"), sh("10.5")),
    (OperationName.UPDATE_SCHEDULE, sh("10.5.1"), sh("10.6")),
    (OperationName.UPDATE_INFO, sh("10.4.1"), sh("10.5")),
    (Feature.UPDATE_INFO_SIZES, sh("10.5.1"), sh("10.6")),
    (Feature.UPDATE_INFO_COPY_BY_REF, sh("10.5.1"), sh("10.6")),
    (Feature.UPDATE_INFO_CONFIG, sh("10.6"), sh("10.5.1")),
    (OperationName.UPDATE_GROUP_LINK, sh("10.4.1"), sh("10.5")),
    (Feature.COPY_FEATURE_SERVICE_DATA, sh("10.5"), sh("10.5.1")),
    (Feature.COPY_HOSTED_VIEW_DATA, sh("10.6.1"), sh("10.7")),
    (Feature.BIDIRECTIONAL_SYNC, cloud("2021-02"), cloud("2021-03")),
    (Feature.BIDIRECTIONAL_SYNC, sh("10.8.1"), sh("10.9")),
    (OperationName.INVALIDATE_INVITATION, sh("10.4.1"), sh("10.5")),
    (OperationName.REMOVE_PARTICIPATION, sh("10.4.1"), sh("10.5")),
    (OperationName.DELETE_TASK_RUN, sh("10.8"), sh("10.8.1")),
    (OperationName.DELETE_WEBHOOK, sh("10.6.1"), sh("10.7")),
    (OperationName.WEBHOOK_SETTINGS, sh("11.1"), sh("11.2")),
    (OperationName.WEBHOOK_SETTINGS, cloud("2026-06"), None),
]


@pytest.mark.parametrize(
    ("feature", "lacking", "having"),
    VERSION_ROWS,
    ids=[f"{r[0].value}-{r[1]}" for r in VERSION_ROWS],
)
def test_each_versioning_row(
    feature: OperationName | Feature, lacking: Platform | None, having: Platform | None
) -> None:
    if lacking is not None:
        assert availability_problem(feature, lacking) is not None
    if having is not None:
        assert availability_problem(feature, having) is None


def test_bare_release_numbers_are_available_on_hosted_cloud() -> None:
    # A bare number in docs/rules.md §9 names a self-hosted release; hosted cloud has the feature.
    for operation in (
        OperationName.UPDATE_SCHEDULE,
        OperationName.DELETE_TASK_RUN,
        OperationName.DELETE_WEBHOOK,
    ):
        assert availability_problem(operation, cloud("2020-01")) is None
