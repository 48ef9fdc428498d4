"""The ASGI application: addressing (`/<urlKey>/sharing/rest/...`, `/<urlKey>/admin/...`,
`/_control/...`), request fields, formats (`f` = html | json | pjson) and envelopes.

Requests are served one at a time under a lock: each runs against the in-memory world
and writes what it changed to SQLite before answering, so parallel writers never lose
an update and an answered write is durable. The one slow step, raising a member's
password hash at their first sign-in (50 ms of scrypt), runs outside the lock in a
worker thread (`Service.raise_hash`).
"""

from __future__ import annotations

import asyncio
import email.policy
import html
import json
import logging
import secrets
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from email.parser import BytesParser
from email.utils import format_datetime
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from orgctl_service import control, routes
from orgctl_service.auth import caller_for
from orgctl_service.capabilities import check_read, check_write
from orgctl_service.clock import WallClock
from orgctl_service.context import Ctx
from orgctl_service.errors import ApiError, bad_request, not_found
from orgctl_service.lockout import LockoutPolicy, SignInGuard
from orgctl_service.oauth import OAuthFlows, oauth_step
from orgctl_service.params import Params
from orgctl_service.passwords import Rehash, hash_password
from orgctl_service.store import DISK_FULL, Store, StoreFull
from orgctl_service.world import World
from reconciler.operations import Root

# The roots that answer in the admin envelope (`status`, `messages`), by path segment.
ADMIN_ROOTS = {"admin": Root.ADMIN, "portaladmin": Root.PORTAL_ADMIN}
MAX_BODY_BYTES = 1_000_000
MAX_FIELDS = 1_000
# A request line longer than this is answered 414 (with the error envelope). The HTTP
# parser is given room well beyond it (`REQUEST_HEAD_BYTES`): h11's own limit of 16 KiB
# is checked only while a request is incomplete, so a long query string was served or
# refused by how the network cut it, and the refusal was a reset connection.
MAX_TARGET_BYTES = 64 * 1024
REQUEST_HEAD_BYTES = MAX_BODY_BYTES
FORMATS = ("html", "json", "pjson")
# The service's own origin when none is configured (in-process tests).
DEFAULT_ORIGIN = "http://localhost"
log = logging.getLogger("orgctl.serve")


@dataclass(frozen=True, slots=True)
class Reply:
    body: dict[str, Any] | list[Any]  # a list: the few reads the vendor answers with one
    fmt: str
    status: int = 200


