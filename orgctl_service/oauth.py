"""OAuth2 sign-in as the portal's web tier offers it to registered apps.

The flow (response_type `token`, the implicit grant, or `code`):
1. `GET <root>/sharing/rest/oauth2/authorize?client_id&response_type&redirect_uri&state`
   answers the sign-in page; its script holds `var oAuthInfo = {...}` with `oauth_state`.
   An unknown `client_id` or `redirect_uri` is an error page and never a redirect: a
   token must not travel to an address the app did not register.
2. `POST <root>/sharing/oauth2/signin` (`oauth_state`, `username`, `password`) answers
   302 to the redirect address: `#access_token=…&expires_in=…&state=…` for `token`,
   `?code=…&state=…` for `code`. The out-of-band address
   (`urn:ietf:wg:oauth:2.0:oob`) lands on `<root>/sharing/oauth2/approval`, whose title
   is `SUCCESS code=…`. Wrong credentials show the sign-in page again with `messages`.
3. `POST <root>/sharing/rest/oauth2/token` exchanges a code (`authorization_code`) or a
   refresh token (`refresh_token`) for `access_token`, `expires_in`, `refresh_token`.

Both `sharing/oauth2/...` and `sharing/rest/oauth2/...` are served, as portals do.
Sign-in attempts, codes and refresh tokens live in memory: a restart ends them, as it
ends a browser's sign-in; the access tokens are service tokens like generateToken's.

Anyone may open a sign-in page, so what it keeps is bounded: sign-ins in progress and
codes not yet exchanged last ten minutes of real time (a state's clock may stand still)
and at most `MAX_PENDING` of each are kept, the oldest dropped first; `state` and
`redirect_uri` longer than 2,048 characters are refused; refresh tokens are kept up to
`MAX_REFRESH`, the oldest dropped first.

The portal's own addresses (where a redirect may carry a token without being
registered) are the service's configured origins, never the request's `Host` header,
which the client writes. `expiration` is refused outside the vendor's range: 1 to 20,160
minutes (two weeks) for an access token (`response_type=token`), 1 to 129,600 (90
days) for the refresh token of `response_type=code`, whose access tokens last at most
two weeks; -1 with `code` asks for the longest, as the vendor's Python client
(`arcgis`, `EsriOAuth2Auth`) sends it and `MaxTokenExpiration` reads -1 (sources:
developers.arcgis.com "REST authentication operations", the ArcGIS Maps SDKs'
`tokenExpirationInterval` and `refreshTokenExpirationInterval`).
"""

from __future__ import annotations

import html
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from orgctl_service.auth import MINUTE_MS, TOKEN_MINUTES_MAX, keep_token, token_now
from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError
from orgctl_service.signin import sign_in

OUT_OF_BAND = "urn:ietf:wg:oauth:2.0:oob"
# Apps every portal registers: the vendor's Python client and its web app.
REGISTERED_APPS = frozenset({"pythonapi", "arcgisonline"})
DEFAULT_MINUTES = 120
REFRESH_MINUTES_MAX = 129_600  # 90 days
PENDING_SECONDS = 600.0  # a sign-in page or a code is good for ten minutes
MAX_PENDING = 1_000
MAX_REFRESH = 10_000
MAX_KEPT_CHARS = 2_048  # of `state` and `redirect_uri`


@dataclass(frozen=True, slots=True)
class Page:
    """An answer of the sign-in flow: an HTML page, a redirect, or a JSON body."""

    status: int
    body: str
    media_type: str = "text/html"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Grant:
    portal_id: str
    client_id: str
    redirect_uri: str
    response_type: str
    state: str
    minutes: int
    started: float  # real time (seconds) the sign-in or the code began
    username: str = ""


