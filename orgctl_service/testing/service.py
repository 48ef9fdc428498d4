"""Run the reference service in a subprocess and talk to it as a client would.

`Service` starts `orgctl serve` on a free loopback port and waits for its ready line;
`Api` sends form-encoded requests to it; `PortalApi` is one signed-in user of one portal.
orgctl's own tests and benchmarks drive the service through this module, and so can
anyone who tests a client of the Organization Administration Service against it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from reconciler.settings import SERVE_CONTROL_SECRET

READY_TIMEOUT_SECONDS = 20.0
CONTROL_SECRET_ENV = SERVE_CONTROL_SECRET.name
_URL = re.compile(r"https?://127\.0\.0\.1:\d+")
_DEFAULT = object()  # "use the portal's default administrator token"

# The default administrator of examples/demo/state.yaml and of the tests' states.
ADMIN = ("admin", "admin-pass")


class UnexpectedAnswer(Exception):
    """The service answered what its caller did not expect: a 500, no token at sign-in,
    a page that is no page, or (for `PortalApi`) an error envelope where success was due."""


class Service:
    """One `orgctl serve` subprocess; `url` is its root address."""

    def __init__(
        self,
        db: Path,
        state: Path | None = None,
        control: bool = True,
        options: tuple[str, ...] = (),
        open_files: int | None = None,
    ) -> None:
        self.db = db
        self.open_files = open_files  # the service's descriptor limit, as a container sets
        self.state = state
        self.control = control
        self.options = options  # further `orgctl serve` options, e.g. --cert/--key
        # What control calls carry (`Authorization: Bearer`); the service reads it from
        # ORGCTL_SERVE_CONTROL_SECRET.
        self.control_secret = secrets.token_urlsafe(24) if control else ""
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
            env={**os.environ, "PYTHONUNBUFFERED": "1", CONTROL_SECRET_ENV: self.control_secret},
            preexec_fn=self._limit_open_files if self.open_files else None,
        )
        self.url = self._await_ready_line()
        return self

    def api(self) -> Api:
        """A client of this service, its control calls carrying the service's secret."""
        return Api(self.url, control_secret=self.control_secret)

    def _limit_open_files(self) -> None:
        assert self.open_files is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))

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

    def __init__(
        self, url: str, client: httpx.Client | None = None, control_secret: str = ""
    ) -> None:
        self.url = url
        self.http = client or httpx.Client(timeout=30)
        self._tokens: dict[tuple[str, str], str] = {}
        self._control = {"Authorization": f"Bearer {control_secret}"} if control_secret else {}

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
            if "token" not in body:
                raise UnexpectedAnswer(f"no token for {user}@{portal}: {body}")
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
            f"{self.url}/_control/clock",
            data={"advanceHours": hours, "f": "json"},
            headers=self._control,
        )
        return _json(response)

    def failures(self, portal: str, webhook_id: str, count: int) -> Any:
        path = f"{self.url}/_control/{portal}/services/webhooks/{webhook_id}/failures"
        form = {"count": count, "f": "json"}
        return _json(self.http.post(path, data=form, headers=self._control))

    def listing(self, portal: str, path: str, key: str, **params: Any) -> list[Any]:
        """Every entry of a paged listing, walking `nextStart` page by page."""
        entries: list[Any] = []
        start = 1
        while start != -1:
            page = self.get(portal, path, start=start, num=100, **params)
            if key not in page or not (page["nextStart"] == -1 or page["nextStart"] > start):
                raise UnexpectedAnswer(f"not a page of {key}: {page}")
            entries += page[key]
            start = page["nextStart"]
        return entries


def _form(fields: dict[str, Any]) -> dict[str, Any]:
    """`f=json` unless given; booleans as the lowercase words the service expects."""
    encoded = {"f": "json"}
    for name, value in fields.items():
        encoded[name] = str(value).lower() if isinstance(value, bool) else value
    return encoded


def _json(response: httpx.Response) -> Any:
    if response.status_code == 500:
        raise UnexpectedAnswer(response.text)
    return response.json()


