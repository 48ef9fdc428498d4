"""The live client against a fake portal: auth, envelopes, retries, paging, secrecy."""

from __future__ import annotations

import asyncio
import dataclasses
import html
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import quote, quote_plus

import httpx
import pytest

from reconciler.errors import UserError
from reconciler.live.client import PortalClient, client_for
from reconciler.live.errors import (
    AmbiguousRequestError,
    AuthError,
    ForbiddenError,
    NotFoundError,
    ServiceError,
    TransientError,
)
from reconciler.live.paging import as_is
from reconciler.live.retry import RetryPolicy
from reconciler.state import Auth, PortalTarget
from reconciler.versions import Deployment, Platform
from tests.live.fakes import (
    ENV,
    LOGIN,
    PASSWORD,
    ROOT,
    TOKEN,
    FakePortal,
    NoSleep,
    make_client,
    path,
)

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    async def main() -> T:
        return await coro

    return asyncio.run(main())


async def fetch(client: PortalClient, where: str = "portals/self") -> dict[str, Any]:
    async with client:
        return await client.get_json(where)


# --- credentials and the token header ---------------------------------------------------


def test_sign_in_then_token_only_in_header() -> None:
    fake = FakePortal()
    fake.route(path("portals/self"), {"id": "p1"})
    assert run(fetch(make_client(fake))) == {"id": "p1"}
    sign_in, read = fake.seen
    assert sign_in.path.endswith("/generateToken")
    assert sign_in.params["client"] == "referer" and sign_in.params["f"] == "json"
    assert read.headers["x-esri-authorization"] == f"Bearer {TOKEN}-1"
    assert read.params["f"] == "json"
    assert TOKEN not in read.url and "token" not in read.params


def test_token_env_sends_the_token_without_sign_in() -> None:
    fake = FakePortal()
    fake.route(path("portals/self"), {"id": "p1"})
    run(fetch(make_client(fake, auth=Auth(tokenEnv="ORG_TOKEN"))))
    assert fake.paths() == [path("portals/self")]
    assert fake.seen[0].headers["x-esri-authorization"] == f"Bearer {TOKEN}"


def test_missing_variable_is_named_never_valued() -> None:
    with pytest.raises(UserError, match="ORG_MISSING") as caught:
        PortalClient("https://x.example/sharing/rest", auth=Auth(tokenEnv="ORG_MISSING"), env=ENV)
    assert "auth.tokenEnv" in str(caught.value)


def test_repr_shows_no_secret() -> None:
    client = make_client(FakePortal(), auth=Auth(tokenEnv="ORG_TOKEN"))
    assert TOKEN not in repr(client) and TOKEN not in repr(client.credentials)


def test_refused_sign_in_names_the_user_not_the_password() -> None:
    fake = FakePortal()
    env = {**ENV, "ORG_PASS": "wrong-" + PASSWORD}
    client = PortalClient(
        "https://portal.example.com/portal/sharing/rest",
        auth=Auth(usernameEnv="ORG_USER", passwordEnv="ORG_PASS"),
        env=env,
        transport=fake.transport(),
    )
    with pytest.raises(AuthError, match="sign-in as user 'admin'") as caught:
        run(fetch(client))
    assert PASSWORD not in str(caught.value)


def expiring(fake: FakePortal, body: dict[str, Any]) -> None:
    """Tokens 1 expire after one use: the next call with them answers 498."""
    used: set[str] = set()

    def handler(request: httpx.Request, params: dict[str, str]) -> dict[str, Any]:
        token = request.headers.get("x-esri-authorization", "")
        if token.endswith("-1") and token in used:
            return {"error": {"code": 498, "message": "Invalid token."}}
        used.add(token)
        return body

    fake.route(path("portals/self"), handler)


def test_498_signs_in_again_once_then_succeeds() -> None:
    fake = FakePortal()
    expiring(fake, {"id": "p1"})

    async def twice() -> dict[str, Any]:
        async with make_client(fake) as client:
            await client.get_json("portals/self")
            return await client.get_json("portals/self")

    assert run(twice()) == {"id": "p1"}
    assert fake.tokens_issued == 2