class Service:
    def __init__(
        self,
        store: Store,
        world: World,
        control_secret: str,
        ticking: bool = False,
        lockout: LockoutPolicy | None = None,
        origins: tuple[str, ...] = (DEFAULT_ORIGIN,),
    ) -> None:
        self.store = store
        self.sign_ins = SignInGuard(lockout or LockoutPolicy())
        self.world = world
        self.control_secret = control_secret  # empty: no control paths
        self.lock = threading.Lock()
        self.wall = WallClock() if ticking else None
        self.oauth = OAuthFlows(origins)
        if self.wall is not None:
            world.clock = self.wall.start(world.clock)

    def tick(self) -> None:
        """Bring a wall-time clock up to now (called under the lock, before any work)."""
        if self.wall is not None:
            self.world.clock = self.wall.advance(self.world.clock)

    async def handle(self, request: Request) -> Response:
        segments = path_segments(request.scope.get("path", "/"))
        step = oauth_step(segments)
        if step is not None:
            response = await self.sign_in(request, segments, step)
        else:
            response = render(await self.answer(request))
        # The service states its own clock, as any HTTP server states its time: clients
        # judge ages (task runs, schedules) by the portal's clock.
        moment = datetime.fromtimestamp(self.world.clock / 1000, UTC)
        response.headers["date"] = format_datetime(moment, usegmt=True)
        return response

    async def sign_in(self, request: Request, segments: list[str], step: str) -> Response:
        """A step of the OAuth2 sign-in flow: pages and redirects, not REST envelopes."""
        try:
            fields = await read_fields(request)
        except ApiError as exc:
            return render(error_reply(exc, "json", False))
        portal = self.world.portal_by_key(segments[0])
        if portal is None:
            return render(Reply(envelope(not_found("No portal at this address")), "json", 404))
        with self.lock:
            self.tick()
            ctx = Ctx(self.world, portal, Params(fields), {}, sign_ins=self.sign_ins)
            ctx.client_ip = request.client.host if request.client else ""
            page = self.oauth.answer(ctx, step)
            if ctx.new_tokens or ctx.touched_parts:  # a token, or a sign-in's lastLogin
                try:
                    self.persist(ctx)
                except ApiError as exc:
                    return render(error_reply(exc, "json", False))
        await self.raise_hash(ctx.rehash)
        return Response(page.body, page.status, page.headers, page.media_type)

    async def answer(self, request: Request) -> Reply:
        segments = path_segments(request.scope.get("path", "/"))
        admin = len(segments) > 1 and segments[1] in ADMIN_ROOTS
        try:
            fields = await read_fields(request)
        except ApiError as exc:
            return error_reply(exc, "json", admin)
        fmt = (fields.get("f") or "html").strip().lower()
        if fmt not in FORMATS:
            return error_reply(
                bad_request(f"Invalid format '{fmt[:20]}': use html, json or pjson"), "json", admin
            )
        if segments and segments[0] == "_control":
            return self.control(request, segments[1:], fields, fmt)
        portal = self.world.portal_by_key(segments[0]) if segments else None
        if portal is None:
            return Reply(envelope(not_found("No portal at this address")), fmt, 404)
        if admin:
            root, rest = ADMIN_ROOTS[segments[1]], segments[2:]
        elif segments[1:3] == ["sharing", "rest"]:
            root, rest = Root.SHARING, segments[3:]
        else:
            return Reply(envelope(not_found("Resource not found")), fmt, 404)
        with self.lock:
            self.tick()
            ctx = Ctx(self.world, portal, Params(fields), {}, sign_ins=self.sign_ins)
            ctx.referer = request.headers.get("referer", "")
            ctx.client_ip = request.client.host if request.client else ""
            ctx.base_url = portal_base(request, segments[0])
            try:
                reply = Reply(self.dispatch(request, ctx, root, rest, fields), fmt)
            except ApiError as exc:
                return error_reply(exc, fmt, admin)
            except Exception:
                log.exception("unexpected failure serving %r", request.scope.get("path"))
                self.world = self.store.load()
                failure = ApiError(500, "GWM_0500", "Unexpected failure; nothing was changed")
                return error_reply(failure, fmt, admin)
        await self.raise_hash(ctx.rehash)
        return reply

    async def raise_hash(self, rehash: Rehash | None) -> None:
        """Store a member's password at the sign-in cost after their sign-in: hashed in a
        worker thread outside the lock, so the service answers others during the 50 ms,
        then kept if the member's hash is still the one it replaces. The answer waits for
        it, so a signed-in member's hash is raised once they hold their token. A write
        refused (a full disk) keeps the old hash, which the next sign-in raises."""
        if rehash is None:
            return
        raised = await asyncio.to_thread(hash_password, rehash.password)
        with self.lock:
            portal = self.world.portals.get(rehash.portal_id)
            user = None if portal is None else portal["users"].get(rehash.username)
            if portal is None or user is None or user["passwordHash"] != rehash.replaces:
                return
            user["passwordHash"] = raised
            ctx = Ctx(self.world, portal, Params({}), {})
            ctx.touch_member(rehash.username)
            try:
                self.persist(ctx)
            except ApiError:
                return
            who = (rehash.portal_id, rehash.username)
            self.sign_ins.remembered.keep(who, raised, rehash.password)

    def dispatch(
        self,
        request: Request,
        ctx: Ctx,
        root: Root,
        rest: list[str],
        fields: dict[str, str],
    ) -> routes.Answer:
        found = routes.find(root, rest)
        if found is None:
            raise not_found("Resource not found")
        route, ctx.args = found
        method = request.method.upper()
        if method not in ("GET", "HEAD", "POST"):
            raise ApiError(405, "GWM_0007", f"Method {method} not allowed")
        handler = route.post if method == "POST" else route.get
        if handler is None:
            raise ApiError(405, "GWM_0007", "This operation is a POST; GET is not allowed")
        if route.signed_in:
            ctx.caller = caller_for(ctx, bearer_token(request) or fields.get("token"))
        if method == "POST" and route.operation is not None:
            check_write(ctx, route.operation)
        elif route.signed_in and route.read is not None:
            check_read(ctx, route.read)
        result = handler(ctx)
        if method == "POST" and (route.changes_state or ctx.new_tokens or ctx.touched_parts):
            self.persist(ctx)
        return result

    def persist(self, ctx: Ctx) -> None:
        self.save(
            ctx.touched_portals, ctx.touched_collaborations, ctx.new_tokens, ctx.touched_parts
        )

    def save(self, *what: Any) -> None:
        """Store the world's changes (`Store.save`'s selection); a full disk refuses the
        request whole: the world returns to what is stored, the client gets the envelope."""
        try:
            self.store.save(self.world, *what)
        except StoreFull:
            log.warning("orgctl serve: %s: a write was refused, nothing of it kept", DISK_FULL)
            self.world = self.store.load()
            raise ApiError(
                500, "GWM_0501", f"The portal's {DISK_FULL}: nothing was changed"
            ) from None

    def control(
        self, request: Request, segments: list[str], fields: dict[str, str], fmt: str
    ) -> Reply:
        if not self.control_secret:
            return Reply(envelope(not_found("Resource not found")), fmt, 404)
        if request.method.upper() != "POST":
            return Reply(envelope(ApiError(405, "GWM_0007", "Control calls are POST")), fmt, 405)
        sent = request.headers.get("authorization", "")
        if not secrets.compare_digest(sent.encode(), f"Bearer {self.control_secret}".encode()):
            refused = ApiError(401, "GWM_0401", "Control calls need Authorization: Bearer <secret>")
            return Reply(envelope(refused), fmt, 401)
        with self.lock:
            self.tick()
            try:
                return Reply(self.control_call(segments, fields), fmt)
            except ApiError as exc:
                return Reply(envelope(exc), fmt, exc.code if exc.code >= 400 else 400)

    def control_call(self, segments: list[str], fields: dict[str, str]) -> dict[str, Any]:
        if segments == ["clock"]:
            ctx = Ctx(self.world, {"id": ""}, Params(fields), {})
            before = self.world.clock
            result = control.move_clock(ctx)
            self.sign_ins.skip(self.world.clock - before)
            self.save()
            return result
        failures = ["services", "webhooks", "failures"]
        if len(segments) == 5 and [*segments[1:3], segments[4]] == failures:
            portal = self.world.portal_by_key(segments[0])
            if portal is None:
                raise not_found(f"No portal '{segments[0]}'")
            ctx = Ctx(self.world, portal, Params(fields), {"webhookId": segments[3]})
            result = control.record_webhook_failures(ctx)
            self.persist(ctx)
            return result
        raise not_found("Resource not found")


