"""The error every handler raises; `app` turns it into the docs/rules.md §7 envelope.

messageCodes (stable; docs/rules.md §7 fixes only ORG_1084). A request malformed before any rule
applies (a field missing or not parsable) answers GWM_0001 whatever the operation:

| messageCode | code | when |
|---|---|---|
| ORG_1084 | 400 | level change refused: the member owns items or groups |
| ORG_1085 | 400 | level 1 requested for a member without a custom role |
| ORG_1086 | 400 | the organization's quota at the target level is reached |
| ORG_1087 | 400 | the member holds a premium app license disallowed at the target level |
| ORG_1090 | 400 | role change refused (level 1 needs a custom role, default admin, ...) |
| ROLE_1001 | 400 | role name blank, too long or already used (case-insensitive) |
| ROLE_1002 | 400 | role description too long |
| ROLE_1003 | 400 | privileges not `{"privileges": [...]}`, or not in the catalog |
| ROLE_1004 | 400 | role not editable or still assigned to members |
| COLL_1001 | 400 | workspace property out of its limits |
| COLL_1002 | 400 | schedule parameters out of range |
| COLL_1003 | 400 | bidirectional sync without copyFeatureServiceData; missing group |
| COLL_1004 | 400 | invitation response for an invalid (invalidated) invitation |
| WHK_1001 | 400 | webhook setting out of its range |
| WHK_1002 | 400 | webhook update: blank name, or a payload address that is not https |
| CONT_0001 | 400 | item does not exist or is inaccessible (the vendor's text) |
| GWM_0001 | 400 | malformed: field missing, wrong type, not JSON; unknown role to assign |
| GWM_0002 | 400 | operation or parameter not available on this deployment/release |
| GWM_0003 | 499 | token required: message and details "Token Required", as the vendor's |
| GWM_0003 | 403 | caller lacks the capability: `NO_PERMISSION`; who may, in `details` |
| GWM_0004 | 498 | invalid or expired token |
| GWM_0006 | 400 | no such member, or one the caller may not see (`USER_INACCESSIBLE`) |
| GWM_0006 | 404 | resource or path not found |
| GWM_0007 | 405 | method not allowed (GET on a write) |
| GWM_0007 | 400 | validateAppAccess for an app the portal does not register (the vendor's answer) |
| GWM_0008 | 413 | request body too large |
| GWM_0008 | 414 | request line (path and query) too long; HTTP status 414 |
| GWM_0008 | 431 | request header fields too large; HTTP status 431 (`protocol`) |
| GWM_0009 | 400 | invalid username or password |
| GWM_0010 | 400 | sign-in refused: too many failed attempts for the name or address (`signin`) |
| GWM_0500 | 500 | unexpected failure (a bug; the request changed nothing) |
| GWM_0401 | 401 | a control call without the control secret; HTTP status 401 (`app`) |
| GWM_0408 | 408 | no whole request head within the time limit; HTTP status 408 (`protocol`) |
| GWM_0501 | 500 | the database or disk is full: the write was refused, nothing kept |
| GWM_0503 | 503 | every connection the service holds is busy; HTTP status 503 (`protocol`) |
"""

from __future__ import annotations


class ApiError(Exception):
    """A refused request: HTTP-style `code`, stable `message_code`, readable message."""

    def __init__(
        self, code: int, message_code: str, message: str, details: list[str] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message_code = message_code
        self.message = message
        self.details = details or []


def bad_request(message: str, details: list[str] | None = None) -> ApiError:
    return ApiError(400, "GWM_0001", message, details)


def not_found(message: str) -> ApiError:
    return ApiError(404, "GWM_0006", message)


# The vendor's words for a refused capability and a missing token (the envelopes ArcGIS REST
# JS keeps from real portals, tests/fixtures/real_portals/rest-js-errors.json); clients
# match on them (REST JS classifies GWM_0003 as an auth error).
NO_PERMISSION = "You do not have permissions to access this resource or perform this operation."
TOKEN_REQUIRED = "Token Required"
# A real portal's answer for a member it does not have or will not show: the vendor's Python
# client's `users.get` returns None on exactly this text.
USER_INACCESSIBLE = "User does not exist or is inaccessible."


def forbidden(reason: str) -> ApiError:
    """403 in the vendor's words; `reason` (who may) goes in `details`."""
    return ApiError(403, "GWM_0003", NO_PERMISSION, [reason])


def token_required() -> ApiError:
    return ApiError(499, "GWM_0003", TOKEN_REQUIRED, [TOKEN_REQUIRED])


def inaccessible_member() -> ApiError:
    """The same answer whether the member does not exist or may not be seen, so an answer
    tells no one which names exist."""
    return ApiError(400, "GWM_0006", USER_INACCESSIBLE)


def unavailable(message: str) -> ApiError:
    return ApiError(400, "GWM_0002", message)
