"""A small fake portal behind `httpx.MockTransport`: routes by path, records requests.

It behaves like the service contract where the tests need it: `f=json` answers, error
envelopes with HTTP 200, paging with `start`/`num`/`total`/`nextStart`, and
`generateToken`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

import httpx

from reconciler.live.client import PortalClient
from reconciler.live.retry import RetryPolicy
from reconciler.state import Auth

ROOT = "https://portal.example.com/portal/sharing/rest"
ADMIN = "https://portal.example.com/portal/admin"
TOKEN = "tok-SECRET-4242"
PASSWORD = "pw-SECRET-9999"
ENV = {"ORG_USER": "admin", "ORG_PASS": PASSWORD, "ORG_TOKEN": TOKEN}
LOGIN = Auth(usernameEnv="ORG_USER", passwordEnv="ORG_PASS")

Handler = Callable[[httpx.Request, dict[str, str]], "httpx.Response | dict[str, Any]"]


@dataclass
class Seen:
    method: str
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    url: str


@dataclass
class FakePortal:
    routes: dict[str, Handler] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    tokens_issued: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    yields: int = 1  # how often a request yields to others while "in flight"

    def route(self, path: str, handler: Handler | dict[str, Any]) -> None:
        if isinstance(handler, dict):
            body = handler
            self.routes[path] = lambda request, params: body
        else:
            self.routes[path] = handler

    def paged(
        self,
        path: str,
        key: str,
        items: list[dict[str, Any]],
        *,
        total: bool = True,
        cap: int = 100,
    ) -> None:
        def page(request: httpx.Request, params: dict[str, str]) -> dict[str, Any]:
            start, num = int(params.get("start", 1)), min(cap, int(params.get("num", 10)))
            chunk = items[start - 1 : start - 1 + num]
            end = start - 1 + len(chunk)
            body: dict[str, Any] = {key: chunk, "start": start, "num": num}
            body["nextStart"] = end + 1 if end < len(items) else -1
            if total:
                body["total"] = len(items)
            return body

        self.routes[path] = page

    def paths(self) -> list[str]:
        return [s.path for s in self.seen]

    async def handle(self, request: httpx.Request) -> httpx.Response:
        params = dict(request.url.params)
        if request.method == "POST":
            params.update(parse_qsl(request.content.decode()))
        path = request.url.path
        self.seen.append(
            Seen(request.method, path, params, dict(request.headers), str(request.url))
        )
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            for _ in range(self.yields):
                await asyncio.sleep(0)  # let concurrent requests overlap
            handler = self.routes.get(path)
            if handler is None and path.endswith("/generateToken"):
                return self._token(params)
            if handler is None:
                return httpx.Response(200, json={"error": {"code": 404, "message": "no " + path}})
            answer = handler(request, params)
            return (
                answer if isinstance(answer, httpx.Response) else httpx.Response(200, json=answer)
            )
        finally:
            self.in_flight -= 1

    def _token(self, params: dict[str, str]) -> httpx.Response:
        if params.get("password") != PASSWORD:
            return httpx.Response(
                200, json={"error": {"code": 400, "message": "Invalid username or password."}}
            )
        self.tokens_issued += 1
        token = f"{TOKEN}-{self.tokens_issued}"
        return httpx.Response(200, json={"token": token, "expires": 0, "ssl": True})

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)


class NoSleep:
    """An injected sleep that records the waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def make_client(
    fake: FakePortal,
    *,
    auth: Auth | None = LOGIN,
    root: str = ROOT,
    sleep: NoSleep | None = None,
    attempts: int = 4,
    concurrency: int = 8,
) -> PortalClient:
    return PortalClient(
        root,
        auth=auth,
        admin_root=ADMIN,
        env=ENV,
        transport=fake.transport(),
        retry=RetryPolicy(attempts=attempts, sleep=sleep or NoSleep()),
        concurrency=concurrency,
    )


def path(suffix: str) -> str:
    return "/portal/sharing/rest/" + suffix


def admin_path(suffix: str) -> str:
    return "/portal/admin/" + suffix
