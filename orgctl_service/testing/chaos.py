"""A loopback HTTP proxy in front of `orgctl serve` that injects random faults, with a seed.

Each request draws at most one fault, with the rates given per kind; what a gateway, a
busy portal or a flaky network does to a real deployment:

- `HTML_5XX`: a web adaptor's or load balancer's HTML page with 500, 502 or 503;
- `JSON_5XX_200` / `JSON_5XX_500`: the portal's error envelope `{"error": {"code": 500}}`,
  in an HTTP 200 as the real portal answers it, and in an HTTP 500;
- `THROTTLED`: 429 with a small `Retry-After`;
- `DROP_BEFORE`: the connection closed before forwarding (the service never saw it);
- `DROP_AFTER`: forwarded, the service acted, and the connection closed with no reply.

The answers and the first drop replace the service's answer, so the service never acts on
those requests; only `DROP_AFTER` leaves a change behind without telling the client.

The draw for a request depends on the seed, the request (method, path and query, body)
and how many times that same request was seen before, not on arrival order: concurrent
requests get the same faults from run to run as long as they are the same requests (ids
the service makes up, such as a new role's, vary and with them their requests' draws).
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from enum import StrEnum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import NamedTuple

import httpx


class Fault(StrEnum):
    HTML_5XX = "html-5xx"
    JSON_5XX_200 = "json-5xx-200"
    JSON_5XX_500 = "json-5xx-500"
    THROTTLED = "429"
    DROP_BEFORE = "drop-before"
    DROP_AFTER = "drop-after"


class Injected(NamedTuple):
    """One fault as injected: its kind, the HTTP status answered (0: none, the connection
    was closed) and the request's method and path."""

    fault: Fault
    status: int
    method: str
    path: str

    def __str__(self) -> str:
        return f"{self.fault} {self.status or '-'} {self.method} {self.path}"


# Groups a rate is spread over (`spread`): what the benchmark and tests name a "kind".
HTML_5XX: tuple[Fault, ...] = (Fault.HTML_5XX,)
JSON_5XX: tuple[Fault, ...] = (Fault.JSON_5XX_200, Fault.JSON_5XX_500)
MIXED: tuple[Fault, ...] = tuple(Fault)

# Hop-by-hop headers, and those httpx recomputes, are not copied across.
_SKIPPED = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}

_GATEWAY_PAGES = {
    500: "500 - Internal server error.",
    502: "502 - Web server received an invalid response while acting as a gateway or proxy.",
    503: "503 - Service Unavailable",
}


def spread(faults: Iterable[Fault], rate: float) -> dict[Fault, float]:
    """`rate` (0..1, the chance a request is faulted) split evenly over `faults`."""
    chosen = tuple(faults)
    return {fault: rate / len(chosen) for fault in chosen}


def gateway_page(status: int) -> bytes:
    """An IIS-style error page, as a web adaptor in front of the portal answers."""
    title = _GATEWAY_PAGES[status]
    return (
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN">\n'
        f"<html><head><title>{title}</title></head>\n"
        f'<body><div id="header"><h1>Server Error</h1></div>\n'
        f'<div id="content"><fieldset><h2>{title}</h2>\n'
        "<h3>There is a problem with the resource you are looking for, and it cannot be"
        " displayed.</h3></fieldset></div></body></html>\n"
    ).encode()


def error_envelope() -> bytes:
    return json.dumps(
        {"error": {"code": 500, "message": "Unable to complete operation.", "details": []}}
    ).encode()


class ChaosProxy:
    """Use as `with ChaosProxy(service_url, spread(JSON_5XX, 0.2), seed=1) as proxy`; point
    orgctl at `proxy.url` in place of the service's root. `injected` counts each fault
    and `faulted` lists them as injected, `requests` counts every request received,
    `forwarded` those that reached the service."""

    def __init__(
        self,
        upstream: str,
        rates: Mapping[Fault, float],
        seed: int,
        retry_after: float = 1.0,
    ) -> None:
        if sum(rates.values()) > 1:
            raise ValueError(f"fault rates add up to more than 1: {dict(rates)}")
        self.upstream = upstream.rstrip("/")
        self.rates = dict(rates)
        self.seed = seed
        self.retry_after = retry_after
        self.faulted: list[Injected] = []
        self.requests = 0
        self.forwarded = 0
        self._seen: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._http = httpx.Client(timeout=60)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> ChaosProxy:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._http.close()

    @property
    def injected(self) -> Counter[Fault]:
        with self._lock:
            return Counter(injected.fault for injected in self.faulted)

    def reset_counts(self) -> None:
        with self._lock:
            self.faulted.clear()
            self.requests = 0
            self.forwarded = 0

    def draw(self, method: str, target: str, body: bytes) -> tuple[Fault | None, random.Random]:
        """The fault for this request (None: forward it) and the generator for its details."""
        digest = hashlib.sha256(body).hexdigest()
        request = f"{method} {target} {digest}"
        with self._lock:
            self.requests += 1
            self._seen[request] += 1
            rng = random.Random(f"{self.seed}|{request}|{self._seen[request]}")
        roll = rng.random()
        for fault, rate in self.rates.items():
            if roll < rate:
                return fault, rng
            roll -= rate
        return None, rng

    def record(self, fault: Fault, status: int, method: str, target: str) -> None:
        with self._lock:
            self.faulted.append(Injected(fault, status, method, target.split("?", 1)[0]))

    def forward(
        self, method: str, target: str, body: bytes, headers: dict[str, str]
    ) -> httpx.Response:
        with self._lock:
            self.forwarded += 1
        return self._http.request(method, self.upstream + target, content=body, headers=headers)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet: the counters tell what happened

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                fault, rng = proxy.draw(self.command, self.path, body)
                if fault is not None and fault is not Fault.DROP_AFTER:
                    self._inject(fault, rng)
                    return
                sent = {k: v for k, v in self.headers.items() if k.lower() not in _SKIPPED}
                reply = proxy.forward(self.command, self.path, body, sent)
                if fault is Fault.DROP_AFTER:
                    proxy.record(fault, 0, self.command, self.path)
                    self.close_connection = True
                    return
                kept = {
                    name: value
                    for name, value in reply.headers.items()
                    if name.lower() not in _SKIPPED | {"content-encoding"}
                }
                self._reply(reply.status_code, kept, reply.content)

            def _inject(self, fault: Fault, rng: random.Random) -> None:
                """Answer (or drop) in the service's place: it never sees the request."""
                if fault is Fault.DROP_BEFORE:
                    status = 0
                    self.close_connection = True
                elif fault is Fault.HTML_5XX:
                    status = rng.choice(sorted(_GATEWAY_PAGES))
                    self._reply(status, {"Content-Type": "text/html"}, gateway_page(status))
                elif fault is Fault.THROTTLED:
                    status = 429
                    headers = {"Retry-After": f"{proxy.retry_after:g}"}
                    self._reply(status, headers, b"Too Many Requests")
                else:
                    status = 200 if fault is Fault.JSON_5XX_200 else 500
                    json_type = {"Content-Type": "application/json"}
                    self._reply(status, json_type, error_envelope())
                proxy.record(fault, status, self.command, self.path)

            def _reply(self, status: int, headers: dict[str, str], content: bytes) -> None:
                # send_response_only: no Date of our own; the service's Date states its clock.
                self.send_response_only(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = _handle
            do_POST = _handle

        return Handler
