"""Every path the service answers, per root, with its GET and POST handlers.

Reads answer GET and POST; writes answer POST only (GET gets a 405 envelope).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reconciler.service import (
    collaborations,
    members,
    portal,
    roles,
    tasks,
    webhooks,
)
from reconciler.service.context import Ctx

Handler = Callable[[Ctx], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Route:
    pattern: tuple[str, ...]
    get: Handler | None
    post: Handler
    write: bool = False
    auth: bool = True

    def match(self, segments: list[str]) -> dict[str, str] | None:
        if len(segments) != len(self.pattern):
            return None
        args: dict[str, str] = {}
        for part, segment in zip(self.pattern, segments, strict=True):
            if part.startswith("{"):
                if not segment:
                    return None
                args[part[1:-1]] = segment
            elif part.lower() != segment.lower():
                return None
        return args


def read(path: str, handler: Handler, auth: bool = True) -> Route:
    return Route(_split(path), handler, handler, auth=auth)


def write(path: str, handler: Handler, auth: bool = True) -> Route:
    return Route(_split(path), None, handler, write=True, auth=auth)


def _split(path: str) -> tuple[str, ...]:
    return tuple(path.split("/")) if path else ()


_COLLAB = "portals/{portalId}/collaborations/{collaborationId}"
_WORKSPACE = _COLLAB + "/workspaces/{workspaceId}"
_TASK = "community/users/{username}/tasks/{taskId}"

SHARING: tuple[Route, ...] = (
    read("", portal.root_info, auth=False),
    read("info", portal.root_info, auth=False),
    write("generateToken", portal.generate_token, auth=False),
    read("portals/{portalId}", portal.portal_self),
    read("portals/{portalId}/roles", roles.list_roles),
    read("portals/{portalId}/roles/{roleId}", roles.one_role),
    read("portals/{portalId}/roles/{roleId}/privileges", roles.role_privileges),
    write("portals/{portalId}/createRole", roles.create_role),
    write("portals/{portalId}/roles/{roleId}/setPrivileges", roles.set_privileges),
    write("portals/{portalId}/roles/{roleId}/update", roles.update_role),
    write("portals/{portalId}/roles/{roleId}/delete", roles.delete_role),
    read("portals/{portalId}/users", members.list_members),
    write("portals/{portalId}/updateUserLevel", members.update_user_level),
    write("portals/{portalId}/updateuserrole", members.update_user_role),
    read("community/users/{username}", members.one_member),
    read("content/users/{username}", members.member_items),
    read("portals/{portalId}/collaborations", collaborations.list_collaborations),
    read(_COLLAB, collaborations.one_collaboration),
    read(_COLLAB + "/workspaces", collaborations.list_workspaces),
    read(_WORKSPACE, collaborations.one_workspace),
    read(_WORKSPACE + "/schedule", collaborations.read_schedule),
    read(_COLLAB + "/participants", collaborations.participants),
    read(_COLLAB + "/invitations", collaborations.invitations),
    write(_COLLAB + "/delete", collaborations.delete_collaboration),
    write(_WORKSPACE + "/schedule/update", collaborations.update_schedule),
    write(_WORKSPACE + "/updateInfo", collaborations.update_info),
    write(_WORKSPACE + "/updatePortalGroupLink", collaborations.update_group_link),
    write(
        _COLLAB + "/invitations/{invitationId}/invalidate",
        collaborations.invalidate_invitation,
    ),
    write(_COLLAB + "/importInvitationResponse", collaborations.import_invitation_response),
    write(_COLLAB + "/removeParticipation", collaborations.remove_participation),
    read("portals/{portalId}/webhooks", webhooks.list_org_webhooks),
    write("portals/{portalId}/webhooks/{webhookId}/delete", webhooks.delete_org_webhook),
    read("community/users/{username}/tasks", tasks.list_tasks),
    read(_TASK, tasks.one_task),
    read(_TASK + "/runs", tasks.list_runs),
    write(_TASK + "/runs/{runId}/delete", tasks.delete_run),
    read("content/items/{itemId}/resources", tasks.item_resources),
)

ADMIN: tuple[Route, ...] = (
    write("generateToken", portal.generate_token, auth=False),
    read("services/webhooks", webhooks.list_service_webhooks),
    Route(
        _split("services/webhooks/settings"),
        webhooks.read_settings,
        webhooks.write_settings,
        write=True,
    ),
)


def find(routes: tuple[Route, ...], segments: list[str]) -> tuple[Route, dict[str, str]] | None:
    for route in routes:
        args = route.match(segments)
        if args is not None:
            return route, args
    return None
