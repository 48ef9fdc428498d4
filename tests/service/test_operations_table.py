"""The operations table is what the service serves: every write is answered at the path
its row names, and refused to a caller who lacks the row's capability."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from reconciler.operations import OPERATIONS, Capability, Operation, Root
from reconciler.versions import Deployment, Platform

from .conftest import Serve

DEMO_STATE = Path(__file__).resolve().parents[2] / "examples" / "demo" / "state.yaml"

# hq hosts collaboration c1 and runs 10.6.1; field is its guest and runs 11.3.
PLATFORMS = {
    "hq": Platform.parse(Deployment.SELF_HOSTED, "10.6.1"),
    "field": Platform.parse(Deployment.SELF_HOSTED, "11.3"),
}
# A member of each portal holding no capability at all (grace owns no task either).
UNPRIVILEGED = {"hq": "alice", "field": "grace"}
ARGUMENTS = {
    "portalId": "self",
    "roleId": "r0000000000001",
    "collaborationId": "c1",
    "workspaceId": "ws1",
    "invitationId": "inv1",
    "username": "frank",
    "taskId": "t1",
    "runId": "t1-run-01",
    "webhookId": "w1",
}


def demo_with_grace() -> dict[str, Any]:
    state: dict[str, Any] = YAML(typ="safe").load(DEMO_STATE.read_text())
    field = next(p for p in state["portals"] if p["urlKey"] == "field")
    field["users"].append(
        {"username": "grace", "password": "grace-pass", "role": "org_user", "level": 2}
    )
    return state


def portal_for(operation: Operation) -> str:
    """Where the operation exists, on the side of the collaboration its caller is on."""
    if operation.capability is Capability.HOST_ADMIN:
        return "hq"
    if operation.capability in (Capability.GUEST_ADMIN, Capability.COLLABORATION_GUEST):
        return "field"
    if "username" in operation.path.arguments:  # the member the path names is field's frank
        return "field"
    return next(key for key, platform in PLATFORMS.items() if not operation.problem(platform))


def error_code(body: dict[str, Any]) -> int | None:
    """The refusal's code in either envelope (sharing `error`, admin `status`)."""
    if "error" in body:
        return int(body["error"]["code"])
    if body.get("status") == "error":
        return int(body["code"])
    return None


def call(api: Any, portal: str, operation: Operation, user: str) -> dict[str, Any]:
    path = operation.path.build({name: ARGUMENTS[name] for name in operation.path.arguments})
    token = api.token(portal, user, f"{user}-pass")
    send = api.admin_post if operation.path.root is Root.ADMIN else api.post
    body: dict[str, Any] = send(portal, path, auth=token)
    return body


def test_every_operation_is_served_at_its_path_and_refused_without_its_capability(
    serve: Serve,
) -> None:
    api = serve(demo_with_grace())
    # Rank order sends the deletions last, so each write still finds what it addresses.
    for operation in sorted(OPERATIONS.values(), key=lambda op: op.rank):
        portal = portal_for(operation)
        refused = call(api, portal, operation, UNPRIVILEGED[portal])
        assert error_code(refused) == 403, (operation.name, refused)
        served = call(api, portal, operation, "admin")
        assert error_code(served) not in (403, 404, 405), (operation.name, served)
