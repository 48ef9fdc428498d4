"""`--notify URL` / ORGCTL_NOTIFY_URL: a summary posted to a chat incoming webhook, never a
secret, and never a change to the exit code when the webhook fails."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from .harness import ADMIN, EXAMPLES, World, output_of

pytestmark = pytest.mark.e2e

RUN_ENV = {
    "GITHUB_SERVER_URL": "https://github.example",
    "GITHUB_REPOSITORY": "acme/manifests",
    "GITHUB_RUN_ID": "99",
}
RUN_LINK = "https://github.example/acme/manifests/actions/runs/99"


class Webhook:
    def __init__(self, status: int = 200) -> None:
        self.posts: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                owner.posts.append(json.loads(self.rfile.read(length)))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/services/T0/B0/s3cr3tpath"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    hook = Webhook()
    yield hook
    hook.close()


def run(world: World, *args: str, **extra: str) -> Any:
    env = {**world.env("hq"), **RUN_ENV, **extra}
    return world.orgctl(*args, portal="hq", env=env)


def texts(hook: Webhook) -> list[str]:
    assert all(set(post) == {"text"} for post in hook.posts), hook.posts
    return [post["text"] for post in hook.posts]


def test_plan_posts_counts_portal_and_run_link(demo: World, webhook: Webhook) -> None:
    result = run(demo, "plan", str(EXAMPLES / "hq"), "--detailed-exitcode", "--notify", webhook.url)
    assert result.returncode == 2, output_of(result)
    [text] = texts(webhook)
    assert text.startswith(f"orgctl plan {EXAMPLES / 'hq'}: {demo.service.url}/hq/sharing/rest:")
    assert "to create" in text and "calls" in text and RUN_LINK in text
    assert ADMIN[1] not in text


def test_apply_and_drift_read_the_url_from_the_environment(demo: World, webhook: Webhook) -> None:
    applied = run(
        demo, "apply", str(EXAMPLES / "hq"), "--auto-approve", ORGCTL_NOTIFY_URL=webhook.url
    )
    assert applied.returncode == 0, output_of(applied)
    drift = run(demo, "drift", str(EXAMPLES / "hq"), ORGCTL_NOTIFY_URL=webhook.url)
    assert drift.returncode == 0, output_of(drift)
    applied_text, drift_text = texts(webhook)
    assert "applied, converged:" in applied_text and "0 failed" in applied_text
    assert "in sync, no drift" in drift_text


def test_a_failure_is_told_too(webhook: Webhook, demo: World) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{probe.getsockname()[1]}/hq/sharing/rest"
    result = run(
        demo, "drift", str(EXAMPLES / "hq"), "--notify", webhook.url, ORGCTL_PORTAL_URL=dead
    )
    assert result.returncode == 1, output_of(result)
    [text] = texts(webhook)
    assert "failed:" in text and "is unreachable" in text


@pytest.mark.parametrize("status", [None, 500])
def test_a_webhook_failure_warns_and_keeps_the_exit_code(demo: World, status: int | None) -> None:
    if status is None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            url, hook = f"http://127.0.0.1:{probe.getsockname()[1]}/hook/s3cr3tpath", None
    else:
        hook = Webhook(status)
        url = hook.url
    try:
        result = run(demo, "plan", str(EXAMPLES / "hq"), "--detailed-exitcode", "--notify", url)
    finally:
        if hook is not None:
            hook.close()
    assert result.returncode == 2, output_of(result)
    assert "Warning: could not notify 127.0.0.1" in result.stderr, output_of(result)
    assert "s3cr3tpath" not in result.stdout + result.stderr


def test_plain_http_elsewhere_is_refused_without_repeating_the_url(demo: World) -> None:
    url = "http://hooks.example.com/services/T0/B0/s3cr3tpath"
    result = run(demo, "plan", str(EXAMPLES / "hq"), "--detailed-exitcode", "--notify", url)
    assert result.returncode == 2, output_of(result)
    assert "not notifying" in result.stderr and "https is required" in result.stderr
    assert "s3cr3tpath" not in result.stdout + result.stderr
