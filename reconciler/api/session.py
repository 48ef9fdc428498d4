"""What every call takes: the credentials, the connection, the manifests; and the two
calls that need no portal, `validate` and `load`. Nothing here loads the HTTP stack, so
`orgctl validate`, a thin layer over `validate`, stays within its import budget
(tests/test_import_budget.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

# The manifest kinds stand above the engine these calls drive, so the API, standing above
# both, loads them (reconciler/kind.py), as the CLI does.
import reconciler.kinds  # noqa: F401
from reconciler.environment import ADMIN_URL_ENV, PORTAL_URL_ENV
from reconciler.errors import UserError
from reconciler.manifest.desired import desired_from
from reconciler.manifest.problems import Problem
from reconciler.manifest.validation import check
from reconciler.state import DesiredState

if TYPE_CHECKING:
    from reconciler.live.client import PortalClient
    from reconciler.workflow import Notice


@dataclass(frozen=True, slots=True)
class Credentials:
    """Who signs in: a token, or a username and password. The secrets never show in a
    repr or a message."""

    token: str | None = field(default=None, repr=False)
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if bool(self.token) == bool(self.username and self.password):
            raise UserError("credentials are a token, or a username and a password (one of them)")

    def variables(self) -> dict[str, str]:
        """The values under the names the engine reads them by (ORGCTL_TOKEN, or
        ORGCTL_USERNAME and ORGCTL_PASSWORD)."""
        from reconciler.live.credentials import PLAIN  # validate reads no live module

        token, pair = PLAIN
        if self.token:
            assert token.tokenEnv
            return {token.tokenEnv: self.token}
        assert pair.usernameEnv and pair.passwordEnv and self.username and self.password
        return {pair.usernameEnv: self.username, pair.passwordEnv: self.password}


@dataclass(frozen=True, slots=True)
class Connection:
    """How to reach a portal: every ORGCTL_* value by name (credentials, the URLs over
    the Portal document's, trusted origins, a CA bundle, limits: README, environment
    variables), and who hears a retry as it happens (None: nobody)."""

    variables: Mapping[str, str] = field(default_factory=dict, repr=False)
    notice: Notice | None = None

    @classmethod
    def of(
        cls,
        credentials: Credentials,
        *,
        portal_url: str | None = None,
        admin_url: str | None = None,
        settings: Mapping[str, str] | None = None,
        notice: Notice | None = None,
    ) -> Connection:
        """A connection with these credentials; `portal_url` and `admin_url` stand over
        the Portal document's `spec.url` and `spec.adminUrl`; `settings` holds any other
        ORGCTL_* value by name (ORGCTL_TRUSTED_ORIGINS, ORGCTL_REQUEST_TIMEOUT ...)."""
        values = dict(settings or {})
        if portal_url:
            values[PORTAL_URL_ENV] = portal_url
        if admin_url:
            values[ADMIN_URL_ENV] = admin_url
        return cls({**values, **credentials.variables()}, notice)


@dataclass(frozen=True, slots=True)
class Manifests:
    """A portal's manifest set, validated: its desired state and what was seen loading."""

    path: Path
    desired: DesiredState
    warnings: tuple[Problem, ...]  # what validate cannot know to be wrong offline
    skipped: tuple[str, ...]  # files read as no manifest (no apiVersion: orgctl/v1)


@dataclass(frozen=True, slots=True)
class Validation:
    """Every offline check of a manifest set, as `orgctl validate` reports it: the
    problems (any one makes the set invalid) and the warnings (none does), each sorted
    by file and line, and the files read as no manifest."""

    path: Path
    problems: tuple[Problem, ...]
    warnings: tuple[Problem, ...]
    skipped: tuple[str, ...]

    @property
    def valid(self) -> bool:
        return not self.problems


def validate(path: str | PathLike[str], connection: Connection | None = None) -> Validation:
    """Every problem of the manifests under `path` at once, without the network. Raises
    `UserError` only when `path` cannot be read at all (a folder that cannot be listed)."""
    folder = Path(path)
    checked = check(folder, connection.variables if connection is not None else {})
    return Validation(
        folder,
        tuple(checked.problems),
        tuple(checked.warnings),
        tuple(checked.loaded.ignored),
    )


def load(path: str | PathLike[str], connection: Connection | None = None) -> Manifests:
    """The manifests under `path` (a folder or one file), with the URLs `connection`
    sets over the Portal's. Raises `ManifestError`, one line per problem, file:line first."""
    folder = Path(path)
    variables = connection.variables if connection is not None else {}
    checked = check(folder, variables)
    desired = desired_from(checked, variables)
    return Manifests(folder, desired, tuple(checked.warnings), tuple(checked.loaded.ignored))


def client_for(desired: DesiredState, connection: Connection, parallelism: int = 8) -> PortalClient:
    from reconciler.workflow import connect  # the HTTP stack, for the calls that read a portal

    return connect(desired, connection.variables, parallelism=parallelism, notice=connection.notice)
