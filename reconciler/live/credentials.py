"""Credentials from the environment only.

The variables read are, the first that is set: the portal's own (`ORGCTL_<NAME>_TOKEN`, or
`ORGCTL_<NAME>_USERNAME` + `_PASSWORD`, NAME being the Portal's metadata.name), those
`Portal.spec.auth` names, then the plain `ORGCTL_TOKEN` or `ORGCTL_USERNAME` +
`ORGCTL_PASSWORD`. One CI job or shell can so hold the credentials of several portals.
A portal's own variable may instead name a file holding the value (`ORGCTL_<NAME>_TOKEN_FILE`,
`_USERNAME_FILE`, `_PASSWORD_FILE`), as a cluster mounts secrets: the file wins over every
other source of that credential, and is read again each time a client is made, so a
rotated secret is used at the next reconcile of `orgctl agent`.

The secrets live in this object alone; its repr shows the variable names, never values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from reconciler import settings
from reconciler.environment import variable_stem
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


PLAIN = (
    Auth(tokenEnv=settings.TOKEN.name),
    Auth(usernameEnv=settings.USERNAME.name, passwordEnv=settings.PASSWORD.name),
)


def plain_auth(environ: Mapping[str, str]) -> Auth:
    """The plain variables that are set, for a portal named by its URL alone (export,
    doctor --portal-url): the token when set, else username and password; neither is a
    clear error."""
    token, pair = PLAIN
    if _is_set(token, environ):
        return token
    if _is_set(pair, environ):
        return pair
    raise UserError(
        f"export needs credentials in the environment: set {token.tokenEnv}, or both"
        f" {pair.usernameEnv} and {pair.passwordEnv}"
    )


def portal_variables(name: str) -> Auth:
    """The variables named after a portal: `field-office` gives `ORGCTL_FIELD_OFFICE_TOKEN`,
    `_USERNAME` and `_PASSWORD`. Only A-Z, 0-9 and `_` remain, so each is a valid GitHub
    or GitLab secret name and a valid shell variable."""
    stem = variable_stem(name)
    return Auth(f"{stem}_TOKEN", f"{stem}_USERNAME", f"{stem}_PASSWORD")


def resolve_auth(auth: Auth, portal: str | None, env: Mapping[str, str]) -> Auth:
    """The variables to read: the first complete set, most specific first. When none is
    set, `auth` as declared, so that the error names what the Portal asked for."""
    own = portal_variables(portal) if portal else None
    if own is not None:
        _refuse_half_pair(own, env)
    candidates = [*_split(own), *_split(auth), *PLAIN]
    return next((c for c in candidates if _is_set(c, env)), auth)


def _split(auth: Auth | None) -> list[Auth]:
    if auth is None:
        return []
    return [Auth(tokenEnv=auth.tokenEnv), Auth(None, auth.usernameEnv, auth.passwordEnv)]


def _is_set(auth: Auth, env: Mapping[str, str]) -> bool:
    if auth.tokenEnv:
        return bool(env.get(auth.tokenEnv))
    return bool(
        auth.usernameEnv
        and auth.passwordEnv
        and env.get(auth.usernameEnv)
        and env.get(auth.passwordEnv)
    )


def _refuse_half_pair(own: Auth, env: Mapping[str, str]) -> None:
    # Falling back past a half-set pair could sign in as someone else: say so instead.
    assert own.usernameEnv and own.passwordEnv
    user, password = bool(env.get(own.usernameEnv)), bool(env.get(own.passwordEnv))
    if user != password:
        present, missing = (
            (own.usernameEnv, own.passwordEnv) if user else (own.passwordEnv, own.usernameEnv)
        )
        raise UserError(f"environment variable {present} is set but {missing} is not")


def load_credentials(
    auth: Auth, env: Mapping[str, str] | None = None, portal: str | None = None
) -> Credentials:
    """Read the credentials of portal `portal` (its metadata.name) whose Portal declares
    `auth`; when none is set, a `UserError` naming the variables looked for."""
    environ = {} if env is None else env
    if portal:
        environ = with_credential_files(environ, portal)
    chosen = resolve_auth(auth, portal, environ)
    hint = _hint(portal)
    if chosen.tokenEnv:
        return Credentials(chosen, token=_required(environ, chosen.tokenEnv, "tokenEnv", hint))
    if chosen.usernameEnv or chosen.passwordEnv:
        if not (chosen.usernameEnv and chosen.passwordEnv):
            raise UserError("Portal auth needs both usernameEnv and passwordEnv")
        return Credentials(
            chosen,
            username=_required(environ, chosen.usernameEnv, "usernameEnv", hint),
            password=_required(environ, chosen.passwordEnv, "passwordEnv", hint),
        )
    return Credentials(chosen)


def with_credential_files(env: Mapping[str, str], portal: str) -> Mapping[str, str]:
    """`env` with each of the portal's own variables whose `<VARIABLE>_FILE` is set replaced
    by that file's content (one trailing newline dropped, as `echo` and editors leave it)."""
    own = portal_variables(portal)
    read: dict[str, str] = {}
    for variable in (own.tokenEnv, own.usernameEnv, own.passwordEnv):
        path = env.get(f"{variable}_FILE")
        if variable and path:
            read[variable] = _file_value(f"{variable}_FILE", path)
    return {**env, **read} if read else env


def _file_value(variable: str, path: str) -> str:
    try:
        with open(path, encoding="utf-8") as file:
            value = file.read().removesuffix("\n").removesuffix("\r")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UserError(f"{variable}: cannot read {path} ({reason})") from None
    if not value:
        raise UserError(f"{variable}: {path} is empty")
    return value


def _hint(portal: str | None) -> str:
    if not portal:
        return ""
    own = portal_variables(portal)
    return f"; or set {own.tokenEnv}, or {own.usernameEnv} and {own.passwordEnv}"


def _required(env: Mapping[str, str], name: str, field_name: str, hint: str) -> str:
    value = env.get(name)
    if not value:
        raise UserError(
            f"environment variable {name} is not set (named by Portal auth.{field_name}){hint}"
        )
    return value