def test_498_with_a_fixed_token_is_an_auth_error() -> None:
    fake = FakePortal()
    fake.route(path("portals/self"), {"error": {"code": 498, "message": "Invalid token."}})
    with pytest.raises(AuthError, match="ORG_TOKEN") as caught:
        run(fetch(make_client(fake, auth=Auth(tokenEnv="ORG_TOKEN"))))
    assert caught.value.code == 498 and TOKEN not in str(caught.value)
    assert len(fake.seen) == 1


def test_persistent_498_reauthenticates_only_once() -> None:
    fake = FakePortal()
    fake.route(path("portals/self"), {"error": {"code": 498, "message": "Invalid token."}})
    with pytest.raises(AuthError):
        run(fetch(make_client(fake)))
    assert fake.tokens_issued == 2 and len(fake.seen) == 4


@pytest.mark.parametrize(("code", "kind"), [(499, AuthError), (403, ForbiddenError)])
def test_499_and_403_are_not_retried(code: int, kind: type[ServiceError]) -> None:
    fake = FakePortal()
    fake.route(path("portals/self"), {"error": {"code": code, "message": "no"}})
    with pytest.raises(kind):
        run(fetch(make_client(fake)))
    assert fake.paths().count(path("portals/self")) == 1


# --- envelopes ------------------------------------------------------------------------------


def test_http_200_error_envelope_is_typed() -> None:
    fake = FakePortal()
    body = {"code": 404, "messageCode": "ORG_404", "message": "Role not found.", "details": ["x"]}
    fake.route(path("portals/self"), {"error": body})
    with pytest.raises(NotFoundError) as caught:
        run(fetch(make_client(fake)))
    assert caught.value.messageCode == "ORG_404" and caught.value.details == ("x",)
    assert "Role not found." in str(caught.value) and "portals/self" in str(caught.value)


def test_admin_status_error_is_typed() -> None:
    fake = FakePortal()
    fake.route(
        "/portal/admin/services/webhooks/settings",
        {"status": "error", "messages": ["Not allowed."], "code": 403},
    )

    async def read() -> dict[str, Any]:
        async with make_client(fake) as client:
            return await client.get_json(client.admin_url("services/webhooks/settings"))

    with pytest.raises(ForbiddenError, match=r"Not allowed\."):
        run(read())


def test_real_4xx_with_envelope_and_without() -> None:
    fake = FakePortal()
    fake.route(
        path("portals/self"),
        lambda r, p: httpx.Response(400, json={"error": {"code": 400, "message": "Bad input."}}),
    )
    fake.route(path("portals/other"), lambda r, p: httpx.Response(404, json={}))
    with pytest.raises(ServiceError, match=r"Bad input\.") as caught:
        run(fetch(make_client(fake)))
    assert caught.value.code == 400
    with pytest.raises(NotFoundError):
        run(fetch(make_client(fake), "portals/other"))


def test_html_answer_says_what_is_wrong() -> None:
    fake = FakePortal()
    fake.route(
        path("portals/self"),
        lambda r, p: httpx.Response(
            200, text="<html>Sign in</html>", headers={"content-type": "text/html"}
        ),
    )
    with pytest.raises(
        UserError, match="answered HTML, not JSON: is the URL the sharing REST root"
    ):
        run(fetch(make_client(fake)))


@pytest.mark.parametrize("garbage", ["{not json", "[1, 2]", ""])
def test_garbage_answer_is_a_user_error(garbage: str) -> None:
    fake = FakePortal()
    fake.route(path("portals/self"), lambda r, p: httpx.Response(200, text=garbage))
    with pytest.raises(UserError, match="not a JSON object"):
        run(fetch(make_client(fake)))


# --- transport rules ------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["http://portal.example.com/sharing/rest", "ftp://x/sharing"])
def test_plain_http_is_refused_off_loopback(url: str) -> None:
    with pytest.raises(UserError, match=r"https|not an http"):
        PortalClient(url, env=ENV)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/hq/sharing/rest",
        "http://127.9.9.9/x",
        "http://[::1]:9/x",
        "http://localhost/x",
    ],
)
def test_plain_http_is_allowed_on_loopback(url: str) -> None:
    assert PortalClient(url, env=ENV).root == url


