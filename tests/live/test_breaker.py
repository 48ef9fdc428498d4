"""The client's circuit breaker (README: a portal that stops answering): a streak of tries
without an answer across requests, or a token refused for good, stops every request of
the client at once; one request's own retries are still told line by line."""

from __future__ import annotations

import asyncio
from typing import Any

from reconciler.live.breaker import Breaker, PortalStopped
from reconciler.live.client import PortalClient
from reconciler.live.errors import AuthError, ConnectionFailure, PortalError
from reconciler.live.retry import RetryPolicy
from reconciler.state import Auth
from tests.live.fakes import ENV, FakePortal, NoSleep, make_client, path
from tests.live.test_network import closed_port


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def refused() -> ConnectionFailure:
    return ConnectionFailure("http://127.0.0.1:9", "connection refused", "nothing listens")


def test_it_opens_on_a_streak_that_lasts_not_on_a_blip() -> None:
    clock = Clock()
    breaker = Breaker(streak=3, span=1.0, clock=clock)
    breaker.answered()  # it answered earlier in the run
    for _ in range(5):  # five failures in the same instant: a blip, retried
        breaker.no_answer(refused(), "http://portal")
    breaker.check()
    clock.now = 1.5
    breaker.no_answer(refused(), "http://portal")
    assert breaker.reason == "the portal at http://portal stopped answering"
    stopped = breaker.stopped()
    assert stopped is not None and "6 tries in a row over 1.5s" in stopped
    assert "connection refused" in stopped


def test_a_portal_that_never_answered_is_unreachable_not_stopped() -> None:
    clock = Clock()
    breaker = Breaker(streak=2, span=1.0, clock=clock)
    breaker.no_answer(refused(), "http://portal")
    clock.now = 2.0
    breaker.no_answer(refused(), "http://portal")
    assert breaker.reason == "the portal at http://portal is unreachable"


def test_an_answer_breaks_the_streak() -> None:
    clock = Clock()
    breaker = Breaker(streak=2, span=1.0, clock=clock)
    breaker.no_answer(refused(), "http://portal")
    clock.now = 2.0
    breaker.answered()
    breaker.no_answer(refused(), "http://portal")
    breaker.check()  # one failure since the answer: still closed


def test_one_request_tells_each_retry_others_wait_their_turn() -> None:
    clock = Clock()
    breaker = Breaker(clock=clock)
    first, second = object(), object()
    assert breaker.quiet(first) is False  # no streak: always told
    breaker.no_answer(refused(), "http://portal")
    assert breaker.quiet(first) is False
    assert breaker.quiet(second) is True
    assert breaker.quiet(first) is False  # its own next try
    clock.now = 6.0
    assert breaker.quiet(second) is False  # a while later, another may tell


def dead_client(breaker: Breaker, notices: list[str]) -> PortalClient:
    client = PortalClient(
        f"http://127.0.0.1:{closed_port()}/hq/sharing/rest",
        env=ENV,
        retry=RetryPolicy(attempts=4, sleep=NoSleep()),
        retry_notice=notices.append,
    )
    client.breaker = breaker
    return client


def test_requests_to_a_dead_portal_stop_once_it_opens() -> None:
    notices: list[str] = []
    client = dead_client(Breaker(streak=8, span=0.0), notices)

    async def many() -> list[Any]:
        async with client:
            reads = [client.get_json("portals/self") for _ in range(16)]
            return list(await asyncio.gather(*reads, return_exceptions=True))

    errors = asyncio.run(many())
    assert all(isinstance(e, PortalError) for e in errors), errors
    assert any(isinstance(e, PortalStopped) for e in errors)
    assert client.requests <= 16 + 8  # not 16 requests x 4 tries
    assert len(notices) <= 4, notices


def test_a_fixed_token_refused_stops_every_later_request() -> None:
    fake = FakePortal()
    fake.route(path("portals/self"), {"error": {"code": 498, "message": "Invalid token."}})
    client = make_client(fake, auth=Auth(tokenEnv="ORG_TOKEN"))

    async def twice() -> tuple[Any, Any]:
        async with client:
            first, second = [
                await asyncio.gather(client.get_json("portals/self"), return_exceptions=True)
                for _ in range(2)
            ]
            return first[0], second[0]

    first, second = asyncio.run(twice())
    assert isinstance(first, AuthError) and first.code == 498
    assert isinstance(second, PortalStopped) and not second.maybe_processed
    assert "refused the credentials, and they cannot be renewed" in str(second)
    assert len(fake.seen) == 1  # the second request was never sent
