"""The live client's exception tree.

Every failure a portal can cause is a `UserError` (the CLI prints one message, no
traceback). Messages name the URL and the service's own code; they never hold a token or a
password (the client scrubs anything the server might echo).
"""

from __future__ import annotations

from typing import Any

from reconciler.errors import UserError


class PortalError(UserError):
    """Any failure talking to a portal."""


class ServiceError(PortalError):
    """The service answered an error envelope (`{"error": {...}}` or admin `status: error`)."""

    def __init__(
        self,
        url: str,
        code: int | None,
        message: str,
        message_code: str | None = None,
        details: tuple[str, ...] = (),
    ) -> None:
        self.url = url
        self.code = code
        self.messageCode = message_code
        self.message = message
        self.details = details
        super().__init__(self._text())

    def _text(self) -> str:
        label = " ".join(str(p) for p in (self.code, self.messageCode) if p is not None)
        text = f"{self.url}: error {label}: {self.message}"
        if not label:
            text = f"{self.url}: {self.message}"
        extra = [d for d in self.details if d and d != self.message]
        return f"{text} ({'; '.join(extra)})" if extra else text

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "messageCode": self.messageCode,
            "message": self.message,
            "details": list(self.details),
        }


class AuthError(ServiceError):
    """498 invalid or expired token, 499 token required, or a refused sign-in."""


class ForbiddenError(ServiceError):
    """403: the signed-in user may not do this."""


class NotFoundError(ServiceError):
    """404: no such resource."""


class TransientError(PortalError):
    """A failure worth retrying (unreachable, no reply, 429/502/503/504, error code 500)
    that persisted through every attempt."""


class ConnectionFailure(TransientError):
    """No connection to the portal: refused, timed out, no route, or its name did not
    resolve for now. `what` is the fact, `cause` its likely reason; `tries` is set once
    every try has failed."""

    def __init__(self, where: str, what: str, cause: str, tries: int = 1) -> None:
        self.where = where
        self.what = what
        self.cause = cause
        self.tries = tries
        after = f" after {tries} tries" if tries > 1 else ""
        super().__init__(f"portal at {where} is unreachable{after}: {what} ({cause})")

    @property
    def short(self) -> str:
        """The fact alone, for a line saying it will be tried again."""
        return f"portal at {self.where}: {self.what}"

    def after(self, tries: int) -> ConnectionFailure:
        return ConnectionFailure(self.where, self.what, self.cause, tries)


class HostNotFoundError(PortalError):
    """The portal's host name does not exist (DNS said so): the same on every try, so
    never retried."""


class TLSError(PortalError):
    """The TLS handshake failed (plain http behind an https URL, an untrusted certificate):
    the same on every try, so never retried."""


class LimitExceeded(PortalError):
    """An answer went past a limit of `live/limits.py` (the request deadline, the answer
    size, the JSON depth, the pages of a listing): the same on every try, so never
    retried; the message names the URL and the limit."""


class AmbiguousRequestError(PortalError):
    """A non-idempotent request was sent but no reply came: it may or may not have taken
    effect, so it must not be sent again blindly."""


def service_error(
    url: str,
    code: int | None,
    message: str,
    message_code: str | None = None,
    details: tuple[str, ...] = (),
) -> ServiceError:
    """The typed exception for an error `code`."""
    kind: type[ServiceError] = ServiceError
    if code in (401, 498, 499):
        kind = AuthError
    elif code == 403:
        kind = ForbiddenError
    elif code == 404:
        kind = NotFoundError
    return kind(url, code, message, message_code, details)
