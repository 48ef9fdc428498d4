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
from collections import Counter
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import NamedTuple
from urllib.parse import quote, quote_plus

import httpx

from .forwarding import DROP, FORWARD, Action, ForwardingServer, Reply, Request, whole


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


class ChaosProxy(ForwardingServer):
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
        super().__init__(upstream.rstrip("/"), timeout=60)
        self.rates = dict(rates)
        self.seed = seed
        self.retry_after = retry_after
        self.faulted: list[Injected] = []
        self.requests = 0
        self.forwarded = 0
        self._seen: Counter[str] = Counter()

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
        digest = hashlib.sha256(self._without_addresses(body)).hexdigest()
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

    def _without_addresses(self, body: bytes) -> bytes:
        """The body with the proxy's and the service's addresses taken out: a sign-in sends
        the portal's address as its referer, and both listen on a free port that changes
        every run, so the seed alone decides which requests fail (a sign-in faulted four
        times in a row in one run of twenty and not in the next)."""
        for address in (self.url, self.upstream or ""):
            if address:
                for spelled in (address, quote_plus(address), quote(address, safe="")):
                    body = body.replace(spelled.encode(), b"<address>")
        return body

    def record(self, fault: Fault, status: int, method: str, target: str) -> None:
        with self._lock:
            self.faulted.append(Injected(fault, status, method, target.split("?", 1)[0]))

    def forward(self, request: Request) -> httpx.Response:
        with self._lock:
            self.forwarded += 1
        return super().forward(request)

    def decide(self, request: Request) -> Action:
        fault, rng = self.draw(request.method, request.target, request.body)
        if fault is None:
            return FORWARD
        if fault is Fault.DROP_AFTER:
            self.forward(request)
        action = self._inject(fault, rng)
        status = action.status if isinstance(action, Reply) else 0
        self.record(fault, status, request.method, request.target)
        return action

    def _inject(self, fault: Fault, rng: random.Random) -> Action:
        """What answers (or drops) in the service's place."""
        if fault in (Fault.DROP_BEFORE, Fault.DROP_AFTER):
            return DROP
        if fault is Fault.HTML_5XX:
            status = rng.choice(sorted(_GATEWAY_PAGES))
            return whole(status, {"Content-Type": "text/html"}, gateway_page(status))
        if fault is Fault.THROTTLED:
            headers = {"Retry-After": f"{self.retry_after:g}"}
            return whole(429, headers, b"Too Many Requests")
        status = 200 if fault is Fault.JSON_5XX_200 else 500
        return whole(status, {"Content-Type": "application/json"}, error_envelope())
