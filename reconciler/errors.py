"""The exceptions of orgctl, in one tree, and what becomes of each.

    Exception
    ├── UserError ............... the user's input, environment or portal is at fault:
    │   │                         the CLI prints one message and exits 1 (--debug: the
    │   │                         traceback, with its cause chained)
    │   ├── ManifestError ....... manifests that do not validate; one line per problem,
    │   │                         file:line first (here)
    │   ├── LiveRecordError ..... a portal answered a record orgctl cannot read, named by
    │   │                         resource and field (here)
    │   ├── PlanFileError ....... a saved plan that is not a plan orgctl can apply
    │   │                         (plan/render/json.py)
    │   ├── StalePlan ........... the portal changed since the saved plan was made
    │   │                         (plan/fingerprint.py)
    │   ├── UnusableSegment ..... a value no portal issues where a path needs an id
    │   │                         (operations.py)
    │   ├── LockError ........... the apply lock could not be taken, kept or broken
    │   │                         (apply/lock.py)
    │   ├── Interrupted ......... apply stopped by SIGINT or SIGTERM; exits 130 or 143
    │   │                         (cli/interrupts.py)
    │   └── PortalError ......... talking to a portal failed (live/errors.py)
    │       ├── ServiceError .... it answered an error envelope (code, messageCode)
    │       │   ├── AuthError ... 498/499, or a refused sign-in
    │       │   ├── ForbiddenError  403
    │       │   └── NotFoundError   404
    │       ├── TransientError .. unreachable, no reply, 429/5xx after every retry
    │       │   └── ConnectionFailure  no connection at all: refused, timed out, no
    │       │                     route; says the likely reason
    │       ├── HostNotFoundError  DNS says the host does not exist: never retried
    │       ├── TLSError ........ the TLS handshake failed (untrusted certificate, http)
    │       ├── PortalStopped ... not sent: the portal stopped answering, or refused the
    │       │                     credentials for good (live/breaker.py)
    │       ├── LimitExceeded ... an answer too slow, too large, too deep, or a listing
    │       │                     with too many pages or going backwards
    │       └── AmbiguousRequestError  a write was sent and its reply lost: it may or
    │                             may not have taken effect (never resent blindly)
    ├── ValueError
    │   ├── VersionError ........ a release name orgctl does not know (versions.py);
    │   │                         the validator and the reader turn it into a problem or
    │   │                         a UserError that names the file or the portal
    │   └── WindowError ......... an apply window's schedule, duration or time zone that
    │                             cannot be read (windows.py); validate names its file
    ├── TreeError ............... YAML text that is no manifest, at a line and column
    │                             (manifest/yamltree.py); the loader makes it a problem
    ├── UnresolvedPlaceholder ... apply: a reference whose call produced nothing; it
    │   │                         fails that call, not the apply (apply/placeholders.py)
    │   └── UnusableValue ....... a produced value or a saved plan's path argument that
    │                             is no id a portal issues: that call fails, unsent
    ├── _Retryable .............. the client's own signal between tries, never leaves
    │                             live/client.py
    ├── StoreFull ............... the reference service's database or disk is full: the
    │                             write is refused whole, answered as code 500 GWM_0501
    │                             (orgctl_service/store.py)
    ├── ApiError ................ the reference service refusing a request; answered as
    │                             the error envelope, never raised to a client
    │                             (orgctl_service/errors.py)
    └── UnexpectedAnswer ........ the reference service, driven by its test bench, answered
                                  what its caller did not expect: a 500, a refused
                                  sign-in, an error envelope (orgctl_service/testing)

Anything else is a bug: it keeps its traceback, and no `except` turns it into a user
error.
"""

from __future__ import annotations


class UserError(Exception):
    """A problem in the user's input, environment or target portal, told in one message."""

    exit_code = 1

    @property
    def lines(self) -> list[str]:
        """The message as the lines to show: one per problem. A line break inside a
        value (a role name) is no new line: shown lines are escaped one by one."""
        return [str(self)]


class ManifestError(UserError):
    """The manifests are invalid; `problems` holds one line per problem, file:line first."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))

    @property
    def lines(self) -> list[str]:
        return self.problems


class LiveRecordError(UserError):
    """A record the portal answered holds a value orgctl cannot read: the resource, the
    field and what was wrong with it."""

    def __init__(self, resource: str, field: str, problem: str) -> None:
        self.resource = resource
        self.field = field
        where = f"{resource}: {field}" if field else resource
        super().__init__(f"the portal answered {where}: {problem}")
