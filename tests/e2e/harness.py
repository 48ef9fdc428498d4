"""Drive the real `orgctl` against a real `orgctl serve`, both as subprocesses.

The service's own test harness starts `orgctl serve` on a free loopback port (ready line,
20 s timeout, its output shown on failure) and speaks its API; on top of it, `World`
bundles one running service with the CLI runner, the per-portal environment and a
`PortalApi` for "changes by hand" and for reading the state back.
"""

from __future__ import annotations

import json
import os
import pty
import select
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reconciler.environment import variable_stem
from tests.cli import CLI_TIMEOUT_SECONDS, env_with, orgctl, orgctl_command, orgctl_subprocess
from tests.cli import output_of as output_of  # re-exported: the e2e tests' one way to show a run
from tests.service.harness import Api, Service

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXAMPLES = ROOT / "examples"
DEMO_STATE = EXAMPLES / "demo" / "state.yaml"
STATES = HERE / "states"
MANIFESTS = HERE / "manifests"

ADMIN = ("admin", "admin-pass")


class ApiError(AssertionError):
    """The service answered an error envelope where the test expected success."""


class PortalApi:
    """Raw calls to one portal, signed in as one user (generateToken, then the token in the
    `X-Esri-Authorization` header); an error envelope fails the test."""

    def __init__(self, api: Api, portal: str, username: str, password: str) -> None:
        self._api = api
        self.portal = portal
        body = api.generate_token(portal, username, password)
        if "token" not in body:
            raise ApiError(f"sign-in of {username!r} on {portal!r} refused: {body}")
        self.token: str = body["token"]
        self.portal_id: str = self.get("portals/self")["id"]

    @staticmethod
    def _checked(what: str, body: dict[str, Any]) -> dict[str, Any]:
        if "error" in body or body.get("status") == "error":
            raise ApiError(f"{what}: {body}")
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
            "webhooks": self.get(f"portals/{self.portal_id}/webhooks").get("webhooks", []),
        }


class World:
    """One running service and the means to drive it: the CLI, its environment, the API."""

    def __init__(self, service: Service, workdir: Path) -> None:
        self.service = service
        self.workdir = workdir
        self._api = Api(service.url)

    def env(
        self, portal: str, username: str = ADMIN[0], password: str = ADMIN[1]
    ) -> dict[str, str]:
        """The environment of a CLI run against `portal` (a urlKey): the effective URLs
        point at this service, credentials as the example Portals name them."""
        return env_with(
            ORGCTL_PORTAL_URL=f"{self.service.url}/{portal}/sharing/rest",
            ORGCTL_ADMIN_URL=f"{self.service.url}/{portal}/admin",
            ORGCTL_USERNAME=username,
            ORGCTL_PASSWORD=password,
        )

    def fleet_env(self, portals: dict[str, str], **variables: str) -> dict[str, str]:
        """The environment of a CLI run against a fleet: each portal, by its Portal's
        metadata.name, pointed at a urlKey of this service through its own
        ORGCTL_<NAME>_PORTAL_URL and _ADMIN_URL (`variables` win); the plain admin credentials."""
        urls: dict[str, str] = {}
        for name, url_key in portals.items():
            stem = variable_stem(name)
            urls[f"{stem}_PORTAL_URL"] = f"{self.service.url}/{url_key}/sharing/rest"
            urls[f"{stem}_ADMIN_URL"] = f"{self.service.url}/{url_key}/admin"
        return env_with(ORGCTL_USERNAME=ADMIN[0], ORGCTL_PASSWORD=ADMIN[1], **{**urls, **variables})

    def orgctl(
        self,
        *args: str | Path,
        portal: str,
        username: str = ADMIN[0],
        password: str = ADMIN[1],
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        return orgctl(*args, env=env or self.env(portal, username, password), cwd=self.workdir)

    def orgctl_process(
        self,
        *args: str | Path,
        portal: str,
        username: str = ADMIN[0],
        password: str = ADMIN[1],
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """The CLI as its own process, for what only a process shows (its whole output)."""
        environment = env or self.env(portal, username, password)
        return orgctl_subprocess(*args, env=environment, cwd=self.workdir)

    def spawn(self, *args: str | Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
        """The CLI started as its own process and left running, for a test to kill."""
        return subprocess.Popen(
            orgctl_command([str(a) for a in args]),
            env=env,
            cwd=self.workdir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def api(self, portal: str, username: str = ADMIN[0], password: str = ADMIN[1]) -> PortalApi:
        return PortalApi(self._api, portal, username, password)

    def advance_clock(self, hours: float) -> None:
        """Move the service's own clock (`--control`): schedules fire, runs age."""
        reply = self._api.advance(hours)
        assert reply.get("success") is True, reply

    def close(self) -> None:
        self._api.close()
        self.service.stop()


# The `serve` fixture: start a service seeded from a state file, get its World.
Serve = Callable[[str | Path], "World"]


# hq's default administrator and its custom roles, as the demo state seeds them: what a
# test inserts more members or roles after.
DEMO_HQ_ADMIN = (
    "      - {username: admin, password: admin-pass, role: org_admin, defaultAdmin: true,"
    " level: 2}\n"
)
DEMO_HQ_ROLES = (
    "    roles:                          # custom roles (a user's `role` names one by name or id)\n"
)


def demo_state_with(directory: Path, inserted: dict[str, str]) -> Path:
    """The demo state with text inserted after the first occurrence of each line of
    `inserted` (a line of the demo state -> what follows it), written in `directory`."""
    text = DEMO_STATE.read_text()
    for line, addition in inserted.items():
        assert line in text, line
        text = text.replace(line, line + addition, 1)
    state = directory / "state.yaml"
    state.write_text(text)
    return state


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def plan_json(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The plan a `--format json` run printed on stdout."""
    try:
        document: dict[str, Any] = json.loads(result.stdout)
    except json.JSONDecodeError as exc:
        raise AssertionError(f"stdout is not JSON ({exc}):\n{output_of(result)}") from None
    return document


def calls_by(plan: dict[str, Any], address: str, url_part: str) -> list[dict[str, Any]]:
    """The plan's calls for `address` whose URL contains `url_part` (an operation path)."""
    return [
        c for c in plan["calls"] if c["address"] == address and url_part.lower() in c["url"].lower()
    ]


def one_call(plan: dict[str, Any], address: str, url_part: str) -> dict[str, Any]:
    found = calls_by(plan, address, url_part)
    assert len(found) == 1, f"expected one {url_part} call for {address}, got {found}"
    return found[0]


def run_orgctl_on_a_terminal(
    args: list[str], env: dict[str, str], answer: str, cwd: Path | None = None
) -> tuple[int, str]:
    """The real CLI on a pseudo-terminal: `answer` is typed at the first prompt (a last
    line ending without a newline and holding a "?"). Returns the exit code and all output."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        orgctl_command(args), env=env, cwd=cwd, stdin=terminal, stdout=terminal, stderr=terminal
    )
    os.close(terminal)
    output = b""
    answered = False
    try:
        while select.select([controller], [], [], CLI_TIMEOUT_SECONDS)[0]:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the terminal closed: the process has exited
                break
            if not chunk:
                break
            output += chunk
            if not answered and b"?" in output.rsplit(b"\n", 1)[-1]:
                os.write(controller, answer.encode() + b"\n")
                answered = True
        code = process.wait(CLI_TIMEOUT_SECONDS)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
    return code, output.decode(errors="replace")