@pytest.mark.parametrize(
    ("root", "admin", "found"),
    [
        ("https://x.example/sharing/rest?x=1", None, "portal URL https://x.example/sharing/rest"),
        ("https://x.example/sharing/rest?", None, "portal URL"),
        ("https://x.example/sharing/rest#top", None, "a fragment"),
        ("https://me:pw-9Z@x.example/sharing/rest", None, "user info"),
        ("https://x.example/sharing/rest", "https://x.example/admin?token=tok-9Z", "admin URL"),
    ],
)
def test_a_root_with_user_info_a_query_or_a_fragment_is_refused_unshown(
    root: str, admin: str | None, found: str
) -> None:
    fake = FakePortal()
    with pytest.raises(UserError, match="must be a plain address") as caught:
        PortalClient(root, admin_root=admin, env=ENV, transport=fake.transport())
    assert found in str(caught.value)
    assert "9Z" not in str(caught.value) and "x=1" not in str(caught.value)
    assert fake.seen == []


def test_unreachable_portal_names_the_url() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    sleep = NoSleep()
    client = PortalClient(
        "https://down.example.com/sharing/rest",
        env=ENV,
        transport=httpx.MockTransport(refuse),
        retry=RetryPolicy(attempts=3, sleep=sleep),
    )
    with pytest.raises(
        TransientError, match=r"portal at https://down.example.com:443 is unreachable after 3 tries"
    ):
        run(fetch(client))
    assert len(sleep.waits) == 2 and client.requests == 3


# --- retries --------------------------------------------------------------------------------


def flaky(fake: FakePortal, failures: list[httpx.Response], body: dict[str, Any]) -> None:
    queue = list(failures)
    fake.route(path("portals/self"), lambda r, p: queue.pop(0) if queue else body)


def test_transient_statuses_are_retried_honouring_retry_after() -> None:
    fake, sleep = FakePortal(), NoSleep()
    flaky(
        fake,
        [
            httpx.Response(429, headers={"Retry-After": "7"}),
            httpx.Response(503),
            httpx.Response(200, json={"error": {"code": 500, "message": "busy"}}),
        ],
        {"id": "p1"},
    )
    assert run(fetch(make_client(fake, sleep=sleep))) == {"id": "p1"}
    assert sleep.waits[0] == 7.0
    # full jitter: the n-th wait lies in [0, base * 2**(n-1)]
    assert 0.0 <= sleep.waits[1] <= 1.0 and 0.0 <= sleep.waits[2] <= 2.0


def test_retries_are_bounded() -> None:
    fake, sleep = FakePortal(), NoSleep()
    flaky(fake, [httpx.Response(502)] * 10, {"id": "p1"})
    with pytest.raises(TransientError, match="HTTP 502"):
        run(fetch(make_client(fake, sleep=sleep, attempts=4)))
    assert fake.paths().count(path("portals/self")) == 4 and len(sleep.waits) == 3


def test_jitter_stays_within_the_cap() -> None:
    policy = RetryPolicy(base=1.0, cap=5.0)
    waits = [policy.delay(n, None) for n in range(1, 12) for _ in range(20)]
    assert all(0.0 <= w <= 5.0 for w in waits) and max(waits) > 0.0


def test_non_idempotent_write_is_not_resent_after_no_reply() -> None:
    sent: list[httpx.Request] = []

    def drop(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        raise httpx.ReadTimeout("no reply", request=request)

    client = PortalClient(
        "https://portal.example.com/sharing/rest",
        env=ENV,
        transport=httpx.MockTransport(drop),
        retry=RetryPolicy(sleep=NoSleep()),
    )

    async def create() -> dict[str, Any]:
        async with client:
            return await client.post("portals/p1/createRole", {"name": "A"}, idempotent=False)

    with pytest.raises(AmbiguousRequestError):
        run(create())
    assert len(sent) == 1


def test_non_idempotent_write_is_retried_when_it_never_left() -> None:
    attempts: list[int] = []

    def first_refused(request: httpx.Request) -> httpx.Response:
        attempts.append(1)
        if len(attempts) == 1:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, json={"success": True, "id": "r1"})

    client = PortalClient(
        "https://portal.example.com/sharing/rest",
        env=ENV,
        transport=httpx.MockTransport(first_refused),
        retry=RetryPolicy(sleep=NoSleep()),
    )

    async def create() -> dict[str, Any]:
        async with client:
            return await client.post("portals/p1/createRole", {"name": "A"}, idempotent=False)

    assert run(create()) == {"success": True, "id": "r1"}
    assert len(attempts) == 2


