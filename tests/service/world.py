"""Identifiers of the portals and records in `states/world.yaml` and `states/versions.yaml`."""

HQ = "0123456789abcdef"
FIELD = "fedcba9876543210"
CLOUD = "a1b2c3d4e5f60718"
FULL = "1111111111111111"
BRANCH = "2222222222222222"
ANALYST = "r0000000000001"
LEGACY_VIEWER = "r0000000000002"
HOOK_ADMIN = "r0000000000201"
EDITOR = "r0000000000101"
FULL_VIEWER = "r0000000000301"

V105 = "0000000000010500"
V108 = "0000000000010800"
CLOUD21 = "000000000000c021"
V106 = "0000000000010600"
V107 = "0000000000010700"
V109 = "0000000000010900"
V111 = "0000000000011100"
MOVER = "r0000000000901"

# 2026-11-01T06:00:00Z, the clock both states start at, and one day in milliseconds.
START_MS = 1_793_512_800_000
HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS

WS1 = "portals/{portal}/collaborations/c1/workspaces/ws1"


# Every write: (root, urlKey, path, a valid form). The fuzz and auth tests walk all of them.
WRITES: dict[str, tuple[str, str, str, dict[str, str]]] = {
    "updateUserLevel": (
        "sharing",
        "hq",
        f"portals/{HQ}/updateUserLevel",
        {"user": "hank", "level": "1"},
    ),
    "createRole": (
        "sharing",
        "hq",
        f"portals/{HQ}/createRole",
        {"name": "Fuzzed", "description": "d"},
    ),
    "setPrivileges": (
        "sharing",
        "hq",
        f"portals/{HQ}/roles/{ANALYST}/setPrivileges",
        {"privileges": '{"privileges": ["portal:user:viewOrgItems"]}'},
    ),
    "updateRole": ("sharing", "hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/update", {"name": "V"}),
    "deleteRole": ("sharing", "hq", f"portals/{HQ}/roles/{LEGACY_VIEWER}/delete", {}),
    "updateUserRole": (
        "sharing",
        "hq",
        f"portals/{HQ}/updateuserrole",
        {"user": "alice", "role": ANALYST},
    ),
    "deleteCollaboration": ("sharing", "hq", f"portals/{HQ}/collaborations/c1/delete", {}),
    "updateSchedule": (
        "sharing",
        "field",
        WS1.format(portal=FIELD) + "/schedule/update",
        {"interval": "6", "repeatCount": "-1"},
    ),
    "updateInfo": ("sharing", "hq", WS1.format(portal=HQ) + "/updateInfo", {"name": "W"}),
    "updatePortalGroupLink": (
        "sharing",
        "field",
        WS1.format(portal=FIELD) + "/updatePortalGroupLink",
        {"portalGroupId": "g1", "copyFeatureServiceData": "true"},
    ),
    "invalidateInvitation": (
        "sharing",
        "hq",
        f"portals/{HQ}/collaborations/c1/invitations/inv1/invalidate",
        {},
    ),
    "importInvitationResponse": (
        "sharing",
        "hq",
        f"portals/{HQ}/collaborations/c1/importInvitationResponse",
        {"invitationResponse": '{"invitationId": "inv2", "guestPortalId": "2222222222222222"}'},
    ),
    "deleteTaskRun": ("sharing", "field", "community/users/frank/tasks/t1/runs/run1/delete", {}),
    "removeParticipation": (
        "sharing",
        "field",
        f"portals/{FIELD}/collaborations/c1/removeParticipation",
        {},
    ),
    "deleteWebhook": ("sharing", "field", f"portals/{FIELD}/webhooks/w1/delete", {}),
    "webhookSettings": ("admin", "field", "services/webhooks/settings", {"daysInPast": "9"}),
}

# Every read of docs/rules.md §A: (root, urlKey, path).
READS: dict[str, tuple[str, str, str]] = {
    "portal": ("sharing", "hq", "portals/self"),
    "roles": ("sharing", "hq", f"portals/{HQ}/roles"),
    "rolePrivileges": ("sharing", "hq", f"portals/{HQ}/roles/{ANALYST}/privileges"),
    "members": ("sharing", "hq", f"portals/{HQ}/users"),
    "member": ("sharing", "hq", "community/users/erin"),
    "memberItems": ("sharing", "hq", "content/users/carol"),
    "collaborations": ("sharing", "hq", f"portals/{HQ}/collaborations"),
    "workspaces": ("sharing", "hq", f"portals/{HQ}/collaborations/c1/workspaces"),
    "participants": ("sharing", "hq", f"portals/{HQ}/collaborations/c1/participants"),
    "schedule": ("sharing", "field", WS1.format(portal=FIELD) + "/schedule"),
    "invitations": ("sharing", "hq", f"portals/{HQ}/collaborations/c1/invitations"),
    "orgWebhooks": ("sharing", "field", f"portals/{FIELD}/webhooks"),
    "webhookSettings": ("admin", "field", "services/webhooks/settings"),
    "serviceWebhooks": ("admin", "field", "services/webhooks"),
    "resources": ("sharing", "field", "content/items/i1/resources"),
    "tasks": ("sharing", "field", "community/users/frank/tasks"),
    "runs": ("sharing", "field", "community/users/frank/tasks/t1/runs"),
}
