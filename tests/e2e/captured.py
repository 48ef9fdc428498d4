"""A loopback portal that answers with what real organizations answered (the captured
files of tests/fixtures/real_portals) and with empty listings elsewhere, so orgctl's
reader can be driven against real shapes without a real portal. It records every path
asked, and answers any path it does not know with the Sharing API's 404 envelope."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real_portals"
ROOT = "/sharing/rest/"
# The listings a portal without collaborations, custom roles or webhooks answers empty.
EMPTY_LISTINGS = {
    "roles": "roles",
    "collaborations": "collaborations",
    "webhooks": "webhooks",
}


def captured(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


# Captured user searches whose members the listing answers: REST JS's 12 members (no
# user types) and Hub.js's 2 administrators (with `userLicenseTypeId`).
MEMBERS = {
    "rest-js": lambda: captured("rest-js-user-search.json")["UserSearchResponse"]["results"],
    "hub-js": lambda: captured("hub-js-portal-users-search.json")["results"],
}


class CapturedPortal:
    """`portals/self` (REST JS's captured organization) and a member listing made of the
    members of a captured user search."""

    def __init__(self, members: str = "rest-js") -> None:
        self.portal = captured("rest-js-portal-response.json")["PortalResponse"]
        self.members = MEMBERS[members]()
        self.asked: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.answer(self)

            do_POST = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/sharing/rest"

    def __enter__(self) -> CapturedPortal:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, request: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(request.path)
        path = parts.path.split(ROOT, 1)[-1].strip("/")
        self.asked.append(path)
        fields = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        body = self.body(path.split("/"), fields)
        data = json.dumps(body).encode()
        request.send_response(200)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        request.wfile.write(data)

    def body(self, segments: list[str], fields: dict[str, str]) -> Any:
        own = segments[:2] in (["portals", "self"], ["portals", self.portal["id"]])
        if own and len(segments) == 2:
            return self.portal
        if own and len(segments) == 3 and segments[2] == "users":
            return listing(self.members, "users", fields)
        if own and len(segments) == 3 and segments[2] in EMPTY_LISTINGS:
            return listing([], EMPTY_LISTINGS[segments[2]], fields)
        return {"error": {"code": 404, "message": "Resource not found", "details": []}}


def listing(rows: list[Any], key: str, fields: dict[str, str]) -> dict[str, Any]:
    """One page of `rows` as the Sharing API pages a listing."""
    start = int(fields.get("start") or 1)
    num = int(fields.get("num") or 10)
    chunk = rows[start - 1 : start - 1 + num]
    after = start + len(chunk)
    next_start = after if after <= len(rows) else -1
    return {
        "total": len(rows),
        "start": start,
        "num": len(chunk),
        "nextStart": next_start,
        key: chunk,
    }