@dataclass
class OAuthFlows:
    # The service's origins (`scheme://host:port`), the first one the one it names.
    origins: tuple[str, ...]
    pending: dict[str, Grant] = field(default_factory=dict)  # oauth_state -> sign-in
    codes: dict[str, Grant] = field(default_factory=dict)  # code -> signed-in grant
    refresh: dict[str, Grant] = field(default_factory=dict)  # refresh token -> grant
    clock: Callable[[], float] = time.monotonic
    max_pending: int = MAX_PENDING

    def answer(self, ctx: Ctx, step: str) -> Page:
        base = f"{self.origins[0]}/{ctx.portal['urlKey']}"
        self._forget_stale()
        if step == "authorize":
            return self.authorize(ctx)
        if step == "signin":
            return self.signin(ctx, base)
        if step == "approval":
            return _approval(ctx)
        if step == "token":
            return self.token(ctx)
        return _error_page(404, "Not found")

    def authorize(self, ctx: Ctx) -> Page:
        client_id = (ctx.params.text("client_id") or "").strip()
        if client_id not in REGISTERED_APPS:
            return _error_page(400, "Error: Invalid client_id")
        redirect_uri = (ctx.params.text("redirect_uri") or "").strip()
        if len(redirect_uri) > MAX_KEPT_CHARS or not self._registered_redirect(redirect_uri):
            return _error_page(400, "Error: Invalid redirect_uri")
        response_type = (ctx.params.text("response_type") or "").strip()
        if response_type not in ("token", "code"):
            return _error_page(400, "Error: Invalid response_type")
        state = ctx.params.text("state") or ""
        if len(state) > MAX_KEPT_CHARS:
            return _error_page(400, f"Error: Invalid state: longer than {MAX_KEPT_CHARS}")
        minutes = _minutes(ctx.params.text("expiration"), response_type)
        if isinstance(minutes, Page):
            return minutes
        oauth_state = secrets.token_urlsafe(24)
        grant = Grant(
            ctx.portal["id"], client_id, redirect_uri, response_type, state, minutes, self.clock()
        )
        _keep(self.pending, oauth_state, grant, self.max_pending)
        return _sign_in_page(ctx, {"oauth_state": oauth_state, "clientId": client_id})

    def signin(self, ctx: Ctx, base: str) -> Page:
        oauth_state = ctx.params.text("oauth_state") or ""
        grant = self.pending.get(oauth_state)
        if grant is None or grant.portal_id != ctx.portal["id"]:
            return _error_page(400, "Error: Invalid or expired oauth_state")
        username = ctx.params.text("username") or ""
        try:
            sign_in(ctx, username, ctx.params.text("password") or "")
        except ApiError as refused:  # a wrong password or a lock, said on the page
            info = {"oauth_state": oauth_state, "messages": refused.details}
            return _sign_in_page(ctx, info)
        del self.pending[oauth_state]
        grant.username = username
        if grant.response_type == "token":
            token, expires_in = _access_token(ctx, grant)
            fragment = {"access_token": token, "expires_in": expires_in, "username": username}
            fragment.update({"ssl": "true", "state": grant.state})
            return _redirect(_landing(grant.redirect_uri, base) + "#" + urlencode(fragment))
        code = secrets.token_urlsafe(24)
        grant.started = self.clock()
        _keep(self.codes, code, grant, self.max_pending)
        if grant.redirect_uri == OUT_OF_BAND:
            return _redirect(f"{base}/sharing/oauth2/approval?{urlencode({'code': code})}")
        query = urlencode({"code": code, "state": grant.state})
        return _redirect(f"{grant.redirect_uri}?{query}")

    def token(self, ctx: Ctx) -> Page:
        client_id = ctx.params.text("client_id") or ""
        kind = ctx.params.text("grant_type") or ""
        if kind == "authorization_code":
            grant = self.codes.pop(ctx.params.text("code") or "", None)
            if grant is None or grant.portal_id != ctx.portal["id"]:
                return _token_error("invalid_request", "Invalid or expired code")
            if client_id != grant.client_id or ctx.params.text("redirect_uri") not in (
                None,
                grant.redirect_uri,
            ):
                return _token_error("invalid_client_id", "Invalid client_id or redirect_uri")
            refresh = secrets.token_urlsafe(32)
            _keep(self.refresh, refresh, grant, MAX_REFRESH)
            token, expires_in = _access_token(ctx, grant)
            body = {"access_token": token, "expires_in": expires_in, "username": grant.username}
            body.update({"ssl": True, "refresh_token": refresh})
            return _json(body)
        if kind == "refresh_token":
            grant = self.refresh.get(ctx.params.text("refresh_token") or "")
            if grant is None or grant.portal_id != ctx.portal["id"] or client_id != grant.client_id:
                return _token_error("invalid_request", "Invalid refresh_token")
            token, expires_in = _access_token(ctx, grant)
            return _json(
                {"access_token": token, "expires_in": expires_in, "username": grant.username}
            )
        return _token_error("unsupported_grant_type", "Unsupported grant_type")

    def _forget_stale(self) -> None:
        """Drop sign-ins and codes past their ten minutes; each table is oldest first."""
        now = self.clock()
        for table in (self.pending, self.codes):
            while table:
                key, grant = next(iter(table.items()))
                if now - grant.started <= PENDING_SECONDS:
                    break
                del table[key]

    def _registered_redirect(self, uri: str) -> bool:
        """The out-of-band address, or an https address at one of the service's origins."""
        if uri == OUT_OF_BAND:
            return True
        given = urlsplit(uri)
        own = {urlsplit(origin).netloc.lower() for origin in self.origins}
        return given.scheme == "https" and given.netloc.lower() in own