def path_segments(path: str) -> list[str]:
    """The path's segments as sent (`request.url` would drop control characters, so a
    `%0A` segment could vanish). Empty segments are dropped, as the portal's web tier
    does: clients join a root ending in `/` with a path starting with one
    (`…/rest//portals/self/updateUserLevel`)."""
    return [part for part in path.split("/") if part]


def portal_base(request: Request, url_key: str) -> str:
    """The portal's address as the client reached it, for links the service hands out."""
    host = request.headers.get("host") or f"{request.url.hostname}:{request.url.port}"
    return f"{request.url.scheme}://{host}/{url_key}"


def bearer_token(request: Request) -> str | None:
    for header in ("x-esri-authorization", "authorization"):
        value = request.headers.get(header, "")
        scheme, _, token = value.strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    return None


async def read_fields(request: Request) -> dict[str, str]:
    """Query and form fields (form wins); refuses bad encodings, oversize addresses and
    oversize bodies."""
    query = request.scope.get("query_string", b"")
    target = len(request.scope.get("raw_path", b"")) + len(query) + 1
    if target > MAX_TARGET_BYTES:
        raise ApiError(414, "GWM_0008", f"Request URI exceeds {MAX_TARGET_BYTES} bytes")
    fields = _parse_pairs(query)
    if request.method.upper() != "POST":
        return fields
    declared = request.headers.get("content-length", "0")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise ApiError(413, "GWM_0008", f"Request body exceeds {MAX_BODY_BYTES} bytes")
    body = b""
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY_BYTES:
                raise ApiError(413, "GWM_0008", f"Request body exceeds {MAX_BODY_BYTES} bytes")
    except ClientDisconnect:
        # The client went away mid-body (fewer bytes than its Content-Length): a refused
        # request, not a failure of ours. The answer reaches no one if the socket is gone.
        raise bad_request("The request body ended before its Content-Length") from None
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind == "multipart/form-data":
        fields.update(multipart_fields(request.headers.get("content-type", ""), body))
    elif kind in ("", "application/x-www-form-urlencoded", "text/plain"):
        fields.update(_parse_pairs(body))
    return fields


