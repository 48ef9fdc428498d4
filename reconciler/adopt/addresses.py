"""Resource addresses that `orgctl adopt` can write back into manifests."""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.errors import UserError

# Kinds whose live value a manifest can declare. The others state what must be deleted
# (a policy no live portal can tell), so their manifests are edited by hand.
NOT_ADOPTABLE = {
    "Invitation": "adopt Collaboration/<id> to write its invalidInvitations",
    "OrganizationWebhook": "OrganizationWebhooks states which webhooks must go; edit it by hand",
    "TaskRun": "TaskRunRetention states which runs must go; edit it by hand",
}


@dataclass(frozen=True, slots=True)
class Address:
    """`Role/<name>`, `Member/<username>`, `Collaboration/<id>`,
    `Workspace/<collaborationId>/<workspaceId>` or `WebhookSettings`."""

    kind: str
    key: str = ""  # the name, username or collaboration id
    workspace: str = ""  # Workspace only

    def __str__(self) -> str:
        if self.kind == "WebhookSettings":
            return self.kind
        if self.kind == "Workspace":
            return f"Workspace/{self.key}/{self.workspace}"
        return f"{self.kind}/{self.key}"


def parse_address(text: str) -> Address:
    """One address; anything else is a UserError that says what is accepted."""
    kind, _, rest = text.partition("/")
    if kind == "WebhookSettings" and not rest:
        return Address(kind)
    if kind in NOT_ADOPTABLE:
        raise UserError(f"{text}: cannot be adopted: {NOT_ADOPTABLE[kind]}")
    if kind in ("Role", "Member", "Collaboration") and rest:
        # A role name may hold slashes: everything after the kind is the name.
        return Address(kind, rest)
    if kind == "Workspace":
        collaboration, _, workspace = rest.partition("/")
        if collaboration and workspace:
            return Address(kind, collaboration, workspace)
    raise UserError(
        f"{text}: not an address orgctl adopt knows; use Role/<name>, Member/<username>,"
        " Collaboration/<id>, Workspace/<collaborationId>/<workspaceId> or WebhookSettings"
    )