class PortalApi:
    """Raw calls to one portal, signed in as one user (generateToken, then the token in the
    `X-Esri-Authorization` header); an error envelope raises `UnexpectedAnswer`."""

    def __init__(self, api: Api, portal: str, username: str, password: str) -> None:
        self._api = api
        self.portal = portal
        body = api.generate_token(portal, username, password)
        if "token" not in body:
            raise UnexpectedAnswer(f"sign-in of {username!r} on {portal!r} refused: {body}")
        self.token: str = body["token"]
        self.portal_id: str = self.get("portals/self")["id"]

    @staticmethod
    def _checked(what: str, body: dict[str, Any]) -> dict[str, Any]:
        if "error" in body or body.get("status") == "error":
            raise UnexpectedAnswer(f"{what}: {body}")
        return body

    def get(self, path: str, **params: Any) -> dict[str, Any]:
        return self._checked(f"GET {path}", self.get_unchecked(path, **params))

    def get_unchecked(self, path: str, **params: Any) -> dict[str, Any]:
        """The reply as it is, error envelope or not."""
        reply: dict[str, Any] = self._api.get(self.portal, path, auth=self.token, **params)
        return reply

    def post(self, path: str, **form: Any) -> dict[str, Any]:
        reply = self._api.post(self.portal, path, auth=self.token, **form)
        return self._checked(f"POST {path}", reply)

    def admin_get(self, path: str, **params: Any) -> dict[str, Any]:
        reply = self._api.admin_get(self.portal, path, auth=self.token, **params)
        return self._checked(f"GET admin/{path}", reply)

    def admin_post(self, path: str, **form: Any) -> dict[str, Any]:
        reply = self._api.admin_post(self.portal, path, auth=self.token, **form)
        return self._checked(f"POST admin/{path}", reply)

    def listing(self, path: str, key: str, **params: Any) -> list[dict[str, Any]]:
        """Every entry of a paged listing."""
        entries: list[dict[str, Any]] = []
        start = 1
        while start != -1:
            page = self.get(path, start=start, num=100, **params)
            entries += page[key]
            start = page["nextStart"]
        return entries

    # -- reads the tests assert on ------------------------------------------------------

    def roles(self) -> dict[str, dict[str, Any]]:
        """Custom roles by name, privileges included."""
        roles = self.listing(f"portals/{self.portal_id}/roles", "roles", returnPrivileges="true")
        return {r["name"]: r for r in roles}

    def members(self) -> dict[str, dict[str, Any]]:
        return {u["username"]: u for u in self.listing(f"portals/{self.portal_id}/users", "users")}

    def set_privileges(self, role_name: str, privileges: list[str]) -> None:
        role_id = self.roles()[role_name]["id"]
        self.post(
            f"portals/{self.portal_id}/roles/{role_id}/setPrivileges",
            privileges=json.dumps({"privileges": privileges}),
        )

    def collaboration_state(self) -> dict[str, Any]:
        """Each collaboration's workspaces and invitations, as the API shows them."""
        state: dict[str, Any] = {}
        base = f"portals/{self.portal_id}/collaborations"
        for collaboration in self.listing(base, "collaborations"):
            cid = collaboration["id"]
            state[cid] = {
                "collaboration": collaboration,
                "workspaces": self.listing(f"{base}/{cid}/workspaces", "workspaces"),
                "invitations": self.get(f"{base}/{cid}/invitations").get(
                    "collaborationInvitations", []
                ),
            }
        return state

    def snapshot(self) -> dict[str, Any]:
        """What a plan of the portal could change, to compare before and after."""
        return {
            "roles": self.roles(),
            "members": self.members(),
            "collaborations": self.collaboration_state(),
            "webhooks": self.org_webhooks(),
        }

    def org_webhooks(self) -> list[dict[str, Any]]:
        """The organization webhooks; none before 10.7, whose portals lack the resource
        (GWM_0002, as for an operation the release lacks)."""
        reply = self.get_unchecked(f"portals/{self.portal_id}/webhooks")
        if reply.get("error", {}).get("messageCode") == "GWM_0002":
            return []
        return list(self._checked("GET webhooks", reply).get("webhooks", []))