def multipart_fields(content_type: str, body: bytes) -> dict[str, str]:
    """The parts of a multipart form as text fields; an uploaded file (the vendor client
    sends `invitationResponseFile` so) becomes a field holding the file's text."""
    message = BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body
    )
    if not message.is_multipart():
        raise bad_request("Malformed multipart form: no parts")
    fields: dict[str, str] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str) or not name:
            continue
        payload = part.get_payload(decode=True)
        raw = payload if isinstance(payload, bytes) else b""
        try:
            fields[name] = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise bad_request(f"Form part '{name[:40]}' must be UTF-8 text") from None
        if len(fields) > MAX_FIELDS:
            raise bad_request(f"More than {MAX_FIELDS} form fields")
    return fields


def _parse_pairs(raw: bytes) -> dict[str, str]:
    try:
        text = raw.decode("utf-8")
        pairs = parse_qsl(
            text,
            keep_blank_values=True,
            encoding="utf-8",
            errors="strict",
            max_num_fields=MAX_FIELDS,
        )
    except UnicodeDecodeError:
        raise bad_request("Request fields must be UTF-8 text") from None
    except ValueError as exc:
        raise bad_request(f"Malformed request fields: {exc}") from None
    return {key: value for key, value in pairs}


def envelope(error: ApiError) -> dict[str, Any]:
    return {
        "error": {
            "code": error.code,
            "messageCode": error.message_code,
            "message": error.message,
            "details": list(error.details),
        }
    }


def error_reply(error: ApiError, fmt: str, admin: bool) -> Reply:
    # Errors answer HTTP 200, as the Sharing API does, but for an address too long: the
    # web tier in front of a portal refuses that with 414 before the portal sees it.
    status = 414 if error.code == 414 else 200
    if admin:
        messages = [error.message, *error.details]
        return Reply({"status": "error", "messages": messages, "code": error.code}, fmt, status)
    return Reply(envelope(error), fmt, status)


def render(reply: Reply) -> Response:
    if reply.fmt == "pjson":
        text = json.dumps(reply.body, indent=2, ensure_ascii=False)
        return Response(text, reply.status, media_type="application/json")
    if reply.fmt == "json":
        text = json.dumps(reply.body, separators=(",", ":"), ensure_ascii=False)
        return Response(text, reply.status, media_type="application/json")
    shown = html.escape(json.dumps(reply.body, indent=2, ensure_ascii=False))
    page = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>orgctl service</title>"
        f"</head><body><pre>{shown}</pre></body></html>"
    )
    return Response(page, reply.status, media_type="text/html")


class ServiceApp:
    """The ASGI entry: every HTTP request goes to `Service.handle`, whatever its path
    holds (a router's patterns would let odd paths, such as an encoded newline, fall
    through to a plain-text 404)."""

    def __init__(self, service: Service) -> None:
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        response = await self.service.handle(Request(scope, receive))
        await response(scope, receive, send)


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def create_app(
    store: Store,
    world: World,
    control_secret: str = "",
    ticking: bool = False,
    lockout: LockoutPolicy | None = None,
    origins: tuple[str, ...] = (DEFAULT_ORIGIN,),
) -> ServiceApp:
    """The service's ASGI app; `control_secret` enables `/_control/...` for callers that
    send it as `Authorization: Bearer`, `origins` are where clients reach it."""
    return ServiceApp(Service(store, world, control_secret, ticking, lockout, origins))
