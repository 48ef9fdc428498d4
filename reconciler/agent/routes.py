"""The agent's endpoints. The refresh call and the Git push hook are off unless their
secret is set, and compare what they are given in constant time; no answer holds a
secret."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping

from prometheus_client import CONTENT_TYPE_LATEST

from reconciler.agent.http import Request, Response, plain
from reconciler.agent.metrics import Metrics
from reconciler.agent.page import status_page
from reconciler.agent.scheduler import Agent
from reconciler.settings import AGENT_REFRESH_SECRET, AGENT_WEBHOOK_SECRET, Settings

REFRESH_SECRET_ENV = AGENT_REFRESH_SECRET.name
WEBHOOK_SECRET_ENV = AGENT_WEBHOOK_SECRET.name


class Routes:
    def __init__(self, agent: Agent, metrics: Metrics, given: Settings) -> None:
        self.agent = agent
        self.metrics = metrics
        # Read once at start: a secret is never looked up per request nor shown.
        self._refresh_secret = given.agent_refresh_secret
        self._webhook_secret = given.agent_webhook_secret

    async def __call__(self, request: Request) -> Response:
        route = {
            ("GET", "/healthz"): self.healthz,
            ("GET", "/readyz"): self.readyz,
            ("GET", "/metrics"): self.metrics_text,
            ("GET", "/api/v1/portals"): self.portals,
            ("GET", "/"): self.page,
            ("POST", "/api/v1/refresh"): self.refresh,
            ("POST", "/hooks/git"): self.git_hook,
        }.get((request.method, request.path))
        if route is not None:
            return route(request)
        known = {"/healthz", "/readyz", "/metrics", "/api/v1/portals", "/", "/api/v1/refresh"}
        if request.path in known | {"/hooks/git"}:
            return plain(405, "method not allowed")
        return plain(404, "not found")

    def healthz(self, request: Request) -> Response:
        return plain(200, "ok")

    def readyz(self, request: Request) -> Response:
        if self.agent.ready:
            return plain(200, "ready")
        return plain(503, "not ready: the source or a portal was not reconciled yet")

    def metrics_text(self, request: Request) -> Response:
        return Response(200, self.metrics.text(), CONTENT_TYPE_LATEST)

    def portals(self, request: Request) -> Response:
        shown = [status.to_json() for status in self.agent.statuses.values()]
        return Response(200, json.dumps({"portals": shown}).encode(), "application/json")

    def page(self, request: Request) -> Response:
        html, policy = status_page(self.agent.statuses.values(), self.agent.revision)
        headers = {"Content-Security-Policy": policy, "Referrer-Policy": "no-referrer"}
        return Response(200, html.encode(), "text/html; charset=utf-8", headers)

    def refresh(self, request: Request) -> Response:
        if self._refresh_secret is None:
            return plain(404, f"off: set {REFRESH_SECRET_ENV} to turn it on")
        given = request.headers.get("authorization", "")
        expected = f"Bearer {self._refresh_secret}"
        if not hmac.compare_digest(given.encode(), expected.encode()):
            return plain(401, "a Bearer token is required")
        self.agent.refresh()
        return plain(202, "refreshing")

    def git_hook(self, request: Request) -> Response:
        if self._webhook_secret is None:
            return plain(404, f"off: set {WEBHOOK_SECRET_ENV} to turn it on")
        if not signed(self._webhook_secret, request.body, request.headers):
            return plain(401, "the X-Hub-Signature-256 signature does not match")
        self.agent.refresh()
        return plain(202, "refreshing")


def signed(secret: str, body: bytes, headers: Mapping[str, str]) -> bool:
    """GitHub's signature: `sha256=` and the hex HMAC-SHA256 of the body with the secret."""
    given = headers.get("x-hub-signature-256", "")
    digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(given.encode(), f"sha256={digest}".encode())
