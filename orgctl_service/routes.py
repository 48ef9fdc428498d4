"""Every path the service answers, built from the operations table: a handler per
operation and per read, each route with the table's row.

Reads answer GET and POST; writes answer POST only (GET gets a 405 envelope). A path
that is both (the webhook settings) has both handlers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from orgctl_service import (
    client_reads,
    collaborations,
    licenses,
    members,
    portal,
    resources,
    roles,
    tasks,
    webhooks,
)
from orgctl_service.context import Ctx
from reconciler.operations import (
    OPERATIONS,
    READS,
    Operation,
    OperationName,
    Path,
    Read,
    ReadName,
    Root,
)

Handler = Callable[[Ctx], dict[str, Any]]

WRITES: dict[OperationName, Handler] = {
    OperationName.UPDATE_USER_LEVEL: members.update_user_level,
    OperationName.CREATE_ROLE: roles.create_role,
    OperationName.UPDATE_ROLE: roles.update_role,
    OperationName.SET_PRIVILEGES: roles.set_privileges,
    OperationName.UPDATE_USER_ROLE: members.update_user_role,
    OperationName.UPDATE_INFO: collaborations.update_info,
    OperationName.UPDATE_GROUP_LINK: collaborations.update_group_link,
    OperationName.UPDATE_SCHEDULE: collaborations.update_schedule,
    OperationName.INVALIDATE_INVITATION: collaborations.invalidate_invitation,
    OperationName.IMPORT_INVITATION_RESPONSE: collaborations.import_invitation_response,
    OperationName.WEBHOOK_SETTINGS: webhooks.write_settings,
    OperationName.DELETE_TASK_RUN: tasks.delete_run,
    OperationName.DELETE_WEBHOOK: webhooks.delete_org_webhook,
    OperationName.REMOVE_PARTICIPATION: collaborations.remove_participation,
    OperationName.DELETE_COLLABORATION: collaborations.delete_collaboration,
    OperationName.DELETE_ROLE: roles.delete_role,
    OperationName.UPDATE_PORTAL_WEBHOOK_SETTINGS: webhooks.update_portal_webhook_settings,
    OperationName.ADD_RESOURCE: resources.add_resource,
    OperationName.REMOVE_RESOURCE: resources.remove_resource,
}

READ_HANDLERS: dict[ReadName, Handler] = {
    ReadName.ROOT: portal.root_info,
    ReadName.INFO: portal.server_info,
    ReadName.GENERATE_TOKEN: portal.generate_token,
    ReadName.ADMIN_GENERATE_TOKEN: portal.generate_token,
    ReadName.PORTAL: portal.portal_self,
    ReadName.ROLES: roles.list_roles,
    ReadName.ROLE: roles.one_role,
    ReadName.ROLE_PRIVILEGES: roles.role_privileges,
    ReadName.MEMBERS: members.list_members,
    ReadName.MEMBER: members.one_member,
    ReadName.MEMBER_ITEMS: members.member_items,
    ReadName.COLLABORATIONS: collaborations.list_collaborations,
    ReadName.COLLABORATION: collaborations.one_collaboration,
    ReadName.WORKSPACES: collaborations.list_workspaces,
    ReadName.WORKSPACE: collaborations.one_workspace,
    ReadName.SCHEDULE: collaborations.read_schedule,
    ReadName.PARTICIPANTS: collaborations.participants,
    ReadName.INVITATIONS: collaborations.invitations,
    ReadName.ORG_WEBHOOKS: webhooks.list_org_webhooks,
    ReadName.TASKS: tasks.list_tasks,
    ReadName.TASK: tasks.one_task,
    ReadName.RUNS: tasks.list_runs,
    ReadName.ITEM_RESOURCES: tasks.item_resources,
    ReadName.SERVICE_WEBHOOKS: webhooks.list_service_webhooks,
    ReadName.WEBHOOK_SETTINGS: webhooks.read_settings,
    ReadName.ORG_WEBHOOK: webhooks.one_org_webhook,
    ReadName.PORTAL_WEBHOOK_SETTINGS: webhooks.portal_webhook_settings,
    ReadName.RUN: tasks.one_run,
    ReadName.INVITATION: collaborations.one_invitation,
    ReadName.USER_SEARCH: members.search_users,
    ReadName.SELF: client_reads.community_self,
    ReadName.ORG_USER_SEARCH: client_reads.org_user_search,
    ReadName.ORG_USER_SEARCH_AS_DOCUMENTED: client_reads.org_user_search,
    ReadName.ALL_SCHEDULED_TASKS: tasks.all_scheduled_tasks,
    ReadName.SERVERS: portal.servers,
    ReadName.PORTAL_ADMIN: portal.portal_admin_root,
    ReadName.SYSTEM_LICENSES: licenses.system_licenses,
    ReadName.USER_TYPE_LICENSE: licenses.user_type_license,
    ReadName.RESOURCES: resources.list_resources,
    ReadName.RESOURCE: resources.one_resource,
}


@dataclass(frozen=True, slots=True)
class Route:
    path: Path
    get: Handler | None
    post: Handler | None
    operation: Operation | None = None  # the write POST calls, gated and checked first
    changes_state: bool = False  # a POST whose effects must be persisted
    signed_in: bool = True
    read: Read | None = None  # the read GET (and a POST without a write) makes, checked first


def _routes() -> dict[Root, tuple[Route, ...]]:
    by_path: dict[Path, Route] = {}
    for read in READS.values():
        handler = READ_HANDLERS[read.name]
        get = None if read.write else handler
        by_path[read.path] = Route(read.path, get, handler, None, read.write, read.signed_in, read)
    for operation in OPERATIONS.values():
        reading = by_path.get(operation.path)
        get, read_row = (reading.get, reading.read) if reading else (None, None)
        write = WRITES[operation.name]
        by_path[operation.path] = Route(operation.path, get, write, operation, True, read=read_row)
    found: dict[Root, list[Route]] = {root: [] for root in Root}
    for route in by_path.values():
        found[route.path.root].append(route)
    return {root: tuple(routes) for root, routes in found.items()}


ROUTES = _routes()


def find(root: Root, segments: list[str]) -> tuple[Route, dict[str, str]] | None:
    for route in ROUTES[root]:
        args = route.path.match(segments)
        if args is not None:
            return route, args
    return None