def test_writes_are_form_encoded_with_f_json() -> None:
    fake = FakePortal()
    fake.route(path("portals/p1/createRole"), {"success": True, "id": "r9"})

    async def create() -> dict[str, Any]:
        async with make_client(fake) as client:
            return await client.post(client.url("portals/p1/createRole"), {"name": "A b"})

    assert run(create())["id"] == "r9"
    write = fake.seen[-1]
    assert write.method == "POST" and write.params == {"name": "A b", "f": "json"}
    assert write.headers["content-type"] == "application/x-www-form-urlencoded"


# --- secrets --------------------------------------------------------------------------------


def test_secret_echoed_by_the_server_is_scrubbed() -> None:
    fake = FakePortal()
    fake.route(
        path("portals/self"),
        lambda r, p: {
            "error": {"code": 400, "message": "bad " + r.headers["x-esri-authorization"]}
        },
    )
    with pytest.raises(ServiceError) as caught:
        run(fetch(make_client(fake, auth=Auth(tokenEnv="ORG_TOKEN"))))
    assert TOKEN not in str(caught.value) and "***" in str(caught.value)


@pytest.mark.parametrize(
    "spell",
    [
        lambda secret: quote_plus(secret),
        lambda secret: quote(secret, safe=""),
        lambda secret: json.dumps(secret)[1:-1],
        lambda secret: html.escape(secret),
    ],
    ids=["form-encoded", "url-encoded", "json-escaped", "html-escaped"],
)
def test_a_password_echoed_in_another_spelling_is_scrubbed(spell: Callable[[str], str]) -> None:
    """A proxy or server that echoes the sign-in request re-encodes it: each form of the
    password is a secret as much as the password itself."""
    password = 'S3cr&t p@ss/"<x>'
    env = {"ORG_USER": "admin", "ORG_PASS": password}

    def refuse(request: httpx.Request, params: dict[str, str]) -> dict[str, Any]:
        echoed = f"refused password={spell(params['password'])}"
        return {"error": {"code": 400, "message": echoed, "details": [echoed]}}

    fake = FakePortal()
    fake.route(path("generateToken"), refuse)
    client = PortalClient(ROOT, auth=LOGIN, env=env, transport=fake.transport())
    with pytest.raises(UserError) as caught:
        run(fetch(client))
    shown = str(caught.value)
    assert spell(password) not in shown and password not in shown, shown
    assert "***" in shown


# --- paging ---------------------------------------------------------------------------------


def users(n: int) -> list[dict[str, Any]]:
    return [{"username": f"u{i:05d}"} for i in range(n)]


def test_paging_by_total_fetches_the_rest_concurrently() -> None:
    fake = FakePortal()
    fake.paged(path("portals/p1/users"), "users", users(950))

    async def read() -> list[dict[str, Any]]:
        async with make_client(fake, concurrency=4) as client:
            return await client.get_pages("portals/p1/users", "users", convert=as_is)

    got = run(read())
    assert [u["username"] for u in got] == [u["username"] for u in users(950)]
    pages = [s for s in fake.seen if s.path.endswith("/users")]
    assert len(pages) == 10 and all(s.params["num"] == "100" for s in pages)
    assert 1 < fake.max_in_flight <= 4


def test_paging_without_total_follows_next_start() -> None:
    fake = FakePortal()
    fake.paged(path("portals/p1/users"), "users", users(250), total=False)

    async def read() -> list[dict[str, Any]]:
        async with make_client(fake) as client:
            return await client.get_pages("portals/p1/users", "users", convert=as_is)

    assert len(run(read())) == 250
    starts = [s.params["start"] for s in fake.seen if s.path.endswith("/users")]
    assert starts == ["1", "101", "201"]


def test_request_counter_counts_every_request() -> None:
    fake = FakePortal()
    fake.paged(path("portals/p1/users"), "users", users(250))

    async def read() -> int:
        async with make_client(fake) as client:
            await client.get_pages("portals/p1/users", "users", convert=as_is)
            return client.requests

    assert run(read()) == 4  # sign-in + 3 pages


