"""What a handler sees: the world, the portal addressed, the caller, the fields."""

from __future__ import annotations

from dataclasses import dataclass, field

from orgctl_service.errors import not_found
from orgctl_service.lockout import SignInGuard
from orgctl_service.params import Params
from orgctl_service.passwords import Rehash
from orgctl_service.world import Doc, World


@dataclass
class Ctx:
    world: World
    portal: Doc
    params: Params
    args: dict[str, str]
    caller: Doc | None = None
    referer: str = ""  # the request's Referer header and address, for bound tokens
    client_ip: str = ""
    base_url: str = ""  # the portal's address as the client reached it: scheme://host/<key>
    # the service's failed sign-in counts (`signin`); a context that signs no one in may
    # keep this fresh one
    sign_ins: SignInGuard = field(default_factory=SignInGuard)
    # what the handler changed, so only that is written back
    touched_portals: set[str] = field(default_factory=set)
    touched_collaborations: bool = False
    new_tokens: list[str] = field(default_factory=list)  # keys of world.tokens
    touched_parts: set[tuple[str, str, str]] = field(default_factory=set)
    # a password to hash again at the sign-in cost once the answer is ready (`signin`)
    rehash: Rehash | None = None

    @property
    def now(self) -> int:
        return self.world.clock

    @property
    def user(self) -> Doc:
        """The authenticated caller (routes that need one never run without it)."""
        assert self.caller is not None
        return self.caller

    def touch_portal(self, portal: Doc | None = None) -> None:
        self.touched_portals.add((portal or self.portal)["id"])

    def touch_member(self, username: str) -> None:
        self.touched_parts.add(("user", self.portal["id"], username))

    def touch_role(self, role_id: str) -> None:
        self.touched_parts.add(("role", self.portal["id"], role_id))

    def touch_collaborations(self) -> None:
        self.touched_collaborations = True

    def member(self, username: str) -> Doc:
        user = self.portal["users"].get(username)
        if user is None:
            raise not_found(f"User '{username}' does not exist in this organization")
        return user  # type: ignore[no-any-return]