def _keep(table: dict[str, Grant], key: str, grant: Grant, most: int) -> None:
    """Add `grant`, dropping the oldest entries beyond `most`."""
    table[key] = grant
    while len(table) > most:
        del table[next(iter(table))]


def oauth_step(segments: list[str]) -> str | None:
    """The flow step a path names (`<key>/sharing[/rest]/oauth2/<step>`), or None. An
    app's access check is a REST read (`portal_settings`), not a step of the flow."""
    rest = segments[1:]
    step = None
    if rest[:2] == ["sharing", "oauth2"] and len(rest) == 3:
        step = rest[2].lower()
    if rest[:3] == ["sharing", "rest", "oauth2"] and len(rest) == 4:
        step = rest[3].lower()
    return None if step in REST_READS else step


REST_READS = frozenset({"validateappaccess"})


def _landing(redirect_uri: str, base: str) -> str:
    return f"{base}/sharing/oauth2/approval" if redirect_uri == OUT_OF_BAND else redirect_uri


def _minutes(raw: str | None, response_type: str) -> int | Page:
    """The grant's `expiration` in minutes, or the error page for one out of range. A
    code grant's -1 asks for the longest refresh token the portal gives (the vendor's
    Python client sends it so)."""
    most = TOKEN_MINUTES_MAX if response_type == "token" else REFRESH_MINUTES_MAX
    if raw is None or not raw.strip():
        return min(DEFAULT_MINUTES, most)
    try:
        minutes = int(raw)
    except ValueError:
        minutes = 0
    if minutes == -1 and response_type == "code":
        return most
    if not 1 <= minutes <= most:
        return _error_page(400, f"Error: Invalid expiration: give minutes from 1 to {most}")
    return minutes


def _access_token(ctx: Ctx, grant: Grant) -> tuple[str, int]:
    minutes = min(grant.minutes, TOKEN_MINUTES_MAX)  # a code's expiration is its refresh's
    token = secrets.token_urlsafe(32)
    entry = {
        "portalId": grant.portal_id,
        "username": grant.username,
        "expires": token_now(ctx) + minutes * MINUTE_MS,
        "boundTo": "",  # an OAuth token is the app's, whatever address sends it
    }
    keep_token(ctx, token, entry)
    return token, minutes * 60


def _sign_in_page(ctx: Ctx, info: dict[str, Any]) -> Page:
    # The script comes first and on one line: clients find `oAuthInfo` as the first
    # brace-delimited JSON object of the page.
    shown = {"portalName": ctx.portal["name"], **info}
    script = json.dumps(shown, separators=(",", ":")).replace("</", "<\\/")
    title = html.escape(f"Sign in to {ctx.portal['name']}")
    body = (
        f"<!DOCTYPE html><html><head><script>var oAuthInfo = {script};</script>\n"
        f"<title>{title}</title></head><body><form method='post' action='signin'>"
        "<input name='username'><input name='password' type='password'>"
        f"<input type='hidden' name='oauth_state' value='{html.escape(info['oauth_state'])}'>"
        "</form></body></html>"
    )
    return Page(200, body)


def _approval(ctx: Ctx) -> Page:
    code = ctx.params.text("code") or ""
    if not code:
        return _error_page(400, "Error: Missing code")
    shown = html.escape(code)
    return Page(
        200, f"<!DOCTYPE html><html><head><title>SUCCESS code={shown}</title></head></html>"
    )


def _error_page(status: int, message: str) -> Page:
    shown = html.escape(message)
    return Page(
        status,
        f"<!DOCTYPE html><html><head><title>{shown}</title></head>"
        f"<body><p>{shown}</p></body></html>",
    )


def _redirect(location: str) -> Page:
    return Page(302, "", headers={"location": location})


def _json(body: dict[str, Any], status: int = 200) -> Page:
    return Page(status, json.dumps(body), "application/json")


def _token_error(error: str, message: str) -> Page:
    body = {"code": 400, "error": error, "error_description": message, "message": message}
    return _json({"error": {**body, "details": []}})
