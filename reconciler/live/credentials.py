"""Credentials from the environment only (`Portal.spec.auth` names the variables).

The secrets live in this object alone; its repr shows the variable names, never values.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from reconciler.errors import UserError
from reconciler.state import Auth


@dataclass(frozen=True, slots=True)
class Credentials:
    auth: Auth
    token: str | None = field(default=None, repr=False)
    username: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)

    @property
    def can_sign_in(self) -> bool:
        """True when a fresh token can be generated (username and password known)."""
        return self.username is not None and self.password is not None

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values that must never appear in any message."""
        return tuple(s for s in (self.token, self.password) if s)

    def describe(self) -> str:
        if self.token is not None:
            return f"the token in ${self.auth.tokenEnv}"
        if self.username is not None:
            return f"user {self.username!r} (${self.auth.usernameEnv})"
        return "no credentials"


def load_credentials(auth: Auth, env: Mapping[str, str] | None = None) -> Credentials:
    """Read the variables `auth` names; a missing one is a `UserError` naming it."""
    environ = os.environ if env is None else env
    if auth.tokenEnv:
        return Credentials(auth, token=_required(environ, auth.tokenEnv, "tokenEnv"))
    if auth.usernameEnv or auth.passwordEnv:
        if not (auth.usernameEnv and auth.passwordEnv):
            raise UserError("Portal auth needs both usernameEnv and passwordEnv")
        return Credentials(
            auth,
            username=_required(environ, auth.usernameEnv, "usernameEnv"),
            password=_required(environ, auth.passwordEnv, "passwordEnv"),
        )
    return Credentials(auth)


def _required(env: Mapping[str, str], name: str, field_name: str) -> str:
    value = env.get(name)
    if not value:
        raise UserError(
            f"environment variable {name} is not set (named by Portal auth.{field_name})"
        )
    return value
