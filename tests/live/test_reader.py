"""The reader against a fake portal: exact normalized records, and only needed reads."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from reconciler.errors import LiveRecordError, UserError
from reconciler.kinds.collaboration import slots as collaborations
from reconciler.kinds.collaboration.live import schedule
from reconciler.kinds.organization_webhooks import REMOVAL, WEBHOOKS, WebhookRemoval
from reconciler.kinds.task_run_retention import POLICIES, TASKS, RunRetention
from reconciler.kinds.webhook_settings import DECLARED, LIVE
from reconciler.live.errors import ServiceError
from reconciler.live.reader import Scope, read_live, read_people
from reconciler.state import (
    Auth,
    Collaboration,
    DesiredState,
    GroupLink,
    LiveState,
    Member,
    MemberDetail,
    PortalTarget,
    Role,
    Schedule,
    Task,
    TaskRun,
    Webhook,
    Workspace,
)
from reconciler.versions import Deployment, Platform
from tests.live.fakes import ROOT, FakePortal, admin_path, make_client, path

PID = "0123456789abcdef"
OTHER = "fedcba9876543210"
BASE = f"portals/{PID}"
ANALYST = ["portal:user:joinGroup", "portal:user:viewOrgItems"]


def hq(fake: FakePortal, *, members: list[dict[str, Any]] | None = None) -> None:
    fake.route(
        path("portals/self"),
        {
            "id": PID,
            "name": "Headquarters",
            "isPortal": True,
            "currentVersion": "6.1",
            "fullVersion": "10.6.1",
            "user": {"username": "admin", "role": "org_admin"},
        },
    )
    # The vendor's licenses resource (docs/rules.md §A), beside the sharing root.
    fake.route(
        "/portal/portaladmin/system/licenses",
        {
            "isValid": True,
            "maximumRegisteredMembers": 23,
            "features": [
                {"level": "1", "name": "level1", "maximumRegisteredMembers": "3"},
                {"level": "2", "name": "level2", "maximumRegisteredMembers": 20},
            ],
        },
    )
    fake.paged(
        path("portals/self/roles"),
        "roles",
        [
            {"id": "r1", "name": "Analyst", "description": "reads", "privileges": ANALYST},
            {"id": "r2", "name": "Legacy Viewer", "privileges": []},
        ],
    )
    fake.paged(
        path("portals/self/users"),
        "users",
        members
        or [
            {"username": "admin", "role": "org_admin", "roleId": "org_admin", "level": "2"},
            {"username": "dave", "role": "org_user", "roleId": "r1", "level": "2"},
            {"username": "erin", "role": "org_user", "roleId": "r1", "level": "1"},
        ],
    )
    fake.paged(
        path(f"{BASE}/collaborations"),
        "collaborations",
        [
            {"id": "c1", "name": "Regional sharing", "collaborationHostPortalId": OTHER},
            {"id": "c2", "name": "Other", "collaborationHostPortalId": PID},
        ],
    )
    fake.paged(
        path(f"{BASE}/collaborations/c1/workspaces"),
        "workspaces",
        [
            {
                "id": "ws1",
                "name": "Field data",
                "description": "",
                "lastSyncSuccess": 1,
                "config": {
                    "maxItemSizeInMB": "1024",
                    "maxReplicationPackageSizeInMB": 4096.0,
                    "copyByRefIfCopyFail": "false",
                },
                "participantGroupLinks": [
                    {
                        "portalId": OTHER,
                        "portalGroupId": "gX",
                        "config": {"enableRealtimeSync": True},
                    },
                    {
                        "portalId": PID,
                        "portalGroupId": "g1",
                        "config": {"enableRealtimeSync": "false", "copyFeatureServiceData": "true"},
                    },
                ],
            },
            {"id": "ws2", "name": "Spare", "config": {}},
        ],
    )
    fake.route(
        path(f"{BASE}/collaborations/c1/workspaces/ws1/schedule"),
        {
            "startTime": "2026-01-01T00:00:00Z",
            "interval": "24",
            "repeatCount": -1,
            "timesTriggered": 3,
            "state": "NORMAL",
        },
    )
    # ws2 has no job: the fake answers error code 404 for unknown paths


def desired(**kwargs: Any) -> DesiredState:
    target = PortalTarget(
        name="hq",
        url=ROOT,
        platform=Platform.parse(Deployment.SELF_HOSTED, "10.6.1"),
        auth=Auth(tokenEnv="ORG_TOKEN"),
    )
    declared = kwargs.pop("collaborations", None)
    state = DesiredState(portal=target, **kwargs)
    if declared is not None:
        state.put(collaborations.DECLARED, declared)
    return state


def declaring(settings: dict[str, int]) -> DesiredState:
    """`desired()` with a WebhookSettings document of `settings`."""
    state = desired()
    state.put(DECLARED, settings)
    return state


def read(
    fake: FakePortal, want: DesiredState | None, scope: Scope = Scope.DESIRED
) -> tuple[LiveState, int]:
    async def main() -> tuple[LiveState, int]:
        async with make_client(fake) as client:
            live = await read_live(client, want, scope)
            return live, client.requests

    return asyncio.run(main())


SCHEDULED = Workspace("ws1", schedule=Schedule(interval=24))


def test_records_are_normalized_exactly() -> None:
    fake = FakePortal()
    hq(fake)
    fake.paged(
        path("portals/self/roles"),
        "roles",
        [
            {"id": "r1", "name": "Analyst", "description": "reads", "privileges": ANALYST},
            {"id": "r2", "name": "Legacy Viewer", "privileges": []},
            # The vendor's pre-built Viewer: known by its id, as no portal sends `editable`.
            {"id": "iAAAAAAAAAAAAAAA", "name": "Viewer", "privileges": []},
        ],
    )
    want = desired(
        collaborations={
            "c1": Collaboration(
                "c1",
                workspaces={
                    "ws1": SCHEDULED,
                    "ws2": Workspace("ws2", schedule=Schedule(interval=12)),
                },
            )
        }
    )
    live, _ = read(fake, want)
    assert live.portal.platform == Platform.parse(Deployment.SELF_HOSTED, "10.6.1")
    assert live.portal.username == "admin" and live.portal.name == "Headquarters"
    assert live.portal.levelQuotas == {}  # no level declared: the licenses are not read
    assert live.roles == {
        "Analyst": Role("Analyst", "reads", frozenset(ANALYST), id="r1"),
        "Legacy Viewer": Role("Legacy Viewer", "", frozenset(), id="r2"),
        "Viewer": Role("Viewer", "", frozenset(), id="iAAAAAAAAAAAAAAA", editable=False),
    }
    assert live.members == {
        "admin": Member("admin", "org_admin", 2),
        "dave": Member("dave", "Analyst", 2),
        "erin": Member("erin", "Analyst", 1),
    }
    c1 = live.get(collaborations.LIVE)["c1"]
    assert c1.hostPortalId == OTHER and c1.name == "Regional sharing"
    assert c1.workspaces["ws1"] == Workspace(
        id="ws1",
        name="Field data",
        description="",
        maxItemSizeInMB=1024,
        maxReplicationPackageSizeInMB=4096,
        copyByRefIfCopyFail=False,
        groupLink=GroupLink("g1", False, True, False),
        schedule=Schedule(startTime=1767225600000, interval=24, repeatCount=-1, timesTriggered=3),
    )
    assert c1.workspaces["ws2"].schedule is None  # 404: no job
    assert live.get(collaborations.LIVE)["c2"].workspaces == {}  # not declared: not read
    assert live.get(LIVE).values is None and live.get(WEBHOOKS) == {} and live.memberDetails == {}


def test_hosted_cloud_when_is_portal_is_false() -> None:
    fake = FakePortal()
    hq(fake)
    fake.route(
        path("portals/self"),
        {
            "id": PID,
            "name": "Cloud",
            "isPortal": False,
            "fullVersion": "2026-06",
            "user": {"username": "admin"},
        },
    )
    live, _ = read(fake, None)
    assert live.portal.platform == Platform.parse(Deployment.HOSTED_CLOUD, "2026-06")
    assert live.portal.levelQuotas == {}


def test_only_managed_schedules_and_declared_collaborations_are_read() -> None:
    fake = FakePortal()
    hq(fake)
    read(
        fake,
        desired(
            collaborations={
                "c1": Collaboration("c1", workspaces={"ws1": Workspace("ws1", maxItemSizeInMB=5)})
            }
        ),
    )
    assert not any(p.endswith("/schedule") for p in fake.paths())
    assert not any("/c2/" in p for p in fake.paths())


def test_settings_refusal_means_unknown() -> None:
    fake = FakePortal()
    hq(fake)
    fake.route(
        admin_path("services/webhooks/settings"),
        {"status": "error", "messages": ["no"], "code": 403},
    )
    live, _ = read(fake, declaring({"daysInPast": 7}))
    assert live.get(LIVE).values is None
    assert admin_path("services/webhooks/settings") in fake.paths()


def test_settings_read_with_defaults_applied() -> None:
    fake = FakePortal()
    hq(fake)
    fake.route(admin_path("services/webhooks/settings"), {"status": "success", "daysInPast": "7"})
    live, _ = read(fake, declaring({"daysInPast": 7}))
    assert live.get(LIVE).values == {
        "notificationAttempts": 3,
        "notificationTimeOutInSeconds": 10,
        "notificationElapsedTimeInSeconds": 5,
        "numberOfFailures": 5,
        "daysInPast": 7,
    }


def test_invitations_and_webhooks_when_declared() -> None:
    fake = FakePortal()
    hq(fake)
    fake.route(
        path(f"{BASE}/collaborations/c1/invitations"),
        {
            "collaborationInvitations": [
                {"id": "inv1", "status": "host_created"},
                {"id": "inv2", "status": "invalidated"},
            ]
        },
    )
    fake.route(
        path(f"{BASE}/webhooks"),
        {"webhooks": [{"id": "w1", "name": "audit-hook", "active": "false"}]},
    )
    want = desired(
        collaborations={"c1": Collaboration("c1", invalidInvitations=frozenset({"inv1"}))},
    )
    want.put(REMOVAL, WebhookRemoval(absent=frozenset({"w1"})))
    live, _ = read(fake, want)
    assert live.get(collaborations.LIVE)["c1"].invitations == {
        "inv1": "host_created",
        "inv2": "invalidated",
    }
    assert live.get(WEBHOOKS) == {"w1": Webhook("w1", "audit-hook", active=False)}


def test_tasks_and_runs_only_for_retention_users() -> None:
    fake = FakePortal()
    hq(fake)
    tasks = path("community/users/frank/tasks")
    fake.paged(tasks, "tasks", [{"id": "t1", "itemId": "i1"}, {"id": "t2", "itemId": "i2"}])
    fake.paged(
        f"{tasks}/t1/runs",
        "runs",
        [
            {"runId": "b", "status": "succeeded", "created": "2026-10-02T00:00:00Z"},
            {"runId": "a", "status": "failed", "created": 1790812800000},
        ],
    )
    want = desired()
    want.put(POLICIES, [RunRetention("keep", "frank", frozenset({"t1"}), keepLast=1)])
    live, _ = read(fake, want)
    assert live.get(TASKS) == {
        "frank": [
            Task(
                "t1",
                "frank",
                (TaskRun("a", "failed", 1790812800000), TaskRun("b", "succeeded", 1790899200000)),
            )
        ]
    }
    assert not any("/t2/" in p for p in fake.paths())


def test_250_members_take_3_pages_and_details_only_where_levels_change() -> None:
    members = [
        {"username": f"u{i:03d}", "role": "org_user", "roleId": "r1", "level": "2"}
        for i in range(250)
    ]
    fake = FakePortal()
    hq(fake, members=members)
    fake.route(
        path("community/users/u007"),
        {
            "username": "u007",
            "level": "2",
            "privileges": ANALYST,
            "groups": [{"id": "g1", "owner": "u007"}, {"id": "g2", "owner": "someone"}],
        },
    )
    fake.route(path("content/users/u007"), {"total": 4, "items": [{}]})
    want = desired(members={"u007": Member("u007", level=1), "u008": Member("u008", level=2)})
    live, requests = read(fake, want)
    assert [p for p in fake.paths() if p.endswith("/users")] == [path("portals/self/users")] * 3
    assert live.memberDetails == {
        "u007": MemberDetail(
            "u007",
            ownedItems=4,
            ownedGroups=1,
            privileges=frozenset(ANALYST),
        )
    }
    # The quotas come from the Portal Administrator API's licenses, not portals/self.
    assert live.portal.levelQuotas == {1: 3, 2: 20}
    assert live.portal.levelQuotasUnread is None
    # sign-in, self, roles, 3 member pages, collaborations, licenses, 2 detail reads
    assert requests == 10 and len(live.members) == 250


def test_quotas_an_account_may_not_read_are_not_checked() -> None:
    fake = FakePortal()
    hq(fake)
    refused = {"status": "error", "messages": ["You do not have permissions"], "code": 403}
    fake.route("/portal/portaladmin/system/licenses", refused)
    live, _ = read(fake, desired(members={"erin": Member("erin", level=1)}))
    assert live.portal.levelQuotas == {}
    unread = live.portal.levelQuotasUnread or ""
    assert unread.startswith("admin may not read portaladmin/system/licenses")
    assert unread.endswith("reading it needs an organization administrator")


def test_quotas_of_another_shape_are_not_checked_naming_the_field() -> None:
    fake = FakePortal()
    hq(fake)
    odd = {"features": [{"level": "1", "maximumRegisteredMembers": "many"}]}
    fake.route("/portal/portaladmin/system/licenses", odd)
    live, _ = read(fake, desired(members={"erin": Member("erin", level=1)}))
    assert live.portal.levelQuotas == {}
    assert "features[0].maximumRegisteredMembers" in (live.portal.levelQuotasUnread or "")


def test_everything_scope_reads_all_collaborations_and_guest_schedules() -> None:
    fake = FakePortal()
    hq(fake)
    fake.route(admin_path("services/webhooks/settings"), {"status": "success"})
    fake.paged(path(f"{BASE}/collaborations/c2/workspaces"), "workspaces", [{"id": "ws9"}])
    fake.route(
        path(f"{BASE}/collaborations/c2/invitations"),
        {"collaborationInvitations": [{"id": "inv7", "status": "invalidated"}]},
    )
    live, _ = read(fake, None, Scope.EVERYTHING)
    assert live.get(collaborations.LIVE)["c1"].workspaces["ws1"].schedule is not None
    assert live.get(collaborations.LIVE)["c2"].workspaces == {"ws9": Workspace("ws9")}
    # this portal hosts c2: no guest schedule to read there
    assert not any(p.endswith("ws9/schedule") for p in fake.paths())
    # the host's invitations are exported; a guest has none to manage
    assert live.get(collaborations.LIVE)["c2"].invitations == {"inv7": "invalidated"}
    assert not any(p.endswith("c1/invitations") for p in fake.paths())
    assert path(f"{BASE}/webhooks") in fake.paths()  # refused (404 here): tolerated
    assert live.get(WEBHOOKS) == {} and live.get(LIVE).values is None


def test_large_portal_costs_about_its_page_count() -> None:
    members = [{"username": f"u{i:05d}", "role": "org_user", "level": "2"} for i in range(10_000)]
    roles = [{"id": f"r{i}", "name": f"Role {i}", "privileges": []} for i in range(1_000)]
    fake = FakePortal()
    hq(fake, members=members)
    fake.paged(path("portals/self/roles"), "roles", roles)
    live, requests = read(fake, desired())
    pages = 100 + 10 + 1  # members, roles, collaborations
    assert len(live.members) == 10_000 and len(live.roles) == 1_000
    assert requests <= pages * 1.1  # sign-in and portals/self on top


def test_the_roles_listing_is_read_once_alongside_the_member_pages() -> None:
    """Role's read and Members' (which names a custom role by id) share one listing, asked
    while the member pages come in, not after them."""
    members = [{"username": f"u{i:03d}", "roleId": "r1", "level": "2"} for i in range(300)]
    fake = FakePortal()
    hq(fake, members=members)
    live, _ = read(fake, desired())
    seen = fake.paths()
    roles, users = path("portals/self/roles"), path("portals/self/users")
    assert seen.count(roles) == 1
    last_member_page = len(seen) - 1 - seen[::-1].index(users)
    assert seen.index(roles) < last_member_page
    assert {m.role for m in live.members.values()} == {"Analyst"}


def test_an_access_review_reads_only_the_kinds_that_say_who_holds_what() -> None:
    fake = FakePortal()
    hq(fake)

    async def main() -> LiveState:
        async with make_client(fake) as client:
            return await read_people(client)

    live = asyncio.run(main())
    assert set(live.roles) == {"Analyst", "Legacy Viewer"}
    assert live.members["erin"] == Member("erin", "Analyst", 1)
    read_paths = {p for p in fake.paths() if not p.endswith("/generateToken")}
    assert read_paths == {
        path(p) for p in ("portals/self", "portals/self/roles", "portals/self/users")
    }


def test_a_record_without_identity_is_left_out_and_named() -> None:
    fake = FakePortal()
    hq(fake, members=[{"role": "org_user", "level": "2"}, {"username": "bob", "level": "2"}])
    live, _ = read(fake, desired())
    assert live.unreadable == {
        "a member": "the portal answered a member: username: missing; every entry must have one"
    }
    assert set(live.members) == {"bob"}


def test_a_value_of_the_wrong_kind_names_the_resource_and_field_and_the_rest_is_read() -> None:
    fake = FakePortal()
    members = [
        {"username": "alice", "role": "org_user", "level": "two"},
        {"username": "bob", "role": "org_user", "level": "2"},
    ]
    hq(fake, members=members)
    live, _ = read(fake, desired())
    assert live.unreadable == {
        "Member/alice": "the portal answered Member/alice: level: not a number: 'two'"
    }
    assert set(live.members) == {"bob"} and set(live.roles) == {"Analyst", "Legacy Viewer"}


def test_a_role_id_that_is_not_text_names_the_member_and_the_rest_is_read() -> None:
    fake = FakePortal()
    members = [
        {"username": "alice", "role": "org_user", "roleId": ["r1"], "level": "2"},
        {"username": "bob", "role": "org_user", "level": "2"},
    ]
    hq(fake, members=members)
    live, _ = read(fake, desired())
    assert live.unreadable == {
        "Member/alice": "the portal answered Member/alice: roleId: expected a role id, got list"
    }
    assert set(live.members) == {"bob"}


@pytest.mark.parametrize("username", ["..", ".", "a/b", "a\\b", "a\nb", ["bob"], True])
def test_a_username_no_portal_issues_is_left_out_and_named(username: Any) -> None:
    """Later reads and writes put a username in their paths (`community/users/..` is
    `community`)."""
    fake = FakePortal()
    hq(fake, members=[{"username": username, "level": "2"}, {"username": "bob", "level": "2"}])
    live, _ = read(fake, desired())
    assert list(live.unreadable) == ["a member"]
    assert (
        "not an id" in live.unreadable["a member"] or "not a string" in live.unreadable["a member"]
    )
    assert set(live.members) == {"bob"}


def test_a_username_listed_twice_leaves_both_out_naming_them() -> None:
    fake = FakePortal()
    twice = [
        {"username": "bob", "role": "org_user", "level": "2"},
        {"username": "carol", "level": "2"},
        {"username": "bob", "role": "org_admin", "level": "2"},
    ]
    hq(fake, members=twice)
    live, _ = read(fake, desired())
    assert live.unreadable == {
        "Member/bob": "the portal listed Member/bob 2 times with the same username 'bob'; a"
        " write could reach the wrong one, so none of them is read, planned or written"
    }
    assert set(live.members) == {"carol"}


def test_roles_sharing_an_id_or_a_name_are_left_out_naming_each_other() -> None:
    fake = FakePortal()
    hq(fake)
    fake.paged(
        path("portals/self/roles"),
        "roles",
        [
            {"id": "r1", "name": "Analyst", "privileges": []},
            {"id": "r1", "name": "Legacy Viewer", "privileges": []},
            {"id": "r3", "name": "Editor", "privileges": []},
            {"id": "r4", "name": "Editor", "privileges": []},
            {"id": "r5", "name": "Viewer", "privileges": []},
        ],
    )
    live, _ = read(fake, desired())
    assert set(live.roles) == {"Viewer"}
    assert (
        "Role/Analyst and Role/Legacy Viewer with the same id 'r1'"
        in (live.unreadable["Role/Legacy Viewer"])
    )
    assert "Role/Editor 2 times with the same name 'Editor'" in live.unreadable["Role/Editor"]


def test_a_portal_id_no_portal_issues_stops_the_read() -> None:
    fake = FakePortal()
    hq(fake)
    fake.route(path("portals/self"), {"id": "..", "isPortal": True, "fullVersion": "10.6.1"})
    with pytest.raises(UserError, match=r'answered portals/self with the id "..", not an id'):
        read(fake, desired())
    assert not [
        s.path for s in fake.seen if "/portals/../" in s.url or s.path.endswith("/rest/users")
    ]


def test_a_time_out_of_range_names_the_schedule_field() -> None:
    with pytest.raises(LiveRecordError) as caught:
        schedule({"startTime": 300_000_000_000_000, "interval": 24}, "Workspace/c1/ws1")
    assert str(caught.value) == (
        "the portal answered Workspace/c1/ws1: schedule.startTime:"
        " time 300000000000000 ms is outside 1970 to 9999"
    )
    # --debug shows the chain: the conversion's own error is the cause.
    assert isinstance(caught.value.__cause__, ValueError)


def test_a_failed_read_cancels_the_others_and_is_reported_once() -> None:
    """One listing fails while other reads go on (here: a member's details for each level
    change): the user gets that one error, and no sibling keeps sending. Through a client
    about to close, each such request ended in a traceback that asyncio printed."""
    members = [{"username": f"u{i:04d}", "role": "org_user", "level": "2"} for i in range(300)]
    fake = FakePortal(yields=2)
    hq(fake, members=members)
    refusal = {"error": {"code": 400, "messageCode": "X_1", "message": "listing refused"}}
    fake.route(path(f"{BASE}/collaborations"), refusal)
    levels = {m["username"]: Member(m["username"], None, 1) for m in members}

    async def main() -> tuple[str, int, int]:
        async with make_client(fake) as client:
            try:
                await read_live(client, desired(members=levels))
            except ServiceError as error:
                at_failure = len(fake.seen)
                for _ in range(500):  # time for any sibling still running to send
                    await asyncio.sleep(0)
                return str(error), at_failure, len(fake.seen)
        raise AssertionError("the read did not fail")

    message, at_failure, later = asyncio.run(main())
    assert "listing refused" in message
    assert later == at_failure, f"{later - at_failure} requests sent after the failure"


def test_the_self_listings_and_their_first_pages_go_out_with_portals_self() -> None:
    """Four round trips ran one after another before the pages (sign-in, portals/self,
    page 1, the rest): the listings the vendor's client addresses by `self` now start
    with portals/self, and the pages the manifests suggest before the total is known."""
    members = [
        {"username": f"u{i:03d}", "role": "org_user", "roleId": "org_user", "level": "2"}
        for i in range(250)
    ]
    fake = FakePortal(yields=20)
    hq(fake, members=members)
    answer_self = fake.routes[path("portals/self")]
    asked_before_self: list[list[str]] = []

    def portal_self(request: Any, params: dict[str, str]) -> Any:
        users = [s.params["start"] for s in fake.seen if s.path == path("portals/self/users")]
        asked_before_self.append(users)
        return answer_self(request, params)

    fake.route(path("portals/self"), portal_self)
    want = desired(members={m["username"]: Member(m["username"], role="org_user") for m in members})
    live, _ = read(fake, want)
    assert asked_before_self == [["1", "101", "201"]]
    assert [p for p in fake.paths() if p.endswith("/users")] == [path("portals/self/users")] * 3
    assert sorted(live.members) == [m["username"] for m in members]
    assert live.portal.id == PID


def test_a_portal_without_an_id_fails_the_read_alone() -> None:
    fake = FakePortal()
    hq(fake)
    fake.route(
        path("portals/self"), {"name": "Nameless", "isPortal": True, "fullVersion": "10.6.1"}
    )
    with pytest.raises(UserError, match="answered portals/self without an id"):
        read(fake, desired())
