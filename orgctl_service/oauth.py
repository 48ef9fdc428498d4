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
"""

from __future__ import annotations

import html
import json
import secrets
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
PENDING_MS = 10 * MINUTE_MS  # a sign-in page or a code is good for ten minutes


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
    issued: int
    username: str = ""


@dataclass
class OAuthFlows:
    pending: dict[str, Grant] = field(default_factory=dict)  # oauth_state -> sign-in
    codes: dict[str, Grant] = field(default_factory=dict)  # code -> signed-in grant
    refresh: dict[str, Grant] = field(default_factory=dict)  # refresh token -> grant

    def answer(self, ctx: Ctx, step: str, base: str) -> Page:
        """`base` is the portal's address as the client reached it (`https://h:p/<key>`)."""
        self._forget_stale(ctx.now)
        if step == "authorize":
            return self.authorize(ctx, base)
        if step == "signin":
            return self.signin(ctx, base)
        if step == "approval":
            return _approval(ctx)
        if step == "token":
            return self.token(ctx)
        return _error_page(404, "Not found")

    def authorize(self, ctx: Ctx, base: str) -> Page:
        client_id = (ctx.params.text("client_id") or "").strip()
        if client_id not in REGISTERED_APPS:
            return _error_page(400, "Error: Invalid client_id")
        redirect_uri = (ctx.params.text("redirect_uri") or "").strip()
        if not _registered_redirect(redirect_uri, base):
            return _error_page(400, "Error: Invalid redirect_uri")
        response_type = (ctx.params.text("response_type") or "").strip()
        if response_type not in ("token", "code"):
            return _error_page(400, "Error: Invalid response_type")
        oauth_state = secrets.token_urlsafe(24)
        self.pending[oauth_state] = Grant(
            ctx.portal["id"],
            client_id,
            redirect_uri,
            response_type,
            ctx.params.text("state") or "",
            _minutes(ctx.params.text("expiration")),
            ctx.now,
        )
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
        grant.issued = ctx.now
        self.codes[code] = grant
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
            self.refresh[refresh] = grant
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

    def _forget_stale(self, now: int) -> None:
        for table in (self.pending, self.codes):
            for key in [k for k, g in table.items() if now - g.issued > PENDING_MS]:
                del table[key]


def oauth_step(segments: list[str]) -> str | None:
    """The flow step a path names (`<key>/sharing[/rest]/oauth2/<step>`), or None."""
    rest = segments[1:]
    if rest[:2] == ["sharing", "oauth2"] and len(rest) == 3:
        return rest[2].lower()
    if rest[:3] == ["sharing", "rest", "oauth2"] and len(rest) == 4:
        return rest[3].lower()
    return None


def _registered_redirect(uri: str, base: str) -> bool:
    """The out-of-band address, or an address on the portal's own site."""
    if uri == OUT_OF_BAND:
        return True
    given, own = urlsplit(uri), urlsplit(base)
    return given.scheme == "https" and given.netloc.lower() == own.netloc.lower()


def _landing(redirect_uri: str, base: str) -> str:
    return f"{base}/sharing/oauth2/approval" if redirect_uri == OUT_OF_BAND else redirect_uri


def _minutes(raw: str | None) -> int:
    try:
        minutes = int(raw) if raw is not None and raw.strip() else DEFAULT_MINUTES
    except ValueError:
        minutes = DEFAULT_MINUTES
    return TOKEN_MINUTES_MAX if minutes < 1 else min(minutes, TOKEN_MINUTES_MAX)


def _access_token(ctx: Ctx, grant: Grant) -> tuple[str, int]:
    token = secrets.token_urlsafe(32)
    entry = {
        "portalId": grant.portal_id,
        "username": grant.username,
        "expires": token_now(ctx) + grant.minutes * MINUTE_MS,
        "boundTo": "",  # an OAuth token is the app's, whatever address sends it
    }
    keep_token(ctx, token, entry)
    return token, grant.minutes * 60


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
