"""The applier against a fake portal: order, placeholders, failures, bounds, adoption."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from reconciler.apply import ApplyResult, CallEvent, EventKind, Journal, Status, execute
from reconciler.apply.engine import RESENDS_WHEN_ABSENT
from reconciler.errors import UserError
from reconciler.operations import OperationName
from reconciler.plan.model import Call, Plan, PlanProblem, PortalRef, Ref, Value
from tests.live.fakes import PASSWORD, ROOT, TOKEN, FakePortal, make_client, path

PID = "p1"
BASE = f"{ROOT}/portals/{PID}"


def create_role(seq: int, name: str, deps: tuple[int, ...] = ()) -> Call:
    return Call(
        seq,
        f"Role/{name}",
        OperationName.CREATE_ROLE,
        ROOT,
        {"portalId": PID},
        {"name": name, "description": "d"},
        deps,
    )


def set_privileges(seq: int, name: str, deps: tuple[int, ...]) -> Call:
    return Call(
        seq,
        f"Role/{name}",
        OperationName.SET_PRIVILEGES,
        ROOT,
        {"portalId": PID, "roleId": Ref(f"Role/{name}")},
        {"privileges": json.dumps({"privileges": ["portal:user:joinGroup"]})},
        deps,
    )


def assign(seq: int, user: str, role: Value, deps: tuple[int, ...] = ()) -> Call:
    return Call(
        seq,
        f"Member/{user}",
        OperationName.UPDATE_USER_ROLE,
        ROOT,
        {"portalId": PID},
        {"user": user, "role": role},
        deps,
    )


def plan(*calls: Call) -> Plan:
    return Plan(PortalRef(ROOT, PID, "self-hosted", "10.6.1"), calls=calls)


class RolePortal(FakePortal):
    """Just enough of the role and member writes to apply plans against."""

    def __init__(self) -> None:
        super().__init__()
        self.roles: list[dict[str, Any]] = []
        self.created = 0
        self.route(path(f"portals/{PID}/createRole"), self.create)
        self.route(
            path(f"portals/{PID}/roles"),
            lambda r, p: {"roles": self.roles, "total": len(self.roles)},
        )
        self.route(path(f"portals/{PID}/updateuserrole"), self.assign)

    def create(self, request: httpx.Request, params: dict[str, str]) -> dict[str, Any]:
        self.created += 1
        role_id = f"r{self.created}"
        self.roles.append({"id": role_id, "name": params["name"]})
        self.route(path(f"portals/{PID}/roles/{role_id}/setPrivileges"), {"success": True})
        return {"success": True, "id": role_id}

    def assign(self, request: httpx.Request, params: dict[str, str]) -> dict[str, Any]:
        if params["user"] == "ghost":
            return {"error": {"code": 400, "messageCode": "ORG_1001", "message": "No such user."}}
        return {"success": True}


def apply(fake: FakePortal, the_plan: Plan, **kwargs: Any) -> ApplyResult:
    async def main() -> ApplyResult:
        async with make_client(fake) as client:
            return await execute(the_plan, client, **kwargs)

    return asyncio.run(main())


def writes(fake: FakePortal) -> list[tuple[str, dict[str, str]]]:
    return [
        (s.path.rsplit("/rest/", 1)[1], s.params)
        for s in fake.seen
        if s.method == "POST" and not s.path.endswith("generateToken")
    ]


def test_dependency_order_and_placeholders() -> None:
    fake = RolePortal()
    result = apply(
        fake,
        plan(
            create_role(1, "A"),
            set_privileges(2, "A", (1,)),
            assign(3, "dave", Ref("Role/A"), (2,)),
        ),
    )
    assert result.ok and result.counts() == {"done": 3, "failed": 0, "skipped": 0}
    assert [w[0] for w in writes(fake)] == [
        f"portals/{PID}/createRole",
        f"portals/{PID}/roles/r1/setPrivileges",
        f"portals/{PID}/updateuserrole",
    ]
    assert writes(fake)[2][1] == {"user": "dave", "role": "r1", "f": "json"}
    assert result.outcome(1).result == {"success": True, "id": "r1"}


def test_failure_skips_dependents_only() -> None:
    fake = RolePortal()
    the_plan = plan(
        assign(1, "ghost", "org_user"),
        assign(2, "x", "org_user", (1,)),
        assign(3, "y", "org_user", (2,)),
        assign(4, "erin", "org_publisher"),
    )
    result = apply(fake, the_plan)
    assert not result.ok
    assert [o.status for o in result.outcomes] == [
        Status.FAILED,
        Status.SKIPPED,
        Status.SKIPPED,
        Status.DONE,
    ]
    assert "No such user." in (result.outcome(1).error or "")
    assert result.outcome(3).error == "skipped: depends on #1, which failed"
    assert result.outcome(3).cause == 1
    assert sorted(w[1]["user"] for w in writes(fake)) == ["erin", "ghost"]
    assert apply(RolePortal(), the_plan) == result  # the report does not depend on timing


def test_parallelism_is_bounded() -> None:
    fake = RolePortal()
    fake.yields = 10
    calls = tuple(assign(i, f"u{i}", "org_user") for i in range(1, 21))
    result = apply(fake, plan(*calls), parallelism=3)
    assert result.ok and fake.max_in_flight == 3


def test_independent_calls_run_concurrently() -> None:
    fake = RolePortal()
    fake.yields = 10
    calls = tuple(assign(i, f"u{i}", "org_user") for i in range(1, 21))
    apply(fake, plan(*calls))
    assert fake.max_in_flight == 8


class DroppingPortal(RolePortal):
    """createRole takes effect (or not), but the reply never arrives, `drops` times."""

    def __init__(self, *, takes_effect: bool, drops: int = 99) -> None:
        super().__init__()
        self.takes_effect = takes_effect
        self.drops = drops
        self.sent = 0
        self.route(path(f"portals/{PID}/createRole"), self.drop)

    def drop(self, request: httpx.Request, params: dict[str, str]) -> dict[str, Any]:
        self.sent += 1
        if self.sent > self.drops:
            return self.create(request, params)
        if self.takes_effect:
            self.create(request, params)
        raise httpx.ReadTimeout("reply lost", request=request)


class LateLandingPortal(DroppingPortal):
    """The first createRole lands only after orgctl looked for it; the resend then finds
    the name taken, as the service answers a second role of the same name."""

    def __init__(self) -> None:
        super().__init__(takes_effect=False, drops=1)

    def drop(self, request: httpx.Request, params: dict[str, str]) -> dict[str, Any]:
        self.sent += 1
        if self.sent == 1:
            raise httpx.ReadTimeout("reply lost", request=request)
        self.create(request, params)  # the first request, landing late
        taken = f"A role named '{params['name']}' already exists"
        return {"error": {"code": 400, "messageCode": "ROLE_1001", "message": taken}}


def test_unanswered_create_role_is_adopted_not_resent() -> None:
    fake = DroppingPortal(takes_effect=True)
    result = apply(fake, plan(create_role(1, "A"), set_privileges(2, "A", (1,))))
    assert result.ok and fake.sent == 1 and fake.created == 1
    assert result.outcome(1).result == {"success": True, "id": "r1"}
    assert "adopted" in (result.outcome(1).note or "")
    assert writes(fake)[-1][0] == f"portals/{PID}/roles/r1/setPrivileges"


def test_unanswered_create_role_that_did_not_land_is_sent_again_in_the_same_run() -> None:
    fake = DroppingPortal(takes_effect=False, drops=1)
    result = apply(fake, plan(create_role(1, "A"), set_privileges(2, "A", (1,))))
    assert result.ok and fake.sent == 2 and fake.created == 1
    assert [r["name"] for r in fake.roles] == ["A"]
    assert "sent again" in (result.outcome(1).note or "")
    assert writes(fake)[-1][0] == f"portals/{PID}/roles/r1/setPrivileges"


def test_resends_of_a_create_that_never_lands_are_bounded() -> None:
    fake = DroppingPortal(takes_effect=False)
    result = apply(fake, plan(create_role(1, "A"), set_privileges(2, "A", (1,))))
    assert fake.sent == 1 + RESENDS_WHEN_ABSENT and not fake.roles
    assert result.outcome(1).status is Status.FAILED
    assert "does not exist" in (result.outcome(1).error or "")
    assert result.outcome(2).status is Status.SKIPPED


def test_a_resend_refused_because_the_first_landed_late_adopts_it() -> None:
    fake = LateLandingPortal()
    result = apply(fake, plan(create_role(1, "A"), set_privileges(2, "A", (1,))))
    assert result.ok and [r["name"] for r in fake.roles] == ["A"]
    assert "landed late" in (result.outcome(1).note or "")
    assert writes(fake)[-1][0] == f"portals/{PID}/roles/r1/setPrivileges"


def test_unresolvable_placeholder_fails_the_call() -> None:
    result = apply(RolePortal(), plan(assign(1, "dave", Ref("Role/Nope"))))
    assert result.outcome(1).status is Status.FAILED
    assert "${Role/Nope.id}" in (result.outcome(1).error or "")


def test_plans_with_errors_or_bad_dependencies_are_refused() -> None:
    broken = Plan(
        PortalRef(ROOT, PID, "self-hosted", "10.6.1"), errors=(PlanProblem("Role/A", "x"),)
    )
    with pytest.raises(UserError, match="has errors"):
        apply(RolePortal(), broken)
    with pytest.raises(UserError, match="depends on #2"):
        apply(RolePortal(), plan(assign(1, "a", "org_user", (2,)), assign(2, "b", "org_user")))


def test_journal_lines_are_complete_and_secret_free(tmp_path: Path) -> None:
    fake = RolePortal()
    fake.route(
        path(f"portals/{PID}/updateuserrole"),
        lambda r, p: {
            "error": {"code": 400, "message": "echo " + r.headers["x-esri-authorization"]}
        },
    )
    events: list[CallEvent] = []
    journal_path = tmp_path / "apply.jsonl"
    with Journal(journal_path) as journal:
        result = apply(
            fake,
            plan(
                create_role(1, "A"),
                assign(2, "dave", Ref("Role/A"), (1,)),
                set_privileges(3, "A", (2,)),
            ),
            journal=journal,
            on_event=events.append,
        )
    text = journal_path.read_text()
    assert TOKEN not in text and PASSWORD not in text and "***" in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert [(line["seq"], line["event"]) for line in lines] == [
        (1, "start"),
        (1, "done"),
        (2, "start"),
        (2, "failed"),
        (3, "skipped"),
    ]
    for line in lines:
        assert {"time", "seq", "address", "operation", "event"} <= line.keys()
    assert lines[0]["params"] == {"name": "A", "description": "d"}
    assert lines[1]["result"] == {"success": True, "id": "r1"}
    assert lines[2]["params"]["role"] == "r1"
    assert lines[3]["error"]["code"] == 400
    assert lines[4]["error"]["message"] == "skipped: depends on #2, which failed"
    assert [e.kind for e in events] == [
        EventKind.START,
        EventKind.DONE,
        EventKind.START,
        EventKind.FAILED,
        EventKind.SKIPPED,
    ]
    assert result.counts() == {"done": 1, "failed": 1, "skipped": 1}


def test_a_refused_url_fails_its_call_not_the_apply() -> None:
    bad = Call(
        1,
        "Member/a",
        OperationName.UPDATE_USER_ROLE,
        "http://portal.example.com/x",
        {"portalId": PID},
        {"user": "a"},
    )
    result = apply(RolePortal(), plan(bad, assign(2, "b", "org_user")))
    assert result.outcome(1).status is Status.FAILED and "https" in (result.outcome(1).error or "")
    assert result.outcome(2).status is Status.DONE


class OddIdPortal(RolePortal):
    """A portal whose new role ids are `role_id`: characters not safe in a path, or
    values that are no id at all."""

    def __init__(self, role_id: object = "a b?c#d%") -> None:
        super().__init__()
        self.role_id = role_id
        self.route(path(f"portals/{PID}/update"), {"success": True})

    def create(self, request: httpx.Request, params: dict[str, str]) -> dict[str, Any]:
        self.roles.append({"id": self.role_id, "name": params["name"]})
        if isinstance(self.role_id, str):
            self.route(path(f"portals/{PID}/roles/{self.role_id}/setPrivileges"), {"success": True})
        return {"success": True, "id": self.role_id}


def test_a_produced_id_is_quoted_as_one_path_segment() -> None:
    fake = OddIdPortal()
    result = apply(fake, plan(create_role(1, "A"), set_privileges(2, "A", (1,))))
    assert result.ok, result
    sent = [s.url for s in fake.seen if s.path.endswith("/setPrivileges")]
    assert sent == [f"{BASE}/roles/a%20b%3Fc%23d%25/setPrivileges"]


@pytest.mark.parametrize(
    ("role_id", "why"),
    [
        ("..", "a dot segment"),
        (".", "a dot segment"),
        ("r1/../../update", "path separator"),
        ("r1\\x", "path separator"),
        (["r1"], "a JSON array, not a string"),
        ({"id": "r1"}, "a JSON object, not a string"),
        (7, "a JSON number, not a string"),
        ("r1\x1b[2J", "control"),
    ],
)
def test_a_produced_value_that_is_no_id_is_never_sent(role_id: object, why: str) -> None:
    """createRole answering `id: ".."` or `id: ["r1"]`: the calls that need the id fail,
    naming it, and nothing is sent with it (before: `roles/../setPrivileges` went to
    `portals/p1/setPrivileges`, and `['r1']` was quoted into the path)."""
    fake = OddIdPortal(role_id)
    calls = plan(
        create_role(1, "A"), set_privileges(2, "A", (1,)), assign(3, "d", Ref("Role/A"), (1,))
    )
    result = apply(fake, calls)
    assert result.outcome(1).status is Status.DONE
    for seq in (2, 3):
        outcome = result.outcome(seq)
        assert outcome.status is Status.FAILED, outcome
        assert "${Role/A.id}" in (outcome.error or "") and why in (outcome.error or ""), outcome
    writes = [s.path for s in fake.seen if s.method == "POST"]
    assert writes == [
        "/portal/sharing/rest/generateToken",
        f"/portal/sharing/rest/portals/{PID}/createRole",
    ]


def test_a_saved_plan_path_argument_that_is_no_id_is_never_sent() -> None:
    """A plan file whose path argument is `..` (edited, or planned from a hostile answer)
    fails that call alone; nothing reaches `portals/p1/update`."""
    bad = Call(
        1,
        "Role/A",
        OperationName.UPDATE_ROLE,
        ROOT,
        {"portalId": PID, "roleId": ".."},
        {"name": "A", "description": "d"},
    )
    fake = OddIdPortal()
    result = apply(fake, plan(bad, assign(2, "b", "org_user")))
    assert result.outcome(1).status is Status.FAILED
    assert "a dot segment" in (result.outcome(1).error or "")
    assert result.outcome(2).status is Status.DONE
    assert not [s for s in fake.seen if s.path.endswith("/update")]


def test_text_that_looks_like_a_reference_is_sent_as_written() -> None:
    fake = RolePortal()
    result = apply(fake, plan(create_role(1, "A"), assign(2, "dave", "${Role/A.id}", (1,))))
    assert result.ok, result
    assert writes(fake)[1][1] == {"user": "dave", "role": "${Role/A.id}", "f": "json"}


def test_each_failed_try_is_journaled_with_the_run_id(tmp_path: Path) -> None:
    fake = RolePortal()
    answers = iter([httpx.Response(502, text="<html>Bad Gateway</html>")])

    def flaky(request: httpx.Request, params: dict[str, str]) -> Any:
        return next(answers, {"success": True})

    fake.route(path(f"portals/{PID}/updateuserrole"), flaky)
    journal_path = tmp_path / "apply.jsonl"
    with Journal(journal_path, run_id="0123456789abcdef") as journal:
        result = apply(fake, plan(assign(1, "dave", "r9")), journal=journal)
    assert result.ok
    lines = [json.loads(line) for line in journal_path.read_text().splitlines()]
    assert [line["event"] for line in lines] == ["start", "retry", "done"]
    assert {line["run"] for line in lines} == {"0123456789abcdef"}
    retry = lines[1]
    assert retry["attempt"] == 1 and "HTTP 502" in retry["error"]["message"]
    assert retry["note"].startswith("try 1 failed; trying again in")


def test_a_guard_that_gives_a_reason_stops_calls_not_yet_sent() -> None:
    fake = RolePortal()
    reasons: list[str | None] = [None]  # the lock is lost after the first call is sent

    def guard() -> str | None:
        reason = reasons[0]
        reasons[0] = "the apply lock was taken from this run"
        return reason

    result = apply(
        fake,
        plan(create_role(1, "A"), assign(2, "dave", Ref("Role/A"), (1,)), assign(3, "erin", "r7")),
        guard=guard,
        parallelism=1,
    )
    assert [o.status for o in result.outcomes] == [Status.DONE, Status.NOT_SENT, Status.NOT_SENT]
    for stopped in result.outcomes[1:]:
        assert stopped.error == "not sent: the apply lock was taken from this run"
    assert [w for w, _ in writes(fake)] == [f"portals/{PID}/createRole"]


class HoldingPortal(RolePortal):
    """Holds the first member update in flight until the test is done with it."""

    def __init__(self) -> None:
        super().__init__()
        self.holding = False

    async def handle(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/updateuserrole") and not self.holding:
            self.holding = True
            await asyncio.Event().wait()  # never answered: only cancelling ends it
        return await super().handle(request)


def test_abandoned_calls_in_flight_are_unknown_and_the_rest_not_sent(tmp_path: Path) -> None:
    fake = HoldingPortal()
    reasons: list[str] = []
    journal_path = tmp_path / "apply.jsonl"

    async def main() -> ApplyResult:
        async with make_client(fake) as client:
            abandon = asyncio.Event()
            with Journal(journal_path) as journal:
                running = asyncio.ensure_future(
                    execute(
                        plan(assign(1, "dave", "r7"), assign(2, "erin", "r7"), create_role(3, "A")),
                        client,
                        parallelism=1,
                        journal=journal,
                        guard=lambda: reasons[0] if reasons else None,
                        abandon=abandon,
                    )
                )
                while not fake.holding:
                    await asyncio.sleep(0.01)
                reasons.append("interrupted by SIGINT")  # the first signal: start no call
                abandon.set()  # the second: stop waiting for the one in flight
                return await running

    result = asyncio.run(main())
    assert [o.status for o in result.outcomes] == [
        Status.UNKNOWN,
        Status.NOT_SENT,
        Status.NOT_SENT,
    ]
    assert "may or may not have taken effect" in (result.outcomes[0].error or "")
    assert result.outcomes[1].error == "not sent: interrupted by SIGINT"
    assert result.stopped and not result.ok
    assert result.counts() == {"done": 0, "failed": 0, "skipped": 0, "unknown": 1, "not sent": 2}
    events = [json.loads(line)["event"] for line in journal_path.read_text().splitlines()]
    assert events == ["start", "unknown", "not-sent", "not-sent"]
    assert writes(fake) == []  # nothing answered, nothing else sent
