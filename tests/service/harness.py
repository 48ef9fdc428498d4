"""Start `orgctl serve` on a free loopback port and talk to it over HTTP.

Shared by the end-to-end tests and the load benchmark, so both drive the service
exactly as a client would: a subprocess, a ready line, form-encoded requests.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from ruamel.yaml import YAML

STATES = Path(__file__).parent / "states"
READY_TIMEOUT_SECONDS = 20.0
_URL = re.compile(r"https?://127\.0\.0\.1:\d+")
_DEFAULT = object()  # "use the portal's default administrator token"


def write_state(state: str | dict[str, Any], directory: Path) -> Path:
    """A state file in `directory`: a named file of `states/` or a dict built by a test."""
    if isinstance(state, str):
        source = STATES / f"{state}.yaml"
        target = directory / source.name
        target.write_text(source.read_text())
        return target
    target = directory / "state.yaml"
    with target.open("w") as out:
        YAML().dump(state, out)
    return target


class Service:
    """One `orgctl serve` subprocess; `url` is its root address."""

    def __init__(
        self,
        db: Path,
        state: Path | None = None,
        control: bool = True,
        options: tuple[str, ...] = (),
    ) -> None:
        self.db = db
        self.state = state
        self.control = control
        self.options = options  # further `orgctl serve` options, e.g. --cert/--key
        self.url = ""
        self._process: subprocess.Popen[str] | None = None
        self._output: list[str] = []

    def start(self) -> Service:
        command = [sys.executable, "-m", "reconciler", "serve", "--db", str(self.db)]
        command += ["--port", "0"]
        if self.state is not None:
            command += ["--state", str(self.state)]
        if self.control:
            command.append("--control")
        command += self.options
        self._output = []
        self._process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.url = self._await_ready_line()
        return self

    def _await_ready_line(self) -> str:
        process = self._process
        assert process is not None and process.stdout is not None
        found = threading.Event()
        url: list[str] = []

        def read() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                self._output.append(line)
                match = _URL.search(line)
                if match and not url:
                    url.append(match.group(0))
                    found.set()
            found.set()

        # The reader keeps draining the pipe after the ready line so the service never blocks.
        threading.Thread(target=read, daemon=True).start()
        if not found.wait(READY_TIMEOUT_SECONDS) or not url:
            self.stop()
            output = "".join(self._output)
            raise RuntimeError(f"orgctl serve did not print a ready line; output:\n{output}")
        return url[0]

    @property
    def output(self) -> str:
        return "".join(self._output)

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, as in a crash."""
        if self._process is not None and self._process.poll() is None:
            self._process.send_signal(signal.SIGKILL)
            self._process.wait(10)

    def stop(self) -> None:
        if self._process is None or self._process.poll() is not None:
            return
        self._process.terminate()
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()


@contextlib.contextmanager
def running(db: Path, state: Path | None = None) -> Iterator[Service]:
    service = Service(db, state).start()
    try:
        yield service
    finally:
        service.stop()


