"""Drive the real `orgctl` against a real `orgctl serve`, both as subprocesses.

The package's harness (`orgctl_service.testing.service`) starts `orgctl serve` on a free
loopback port (ready line, 20 s timeout, its output shown on failure) and speaks its API,
`PortalApi` as one signed-in user; on top of it, `World`
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

from orgctl_service.testing.service import ADMIN as ADMIN
from orgctl_service.testing.service import PortalApi, Service
from reconciler.environment import variable_stem
from tests.cli import CLI_TIMEOUT_SECONDS, env_with, orgctl, orgctl_command, orgctl_subprocess
from tests.cli import output_of as output_of  # re-exported: the e2e tests' one way to show a run

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXAMPLES = ROOT / "examples"
DEMO_STATE = EXAMPLES / "demo" / "state.yaml"
STATES = HERE / "states"
MANIFESTS = HERE / "manifests"


class World:
    """One running service and the means to drive it: the CLI, its environment, the API."""

    def __init__(self, service: Service, workdir: Path) -> None:
        self.service = service
        self.workdir = workdir
        self._api = service.api()

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
DEMO_HQ_ADMIN = "      - {username: admin, password: admin-pass, role: org_admin, level: 2}\n"
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
