"""An async HTTP client for one portal: credentials, envelopes, retries and paging.

Every request carries `f=json`; the token travels only in the `X-Esri-Authorization`
header. Reads are GETs; writes are form-encoded POSTs. One semaphore bounds how many
requests are in flight at once, whatever mix of reads the caller gathers.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import quote, quote_plus

import httpx

from reconciler.addresses import extras
from reconciler.errors import UserError
from reconciler.live.breaker import Breaker
from reconciler.live.credentials import Credentials, load_credentials
from reconciler.live.envelopes import decode
from reconciler.live.errors import (
    AmbiguousRequestError,
    AuthError,
    ConnectionFailure,
    LimitExceeded,
    NotFoundError,
    PortalError,
    ServiceError,
    TransientError,
)
from reconciler.live.limits import Limits
from reconciler.live.network import Failure, connect_failure, reply_failure
from reconciler.live.origins import TrustedOrigins, UrlSources, origin_of, refusal
from reconciler.live.paging import PAGE_SIZE, Bounds, Convert, read_pages
from reconciler.live.redaction import encoded_forms, spelled
from reconciler.live.retry import RetryPolicy, parse_retry_after
from reconciler.live.trust import trust_store
from reconciler.live.urls import check_url, join, shown
from reconciler.settings import REFERER, setting
from reconciler.state import Auth, PortalTarget

# In the reply of a delete whose resource an earlier, unanswered attempt removed.
ALREADY_GONE = "alreadyGone"
TOKEN_MINUTES = 60
TRANSIENT_STATUSES = frozenset({429, 502, 503, 504})
# Headers about the bytes on the wire, not the body as read (decompressed, whole).
_WIRE = frozenset({"content-encoding", "content-length", "transfer-encoding"})
# Told of each failed try that will be tried again: (tries so far, the failure, seconds
# until the next); the applier journals it.
RetryHook = Callable[[int, PortalError, float], None]
# Told, as one line of text, of every failed try of any request that will be tried again.
RetryNotice = Callable[[str], None]

T = TypeVar("T")


@dataclass
class _Retryable(Exception):
    """One try failed in a way another try may fix."""

    error: PortalError
    maybe_processed: bool  # the server may have acted on the request
    retry_after: float | None = None


class PortalClient:
    """The one way orgctl talks to a portal. Use as `async with PortalClient(...) as c`."""

    def __init__(
        self,
        root: str,
        *,
        auth: Auth | None = None,
        admin_root: str | None = None,
        env: Mapping[str, str] | None = None,
        portal: str | None = None,
        sources: UrlSources | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        retry: RetryPolicy | None = None,
        concurrency: int = 8,
        timeout: float = 30.0,
        retry_notice: RetryNotice | None = None,
        limits: Limits | None = None,
    ) -> None:
        _check_root("portal URL", root)
        if admin_root is not None:
            _check_root("admin URL", admin_root)
        self.root = root.rstrip("/")
        self.admin_root = admin_root.rstrip("/") if admin_root else None
        # No `env`: nothing from an environment (the command line passes Settings.environ).
        environ = {} if env is None else env
        # Refused here, before any request: a root outside ORGCTL_TRUSTED_ORIGINS.
        self.portal = portal
        self.trusted = TrustedOrigins.from_env(environ)
        self.sources = sources or UrlSources()
        for checked in (self.root, self.admin_root):
            if checked is not None:
                self._check_origin(checked)
        # `portal` (the Portal's metadata.name) selects its own ORGCTL_<NAME>_* variables.
        self.credentials: Credentials = load_credentials(auth or Auth(), environ, portal)
        # A token bound to a referer is good only with that Referer; by default orgctl
        # names the portal's own root (and asks generateToken for a token bound to it).
        self.referer = setting(REFERER, environ) or self.root
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        # What an answer may cost (time, bytes, depth, pages): the command's flags, else
        # the ORGCTL_* variables, else defaults no real portal reaches.
        self.limits = limits or Limits.from_env(environ)
        self.retry_notice = retry_notice
        self.requests = 0  # every HTTP request sent, retries and sign-ins included
        self.server_clock: float | None = None  # Unix seconds, from the last Date header
        self.breaker = Breaker()  # shared by every request: a dead portal stops them all
        self._gate = asyncio.Semaphore(concurrency)
        self._token: str | None = self.credentials.token
        self._issued: list[str] = []  # generated tokens: secrets as much as the password
        self._token_lock = asyncio.Lock()
        # An https portal's CA file is read now, to name a bad one before any request.
        tls = any(root.startswith("https:") for root in (self.root, self.admin_root or ""))
        self._http = httpx.AsyncClient(
            transport=transport, timeout=timeout, verify=trust_store(environ, read_now=tls)
        )

    def __repr__(self) -> str:
        return f"PortalClient({self.root!r}, {self.credentials.describe()})"

    async def __aenter__(self) -> PortalClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- addresses ------------------------------------------------------------------------

    def url(self, path: str) -> str:
        """`path` under the sharing REST root (absolute URLs pass through)."""
        return join(self.root, path)

    def admin_url(self, path: str) -> str:
        if self.admin_root is None:
            raise UserError(f"the portal at {self.root} has no adminUrl; {path} needs one")
        return join(self.admin_root, path)

    def _check_origin(self, url: str) -> None:
        """Refuse (before sending) a URL whose origin ORGCTL_TRUSTED_ORIGINS does not list
        for this portal."""
        if self.trusted is None:
            return
        origin = origin_of(url)
        if self.trusted.allows(origin, self.portal):
            return
        source = self.sources.other
        if url.startswith(self.root):
            source = self.sources.root
        elif self.admin_root is not None and url.startswith(self.admin_root):
            source = self.sources.admin
        raise refusal(url, origin, self.trusted, self.portal, source)

    # --- public requests ------------------------------------------------------------------

    async def get_json(self, path: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """GET a JSON object; `path` is relative to the root or an absolute URL."""
        return await self._request("GET", self.url(path), dict(params or {}), idempotent=True)

    async def post(
        self,
        url: str,
        params: Mapping[str, Any],
        *,
        idempotent: bool = True,
        deletes: bool = False,
        on_retry: RetryHook | None = None,
    ) -> dict[str, Any]:
        """POST form fields. A non-idempotent write is retried only when the request
        provably never reached the server; otherwise `AmbiguousRequestError`. A delete
        (`deletes`) answered "not found" on a retry after a lost reply has done its work:
        the attempt whose reply was lost removed the resource."""
        return await self._request(
            "POST",
            self.url(url),
            dict(params),
            idempotent=idempotent,
            deletes=deletes,
            on_retry=on_retry,
        )

    async def get_pages(
        self,
        path: str,
        key: str,
        params: Mapping[str, Any] | None = None,
        *,
        convert: Convert[T],
        page_size: int = PAGE_SIZE,
        expected: int = 0,
    ) -> list[T]:
        """What `convert` makes of every page of a paged listing, in server order
        (`paging.read_pages`; `paging.as_is` keeps the entries); `expected` entries, when
        known, let the first pages go out before the total is known."""
        base = dict(params or {})

        async def fetch(start: int) -> dict[str, Any]:
            return await self.get_json(path, {**base, "start": start, "num": page_size})

        return await read_pages(
            fetch,
            key,
            convert,
            page_size=page_size,
            expected=expected,
            bounds=Bounds(shown(self.url(path)), self.limits),
        )

    # --- the request loop -----------------------------------------------------------------

    async def _request(
        self,
        method: str,
        url: str,
        params: dict[str, Any],
        *,
        idempotent: bool,
        signed: bool = True,
        deletes: bool = False,
        on_retry: RetryHook | None = None,
    ) -> dict[str, Any]:
        check_url(url)
        self._check_origin(url)  # before a sign-in that would be for nothing
        form = {**params, "f": "json"}
        failures = 0
        reauthenticated = False
        reply_lost = False  # an earlier attempt may have taken effect
        while True:
            self.breaker.check(reply_lost)
            token = await self._current_token() if signed else None
            try:
                return await self._send_once(method, url, form, token)
            except NotFoundError:
                if deletes and reply_lost:
                    return {"success": True, ALREADY_GONE: True}
                raise
            except LimitExceeded as exceeded:
                if idempotent:
                    raise
                # The answer went past a limit after the request went out: it may have
                # taken effect, and the applier settles that as for a lost reply.
                raise AmbiguousRequestError(
                    f"{exceeded}; it may or may not have taken effect"
                ) from None
            except _Retryable as retryable:
                reply_lost = reply_lost or retryable.maybe_processed
                if retryable.maybe_processed and not idempotent:
                    raise AmbiguousRequestError(
                        f"{shown(url)}: sent, but no usable reply ({retryable.error}); "
                        "it may or may not have taken effect"
                    ) from None
                failures += 1
                if failures >= self.retry.attempts:
                    raise _gave_up(retryable.error, failures) from None
                delay = self.retry.delay(failures, retryable.retry_after)
                if on_retry is not None:
                    on_retry(failures, retryable.error, delay)
                self._announce(retryable.error, failures, delay, form)
                await self.retry.sleep(delay)
            except AuthError as error:
                if error.code != 498 or reauthenticated or not self.credentials.can_sign_in:
                    if error.code in (498, 499):
                        self.breaker.refused(self._explained(error))
                    raise self._explained(error) from None
                reauthenticated = True
                await self._renew_token(stale=token)

    async def _send_once(
        self, method: str, url: str, form: dict[str, Any], token: str | None
    ) -> dict[str, Any]:
        # Every request, generateToken's password and every token header included, passes
        # here: the one place an untrusted origin is refused, whatever derived the URL.
        self._check_origin(url)
        headers = {"Referer": self.referer}
        if token:
            headers["X-Esri-Authorization"] = f"Bearer {token}"
        async with self._gate:
            self.requests += 1
            try:
                # The per-read timeout alone lets one byte every few seconds go on forever.
                async with asyncio.timeout(self.limits.request_seconds):
                    response = await self._exchange(method, url, form, headers)
            except TimeoutError:
                raise LimitExceeded(
                    f"portal at {shown(url)} did not finish its answer within the request"
                    f" deadline of {self.limits.told('request_seconds')}"
                ) from None
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
                raise self._unanswered(connect_failure(url, exc, self.timeout)) from None
            except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
                raise self._unanswered(reply_failure(url, exc, self.timeout)) from None
        self.breaker.answered()
        return self._decoded(response)

    def _unanswered(self, failure: Failure) -> Exception:
        if failure.retry:  # a failure that is final at once (DNS, TLS) is not a streak
            self.breaker.no_answer(failure.error, self.root)
        return _failed(failure)

    async def _exchange(
        self, method: str, url: str, form: dict[str, Any], headers: dict[str, str]
    ) -> httpx.Response:
        """The answer, its body read as it streams in and refused past the size limit, so
        an endless or huge body costs at most that much memory."""
        get = method == "GET"
        request = self._http.build_request(
            method, url, params=form if get else None, data=None if get else form, headers=headers
        )
        answer = await self._http.send(request, stream=True)
        try:
            body = await self._body(answer, shown(url))
        finally:
            await answer.aclose()
        # The body as decoded (gzip undone): the headers that described the wire go.
        kept = [(k, v) for k, v in answer.headers.multi_items() if k.lower() not in _WIRE]
        return httpx.Response(answer.status_code, headers=kept, content=body, request=request)

    async def _body(self, answer: httpx.Response, url: str) -> bytes:
        limit = self.limits.answer_bytes
        declared = answer.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise self._too_large(url, f"it declares {int(declared):,} bytes")
        body = bytearray()
        async for chunk in answer.aiter_bytes():
            body += chunk
            if len(body) > limit:
                raise self._too_large(url, "it went on past it")
        return bytes(body)

    def _too_large(self, url: str, how: str) -> LimitExceeded:
        return LimitExceeded(
            f"portal at {url} answered more than the answer size limit of"
            f" {self.limits.told('answer_bytes')}: {how}"
        )

    def _announce(self, error: PortalError, failures: int, delay: float, request: object) -> None:
        """One line per retry, so a wait on an unreachable portal is seen, not silent."""
        if self.retry_notice is None or self.breaker.quiet(request):
            return
        what = error.short if isinstance(error, ConnectionFailure) else str(error)
        self.retry_notice(
            f"{what}; trying again in {delay:.1f}s ({failures + 1}/{self.retry.attempts})"
        )

    def _decoded(self, response: httpx.Response) -> dict[str, Any]:
        url = shown(response.request.url)
        self._note_server_clock(response.headers.get("date"))
        if response.status_code in TRANSIENT_STATUSES or response.status_code >= 500:
            # Whatever the body: a web adaptor or load balancer answers its 5xx in HTML.
            raise _Retryable(
                TransientError(f"portal at {url} answered HTTP {response.status_code}"),
                # 429 is a refusal before any work; a gateway's 502/504 may follow work.
                maybe_processed=response.status_code != 429,
                retry_after=parse_retry_after(response.headers.get("retry-after")),
            )
        try:
            return decode(response, self.limits)
        except ServiceError as error:
            scrubbed = self._scrubbed(error)
            if scrubbed.code == 500:
                raise _Retryable(scrubbed, maybe_processed=True) from None
            raise scrubbed from None

    def _note_server_clock(self, header: str | None) -> None:
        # Ages (task-run retention) and elapsed schedules are judged on the portal's
        # clock, which the Date header of every answer states.
        if not header:
            return
        try:
            self.server_clock = parsedate_to_datetime(header).timestamp()
        except (TypeError, ValueError):
            return

    # --- tokens ---------------------------------------------------------------------------

    async def _current_token(self) -> str | None:
        if self._token is None and self.credentials.can_sign_in:
            await self._renew_token(stale=None)
        return self._token

    async def _renew_token(self, stale: str | None) -> None:
        async with self._token_lock:
            if self._token != stale:
                return  # a concurrent request already renewed it
            try:
                self._token = await self._generate_token()
            except AuthError as refused:
                self.breaker.refused(refused)
                raise
            self._issued.append(self._token)

    async def _generate_token(self) -> str:
        creds = self.credentials
        url = self.url("generateToken")
        try:
            answer = await self._request(
                "POST",
                url,
                {
                    "username": creds.username,
                    "password": creds.password,
                    "client": "referer",
                    "referer": self.referer,
                    "expiration": TOKEN_MINUTES,
                },
                idempotent=True,
                signed=False,
            )
        except NotFoundError:
            raise _no_sign_in_here(self.root, shown(url)) from None
        except ServiceError as error:
            # The reason is in `details` ("Invalid username or password.", or a lock after
            # repeated failures); the message says only "Unable to generate token."
            reasons = [error.message, *(d for d in error.details if d and d != error.message)]
            refused = f"sign-in as {creds.describe()} refused: {' '.join(reasons)}"
            raise AuthError(shown(url), error.code, refused) from None
        token = answer.get("token")
        if not isinstance(token, str) or not token:
            raise AuthError(shown(url), None, "generateToken answered without a token")
        return token

    # --- secrets never leave --------------------------------------------------------------

    def _scrubbed(self, error: ServiceError) -> ServiceError:
        secrets = spelled(
            form for secret in (*self.credentials.secrets, *self._issued) for form in forms(secret)
        )
        if secrets.search(str(error)) is None:
            return error
        return type(error)(
            error.url,
            error.code,
            _redact(error.message, secrets),
            error.messageCode,
            tuple(_redact(d, secrets) for d in error.details),
        )

    def _explained(self, error: AuthError) -> AuthError:
        if error.code not in (498, 499):
            return error
        return type(error)(
            error.url,
            error.code,
            f"{error.message} (credentials: {self.credentials.describe()})",
            error.messageCode,
            error.details,
        )


def _no_sign_in_here(root: str, url: str) -> PortalError:
    """A 404 on generateToken says the address is wrong, not the password: the usual
    cause is a portal URL short of its sharing REST root (`.../sharing` without `/rest`)."""
    example = "such as https://gis.example.com/portal/sharing/rest"
    if root.endswith("/sharing/rest"):
        check = f"is {shown(root)} the portal's sharing REST root ({example})?"
    else:
        check = f"{shown(root)} does not end in /sharing/rest, as a REST root does ({example})."
    return PortalError(
        f"{url}: not found (404): no sign-in at this address, so the portal URL is likely"
        f" wrong rather than the credentials: {check}"
    )


def _check_root(what: str, url: str) -> None:
    """A root must be a plain address: every request path is joined onto it, so a query or
    fragment would swallow the path (generateToken would answer as something else), and
    user info would put a credential where a URL is shown."""
    parsed = check_url(url)
    found = extras(url)
    if found:
        plain = parsed.copy_with(userinfo=b"", query=None, fragment=None)  # no secret shown
        raise UserError(
            f"the {what} {plain} must be a plain address without user info, a query or a"
            f" fragment, but it has {' and '.join(found)}; credentials come from environment"
            " variables, never the URL"
        )


def forms(secret: str) -> list[str]:
    """Every spelling of `secret` an answer may echo: as written, URL-encoded (path and
    form style), JSON-escaped and HTML-escaped, and each of those in base64 (any alignment),
    base64url and hex, as a gateway echoing the request body may put it; longest first, so
    no part of one is left."""
    spellings = {
        secret,
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret),
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        html.escape(secret),
    }
    spellings |= {encoded for text in list(spellings) for encoded in encoded_forms(text)}
    return sorted((s for s in spellings if s), key=len, reverse=True)


def _redact(text: str, secrets: re.Pattern[str]) -> str:
    return secrets.sub("***", text)


def _failed(failure: Failure) -> Exception:
    """The failure raised as it is, or as a try to repeat when another may succeed."""
    if not failure.retry:
        return failure.error
    return _Retryable(failure.error, maybe_processed=failure.maybe_processed)


def _gave_up(error: PortalError, tries: int) -> PortalError:
    """The last failure, saying how many tries there were when it is a connection's."""
    return error.after(tries) if isinstance(error, ConnectionFailure) else error


def client_for(
    target: PortalTarget, *, env: Mapping[str, str] | None = None, **options: Any
) -> PortalClient:
    """The client for a Portal target, at its URLs as they are: the environment's
    overrides were applied once, when the manifests became desired state."""
    return PortalClient(
        target.url,
        auth=target.auth,
        admin_root=target.adminUrl,
        env=env,
        portal=target.name,
        **options,
    )