class Api:
    """Form-encoded requests to a running service; `f=json` unless a test says otherwise."""

    def __init__(self, url: str, client: httpx.Client | None = None) -> None:
        self.url = url
        self.http = client or httpx.Client(timeout=30)
        self._tokens: dict[tuple[str, str], str] = {}

    def close(self) -> None:
        self.http.close()

    def sharing(self, portal: str, path: str) -> str:
        return f"{self.url}/{portal}/sharing/rest/{path}"

    def admin(self, portal: str, path: str) -> str:
        return f"{self.url}/{portal}/admin/{path}"

    def token(self, portal: str, user: str = "admin", password: str | None = None) -> str:
        key = (portal, user)
        if key not in self._tokens:
            body = self.generate_token(portal, user, password or f"{user}-pass")
            assert "token" in body, f"no token for {user}@{portal}: {body}"
            self._tokens[key] = body["token"]
        return self._tokens[key]

    def issued_tokens(self) -> list[str]:
        return list(self._tokens.values())

    def generate_token(self, portal: str, user: str, password: str, **form: Any) -> Any:
        fields = {
            "username": user,
            "password": password,
            # Bound to the asking address (requestip): every test client is on loopback.
            # Two weeks, the most the API allows: tests advance the clock by days.
            "expiration": 20160,
            "f": "json",
            **form,
        }
        return self.http.post(self.sharing(portal, "generateToken"), data=fields).json()

    def headers(self, portal: str, auth: Any) -> dict[str, str]:
        if auth is None:
            return {}
        token = self.token(portal) if auth is _DEFAULT else auth
        return {"X-Esri-Authorization": f"Bearer {token}"}

    def auth_headers(self, portal: str, user: str = "admin") -> dict[str, str]:
        return self.headers(portal, self.token(portal, user))

    def post(self, portal: str, path: str, *, auth: Any = _DEFAULT, **form: Any) -> Any:
        response = self.http.post(
            self.sharing(portal, path), data=_form(form), headers=self.headers(portal, auth)
        )
        return _json(response)

    def get(self, portal: str, path: str, *, auth: Any = _DEFAULT, **params: Any) -> Any:
        response = self.http.get(
            self.sharing(portal, path), params=_form(params), headers=self.headers(portal, auth)
        )
        return _json(response)

    def admin_post(self, portal: str, path: str, *, auth: Any = _DEFAULT, **form: Any) -> Any:
        response = self.http.post(
            self.admin(portal, path), data=_form(form), headers=self.headers(portal, auth)
        )
        return _json(response)

    def admin_get(self, portal: str, path: str, *, auth: Any = _DEFAULT, **params: Any) -> Any:
        response = self.http.get(
            self.admin(portal, path), params=_form(params), headers=self.headers(portal, auth)
        )
        return _json(response)

    def advance(self, hours: float) -> Any:
        response = self.http.post(
            f"{self.url}/_control/clock", data={"advanceHours": hours, "f": "json"}
        )
        return _json(response)

    def failures(self, portal: str, webhook_id: str, count: int) -> Any:
        path = f"{self.url}/_control/{portal}/services/webhooks/{webhook_id}/failures"
        return _json(self.http.post(path, data={"count": count, "f": "json"}))

    def listing(self, portal: str, path: str, key: str, **params: Any) -> list[Any]:
        """Every entry of a paged listing, walking `nextStart` page by page."""
        entries: list[Any] = []
        start = 1
        while start != -1:
            page = self.get(portal, path, start=start, num=100, **params)
            assert key in page, page
            entries += page[key]
            assert page["nextStart"] == -1 or page["nextStart"] > start, page
            start = page["nextStart"]
        return entries


def _form(fields: dict[str, Any]) -> dict[str, Any]:
    """`f=json` unless given; booleans as the lowercase words the service expects."""
    encoded = {"f": "json"}
    for name, value in fields.items():
        encoded[name] = str(value).lower() if isinstance(value, bool) else value
    return encoded


def _json(response: httpx.Response) -> Any:
    assert response.status_code != 500, response.text
    return response.json()


def error_of(body: Any, code: int | None = None, message_code: str | None = None) -> dict[str, Any]:
    """The Sharing API error of `body`, asserting it is one (and its code and messageCode
    when given)."""
    assert isinstance(body, dict) and "error" in body, f"expected an error, got {body}"
    assert set(body) == {"error"}, f"the envelope has a single key, got {sorted(body)}"
    error = body["error"]
    assert set(error) >= {"code", "messageCode", "message", "details"}, error
    assert isinstance(error["details"], list), error
    if code is not None:
        assert error["code"] == code, error
    if message_code is not None:
        assert error["messageCode"] == message_code, error
    return dict(error)


def admin_error_of(body: Any, code: int | None = None) -> dict[str, Any]:
    """The admin root's error of `body`: `{"status": "error", "messages", "code"}`."""
    assert isinstance(body, dict) and body.get("status") == "error", body
    assert isinstance(body.get("messages"), list), body
    if code is not None:
        assert body.get("code") == code, body
    return dict(body)


def succeeded(body: Any) -> dict[str, Any]:
    assert isinstance(body, dict) and body.get("success") is True, body
    return dict(body)
