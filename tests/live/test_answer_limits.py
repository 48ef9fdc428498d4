"""What one answer may cost (live/limits.py): a total deadline per request, a size limit
on the body as it streams in, a depth limit on its JSON; each failure one line naming the
URL and the limit, never retried. And a redirect names where it points."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import click
import httpx
import pytest
from click.testing import CliRunner

from reconciler.cli.options import portal_limits, settings
from reconciler.errors import UserError
from reconciler.live.client import PortalClient
from reconciler.live.errors import AmbiguousRequestError, LimitExceeded, PortalError
from reconciler.live.limits import MIB, Limits, flag_given
from reconciler.live.retry import RetryPolicy
from reconciler.settings import Settings
from tests.live.fakes import ENV, LOGIN, ROOT, FakePortal, NoSleep, path


class Stream(httpx.AsyncByteStream):
    """A body sent as `chunks`, `pause` seconds apart; counts what was pulled."""

    def __init__(self, chunks: Any, pause: float = 0.0) -> None:
        self.chunks = chunks
        self.pause = pause
        self.sent = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            if self.pause:
                await asyncio.sleep(self.pause)
            self.sent += len(chunk)
            yield chunk


def endless(chunk: bytes) -> Any:
    while True:
        yield chunk


def client(fake: FakePortal, limits: Limits) -> PortalClient:
    return PortalClient(
        ROOT,
        auth=LOGIN,
        env=ENV,
        transport=fake.transport(),
        retry=RetryPolicy(attempts=4, sleep=NoSleep()),
        limits=limits,
    )


def get(fake: FakePortal, limits: Limits, where: str = "portals/self") -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        async with client(fake, limits) as c:
            return await c.get_json(where)

    return asyncio.run(run())


def answering(fake: FakePortal, where: str, response: httpx.Response) -> None:
    fake.route(path(where), lambda request, params: response)


def test_a_trickling_answer_ends_at_the_request_deadline_without_retries() -> None:
    """One byte every 50 ms never trips a per-read timeout; before, it went on forever."""
    fake = FakePortal()
    trickle = Stream(endless(b" "), pause=0.05)
    answering(fake, "portals/self", httpx.Response(200, stream=trickle))
    began = time.monotonic()
    with pytest.raises(LimitExceeded) as caught:
        get(fake, Limits(request_seconds=0.5))
    assert time.monotonic() - began < 5
    message = str(caught.value)
    assert message == (
        f"portal at {ROOT}/portals/self did not finish its answer within the request deadline"
        " of 0.5 s (--request-timeout or ORGCTL_REQUEST_TIMEOUT)"
    )
    assert [s.path for s in fake.seen].count(path("portals/self")) == 1  # not retried


def test_an_endless_body_is_cut_at_the_size_limit() -> None:
    fake = FakePortal()
    body = Stream(endless(b"x" * 65536))
    answering(fake, "portals/self", httpx.Response(200, stream=body))
    with pytest.raises(
        LimitExceeded,
        match=r"portals/self answered more than the answer size"
        r" limit of 1 MiB \(--max-answer-size or ORGCTL_MAX_ANSWER_SIZE\)",
    ):
        get(fake, Limits(answer_bytes=MIB))
    assert body.sent <= MIB + 65536 * 2  # stopped at the limit, not read to the end


def test_a_declared_length_over_the_limit_is_refused_before_the_body() -> None:
    fake = FakePortal()
    body = Stream([b"{}"])
    headers = {"content-length": str(100 * MIB)}
    answering(fake, "portals/self", httpx.Response(200, headers=headers, stream=body))
    with pytest.raises(LimitExceeded, match="it declares 104,857,600 bytes"):
        get(fake, Limits(answer_bytes=MIB))
    assert body.sent == 0


def test_json_nested_past_the_depth_limit_is_one_line_not_a_recursion_error() -> None:
    fake = FakePortal()
    deep = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    answering(fake, "portals/self", httpx.Response(200, content=deep))
    with pytest.raises(
        LimitExceeded, match=r"nested deeper than the depth limit of 64 \(--max-json"
    ):
        get(fake, Limits())


def test_an_answer_within_every_limit_is_read_as_before() -> None:
    fake = FakePortal()
    nested: Any = {"id": "p1"}
    for _ in range(10):
        nested = {"inner": [nested]}
    answering(fake, "portals/self", httpx.Response(200, content=json.dumps(nested).encode()))
    assert "inner" in get(fake, Limits(json_depth=21, answer_bytes=4096))


def test_a_redirect_names_its_location() -> None:
    fake = FakePortal()
    moved = httpx.Response(302, headers={"location": "/webadaptor/home/signin.html?x=1"})
    answering(fake, "portals/self", moved)
    with pytest.raises(PortalError) as caught:
        get(fake, Limits())
    assert str(caught.value).startswith(
        f"portal at {ROOT}/portals/self answered HTTP 302, a redirect to"
        " https://portal.example.com/webadaptor/home/signin.html; orgctl does not follow"
    )


@pytest.mark.parametrize(
    ("variable", "value", "field", "expected"),
    [
        ("ORGCTL_REQUEST_TIMEOUT", "2m", "request_seconds", 120.0),
        ("ORGCTL_REQUEST_TIMEOUT", "1.5", "request_seconds", 1.5),
        ("ORGCTL_MAX_ANSWER_SIZE", "500KB", "answer_bytes", 500_000),
        ("ORGCTL_MAX_ANSWER_SIZE", "2MiB", "answer_bytes", 2 * MIB),
        ("ORGCTL_MAX_JSON_DEPTH", "8", "json_depth", 8),
        ("ORGCTL_MAX_PAGES", "20000", "pages", 20_000),
    ],
)
def test_each_limit_is_read_from_its_variable(
    variable: str, value: str, field: str, expected: float
) -> None:
    limits = Limits.from_env({variable: value})
    assert getattr(limits, field) == expected
    assert limits.pages == Limits().pages or field == "pages"


def test_a_bad_value_names_its_source() -> None:
    assert Limits.from_env({"ORGCTL_MAX_PAGES": "9"}).pages == 9
    with pytest.raises(UserError, match="ORGCTL_MAX_ANSWER_SIZE: '12 parsecs' is not a size"):
        Limits.from_env({"ORGCTL_MAX_ANSWER_SIZE": "12 parsecs"})
    with pytest.raises(UserError, match="ORGCTL_REQUEST_TIMEOUT: must be more than 0"):
        Limits.from_env({"ORGCTL_REQUEST_TIMEOUT": "0"})
    with pytest.raises(UserError, match="--max-pages: "):
        flag_given("pages", "many")


def test_a_flag_wins_over_its_variable_for_its_own_command_line_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The flag is part of that command line's settings: a later call in the same process
    (the Python API, another command) reads the limits its own variables set."""
    monkeypatch.setenv("ORGCTL_MAX_PAGES", "9")
    seen: list[Settings] = []

    @click.command()
    @portal_limits
    def probe() -> None:
        seen.append(settings())

    assert CliRunner().invoke(probe, ["--max-pages", "7"]).exit_code == 0
    assert Limits.from_env(seen[0].environ).pages == 7
    assert seen[0].max_pages == 7
    assert Limits.from_env({}).pages == Limits().pages
    assert CliRunner().invoke(probe, []).exit_code == 0
    assert Limits.from_env(seen[1].environ).pages == 9


def test_a_depth_limit_beyond_the_parser_is_still_one_line() -> None:
    fake = FakePortal()
    deep = b"[" * 200_000 + b"]" * 200_000
    answering(fake, "portals/self", httpx.Response(200, content=deep))
    with pytest.raises(LimitExceeded, match="deeper than this Python can parse; lower the limit"):
        get(fake, Limits(json_depth=1_000_000))


def test_a_write_past_a_limit_is_ambiguous_so_the_applier_looks_it_up() -> None:
    """A createRole whose answer trickles past the deadline may have created the role:
    never "failed" as if nothing happened, never sent again blindly."""
    fake = FakePortal()
    trickle = Stream(endless(b" "), pause=0.05)
    answering(fake, "portals/p1/createRole", httpx.Response(200, stream=trickle))

    async def run() -> dict[str, Any]:
        async with client(fake, Limits(request_seconds=0.3)) as c:
            return await c.post(c.url("portals/p1/createRole"), {"name": "A"}, idempotent=False)

    with pytest.raises(AmbiguousRequestError, match=r"request deadline of 0.3 s .*may or may not"):
        asyncio.run(run())
    assert [s.path for s in fake.seen].count(path("portals/p1/createRole")) == 1
