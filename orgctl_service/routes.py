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
    content,
    groups,
    licenses,
    members,
    portal,
    portal_settings,
    profiles,
    resources,
    roles,
    tasks,
    user_types,
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

Answer = dict[str, Any] | list[Any]  # a list only where the vendor answers one
Handler = Callable[[Ctx], Answer]

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
    OperationName.PAUSE_SCHEDULE: collaborations.pause_schedule,
    OperationName.RESUME_SCHEDULE: collaborations.resume_schedule,
    OperationName.DELETE_SCHEDULE: collaborations.delete_schedule,
    OperationName.ACTIVATE_WEBHOOK: webhooks.activate_org_webhook,
    OperationName.DEACTIVATE_WEBHOOK: webhooks.deactivate_org_webhook,
    OperationName.UPDATE_WEBHOOK: webhooks.update_org_webhook,
    OperationName.UPDATE_USER_LICENSE_TYPE: user_types.update_user_license_type,
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
    ReadName.LANGUAGES: client_reads.languages,
    ReadName.UPDATE_USER: members.update_user,
    ReadName.PORTAL_ADMIN: portal.portal_admin_root,
    ReadName.SYSTEM_LICENSES: licenses.system_licenses,
    ReadName.USER_TYPE_LICENSE: licenses.user_type_license,
    ReadName.RESOURCES: resources.list_resources,
    ReadName.RESOURCE: resources.one_resource,
    ReadName.PARTICIPANT: collaborations.one_participant,
    ReadName.WEBHOOK_NOTIFICATIONS: webhooks.notification_status,
    ReadName.USER_LICENSE_TYPES: user_types.list_user_types,
    ReadName.MEMBER_LICENSE_TYPE: user_types.member_user_type,
    ReadName.PORTAL_SETTINGS: portal_settings.portal_settings,
    ReadName.SUBSCRIPTION_INFO: portal_settings.subscription_info,
    ReadName.MEMBER_TAGS: profiles.member_tags,
    ReadName.MEMBER_INVITATIONS: profiles.member_invitations,
    ReadName.MEMBER_NOTIFICATIONS: profiles.member_notifications,
    ReadName.GROUP_SEARCH: groups.search_groups,
    ReadName.ITEM: content.one_item,
    ReadName.VALIDATE_APP_ACCESS: portal_settings.validate_app_access,
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