def test_generated_token_echoed_by_the_server_is_scrubbed() -> None:
    fake = FakePortal()
    fake.route(
        path("portals/self"),
        lambda r, p: {"error": {"code": 400, "message": r.headers["x-esri-authorization"]}},
    )
    with pytest.raises(ServiceError) as caught:
        run(fetch(make_client(fake)))
    assert TOKEN not in str(caught.value) and PASSWORD not in repr(caught.value)


def test_paging_follows_a_server_that_caps_num() -> None:
    fake = FakePortal()
    fake.paged(path("portals/p1/users"), "users", users(230), cap=50)

    async def read() -> list[dict[str, Any]]:
        async with make_client(fake) as client:
            return await client.get_pages("portals/p1/users", "users", convert=as_is)

    assert [u["username"] for u in run(read())] == [u["username"] for u in users(230)]


def test_client_for_a_target_takes_its_urls_as_they_are() -> None:
    """The overrides were applied once, in desired state (tests/test_environment.py): a
    plain ORGCTL_PORTAL_URL must not be laid again over a portal's own override."""
    target = PortalTarget(
        name="hq",
        url="http://127.0.0.1:8080/hq/sharing/rest",
        platform=Platform.parse(Deployment.SELF_HOSTED, "10.6.1"),
        auth=Auth(tokenEnv="ORG_TOKEN"),
        adminUrl="http://127.0.0.1:8080/hq/admin",
    )
    elsewhere = {
        **ENV,
        "ORGCTL_PORTAL_URL": "http://127.0.0.1:5/hq/sharing/rest",
        "ORGCTL_ADMIN_URL": "http://127.0.0.1:5/hq/admin",
    }
    client = client_for(target, env=elsewhere)
    assert (client.root, client.admin_root) == (target.url, target.adminUrl)
    public = dataclasses.replace(target, url="http://portal.example.com/sharing/rest")
    with pytest.raises(UserError, match="https"):
        client_for(public, env=ENV)


def test_concurrent_498s_renew_the_token_once() -> None:
    fake = FakePortal()
    expiring(fake, {"id": "p1"})

    async def many() -> list[dict[str, Any]]:
        async with make_client(fake) as client:
            return list(await asyncio.gather(*(client.get_json("portals/self") for _ in range(6))))

    assert run(many()) == [{"id": "p1"}] * 6
    assert fake.tokens_issued == 2


def test_server_clock_comes_from_the_date_header() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, json={"ok": True}, headers={"Date": "Sun, 01 Nov 2026 00:00:00 GMT"}
        )

    async def scenario() -> float | None:
        async with PortalClient(
            "http://127.0.0.1:1/p/sharing/rest",
            auth=Auth(tokenEnv="T"),
            env={"T": "tok"},
            transport=httpx.MockTransport(handler),
        ) as client:
            assert client.server_clock is None
            await client.get_json("portals/self")
            return client.server_clock

    assert asyncio.run(scenario()) == datetime(2026, 11, 1, tzinfo=UTC).timestamp()


def test_a_gateway_error_page_is_retried_like_any_5xx() -> None:
    """A web adaptor or load balancer answers 500 with an HTML page: a transient failure,
    not a sign that the URL is wrong."""
    fake, sleep = FakePortal(), NoSleep()
    page = "<html><body><h1>500 Internal Server Error</h1></body></html>"
    flaky(
        fake,
        [
            httpx.Response(500, html=page),
            httpx.Response(502, html=page),
            httpx.Response(500, json={"error": {"code": 500, "message": "busy"}}),
        ],
        {"id": "p1"},
    )
    assert run(fetch(make_client(fake, sleep=sleep))) == {"id": "p1"}
    assert len(sleep.waits) == 3


def test_html_with_a_success_status_still_says_the_url_is_wrong() -> None:
    fake = FakePortal()
    fake.route(path("portals/self"), lambda r, p: httpx.Response(200, html="<html>login</html>"))
    with pytest.raises(UserError, match="answered HTML, not JSON: is the URL the sharing REST"):
        run(fetch(make_client(fake, sleep=NoSleep())))
