"""Resource addresses that `orgctl adopt` can write back into manifests."""

from __future__ import annotations

from dataclasses import dataclass

from reconciler.errors import UserError
from reconciler.kind import owner, registered


@dataclass(frozen=True, slots=True)
class Address:
    """A plan address of a resource whose live value a manifest can declare
    (`Role/<name>`, `Workspace/<collaborationId>/<workspaceId>`, `WebhookSettings`)."""

    kind: str  # the address's head: "Role", "Workspace"
    ids: tuple[str, ...] = ()  # its identity parts

    @property
    def key(self) -> str:
        """The first identity part: the name, username or collaboration id."""
        return self.ids[0] if self.ids else ""

    @property
    def workspace(self) -> str:
        return self.ids[1] if len(self.ids) > 1 else ""

    def __str__(self) -> str:
        return "/".join((self.kind, *self.ids))


def parse_address(text: str) -> Address:
    """One address; anything else is a UserError that says what is accepted."""
    head, _, rest = text.partition("/")
    found = owner(head)
    if found is not None:
        kind, form = found
        why = kind.unadoptable.get(head)
        if why is not None:
            raise UserError(f"{text}: cannot be adopted: {why}")
        # A role name may hold slashes: the last part takes everything after the others.
        ids = tuple(rest.split("/", form.parts - 1)) if form.parts and rest else ()
        if kind.adopt is not None and len(ids) == form.parts and all(ids):
            return Address(head, ids)
    raise UserError(f"{text}: not an address orgctl adopt knows; use {_known()}")


def _known() -> str:
    shown = [
        str(form)
        for kind in registered()
        if kind.adopt is not None
        for form in kind.addresses
        if form.head not in kind.unadoptable
    ]
    return ", ".join(shown[:-1]) + " or " + shown[-1]
