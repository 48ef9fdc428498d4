"""The plan addresses of the built-in kinds' resources (README: plan JSON), stated once.

Each kind module states its own forms from here; the live reader and the planners, which
serve several kinds at once, build their addresses from the same forms (`form.of(...)`),
never from an f-string. This module imports only the registry's `AddressForm`, so any
layer may use it without importing a kind module back.
"""

from __future__ import annotations

from reconciler.kind import AddressForm

ROLE = AddressForm("Role", ("name",))
MEMBER = AddressForm("Member", ("username",))
COLLABORATION = AddressForm("Collaboration", ("id",))
WORKSPACE = AddressForm("Workspace", ("collaborationId", "workspaceId"))
INVITATION = AddressForm("Invitation", ("collaborationId", "invitationId"))
ORGANIZATION_WEBHOOK = AddressForm("OrganizationWebhook", ("id",))
TASK_RUN = AddressForm("TaskRun", ("user", "taskId", "runId"))
# A task whose runs are listed: named by an unreadable listing, not a resource of its own.
TASK = AddressForm("Task", ("user", "taskId"))
